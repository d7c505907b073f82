//! π-Cipher decryption of arbitrary input, all six variants, on every backend this CPU
//! runs (`ref`, `portable`, `avx2`, `avx512`), one-shot, multi-stream (`decrypt_many`) and
//! incremental (`opener`, fuzzer-chosen piece sizes). Never a panic; every path gives the
//! same verdict; and a ciphertext that opens must be exactly what encrypting the opened
//! message gives (anything else is a forgery: random bytes that authenticate).
//!
//! Input: variant (mod 6), flags (bit 0: with an encrypted SMN; bits 1..: which
//! backend runs the incremental path), AD length, npub length selector (< 240: the
//! variant's length; else 0..=15), piece size for the incremental path, key, npub, AD,
//! then the ciphertext.
#![no_main]

use bitweave::aead::{Ciphertext, Message, PiBackend, PiCipher, PiVariant};
use bitweave::Error;
use bitweave_fuzz::{pieces, Reader};
use libfuzzer_sys::fuzz_target;

/// One path's verdict: the opened SMN and plaintext, or the error.
type Verdict = Result<(Vec<u8>, Vec<u8>), Error>;

fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    let v = PiVariant::ALL[r.u8() as usize % 6];
    let flags = r.u8();
    let with_nsec = flags & 1 != 0;
    let ad_len = r.u8() as usize;
    let npub_sel = r.u8();
    let piece = r.u8() as u16;
    let npub_len = if npub_sel < 240 {
        v.npub_len()
    } else {
        (npub_sel - 240) as usize
    };
    let key = r.bytes(v.key_len());
    let npub = r.bytes(npub_len);
    let ad = r.up_to(ad_len).to_vec();
    let c = r.rest();

    let backends: Vec<PiBackend> = PiBackend::ALL
        .into_iter()
        .filter(|b| b.available())
        .collect();
    let ct = Ciphertext {
        npub: &npub,
        ad: &ad,
        ciphertext: c,
        with_nsec,
    };
    let mut verdicts: Vec<(String, Verdict)> = Vec::new();
    for &b in &backends {
        let pi = PiCipher::with_backend(v, &key, Some(b.name())).expect("available backend");
        let one = pi
            .decrypt_message(&ct)
            .map(|o| (o.nsec.to_vec(), o.plaintext.to_vec()));
        verdicts.push((format!("{} one-shot", b.name()), one));
        // Multi-stream: two copies of the same ciphertext, each judged on its own.
        match pi.decrypt_many(&[ct, ct]) {
            Ok(results) => {
                for (i, res) in results.into_iter().enumerate() {
                    let res = res.map(|o| (o.nsec.to_vec(), o.plaintext.to_vec()));
                    verdicts.push((format!("{} many[{i}]", b.name()), res));
                }
            }
            Err(e) => verdicts.push((format!("{} many", b.name()), Err(e))),
        }
    }
    // The incremental path on one backend, AD and ciphertext in pieces.
    let b = backends[(flags >> 1) as usize % backends.len()];
    let pi = PiCipher::with_backend(v, &key, Some(b.name())).unwrap();
    let streamed: Verdict = pi.opener(&npub, with_nsec).and_then(|mut op| {
        for p in pieces(&ad, &[piece]) {
            op.ad(p);
        }
        let mut opening = op.start();
        let mut out = Vec::new();
        for p in pieces(c, &[piece, piece / 3 + 1]) {
            opening.update_unverified(p, &mut out);
        }
        opening.finish(&mut out).map(|nsec| (nsec.to_vec(), out))
    });
    verdicts.push((format!("{} incremental", b.name()), streamed));

    let (first_name, first) = &verdicts[0];
    for (name, verdict) in &verdicts[1..] {
        assert_eq!(verdict, first, "{v}: {name} differs from {first_name}");
    }
    match first {
        Err(Error::TagMismatch) => {}
        Err(Error::NpubLength { .. }) => assert_ne!(npub.len(), v.npub_len()),
        Err(Error::CiphertextTooShort { min, .. }) => assert!(c.len() < *min),
        Err(e) => panic!("{v}: unexpected error {e}"),
        Ok((nsec, plaintext)) => {
            // It opened: it must be the genuine encryption of what came out.
            let again = pi
                .encrypt_message(&Message {
                    npub: &npub,
                    nsec: with_nsec.then_some(&nsec[..]),
                    ad: &ad,
                    plaintext,
                })
                .unwrap();
            assert_eq!(again, c, "{v}: a ciphertext opened that is no encryption");
        }
    }
});
