//! The x86 backends' entries: their CPU checks, the lane kernel behind its check, and
//! each word size's whole-step kernels ([`WideWord`]: the framework is [`super::wide`],
//! its two instances [`super::avx2`] and [`super::avx512`]).
//!
//! AVX2 runs [`super::wide::pi_states`] on ymm registers (`avx2::pi_many`); the AVX-512
//! backend uses it too for its lanes (its own strength is the whole-step kernel,
//! [`super::avx512`]). An AVX-512 lane kernel — the portable word-sliced π inlined into a
//! `#[target_feature]` function for LLVM to vectorise — was removed: on AMD Zen 4
//! (2026-11-26) it ran 256-768 B messages 1.5-2.5× slower than the AVX2 one and many
//! messages at once no faster.
#![allow(unsafe_code)]

use super::engine::Blocks;
use super::lanes::{states_as, States};
use super::wide::{Kernel, Offsets};
use super::word::Word;

/// Whether this CPU runs the AVX2 kernels (under the tier cap, see [`crate::cpu`]).
pub fn has_avx2() -> bool {
    super::avx2::available()
}

/// Whether this CPU runs the AVX-512 kernel (see [`super::avx512::FEATURES`]).
pub fn has_avx512() -> bool {
    super::avx512::available()
}

/// A word size with a whole-step kernel on every x86 vector tier (all three have one):
/// each kernel's safe entry and its batch width in blocks.
pub trait WideWord: Offsets {
    const AVX512: (Blocks<Self>, usize);
    const AVX2: (Blocks<Self>, usize);
}

macro_rules! wide_word {
    ($($t:ty),*) => {$(
        impl WideWord for $t {
            const AVX512: (Blocks<$t>, usize) = (
                super::avx512::run_blocks::<$t>,
                <super::avx512::Avx512 as Kernel<$t>>::L,
            );
            const AVX2: (Blocks<$t>, usize) = (
                super::avx2::run_blocks::<$t>,
                <super::avx2::Avx2 as Kernel<$t>>::L,
            );
        }
    )*};
}
wide_word!(u16, u32, u64);

/// π on `L` whole states with AVX2. Panics if the CPU lacks AVX2 (the backend selection
/// never hands this kernel out in that case).
pub fn pi_avx2<W: Word, const L: usize>(s: &mut States<W, L>) {
    // The word type picks the instance (the kernel's register lanes depend on it).
    if let Some(s) = states_as::<W, u64, L, 4>(s) {
        super::avx2::pi_many(s)
    } else if let Some(s) = states_as::<W, u32, L, 8>(s) {
        super::avx2::pi_many(s)
    } else if let Some(s) = states_as::<W, u16, L, 16>(s) {
        super::avx2::pi_many(s)
    } else {
        unreachable!("the AVX2 lane kernel takes one ymm register per state word")
    }
}

#[cfg(test)]
mod tests {
    use super::super::lanes::check_lane_kernel;
    use super::super::wide::check_kernel as check;
    use super::super::{avx2, avx512};
    use super::*;

    fn check_all<W: WideWord>() {
        if avx2::available() {
            check::<W>("avx2", W::AVX2);
        } else {
            eprintln!("skipped: π whole-step kernel on avx2 (CPU lacks AVX2)");
        }
        if avx512::available() {
            check::<W>("avx512", W::AVX512);
        } else {
            eprintln!("skipped: π whole-step kernel on avx512 (CPU lacks AVX-512 F/BW/VL/VBMI2)");
        }
    }

    #[test]
    fn avx2_lanes_equal_the_reference() {
        if !avx2::available() {
            eprintln!("skipped: π lane kernel on avx2 (CPU lacks AVX2)");
            return;
        }
        check_lane_kernel::<u16, 16>("avx2", pi_avx2::<u16, 16>);
        check_lane_kernel::<u32, 8>("avx2", pi_avx2::<u32, 8>);
        check_lane_kernel::<u64, 4>("avx2", pi_avx2::<u64, 4>);
    }

    #[test]
    fn blocks_equal_scalar_steps() {
        check_all::<u16>();
        check_all::<u32>();
        check_all::<u64>();
    }
}
