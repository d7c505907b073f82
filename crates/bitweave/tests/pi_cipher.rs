//! π-Cipher v2: every vector of every `pi*.json` file through every backend (encrypt and
//! decrypt), the designers' own KATs for the no-SMN mode, multi-stream against separate
//! runs, every fast backend against the reference on random inputs, tampering and length
//! errors. Backends this CPU cannot run are reported as skipped, never counted as passed.

use std::path::PathBuf;

use bitweave::aead::{Ciphertext, Message, PiBackend, PiCipher, PiVariant};
use bitweave::Error;
use rand::{Rng, RngCore, SeedableRng};
use serde::Deserialize;

#[derive(Deserialize)]
struct PiFile {
    algorithm: String,
    key_bytes: usize,
    nsec_bytes: usize,
    npub_bytes: usize,
    tag_bytes: usize,
    vectors: Vec<PiVector>,
}

#[derive(Deserialize)]
struct PiVector {
    id: u32,
    #[serde(deserialize_with = "from_hex")]
    key: Vec<u8>,
    #[serde(deserialize_with = "from_hex")]
    nsec: Vec<u8>,
    #[serde(deserialize_with = "from_hex")]
    npub: Vec<u8>,
    #[serde(deserialize_with = "from_hex")]
    ad: Vec<u8>,
    #[serde(deserialize_with = "from_hex")]
    plaintext: Vec<u8>,
    #[serde(deserialize_with = "from_hex")]
    ciphertext: Vec<u8>,
}

fn from_hex<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    let s = String::deserialize(d)?;
    hex::decode(s).map_err(serde::de::Error::custom)
}

fn pi_files() -> Vec<(PiVariant, PiFile)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("pi") && n.ends_with(".json")
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let f: PiFile = serde_json::from_str(&std::fs::read_to_string(&p).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let v: PiVariant = f.algorithm.parse().unwrap();
            (v, f)
        })
        .collect()
}

/// The available backends, with the unavailable ones reported.
fn backends() -> Vec<PiBackend> {
    PiBackend::ALL
        .into_iter()
        .filter(|b| {
            let ok = b.available();
            if !ok {
                eprintln!("skipped (CPU lacks the backend): {}", b.name());
            }
            ok
        })
        .collect()
}

fn fast_backends() -> Vec<PiBackend> {
    backends()
        .into_iter()
        .filter(|b| *b != PiBackend::Reference)
        .collect()
}

fn cipher(v: PiVariant, key: &[u8], b: PiBackend) -> PiCipher {
    PiCipher::with_backend(v, key, Some(b.name())).unwrap()
}

#[test]
fn every_vector_on_every_backend() {
    let files = pi_files();
    assert_eq!(files.len(), 6, "expected the six v2 vector files");
    let mut checked = 0;
    for (v, f) in &files {
        assert_eq!(f.key_bytes, v.key_len());
        assert_eq!(f.nsec_bytes, v.nsec_len());
        assert_eq!(f.npub_bytes, v.npub_len());
        assert_eq!(f.tag_bytes, v.tag_len());
        assert_eq!(f.vectors.len(), 20);
        for b in backends() {
            for t in &f.vectors {
                let what = format!("{v} #{} on {}", t.id, b.name());
                let pi = cipher(*v, &t.key, b);
                let c = pi.encrypt(&t.npub, &t.nsec, &t.ad, &t.plaintext).unwrap();
                assert_eq!(
                    hex::encode(&c),
                    hex::encode(&t.ciphertext),
                    "encrypt {what}"
                );
                assert_eq!(c.len(), v.ciphertext_len(t.plaintext.len()));
                let o = pi.decrypt(&t.npub, &t.ad, &t.ciphertext).expect(&what);
                assert_eq!(&o.plaintext[..], &t.plaintext[..], "decrypt {what}");
                assert_eq!(&o.nsec[..], &t.nsec[..], "nsec {what}");
                checked += 1;
            }
        }
    }
    eprintln!("{checked} vector runs checked");
    assert!(checked >= 6 * 20 * 2);
}

/// Vectors from the designers' published `pi16cipher096v2_4.test-vectors` (repository
/// nerilex/pi-cipher-ref): with and without a secret message number (`NSEC (0)`: ref2's
/// no-SMN mode, where c = C || T).
const DESIGNERS_PI16096: &[(&str, &str, &str, &str, &str, &str)] = &[
    // (key, npub, nsec, msg, ad, cipher)
    (
        "2DAF0E1DE9515FD53FB3A15C",
        "8B7074DF",
        "99BFA4EAE019B21BFB558E8219C6A9AF",
        "",
        "",
        "BAAD9C696A2667AA1A16EBEE1207DF45ECC56F44B1AC677C25CBEC7312579EE9",
    ),
    (
        "25CFA7958E16A944F11F17EB",
        "ECDD50A8",
        "",
        "",
        "",
        "A064CCE52F3C59C2222264761857DC1F",
    ),
    (
        "8402DA782BCC83870B27EDA6",
        "60ACB839",
        "",
        "",
        "62",
        "2BF8DF4761106983BBC4ED15E1FF2C41",
    ),
    (
        "8F9044504AC9A186C277B705",
        "C785D185",
        "621F79BCC1B0139FBFBB661096BFA498",
        "A8C8C5A19754654B4260",
        "D6AF19045CCECE",
        "7FD7D6075FB7820F78B090257EADFEE23608A490FAD5B653260994D222DFFC19B7373CC609EED6B5245A",
    ),
    (
        "EAA50A9184E72C2FB783DFA1",
        "001D86BE",
        "",
        "4BF2BDBEDB97F0198A5E",
        "8A044E1C7452E3",
        "F09CC2658AF9E68147B525DD58CCCF20F882B3796BDDDE7022DB",
    ),
    (
        "F756728248D14068C782E124",
        "EF7C153C",
        "",
        "F3AE8CFD2B5A658DE6DC",
        "8A421D86BBE23B68",
        "4DEEB55FD0702152142E8AA07082B86053C260B7E204FA4A6D16",
    ),
    (
        "86259C4D9A53BFB55AE9BA78",
        "D94AEBBF",
        "",
        "719775FE373E31B973AD",
        "797BAB3E3D1A90233A",
        "AFD014CDB4F3E5AA2D6E3AA7085A4280208EC08FD4AE9F49E503",
    ),
];

#[test]
fn designers_kats_with_and_without_smn() {
    for b in backends() {
        for (i, (k, npub, nsec, msg, ad, c)) in DESIGNERS_PI16096.iter().enumerate() {
            let [k, npub, nsec, msg, ad, c] =
                [k, npub, nsec, msg, ad, c].map(|h| hex::decode(h).unwrap());
            let pi = cipher(PiVariant::Pi16Cipher096V2, &k, b);
            let with = !nsec.is_empty();
            let m = Message {
                npub: &npub,
                nsec: with.then_some(&nsec[..]),
                ad: &ad,
                plaintext: &msg,
            };
            assert_eq!(pi.encrypt_message(&m).unwrap(), c, "#{i} on {}", b.name());
            let o = pi
                .decrypt_message(&Ciphertext {
                    npub: &npub,
                    ad: &ad,
                    ciphertext: &c,
                    with_nsec: with,
                })
                .unwrap();
            assert_eq!(&o.plaintext[..], &msg[..]);
            assert_eq!(&o.nsec[..], &nsec[..]);
        }
    }
}

/// Random lengths around every block boundary of every rate, and long messages, fast
/// backends against the reference.
#[test]
fn fast_backends_equal_the_reference() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x91);
    for v in PiVariant::ALL {
        let r = v.rate();
        let mut lens: Vec<usize> = (0..=3 * 64 + 1).collect();
        lens.extend([1000, 4095, 4096, 4097, 65_537]);
        for len in lens {
            let mut key = vec![0u8; v.key_len()];
            let mut npub = vec![0u8; v.npub_len()];
            let mut nsec = vec![0u8; v.nsec_len()];
            let mut ad = vec![0u8; rng.gen_range(0..3 * r + 2)];
            let mut msg = vec![0u8; len];
            for x in [&mut key, &mut npub, &mut nsec, &mut ad, &mut msg] {
                rng.fill_bytes(x);
            }
            let reference = cipher(v, &key, PiBackend::Reference);
            let want = reference.encrypt(&npub, &nsec, &ad, &msg).unwrap();
            let no_smn = Message {
                npub: &npub,
                nsec: None,
                ad: &ad,
                plaintext: &msg,
            };
            let want_no_smn = reference.encrypt_message(&no_smn).unwrap();
            assert_eq!(want_no_smn.len(), len + r);
            for b in fast_backends() {
                let pi = cipher(v, &key, b);
                let what = format!("{v} len {len} ad {} on {}", ad.len(), b.name());
                let c = pi.encrypt(&npub, &nsec, &ad, &msg).unwrap();
                assert_eq!(c, want, "{what}");
                let o = pi.decrypt(&npub, &ad, &c).unwrap();
                assert_eq!(&o.plaintext[..], &msg[..], "{what}");
                assert_eq!(&o.nsec[..], &nsec[..], "{what}");
                assert_eq!(pi.encrypt_message(&no_smn).unwrap(), want_no_smn, "{what}");
            }
        }
    }
}

/// Long AD and bodies (whole-step kernel batches of 8/16/32 blocks plus tails), every fast
/// backend against the reference, encrypt and decrypt.
#[test]
fn long_ad_and_bodies_equal_the_reference() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x10_46);
    for v in PiVariant::ALL {
        let r = v.rate();
        for (ad_len, len) in [
            (32 * r, 0),
            (64 * r + 5, 32 * r),
            (4096, 4096 + 17),
            (0, 129 * r - 1),
        ] {
            let mut key = vec![0u8; v.key_len()];
            let mut npub = vec![0u8; v.npub_len()];
            let mut nsec = vec![0u8; v.nsec_len()];
            let mut ad = vec![0u8; ad_len];
            let mut msg = vec![0u8; len];
            for x in [&mut key, &mut npub, &mut nsec, &mut ad, &mut msg] {
                rng.fill_bytes(x);
            }
            let want = cipher(v, &key, PiBackend::Reference)
                .encrypt(&npub, &nsec, &ad, &msg)
                .unwrap();
            for b in fast_backends() {
                let pi = cipher(v, &key, b);
                let what = format!("{v} ad {ad_len} len {len} on {}", b.name());
                assert_eq!(pi.encrypt(&npub, &nsec, &ad, &msg).unwrap(), want, "{what}");
                let o = pi.decrypt(&npub, &ad, &want).unwrap();
                assert_eq!(&o.plaintext[..], &msg[..], "{what}");
            }
        }
    }
}

#[test]
fn multi_stream_equals_separate_runs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x3a);
    for v in PiVariant::ALL {
        let r = v.rate();
        for count in [0usize, 1, 2, 3, 7, 8, 9, 31, 33, 70] {
            let mut data = Vec::new();
            for i in 0..count {
                let mut key_npub_nsec = vec![0u8; v.npub_len() + v.nsec_len()];
                rng.fill_bytes(&mut key_npub_nsec);
                let ad_len = [0, 1, r - 1, r, r + 1, 5 * r][i % 6];
                let msg_len = rng.gen_range(0..6 * r) + if i % 5 == 0 { 3000 } else { 0 };
                let mut ad = vec![0u8; ad_len];
                let mut msg = vec![0u8; msg_len];
                rng.fill_bytes(&mut ad);
                rng.fill_bytes(&mut msg);
                data.push((key_npub_nsec, ad, msg, i % 4 != 3));
            }
            let msgs: Vec<Message<'_>> = data
                .iter()
                .map(|(nn, ad, msg, with)| Message {
                    npub: &nn[..v.npub_len()],
                    nsec: with.then(|| &nn[v.npub_len()..]),
                    ad,
                    plaintext: msg,
                })
                .collect();
            let mut key = vec![0u8; v.key_len()];
            rng.fill_bytes(&mut key);
            for b in backends() {
                let pi = cipher(v, &key, b);
                let what = format!("{v} {count} messages on {}", b.name());
                let together = pi.encrypt_many(&msgs).unwrap();
                assert_eq!(together.len(), count);
                let reference = cipher(v, &key, PiBackend::Reference);
                for (m, c) in msgs.iter().zip(&together) {
                    assert_eq!(c, &pi.encrypt_message(m).unwrap(), "{what}");
                    assert_eq!(c, &reference.encrypt_message(m).unwrap(), "{what}");
                }
                // Decrypt them together, one of them forged: only that one fails.
                let mut cts: Vec<Vec<u8>> = together.clone();
                let forged = count / 2;
                if count > 0 {
                    let last = cts[forged].len() - 1;
                    cts[forged][last] ^= 0x80;
                }
                let inputs: Vec<Ciphertext<'_>> = msgs
                    .iter()
                    .zip(&cts)
                    .map(|(m, c)| Ciphertext {
                        npub: m.npub,
                        ad: m.ad,
                        ciphertext: c,
                        with_nsec: m.nsec.is_some(),
                    })
                    .collect();
                let opened = pi.decrypt_many(&inputs).unwrap();
                for (i, (o, m)) in opened.iter().zip(&msgs).enumerate() {
                    if i == forged {
                        assert!(matches!(o, Err(Error::TagMismatch)), "{what}");
                    } else {
                        let o = o.as_ref().unwrap();
                        assert_eq!(&o.plaintext[..], m.plaintext, "{what}");
                        assert_eq!(&o.nsec[..], m.nsec.unwrap_or(&[]), "{what}");
                    }
                }
                // The same into caller buffers (filled with junk first): SMN then
                // plaintext, and the forged message's buffer wiped.
                let mut bufs: Vec<Vec<u8>> = inputs
                    .iter()
                    .map(|c| vec![0xa5; pi.opened_len(c)])
                    .collect();
                let mut outs: Vec<&mut [u8]> = bufs.iter_mut().map(Vec::as_mut_slice).collect();
                let checked = pi.decrypt_many_into(&inputs, &mut outs).unwrap();
                for (i, ((ok, buf), m)) in checked.iter().zip(&bufs).zip(&msgs).enumerate() {
                    if i == forged {
                        assert!(matches!(ok, Err(Error::TagMismatch)), "{what} into");
                        assert!(buf.iter().all(|&b| b == 0), "{what}: forged output wiped");
                    } else {
                        assert!(ok.is_ok(), "{what} into");
                        let smn = m.nsec.unwrap_or(&[]);
                        assert_eq!(&buf[..smn.len()], smn, "{what} into");
                        assert_eq!(&buf[smn.len()..], m.plaintext, "{what} into");
                    }
                }
            }
        }
    }
}

/// Flipping any byte of the ciphertext (E(nsec), body, tag), the AD, the npub or the key
/// makes decryption fail, on every backend.
#[test]
fn any_tampering_fails() {
    for (v, f) in pi_files() {
        // A vector with AD and a message spanning more than one block.
        let t = f
            .vectors
            .iter()
            .find(|t| !t.ad.is_empty() && t.plaintext.len() > v.rate())
            .unwrap();
        for b in backends() {
            let pi = cipher(v, &t.key, b);
            let what = format!("{v} #{} on {}", t.id, b.name());
            assert!(pi.decrypt(&t.npub, &t.ad, &t.ciphertext).is_ok());
            for i in 0..t.ciphertext.len() {
                let mut c = t.ciphertext.clone();
                c[i] ^= 1 << (i % 8);
                let e = pi.decrypt(&t.npub, &t.ad, &c).unwrap_err();
                assert_eq!(e, Error::TagMismatch, "ciphertext byte {i}: {what}");
            }
            for i in 0..t.ad.len() {
                let mut ad = t.ad.clone();
                ad[i] ^= 0x40;
                assert_eq!(
                    pi.decrypt(&t.npub, &ad, &t.ciphertext).unwrap_err(),
                    Error::TagMismatch,
                    "AD byte {i}: {what}"
                );
            }
            let mut longer = t.ad.clone();
            longer.push(0);
            assert!(pi.decrypt(&t.npub, &longer, &t.ciphertext).is_err());
            assert!(pi.decrypt(&t.npub, &[], &t.ciphertext).is_err());
            for i in 0..t.npub.len() {
                let mut npub = t.npub.clone();
                npub[i] ^= 0x01;
                assert_eq!(
                    pi.decrypt(&npub, &t.ad, &t.ciphertext).unwrap_err(),
                    Error::TagMismatch,
                    "npub byte {i}: {what}"
                );
            }
            let mut key = t.key.clone();
            key[0] ^= 0x01;
            let wrong = cipher(v, &key, b);
            assert_eq!(
                wrong.decrypt(&t.npub, &t.ad, &t.ciphertext).unwrap_err(),
                Error::TagMismatch
            );
            // Truncated or extended ciphertexts fail too.
            let c = &t.ciphertext;
            assert!(pi.decrypt(&t.npub, &t.ad, &c[..c.len() - 1]).is_err());
            let mut ext = c.clone();
            ext.push(0);
            assert!(pi.decrypt(&t.npub, &t.ad, &ext).is_err());
        }
    }
}

/// Output buffers of the `_into` calls: one per message, each exactly as long as needed;
/// anything else is a clear error and writes nothing.
#[test]
fn wrong_output_buffers_are_clear_errors() {
    let v = PiVariant::ALL[0];
    let pi = PiCipher::new(v, &vec![1u8; v.key_len()]).unwrap();
    let (npub, nsec) = (vec![2u8; v.npub_len()], vec![3u8; v.nsec_len()]);
    let set = [vec![4u8; 40], vec![5u8; 7]];
    let msgs = messages(&npub, &nsec, &set);
    let sealed = pi.encrypt_many(&msgs).unwrap();
    let mut a = vec![9u8; pi.sealed_len(&msgs[0])];
    let mut b = vec![9u8; pi.sealed_len(&msgs[1]) + 1];
    let e = pi.encrypt_many_into(&msgs, &mut [&mut a[..]]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::OutputCount {
                outputs: 1,
                messages: 2
            }
        ),
        "{e}"
    );
    let e = pi
        .encrypt_many_into(&msgs, &mut [&mut a[..], &mut b[..]])
        .unwrap_err();
    assert!(matches!(e, Error::OutputLength { index: 1, .. }), "{e}");
    assert!(e.to_string().contains("output buffer 1"), "{e}");
    assert!(
        a.iter().chain(&b).all(|&x| x == 9),
        "nothing written on error"
    );
    let cts: Vec<Ciphertext<'_>> = sealed
        .iter()
        .map(|c| Ciphertext {
            npub: &npub,
            ad: b"",
            ciphertext: c,
            with_nsec: true,
        })
        .collect();
    let mut c = vec![9u8; pi.opened_len(&cts[0]) - 1];
    let mut d = vec![9u8; pi.opened_len(&cts[1])];
    let e = pi
        .decrypt_many_into(&cts, &mut [&mut c[..], &mut d[..]])
        .unwrap_err();
    assert!(matches!(e, Error::OutputLength { index: 0, .. }), "{e}");
    assert!(
        c.iter().chain(&d).all(|&x| x == 9),
        "nothing written on error"
    );
}

#[test]
fn wrong_lengths_are_clear_errors() {
    for v in PiVariant::ALL {
        let key = vec![0u8; v.key_len()];
        let e = PiCipher::new(v, &key[1..]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "wrong key length for {v}: expected {} bytes, got {}",
                v.key_len(),
                v.key_len() - 1
            )
        );
        assert!(PiCipher::new(v, &[0u8; 33]).is_err());
        let pi = PiCipher::new(v, &key).unwrap();
        let npub = vec![0u8; v.npub_len()];
        let nsec = vec![0u8; v.nsec_len()];
        let e = pi.encrypt(&npub[1..], &nsec, b"", b"").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "wrong public message number (npub) length for {v}: expected {} bytes, got {}",
                v.npub_len(),
                v.npub_len() - 1
            )
        );
        let e = pi.encrypt(&npub, &[0u8; 3], b"", b"").unwrap_err();
        assert_eq!(
            e,
            Error::NsecLength {
                variant: v.name(),
                expected: v.nsec_len(),
                got: 3
            }
        );
        assert!(e.to_string().contains("secret message number (nsec)"));
        let c = pi.encrypt(&npub, &nsec, b"", b"").unwrap();
        assert_eq!(c.len(), 2 * v.rate());
        let e = pi.decrypt(&npub, b"", &c[1..]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "ciphertext too short for {v}: {} bytes, but the encrypted nsec and tag alone take {}",
                c.len() - 1,
                c.len()
            )
        );
        assert!(matches!(
            pi.decrypt(&npub[1..], b"", &c),
            Err(Error::NpubLength { .. })
        ));
        // One bad message fails a whole multi-stream call.
        let good = Message {
            npub: &npub,
            nsec: Some(&nsec),
            ad: b"",
            plaintext: b"",
        };
        let bad = Message {
            npub: &npub[..1],
            ..good
        };
        assert!(pi.encrypt_many(&[good, bad]).is_err());
    }
    assert_eq!(
        "pi32cipher999v2".parse::<PiVariant>().unwrap_err(),
        Error::UnknownCipher("pi32cipher999v2".into())
    );
    assert_eq!(
        "PI64CIPHER256V2".parse::<PiVariant>().unwrap(),
        PiVariant::Pi64Cipher256V2
    );
    assert!(matches!(
        PiCipher::with_backend(PiVariant::Pi32Cipher128V2, &[0; 16], Some("nosuch")),
        Err(Error::UnknownBackend(_))
    ));
    assert_eq!(
        Error::TagMismatch.to_string(),
        "authentication failed: tag mismatch (wrong key, nonce or data, or tampering)"
    );
}

/// Speed report (not a check): `cargo test --release -p bitweave --test pi_cipher --
/// --ignored --nocapture speed`. Cycles are nanoseconds × the nominal clock (`cpu MHz` of
/// /proc/cpuinfo, which on this machine is the TSC rate; `PI_GHZ` overrides); best of runs.
#[test]
#[ignore]
fn speed_report() {
    use std::time::Instant;
    let ghz: f64 = std::env::var("PI_GHZ")
        .ok()
        .and_then(|s| s.parse().ok())
        .or_else(|| {
            let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
            let line = info.lines().find(|l| l.starts_with("cpu MHz"))?;
            Some(line.split(':').nth(1)?.trim().parse::<f64>().ok()? / 1000.0)
        })
        .unwrap_or(1.0);
    let best = |bytes: usize, f: &mut dyn FnMut()| {
        let mut best = f64::MAX;
        let start = Instant::now();
        let mut runs = 0;
        while runs < 3 || (start.elapsed().as_millis() < 300 && runs < 1000) {
            let t = Instant::now();
            f();
            best = best.min(t.elapsed().as_nanos() as f64);
            runs += 1;
        }
        best * ghz / bytes as f64
    };
    println!("cycles/byte at {ghz:.2} GHz (best of runs); 1 MiB = one 1 MiB message, empty AD");
    println!(
        "{:<16} {:<9} {:>9} {:>12} {:>12} {:>12}",
        "variant", "backend", "1 MiB", "64 x 16 KiB", "4096 x 64 B", "64 B alone"
    );
    for v in PiVariant::ALL {
        let key = vec![1u8; v.key_len()];
        let npub = vec![2u8; v.npub_len()];
        let nsec = vec![3u8; v.nsec_len()];
        let big = vec![4u8; 1 << 20];
        let mid: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 16 << 10]).collect();
        let small: Vec<Vec<u8>> = (0..4096).map(|i| vec![i as u8; 64]).collect();
        for b in backends() {
            let pi = cipher(v, &key, b);
            let one = best(big.len(), &mut || {
                std::hint::black_box(pi.encrypt(&npub, &nsec, b"", &big).unwrap());
            });
            let (mm, sm) = (messages(&npub, &nsec, &mid), messages(&npub, &nsec, &small));
            let many_mid = best(64 << 14, &mut || {
                std::hint::black_box(pi.encrypt_many(&mm).unwrap());
            });
            let many_small = best(4096 * 64, &mut || {
                std::hint::black_box(pi.encrypt_many(&sm).unwrap());
            });
            let alone_small = best(4096 * 64, &mut || {
                for m in &sm {
                    std::hint::black_box(pi.encrypt_message(m).unwrap());
                }
            });
            println!(
                "{:<16} {:<9} {:>9.2} {:>12.2} {:>12.2} {:>12.2}",
                v.name(),
                b.name(),
                one,
                many_mid,
                many_small,
                alone_small
            );
        }
    }
}

fn messages<'a>(npub: &'a [u8], nsec: &'a [u8], set: &'a [Vec<u8>]) -> Vec<Message<'a>> {
    set.iter()
        .map(|m| Message {
            npub,
            nsec: Some(nsec),
            ad: b"",
            plaintext: m,
        })
        .collect()
}

/// Splits `data` at the given cut points (taken modulo its length, sorted).
fn pieces<'a>(data: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut prev = 0;
    for a in at.into_iter().chain([data.len()]) {
        out.push(&data[prev..a]);
        prev = a;
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// The incremental API, with AD, message and ciphertext cut anywhere (empty pieces
    /// included), writes exactly the one-shot bytes on every backend, and opens them.
    #[test]
    fn any_chunking_equals_one_shot(
        vi in 0usize..6,
        seed in proptest::prelude::any::<u64>(),
        ad_len in 0usize..700,
        msg_len in 0usize..5000,
        with_nsec in proptest::prelude::any::<bool>(),
        ad_cuts in proptest::collection::vec(0usize..10_000, 0..4),
        msg_cuts in proptest::collection::vec(0usize..10_000, 0..6),
    ) {
        let v = PiVariant::ALL[vi];
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut key = vec![0u8; v.key_len()];
        let mut npub = vec![0u8; v.npub_len()];
        let mut nsec = vec![0u8; v.nsec_len()];
        let mut ad = vec![0u8; ad_len];
        let mut msg = vec![0u8; msg_len];
        for x in [&mut key, &mut npub, &mut nsec, &mut ad, &mut msg] {
            rng.fill_bytes(x);
        }
        let m = Message { npub: &npub, nsec: with_nsec.then_some(&nsec[..]), ad: &ad, plaintext: &msg };
        let want = cipher(v, &key, PiBackend::Reference).encrypt_message(&m).unwrap();
        for b in backends() {
            let pi = cipher(v, &key, b);
            let mut s = pi.sealer(&npub, m.nsec).unwrap();
            for p in pieces(&ad, &ad_cuts) {
                s.ad(p);
            }
            let mut got = Vec::new();
            let mut s = s.start(&mut got);
            for p in pieces(&msg, &msg_cuts) {
                s.update(p, &mut got);
            }
            s.finish(&mut got);
            proptest::prop_assert_eq!(&got, &want, "{} seal on {}", v, b.name());

            let mut o = pi.opener(&npub, with_nsec).unwrap();
            for p in pieces(&ad, &msg_cuts) {
                o.ad(p);
            }
            let mut o = o.start();
            let mut plain = Vec::new();
            for p in pieces(&want, &ad_cuts) {
                o.update_unverified(p, &mut plain);
            }
            let n = o.finish(&mut plain).unwrap();
            proptest::prop_assert_eq!(&plain, &msg);
            proptest::prop_assert_eq!(&n[..], if with_nsec { &nsec[..] } else { &[][..] });
        }
    }
}

#[test]
fn streamed_opening_rejects_forgery_and_short_input() {
    let v = PiVariant::Pi32Cipher128V2;
    let pi = PiCipher::new(v, &[3; 16]).unwrap();
    let c = pi.encrypt(&[1; 16], &[2; 32], b"ad", &[9; 100]).unwrap();
    for i in [0, 40, c.len() - 1] {
        let mut bad = c.clone();
        bad[i] ^= 1;
        let mut o = pi.opener(&[1; 16], true).unwrap();
        o.ad(b"ad");
        let mut o = o.start();
        let mut out = Vec::new();
        o.update_unverified(&bad, &mut out);
        assert!(
            matches!(o.finish(&mut out), Err(Error::TagMismatch)),
            "byte {i}"
        );
    }
    let mut o = pi.opener(&[1; 16], true).unwrap().start();
    o.update_unverified(&c[..63], &mut Vec::new());
    assert!(matches!(
        o.finish(&mut Vec::new()),
        Err(Error::CiphertextTooShort {
            min: 64,
            got: 63,
            ..
        })
    ));
    assert!(pi.sealer(&[1; 15], None).is_err());
    assert!(pi.sealer(&[1; 16], Some(&[0; 31])).is_err());
}
