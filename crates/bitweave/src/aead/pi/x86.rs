//! The lane kernel compiled for AVX2 and AVX-512. The arithmetic is the portable
//! [`pi_lanes`] (word-sliced π, one vector register per state word): inlined into a
//! `#[target_feature]` function, LLVM vectorises its lane loop with 256- or 512-bit
//! registers and native rotates (`vprold`/`vprolq`, and `vpshldw` for 16-bit words with
//! AVX512-VBMI2). This is the only module of the π-Cipher code with `unsafe`.
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
/// The CPU must support AVX2 (see [`has_avx2`]).
#[target_feature(enable = "avx2")]
unsafe fn pi_avx2_inner<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    pi_lanes(s)
}

/// # Safety
/// The CPU must support AVX-512 F/BW/VL/VBMI2 (see [`has_avx512`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
unsafe fn pi_avx512_inner<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    pi_lanes(s)
}

/// π on `L` lanes with AVX2. Panics if the CPU lacks AVX2 (the backend selection never
/// hands this kernel out in that case).
pub fn pi_avx2<W: Word, const L: usize>(s: &mut Soa<W, L>) {
    assert!(has_avx2(), "AVX2 kernel called on a CPU without AVX2");
    // SAFETY: `has_avx2()` (cpu::has(Avx2), which never reports a feature the CPU lacks) just returned
    // true, which is the only requirement of `pi_avx2_inner`.
    unsafe { pi_avx2_inner(s) }
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
