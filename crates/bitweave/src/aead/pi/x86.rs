//! The lane kernels of the AVX2 and AVX-512 backends, behind their CPU checks.
//!
//! AVX2 runs [`super::wide::pi_states`] on ymm registers (`avx2::pi_rows`). AVX-512 runs
//! the portable [`pi_lanes`] (word-sliced π) inlined into a `#[target_feature]` function,
//! for LLVM to vectorise with zmm registers and native rotates. That route failed for
//! AVX2: measured on AMD Zen 3 (2026-11-26) LLVM emitted scalar code with most words
//! spilled (~2,300 `mov`s, no vector arithmetic), slower than eight scalar π; whether it
//! vectorises for AVX-512 was not checked on an AVX-512 machine.
#![allow(unsafe_code)]

use super::lanes::{pi_lanes, Soa};
use super::word::Word;
use crate::cpu::Feature;

/// Whether this CPU runs the AVX2 kernel (under the tier cap, see [`crate::cpu`]).
pub fn has_avx2() -> bool {
    crate::cpu::has(Feature::Avx2)
}

/// Whether this CPU runs the AVX-512 kernel (F, BW and VL for 16-bit words and
/// 256/512-bit forms; VBMI2 for the 16-bit funnel-shift rotate).
pub fn has_avx512() -> bool {
    crate::cpu::has_all(AVX512)
}

/// The features of the AVX-512 kernel.
pub const AVX512: &[Feature] = &[
    Feature::Avx512f,
    Feature::Avx512bw,
    Feature::Avx512vl,
    Feature::Avx512vbmi2,
];

/// # Safety
/// The CPU must support AVX-512 F/BW/VL/VBMI2 (see [`has_avx512`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
unsafe fn pi_avx512_inner<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    pi_lanes(s)
}

/// π on `L` lanes with AVX2. Panics if the CPU lacks AVX2 (the backend selection never
/// hands this kernel out in that case).
pub fn pi_avx2<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    // The word type picks the instance (the kernel's register lanes depend on it).
    if let Some(s) = same::<W, u64, L, 4>(s) {
        super::avx2::pi_rows(s)
    } else if let Some(s) = same::<W, u32, L, 8>(s) {
        super::avx2::pi_rows(s)
    } else if let Some(s) = same::<W, u16, L, 16>(s) {
        super::avx2::pi_rows(s)
    } else {
        unreachable!("the AVX2 lane kernel takes one ymm register per state word")
    }
}

/// `s` as `Soa<T, M>` when that is its type.
fn same<W: Word, T: Word, const L: usize, const M: usize>(
    s: &mut Soa<W, L>,
) -> Option<&mut Soa<T, M>> {
    let same = core::any::TypeId::of::<W>() == core::any::TypeId::of::<T>() && L == M;
    // SAFETY: W is T and L is M, so the two types are one type.
    same.then(|| unsafe { &mut *(s as *mut Soa<W, L>).cast::<Soa<T, M>>() })
}

/// π on `L` lanes with AVX-512. Panics if the CPU lacks the features.
pub fn pi_avx512<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    assert!(
        has_avx512(),
        "AVX-512 kernel called on a CPU without AVX-512"
    );
    // SAFETY: `has_avx512()` (cpu::has_all for avx512f, avx512bw, avx512vl and
    // avx512vbmi2; the cap never reports a feature the CPU lacks) just returned true, the only requirement of `pi_avx512_inner`.
    unsafe { pi_avx512_inner(s) }
}
