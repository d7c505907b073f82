//! Every cipher × mode (with interleave factors and padding on or off) decrypting and
//! encrypting arbitrary bytes: never a panic; the one-shot run, a chunked `Crypter` run
//! (fuzzer-chosen update sizes) and the same pieces through `update_in_place` where the
//! `Crypter` accepts them give the same result, error or bytes; what decrypts
//! re-encrypts to the same bytes and what encrypts decrypts back; and the constant-time
//! PKCS#7 check agrees with the obvious one on arbitrary blocks.
//!
//! Input: cipher, mode, interleave, flags (bit 0 padding on ecb/cbc, bit 1 padding on a
//! stream mode, which must be refused; bits 2.. the backend), the number k of update sizes
//! (mod 8) and k sizes (one byte each), the unpad probe length (mod 33), the key, the IV
//! (the mode's length, at most 40 blocks), then the data (CFB1: at most 64 bytes of it).
#![no_main]

use bitweave::mode::padding;
use bitweave::{Cipher, Direction, Error, Mode, ModeParams};
use bitweave_fuzz::{
    cipher_kind, fast_backends, mode, pieces, reference_unpad_len, run_pieces, Reader,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    let kind = cipher_kind(r.u8());
    let mode = mode(r.u8());
    let n = r.u8() as usize % 41;
    let flags = r.u8();
    let padding = if mode.whole_blocks() {
        flags & 1 != 0
    } else {
        flags & 2 != 0
    };
    let sizes: Vec<u16> = (0..r.u8() % 8).map(|_| r.u8() as u16).collect();
    let probe = r.u8() as usize % 33;
    let mut backends = vec!["soft"];
    backends.extend(fast_backends(kind));
    let backend = backends[(flags >> 2) as usize % backends.len()];
    let bs = kind.block_size();
    let key = r.bytes(kind.key_len());
    let params = ModeParams::new(mode).interleave(n).padding(padding);
    let iv = r.bytes(params.iv_len(bs).min(40 * bs));
    let input = r.rest();
    // CFB1 costs a block encryption per bit (a whole bitsliced batch on the sliced
    // backends): longer inputs would only slow the fuzzer down.
    let input = if mode == Mode::Cfb1 {
        &input[..input.len().min(64)]
    } else {
        input
    };

    // The unpad check on the input's last `probe` bytes (0..=32 of them, so also empty
    // and longer-than-a-block slices).
    let tail = &input[input.len() - probe.min(input.len())..];
    assert_eq!(
        padding::unpad_len(tail).ok(),
        reference_unpad_len(tail),
        "unpad_len disagrees on {tail:02x?}"
    );

    let cipher = Cipher::with_backend(kind, &key, Some(backend)).expect("usable backend");
    let split = pieces(input, &sizes);
    let valid = params.validate();

    let dec = params.decrypt_all(&cipher, &iv, input);
    let dec_chunked = run_pieces(&params, &cipher, Direction::Decrypt, &iv, &split, false);
    assert_eq!(
        dec, dec_chunked,
        "{kind}-{mode} x{n} pad={padding} {backend}: one-shot and chunked decryption differ"
    );
    assert_eq!(
        dec,
        run_pieces(&params, &cipher, Direction::Decrypt, &iv, &split, true),
        "{kind}-{mode} x{n} pad={padding} {backend}: in-place and one-shot decryption differ"
    );
    let enc = params.encrypt_all(&cipher, &iv, input);
    assert_eq!(
        enc,
        run_pieces(&params, &cipher, Direction::Encrypt, &iv, &split, true),
        "{kind}-{mode} x{n} pad={padding} {backend}: in-place and one-shot encryption differ"
    );
    let enc_chunked = run_pieces(&params, &cipher, Direction::Encrypt, &iv, &split, false);
    assert_eq!(
        enc, enc_chunked,
        "{kind}-{mode} x{n} pad={padding} {backend}: one-shot and chunked encryption differ"
    );

    if let Err(e) = &valid {
        assert_eq!(
            dec.as_ref().err(),
            Some(e),
            "invalid params must be refused"
        );
        return;
    }
    match &dec {
        Ok(pt) => {
            // Decryption succeeded: encrypting the plaintext gives the input back (with
            // padding, a valid pad re-pads to the same bytes).
            let again = params.encrypt_all(&cipher, &iv, pt);
            assert_eq!(
                again.as_deref(),
                Ok(input),
                "{kind}-{mode} x{n} pad={padding} {backend}: decrypt then encrypt"
            );
        }
        Err(Error::IvLength { .. } | Error::MissingIv(_)) => {
            assert!(
                iv.len() != params.iv_len(bs),
                "IV of the right length refused"
            )
        }
        Err(Error::NotWholeBlocks { .. }) => assert!(
            mode.whole_blocks() && (!input.len().is_multiple_of(bs) || input.is_empty()),
            "{kind}-{mode}: NotWholeBlocks on {} bytes",
            input.len()
        ),
        Err(Error::BadPadding) => assert!(padding),
        Err(e) => panic!("unexpected decryption error: {e}"),
    }
    if let Ok(ct) = &enc {
        let back = params.decrypt_all(&cipher, &iv, ct);
        assert_eq!(
            back.as_deref(),
            Ok(input),
            "{kind}-{mode} x{n} pad={padding} {backend}: encrypt then decrypt"
        );
    }
});
