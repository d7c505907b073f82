//! The x86 backends' entries: their CPU checks, the lane kernel behind its check, and
//! each word size's whole-step kernels ([`WideWord`]: the framework is [`super::wide`],
//! its two instances [`super::avx2`] and [`super::avx512`]).
//!
//! AVX2 runs [`super::wide::pi_states`] on ymm registers (`avx2::pi_lanes`); the AVX-512
//! backend runs the same code compiled with AVX-512VL for its lanes (its own strength is
//! the whole-step kernel, [`super::avx512`]). An AVX-512 lane kernel — the portable
//! word-sliced π inlined into a `#[target_feature]` function for LLVM to vectorise — was
//! removed: on AMD Zen 4
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

/// π on `L` whole states with AVX2: one ymm register per state word (`L` = 4, 8, 16 for
/// π64, π32, π16) or a register pair (twice that). Panics if the CPU lacks AVX2 (the
/// backend selection never hands this kernel out in that case).
pub fn pi_avx2<W: Word, const L: usize>(s: &mut States<W, L>) {
    lanes::<W, L, false>(s)
}

/// [`pi_avx2`]'s code compiled with AVX-512VL, BW and VBMI2 (32 registers, one-instruction
/// rotates): the AVX-512 backend's lane kernel. Panics if the CPU lacks them.
pub fn pi_avx512vl<W: Word, const L: usize>(s: &mut States<W, L>) {
    lanes::<W, L, true>(s)
}

fn lanes<W: Word, const L: usize, const VL: bool>(s: &mut States<W, L>) {
    use super::avx2::pi_lanes;
    // The word type picks the instance (the kernel's register lanes depend on it).
    if let Some(s) = states_as::<W, u64, L, 4>(s) {
        pi_lanes::<u64, 4, 4, VL>(s)
    } else if let Some(s) = states_as::<W, u64, L, 8>(s) {
        pi_lanes::<u64, 8, 4, VL>(s)
    } else if let Some(s) = states_as::<W, u32, L, 8>(s) {
        pi_lanes::<u32, 8, 8, VL>(s)
    } else if let Some(s) = states_as::<W, u32, L, 16>(s) {
        pi_lanes::<u32, 16, 8, VL>(s)
    } else if let Some(s) = states_as::<W, u16, L, 16>(s) {
        pi_lanes::<u16, 16, 16, VL>(s)
    } else if let Some(s) = states_as::<W, u16, L, 32>(s) {
        pi_lanes::<u16, 32, 16, VL>(s)
    } else {
        unreachable!("the x86 lane kernel takes one or two ymm registers per state word")
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
        check_lane_kernel::<u16, 32>("avx2 pair", pi_avx2::<u16, 32>);
        check_lane_kernel::<u32, 16>("avx2 pair", pi_avx2::<u32, 16>);
        check_lane_kernel::<u64, 8>("avx2 pair", pi_avx2::<u64, 8>);
    }

    #[test]
    fn avx512vl_lanes_equal_the_reference() {
        if !avx512::available() {
            eprintln!("skipped: π lane kernel on avx512 (CPU lacks AVX-512 F/BW/VL/VBMI2)");
            return;
        }
        check_lane_kernel::<u16, 16>("avx512", pi_avx512vl::<u16, 16>);
        check_lane_kernel::<u32, 8>("avx512", pi_avx512vl::<u32, 8>);
        check_lane_kernel::<u64, 4>("avx512", pi_avx512vl::<u64, 4>);
        check_lane_kernel::<u16, 32>("avx512 pair", pi_avx512vl::<u16, 32>);
        check_lane_kernel::<u32, 16>("avx512 pair", pi_avx512vl::<u32, 16>);
        check_lane_kernel::<u64, 8>("avx512 pair", pi_avx512vl::<u64, 8>);
    }

    #[test]
    fn blocks_equal_scalar_steps() {
        check_all::<u16>();
        check_all::<u32>();
        check_all::<u64>();
    }
}
