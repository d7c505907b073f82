//! The constant-time SEED backends (`gfni512`, `gfni256`, `vaes256`, `aesni128`, `aesni`,
//! `gfni128`, `gfni128-avx2`, `armv8` on ARM64, `ct64`): their G functions and S-boxes against the
//! tables on all inputs, their key schedules against the table key schedule, and every
//! registered SEED backend against `soft` on random lengths that cut register groups and
//! registers short, on unaligned buffers and through the modes (CTR, CBC decryption
//! slabs, interleaved rows). RFC 4269's vectors run on every backend in `vectors.rs`.
//! Backends this CPU cannot run are reported as skipped.

use bitweave::hazmat::registry;
use bitweave::hazmat::seed::{self, field, SeedKeySchedule, S1, S2};
use bitweave::{BlockCipher, Cipher, CipherKind, Mode, Suite};
use rand::{Rng, RngCore, SeedableRng};

/// A backend's G on one word (None: the CPU lacks the backend).
type GFn = Box<dyn Fn(u32) -> Option<u32>>;

/// Every constant-time G this build has, with its name.
fn g_functions() -> Vec<(&'static str, GFn)> {
    #[allow(unused_mut)]
    let mut v: Vec<(&'static str, GFn)> = vec![("ct64", Box::new(|w| Some(seed::ct::g_word(w))))];
    #[cfg(target_arch = "x86_64")]
    {
        use seed::x86::Level;
        for level in [
            Level::Gfni512,
            Level::Gfni256,
            Level::Vaes256,
            Level::Aesni128,
            Level::Aesni256,
        ] {
            v.push((level.name(), Box::new(move |w| level.g(w))));
        }
        for kernel in [
            &seed::aesni::KERNEL,
            &seed::gfni::KERNEL,
            &seed::gfni_avx2::KERNEL,
        ] {
            v.push((kernel.name, Box::new(|w| kernel.g(w))));
        }
    }
    #[cfg(target_arch = "aarch64")]
    v.push((seed::arm::KERNEL.name, Box::new(|w| seed::arm::KERNEL.g(w))));
    v
}

#[test]
fn gfni_matrices_give_the_sbox_tables_on_all_inputs() {
    for x in 0..=255u8 {
        let t = field::gfni_affine(field::GFNI_TO_AES, x, 0);
        assert_eq!(
            field::gfni_affine_inv(field::GFNI_S1, t, field::B1),
            S1[x as usize]
        );
        assert_eq!(
            field::gfni_affine_inv(field::GFNI_S2, t, field::B2),
            S2[x as usize]
        );
    }
}

/// G on a word with one non-zero byte determines that byte's S-box output (the masks
/// together keep every bit), so all 4 × 256 single-byte inputs check both S-boxes on all
/// inputs through each backend's own G; random words check the mixing.
#[test]
fn every_g_matches_the_table_g() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4269);
    let mut words: Vec<u32> = (0..4)
        .flat_map(|pos| (0..=255u32).map(move |v| v << (8 * pos)))
        .collect();
    words.extend((0..50_000).map(|_| rng.next_u32()));
    for (name, g) in g_functions() {
        if g(0).is_none() {
            eprintln!("skipped: G of {name} (CPU lacks it)");
            continue;
        }
        for &w in &words {
            assert_eq!(g(w), Some(seed::soft::g(w)), "{name}: G({w:#010x})");
        }
    }
}

#[test]
fn constant_time_key_schedules_match_the_table_one() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for (name, g) in g_functions() {
        if g(0).is_none() {
            continue;
        }
        for _ in 0..50 {
            let mut key = [0u8; 16];
            rng.fill_bytes(&mut key);
            let want = SeedKeySchedule::new(&key, seed::soft::g);
            let got = SeedKeySchedule::new(&key, |w| g(w).unwrap());
            assert_eq!(got.round_keys, want.round_keys, "{name}");
        }
    }
}

fn seed_backends() -> Vec<registry::BackendInfo> {
    let all: Vec<_> = registry::all()
        .iter()
        .copied()
        .filter(|b| b.cipher == CipherKind::Seed && b.name != "soft")
        .collect();
    // The GFNI and AES-NI engines exist only in x86-64 builds, `armv8` only in ARM64
    // ones; ct64 everywhere.
    let expected: &[&str] = if cfg!(target_arch = "x86_64") {
        &[
            "ct64",
            "aesni",
            "aesni128",
            "aesni256",
            "gfni128",
            "gfni128-avx2",
            "gfni256",
            "gfni512",
        ]
    } else if cfg!(target_arch = "aarch64") {
        &["ct64", "armv8"]
    } else {
        &["ct64"]
    };
    for &name in expected {
        assert!(
            all.iter().any(|b| b.name == name),
            "{name} is not registered"
        );
    }
    assert!(all.iter().all(|b| b.constant_time && b.priority > 10));
    all.into_iter()
        .filter(|b| {
            let ok = b.available();
            if !ok {
                eprintln!("skipped: seed on {} (CPU lacks {})", b.name, b.needs());
            }
            ok
        })
        .collect()
}

#[test]
fn every_seed_backend_matches_soft_on_raw_batches() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);
    for info in seed_backends() {
        let w = info.width;
        // Every length up to two batches and a bit, then random ones up to 20 batches,
        // with the buffer at an odd offset half the time.
        let lengths: Vec<usize> = (0..=2 * w + 17)
            .chain((0..30).map(|_| rng.gen_range(0..20 * w + 40)))
            .collect();
        for (i, blocks) in lengths.into_iter().enumerate() {
            let mut key = [0u8; 16];
            rng.fill_bytes(&mut key);
            let fast = Cipher::with_backend(CipherKind::Seed, &key, Some(info.name)).unwrap();
            let soft = Cipher::with_backend(CipherKind::Seed, &key, Some("soft")).unwrap();
            assert_eq!(fast.backend(), info.name);
            let offset = i % 2;
            let mut buf = vec![0u8; blocks * 16 + offset];
            rng.fill_bytes(&mut buf);
            let data = buf[offset..].to_vec();
            let mut want = data.clone();
            soft.encrypt_blocks(&mut want);
            fast.encrypt_blocks(&mut buf[offset..]);
            assert_eq!(
                &buf[offset..],
                &want[..],
                "{} encrypt {blocks} blocks",
                info.name
            );
            fast.decrypt_blocks(&mut buf[offset..]);
            assert_eq!(
                &buf[offset..],
                &data[..],
                "{} decrypt {blocks} blocks",
                info.name
            );
            // Decryption of arbitrary data too (not only of our own ciphertext).
            let (mut a, mut b) = (data.clone(), data.clone());
            fast.decrypt_blocks(&mut a);
            soft.decrypt_blocks(&mut b);
            assert_eq!(a, b, "{} decrypt random {blocks} blocks", info.name);
        }
    }
}

#[test]
fn every_seed_backend_matches_soft_in_the_modes() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    for info in seed_backends() {
        for _ in 0..12 {
            let mut key = [0u8; 16];
            rng.fill_bytes(&mut key);
            let fast = Cipher::with_backend(CipherKind::Seed, &key, Some(info.name)).unwrap();
            let soft = Cipher::with_backend(CipherKind::Seed, &key, Some("soft")).unwrap();
            for mode in [Mode::Ecb, Mode::Cbc, Mode::Ctr, Mode::Cfb, Mode::Ofb] {
                let n = if mode.interleavable() {
                    [1, 7, 16, 17, 33, 64][rng.gen_range(0..6)]
                } else {
                    1
                };
                let params = Suite {
                    cipher: CipherKind::Seed,
                    mode,
                }
                .params()
                .interleave(n)
                .padding(mode.whole_blocks());
                let mut iv = vec![0u8; params.iv_len(16)];
                rng.fill_bytes(&mut iv);
                let len = rng.gen_range(0..20_000);
                let mut pt = vec![0u8; len];
                rng.fill_bytes(&mut pt);
                let want = params.encrypt_all(&soft, &iv, &pt).unwrap();
                let got = params.encrypt_all(&fast, &iv, &pt).unwrap();
                assert!(got == want, "seed-{mode} x{n} on {} len {len}", info.name);
                let back = params.decrypt_all(&fast, &iv, &got).unwrap();
                assert!(
                    back == pt,
                    "seed-{mode} x{n} decrypt on {} len {len}",
                    info.name
                );
            }
        }
    }
}

/// The default SEED backends, for batches and for serial work, are constant-time, on
/// every CPU.
#[test]
fn default_seed_backends_are_constant_time() {
    for shape in [registry::Shape::Batch, registry::Shape::Serial] {
        let best = &registry::usable_for(CipherKind::Seed, shape)[0];
        eprintln!("default SEED backend for {shape:?}: {}", best.name);
        assert!(
            best.constant_time,
            "default SEED backend for {shape:?} {} is not",
            best.name
        );
    }
}

/// CTR on every SEED backend against `soft`: every length to 4 blocks and a byte, then
/// every block count to two batches and three with a random partial block, with the
/// counter's low word wrapping at every distance from the call's start (the x86 kernels
/// carry into the words above per lane, without a branch) and the words above random or
/// all ones from each word up (so the carry runs as far as each, and the counter wraps at
/// 2^128), one-shot and streamed in uneven pieces.
#[test]
fn every_seed_backend_matches_soft_in_ctr_across_counter_carries() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(32);
    let params = Suite {
        cipher: CipherKind::Seed,
        mode: Mode::Ctr,
    }
    .params();
    for info in seed_backends() {
        let mut key = [0u8; 16];
        rng.fill_bytes(&mut key);
        let fast = Cipher::with_backend(CipherKind::Seed, &key, Some(info.name))
            .unwrap()
            .with_threads(1);
        let soft = Cipher::with_backend(CipherKind::Seed, &key, Some("soft")).unwrap();
        let blocks = 2 * info.width + 3;
        let mut data = vec![0u8; blocks * 16 + 15];
        rng.fill_bytes(&mut data);
        let lens: Vec<usize> = (0..=65)
            .chain((5..=blocks).map(|b| b * 16 + rng.gen_range(0..16)))
            .collect();
        // Blocks until the low word wraps: within every length, inside some, beyond all.
        let wraps = [1u64, 2, 3, 4, 7, 8, 9, 15, 16, 17, 100, 5000, 1 << 32];
        // Above the low word: random bytes, or all ones from W2, W1 or W0 up.
        for (to_wrap, random) in wraps
            .into_iter()
            .flat_map(|w| [12, 8, 4, 0].map(|r| (w, r)))
        {
            let low = ((1u64 << 32) - to_wrap) as u32;
            let mut iv = [0xffu8; 16];
            rng.fill_bytes(&mut iv[..random]);
            iv[12..].copy_from_slice(&low.to_be_bytes());
            for &len in &lens {
                let want = params.encrypt_all(&soft, &iv, &data[..len]).unwrap();
                let got = params.encrypt_all(&fast, &iv, &data[..len]).unwrap();
                assert!(
                    got == want,
                    "seed-ctr on {} IV {} len {len}",
                    info.name,
                    hex(&iv)
                );
            }
            let mut c = params
                .crypter(&fast, bitweave::Direction::Encrypt, &iv)
                .unwrap();
            let mut got = Vec::new();
            for piece in data.chunks(16 * rng.gen_range(1..40) + rng.gen_range(0..16)) {
                c.update(piece, &mut got);
            }
            c.finish(&mut got).unwrap();
            let want = params.encrypt_all(&soft, &iv, &data).unwrap();
            assert!(
                got == want,
                "seed-ctr on {} IV {} streamed",
                info.name,
                hex(&iv)
            );
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
