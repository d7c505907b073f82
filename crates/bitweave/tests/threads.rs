//! The multi-core engine: every mode on large inputs gives `soft`'s bytes (the portable
//! reference, one thread) whatever the thread count (1 to 64), including sizes that split
//! unevenly and end in a partial block, and interleaved streams split into groups of
//! columns (N of 64 and more).

use bitweave::{BlockCipher, Cipher, CipherKind, Mode, Suite};
use rand::{Rng, RngCore, SeedableRng};

#[test]
fn output_is_independent_of_thread_count() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(64);
    for kind in [
        CipherKind::Aes128,
        CipherKind::Aes256,
        CipherKind::DesEde3,
        CipherKind::Seed,
    ] {
        let bs = kind.block_size();
        let mut key = vec![0u8; kind.key_len()];
        rng.fill_bytes(&mut key);
        let cipher = Cipher::new(kind, &key).unwrap();
        let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
        for mode in [Mode::Ecb, Mode::Cbc, Mode::Cfb, Mode::Ofb, Mode::Ctr] {
            for n in [1usize, 3, 32, 37, 64, 200, 1100] {
                if n > 1 && !mode.interleavable() {
                    continue;
                }
                // Slow ciphers get smaller (still multi-chunk) inputs.
                let max = if kind == CipherKind::DesEde3 {
                    300_000
                } else {
                    1_500_000
                };
                let mut len = rng.gen_range(150_000..max);
                if mode.whole_blocks() {
                    len -= len % bs;
                }
                let mut pt = vec![0u8; len];
                rng.fill_bytes(&mut pt);
                let base = Suite { cipher: kind, mode }
                    .params()
                    .interleave(n)
                    .padding(false);
                let mut iv = vec![0u8; base.iv_len(bs)];
                rng.fill_bytes(&mut iv);
                let want = base.encrypt_all(&soft, &iv, &pt).unwrap();
                for t in [1, 2, 3, 7, 64] {
                    let on_t = cipher.clone().with_threads(t);
                    let ct = base.encrypt_all(&on_t, &iv, &pt).unwrap();
                    assert!(
                        ct == want,
                        "{kind}-{mode} x{n} len {len} on {}: {t} threads differ from soft",
                        cipher.backend()
                    );
                    let back = base.decrypt_all(&on_t, &iv, &ct).unwrap();
                    assert!(
                        back == pt,
                        "{kind}-{mode} x{n} len {len}: {t}-thread decrypt"
                    );
                }
            }
        }
    }
}

/// Interleaved chains on inputs above 16 MiB, where the engine splits the columns only
/// into shares of at least the backend's `min_streamed_share` (4 KiB of every row on
/// AES-NI/VAES: 128 streams stay on one thread, 1024 split): the same bytes as one
/// `soft`, with a partial final row.
#[test]
fn large_interleaved_inputs_are_independent_of_thread_count() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(66);
    let cipher = Cipher::new(CipherKind::Aes128, &[3u8; 16]).unwrap();
    let soft = Cipher::with_backend(CipherKind::Aes128, &[3u8; 16], Some("soft")).unwrap();
    let mut pt = vec![0u8; (17 << 20) + 1000];
    rng.fill_bytes(&mut pt);
    for mode in [Mode::Cbc, Mode::Ofb] {
        for n in [128usize, 1024] {
            let base = Suite {
                cipher: CipherKind::Aes128,
                mode,
            }
            .params()
            .interleave(n)
            .padding(false);
            // CBC takes whole blocks; OFB ends in a partial one.
            let len = if mode == Mode::Cbc {
                pt.len() / 16 * 16
            } else {
                pt.len()
            };
            let iv = vec![5u8; base.iv_len(16)];
            let want = base.encrypt_all(&soft, &iv, &pt[..len]).unwrap();
            for t in [1, 2] {
                let got = base
                    .encrypt_all(&cipher.clone().with_threads(t), &iv, &pt[..len])
                    .unwrap();
                assert!(got == want, "{mode} x{n}: {t} threads differ from soft");
            }
        }
    }
}

/// Multi-stream runs large enough to split across threads equal separate standard runs
/// on `soft`.
#[test]
fn multi_stream_is_independent_of_thread_count() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(65);
    for kind in [CipherKind::Aes128, CipherKind::Seed] {
        let bs = kind.block_size();
        let cipher = Cipher::new(kind, &vec![9u8; kind.key_len()]).unwrap();
        let soft = Cipher::with_backend(kind, &vec![9u8; kind.key_len()], Some("soft")).unwrap();
        for mode in [Mode::Cbc, Mode::Cfb, Mode::Ofb, Mode::Cfb8] {
            let params = Suite { cipher: kind, mode }.params();
            let msgs: Vec<Vec<u8>> = (0..40)
                .map(|_| {
                    let max = if mode == Mode::Cfb8 { 4000 } else { 40_000 };
                    let mut m = vec![0u8; rng.gen_range(0..max)];
                    rng.fill_bytes(&mut m);
                    m
                })
                .collect();
            let ivs: Vec<Vec<u8>> = (0..40).map(|i| vec![i as u8; bs]).collect();
            let m: Vec<&[u8]> = msgs.iter().map(|x| x.as_slice()).collect();
            let v: Vec<&[u8]> = ivs.iter().map(|x| x.as_slice()).collect();
            let separate: Vec<Vec<u8>> = m
                .iter()
                .zip(&v)
                .map(|(m, iv)| params.encrypt_all(&soft, iv, m).unwrap())
                .collect();
            for t in [1, 2, 7] {
                let on_t = cipher.clone().with_threads(t);
                let got = bitweave::mode::multi::encrypt(&params, &on_t, &v, &m).unwrap();
                assert!(got == separate, "{kind}-{mode} multi-stream on {t} threads");
            }
        }
    }
}
