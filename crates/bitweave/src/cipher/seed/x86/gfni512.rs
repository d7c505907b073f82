//! `gfni512`: 16 blocks per zmm register.

use super::*;

type V = __m512i;
const LANES: usize = 16;

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn set1(w: u32) -> V {
    _mm512_set1_epi32(w as i32)
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn xor(a: V, b: V) -> V {
    _mm512_xor_si512(a, b)
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn xor3(a: V, b: V, c: V) -> V {
    // Truth table 0x96: A ⊕ B ⊕ C.
    _mm512_ternarylogic_epi32::<0x96>(a, b, c)
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn add(a: V, b: V) -> V {
    _mm512_add_epi32(a, b)
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn sub(a: V, b: V) -> V {
    _mm512_sub_epi32(a, b)
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn and(a: V, b: V) -> V {
    _mm512_and_si512(a, b)
}

/// All ones in the lanes where `a == b`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn equal(a: V, b: V) -> V {
    _mm512_maskz_mov_epi32(_mm512_cmpeq_epi32_mask(a, b), set1(u32::MAX))
}

/// All ones in the lanes where `a < b`, unsigned.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn below(a: V, b: V) -> V {
    _mm512_maskz_mov_epi32(_mm512_cmplt_epu32_mask(a, b), set1(u32::MAX))
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn lane0(v: V) -> u32 {
    _mm_cvtsi128_si32(_mm512_castsi512_si128(v)) as u32
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn shuffle(idx: &[u8; 16]) -> V {
    // SAFETY: `idx` is 16 readable bytes; loadu has no alignment requirement.
    _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(idx.as_ptr().cast()) })
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn shuffle_bytes(x: V, idx: V) -> V {
    _mm512_shuffle_epi8(x, idx)
}

/// Vector constants of G, built once per call.
pub(super) struct Consts {
    to_aes: V,
    s1: V,
    s2: V,
    mix: [V; 4],
    odd: V,
    rotl8: V,
    rotl24: V,
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,gfni")]
    pub(super) fn new() -> Self {
        Consts {
            to_aes: _mm512_set1_epi64(GFNI_TO_AES as i64),
            s1: _mm512_set1_epi64(GFNI_S1 as i64),
            s2: _mm512_set1_epi64(GFNI_S2 as i64),
            mix: MIX.map(|m| set1(m)),
            odd: _mm512_set1_epi16(0xff00u16 as i16),
            // Two of the three rotations as byte shuffles (port 5) rather than
            // `vprold` (port 0, which the GFNI instructions also need). `black_box`
            // hides the indices so the compiler does not turn them back into
            // rotations; they are public constants.
            rotl8: shuffle(core::hint::black_box(&ROTL8)),
            rotl24: shuffle(core::hint::black_box(&ROTL24)),
        }
    }
}

/// G on 16 words: S-boxes on GFNI, then the masked mixing.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn g(x: V, c: &Consts) -> V {
    let t = _mm512_gf2p8affine_epi64_epi8::<0>(x, c.to_aes);
    let u = _mm512_gf2p8affineinv_epi64_epi8::<{ B1 as i32 }>(t, c.s1);
    let v = _mm512_gf2p8affineinv_epi64_epi8::<{ B2 as i32 }>(t, c.s2);
    // Even bytes S1, odd bytes S2 (the compiler merges this into a masked
    // `gf2p8affineinvqb`).
    let y = _mm512_mask_blend_epi8(0xaaaa_aaaa_aaaa_aaaa, u, v);
    // Truth table 0x6a: (A & B) ⊕ C.
    let z = _mm512_and_si512(y, c.mix[0]);
    let z = _mm512_ternarylogic_epi32::<0x6a>(_mm512_shuffle_epi8(y, c.rotl8), c.mix[1], z);
    let z = _mm512_ternarylogic_epi32::<0x6a>(_mm512_rol_epi32::<16>(y), c.mix[2], z);
    _mm512_ternarylogic_epi32::<0x6a>(_mm512_shuffle_epi8(y, c.rotl24), c.mix[3], z)
}

/// G with a shorter dependency chain for a lone register (one more instruction): the
/// two `gf2p8affineinvqb` run side by side and a select joins them (the compiler
/// would otherwise chain them as a merge-masked pair), and the mixing is a tree of
/// depth three.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn g_latency(x: V, c: &Consts) -> V {
    let t = _mm512_gf2p8affine_epi64_epi8::<0>(x, c.to_aes);
    let u = _mm512_gf2p8affineinv_epi64_epi8::<{ B1 as i32 }>(t, c.s1);
    let v = _mm512_gf2p8affineinv_epi64_epi8::<{ B2 as i32 }>(t, c.s2);
    // Truth table 0xca: A ? B : C (odd bytes from v).
    let y = _mm512_ternarylogic_epi32::<0xca>(c.odd, v, u);
    let a = _mm512_ternarylogic_epi32::<0x6a>(
        _mm512_shuffle_epi8(y, c.rotl8),
        c.mix[1],
        _mm512_and_si512(y, c.mix[0]),
    );
    let b = _mm512_and_si512(_mm512_rol_epi32::<16>(y), c.mix[2]);
    let d = _mm512_and_si512(_mm512_shuffle_epi8(y, c.rotl24), c.mix[3]);
    xor3(a, b, d)
}

/// 4×4 word transpose inside each 128-bit lane (an involution).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn transpose(x: [V; 4]) -> [V; 4] {
    let t0 = _mm512_unpacklo_epi32(x[0], x[1]);
    let t1 = _mm512_unpackhi_epi32(x[0], x[1]);
    let t2 = _mm512_unpacklo_epi32(x[2], x[3]);
    let t3 = _mm512_unpackhi_epi32(x[2], x[3]);
    [
        _mm512_unpacklo_epi64(t0, t2),
        _mm512_unpackhi_epi64(t0, t2),
        _mm512_unpacklo_epi64(t1, t3),
        _mm512_unpackhi_epi64(t1, t3),
    ]
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn loadu(p: *const u8) -> V {
    // SAFETY: the caller guarantees 64 readable bytes at `p`.
    unsafe { _mm512_loadu_si512(p.cast()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn storeu(p: *mut u8, v: V) {
    // SAFETY: the caller guarantees 64 writable bytes at `p`.
    unsafe { _mm512_storeu_si512(p.cast(), v) }
}

/// The blocks one before `x`'s: `last`'s highest block, then `x`'s three lower ones.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn shift_in(last: V, x: V) -> V {
    _mm512_alignr_epi64::<6>(x, last)
}

/// One block in every block position.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn broadcast_block(p: *const u8) -> V {
    // SAFETY: the caller guarantees 16 readable bytes at `p`.
    _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(p.cast()) })
}

g_each!("avx512f,avx512bw,gfni");

seed_core!("avx512f,avx512bw,gfni", GROUPS_512);
