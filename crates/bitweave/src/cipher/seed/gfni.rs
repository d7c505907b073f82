//! `gfni128` (SEED): one block at a time ([`super::single`]) with the S-boxes on GFNI,
//! for CPUs with AVX-512VL and GFNI.
//!
//! G on a broadcast word: one `gf2p8affineqb` (SEED's field → AES's field), then four
//! `gf2p8affineinvqb`, one per mask m_t of the mixing. Byte k of G's output is
//! ⊕_t Y_{(t-k) mod 4} & m_t (Y_j the S-box outputs), and masking is linear, so each
//! mask is folded into the S-boxes' linear parts: instruction t gives m_t & S1 of every
//! byte in its low 64-bit half and m_t & S2 in its high half (matrix operands differ
//! per half). A `pshufb` per term then takes byte (t-k) mod 4 from the right half into
//! byte k (even bytes from S1's, odd from S2's), and two `vpternlogd` XOR the four terms
//! and the S-boxes' constants (zero in the instructions; their image under the mixing is
//! one fixed word).
//!
//! Critical path per G: two GFNI operations (3 cycles each on AMD Zen 4), a shuffle (2)
//! and two logic steps. The previous form — one S-box instruction, then four rotations
//! masked and XORed by a chain of three logic steps — was one step longer: G plus the
//! round's add, 14.7 → 12.75 cycles in a dependent-chain microbenchmark.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::field::{mix, B1, B2, GFNI_S1, GFNI_S2, GFNI_TO_AES};
use super::single::one_block_kernel;
use super::M;
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
pub(super) type V = __m128i;

/// `pshufb` indices for the mixing's term t: byte k of every 32-bit lane takes
/// Y_j, j = (t - k) mod 4, from the register's low half (bytes 0-7, S1's outputs) when j
/// is even and from its high half (bytes 8-15, S2's) when odd.
const fn term(t: usize) -> [u8; 16] {
    let mut idx = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let j = (t + 4 - i % 4) % 4;
        idx[i] = if j.is_multiple_of(2) {
            j as u8
        } else {
            8 + j as u8
        };
        i += 1;
    }
    idx
}

static TERMS: [[u8; 16]; 4] = [term(0), term(1), term(2), term(3)];

/// `matrix` followed by an AND with `mask`: the rows of the output bits outside the mask
/// cleared (row i is byte 7 - i, see [`super::field::gfni_matrix`]).
const fn masked(matrix: u64, mask: u8) -> u64 {
    let mut m = matrix;
    let mut i = 0;
    while i < 8 {
        if (mask >> i) & 1 == 0 {
            m &= !(0xFF << (8 * (7 - i)));
        }
        i += 1;
    }
    m
}

/// The S-boxes' constants through the mixing: the instructions add none, and the
/// mixing is linear, so G's output is off by the mixing of the constants' word (B1 in
/// the even bytes, B2 in the odd).
/// Per mixing mask `M[t]`: the S1 and S2 matrices with the rows `M[t]` clears dropped,
/// built at compile time. Built on every G call, they were most of a key set-up, which
/// runs G once per round key (a new SEED key plus a 1 KiB ECB call over the call alone:
/// 2,520 → 970 TSC cycles; Xeon family 6 model 207).
const SBOX_MATRICES: [[u64; 2]; 4] = {
    let mut out = [[0; 2]; 4];
    let mut t = 0;
    while t < 4 {
        out[t] = [masked(GFNI_S1, M[t]), masked(GFNI_S2, M[t])];
        t += 1;
    }
    out
};

const FIX: u32 = {
    let (b1, b2) = (B1 as u32, B2 as u32);
    mix(b1 | b2 << 8 | b1 << 16 | b2 << 24)
};

/// G's vector constants, built once per call (public constants, not secrets).
pub(super) struct Consts {
    pub(super) to_aes: V,
    /// Per term t: m_t & S1's linear part (low half), m_t & S2's (high half).
    pub(super) sboxes: [V; 4],
    pub(super) terms: [V; 4],
    pub(super) fix: V,
}

impl Consts {
    /// SSE2 only, so [`super::gfni_avx2`]'s G builds them too.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn new() -> Self {
        let bytes = |b: &[u8; 16]| {
            // SAFETY: 16 readable bytes; loadu has no alignment requirement.
            unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
        };
        let sboxes = SBOX_MATRICES.map(|[s1, s2]| _mm_set_epi64x(s2 as i64, s1 as i64));
        Consts {
            to_aes: _mm_set1_epi64x(GFNI_TO_AES as i64),
            sboxes,
            terms: TERMS.each_ref().map(bytes),
            fix: _mm_set1_epi32(FIX as i32),
        }
    }
}

/// G on a broadcast word (see the module doc).
///
/// The four S-box instructions go two per cycle, so terms 2 and 3 arrive a cycle after
/// terms 0 and 1: the first XOR takes 0 and 1 with the constant and the second the late
/// pair, one step after them (terms 0-2 first, then 3 with the constant, had the late
/// term 3 two steps from the output). Xeon family 6 model 207, 16 KiB, TSC c/B:
/// SEED-OFB 32.6 → 30.8, SEED-CBC encryption 31.4 → 31.2. On this CPU a dependent loop
/// of two GF2P8 operations takes 6 cycles, but of one and a shuffle, logic op or add also
/// 6, not 4: passing values between them costs ~2 cycles a round trip, which every G
/// pays (it starts after an add and ends in logic), so G with the round's add measured
/// ~13.9 cycles in such a loop against ~11 by the instructions' latencies.
#[inline]
#[target_feature(enable = "gfni,avx512f,avx512vl,ssse3,sse4.1")]
fn g(x: V, c: &Consts) -> V {
    let t = to_aes(x, c);
    // Truth table 0x96: A ⊕ B ⊕ C. Each term written where its XOR takes it: with all
    // four first, the late pair's shuffles came ahead of the first `vpternlogd` in
    // program order and SEED-CBC ran 25.8 → 26.3 TSC c/B (Xeon family 6 model 167).
    let a = _mm_ternarylogic_epi32::<0x96>(g_term(t, c, 0), g_term(t, c, 1), c.fix);
    _mm_ternarylogic_epi32::<0x96>(a, g_term(t, c, 2), g_term(t, c, 3))
}

/// G's first step: the word's bytes mapped into AES's field.
///
/// Tried and slower: the map as two nibble lookups (`pshufb`), 4 cycles of G's chain by
/// the instructions' latencies against this operation's 5 on Intel. Xeon family 6 model
/// 167 (2026-12-06, 16 KiB, TSC c/B, best of three alternating runs): SEED-CBC
/// encryption 28.8 → 31.3 (`gfni128`), 32.2 → 36.3 (`gfni128-avx2`).
#[inline]
#[target_feature(enable = "gfni,ssse3")]
pub(super) fn to_aes(x: V, c: &Consts) -> V {
    _mm_gf2p8affine_epi64_epi8::<0>(x, c.to_aes)
}

/// G's term `i` from [`to_aes`]'s output: the S-boxes masked by mixing mask i, then the
/// shuffle that gathers each byte's term. Shared with [`super::gfni_avx2`], which XORs
/// the terms without AVX-512.
#[inline]
#[target_feature(enable = "gfni,ssse3")]
pub(super) fn g_term(t: V, c: &Consts, i: usize) -> V {
    let y = _mm_gf2p8affineinv_epi64_epi8::<0>(t, c.sboxes[i]);
    _mm_shuffle_epi8(y, c.terms[i])
}
