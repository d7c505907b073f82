//! The lane kernel of the AVX2 and AVX-512 backends, behind its CPU check, and the CPU
//! checks of both.
//!
//! AVX2 runs [`super::wide::pi_states`] on ymm registers (`avx2::pi_rows`); the AVX-512
//! backend uses it too for its lanes (its own strength is the whole-step kernel,
//! [`super::avx512`]). An AVX-512 lane kernel — the portable word-sliced π inlined into a
//! `#[target_feature]` function for LLVM to vectorise — was removed: on AMD Zen 4
//! (2026-11-26) it ran 256-768 B messages 1.5-2.5× slower than the AVX2 one and many
//! messages at once no faster.
#![allow(unsafe_code)]

use super::lanes::Soa;
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
