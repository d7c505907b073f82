//! Every fast backend against `soft`, the portable reference, where the edges are: CTR
//! counter carries and phases, CBC/CFB decryption at every length and over whole rows,
//! chains over many slabs, and interleave factors around the backends' widths (every one
//! from 1 to 600 in the exhaustive run, `cargo test -- --ignored`). (Each backend in
//! each mode on random keys and lengths is `combinations.rs`, one named test apiece.)
//! Backends this CPU cannot run are reported as skipped.

use bitweave::hazmat::registry;
use bitweave::{BlockCipher, ModeKernels};
use bitweave::{Cipher, CipherKind, Direction, Mode, Suite};
use rand::{Rng, RngCore, SeedableRng};

/// A random key for `kind`, the `soft` reference under it, and every other backend this
/// CPU runs under the same key, by name.
fn soft_and_fast(
    kind: CipherKind,
    rng: &mut impl RngCore,
) -> (Cipher, Vec<(&'static str, Cipher)>) {
    let mut key = vec![0u8; kind.key_len()];
    rng.fill_bytes(&mut key);
    let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
    let fast = registry::usable(kind)
        .into_iter()
        .filter(|b| b.name != "soft")
        .map(|b| {
            (
                b.name,
                Cipher::with_backend(kind, &key, Some(b.name)).unwrap(),
            )
        })
        .collect();
    (soft, fast)
}

/// CTR counters that carry across the 64-bit boundary and wrap at 2^128 inside and at the
/// edge of a wide backend's register groups, for every key size (each a different round
/// count in the kernels), against `soft`.
#[test]
fn ctr_carries_match_soft_on_every_backend() {
    let key = [7u8; 32];
    let data: Vec<u8> = (0..16 * 1024 + 16 * 33 + 9)
        .map(|i: u32| (i * 7) as u8)
        .collect();
    for kind in [CipherKind::Aes128, CipherKind::Aes192, CipherKind::Aes256] {
        let key = &key[..kind.key_len()];
        let soft = Cipher::with_backend(kind, key, Some("soft")).unwrap();
        let params = Suite {
            cipher: kind,
            mode: Mode::Ctr,
        }
        .params();
        // (From the hand-off, 16 KiB on AMD and 1 KiB on Intel, VAES-512 runs the groups
        // and VAES-256 the tail; lengths on both sides of both.)
        let lens = [
            16 * 31 + 5,
            1023,
            16 * 64,
            16 * 128 + 7,
            4095,
            4096,
            16 * 270 + 9,
            16 * 1024 - 1,
            16 * 1024,
            data.len(),
        ];
        for info in registry::usable(kind) {
            let fast = Cipher::with_backend(kind, key, Some(info.name))
                .unwrap()
                .with_threads(1);
            // Every phase of a 32-block group (the VAES-512 kernel's counters depend on it).
            for back in (0u64..=40).chain([100, 200, 1000, 70_000]) {
                for high in [0u64, u64::MAX] {
                    let mut iv = [0u8; 16];
                    iv[..8].copy_from_slice(&high.to_be_bytes());
                    iv[8..].copy_from_slice(&(u64::MAX - back).to_be_bytes());
                    for len in lens {
                        let want = params.encrypt_all(&soft, &iv, &data[..len]).unwrap();
                        let got = params.encrypt_all(&fast, &iv, &data[..len]).unwrap();
                        assert!(
                            got == want,
                            "{kind}-ctr {} back {back} high {high:x} len {len}",
                            info.name
                        );
                    }
                }
            }
        }
    }
}

/// CTR for every length from 0 to 40 blocks plus a byte, every counter phase (the low 4
/// bits, which the wide kernels' group counters fix per call) and a carry at each block
/// of a group, one-shot and streamed in uneven pieces, against `soft`.
#[test]
fn ctr_matches_soft_for_every_length_and_counter_phase() {
    let key = [9u8; 32];
    let soft = Cipher::with_backend(CipherKind::Aes256, &key, Some("soft")).unwrap();
    let params = Suite {
        cipher: CipherKind::Aes256,
        mode: Mode::Ctr,
    }
    .params();
    let data: Vec<u8> = (0..16 * 40 + 1).map(|i| (i * 13 + 1) as u8).collect();
    for info in registry::usable(CipherKind::Aes256) {
        let fast = Cipher::with_backend(CipherKind::Aes256, &key, Some(info.name))
            .unwrap()
            .with_threads(1);
        for back in 0..20u64 {
            let mut iv = [0x5au8; 16];
            iv[8..].copy_from_slice(&(u64::MAX - back).to_be_bytes());
            for len in 0..=data.len() {
                let want = params.encrypt_all(&soft, &iv, &data[..len]).unwrap();
                let got = params.encrypt_all(&fast, &iv, &data[..len]).unwrap();
                assert!(
                    got == want,
                    "aes-256-ctr {} back {back} len {len}",
                    info.name
                );
            }
            let mut c = params.crypter(&fast, Direction::Encrypt, &iv).unwrap();
            let mut got = Vec::new();
            for piece in data.chunks(37) {
                c.update(piece, &mut got);
            }
            c.finish(&mut got).unwrap();
            let want = params.encrypt_all(&soft, &iv, &data).unwrap();
            assert!(
                got == want,
                "aes-256-ctr {} back {back} streamed",
                info.name
            );
        }
    }
}

/// Single-stream CBC and CFB decryption (fused paths on every x86 tier) for every length from 0 to
/// 100 blocks, and from 255 to 290 (VAES-512 groups from the hand-off, 1 KiB on Intel and
/// 4 KiB on AMD, then every VAES-256 tail),
/// one-shot and streamed in uneven pieces, against `soft`.
#[test]
fn cbc_and_cfb_decryption_match_soft_for_every_length() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for kind in [CipherKind::Aes128, CipherKind::Aes192, CipherKind::Aes256] {
        let key: Vec<u8> = (0..kind.key_len() as u8).collect();
        let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
        for mode in [Mode::Cbc, Mode::Cfb] {
            let params = Suite { cipher: kind, mode }.params().padding(false);
            let iv = [3u8; 16];
            for info in registry::usable(kind) {
                let fast = Cipher::with_backend(kind, &key, Some(info.name))
                    .unwrap()
                    .with_threads(1);
                for blocks in (0..=100).chain(255..=290).chain([1000]) {
                    // CFB also ends in a partial block.
                    let extra = if mode == Mode::Cfb { blocks % 16 } else { 0 };
                    let mut ct = vec![0u8; blocks * 16 + extra];
                    rng.fill_bytes(&mut ct);
                    let want = params.decrypt_all(&soft, &iv, &ct).unwrap();
                    assert!(
                        params.decrypt_all(&fast, &iv, &ct).unwrap() == want,
                        "{kind:?} {mode} {} {blocks}",
                        info.name
                    );
                    let mut cr = params
                        .crypter(&fast, bitweave::Direction::Decrypt, &iv)
                        .unwrap();
                    let mut out = Vec::new();
                    for piece in ct.chunks(16 * rng.gen_range(1..40)) {
                        cr.update(piece, &mut out);
                    }
                    cr.finish(&mut out).unwrap();
                    assert!(
                        out == want,
                        "{kind:?} {mode} {} {blocks} streamed",
                        info.name
                    );
                }
            }
        }
    }
}

/// Every interleave factor from 1 to 600, for CBC, CFB and OFB, on every backend of every
/// cipher against `soft`: inputs of one to two rows of N blocks, ending in a partial row
/// (and, for CFB/OFB, a partial block), so each N exercises full and partial batches of
/// chains on backends whose width is above and below N.
#[test]
#[ignore = "exhaustive set: .ci/run runs it (cargo test -- --ignored)"]
fn every_interleave_factor_from_1_to_600_matches_soft() {
    interleave_factors_match_soft(1..=600);
}

/// A sample of [`every_interleave_factor_from_1_to_600_matches_soft`] for the default
/// run: every N to 20, and each side of the powers of two up to 512 (the widths and
/// group sizes of the backends), and 600.
#[test]
fn interleave_factors_around_the_widths_match_soft() {
    let around_widths = (5..=9).flat_map(|p| [(1 << p) - 1, 1 << p, (1 << p) + 1]);
    interleave_factors_match_soft((1..=20).chain(around_widths).chain([600]));
}

fn interleave_factors_match_soft(factors: impl Iterator<Item = usize> + Clone) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(601);
    let mut runs = 0;
    for kind in CipherKind::ALL {
        let bs = kind.block_size();
        let (soft, backends) = soft_and_fast(kind, &mut rng);
        for (name, fast) in backends {
            for mode in [Mode::Cbc, Mode::Cfb, Mode::Ofb] {
                let mut iv = vec![0u8; 600 * bs];
                rng.fill_bytes(&mut iv);
                for n in factors.clone() {
                    let params = Suite { cipher: kind, mode }
                        .params()
                        .interleave(n)
                        .padding(false);
                    let mut len = rng.gen_range(n * bs..=2 * n * bs);
                    if mode == Mode::Cbc {
                        len -= len % bs;
                    }
                    let mut pt = vec![0u8; len];
                    rng.fill_bytes(&mut pt);
                    let iv = &iv[..n * bs];
                    let want = params.encrypt_all(&soft, iv, &pt).unwrap();
                    let got = params.encrypt_all(&fast, iv, &pt).unwrap();
                    assert!(got == want, "{kind}-{mode} x{n} on {name} len {len}");
                    let back = params.decrypt_all(&fast, iv, &got).unwrap();
                    assert!(back == pt, "{kind}-{mode} x{n} decrypt on {name}");
                    runs += 1;
                }
            }
        }
    }
    eprintln!("{runs} interleaved runs compared with soft");
}

/// The backends' CBC and CFB decryption of N interleaved streams over whole rows (the
/// fused VAES path runs backwards through the data and assembles registers that straddle
/// the IV row when N is not a multiple of four), with `prev` carried from one call to the
/// next, against `soft` — every cipher, every backend.
#[test]
fn cbc_and_cfb_decrypt_rows_match_soft_over_whole_rows_and_calls() {
    type RowsFn = fn(&Cipher, &mut [u8], &mut [u8]);
    let modes: [(&str, RowsFn); 2] = [
        ("cbc", |c, p, d| c.cbc_decrypt_rows(p, d)),
        ("cfb", |c, p, d| c.cfb_decrypt_rows(p, d)),
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(4096);
    for kind in CipherKind::ALL {
        let bs = kind.block_size();
        let (soft, backends) = soft_and_fast(kind, &mut rng);
        for (backend, fast) in backends {
            for (name, f) in modes {
                for n in [1usize, 2, 3, 4, 5, 8, 12, 32, 36, 64, 128, 600] {
                    for rows in [1usize, 2, 4, 9] {
                        let mut iv = vec![0u8; n * bs];
                        rng.fill_bytes(&mut iv);
                        let mut data = vec![0u8; rows * n * bs];
                        rng.fill_bytes(&mut data);
                        let (mut want, mut want_prev) = (data.clone(), iv.clone());
                        f(&soft, &mut want_prev, &mut want);
                        let (mut got, mut prev) = (data.clone(), iv.clone());
                        let (a, b) = got.split_at_mut(rows / 2 * n * bs);
                        if !a.is_empty() {
                            f(&fast, &mut prev, a);
                        }
                        f(&fast, &mut prev, b);
                        assert!(got == want, "{kind} {name} x{n} {rows} rows on {backend}");
                        assert!(prev == want_prev, "{kind} {name} x{n} prev on {backend}");
                    }
                }
            }
        }
    }
}

/// Interleaved CBC/CFB/OFB encryption in two calls, and as two halves of row segments
/// spread over more address range than the caches hold (there the VAES groups walk the
/// rows in 256 KiB slabs and prefetch rows of the next one), against `soft` — every AES
/// backend.
#[test]
fn chains_over_many_slabs_match_soft() {
    use bitweave::hazmat::{Feedback, STREAMED_BYTES};
    let mut rng = rand::rngs::StdRng::seed_from_u64(8192);
    let kind = CipherKind::Aes128;
    let (soft, backends) = soft_and_fast(kind, &mut rng);
    for (name, fast) in backends {
        for fb in [Feedback::Cbc, Feedback::Cfb, Feedback::Ofb] {
            for (n, rows) in [(64usize, 300usize), (64, 600), (1024, 40)] {
                let row = n * 16;
                let mut iv = vec![0u8; row];
                rng.fill_bytes(&mut iv);
                let mut data = vec![0u8; rows * row];
                rng.fill_bytes(&mut data);
                let (mut want, mut want_state) = (data.clone(), iv.clone());
                soft.encrypt_chains(fb, &mut want_state, &mut want);
                let (mut got, mut state) = (data.clone(), iv.clone());
                let (a, b) = got.split_at_mut(rows / 3 * row);
                fast.encrypt_chains(fb, &mut state, a);
                fast.encrypt_chains(fb, &mut state, b);
                assert!(got == want, "{fb:?} x{n} {rows} rows on {name}");
                assert!(state == want_state, "{fb:?} x{n} state on {name}");

                // As the multi-core engine hands them out: each half of the columns as
                // row segments, in one call. The rows sit `spread` bytes apart so that
                // they span more than `STREAMED_BYTES`, which the backend walks in slabs
                // sized by that stride (4 or 9 rows per slab for 64 streams, 1 for 1024:
                // both ways of prefetching the next slab).
                let spread = (STREAMED_BYTES / (rows - 1) + 64)
                    .next_multiple_of(64)
                    .max(row);
                let mut spaced = vec![0u8; rows * spread];
                for (to, from) in spaced.chunks_exact_mut(spread).zip(data.chunks(row)) {
                    to[..row].copy_from_slice(from);
                }
                let mut state = iv.clone();
                let half = row / 2;
                let (left, right): (Vec<_>, Vec<_>) = spaced
                    .chunks_exact_mut(spread)
                    .map(|r| r[..row].split_at_mut(half))
                    .unzip();
                let (st_left, st_right) = state.split_at_mut(half);
                for (st, mut segs) in [(st_left, left), (st_right, right)] {
                    fast.encrypt_chain_rows(fb, st, &mut segs);
                }
                let got: Vec<u8> = spaced
                    .chunks_exact(spread)
                    .flat_map(|r| &r[..row])
                    .copied()
                    .collect();
                assert!(got == want, "{fb:?} x{n} {rows} rows in halves on {name}");
                assert!(state == want_state, "{fb:?} x{n} state in halves on {name}");
            }
        }
    }
}

/// Small calls of independent blocks go to the serial backend up to its crossover
/// (`serial_blocks`) and to the batch backend from one block more, for every cipher
/// whose two defaults differ on this CPU.
#[test]
fn small_calls_go_to_the_serial_backend_up_to_its_crossover() {
    for kind in CipherKind::ALL {
        let serial = &registry::usable_for(kind, registry::Shape::Serial)[0];
        let cipher = Cipher::new(kind, &vec![7u8; kind.key_len()]).unwrap();
        if cipher.serial_backend() == cipher.backend() {
            eprintln!("{kind:?}: one backend for both shapes ({})", serial.name);
            continue;
        }
        let block = kind.block_size();
        let n = serial.serial_blocks;
        eprintln!(
            "{kind:?}: {} up to {n} blocks, then {}",
            serial.name,
            cipher.backend()
        );
        assert!(
            n >= 1,
            "{kind:?}: serial backend {} takes no calls",
            serial.name
        );
        // The serial backend may hand calls of some sizes to a kernel of its own:
        // `rotate256` gives four blocks and more to `bitshuffle512` where the CPU has it,
        // `shift256` and `shift64` give two and more to `byteshuffle256` and
        // `byteshuffle128`.
        let kernels = [
            serial.name,
            "bitshuffle512",
            "byteshuffle256",
            "byteshuffle128",
        ];
        let at_crossover = cipher.blocks_backend(n * block);
        assert!(
            kernels.contains(&at_crossover),
            "{kind:?}: {at_crossover} at {n} blocks, not the serial backend {}",
            serial.name
        );
        // The batch backend may likewise hand small calls to a kernel of its own:
        // `aesni256` gives calls of up to four blocks to `aesni128`.
        let past = cipher.blocks_backend((n + 1) * block);
        assert!(
            past == cipher.backend() || (cipher.backend() == "aesni256" && past == "aesni128"),
            "{kind:?}: {past} at {} blocks, not the batch backend {}",
            n + 1,
            cipher.backend()
        );
    }
}
