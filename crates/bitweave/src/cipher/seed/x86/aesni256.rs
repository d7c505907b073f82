//! `aesni256`: 8 blocks per ymm register for CPUs with AVX2 and AES-NI but neither VAES
//! nor GFNI (Intel Haswell to Cascade Lake, AMD Zen 1 and 2): `vaes256`'s G, with
//! AESENCLAST run on each 128-bit half, since AES-NI only has xmm forms. The split costs
//! three operations per G (an extract, a second AESENCLAST, an insert) against `aesni128`
//! doing the whole G twice for the same eight blocks.

use super::*;

avx2_lanes!("avx2,aes");

/// AESENCLAST on both 128-bit halves of a ymm register.
#[inline]
#[target_feature(enable = "avx2,aes")]
fn aesenclast_halves(x: V, key: V) -> V {
    let lo = _mm_aesenclast_si128(_mm256_castsi256_si128(x), _mm256_castsi256_si128(key));
    let hi = _mm_aesenclast_si128(
        _mm256_extracti128_si256::<1>(x),
        _mm256_extracti128_si256::<1>(key),
    );
    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
}

aes_g!(
    "avx2,aes",
    shuffle: _mm256_shuffle_epi8,
    and: _mm256_and_si256,
    or: _mm256_or_si256,
    srli4: _mm256_srli_epi16::<4>,
    aesenclast: aesenclast_halves,
    zero: _mm256_setzero_si256,
    blendv: _mm256_blendv_epi8,
    unpacklo8: _mm256_unpacklo_epi8,
    unpackhi8: _mm256_unpackhi_epi8,
    set1_8: _mm256_set1_epi8,
    set1_16: _mm256_set1_epi16,
    reg: ymm_reg,
);

seed_core!("avx2,aes", GROUPS_AESNI256);
