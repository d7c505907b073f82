//! Inputs the fuzz targets in `fuzz/` found (fuzz/README.md lists the runs), each
//! reduced to the library call that failed, so they stay fixed without cargo-fuzz.

use bitweave::mode::padding;
use bitweave::Error;

/// `mode_decrypt`, 2026-11-24: `padding::unpad_len` on an empty slice indexed
/// `last_block[len - 1]` and panicked (underflow) instead of reporting bad padding. The
/// fuzzer's input was empty (crash-da39a3ee5e6b4b0d3255bfef95601890afd80709), which probes
/// the unpad check with the input's last 0 bytes.
#[test]
fn unpad_len_of_an_empty_slice_is_bad_padding() {
    assert_eq!(padding::unpad_len(&[]), Err(Error::BadPadding));
    // Neighbours of the fixed case keep their answers.
    assert_eq!(padding::unpad_len(&[1]), Ok(1));
    assert_eq!(padding::unpad_len(&[0]), Err(Error::BadPadding));
    assert_eq!(padding::unpad_len(&[2]), Err(Error::BadPadding));
}
