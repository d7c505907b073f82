//! Every KAT file in tests/vectors through every backend this CPU can run, one-shot and
//! streamed in uneven chunks. Backends the CPU cannot run are reported as skipped.

mod common;

use bitweave::hazmat::registry;
use bitweave::{Cipher, Direction};

#[test]
fn every_vector_on_every_backend() {
    let files = common::block_cipher_files();
    assert!(
        files.len() >= 60,
        "expected the full vector set, found {}",
        files.len()
    );
    let mut checked = 0;
    let mut skipped = Vec::new();
    for f in &files {
        let suite = f.suite();
        assert_eq!(suite.cipher.block_size(), f.block_bytes, "{}", f.file);
        let params = f.params();
        for info in registry::all().iter().filter(|b| b.cipher == suite.cipher) {
            if !info.available() {
                skipped.push(format!("{} on {}", f.file, info.name));
                continue;
            }
            for v in &f.vectors {
                let c = Cipher::with_backend(suite.cipher, &v.key, Some(info.name)).unwrap();
                let what = format!("{} #{} on {}", f.file, v.id, info.name);
                let ct = params.encrypt_all(&c, &v.iv, &v.plaintext).expect(&what);
                assert_eq!(
                    hex::encode(&ct),
                    hex::encode(&v.ciphertext),
                    "encrypt {what}"
                );
                let pt = params.decrypt_all(&c, &v.iv, &v.ciphertext).expect(&what);
                assert_eq!(
                    hex::encode(&pt),
                    hex::encode(&v.plaintext),
                    "decrypt {what}"
                );
                // Streamed in chunks of 1, 3, 7, ... bytes.
                for (dir, input, want) in [
                    (Direction::Encrypt, &v.plaintext, &v.ciphertext),
                    (Direction::Decrypt, &v.ciphertext, &v.plaintext),
                ] {
                    let mut cr = params.crypter(&c, dir, &v.iv).unwrap();
                    let mut out = Vec::new();
                    let mut rest = &input[..];
                    let mut step = 1;
                    while !rest.is_empty() {
                        let n = step.min(rest.len());
                        cr.update(&rest[..n], &mut out);
                        rest = &rest[n..];
                        step = step * 2 + 1;
                    }
                    cr.finish(&mut out).unwrap();
                    assert_eq!(&out, want, "streamed {} {what}", dir.name());
                }
                checked += 1;
            }
        }
    }
    for s in &skipped {
        eprintln!("skipped (CPU lacks the backend): {s}");
    }
    eprintln!("{checked} vector runs checked, {} skipped", skipped.len());
    assert!(checked > 500);
}
