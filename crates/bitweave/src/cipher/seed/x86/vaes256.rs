//! `vaes256`: 8 blocks per ymm register, S-boxes through VAESENCLAST (no GFNI needed).
//!
//! G (`aes_g!`) on two registers of words at a time: their bytes split by S-box kind
//! into two registers (byte shuffles that also undo the ShiftRows VAESENCLAST will
//! apply), map into AES's field (two nibble lookups), VAESENCLAST with a zero round key
//! (AES's inversion and affine map), one S-box's map back per register (two nibble
//! lookups; see [`NibbleMap`]), the mixing as masks and a byte-pair swap, and two byte
//! unpacks back to words: ~25 vector operations per register of words, against ~30 for
//! G on one register alone (a byte blend of both S-boxes' maps and two rotations).

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
