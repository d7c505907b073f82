//! π on many states at once, word-sliced: `s[i][l]` is word `i` of lane `l`, so every ARX
//! operation becomes one operation on a vector of lanes, for LLVM to vectorise. It did not
//! for SSE2 nor AVX2 (measured: scalar code with most words spilled, slower than
//! [`pi_single`]), so the portable backend runs one state at a time on `pi_single` and
//! the SIMD backends their own kernels (`wide::pi_states`). The scheduler hands lane
//! kernels whole states ([`States`]); each turns them into rows its own way.
//!
//! Savings over the reference, all exact: the first `*` of E1 has the constant C as left
//! operand and the first `*` of E2 the constant C' as right operand, so μ(C) and ν(C') are
//! computed once per call; μ(J0), μ(J1), μ(J2) serve both E1 and E2; and E2's ν(I1..I3) serve
//! the next round's E1. A first round thus costs 11 μ/ν halves instead of 16, later ones 8.
#![deny(unsafe_code)]
// Word-sliced code indexes state word i of lane l; index loops say that most plainly.
#![allow(clippy::needless_range_loop)]

use super::layout::{ROUNDS, STATE_WORDS};
use super::word::Word;

/// `L` states, word-sliced: `s[i][l]` is word `i` of lane `l`.
pub type Soa<W, const L: usize> = [[W; L]; STATE_WORDS];

/// `L` whole states one after another: `s[l]` is lane `l`'s state. What the scheduler
/// fills and reads (a lane's words are contiguous, so filling one is a copy); each lane
/// kernel turns it into rows its own way.
pub type States<W, const L: usize> = [[W; STATE_WORDS]; L];

/// The states as rows: `rows[i][l] = s[l][i]` (word by word; for kernels without a
/// vector transpose).
pub fn to_rows<W: Word, const L: usize>(s: &States<W, L>) -> Soa<W, L> {
    core::array::from_fn(|i| core::array::from_fn(|l| s[l][i]))
}

/// Rows back into states (the inverse of [`to_rows`]).
pub fn from_rows<W: Word, const L: usize>(rows: &Soa<W, L>, s: &mut States<W, L>) {
    for (l, st) in s.iter_mut().enumerate() {
        for (i, w) in st.iter_mut().enumerate() {
            *w = rows[i][l];
        }
    }
}

/// What π needs of a value: add, XOR, rotate. Implemented for a word (one state) and for a
/// vector of `L` words (one word of `L` states), so π is written once for both.
pub trait Arx: Copy {
    type Word: Word;
    fn splat(w: Self::Word) -> Self;
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn rotl(self, n: u32) -> Self;
}

impl<W: Word> Arx for W {
    type Word = W;
    #[inline(always)]
    fn splat(w: W) -> Self {
        w
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Word::add(self, o)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        Word::xor(self, o)
    }
    #[inline(always)]
    fn rotl(self, n: u32) -> Self {
        Word::rotl(self, n)
    }
}

/// One word of `L` states. Each operation is a short fixed-length loop, which LLVM turns into
/// one (or a few) vector instructions.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Lanes<W, const L: usize>(pub [W; L]);

impl<W: Word, const L: usize> Arx for Lanes<W, L> {
    type Word = W;
    #[inline(always)]
    fn splat(w: W) -> Self {
        Lanes([w; L])
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        let mut r = self.0;
        for l in 0..L {
            r[l] = r[l].add(o.0[l]);
        }
        Lanes(r)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        let mut r = self.0;
        for l in 0..L {
            r[l] = r[l].xor(o.0[l]);
        }
        Lanes(r)
    }
    #[inline(always)]
    fn rotl(self, n: u32) -> Self {
        let mut r = self.0;
        for l in 0..L {
            r[l] = r[l].rotl(n);
        }
        Lanes(r)
    }
}

/// μ on one chunk (four words) — the same equations as the reference.
#[inline(always)]
fn mu<A: Arx>(x: [A; 4]) -> [A; 4] {
    let (c, r) = (A::Word::C_MU, A::Word::R_MU);
    let x01 = x[0].add(x[1]);
    let x23 = x[2].add(x[3]);
    let s0 = A::splat(c[0]).add(x01).add(x[2]).rotl(r[0]);
    let s1 = A::splat(c[1]).add(x01).add(x[3]).rotl(r[1]);
    let s2 = A::splat(c[2]).add(x[0]).add(x23).rotl(r[2]);
    let s3 = A::splat(c[3]).add(x[1]).add(x23).rotl(r[3]);
    let s01 = s0.xor(s1);
    let s23 = s2.xor(s3);
    [s01.xor(s3), s01.xor(s2), s1.xor(s23), s0.xor(s23)]
}

/// ν on one chunk.
#[inline(always)]
fn nu<A: Arx>(y: [A; 4]) -> [A; 4] {
    let (c, r) = (A::Word::C_NU, A::Word::R_NU);
    let y01 = y[0].add(y[1]);
    let y23 = y[2].add(y[3]);
    let t0 = A::splat(c[0]).add(y[0]).add(y23).rotl(r[0]);
    let t1 = A::splat(c[1]).add(y[1]).add(y23).rotl(r[1]);
    let t2 = A::splat(c[2]).add(y01).add(y[2]).rotl(r[2]);
    let t3 = A::splat(c[3]).add(y01).add(y[3]).rotl(r[3]);
    let t01 = t0.xor(t1);
    let t23 = t2.xor(t3);
    [t1.xor(t23), t0.xor(t23), t01.xor(t3), t01.xor(t2)]
}

/// σ(a, b).
#[inline(always)]
fn sigma<A: Arx>(a: [A; 4], b: [A; 4]) -> [A; 4] {
    [
        a[1].add(b[1]),
        a[2].add(b[2]),
        a[3].add(b[3]),
        a[0].add(b[0]),
    ]
}

/// The per-call constants: μ(C_r) and ν(C'_r) for each round, as words.
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
        (mu(c), nu(c2))
    })
}

/// π on one state of `A` values, with the round constants' halves precomputed.
///
/// A state chunk is only ever read through ν (as the right operand of E1's `*`), and E2
/// already computes ν(I3), ν(I2), ν(I1) for its own chain; the next round reuses them, so
/// rounds after the first cost 8 μ/ν halves instead of 11.
#[inline(always)]
fn pi_arx<A: Arx>(x: &mut [A; STATE_WORDS]) {
    let ch = |x: &[A; STATE_WORDS], i: usize| [x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]];
    let keys = round_keys::<A::Word>();
    // The three rounds written out, so each round's constants are immediates: as a loop,
    // LLVM kept it rolled with the constants in a stack array.
    const _: () = assert!(ROUNDS == 3);
    let nx = [nu(ch(x, 0)), nu(ch(x, 1)), nu(ch(x, 2)), nu(ch(x, 3))];
    let r = round(&keys[0], nx);
    let r = round(&keys[1], [nu(r.i[0]), r.n[0], r.n[1], r.n[2]]);
    let r = round(&keys[2], [nu(r.i[0]), r.n[0], r.n[1], r.n[2]]);
    for (c, chunk) in r.i.iter().enumerate() {
        x[4 * c..4 * c + 4].copy_from_slice(chunk);
    }
}

/// A round's new chunks I0'..I3' and ν(I1'), ν(I2'), ν(I3'), which E2 computes anyway
/// and the next round reuses (a chunk is only ever read through ν).
struct RoundOut<A> {
    i: [[A; 4]; 4],
    n: [[A; 4]; 3],
}

/// One round (E1 then E2) on the ν images `nx` of the state's four chunks.
#[inline(always)]
fn round<A: Arx>(k: &([A::Word; 4], [A::Word; 4]), nx: [[A; 4]; 4]) -> RoundOut<A> {
    let (muc, nuc2) = (k.0.map(A::splat), k.1.map(A::splat));
    // E1; each μ(J_k) is needed twice (by E1 and by E2), computed once.
    let m0 = mu(sigma(muc, nx[0]));
    let m1 = mu(sigma(m0, nx[1]));
    let m2 = mu(sigma(m1, nx[2]));
    let j3 = sigma(m2, nx[3]);
    // E2, keeping the ν images for the next round.
    let i3 = sigma(mu(j3), nuc2);
    let n3 = nu(i3);
    let i2 = sigma(m2, n3);
    let n2 = nu(i2);
    let i1 = sigma(m1, n2);
    let n1 = nu(i1);
    let i0 = sigma(m0, n1);
    RoundOut {
        i: [i0, i1, i2, i3],
        n: [n1, n2, n3],
    }
}

/// μ on four words (for constants precomputed elsewhere).
pub fn mu_words<W: Word>(x: [W; 4]) -> [W; 4] {
    mu(x)
}

/// ν on four words.
pub fn nu_words<W: Word>(y: [W; 4]) -> [W; 4] {
    nu(y)
}

/// π on every lane of `s`. `#[inline(always)]` so that a `#[target_feature]` caller compiles
/// it with its features.
#[inline(always)]
pub fn pi_lanes<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    let mut x: [Lanes<W, L>; STATE_WORDS] = core::array::from_fn(|i| Lanes(s[i]));
    pi_arx(&mut x);
    for i in 0..STATE_WORDS {
        s[i] = x[i].0;
    }
}

/// π on a single state (the scalar tail path).
pub fn pi_single<W: Word>(x: &mut [W; STATE_WORDS]) {
    pi_arx(x);
}

/// The portable lane kernel (no target features beyond the build's baseline): one state
/// on its own, several through rows (wiped after).
pub fn pi_portable<W: Word, const L: usize>(s: &mut States<W, L>) {
    if L == 1 {
        return pi_single(&mut s[0]);
    }
    let mut rows = to_rows(s);
    pi_lanes(&mut rows);
    from_rows(&rows, s);
    crate::bytes::wipe(rows.as_flattened_mut());
}

/// `s` as `States<T, M>` when that is its type: how a generic caller hands its states to
/// a SIMD lane kernel written for one word size and register width.
#[allow(unsafe_code)]
pub fn states_as<W: Word, T: Word, const L: usize, const M: usize>(
    s: &mut States<W, L>,
) -> Option<&mut States<T, M>> {
    let same = core::any::TypeId::of::<W>() == core::any::TypeId::of::<T>() && L == M;
    // SAFETY: W is T and L is M, so the two types are one type.
    same.then(|| unsafe { &mut *(s as *mut States<W, L>).cast::<States<T, M>>() })
}

/// Checks a lane kernel against the reference π on `L` random states.
#[cfg(test)]
pub(super) fn check_lane_kernel<W: Word, const L: usize>(
    name: &str,
    kernel: fn(&mut States<W, L>),
) {
    tests::check_kernel(name, kernel)
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
        check_kernel::<W, L>("portable", pi_portable::<W, L>);
    }

    pub(super) fn check_kernel<W: Word, const L: usize>(name: &str, kernel: fn(&mut States<W, L>)) {
        let input = states::<W>(L, 0x5eed + L as u64);
        let mut lanes: States<W, L> = core::array::from_fn(|l| input[l]);
        kernel(&mut lanes);
        for (l, st) in input.iter().enumerate() {
            let mut want = *st;
            reference::pi(&mut want);
            assert_eq!(
                lanes[l],
                want,
                "{name} lane kernel: lane {l} of {L}, {} bits",
                8 * W::BYTES
            );
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
