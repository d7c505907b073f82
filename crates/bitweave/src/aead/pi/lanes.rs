//! π on many states at once, word-sliced: `s[i][l]` is word `i` of lane `l`, so every ARX
//! operation becomes one operation on a vector of lanes. The code is portable: the lane loop
//! has no cross-lane dependencies and LLVM vectorises it for whatever target features the
//! caller is compiled with (SSE2 by default; AVX2/AVX-512 through the wrappers in `x86`).
//!
//! Savings over the reference, all exact: the first `*` of E1 has the constant C as left
//! operand and the first `*` of E2 the constant C' as right operand, so μ(C) and ν(C') are
//! computed once per call; and μ(J0), μ(J1), μ(J2) serve both E1 and E2. A round thus costs
//! 11 μ/ν halves instead of 16.
#![deny(unsafe_code)]
// Word-sliced code indexes state word i of lane l; index loops say that most plainly.
#![allow(clippy::needless_range_loop)]

use super::layout::{ROUNDS, STATE_WORDS};
use super::word::Word;

/// `L` states, word-sliced.
pub type Soa<W, const L: usize> = [[W; L]; STATE_WORDS];

/// μ on one chunk (four words) — the same equations as the reference.
#[inline(always)]
fn mu<W: Word>(x0: W, x1: W, x2: W, x3: W) -> [W; 4] {
    let (c, r) = (W::C_MU, W::R_MU);
    let x01 = x0.add(x1);
    let x23 = x2.add(x3);
    let s0 = c[0].add(x01).add(x2).rotl(r[0]);
    let s1 = c[1].add(x01).add(x3).rotl(r[1]);
    let s2 = c[2].add(x0).add(x23).rotl(r[2]);
    let s3 = c[3].add(x1).add(x23).rotl(r[3]);
    let s01 = s0.xor(s1);
    let s23 = s2.xor(s3);
    [s01.xor(s3), s01.xor(s2), s1.xor(s23), s0.xor(s23)]
}

/// ν on one chunk.
#[inline(always)]
fn nu<W: Word>(y0: W, y1: W, y2: W, y3: W) -> [W; 4] {
    let (c, r) = (W::C_NU, W::R_NU);
    let y01 = y0.add(y1);
    let y23 = y2.add(y3);
    let t0 = c[0].add(y0).add(y23).rotl(r[0]);
    let t1 = c[1].add(y1).add(y23).rotl(r[1]);
    let t2 = c[2].add(y01).add(y2).rotl(r[2]);
    let t3 = c[3].add(y01).add(y3).rotl(r[3]);
    let t01 = t0.xor(t1);
    let t23 = t2.xor(t3);
    [t1.xor(t23), t0.xor(t23), t01.xor(t3), t01.xor(t2)]
}

/// σ(a, b).
#[inline(always)]
fn sigma<W: Word>(a: [W; 4], b: [W; 4]) -> [W; 4] {
    [
        a[1].add(b[1]),
        a[2].add(b[2]),
        a[3].add(b[3]),
        a[0].add(b[0]),
    ]
}

#[inline(always)]
fn mu4<W: Word>(x: [W; 4]) -> [W; 4] {
    mu(x[0], x[1], x[2], x[3])
}

#[inline(always)]
fn nu4<W: Word>(y: [W; 4]) -> [W; 4] {
    nu(y[0], y[1], y[2], y[3])
}

/// The per-call constants: μ(C_r) and ν(C'_r) for each round.
#[inline(always)]
fn round_keys<W: Word>() -> [([W; 4], [W; 4]); ROUNDS] {
    core::array::from_fn(|r| {
        let c = [
            W::RC[8 * r],
            W::RC[8 * r + 1],
            W::RC[8 * r + 2],
            W::RC[8 * r + 3],
        ];
        let c2 = [
            W::RC[8 * r + 4],
            W::RC[8 * r + 5],
            W::RC[8 * r + 6],
            W::RC[8 * r + 7],
        ];
        (mu4(c), nu4(c2))
    })
}

/// π on one state held in registers, with the round constants' halves precomputed.
#[inline(always)]
fn pi_one<W: Word>(x: &mut [W; STATE_WORDS], keys: &[([W; 4], [W; 4]); ROUNDS]) {
    for (muc, nuc2) in keys {
        let ch = |i: usize| [x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]];
        // E1; each μ(J_k) is needed twice (by E1 and by E2), computed once.
        let j0 = sigma(*muc, nu4(ch(0)));
        let m0 = mu4(j0);
        let j1 = sigma(m0, nu4(ch(1)));
        let m1 = mu4(j1);
        let j2 = sigma(m1, nu4(ch(2)));
        let m2 = mu4(j2);
        let j3 = sigma(m2, nu4(ch(3)));
        // E2.
        let i3 = sigma(mu4(j3), *nuc2);
        let i2 = sigma(m2, nu4(i3));
        let i1 = sigma(m1, nu4(i2));
        let i0 = sigma(m0, nu4(i1));
        x[0..4].copy_from_slice(&i0);
        x[4..8].copy_from_slice(&i1);
        x[8..12].copy_from_slice(&i2);
        x[12..16].copy_from_slice(&i3);
    }
}

/// π on every lane of `s`. `#[inline(always)]` so that a `#[target_feature]` caller compiles
/// the lane loop with its features.
#[inline(always)]
pub fn pi_lanes<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    let keys = round_keys::<W>();
    for l in 0..L {
        let mut x: [W; STATE_WORDS] = core::array::from_fn(|i| s[i][l]);
        pi_one(&mut x, &keys);
        for i in 0..STATE_WORDS {
            s[i][l] = x[i];
        }
    }
}

/// π on a single state (the scalar tail path).
pub fn pi_single<W: Word>(x: &mut [W; STATE_WORDS]) {
    pi_one(x, &round_keys::<W>());
}

/// The portable lane kernel (no target features beyond the build's baseline).
pub fn pi_portable<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    pi_lanes(s)
}

#[cfg(test)]
mod tests {
    use super::super::reference;
    use super::*;

    fn states<W: Word>(n: usize, seed: u64) -> Vec<[W; STATE_WORDS]> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                core::array::from_fn(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    W::limb(x, 0)
                })
            })
            .collect()
    }

    fn check<W: Word, const L: usize>() {
        let input = states::<W>(L, 0x5eed + L as u64);
        let mut soa: Soa<W, L> = [[W::default(); L]; STATE_WORDS];
        for (l, st) in input.iter().enumerate() {
            for i in 0..STATE_WORDS {
                soa[i][l] = st[i];
            }
        }
        pi_portable(&mut soa);
        for (l, st) in input.iter().enumerate() {
            let mut want = *st;
            reference::pi(&mut want);
            let got: [W; STATE_WORDS] = core::array::from_fn(|i| soa[i][l]);
            assert_eq!(got, want, "lane {l} of {L}");
            let mut one = *st;
            pi_single(&mut one);
            assert_eq!(one, want);
        }
    }

    #[test]
    fn lanes_equal_the_reference() {
        check::<u16, 1>();
        check::<u16, 32>();
        check::<u32, 3>();
        check::<u32, 16>();
        check::<u64, 8>();
        check::<u64, 5>();
    }
}
