//! `gfni256`: 8 blocks per ymm register, S-boxes on GFNI.

use super::*;

avx2_lanes!("avx2,gfni");

/// Vector constants of G, built once per call.
pub(super) struct Consts {
    to_aes: V,
    s1: V,
    s2: V,
    odd: V,
    mix: [V; 4],
    rotl: [V; 2],
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx2,gfni")]
    pub(super) fn new() -> Self {
        Consts {
            to_aes: _mm256_set1_epi64x(GFNI_TO_AES as i64),
            s1: _mm256_set1_epi64x(GFNI_S1 as i64),
            s2: _mm256_set1_epi64x(GFNI_S2 as i64),
            odd: _mm256_set1_epi16(0xff00u16 as i16),
            mix: MIX_TWO_ROTATIONS.map(|m| set1(m)),
            rotl: [shuffle(&ROTL8), shuffle(&ROTL16)],
        }
    }
}

/// G on 8 words: S-boxes on GFNI, then the masked mixing (rotations as byte shuffles).
#[inline]
#[target_feature(enable = "avx2,gfni")]
fn g(x: V, c: &Consts) -> V {
    let t = _mm256_gf2p8affine_epi64_epi8::<0>(x, c.to_aes);
    let u = _mm256_gf2p8affineinv_epi64_epi8::<{ B1 as i32 }>(t, c.s1);
    let v = _mm256_gf2p8affineinv_epi64_epi8::<{ B2 as i32 }>(t, c.s2);
    // Even bytes S1, odd bytes S2 (blendv takes the second operand where the mask
    // byte's top bit is set).
    let y = _mm256_blendv_epi8(u, v, c.odd);
    // The mixing with two rotations (`field::mix_two_rotations`).
    let masked = |r: V, m: V| _mm256_and_si256(r, m);
    let r = _mm256_shuffle_epi8(y, c.rotl[0]);
    let z0 = xor(masked(y, c.mix[0]), masked(r, c.mix[1]));
    let z1 = xor(masked(y, c.mix[2]), masked(r, c.mix[3]));
    xor(z0, _mm256_shuffle_epi8(z1, c.rotl[1]))
}

/// On AVX2 the two `gf2p8affineinvqb` already run side by side.
#[inline]
#[target_feature(enable = "avx2,gfni")]
fn g_latency(x: V, c: &Consts) -> V {
    g(x, c)
}

g_each!("avx2,gfni");

seed_core!("avx2,gfni", GROUPS_256);
