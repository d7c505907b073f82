//! AES-GCM: the test cases of the GCM specification, and OpenSSL's AES-GCM on random
//! keys, nonces, AAD and lengths (every length to 300 bytes, then long ones across the
//! 16 KiB piece boundary), on every GHASH backend this CPU runs; tampering fails and
//! leaves the ciphertext as it was.

use bitweave::aead::gcm::{AesGcm, GhashBackend};
use bitweave::Error;
use openssl::symm::{encrypt_aead, Cipher as OsslCipher};
use rand::{Rng, SeedableRng};

fn backends() -> Vec<GhashBackend> {
    let mut ran = vec![];
    for b in GhashBackend::ALL {
        if b.available() {
            ran.push(b);
        } else {
            println!("GHASH backend {} not run: this CPU cannot", b.name());
        }
    }
    println!(
        "GHASH backends run: {:?}",
        ran.iter().map(|b| b.name()).collect::<Vec<_>>()
    );
    ran
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

/// McGrew and Viega, "The Galois/Counter Mode of Operation", Appendix B: test cases 1-4
/// (AES-128), 13-16 (AES-256); the 96-bit-IV ones.
#[test]
fn specification_test_cases() {
    let k3 = "feffe9928665731c6d6a8f9467308308";
    let p4 = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
    let cases: [(&str, &str, &str, &str, &str, &str); 8] = [
        ("00000000000000000000000000000000", "000000000000000000000000", "", "", "", "58e2fccefa7e3061367f1d57a4e7455a"),
        ("00000000000000000000000000000000", "000000000000000000000000", "00000000000000000000000000000000", "", "0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf"),
        (k3, "cafebabefacedbaddecaf888", "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255", "", "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985", "4d5c2af327cd64a62cf35abd2ba6fab4"),
        (k3, "cafebabefacedbaddecaf888", p4, "feedfacedeadbeeffeedfacedeadbeefabaddad2", "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091", "5bc94fbc3221a5db94fae95ae7121a47"),
        ("0000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000", "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"),
        ("0000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000", "00000000000000000000000000000000", "", "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"),
        ("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255", "", "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad", "b094dac5d93471bdec1a502270e3cc6c"),
        ("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", p4, "feedfacedeadbeeffeedfacedeadbeefabaddad2", "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662", "76fc6ece0f4e1768cddf8853bb2d551b"),
    ];
    for backend in backends() {
        for (i, (k, iv, p, a, c, t)) in cases.iter().enumerate() {
            let gcm = AesGcm::with_ghash(&unhex(k), backend).unwrap();
            let nonce: [u8; 12] = unhex(iv).try_into().unwrap();
            let mut data = unhex(p);
            let tag = gcm.encrypt_in_place(&nonce, &unhex(a), &mut data).unwrap();
            let name = format!("aes-gcm/{}/spec case {}", backend.name(), i);
            assert_eq!(hex::encode(&data), *c, "{name}: ciphertext");
            assert_eq!(hex::encode(tag), *t, "{name}: tag");
            gcm.decrypt_in_place(&nonce, &unhex(a), &mut data, &tag)
                .unwrap();
            assert_eq!(hex::encode(&data), *p, "{name}: round trip");
        }
    }
}

#[test]
fn matches_openssl_on_random_inputs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6c6d);
    let mut lengths: Vec<usize> = (0..=300).collect();
    lengths.extend([
        383,
        384,
        385,
        // The one-call bound on VAES-512 (496) and either side.
        495,
        496,
        497,
        512,
        1024,
        1025,
        4095,
        16 * 1024 - 1,
        16 * 1024,
        16 * 1024 + 17,
        70_000,
    ]);
    let aes = aes_backends();
    for backend in backends() {
        for &len in &lengths {
            let key_len = [16, 24, 32][len % 3];
            let key: Vec<u8> = (0..key_len).map(|_| rng.gen()).collect();
            let nonce: [u8; 12] = rng.gen();
            let aad: Vec<u8> = (0..rng.gen_range(0..40)).map(|_| rng.gen()).collect();
            let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let cipher = match key_len {
                16 => OsslCipher::aes_128_gcm(),
                24 => OsslCipher::aes_192_gcm(),
                _ => OsslCipher::aes_256_gcm(),
            };
            let mut want_tag = [0u8; 16];
            let want = encrypt_aead(cipher, &key, Some(&nonce), &aad, &pt, &mut want_tag).unwrap();
            for &aes in &aes {
                let gcm = AesGcm::with_backends(&key, backend, aes).unwrap();
                let mut data = pt.clone();
                let tag = gcm.encrypt_in_place(&nonce, &aad, &mut data).unwrap();
                let name = format!(
                    "aes-{}-gcm/{}/aes {}/len {len}/aad {}",
                    key_len * 8,
                    backend.name(),
                    aes.unwrap_or("default"),
                    aad.len()
                );
                assert!(data == want, "{name}: ciphertext differs from OpenSSL's");
                assert_eq!(tag, want_tag, "{name}: tag differs from OpenSSL's");
                gcm.decrypt_in_place(&nonce, &aad, &mut data, &tag).unwrap();
                assert!(data == pt, "{name}: round trip");
            }
        }
    }
}

/// The default AES backend, and `aesni` where this CPU runs it: with `clmul128` it takes
/// the stitched loop (AES-NI and PCLMULQDQ interleaved), which the default takes only on
/// the AES-NI tier.
fn aes_backends() -> Vec<Option<&'static str>> {
    let mut out = vec![None];
    match AesGcm::with_backends(&[0; 16], GhashBackend::Soft, Some("aesni")) {
        Ok(_) => out.push(Some("aesni")),
        Err(e) => println!("AES backend aesni not run: {e}"),
    }
    out
}

#[test]
fn tampering_fails_and_leaves_the_ciphertext() {
    for aes in aes_backends() {
        // On `aesni`, `clmul128` where it runs: the stitched loop.
        let ghash = match aes {
            Some(_) if GhashBackend::Clmul128.available() => GhashBackend::Clmul128,
            _ => GhashBackend::best(),
        };
        let gcm = AesGcm::with_backends(&[3; 32], ghash, aes).unwrap();
        println!(
            "tampering: aes {}, {}{}",
            aes.unwrap_or("default"),
            ghash.name(),
            if gcm.is_stitched() { ", stitched" } else { "" }
        );
        tampering_fails_on(&gcm, aes.unwrap_or("default"));
    }
}

fn tampering_fails_on(gcm: &AesGcm, aes: &str) {
    let nonce = [9; 12];
    // Short messages (one AES call, decrypted into a buffer) and long ones (in place,
    // the keystream put back on failure), across the 16 KiB piece boundary.
    for len in [1usize, 64, 240, 241, 256, 496, 497, 1000, 16 * 1024 + 5] {
        let pt = vec![0x5a; len];
        let mut ct = pt.clone();
        let tag = gcm.encrypt_in_place(&nonce, b"ad", &mut ct).unwrap();
        for (what, flip_ct, flip_tag, aad, n) in [
            ("ciphertext bit", Some(len / 2), None, &b"ad"[..], nonce),
            ("tag bit", None, Some(15), &b"ad"[..], nonce),
            ("aad", None, None, &b"aD"[..], nonce),
            ("nonce", None, None, &b"ad"[..], [8; 12]),
        ] {
            let mut data = ct.clone();
            let mut t = tag;
            if let Some(i) = flip_ct {
                data[i] ^= 1;
            }
            if let Some(i) = flip_tag {
                t[i] ^= 0x80;
            }
            let before = data.clone();
            let err = gcm.decrypt_in_place(&n, aad, &mut data, &t).unwrap_err();
            assert!(
                matches!(err, Error::TagMismatch),
                "aes {aes}, len {len}, {what}: {err}"
            );
            assert!(
                data == before,
                "aes {aes}, len {len}, {what}: the ciphertext was not restored"
            );
        }
    }
}
