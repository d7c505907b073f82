//! `aesni` (SEED): one block at a time ([`super::single`]) with the S-boxes on
//! AESENCLAST.
//!
//! With each word broadcast to the four 32-bit lanes, AESENCLAST's ShiftRows (byte r of
//! column c to column c − r) changes nothing on four equal columns, so the batch kernel's
//! inverse-ShiftRows shuffle goes away. G, per word: the two nibble lookups of SEED's
//! field → AES's field (`pshufb`), AESENCLAST with a zero round key (inversion and AES's
//! affine map), each S-box kind's map back (two nibble lookups), a byte blend (even bytes
//! S1, odd bytes S2) and the masked mixing as three byte rotations
//! ([`super::field::MIX`]): 17 instructions in a row, and measured at about 18 cycles per
//! G with the additions between them (AMD Zen 3, CBC 55 c/B = 880 cycles per block of 48
//! G).
//!
//! Needs AES-NI, SSSE3 and SSE4.1 only, so it also serves CPUs without AVX2.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::field::{NibbleMap, AES_IN, AES_OUT_S1, AES_OUT_S2, MIX, ROTL16, ROTL24, ROTL8};
use super::single::one_block_kernel;
use crate::cpu::Feature;

one_block_kernel!(
    KERNEL,
    "aesni",
    "aes,ssse3,sse4.1",
    &[Feature::Aes, Feature::Ssse3, Feature::Sse41],
    Consts,
    g,
    in_step = 2
);

/// A word broadcast to the four 32-bit lanes.
type V = __m128i;

/// G's vector constants, built once per call (public constants, not secrets).
struct Consts {
    low: V,
    to_aes: [V; 2],
    s1: [V; 2],
    s2: [V; 2],
    odd: V,
    mix: [V; 4],
    rotl: [V; 3],
}

impl Consts {
    #[inline]
    #[target_feature(enable = "aes,ssse3,sse4.1")]
    fn new() -> Self {
        let bytes = |b: &[u8; 16]| {
            // SAFETY: 16 readable bytes; loadu has no alignment requirement.
            unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
        };
        let tables = |m: &NibbleMap| [bytes(&m.lo), bytes(&m.hi)];
        Consts {
            low: _mm_set1_epi8(0x0f),
            to_aes: tables(&AES_IN),
            s1: tables(&AES_OUT_S1),
            s2: tables(&AES_OUT_S2),
            odd: _mm_set1_epi16(0xff00u16 as i16),
            mix: MIX.map(|m| _mm_set1_epi32(m as i32)),
            rotl: [bytes(&ROTL8), bytes(&ROTL16), bytes(&ROTL24)],
        }
    }
}

/// A byte map as two nibble lookups, on bytes already split into nibbles.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn map(lo: V, hi: V, t: &[V; 2]) -> V {
    _mm_xor_si128(_mm_shuffle_epi8(t[0], lo), _mm_shuffle_epi8(t[1], hi))
}

/// Bytes as low and high nibbles.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn nibbles(x: V, low: V) -> (V, V) {
    (
        _mm_and_si128(x, low),
        _mm_and_si128(_mm_srli_epi16::<4>(x), low),
    )
}

/// G on a broadcast word (see the module doc).
///
/// Tried and slower on Zen 3 (64 against 55 c/B in CBC): folding the mixing's masks into
/// the S-boxes' output maps, one instruction shorter on the critical path but eight
/// nibble lookups and four blends instead of four and one; the extra shuffles compete
/// with the critical ones for the two shuffle ports.
///
/// Where the cycles go on Intel (Xeon family 6 model 167, 2026-12-06, dependent-chain
/// microbenchmarks of this G and the add): ~25 core cycles against ~19 by the
/// instructions' latencies. Each step into and out of AESENCLAST costs a cycle more (a
/// `pxor` → `aesenclast` loop takes 6 cycles, `aesenclast` alone 3), and the nine
/// shuffles of a G share two ports (the output maps' four and the blend measure 7 cycles
/// where the latencies give 5). SEED-CBC encryption runs at ~24 cycles per G (47 TSC c/B,
/// 0.57× libgcrypt). Tried there, no faster: the rotation by 16 as one `pshufb` instead of
/// the `pshuflw` + `pshufhw` the compiler makes of it (CBC 46.0 → 45.0-46.0 TSC c/B), one
/// or all three rotations as shift pairs (27.6 → 27.6 and 31.0 cycles per G in the
/// microbenchmark), the blend as AND/OR (28.6). The latencies alone, with the two
/// crossings, put a G at ~19 cycles, above the ~14 a G of the peers' table-based SEED
/// takes in the same runs (27 TSC c/B), so this kernel cannot reach them.
///
/// Also tried there (2026-12-06, SEED-CBC encryption under `BITWEAVE_CPU=avx2`, 1 KiB,
/// best of three alternating runs): the inversion without the AES unit, in a tower field
/// GF(16)² by nibble lookups only (Hamburg's construction for AES, CHES 2009, derived for
/// SEED's field: into the tower by four lookups, 1/i + a/k and 1/j + a/k, two more
/// inversions, then each S-box straight from the two results by two lookups, checked on
/// all 256 inputs of both S-boxes). No crossing, but eighteen shuffles on two ports and a
/// longer chain: 46.4 → 52.8 TSC c/B, and 50.7 with j = i ⊕ k looked up beside i and k.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn g(x: V, c: &Consts) -> V {
    let (lo, hi) = nibbles(x, c.low);
    let s = _mm_aesenclast_si128(map(lo, hi, &c.to_aes), _mm_setzero_si128());
    let (lo, hi) = nibbles(s, c.low);
    let y = _mm_blendv_epi8(map(lo, hi, &c.s1), map(lo, hi, &c.s2), c.odd);
    let masked = |r: V, m: V| _mm_and_si128(r, m);
    let rot = |i: usize| _mm_shuffle_epi8(y, c.rotl[i]);
    let z0 = _mm_xor_si128(masked(y, c.mix[0]), masked(rot(0), c.mix[1]));
    let z1 = _mm_xor_si128(masked(rot(1), c.mix[2]), masked(rot(2), c.mix[3]));
    _mm_xor_si128(z0, z1)
}
