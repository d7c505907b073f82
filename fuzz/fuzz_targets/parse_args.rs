//! The argument path of `bitweave enc/dec` and `aead-enc/dec`, and every name parser:
//! arbitrary cipher names, hex keys and IVs, interleave factors and backend names go
//! through the same calls the CLI makes (suite parse, hex decode, `ModeParams::validate`,
//! `Cipher::with_backend`, `crypter`). Never a panic; whatever is accepted has the lengths
//! the contract says and round-trips a short message; names print back to themselves.
//!
//! Input: text lines `cipher`, `key hex`, `iv hex`, `interleave` (decimal, as clap parses
//! it), `nopad` (`1` = on), `backend` (empty = default); missing lines are empty.
#![no_main]

use std::str::FromStr;

use bitweave::aead::{PiBackend, PiCipher, PiVariant};
use bitweave::hazmat::registry;
use bitweave::seal::SealSuite;
use bitweave::{Cipher, CipherKind, Direction, Mode, Suite};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let mut next = || lines.next().unwrap_or("");
    let (name, key_hex, iv_hex, n_text, nopad, backend) =
        (next(), next(), next(), next(), next(), next());
    let backend = (!backend.is_empty()).then_some(backend);

    // Every name parser on the raw name: what parses prints back (lower-case) and
    // re-parses to the same value; errors must format.
    if let Ok(s) = Suite::from_str(name) {
        assert_eq!(s.to_string().parse::<Suite>().unwrap(), s);
    }
    if let Ok(k) = CipherKind::from_str(name) {
        assert_eq!(k.name(), name.to_ascii_lowercase());
    }
    if let Ok(m) = Mode::from_str(name) {
        assert_eq!(m.name(), name.to_ascii_lowercase());
    }
    if let Ok(v) = PiVariant::from_str(name) {
        assert_eq!(v.name(), name.to_ascii_lowercase());
    }
    if let Ok(s) = SealSuite::from_str(name) {
        assert_eq!(s.name(), name.to_ascii_lowercase());
    }
    let _ = PiBackend::select(backend).map_err(|e| e.to_string());

    let key = hex::decode(key_hex);
    let iv = hex::decode(iv_hex);

    // The π-Cipher path of `aead-enc`/`aead-dec`: the key's and nonce's lengths.
    if let (Ok(v), Ok(key)) = (PiVariant::from_str(name), &key) {
        match PiCipher::with_backend(v, key, backend) {
            Ok(pi) => {
                assert_eq!(key.len(), v.key_len());
                let npub = iv.as_deref().unwrap_or(&[]);
                match pi.encrypt(npub, &vec![0; v.nsec_len()], b"ad", b"msg") {
                    Ok(c) => {
                        assert_eq!(npub.len(), v.npub_len());
                        let o = pi.decrypt(npub, b"ad", &c).expect("round trip");
                        assert_eq!(&o.plaintext[..], b"msg");
                    }
                    Err(e) => assert_ne!(npub.len(), v.npub_len(), "{e}"),
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }

    // The block-cipher path of `enc`/`dec`.
    let Ok(suite) = Suite::from_str(name).map_err(|e| e.to_string()) else {
        return;
    };
    // clap parses --interleave as usize; an unparsable value stops there.
    let n = if n_text.is_empty() {
        1
    } else {
        match n_text.trim().parse::<usize>() {
            Ok(n) => n,
            Err(_) => return,
        }
    };
    let params = suite
        .params()
        .padding(suite.mode.whole_blocks() && nopad.trim() != "1")
        .interleave(n);
    if let Err(e) = params.validate() {
        let _ = e.to_string();
        assert!(n == 0 || (n > 1 && !suite.mode.interleavable()));
        return;
    }
    let (Ok(key), Ok(iv)) = (key, iv) else {
        return;
    };
    let cipher = match Cipher::with_backend(suite.cipher, &key, backend) {
        Ok(c) => c.with_threads(1),
        Err(e) => {
            let _ = e.to_string();
            let bad_backend =
                backend.is_some_and(|b| registry::select(suite.cipher, Some(b)).is_err());
            assert!(key.len() != suite.cipher.key_len() || bad_backend);
            return;
        }
    };
    assert_eq!(key.len(), suite.cipher.key_len());
    let iv = if suite.mode.takes_iv() {
        iv
    } else {
        Vec::new()
    };
    for dir in [Direction::Encrypt, Direction::Decrypt] {
        match params.crypter(&cipher, dir, &iv) {
            Ok(_) => assert_eq!(iv.len(), params.iv_len(suite.cipher.block_size())),
            Err(e) => {
                let _ = e.to_string();
                assert_ne!(iv.len(), params.iv_len(suite.cipher.block_size()));
                return;
            }
        }
    }
    // Accepted: a short message round-trips (when the mode can take its length).
    let msg = b"bitweave fuzz message, 40 bytes long...!";
    let msg = if suite.mode.whole_blocks() && !params.padding {
        &msg[..32]
    } else {
        &msg[..]
    };
    let ct = params
        .encrypt_all(&cipher, &iv, msg)
        .expect("accepted parameters");
    assert_eq!(params.decrypt_all(&cipher, &iv, &ct).unwrap(), msg);
});
