//! Differential tests against OpenSSL's libcrypto: for every cipher and mode, 1,000
//! random keys, IVs and lengths (10,000 in `.ci/run`'s exhaustive set) (with and without padding for ECB/CBC) must give the same
//! bytes as OpenSSL, and decrypt back. Modes OpenSSL lacks (CTR for DES/3DES/SEED,
//! CFB8/CFB1 for 2-key 3DES and SEED) are checked against SP 800-38A computed over
//! OpenSSL's ECB. Interleaved modes are checked against OpenSSL run on each de-interleaved
//! stream, which is their definition.

mod common;

use bitweave::{Cipher, CipherKind, Direction, Mode, ModeParams, Suite};
use common::oracle;
use rand::{Rng, SeedableRng};

/// Random cases per cipher, mode and padding: 1,000 in the default run, or
/// `BITWEAVE_DIFF_CASES` (`.ci/run`'s exhaustive set runs 10,000; the aarch64 stage under
/// emulation fewer, as scripts/test-aarch64.sh says).
fn cases() -> usize {
    std::env::var("BITWEAVE_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000)
}

fn random_case(
    rng: &mut impl Rng,
    kind: CipherKind,
    params: &ModeParams,
) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let bs = kind.block_size();
    let mut key = vec![0u8; kind.key_len()];
    rng.fill_bytes(&mut key);
    let mut iv = vec![0u8; params.iv_len(bs)];
    rng.fill_bytes(&mut iv);
    let max = if params.mode == Mode::Cfb1 { 40 } else { 100 };
    let mut len = rng.gen_range(0..=max);
    if params.mode.whole_blocks() && !params.padding {
        len -= len % bs;
    }
    let mut data = vec![0u8; len];
    rng.fill_bytes(&mut data);
    (key, iv, data)
}

fn check_cipher(kind: CipherKind) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xb17_3a7e ^ kind as u64);
    for mode in Mode::ALL {
        let suite = Suite { cipher: kind, mode };
        let paddings: &[bool] = if mode.whole_blocks() {
            &[true, false]
        } else {
            &[false]
        };
        for &pad in paddings {
            let params = suite.params().padding(pad);
            let ossl = suite.openssl_name().map(|n| oracle::fetch(&n));
            for case in 0..cases() {
                let (key, iv, pt) = random_case(&mut rng, kind, &params);
                let ours = Cipher::new(kind, &key).unwrap();
                let ct = params.encrypt_all(&ours, &iv, &pt).unwrap();
                let want = match &ossl {
                    Some(c) => oracle::run(c, Direction::Encrypt, &key, &iv, pad, &pt).unwrap(),
                    None => oracle::reference_mode(suite, Direction::Encrypt, &key, &iv, &pt),
                };
                assert_eq!(ct, want, "{suite} pad={pad} case {case} len {}", pt.len());
                let back = params.decrypt_all(&ours, &iv, &ct).unwrap();
                assert_eq!(back, pt, "{suite} pad={pad} decrypt case {case}");
                if ossl.is_none() && case < 200 {
                    let want = oracle::reference_mode(suite, Direction::Decrypt, &key, &iv, &ct);
                    assert_eq!(back, want);
                }
            }
        }
    }
}

#[test]
fn aes128_matches_openssl() {
    check_cipher(CipherKind::Aes128);
}
#[test]
fn aes192_matches_openssl() {
    check_cipher(CipherKind::Aes192);
}
#[test]
fn aes256_matches_openssl() {
    check_cipher(CipherKind::Aes256);
}
#[test]
fn des_matches_openssl() {
    check_cipher(CipherKind::Des);
}
#[test]
fn des_ede_matches_openssl() {
    check_cipher(CipherKind::DesEde);
}
#[test]
fn des_ede3_matches_openssl() {
    check_cipher(CipherKind::DesEde3);
}
#[test]
fn seed_matches_openssl() {
    check_cipher(CipherKind::Seed);
}

/// Interleaved CBC/CFB/OFB equal OpenSSL's standard mode on each de-interleaved stream.
#[test]
fn interleaved_modes_match_openssl_per_stream() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(42);
    for kind in CipherKind::ALL {
        let bs = kind.block_size();
        for mode in [Mode::Cbc, Mode::Cfb, Mode::Ofb] {
            let suite = Suite { cipher: kind, mode };
            let ossl = oracle::fetch(&suite.to_string());
            for case in 0..300 {
                let n = rng.gen_range(2..=12);
                let params = suite.params().padding(false).interleave(n);
                let (key, iv, pt) = random_case(&mut rng, kind, &params);
                let ours = Cipher::new(kind, &key).unwrap();
                let ct = params.encrypt_all(&ours, &iv, &pt).unwrap();
                // De-interleave: stream k owns blocks k, k+N, ...
                let blocks: Vec<&[u8]> = pt.chunks(bs).collect();
                let mut want = vec![0u8; pt.len()];
                for k in 0..n {
                    let idx: Vec<usize> = (k..blocks.len()).step_by(n).collect();
                    let stream: Vec<u8> = idx
                        .iter()
                        .flat_map(|&i| blocks[i].iter().copied())
                        .collect();
                    let out = oracle::run(
                        &ossl,
                        Direction::Encrypt,
                        &key,
                        &iv[k * bs..(k + 1) * bs],
                        false,
                        &stream,
                    )
                    .unwrap();
                    for (j, &i) in idx.iter().enumerate() {
                        let len = blocks[i].len();
                        want[i * bs..i * bs + len].copy_from_slice(&out[j * bs..j * bs + len]);
                    }
                }
                assert_eq!(ct, want, "{suite} x{n} case {case} len {}", pt.len());
                assert_eq!(params.decrypt_all(&ours, &iv, &ct).unwrap(), pt);
            }
        }
    }
}

/// K messages through the multi-stream API equal K separate OpenSSL runs.
#[test]
fn multi_stream_matches_separate_openssl_runs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for kind in CipherKind::ALL {
        for mode in Mode::ALL {
            let suite = Suite { cipher: kind, mode };
            for pad in if mode.whole_blocks() {
                vec![true, false]
            } else {
                vec![false]
            } {
                let params = suite.params().padding(pad);
                for _ in 0..20 {
                    let k = rng.gen_range(0..=9);
                    let key = random_case(&mut rng, kind, &params).0;
                    let cases: Vec<(Vec<u8>, Vec<u8>)> = (0..k)
                        .map(|_| {
                            let (_, iv, m) = random_case(&mut rng, kind, &params);
                            (iv, m)
                        })
                        .collect();
                    let ivs: Vec<&[u8]> = cases.iter().map(|c| c.0.as_slice()).collect();
                    let msgs: Vec<&[u8]> = cases.iter().map(|c| c.1.as_slice()).collect();
                    let ours = Cipher::new(kind, &key).unwrap();
                    let cts = bitweave::mode::multi::encrypt(&params, &ours, &ivs, &msgs).unwrap();
                    for (i, ct) in cts.iter().enumerate() {
                        let want = match suite.openssl_name() {
                            Some(n) => oracle::run(
                                &oracle::fetch(&n),
                                Direction::Encrypt,
                                &key,
                                ivs[i],
                                pad,
                                msgs[i],
                            )
                            .unwrap(),
                            None => oracle::reference_mode(
                                suite,
                                Direction::Encrypt,
                                &key,
                                ivs[i],
                                msgs[i],
                            ),
                        };
                        assert_eq!(ct, &want, "{suite} pad={pad} message {i} of {k}");
                    }
                    let ct_refs: Vec<&[u8]> = cts.iter().map(|c| c.as_slice()).collect();
                    let pts =
                        bitweave::mode::multi::decrypt(&params, &ours, &ivs, &ct_refs).unwrap();
                    assert_eq!(
                        pts,
                        cases.iter().map(|c| c.1.clone()).collect::<Vec<_>>(),
                        "{suite} multi decrypt"
                    );
                }
            }
        }
    }
}
