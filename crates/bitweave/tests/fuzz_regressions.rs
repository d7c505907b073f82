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

/// `diff_backends`, 2026-12-03: SEED's one-block backends (`gfni128`, `aesni`) advanced
/// the CTR counter by a block on an empty call, where `soft` leaves it (the fuzzer's
/// input had no data after the IV). Every backend of every cipher, against `soft`: an
/// empty call changes nothing, and one block moves the counter by one.
#[test]
fn ctr_on_no_data_leaves_the_counter_on_every_backend() {
    use bitweave::hazmat::registry;
    use bitweave::{Cipher, CipherKind, ModeKernels};
    for kind in CipherKind::ALL {
        let key = vec![0x5a; kind.key_len()];
        let bs = kind.block_size();
        let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
        for info in registry::usable(kind) {
            let fast = Cipher::with_backend(kind, &key, Some(info.name)).unwrap();
            for len in [0, 1, bs] {
                let mut counter = vec![0xffu8; bs];
                counter[0] = 7;
                let (mut ca, mut cb) = (counter.clone(), counter.clone());
                let (mut a, mut b) = (vec![3u8; len], vec![3u8; len]);
                fast.ctr_keystream_xor(&mut ca, &mut a);
                soft.ctr_keystream_xor(&mut cb, &mut b);
                assert_eq!((ca, a), (cb, b), "{kind} on {}, {len} bytes", info.name);
            }
        }
    }
}
