//! The bitsliced backends (`sliced64`, `sliced128` (SSE2 or NEON), `sliced256`,
//! `sliced512`): circuits against the cipher tables, transposition round trips, every
//! width against `soft` on raw batches of awkward lengths (partial batches, tails) and in
//! every mode with interleave factors sampled from 1 to 600, and the registry's choice of
//! default. Widths this CPU cannot run
//! are reported as skipped.

use bitweave::hazmat::registry;
use bitweave::hazmat::slice::{
    blocks16_from_planes, blocks8_from_planes, planes_from_blocks16, planes_from_blocks8, synth,
};
use bitweave::hazmat::{aes, des};
use bitweave::ModeKernels;
use bitweave::{BlockCipher, Cipher, CipherKind, Mode, Suite};
use rand::{Rng, RngCore, SeedableRng};

const SLICED: [&str; 4] = ["sliced64", "sliced128", "sliced256", "sliced512"];

/// The sliced backends of `kind` this CPU runs (skips reported).
fn sliced_backends(kind: CipherKind) -> Vec<registry::BackendInfo> {
    let mut out = Vec::new();
    for b in registry::all()
        .iter()
        .filter(|b| b.cipher == kind && SLICED.contains(&b.name))
    {
        if b.available() {
            out.push(*b);
        } else {
            eprintln!("skipped: {kind} on {} (CPU lacks {})", b.name, b.needs());
        }
    }
    out
}

/// Kinds with sliced backends registered.
fn sliced_kinds() -> Vec<CipherKind> {
    CipherKind::ALL
        .into_iter()
        .filter(|&k| {
            registry::all()
                .iter()
                .any(|b| b.cipher == k && SLICED.contains(&b.name))
        })
        .collect()
}

#[test]
fn des_sbox_circuits_equal_the_tables() {
    // Input plane k, lane v = bit k (MSB first) of the 6-bit input v: all 64 inputs at once.
    let x: Vec<u64> = (0..6).map(synth::var).collect();
    let circuits = des::sliced::sbox_circuits();
    let mut total = 0;
    for (i, c) in circuits.iter().enumerate() {
        let got = c.eval(&x);
        // Independently of the synthesiser's tables: read SBOXES directly, per input.
        for v in 0..64usize {
            let row = ((v >> 4) & 2) | (v & 1);
            let col = (v >> 1) & 0xf;
            let want = des::SBOXES[i][row * 16 + col];
            let bits = (0..4).fold(0u8, |acc, m| (acc << 1) | ((got[m] >> v) & 1) as u8);
            assert_eq!(bits, want, "S{} input {v}", i + 1);
        }
        let n = c.count();
        assert_eq!(n.ops(), n.ternary, "DES S-boxes are pure 3-input gates");
        total += n.ops();
        eprintln!("S{}: {} gates", i + 1, n.ops());
    }
    eprintln!("DES S-boxes: {total} gates in all");
    assert!(total <= 256, "S-box circuits grew to {total} gates");
}

#[test]
fn aes_sbox_circuits_equal_the_tables() {
    // Plane k, lane v = bit k of byte v, over four 64-lane words: all 256 inputs.
    let [s, inv, mix, inv_mix] = aes::sliced::circuits();
    for (name, c, table) in [("S", &s, &aes::SBOX), ("S^-1", &inv, &aes::INV_SBOX)] {
        for w in 0..4 {
            let x: Vec<u64> = (0..8)
                .map(|k| (0..64).fold(0u64, |acc, l| acc | ((((64 * w + l) >> k) & 1) as u64) << l))
                .collect();
            let y = c.eval(&x);
            for l in 0..64 {
                let v = 64 * w + l;
                let got = (0..8).fold(0u8, |acc, k| acc | ((((y[k] >> l) & 1) as u8) << k));
                // The circuits omit the constant 0x63 (folded into the round keys): the
                // forward one outputs S(v) ^ 0x63, the inverse one takes its input ^ 0x63.
                let want = if name == "S" {
                    table[v] ^ 0x63
                } else {
                    table[v ^ 0x63]
                };
                assert_eq!(got, want, "{name}({v:#04x})");
            }
        }
        eprintln!("AES {name}: {:?}", c.count());
    }
    eprintln!("MixColumns (one column): {:?}", mix.count());
    eprintln!("InvMixColumns (one column): {:?}", inv_mix.count());
    assert!(s.count().ops() < 200 && inv.count().ops() < 200);
}

#[test]
fn sliced_aes_ranks_between_soft_and_the_aes_instructions() {
    for kind in [CipherKind::Aes128, CipherKind::Aes192, CipherKind::Aes256] {
        let all = registry::all();
        let prio = |name: &str| {
            all.iter()
                .find(|b| b.cipher == kind && b.name == name)
                .map(|b| b.priority)
        };
        let soft = prio("soft").unwrap();
        for s in SLICED {
            let p = prio(s).unwrap_or_else(|| panic!("{kind}: {s} is not registered"));
            assert!(p > soft, "{kind} {s}");
            for hw in ["aesni", "vaes256", "vaes512", "armv8"] {
                if let Some(h) = prio(hw) {
                    assert!(p < h, "{kind} {s} vs {hw}");
                }
            }
        }
        let best = registry::usable(kind).into_iter().next().unwrap();
        assert!(
            best.constant_time,
            "{kind}: default {} is not constant-time",
            best.name
        );
    }
}

#[test]
fn portable_transposition_round_trips() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut d8 = vec![0u8; 64 * 8];
    rng.fill_bytes(&mut d8);
    let p = planes_from_blocks8::<u64>(&d8);
    for (bit, plane) in p.iter().enumerate() {
        for (lane, blk) in d8.chunks(8).enumerate() {
            let b = (u64::from_le_bytes(blk.try_into().unwrap()) >> bit) & 1;
            assert_eq!((plane >> lane) & 1, b, "plane {bit} lane {lane}");
        }
    }
    let mut back = vec![0u8; d8.len()];
    blocks8_from_planes(p, &mut back);
    assert_eq!(back, d8);

    let mut d16 = vec![0u8; 64 * 16];
    rng.fill_bytes(&mut d16);
    let q = planes_from_blocks16::<u64>(&d16);
    for (bit, plane) in q.iter().enumerate() {
        for (lane, blk) in d16.chunks(16).enumerate() {
            let b = (blk[bit / 8] >> (bit % 8)) & 1;
            assert_eq!(((plane >> lane) & 1) as u8, b, "plane {bit} lane {lane}");
        }
    }
    let mut back = vec![0u8; d16.len()];
    blocks16_from_planes(&q, &mut back);
    assert_eq!(back, d16);
}

#[test]
fn sliced_is_the_constant_time_default_for_des() {
    for kind in [CipherKind::Des, CipherKind::DesEde, CipherKind::DesEde3] {
        let best = registry::usable(kind).into_iter().next().unwrap();
        assert!(
            SLICED.contains(&best.name),
            "{kind}: default is {}",
            best.name
        );
        assert!(best.constant_time);
    }
}

#[test]
fn raw_batches_match_soft_at_every_width() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2027);
    for kind in sliced_kinds() {
        let bs = kind.block_size();
        for info in sliced_backends(kind) {
            let w = info.width;
            let mut lengths = vec![0, 1, 2, 63, 64, 65, 127, w - 1, w, w + 1, 2 * w + 63, 3 * w];
            // A tail of exactly 256 blocks and one more (on AVX-512, short tails run on
            // 256 lanes: `Width::tail`).
            lengths.extend([w + 256, w + 257]);
            // More batches than one kernel call takes (64), plus a tail.
            lengths.push(65 * w + 3);
            lengths.extend((0..6).map(|_| rng.gen_range(0..=3 * w + 70)));
            for blocks in lengths {
                let mut key = vec![0u8; kind.key_len()];
                rng.fill_bytes(&mut key);
                let fast = Cipher::with_backend(kind, &key, Some(info.name)).unwrap();
                let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
                assert_eq!(fast.width(), w);
                assert_eq!(fast.backend(), info.name);
                let mut data = vec![0u8; blocks * bs];
                rng.fill_bytes(&mut data);
                let (mut a, mut b) = (data.clone(), data.clone());
                fast.encrypt_blocks(&mut a);
                soft.encrypt_blocks(&mut b);
                assert_eq!(a, b, "{kind} {} encrypt {blocks} blocks", info.name);
                fast.decrypt_blocks(&mut a);
                assert_eq!(a, data, "{kind} {} decrypt {blocks} blocks", info.name);
                soft.decrypt_blocks(&mut b);
                let mut c = data.clone();
                fast.decrypt_blocks(&mut c);
                let mut d = data.clone();
                soft.decrypt_blocks(&mut d);
                assert_eq!(c, d, "{kind} {} decrypt-first {blocks} blocks", info.name);
            }
        }
    }
}

#[test]
fn every_mode_and_interleave_matches_soft_at_every_width() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(600);
    let fixed_n = [1usize, 2, 3, 63, 64, 65, 255, 256, 257, 511, 512, 513, 600];
    let mut runs = 0;
    for kind in sliced_kinds() {
        let bs = kind.block_size();
        for info in sliced_backends(kind) {
            let mut key = vec![0u8; kind.key_len()];
            rng.fill_bytes(&mut key);
            let fast = Cipher::with_backend(kind, &key, Some(info.name)).unwrap();
            let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
            for mode in Mode::ALL {
                let ns: Vec<usize> = if mode.interleavable() {
                    let mut v: Vec<usize> = fixed_n
                        .iter()
                        .copied()
                        .filter(|_| rng.gen_bool(0.4))
                        .collect();
                    v.push(rng.gen_range(1..=600));
                    v
                } else {
                    vec![1]
                };
                for n in ns {
                    let params = Suite { cipher: kind, mode }
                        .params()
                        .interleave(n)
                        .padding(mode.whole_blocks());
                    let mut iv = vec![0u8; params.iv_len(bs)];
                    rng.fill_bytes(&mut iv);
                    let len = if mode == Mode::Cfb1 {
                        rng.gen_range(0..120)
                    } else {
                        // Up to a few rows of N blocks, rarely a whole number of them.
                        rng.gen_range(0..(n * bs * 3).clamp(64, 20_000))
                    };
                    let mut pt = vec![0u8; len];
                    rng.fill_bytes(&mut pt);
                    let want = params.encrypt_all(&soft, &iv, &pt).unwrap();
                    let got = params.encrypt_all(&fast, &iv, &pt).unwrap();
                    assert_eq!(got, want, "{kind}-{mode} x{n} on {} len {len}", info.name);
                    let back = params.decrypt_all(&fast, &iv, &got).unwrap();
                    assert_eq!(back, pt, "{kind}-{mode} x{n} decrypt on {}", info.name);
                    runs += 1;
                }
            }
        }
    }
    eprintln!("{runs} mode runs compared with soft");
    assert!(runs > 0);
}

/// The fused chain kernel (N a whole number of batches): many rows, state carried from one
/// call to the next, and the multi-core column groups, against `soft`, for every sliced
/// backend of every cipher that has one.
#[test]
fn chains_of_whole_batches_match_soft_over_many_rows_and_calls() {
    use bitweave::hazmat::Feedback;
    let mut rng = rand::rngs::StdRng::seed_from_u64(512);
    for kind in sliced_kinds() {
        let bs = kind.block_size();
        let mut key = vec![0u8; kind.key_len()];
        rng.fill_bytes(&mut key);
        let soft = Cipher::with_backend(kind, &key, Some("soft")).unwrap();
        for info in sliced_backends(kind) {
            let fast = Cipher::with_backend(kind, &key, Some(info.name)).unwrap();
            for n in [fast.width(), 2 * fast.width()] {
                for fb in [Feedback::Cbc, Feedback::Cfb, Feedback::Ofb] {
                    let mut iv = vec![0u8; n * bs];
                    rng.fill_bytes(&mut iv);
                    let mut data = vec![0u8; 5 * n * bs];
                    rng.fill_bytes(&mut data);
                    let (mut want, mut want_state) = (data.clone(), iv.clone());
                    soft.encrypt_chains(fb, &mut want_state, &mut want);
                    // Two calls (2 rows, then 3): the state must carry over.
                    let (mut got, mut state) = (data.clone(), iv.clone());
                    let (a, b) = got.split_at_mut(2 * n * bs);
                    fast.encrypt_chains(fb, &mut state, a);
                    fast.encrypt_chains(fb, &mut state, b);
                    assert!(got == want, "{kind} {fb:?} x{n} on {}", info.name);
                    assert!(
                        state == want_state,
                        "{kind} {fb:?} x{n} state on {}",
                        info.name
                    );
                }
                // Through the modes, on two threads (column groups) and one.
                for mode in [Mode::Cbc, Mode::Cfb, Mode::Ofb] {
                    let mut iv = vec![0u8; n * bs];
                    rng.fill_bytes(&mut iv);
                    // Enough rows that two threads split them (64 KiB per thread).
                    let rows = (160 * 1024 / (n * bs)).max(7);
                    let mut pt = vec![0u8; rows * n * bs + 3 * bs];
                    rng.fill_bytes(&mut pt);
                    let suite = Suite { cipher: kind, mode };
                    let want = suite
                        .params()
                        .interleave(n)
                        .padding(false)
                        .encrypt_all(&soft, &iv, &pt)
                        .unwrap();
                    for threads in [1, 2] {
                        let params = suite.params().interleave(n).padding(false);
                        let on = fast.clone().with_threads(threads);
                        let got = params.encrypt_all(&on, &iv, &pt).unwrap();
                        assert!(
                            got == want,
                            "{kind}-{mode} x{n} t{threads} on {}",
                            info.name
                        );
                    }
                }
            }
        }
    }
}
