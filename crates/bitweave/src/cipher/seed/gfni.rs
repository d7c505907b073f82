//! `gfni128` (SEED): one block at a time ([`super::single`]) with the S-boxes on GFNI,
//! for CPUs with AVX-512VL and GFNI.
//!
//! G on a broadcast word: one `gf2p8affineqb` (SEED's field → AES's field) and one
//! `gf2p8affineinvqb` whose matrix operand differs per 64-bit half — S1's linear part in
//! the low half, S2's in the high — so a single instruction gives every byte through both
//! S-boxes. The mixing's four byte rotations ([`super::field::MIX`]) then take their bytes
//! straight from the right half (`pshufb`: even bytes from S1's, odd from S2's), so no
//! blend is needed, and `vpternlogd` applies each rotation's mask and XOR in one step.
//! The affine constant is S1's for both halves; S2's bytes are off by B1 ⊕ B2, a fixed
//! difference whose image under the mixing is folded into the first mask step.
//! Critical path per G: two GFNI operations, a shuffle and three logic steps.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::field::{mix, B1, B2, GFNI_S1, GFNI_S2, GFNI_TO_AES, MIX};
use super::single::one_block_kernel;
use crate::cpu::Feature;

one_block_kernel!(
    KERNEL,
    "gfni128",
    "gfni,avx512f,avx512vl,ssse3,sse4.1",
    &[
        Feature::Gfni,
        Feature::Avx512f,
        Feature::Avx512vl,
        Feature::Ssse3,
        Feature::Sse41
    ],
    Consts,
    g,
    in_step = 4
);

/// A word broadcast to the four 32-bit lanes.
type V = __m128i;

/// `pshufb` indices giving rotl(Y, 8r) in every 32-bit lane, where Y's even bytes are
/// S1's outputs (bytes 0-7 of the register) and its odd bytes S2's (bytes 8-15): byte k
/// of a lane takes Y's byte j = (k - r) mod 4.
const fn rotation(r: usize) -> [u8; 16] {
    let mut idx = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let j = (i % 4 + 4 - r) % 4;
        idx[i] = if j.is_multiple_of(2) {
            j as u8
        } else {
            8 + j as u8
        };
        i += 1;
    }
    idx
}

static ROTATIONS: [[u8; 16]; 4] = [rotation(0), rotation(1), rotation(2), rotation(3)];

/// What the mixing makes of S2's bytes being off by B1 ⊕ B2 (the constant both halves
/// share is S1's): XORed once into G's output.
const FIX: u32 = {
    let d = (B1 ^ B2) as u32;
    mix(d << 8 | d << 24)
};

/// G's vector constants, built once per call (public constants, not secrets).
struct Consts {
    to_aes: V,
    sboxes: V,
    rotl: [V; 4],
    mix: [V; 4],
    fix: V,
}

impl Consts {
    #[inline]
    #[target_feature(enable = "gfni,avx512f,avx512vl,ssse3,sse4.1")]
    fn new() -> Self {
        let bytes = |b: &[u8; 16]| {
            // SAFETY: 16 readable bytes; loadu has no alignment requirement.
            unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
        };
        Consts {
            to_aes: _mm_set1_epi64x(GFNI_TO_AES as i64),
            sboxes: _mm_set_epi64x(GFNI_S2 as i64, GFNI_S1 as i64),
            rotl: ROTATIONS.each_ref().map(bytes),
            mix: MIX.map(|m| _mm_set1_epi32(m as i32)),
            fix: _mm_set1_epi32(FIX as i32),
        }
    }
}

/// G on a broadcast word (see the module doc).
#[inline]
#[target_feature(enable = "gfni,avx512f,avx512vl,ssse3,sse4.1")]
fn g(x: V, c: &Consts) -> V {
    let t = _mm_gf2p8affine_epi64_epi8::<0>(x, c.to_aes);
    let y = _mm_gf2p8affineinv_epi64_epi8::<{ B1 as i32 }>(t, c.sboxes);
    let rot = |r: usize| _mm_shuffle_epi8(y, c.rotl[r]);
    // Truth table 0x6a: (A & B) ⊕ C.
    let a = _mm_ternarylogic_epi32::<0x6a>(rot(0), c.mix[0], c.fix);
    let b = _mm_and_si128(rot(2), c.mix[2]);
    let a = _mm_ternarylogic_epi32::<0x6a>(rot(1), c.mix[1], a);
    let b = _mm_ternarylogic_epi32::<0x6a>(rot(3), c.mix[3], b);
    _mm_xor_si128(a, b)
}
