//! `aesni128`: 4 blocks per xmm register, S-boxes through AESENCLAST: `vaes256`'s G at
//! half the width, for CPUs with AES-NI but neither VAES nor GFNI (the batch kernel of
//! the `aesni` tier; the `aesni` backend runs one block at a time, for serial chains).

use super::*;

sse_lanes!("aes,ssse3,sse4.1");

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
    #[target_feature(enable = "aes,ssse3,sse4.1")]
    pub(super) fn new() -> Self {
        let tables = |m: &NibbleMap| [shuffle(&m.lo), shuffle(&m.hi)];
        Consts {
            inv_shift_rows: shuffle(&INV_SHIFT_ROWS),
            low: _mm_set1_epi8(0x0f),
            to_aes: tables(&AES_IN),
            s1: tables(&AES_OUT_S1),
            s2: tables(&AES_OUT_S2),
            odd: _mm_set1_epi16(0xff00u16 as i16),
            mix: MIX_TWO_ROTATIONS.map(|m| set1(m)),
            rotl: [shuffle(&ROTL8), shuffle(&ROTL16)],
        }
    }
}

/// The two nibble lookups of a byte map, on bytes already split into nibbles.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn map(lo: V, hi: V, t: &[V; 2]) -> V {
    xor(_mm_shuffle_epi8(t[0], lo), _mm_shuffle_epi8(t[1], hi))
}

/// A vector's bytes as low and high nibbles.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn nibbles(x: V, low: V) -> (V, V) {
    (
        _mm_and_si128(x, low),
        _mm_and_si128(_mm_srli_epi16::<4>(x), low),
    )
}

/// G on 4 words.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn g(x: V, c: &Consts) -> V {
    let (lo, hi) = nibbles(_mm_shuffle_epi8(x, c.inv_shift_rows), c.low);
    let t = map(lo, hi, &c.to_aes);
    let s = _mm_aesenclast_si128(t, _mm_setzero_si128());
    let (lo, hi) = nibbles(s, c.low);
    let y = _mm_blendv_epi8(map(lo, hi, &c.s1), map(lo, hi, &c.s2), c.odd);
    // The mixing with two rotations (`field::mix_two_rotations`), as `vaes256`.
    let masked = |r: V, m: V| _mm_and_si128(r, m);
    let r = _mm_shuffle_epi8(y, c.rotl[0]);
    let z0 = xor(masked(y, c.mix[0]), masked(r, c.mix[1]));
    let z1 = xor(masked(y, c.mix[2]), masked(r, c.mix[3]));
    xor(z0, _mm_shuffle_epi8(z1, c.rotl[1]))
}

/// One chain of dependent instructions already; nothing shorter to take.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn g_latency(x: V, c: &Consts) -> V {
    g(x, c)
}

seed_core!("aes,ssse3,sse4.1", GROUPS_AESNI128);
