//! The whole-step kernel's NEON instance ([`super::wide`] on 128-bit registers, ARM64),
//! two registers per word ([`Twice`]): 4 blocks per batch for π64, 8 for π32, 16 for π16;
//! and the lane kernel ([`super::wide::pi_states`]) on one register's lanes (2 / 4 / 8
//! states) for tails and many short messages.
//!
//! Why two registers: llvm-mca's Neoverse models (`scripts/predict-arm.sh`; predicted,
//! never measured) put one register per word at 38-56 % of the loop's throughput bound —
//! a π is one long dependency chain and 2-8 lanes do not hide NEON's 2-4 cycle latencies —
//! and two at 51-68 %: π64 core c/B 5.21 → 4.63 (N1), 3.50 → 2.52 (V1), 3.42 → 2.52 (V2),
//! π32 and π16 alike. The word-sized portable kernel is predicted at 4.49 / 3.37 / 2.23 for
//! π64 (so NEON leads π64 only on V1) and 8.95 / 6.71 / 4.49 for π32.
//!
//! NEON is part of the ARM64 baseline, so nothing here needs a target feature; the
//! `neon` tier cap (`BITWEAVE_CPU=portable`) still turns the backend off
//! ([`available`]). A rotate is a shift and a shift-right-and-insert (two instructions),
//! a three-input XOR two XORs (EOR3 needs the SHA-3 extension, not in the baseline).
//! Blocks enter and leave through `TRN` transposes; lane `l` holds block `l`. Counter
//! carries come from unsigned compares, never from a branch.
#![allow(unsafe_code)]

use core::arch::aarch64::*;

use super::engine::{Blocks, ABSORB, DECRYPT, ENCRYPT};
use super::lanes::{from_rows, states_as, to_rows, States};
use super::layout::STATE_WORDS;
use super::wide::{blocks, pi_states, Isa, Kernel, Offsets, Twice};
use super::word::Word;

type Q = uint8x16_t;
type Chunk = [Q; 4];

/// 128-bit NEON registers (see [`available`]).
pub struct Neon;

/// Whether the backend may run: always on ARM64, unless the tier cap is `portable`.
pub fn available() -> bool {
    crate::cpu::has(crate::cpu::Feature::Neon)
}

// The casts between lane views (`vreinterpretq_*`) are free: one register, several types.
macro_rules! as_u64 {
    ($x:expr) => {
        vreinterpretq_u64_u8($x)
    };
}
macro_rules! as_u32 {
    ($x:expr) => {
        vreinterpretq_u32_u8($x)
    };
}
macro_rules! as_u16 {
    ($x:expr) => {
        vreinterpretq_u16_u8($x)
    };
}

impl Isa for Neon {
    type V = Q;
    const BYTES: usize = 16;
    #[inline(always)]
    unsafe fn zero() -> Q {
        // SAFETY: register-only intrinsic; NEON is in the ARM64 baseline.
        unsafe { vdupq_n_u8(0) }
    }
    #[inline(always)]
    unsafe fn xor(a: Q, b: Q) -> Q {
        // SAFETY: register-only intrinsic; NEON is in the ARM64 baseline.
        unsafe { veorq_u8(a, b) }
    }
    #[inline(always)]
    unsafe fn xor3(a: Q, b: Q, c: Q) -> Q {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe { veorq_u8(veorq_u8(a, b), c) }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Q {
        // SAFETY: `p` is valid for 16 bytes (the `Isa` contract); NEON is in the baseline.
        unsafe { vld1q_u8(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Q) {
        // SAFETY: `p` is valid for 16 writable bytes (the `Isa` contract).
        unsafe { vst1q_u8(p, v) }
    }
}

/// Rotate left by a literal amount: `rotl!(u64, 64, x, 7)` is `x << 7` with the top 7 bits
/// shifted right and inserted below.
macro_rules! rotl {
    (u64, $x:expr, $n:literal) => {{
        let x = as_u64!($x);
        vreinterpretq_u8_u64(vsriq_n_u64::<{ 64 - $n }>(vshlq_n_u64::<$n>(x), x))
    }};
    (u32, $x:expr, $n:literal) => {{
        let x = as_u32!($x);
        vreinterpretq_u8_u32(vsriq_n_u32::<{ 32 - $n }>(vshlq_n_u32::<$n>(x), x))
    }};
    (u16, $x:expr, $n:literal) => {{
        let x = as_u16!($x);
        vreinterpretq_u8_u16(vsriq_n_u16::<{ 16 - $n }>(vshlq_n_u16::<$n>(x), x))
    }};
}

/// The 64-bit halves `(a.0, b.0)` and `(a.1, b.1)`.
#[inline(always)]
unsafe fn trn_q(a: Q, b: Q) -> (Q, Q) {
    // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
    unsafe {
        let (a, b) = (as_u64!(a), as_u64!(b));
        (
            vreinterpretq_u8_u64(vtrn1q_u64(a, b)),
            vreinterpretq_u8_u64(vtrn2q_u64(a, b)),
        )
    }
}

/// The even and odd 32-bit elements of `a` and `b` interleaved (`TRN1`, `TRN2`).
#[inline(always)]
unsafe fn trn_d(a: Q, b: Q) -> (Q, Q) {
    // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
    unsafe {
        let (a, b) = (as_u32!(a), as_u32!(b));
        (
            vreinterpretq_u8_u32(vtrn1q_u32(a, b)),
            vreinterpretq_u8_u32(vtrn2q_u32(a, b)),
        )
    }
}

/// The even and odd 16-bit elements of `a` and `b` interleaved (`TRN1`, `TRN2`).
#[inline(always)]
unsafe fn trn_w(a: Q, b: Q) -> (Q, Q) {
    // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
    unsafe {
        let (a, b) = (as_u16!(a), as_u16!(b));
        (
            vreinterpretq_u8_u16(vtrn1q_u16(a, b)),
            vreinterpretq_u8_u16(vtrn2q_u16(a, b)),
        )
    }
}

// ---- 64-bit words: 2 blocks of 64 bytes, four registers each. ----

impl Kernel<u64> for Neon {
    const L: usize = 2;
    #[inline(always)]
    unsafe fn splat(w: u64) -> Q {
        // SAFETY: register-only intrinsic; NEON is in the ARM64 baseline.
        unsafe { vreinterpretq_u8_u64(vdupq_n_u64(w)) }
    }
    #[inline(always)]
    unsafe fn add(a: Q, b: Q) -> Q {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe { vreinterpretq_u8_u64(vaddq_u64(as_u64!(a), as_u64!(b))) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            [
                rotl!(u64, s[0], 7),
                rotl!(u64, s[1], 19),
                rotl!(u64, s[2], 31),
                rotl!(u64, s[3], 53),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            [
                rotl!(u64, s[0], 11),
                rotl!(u64, s[1], 23),
                rotl!(u64, s[2], 37),
                rotl!(u64, s[3], 59),
            ]
        }
    }
    /// Register k of block b (b = 0, 1) holds words 2k, 2k + 1: word 2k of both blocks
    /// is the low halves of registers k and k + 4, word 2k + 1 the high halves.
    #[inline(always)]
    unsafe fn to_sliced(r: [Q; 8]) -> [Q; 8] {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            let (w0, w1) = trn_q(r[0], r[4]);
            let (w2, w3) = trn_q(r[1], r[5]);
            let (w4, w5) = trn_q(r[2], r[6]);
            let (w6, w7) = trn_q(r[3], r[7]);
            [w0, w1, w2, w3, w4, w5, w6, w7]
        }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Q; 8]) -> [Q; 8] {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            let (r0, r4) = trn_q(v[0], v[1]);
            let (r1, r5) = trn_q(v[2], v[3]);
            let (r2, r6) = trn_q(v[4], v[5]);
            let (r3, r7) = trn_q(v[6], v[7]);
            [r0, r1, r2, r3, r4, r5, r6, r7]
        }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Q) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            let c = vreinterpretq_u8_u64(vaddq_u64(vdupq_n_u64(base), as_u64!(idx)));
            [c, c, c, c]
        }
    }
}

// ---- 32-bit words: 4 blocks of 32 bytes, two registers each: two 4×4 transposes. ----

/// 4×4 transpose of 32-bit elements (its own inverse).
#[inline(always)]
unsafe fn transpose_d4(a: Q, b: Q, c: Q, d: Q) -> [Q; 4] {
    // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
    unsafe {
        let (t0, t1) = trn_d(a, b);
        let (t2, t3) = trn_d(c, d);
        let (o0, o2) = trn_q(t0, t2);
        let (o1, o3) = trn_q(t1, t3);
        [o0, o1, o2, o3]
    }
}

impl Kernel<u32> for Neon {
    const L: usize = 4;
    #[inline(always)]
    unsafe fn splat(w: u32) -> Q {
        // SAFETY: register-only intrinsic; NEON is in the ARM64 baseline.
        unsafe { vreinterpretq_u8_u32(vdupq_n_u32(w)) }
    }
    #[inline(always)]
    unsafe fn add(a: Q, b: Q) -> Q {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe { vreinterpretq_u8_u32(vaddq_u32(as_u32!(a), as_u32!(b))) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            [
                rotl!(u32, s[0], 5),
                rotl!(u32, s[1], 11),
                rotl!(u32, s[2], 17),
                rotl!(u32, s[3], 23),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            [
                rotl!(u32, s[0], 3),
                rotl!(u32, s[1], 10),
                rotl!(u32, s[2], 19),
                rotl!(u32, s[3], 29),
            ]
        }
    }
    /// Block b fills registers 2b (words 0–3) and 2b + 1 (words 4–7): one transpose per
    /// half.
    #[inline(always)]
    unsafe fn to_sliced(r: [Q; 8]) -> [Q; 8] {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            let lo = transpose_d4(r[0], r[2], r[4], r[6]);
            let hi = transpose_d4(r[1], r[3], r[5], r[7]);
            [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
        }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Q; 8]) -> [Q; 8] {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            let lo = transpose_d4(v[0], v[1], v[2], v[3]);
            let hi = transpose_d4(v[4], v[5], v[6], v[7]);
            [lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3]]
        }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Q) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            let idx = as_u32!(idx);
            let lo = vaddq_u32(vdupq_n_u32(base as u32), idx);
            // The low limb wrapped where it came out below the lane's offset; subtracting
            // the all-ones mask adds the carry.
            let carry = vcltq_u32(lo, idx);
            let hi = vsubq_u32(vdupq_n_u32((base >> 32) as u32), carry);
            let (lo, hi) = (vreinterpretq_u8_u32(lo), vreinterpretq_u8_u32(hi));
            [lo, hi, hi, hi]
        }
    }
}

// ---- 16-bit words: 8 blocks of 16 bytes, one register each: an 8×8 transpose. ----

/// 8×8 transpose of 16-bit elements (its own inverse): 16-, 32- and 64-bit `TRN` steps.
#[inline(always)]
unsafe fn transpose_w8(r: [Q; 8]) -> [Q; 8] {
    // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
    unsafe {
        let (a0, a1) = trn_w(r[0], r[1]);
        let (a2, a3) = trn_w(r[2], r[3]);
        let (a4, a5) = trn_w(r[4], r[5]);
        let (a6, a7) = trn_w(r[6], r[7]);
        // b0: elements 0 and 4 of rows 0-3; b1: 1 and 5; b2: 2 and 6; b3: 3 and 7.
        let (b0, b2) = trn_d(a0, a2);
        let (b1, b3) = trn_d(a1, a3);
        let (b4, b6) = trn_d(a4, a6);
        let (b5, b7) = trn_d(a5, a7);
        let (o0, o4) = trn_q(b0, b4);
        let (o1, o5) = trn_q(b1, b5);
        let (o2, o6) = trn_q(b2, b6);
        let (o3, o7) = trn_q(b3, b7);
        [o0, o1, o2, o3, o4, o5, o6, o7]
    }
}

impl Kernel<u16> for Neon {
    const L: usize = 8;
    #[inline(always)]
    unsafe fn splat(w: u16) -> Q {
        // SAFETY: register-only intrinsic; NEON is in the ARM64 baseline.
        unsafe { vreinterpretq_u8_u16(vdupq_n_u16(w)) }
    }
    #[inline(always)]
    unsafe fn add(a: Q, b: Q) -> Q {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe { vreinterpretq_u8_u16(vaddq_u16(as_u16!(a), as_u16!(b))) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            [
                rotl!(u16, s[0], 1),
                rotl!(u16, s[1], 4),
                rotl!(u16, s[2], 9),
                rotl!(u16, s[3], 11),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            [
                rotl!(u16, s[0], 2),
                rotl!(u16, s[1], 5),
                rotl!(u16, s[2], 7),
                rotl!(u16, s[3], 13),
            ]
        }
    }
    #[inline(always)]
    unsafe fn to_sliced(r: [Q; 8]) -> [Q; 8] {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe { transpose_w8(r) }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Q; 8]) -> [Q; 8] {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe { transpose_w8(v) }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Q) -> Chunk {
        // SAFETY: register-only intrinsics; NEON is in the ARM64 baseline.
        unsafe {
            let idx = as_u16!(idx);
            let b = |i: u32| vdupq_n_u16((base >> (16 * i)) as u16);
            let l0 = vaddq_u16(b(0), idx);
            // Carries as all-ones masks: into limb 1 where limb 0 wrapped, into limb k + 1
            // where the carry into limb k made it wrap to zero.
            let c0 = vcltq_u16(l0, idx);
            let l1 = vsubq_u16(b(1), c0);
            let c1 = vandq_u16(c0, vceqzq_u16(l1));
            let l2 = vsubq_u16(b(2), c1);
            let c2 = vandq_u16(c1, vceqzq_u16(l2));
            let l3 = vsubq_u16(b(3), c2);
            [l0, l1, l2, l3].map(|l| vreinterpretq_u8_u16(l))
        }
    }
}

/// Full batches of one message on NEON, two registers per word (`data.len()` a multiple
/// of the [`Twice`] batch; see [`blocks`]). Panics if the tier cap forbids NEON (selection never hands it out then).
pub fn run_blocks<W: Offsets>(
    mode: u8,
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) where
    Neon: Kernel<W>,
{
    assert!(available(), "Neon kernel called under a portable tier cap");
    // SAFETY: NEON is in the ARM64 baseline; `blocks` reads whole batches inside `data` and
    // writes them inside `out`, whose length it asserts.
    unsafe {
        match mode {
            ABSORB => blocks::<Twice<Neon>, W, ABSORB>(cis, ctr, data, out, tag),
            ENCRYPT => blocks::<Twice<Neon>, W, ENCRYPT>(cis, ctr, data, out, tag),
            _ => blocks::<Twice<Neon>, W, DECRYPT>(cis, ctr, data, out, tag),
        }
    }
}

/// A word size's NEON whole-step kernel (two registers per word) and its batch width.
pub trait NeonWord: Offsets {
    const NEON: (Blocks<Self>, usize);
}

macro_rules! neon_word {
    ($($t:ty),*) => {$(
        impl NeonWord for $t {
            const NEON: (Blocks<$t>, usize) =
                (run_blocks::<$t>, <Twice<Neon> as Kernel<$t>>::L);
        }
    )*};
}
neon_word!(u16, u32, u64);

/// π on `L` whole states, one register per state word (`L` = 2, 4, 8 for π64, π32,
/// π16). Panics if the tier cap forbids NEON or `L` is not one register's lanes.
pub fn pi_neon<W: Word, const L: usize>(s: &mut States<W, L>) {
    assert!(available(), "Neon kernel called under a portable tier cap");
    // The word type picks the instance (the kernel's register lanes depend on it).
    if let Some(s) = states_as::<W, u64, L, 2>(s) {
        rows(s)
    } else if let Some(s) = states_as::<W, u32, L, 4>(s) {
        rows(s)
    } else if let Some(s) = states_as::<W, u16, L, 8>(s) {
        rows(s)
    } else {
        unreachable!("the NEON lane kernel takes one register per state word")
    }
}

/// [`pi_states`] on the states of `s` turned into rows word by word (`L * W::BYTES` = 16;
/// the rows wiped after).
fn rows<W: Offsets, const L: usize>(s: &mut States<W, L>)
where
    Neon: Kernel<W>,
{
    assert_eq!(L * W::BYTES, Neon::BYTES, "one register per state word");
    let mut rows = to_rows(s);
    // SAFETY: each row is 16 bytes (asserted above), read and written whole; NEON is in
    // the ARM64 baseline.
    unsafe {
        let mut x = [Neon::zero(); STATE_WORDS];
        for (v, row) in x.iter_mut().zip(rows.iter()) {
            *v = Neon::load(row.as_ptr().cast());
        }
        let y = pi_states::<Neon, W>(x);
        for (row, v) in rows.iter_mut().zip(y) {
            Neon::store(row.as_mut_ptr().cast(), v);
        }
    }
    from_rows(&rows, s);
    crate::bytes::wipe(rows.as_flattened_mut());
}

#[cfg(test)]
mod tests {
    use super::super::lanes::check_lane_kernel;
    use super::super::wide::check_kernel;
    use super::*;

    #[test]
    fn blocks_equal_scalar_steps() {
        if !available() {
            eprintln!("skipped: π whole-step kernel on neon (tier cap portable)");
            return;
        }
        check_kernel::<u16>("neon", u16::NEON);
        check_kernel::<u32>("neon", u32::NEON);
        check_kernel::<u64>("neon", u64::NEON);
    }

    #[test]
    fn lanes_equal_the_reference() {
        if !available() {
            eprintln!("skipped: π lane kernel on neon (tier cap portable)");
            return;
        }
        check_lane_kernel::<u16, 8>("neon", pi_neon::<u16, 8>);
        check_lane_kernel::<u32, 4>("neon", pi_neon::<u32, 4>);
        check_lane_kernel::<u64, 2>("neon", pi_neon::<u64, 2>);
    }
}
