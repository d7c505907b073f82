//! `aesni128`: 4 blocks per xmm register, S-boxes through AESENCLAST: `vaes256`'s G at
//! half the width, for CPUs with AES-NI but neither VAES nor GFNI (the batch kernel of
//! the `aesni` tier; the `aesni` backend runs one block at a time, for serial chains).

use super::*;

sse_lanes!("aes,ssse3,sse4.1");

aes_g!(
    "aes,ssse3,sse4.1",
    shuffle: _mm_shuffle_epi8,
    and: _mm_and_si128,
    or: _mm_or_si128,
    srli4: _mm_srli_epi16::<4>,
    aesenclast: _mm_aesenclast_si128,
    zero: _mm_setzero_si128,
    blendv: _mm_blendv_epi8,
    unpacklo8: _mm_unpacklo_epi8,
    unpackhi8: _mm_unpackhi_epi8,
    set1_8: _mm_set1_epi8,
    set1_16: _mm_set1_epi16,
    reg: xmm_reg,
);

seed_core!("aes,ssse3,sse4.1", GROUPS_AESNI128);
