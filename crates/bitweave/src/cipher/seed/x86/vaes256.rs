//! `vaes256`: 8 blocks per ymm register, S-boxes through VAESENCLAST (no GFNI needed).
//!
//! Per G, on 32 bytes: undo the ShiftRows that AESENCLAST will apply (one byte shuffle),
//! map into AES's field (two nibble lookups), VAESENCLAST with a zero round key (AES's
//! inversion and affine map), then each S-box's map back (two nibble lookups per S-box
//! kind; see [`NibbleMap`]), the same byte blend as `gfni256`, and its mixing with one
//! rotation fewer.

use super::*;

avx2_lanes!("avx2,aes,vaes");

aes_g!(
    "avx2,aes,vaes",
    shuffle: _mm256_shuffle_epi8,
    and: _mm256_and_si256,
    or: _mm256_or_si256,
    srli4: _mm256_srli_epi16::<4>,
    aesenclast: _mm256_aesenclast_epi128,
    zero: _mm256_setzero_si256,
    blendv: _mm256_blendv_epi8,
    unpacklo8: _mm256_unpacklo_epi8,
    unpackhi8: _mm256_unpackhi_epi8,
    set1_8: _mm256_set1_epi8,
    set1_16: _mm256_set1_epi16,
    reg: ymm_reg,
);

seed_core!("avx2,aes,vaes", GROUPS_VAES256);
