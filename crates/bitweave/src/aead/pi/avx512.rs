//! The AVX-512 block kernel: many full triplex steps of one message (one common internal
//! state, consecutive counters) with the whole step — counter, both π, data, tag — in
//! registers. One zmm holds one state word of 512/w blocks (8 for π64, 16 for π32, 32 for
//! π16), so no lane is wasted whatever the word size.
//!
//! Exact savings over the plain π, all algebra (PI-CIPHER.md §3):
//! - **ν reuse.** A state chunk is only ever read through ν (E1's `*` takes it as right
//!   operand), and E2 computes ν(I3), ν(I2), ν(I1) to chain its own `*`. So the next round,
//!   and the next π of the same block (whose capacity chunks I1, I3 pass unchanged), reuse
//!   them: 24 + 25 μ/ν halves per block instead of 66.
//! - **Constants folded into offsets.** μ adds a constant to a sum of three inputs; since 3
//!   is invertible mod 2^w there are offsets δ with δ_a + δ_b + δ_c equal to each constant.
//!   Where a `*` operand is itself a sum with a constant (J0 = μ(C)σ…, I3 = …σν(C')), the
//!   offsets ride in that constant for free and the next μ/ν skips its four constant adds.
//! - **Lane-invariant halves.** Every block of a message starts from the same state, so
//!   ν of chunks I1..I3 of the first π is computed once per call.
//! - Three-input XORs are one `vpternlog`; rotations are `vprold`/`vprolq`, and `vpshldw`
//!   (VBMI2) for 16-bit words.
//!
//! Blocks enter and leave through an in-register transpose (24 shuffles per 8 registers,
//! no gathers): block `l` of a batch sits in lane `IDX[l]`, which only the counters and the
//! final tag sum need to know.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::engine::{ABSORB, DECRYPT, ENCRYPT};
use super::lanes::{mu_words, nu_words};
use super::layout::STATE_WORDS;
use super::word::{limbs, Word};

type Z = __m512i;
type Chunk = [Z; 4];

/// A word size on zmm registers.
///
/// # Safety
/// Every `unsafe fn` here needs AVX-512 F/BW/VL/VBMI2 (see [`super::x86::has_avx512`]).
#[allow(clippy::missing_safety_doc)] // one contract for all methods, stated above
pub trait W512: Word {
    /// Blocks per batch: lanes of one zmm.
    const L: usize;
    /// Multiplicative inverse of 3 mod 2^w (for the constant offsets).
    const INV3: Self;
    fn mul(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    unsafe fn splat(w: Self) -> Z;
    unsafe fn vadd(a: Z, b: Z) -> Z;
    unsafe fn rot_mu(s: Chunk) -> Chunk;
    unsafe fn rot_nu(s: Chunk) -> Chunk;
    /// 8 registers of memory order (batch blocks back to back) to word-sliced order.
    unsafe fn to_sliced(r: [Z; 8]) -> [Z; 8];
    /// The inverse of [`to_sliced`](Self::to_sliced).
    unsafe fn from_sliced(v: [Z; 8]) -> [Z; 8];
    /// The counter limbs of blocks `base + IDX[lane]`, lane-sliced; `idx` is the word-0
    /// register of [`to_sliced`](Self::to_sliced) applied to block numbers.
    unsafe fn counters(base: u64, idx: Z) -> [Z; 4];
    /// The sum of all lanes.
    unsafe fn hsum(v: Z) -> Self;
}

#[inline(always)]
unsafe fn xor3(a: Z, b: Z, c: Z) -> Z {
    _mm512_ternarylogic_epi64::<0x96>(a, b, c)
}

/// The shared tail of μ and ν: each output word is the XOR of three rotated sums.
#[inline(always)]
unsafe fn mix(s: Chunk, nu: bool) -> Chunk {
    if nu {
        [
            xor3(s[1], s[2], s[3]),
            xor3(s[0], s[2], s[3]),
            xor3(s[0], s[1], s[3]),
            xor3(s[0], s[1], s[2]),
        ]
    } else {
        [
            xor3(s[0], s[1], s[3]),
            xor3(s[0], s[1], s[2]),
            xor3(s[1], s[2], s[3]),
            xor3(s[0], s[2], s[3]),
        ]
    }
}

/// μ; `C == false` when the input already carries the offsets δ.
#[inline(always)]
unsafe fn mu<W: W512, const C: bool>(x: Chunk) -> Chunk {
    let x01 = W::vadd(x[0], x[1]);
    let x23 = W::vadd(x[2], x[3]);
    let mut s = [
        W::vadd(x01, x[2]),
        W::vadd(x01, x[3]),
        W::vadd(x[0], x23),
        W::vadd(x[1], x23),
    ];
    if C {
        for (k, sk) in s.iter_mut().enumerate() {
            *sk = W::vadd(*sk, W::splat(W::C_MU[k]));
        }
    }
    mix(W::rot_mu(s), false)
}

/// ν; `C == false` when the input already carries the offsets ε.
#[inline(always)]
unsafe fn nu<W: W512, const C: bool>(y: Chunk) -> Chunk {
    let y01 = W::vadd(y[0], y[1]);
    let y23 = W::vadd(y[2], y[3]);
    let mut t = [
        W::vadd(y[0], y23),
        W::vadd(y[1], y23),
        W::vadd(y01, y[2]),
        W::vadd(y01, y[3]),
    ];
    if C {
        for (k, tk) in t.iter_mut().enumerate() {
            *tk = W::vadd(*tk, W::splat(W::C_NU[k]));
        }
    }
    mix(W::rot_nu(t), true)
}

/// σ(a, b): word-wise sums, positions rotated left by one.
#[inline(always)]
unsafe fn sigma<W: W512>(a: Chunk, b: Chunk) -> Chunk {
    [
        W::vadd(a[1], b[1]),
        W::vadd(a[2], b[2]),
        W::vadd(a[3], b[3]),
        W::vadd(a[0], b[0]),
    ]
}

/// σ(a, constant) with the constant's positions already rotated.
#[inline(always)]
unsafe fn sigma_k<W: W512>(a: Chunk, k: &[W; 4]) -> Chunk {
    [
        W::vadd(a[1], W::splat(k[0])),
        W::vadd(a[2], W::splat(k[1])),
        W::vadd(a[3], W::splat(k[2])),
        W::vadd(a[0], W::splat(k[3])),
    ]
}

/// Per-round constants: `j0[r]` = σ(μ(C_r), ·)'s constant plus δ (so μ(J0) needs none),
/// `i3[r]` = σ(·, ν(C'_r))'s constant plus ε (so ν(I3) needs none), both position-rotated.
pub struct Keys<W> {
    j0: [[W; 4]; 3],
    i3: [[W; 4]; 3],
}

/// δ (for μ) or ε (for ν): offsets whose three-term sums are the half's constants.
fn offsets<W: W512>(c: [W; 4], nu: bool) -> [W; 4] {
    let s = c[0].add(c[1]).add(c[2]).add(c[3]).mul(W::INV3);
    // Word k of the offsets is the sum minus the constant of the term that leaves k out.
    if nu {
        // t0 omits y1, t1 omits y0, t2 omits y3, t3 omits y2.
        [s.sub(c[1]), s.sub(c[0]), s.sub(c[3]), s.sub(c[2])]
    } else {
        // s0 omits x3, s1 omits x2, s2 omits x1, s3 omits x0.
        [s.sub(c[3]), s.sub(c[2]), s.sub(c[1]), s.sub(c[0])]
    }
}

impl<W: W512> Keys<W> {
    pub fn new() -> Self {
        let delta = offsets::<W>(W::C_MU, false);
        let eps = offsets::<W>(W::C_NU, true);
        let rc = |r: usize, o: usize| -> [W; 4] { core::array::from_fn(|i| W::RC[8 * r + o + i]) };
        let rot = |v: [W; 4], off: [W; 4]| -> [W; 4] {
            core::array::from_fn(|i| v[(i + 1) % 4].add(off[i]))
        };
        Keys {
            j0: core::array::from_fn(|r| rot(mu_words(rc(r, 0)), delta)),
            i3: core::array::from_fn(|r| rot(nu_words(rc(r, 4)), eps)),
        }
    }
}

impl<W: W512> Default for Keys<W> {
    fn default() -> Self {
        Self::new()
    }
}

/// What π returns: the rate chunks raw, the capacity chunks as ν images (all a later π
/// reads of them).
struct PiOut {
    i0: Chunk,
    i2: Chunk,
    n1: Chunk,
    n3: Chunk,
}

/// π from the ν images of its four input chunks.
#[inline(always)]
unsafe fn pi<W: W512>(k: &Keys<W>, mut nx: [Chunk; 4]) -> PiOut {
    let mut r = 0;
    loop {
        let j0 = sigma_k::<W>(nx[0], &k.j0[r]);
        let m0 = mu::<W, false>(j0);
        let m1 = mu::<W, true>(sigma::<W>(m0, nx[1]));
        let m2 = mu::<W, true>(sigma::<W>(m1, nx[2]));
        let m3 = mu::<W, true>(sigma::<W>(m2, nx[3]));
        let n3 = nu::<W, false>(sigma_k::<W>(m3, &k.i3[r]));
        let i2 = sigma::<W>(m2, n3);
        let n2 = nu::<W, true>(i2);
        let i1 = sigma::<W>(m1, n2);
        let n1 = nu::<W, true>(i1);
        let i0 = sigma::<W>(m0, n1);
        r += 1;
        if r == 3 {
            return PiOut { i0, i2, n1, n3 };
        }
        nx = [nu::<W, true>(i0), n1, n2, n3];
    }
}

/// ν of chunk `c` of a scalar state, as words.
fn nu_chunk<W: Word>(s: &[W; STATE_WORDS], c: usize) -> [W; 4] {
    nu_words([s[4 * c], s[4 * c + 1], s[4 * c + 2], s[4 * c + 3]])
}

/// Runs `data.len() / (L × rate)` batches of full blocks of one message: block `b` uses
/// counter `ctr + b` on the common internal state `cis`. `MODE` is [`ABSORB`] (AD: no
/// output), [`ENCRYPT`] or [`DECRYPT`] (`out` as long as `data`). The rate words of every
/// block's second π are added into `tag`.
///
/// # Safety
/// AVX-512 F/BW/VL/VBMI2 (see [`super::x86::has_avx512`]).
#[inline(always)]
pub unsafe fn blocks<W: W512, const MODE: u8>(
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) {
    const BATCH: usize = 512;
    let n = data.len() / BATCH;
    assert!(MODE == ABSORB || out.len() >= n * BATCH);
    let keys = Keys::<W>::new();
    // Lane-invariant: ν of chunks I1..I3 of the first π, chunk I0 before the counter.
    let nc: [Chunk; 3] = core::array::from_fn(|c| nu_chunk(cis, c + 1).map(|w| W::splat(w)));
    let c0: Chunk = core::array::from_fn(|i| W::splat(cis[i]));
    // Block numbers through the same transpose: which lane holds which block.
    let mut numbers = [0u8; BATCH];
    for l in 0..W::L {
        numbers[l * 8 * W::BYTES] = l as u8;
    }
    let idx = W::to_sliced(load8(numbers.as_ptr()))[0];
    let mut acc = [_mm512_setzero_si512(); 8];
    let lim = limbs::<W>();
    for b in 0..n {
        let base = ctr.wrapping_add((b * W::L) as u64);
        let limb = W::counters(base, idx);
        let x0: Chunk = core::array::from_fn(|i| {
            if i < lim {
                _mm512_xor_si512(c0[i], limb[i])
            } else {
                c0[i]
            }
        });
        let p1 = pi::<W>(&keys, [nu::<W, true>(x0), nc[0], nc[1], nc[2]]);
        let d = W::to_sliced(load8(data.as_ptr().add(b * BATCH)));
        let ks = [p1.i0, p1.i2];
        let mut rate = [[_mm512_setzero_si512(); 4]; 2];
        let mut o = [_mm512_setzero_si512(); 8];
        for h in 0..2 {
            for i in 0..4 {
                let x = _mm512_xor_si512(ks[h][i], d[4 * h + i]);
                o[4 * h + i] = x;
                rate[h][i] = if MODE == DECRYPT { d[4 * h + i] } else { x };
            }
        }
        if MODE != ABSORB {
            store8(out.as_mut_ptr().add(b * BATCH), W::from_sliced(o));
        }
        let p2 = pi::<W>(
            &keys,
            [nu::<W, true>(rate[0]), p1.n1, nu::<W, true>(rate[1]), p1.n3],
        );
        for i in 0..4 {
            acc[i] = W::vadd(acc[i], p2.i0[i]);
            acc[4 + i] = W::vadd(acc[4 + i], p2.i2[i]);
        }
    }
    for (t, a) in tag.iter_mut().zip(acc) {
        *t = t.add(W::hsum(a));
    }
}

#[inline(always)]
unsafe fn load8(p: *const u8) -> [Z; 8] {
    core::array::from_fn(|r| _mm512_loadu_si512(p.add(64 * r) as *const Z))
}

#[inline(always)]
unsafe fn store8(p: *mut u8, v: [Z; 8]) {
    for (r, x) in v.into_iter().enumerate() {
        _mm512_storeu_si512(p.add(64 * r) as *mut Z, x);
    }
}

/// Lane sum through memory (once per call, not per block).
#[inline(always)]
unsafe fn hsum_words<W: Word, const L: usize>(v: Z) -> W {
    let mut b = [0u8; 64];
    _mm512_storeu_si512(b.as_mut_ptr() as *mut Z, v);
    (0..L).fold(W::default(), |a, l| a.add(W::load_le(&b[l * W::BYTES..])))
}

// ---- 64-bit words: 8 blocks of 64 bytes, a plain 8×8 transpose. ----

#[inline(always)]
unsafe fn transpose_q8(r: [Z; 8]) -> [Z; 8] {
    let t0 = _mm512_unpacklo_epi64(r[0], r[1]);
    let t1 = _mm512_unpackhi_epi64(r[0], r[1]);
    let t2 = _mm512_unpacklo_epi64(r[2], r[3]);
    let t3 = _mm512_unpackhi_epi64(r[2], r[3]);
    let t4 = _mm512_unpacklo_epi64(r[4], r[5]);
    let t5 = _mm512_unpackhi_epi64(r[4], r[5]);
    let t6 = _mm512_unpacklo_epi64(r[6], r[7]);
    let t7 = _mm512_unpackhi_epi64(r[6], r[7]);
    let u0 = _mm512_shuffle_i64x2::<0x88>(t0, t2);
    let u1 = _mm512_shuffle_i64x2::<0xDD>(t0, t2);
    let u2 = _mm512_shuffle_i64x2::<0x88>(t1, t3);
    let u3 = _mm512_shuffle_i64x2::<0xDD>(t1, t3);
    let u4 = _mm512_shuffle_i64x2::<0x88>(t4, t6);
    let u5 = _mm512_shuffle_i64x2::<0xDD>(t4, t6);
    let u6 = _mm512_shuffle_i64x2::<0x88>(t5, t7);
    let u7 = _mm512_shuffle_i64x2::<0xDD>(t5, t7);
    [
        _mm512_shuffle_i64x2::<0x88>(u0, u4),
        _mm512_shuffle_i64x2::<0x88>(u2, u6),
        _mm512_shuffle_i64x2::<0x88>(u1, u5),
        _mm512_shuffle_i64x2::<0x88>(u3, u7),
        _mm512_shuffle_i64x2::<0xDD>(u0, u4),
        _mm512_shuffle_i64x2::<0xDD>(u2, u6),
        _mm512_shuffle_i64x2::<0xDD>(u1, u5),
        _mm512_shuffle_i64x2::<0xDD>(u3, u7),
    ]
}

impl W512 for u64 {
    const L: usize = 8;
    const INV3: u64 = 0xAAAA_AAAA_AAAA_AAAB;
    fn mul(self, o: Self) -> Self {
        self.wrapping_mul(o)
    }
    fn sub(self, o: Self) -> Self {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    unsafe fn splat(w: Self) -> Z {
        _mm512_set1_epi64(w as i64)
    }
    #[inline(always)]
    unsafe fn vadd(a: Z, b: Z) -> Z {
        _mm512_add_epi64(a, b)
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        [
            _mm512_rol_epi64::<7>(s[0]),
            _mm512_rol_epi64::<19>(s[1]),
            _mm512_rol_epi64::<31>(s[2]),
            _mm512_rol_epi64::<53>(s[3]),
        ]
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        [
            _mm512_rol_epi64::<11>(s[0]),
            _mm512_rol_epi64::<23>(s[1]),
            _mm512_rol_epi64::<37>(s[2]),
            _mm512_rol_epi64::<59>(s[3]),
        ]
    }
    #[inline(always)]
    unsafe fn to_sliced(r: [Z; 8]) -> [Z; 8] {
        transpose_q8(r)
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Z; 8]) -> [Z; 8] {
        transpose_q8(v)
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Z) -> [Z; 4] {
        let c = _mm512_add_epi64(_mm512_set1_epi64(base as i64), idx);
        [c, c, c, c]
    }
    #[inline(always)]
    unsafe fn hsum(v: Z) -> Self {
        hsum_words::<u64, 8>(v)
    }
}

// ---- 32-bit words: 16 blocks of 32 bytes, two blocks per register. ----

/// 4×4 transpose of 32-bit elements inside each 128-bit lane (its own inverse).
#[inline(always)]
unsafe fn transpose_d4(r: [Z; 4]) -> [Z; 4] {
    let a0 = _mm512_unpacklo_epi32(r[0], r[1]);
    let a1 = _mm512_unpackhi_epi32(r[0], r[1]);
    let a2 = _mm512_unpacklo_epi32(r[2], r[3]);
    let a3 = _mm512_unpackhi_epi32(r[2], r[3]);
    [
        _mm512_unpacklo_epi64(a0, a2),
        _mm512_unpackhi_epi64(a0, a2),
        _mm512_unpacklo_epi64(a1, a3),
        _mm512_unpackhi_epi64(a1, a3),
    ]
}

impl W512 for u32 {
    const L: usize = 16;
    const INV3: u32 = 0xAAAA_AAAB;
    fn mul(self, o: Self) -> Self {
        self.wrapping_mul(o)
    }
    fn sub(self, o: Self) -> Self {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    unsafe fn splat(w: Self) -> Z {
        _mm512_set1_epi32(w as i32)
    }
    #[inline(always)]
    unsafe fn vadd(a: Z, b: Z) -> Z {
        _mm512_add_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        [
            _mm512_rol_epi32::<5>(s[0]),
            _mm512_rol_epi32::<11>(s[1]),
            _mm512_rol_epi32::<17>(s[2]),
            _mm512_rol_epi32::<23>(s[3]),
        ]
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        [
            _mm512_rol_epi32::<3>(s[0]),
            _mm512_rol_epi32::<10>(s[1]),
            _mm512_rol_epi32::<19>(s[2]),
            _mm512_rol_epi32::<29>(s[3]),
        ]
    }
    /// Row r holds blocks 2r, 2r+1; lane j of a 4×4-transposed group of rows holds word
    /// `4(j&1) + i` of blocks `2r + (j>>1)`; one 128-bit shuffle then gathers word i.
    #[inline(always)]
    unsafe fn to_sliced(r: [Z; 8]) -> [Z; 8] {
        let o = transpose_d4([r[0], r[1], r[2], r[3]]);
        let p = transpose_d4([r[4], r[5], r[6], r[7]]);
        let lo = |i: usize| _mm512_shuffle_i64x2::<0x88>(o[i], p[i]);
        let hi = |i: usize| _mm512_shuffle_i64x2::<0xDD>(o[i], p[i]);
        [lo(0), lo(1), lo(2), lo(3), hi(0), hi(1), hi(2), hi(3)]
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Z; 8]) -> [Z; 8] {
        let lo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
        let hi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
        let o: [Z; 4] = core::array::from_fn(|i| _mm512_permutex2var_epi64(v[i], lo, v[4 + i]));
        let p: [Z; 4] = core::array::from_fn(|i| _mm512_permutex2var_epi64(v[i], hi, v[4 + i]));
        let a = transpose_d4(o);
        let b = transpose_d4(p);
        [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Z) -> [Z; 4] {
        let lo = _mm512_add_epi32(_mm512_set1_epi32(base as u32 as i32), idx);
        // The low limb wrapped where it came out below the lane's offset.
        let carry = _mm512_cmplt_epu32_mask(lo, idx);
        let hi = _mm512_set1_epi32((base >> 32) as u32 as i32);
        let hi = _mm512_mask_add_epi32(hi, carry, hi, _mm512_set1_epi32(1));
        [lo, hi, hi, hi]
    }
    #[inline(always)]
    unsafe fn hsum(v: Z) -> Self {
        hsum_words::<u32, 16>(v)
    }
}

// ---- 16-bit words: 32 blocks of 16 bytes, one block per 128-bit lane. ----

impl W512 for u16 {
    const L: usize = 32;
    const INV3: u16 = 0xAAAB;
    fn mul(self, o: Self) -> Self {
        self.wrapping_mul(o)
    }
    fn sub(self, o: Self) -> Self {
        self.wrapping_sub(o)
    }
    #[inline(always)]
    unsafe fn splat(w: Self) -> Z {
        _mm512_set1_epi16(w as i16)
    }
    #[inline(always)]
    unsafe fn vadd(a: Z, b: Z) -> Z {
        _mm512_add_epi16(a, b)
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        [
            _mm512_shldi_epi16::<1>(s[0], s[0]),
            _mm512_shldi_epi16::<4>(s[1], s[1]),
            _mm512_shldi_epi16::<9>(s[2], s[2]),
            _mm512_shldi_epi16::<11>(s[3], s[3]),
        ]
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        [
            _mm512_shldi_epi16::<2>(s[0], s[0]),
            _mm512_shldi_epi16::<5>(s[1], s[1]),
            _mm512_shldi_epi16::<7>(s[2], s[2]),
            _mm512_shldi_epi16::<13>(s[3], s[3]),
        ]
    }
    /// An 8×8 transpose of 16-bit elements inside each 128-bit lane (its own inverse):
    /// word k of block 4i + j lands in lane j, element i of register k.
    #[inline(always)]
    unsafe fn to_sliced(r: [Z; 8]) -> [Z; 8] {
        transpose_w8(r)
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Z; 8]) -> [Z; 8] {
        transpose_w8(v)
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Z) -> [Z; 4] {
        let one = _mm512_set1_epi16(1);
        let zero = _mm512_setzero_si512();
        let l0 = _mm512_add_epi16(_mm512_set1_epi16(base as u16 as i16), idx);
        let c0 = _mm512_cmplt_epu16_mask(l0, idx);
        let b = |i: u32| _mm512_set1_epi16((base >> (16 * i)) as u16 as i16);
        let l1 = _mm512_mask_add_epi16(b(1), c0, b(1), one);
        let c1 = c0 & _mm512_cmpeq_epi16_mask(l1, zero);
        let l2 = _mm512_mask_add_epi16(b(2), c1, b(2), one);
        let c2 = c1 & _mm512_cmpeq_epi16_mask(l2, zero);
        let l3 = _mm512_mask_add_epi16(b(3), c2, b(3), one);
        [l0, l1, l2, l3]
    }
    #[inline(always)]
    unsafe fn hsum(v: Z) -> Self {
        hsum_words::<u16, 32>(v)
    }
}

#[inline(always)]
unsafe fn transpose_w8(r: [Z; 8]) -> [Z; 8] {
    let a0 = _mm512_unpacklo_epi16(r[0], r[1]);
    let a1 = _mm512_unpackhi_epi16(r[0], r[1]);
    let a2 = _mm512_unpacklo_epi16(r[2], r[3]);
    let a3 = _mm512_unpackhi_epi16(r[2], r[3]);
    let a4 = _mm512_unpacklo_epi16(r[4], r[5]);
    let a5 = _mm512_unpackhi_epi16(r[4], r[5]);
    let a6 = _mm512_unpacklo_epi16(r[6], r[7]);
    let a7 = _mm512_unpackhi_epi16(r[6], r[7]);
    let b0 = _mm512_unpacklo_epi32(a0, a2);
    let b1 = _mm512_unpackhi_epi32(a0, a2);
    let b2 = _mm512_unpacklo_epi32(a1, a3);
    let b3 = _mm512_unpackhi_epi32(a1, a3);
    let b4 = _mm512_unpacklo_epi32(a4, a6);
    let b5 = _mm512_unpackhi_epi32(a4, a6);
    let b6 = _mm512_unpacklo_epi32(a5, a7);
    let b7 = _mm512_unpackhi_epi32(a5, a7);
    [
        _mm512_unpacklo_epi64(b0, b4),
        _mm512_unpackhi_epi64(b0, b4),
        _mm512_unpacklo_epi64(b1, b5),
        _mm512_unpackhi_epi64(b1, b5),
        _mm512_unpacklo_epi64(b2, b6),
        _mm512_unpackhi_epi64(b2, b6),
        _mm512_unpacklo_epi64(b3, b7),
        _mm512_unpackhi_epi64(b3, b7),
    ]
}

/// [`blocks`] compiled for AVX-512, one instance per word size and mode.
///
/// # Safety
/// AVX-512 F/BW/VL/VBMI2 (see [`super::x86::has_avx512`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
unsafe fn blocks_avx512<W: W512, const MODE: u8>(
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) {
    blocks::<W, MODE>(cis, ctr, data, out, tag)
}

/// Safe entry: full batches of one message (`data.len()` a multiple of `L` blocks; see
/// [`blocks`]). Panics if the CPU lacks the features (selection never hands it out then).
pub fn run_blocks<W: W512>(
    mode: u8,
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) {
    assert!(
        super::x86::has_avx512(),
        "AVX-512 kernel called on a CPU without AVX-512"
    );
    // SAFETY: has_avx512() (cpu::has_all for avx512f, avx512bw, avx512vl and avx512vbmi2,
    // never more than the CPU has) just returned true, the only requirement of `blocks_avx512`.
    unsafe {
        match mode {
            ABSORB => blocks_avx512::<W, ABSORB>(cis, ctr, data, out, tag),
            ENCRYPT => blocks_avx512::<W, ENCRYPT>(cis, ctr, data, out, tag),
            _ => blocks_avx512::<W, DECRYPT>(cis, ctr, data, out, tag),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lanes::pi_single;
    use super::super::layout::{inject, rate_bytes, store_words, RATE_WORDS};
    use super::*;

    /// The same steps one block at a time with the scalar π.
    fn scalar<W: Word>(mode: u8, cis: &[W; 16], ctr: u64, data: &[u8], out: &mut [u8]) -> [W; 8] {
        let rb = rate_bytes::<W>();
        let mut tag = [W::default(); 8];
        for (b, blk) in data.chunks(rb).enumerate() {
            let mut s = *cis;
            inject(&mut s, ctr.wrapping_add(b as u64));
            pi_single(&mut s);
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                let d = W::load_le(&blk[k * W::BYTES..]);
                let o = s[i].xor(d);
                if mode != ABSORB {
                    o.store_le(&mut out[b * rb + k * W::BYTES..]);
                }
                s[i] = if mode == DECRYPT { d } else { o };
            }
            pi_single(&mut s);
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                tag[k] = tag[k].add(s[i]);
            }
        }
        tag
    }

    fn check<W: W512>() {
        if !super::super::x86::has_avx512() {
            eprintln!("skipped (CPU lacks AVX-512)");
            return;
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Counters whose low limbs (and higher ones) wrap inside a batch.
        let ctrs = [
            0,
            0xFFF0,
            0xFFFF_FFF5,
            0x0000_FFFF_FFFF_FFF9,
            0xFFFF_FFFF_FFFF_FFF0,
            next(),
        ];
        for ctr in ctrs {
            for mode in [ABSORB, ENCRYPT, DECRYPT] {
                let cis: [W; 16] = core::array::from_fn(|_| W::limb(next(), 0));
                let data: Vec<u8> = (0..3 * 512).map(|_| next() as u8).collect();
                let (mut got, mut want) = (vec![0u8; data.len()], vec![0u8; data.len()]);
                let mut tag = [W::default(); 8];
                run_blocks(mode, &cis, ctr, &data, &mut got, &mut tag);
                let want_tag = scalar(mode, &cis, ctr, &data, &mut want);
                assert_eq!(got, want, "w{} mode {mode} ctr {ctr:#x}", 8 * W::BYTES);
                let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
                store_words(&tag, &mut a[..rate_bytes::<W>()]);
                store_words(&want_tag, &mut b[..rate_bytes::<W>()]);
                assert_eq!(a, b, "tag w{} mode {mode} ctr {ctr:#x}", 8 * W::BYTES);
            }
        }
    }

    #[test]
    fn blocks_equal_scalar_steps() {
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }
}
