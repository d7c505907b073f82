//! `vaes256`: 8 blocks per ymm register, S-boxes through VAESENCLAST (no GFNI needed).
//!
//! Per G, on 32 bytes: undo the ShiftRows that AESENCLAST will apply (one byte shuffle),
//! map into AES's field (two nibble lookups), VAESENCLAST with a zero round key (AES's
//! inversion and affine map), then each S-box's map back (two nibble lookups per S-box
//! kind; see [`NibbleMap`]), the same byte blend as `gfni256`, and its mixing with one
//! rotation fewer.

use super::*;

avx2_lanes!("avx2,aes,vaes");

/// Vector constants of G, built once per call.
pub(super) struct Consts {
    inv_shift_rows: V,
    low: V,
    to_aes: [V; 2],
    s1: [V; 2],
    s2: [V; 2],
    odd: V,
    mix: [V; 4],
    rotl: [V; 2],
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx2,aes,vaes")]
    pub(super) fn new() -> Self {
        let tables = |m: &NibbleMap| [shuffle(&m.lo), shuffle(&m.hi)];
        Consts {
            inv_shift_rows: shuffle(&INV_SHIFT_ROWS),
            low: _mm256_set1_epi8(0x0f),
            to_aes: tables(&AES_IN),
            s1: tables(&AES_OUT_S1),
            s2: tables(&AES_OUT_S2),
            odd: _mm256_set1_epi16(0xff00u16 as i16),
            mix: MIX_TWO_ROTATIONS.map(|m| set1(m)),
            rotl: [shuffle(&ROTL8), shuffle(&ROTL16)],
        }
    }
}

/// The two nibble lookups of a byte map, on bytes already split into nibbles.
#[inline]
#[target_feature(enable = "avx2,aes,vaes")]
fn map(lo: V, hi: V, t: &[V; 2]) -> V {
    xor(_mm256_shuffle_epi8(t[0], lo), _mm256_shuffle_epi8(t[1], hi))
}

/// A vector's bytes as low and high nibbles.
#[inline]
#[target_feature(enable = "avx2,aes,vaes")]
fn nibbles(x: V, low: V) -> (V, V) {
    (
        _mm256_and_si256(x, low),
        _mm256_and_si256(_mm256_srli_epi16::<4>(x), low),
    )
}

/// G on 8 words.
#[inline]
#[target_feature(enable = "avx2,aes,vaes")]
fn g(x: V, c: &Consts) -> V {
    let (lo, hi) = nibbles(_mm256_shuffle_epi8(x, c.inv_shift_rows), c.low);
    let t = map(lo, hi, &c.to_aes);
    let s = _mm256_aesenclast_epi128(t, _mm256_setzero_si256());
    let (lo, hi) = nibbles(s, c.low);
    let y = _mm256_blendv_epi8(map(lo, hi, &c.s1), map(lo, hi, &c.s2), c.odd);
    // The mixing with two rotations (`field::mix_two_rotations`): the byte shuffles are
    // this kernel's busiest pipe.
    let masked = |r: V, m: V| _mm256_and_si256(r, m);
    let r = _mm256_shuffle_epi8(y, c.rotl[0]);
    let z0 = xor(masked(y, c.mix[0]), masked(r, c.mix[1]));
    let z1 = xor(masked(y, c.mix[2]), masked(r, c.mix[3]));
    xor(z0, _mm256_shuffle_epi8(z1, c.rotl[1]))
}

/// One chain of dependent instructions already; nothing shorter to take.
#[inline]
#[target_feature(enable = "avx2,aes,vaes")]
fn g_latency(x: V, c: &Consts) -> V {
    g(x, c)
}

seed_core!("avx2,aes,vaes", GROUPS_VAES256);
