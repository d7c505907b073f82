//! The whole-step kernel's AVX2 instance ([`super::wide`] on ymm registers): 4 blocks per
//! batch for π64, 8 for π32, 16 for π16. AVX2 has no rotate or three-input XOR: a rotate
//! is two shifts and an OR, a three-input XOR two XORs. Counter carries are computed with
//! compares (signed, on sign-flipped values: AVX2 has no unsigned compare), never branched
//! on.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::engine::{ABSORB, DECRYPT, ENCRYPT};
use super::lanes::States;
use super::layout::STATE_WORDS;
use super::wide::{blocks_paired, pi_states, unroll, Isa, Kernel, Offsets, Twice};
use super::word::Word;

type Y = __m256i;
type Chunk = [Y; 4];

/// ymm registers (AVX2; see [`available`]).
pub struct Avx2;

/// Whether this CPU runs the kernel (under the tier cap).
pub fn available() -> bool {
    crate::cpu::has(crate::cpu::Feature::Avx2)
}

impl Isa for Avx2 {
    type V = Y;
    const BYTES: usize = 32;
    #[inline(always)]
    unsafe fn zero() -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn xor(a: Y, b: Y) -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_xor_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn xor3(a: Y, b: Y, c: Y) -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_xor_si256(_mm256_xor_si256(a, b), c) }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Y {
        // SAFETY: AVX2 is present and `p` is valid for 32 bytes (the `Isa` contract).
        unsafe { _mm256_loadu_si256(p as *const Y) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Y) {
        // SAFETY: AVX2 is present and `p` is valid for 32 bytes (the `Isa` contract).
        unsafe { _mm256_storeu_si256(p as *mut Y, v) }
    }
}

/// Rotate left by a literal amount: `rotl!(epi64, 64, x, 7)`.
macro_rules! rotl {
    ($w:ident, $bits:literal, $x:expr, $n:literal) => {{
        let x = $x;
        paste_shift!($w, x, $n, $bits - $n)
    }};
}

/// The two shifts of [`rotl!`], per element width.
macro_rules! paste_shift {
    (epi64, $x:ident, $l:expr, $r:expr) => {
        _mm256_or_si256(
            _mm256_slli_epi64::<{ $l }>($x),
            _mm256_srli_epi64::<{ $r }>($x),
        )
    };
    (epi32, $x:ident, $l:expr, $r:expr) => {
        _mm256_or_si256(
            _mm256_slli_epi32::<{ $l }>($x),
            _mm256_srli_epi32::<{ $r }>($x),
        )
    };
    (epi16, $x:ident, $l:expr, $r:expr) => {
        _mm256_or_si256(
            _mm256_slli_epi16::<{ $l }>($x),
            _mm256_srli_epi16::<{ $r }>($x),
        )
    };
}

/// `a < b` as unsigned 32-bit lanes (all-ones where true).
#[inline(always)]
unsafe fn lt_epu32(a: Y, b: Y) -> Y {
    // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
    unsafe {
        let flip = _mm256_set1_epi32(i32::MIN);
        _mm256_cmpgt_epi32(_mm256_xor_si256(b, flip), _mm256_xor_si256(a, flip))
    }
}

/// `a < b` as unsigned 16-bit lanes (all-ones where true).
#[inline(always)]
unsafe fn lt_epu16(a: Y, b: Y) -> Y {
    // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
    unsafe {
        let flip = _mm256_set1_epi16(i16::MIN);
        _mm256_cmpgt_epi16(_mm256_xor_si256(b, flip), _mm256_xor_si256(a, flip))
    }
}

// ---- 64-bit words: 4 blocks of 64 bytes, two per 4×4 transpose. ----

/// 4×4 transpose of 64-bit elements (its own inverse).
#[inline(always)]
unsafe fn transpose_q4(a: Y, b: Y, c: Y, d: Y) -> [Y; 4] {
    // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
    unsafe {
        let t0 = _mm256_unpacklo_epi64(a, b);
        let t1 = _mm256_unpackhi_epi64(a, b);
        let t2 = _mm256_unpacklo_epi64(c, d);
        let t3 = _mm256_unpackhi_epi64(c, d);
        [
            _mm256_permute2x128_si256::<0x20>(t0, t2),
            _mm256_permute2x128_si256::<0x20>(t1, t3),
            _mm256_permute2x128_si256::<0x31>(t0, t2),
            _mm256_permute2x128_si256::<0x31>(t1, t3),
        ]
    }
}

impl Kernel<u64> for Avx2 {
    const L: usize = 4;
    #[inline(always)]
    unsafe fn splat(w: u64) -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_set1_epi64x(w as i64) }
    }
    #[inline(always)]
    unsafe fn add(a: Y, b: Y) -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_add_epi64(a, b) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            [
                rotl!(epi64, 64, s[0], 7),
                rotl!(epi64, 64, s[1], 19),
                rotl!(epi64, 64, s[2], 31),
                rotl!(epi64, 64, s[3], 53),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            [
                rotl!(epi64, 64, s[0], 11),
                rotl!(epi64, 64, s[1], 23),
                rotl!(epi64, 64, s[2], 37),
                rotl!(epi64, 64, s[3], 59),
            ]
        }
    }
    /// Block b fills rows 2b (words 0–3) and 2b+1 (words 4–7): one transpose per half.
    #[inline(always)]
    unsafe fn to_sliced(r: [Y; 8]) -> [Y; 8] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            let lo = transpose_q4(r[0], r[2], r[4], r[6]);
            let hi = transpose_q4(r[1], r[3], r[5], r[7]);
            [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]
        }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Y; 8]) -> [Y; 8] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            let lo = transpose_q4(v[0], v[1], v[2], v[3]);
            let hi = transpose_q4(v[4], v[5], v[6], v[7]);
            [lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3]]
        }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Y) -> [Y; 4] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            let c = _mm256_add_epi64(_mm256_set1_epi64x(base as i64), idx);
            [c, c, c, c]
        }
    }
}

// ---- 32-bit words: 8 blocks of 32 bytes, one per register: an 8×8 transpose. ----

/// 8×8 transpose of 32-bit elements (its own inverse).
#[inline(always)]
unsafe fn transpose_d8(r: [Y; 8]) -> [Y; 8] {
    // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
    unsafe {
        let a: [Y; 8] = unroll!(8, i => {
            let (x, y) = (r[i & !1], r[i | 1]);
            if i & 1 == 0 {
                _mm256_unpacklo_epi32(x, y)
            } else {
                _mm256_unpackhi_epi32(x, y)
            }
        });
        // a[4g + k]: rows 4g.. ; b pairs a[4g + k] with a[4g + k + 2].
        let b: [Y; 8] = unroll!(8, i => {
            let (g, k) = (i / 4, i % 4);
            let (x, y) = (a[4 * g + k / 2], a[4 * g + k / 2 + 2]);
            if k & 1 == 0 {
                _mm256_unpacklo_epi64(x, y)
            } else {
                _mm256_unpackhi_epi64(x, y)
            }
        });
        [
            _mm256_permute2x128_si256::<0x20>(b[0], b[4]),
            _mm256_permute2x128_si256::<0x20>(b[1], b[5]),
            _mm256_permute2x128_si256::<0x20>(b[2], b[6]),
            _mm256_permute2x128_si256::<0x20>(b[3], b[7]),
            _mm256_permute2x128_si256::<0x31>(b[0], b[4]),
            _mm256_permute2x128_si256::<0x31>(b[1], b[5]),
            _mm256_permute2x128_si256::<0x31>(b[2], b[6]),
            _mm256_permute2x128_si256::<0x31>(b[3], b[7]),
        ]
    }
}

impl Kernel<u32> for Avx2 {
    const L: usize = 8;
    #[inline(always)]
    unsafe fn splat(w: u32) -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_set1_epi32(w as i32) }
    }
    #[inline(always)]
    unsafe fn add(a: Y, b: Y) -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_add_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            [
                rotl!(epi32, 32, s[0], 5),
                rotl!(epi32, 32, s[1], 11),
                rotl!(epi32, 32, s[2], 17),
                rotl!(epi32, 32, s[3], 23),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            [
                rotl!(epi32, 32, s[0], 3),
                rotl!(epi32, 32, s[1], 10),
                rotl!(epi32, 32, s[2], 19),
                rotl!(epi32, 32, s[3], 29),
            ]
        }
    }
    #[inline(always)]
    unsafe fn to_sliced(r: [Y; 8]) -> [Y; 8] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { transpose_d8(r) }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Y; 8]) -> [Y; 8] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { transpose_d8(v) }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Y) -> [Y; 4] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            let lo = _mm256_add_epi32(_mm256_set1_epi32(base as u32 as i32), idx);
            // The low limb wrapped where it came out below the lane's offset; subtracting the
            // all-ones mask adds the carry.
            let carry = lt_epu32(lo, idx);
            let hi = _mm256_sub_epi32(_mm256_set1_epi32((base >> 32) as u32 as i32), carry);
            [lo, hi, hi, hi]
        }
    }
}

// ---- 16-bit words: 16 blocks of 16 bytes, one per 128-bit half. ----

/// An 8×8 transpose of 16-bit elements inside each 128-bit half (its own inverse): word k
/// of block 2i + h lands in half h, element i of register k.
#[inline(always)]
unsafe fn transpose_w8(r: [Y; 8]) -> [Y; 8] {
    // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
    unsafe {
        let a: [Y; 8] = unroll!(8, i => {
            let (x, y) = (r[i & !1], r[i | 1]);
            if i & 1 == 0 {
                _mm256_unpacklo_epi16(x, y)
            } else {
                _mm256_unpackhi_epi16(x, y)
            }
        });
        let b: [Y; 8] = unroll!(8, i => {
            let (g, k) = (i / 4, i % 4);
            let (x, y) = (a[4 * g + k / 2], a[4 * g + k / 2 + 2]);
            if k & 1 == 0 {
                _mm256_unpacklo_epi32(x, y)
            } else {
                _mm256_unpackhi_epi32(x, y)
            }
        });
        unroll!(8, i => {
            let (x, y) = (b[i / 2], b[i / 2 + 4]);
            if i & 1 == 0 {
                _mm256_unpacklo_epi64(x, y)
            } else {
                _mm256_unpackhi_epi64(x, y)
            }
        })
    }
}

impl Kernel<u16> for Avx2 {
    const L: usize = 16;
    #[inline(always)]
    unsafe fn splat(w: u16) -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_set1_epi16(w as i16) }
    }
    #[inline(always)]
    unsafe fn add(a: Y, b: Y) -> Y {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { _mm256_add_epi16(a, b) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            [
                rotl!(epi16, 16, s[0], 1),
                rotl!(epi16, 16, s[1], 4),
                rotl!(epi16, 16, s[2], 9),
                rotl!(epi16, 16, s[3], 11),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            [
                rotl!(epi16, 16, s[0], 2),
                rotl!(epi16, 16, s[1], 5),
                rotl!(epi16, 16, s[2], 7),
                rotl!(epi16, 16, s[3], 13),
            ]
        }
    }
    #[inline(always)]
    unsafe fn to_sliced(r: [Y; 8]) -> [Y; 8] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { transpose_w8(r) }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Y; 8]) -> [Y; 8] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe { transpose_w8(v) }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Y) -> [Y; 4] {
        // SAFETY: register-only intrinsics; AVX2 is present (the `Isa` contract).
        unsafe {
            let b = |i: u32| _mm256_set1_epi16((base >> (16 * i)) as u16 as i16);
            let zero = _mm256_setzero_si256();
            let l0 = _mm256_add_epi16(b(0), idx);
            // Carries as all-ones masks: into limb 1 where limb 0 wrapped, into limb k+1 where
            // the carry into limb k made it wrap to zero.
            let c0 = lt_epu16(l0, idx);
            let l1 = _mm256_sub_epi16(b(1), c0);
            let c1 = _mm256_and_si256(c0, _mm256_cmpeq_epi16(l1, zero));
            let l2 = _mm256_sub_epi16(b(2), c1);
            let c2 = _mm256_and_si256(c1, _mm256_cmpeq_epi16(l2, zero));
            let l3 = _mm256_sub_epi16(b(3), c2);
            [l0, l1, l2, l3]
        }
    }
}

super::wide::entry!(Avx2, "avx2");

/// One unpack step of [`transpose`]: the low (`HI` false) or high halves of `a` and `b`
/// interleaved in units of `unit` bits, inside each 128-bit half.
#[inline(always)]
unsafe fn unpack<const HI: bool>(a: Y, b: Y, unit: usize) -> Y {
    // SAFETY: register-only intrinsics; AVX2 is present (the caller's contract).
    unsafe {
        match (unit, HI) {
            (16, false) => _mm256_unpacklo_epi16(a, b),
            (16, true) => _mm256_unpackhi_epi16(a, b),
            (32, false) => _mm256_unpacklo_epi32(a, b),
            (32, true) => _mm256_unpackhi_epi32(a, b),
            (64, false) => _mm256_unpacklo_epi64(a, b),
            _ => _mm256_unpackhi_epi64(a, b),
        }
    }
}

/// Transposes the `L`×`L` matrix of `W` words held in `x` (register `r` is row `r`), `L`
/// being one register's words. Unpack steps inside the 128-bit halves, neighbours paired
/// at each step, transpose the two `L/2`-row groups half by half and leave row `j` of the
/// result at register `bit-reverse(j)` of each group; one 128-bit swap per row pair then
/// puts every row in place. A transpose undoes itself, so the same call turns the rows
/// back into states.
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
unsafe fn transpose<W: Word, const L: usize>(x: [Y; L]) -> [Y; L] {
    let half = L / 2;
    let mut cur = x;
    let mut unit = 8 * W::BYTES;
    // SAFETY: register-only intrinsics; AVX2 is present (this fn's contract).
    unsafe {
        while unit < 128 {
            let mut next = cur;
            for g in [0, half] {
                for i in 0..half / 2 {
                    let (a, b) = (cur[g + 2 * i], cur[g + 2 * i + 1]);
                    next[g + i] = unpack::<false>(a, b, unit);
                    next[g + i + half / 2] = unpack::<true>(a, b, unit);
                }
            }
            cur = next;
            unit *= 2;
        }
        let bits = half.trailing_zeros();
        let mut out = cur;
        for j in 0..half {
            let row = j
                .reverse_bits()
                .checked_shr(usize::BITS - bits)
                .unwrap_or(0);
            out[row] = _mm256_permute2x128_si256::<0x20>(cur[j], cur[half + j]);
            out[row + half] = _mm256_permute2x128_si256::<0x31>(cur[j], cur[half + j]);
        }
        out
    }
}

/// The `L` states at `p` as rows, `L` being the lanes of one register for `W`: each state
/// is `16 / L` registers, so block `b` of the states (words `bL..bL + L` of every lane) is
/// an `L`×`L` matrix, transposed into rows `bL..bL + L`.
///
/// # Safety
/// The CPU has AVX2; `p` points to `L` whole states.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_rows<W: Word, const L: usize>(p: *const Y) -> [Y; STATE_WORDS] {
    let per_state = STATE_WORDS / L;
    let mut rows = [_mm256_setzero_si256(); STATE_WORDS];
    // Loops, not closures: a closure would not inherit this fn's target features in
    // every build (see the README's π-Cipher notes), leaving intrinsics as calls.
    let mut block = [_mm256_setzero_si256(); L];
    for b in 0..per_state {
        for (l, v) in block.iter_mut().enumerate() {
            // SAFETY: register `b` of state `l`, within the caller's `L` states.
            *v = unsafe { _mm256_loadu_si256(p.add(l * per_state + b)) };
        }
        // SAFETY: AVX2 is this fn's contract.
        rows[b * L..(b + 1) * L].copy_from_slice(&unsafe { transpose::<W, L>(block) });
    }
    rows
}

/// Rows back into the `L` states at `p` (the inverse of [`load_rows`]).
///
/// # Safety
/// As [`load_rows`], the states writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_rows<W: Word, const L: usize>(p: *mut Y, rows: &[Y; STATE_WORDS]) {
    let per_state = STATE_WORDS / L;
    let mut block = [_mm256_setzero_si256(); L];
    for b in 0..per_state {
        block.copy_from_slice(&rows[b * L..(b + 1) * L]);
        // SAFETY: AVX2 is this fn's contract.
        for (l, v) in unsafe { transpose::<W, L>(block) }.into_iter().enumerate() {
            // SAFETY: register `b` of state `l`, within the caller's `L` states.
            unsafe { _mm256_storeu_si256(p.add(l * per_state + b), v) };
        }
    }
}

/// The lane kernels' two compiled forms: `$single` runs π on the `L` states of `s`, `L`
/// being the lanes of one register for `W`; `$pair` on `2L` states as two batches of `L`
/// in one pass of [`Twice`] (two independent dependency chains through π, where one batch
/// leaves the vector ports waiting between π's dependent steps).
///
/// The same code is compiled for AVX2 and, for the AVX-512 backend, with AVX-512VL, BW
/// and VBMI2 too: 32 registers instead of 16 (two batches' sixteen words each spilled to
/// the stack on AVX2), one-instruction rotates and three-input XORs on the same ymm
/// registers.
macro_rules! lane_kernels {
    ($single:ident, $pair:ident, $features:literal) => {
        /// See [`lane_kernels`].
        ///
        /// # Safety
        /// The CPU has the features this fn enables.
        #[target_feature(enable = $features)]
        unsafe fn $single<W: Offsets, const L: usize>(s: &mut States<W, L>)
        where
            Avx2: Kernel<W>,
        {
            let p = s.as_mut_ptr().cast::<Y>();
            // SAFETY: the states are L × 16 words = L × 16 / L registers of 32 bytes
            // (asserted by the caller); the features are the caller's contract.
            unsafe {
                let y = pi_states::<Avx2, W>(load_rows::<W, L>(p));
                store_rows::<W, L>(p, &y);
            }
        }

        /// See [`lane_kernels`].
        ///
        /// # Safety
        /// The CPU has the features this fn enables; `L2 == 2 * L`.
        #[target_feature(enable = $features)]
        unsafe fn $pair<W: Offsets, const L: usize, const L2: usize>(s: &mut States<W, L2>)
        where
            Avx2: Kernel<W>,
        {
            let p = s.as_mut_ptr().cast::<Y>();
            let second = L * (STATE_WORDS / L);
            // SAFETY: the states are 2 × L × 16 / L registers (asserted by the caller),
            // the second batch `second` registers after the first; the features are the
            // caller's contract.
            unsafe {
                let (a, b) = (load_rows::<W, L>(p), load_rows::<W, L>(p.add(second)));
                let y = pi_states::<Twice<Avx2>, W>(unroll!(16, i => [a[i], b[i]]));
                store_rows::<W, L>(p, &unroll!(16, i => y[i][0]));
                store_rows::<W, L>(p.add(second), &unroll!(16, i => y[i][1]));
            }
        }
    };
}
lane_kernels!(pi_single_avx2, pi_pair_avx2, "avx2");
lane_kernels!(
    pi_single_vl,
    pi_pair_vl,
    "avx2,avx512f,avx512vl,avx512bw,avx512vbmi2"
);

/// The lane kernel: π on `L` whole states, `H` being one register's lanes for `W` (4, 8,
/// 16 for π64, π32, π16) and `L` either `H` or `2H` (a register pair: `lane_kernels!`);
/// with `VL` the AVX-512VL form (the AVX-512 backend's). Panics if the CPU lacks the
/// form's features or the lanes do not match.
pub fn pi_lanes<W: Offsets, const L: usize, const H: usize, const VL: bool>(s: &mut States<W, L>)
where
    Avx2: Kernel<W>,
{
    if VL {
        assert!(
            super::avx512::available(),
            "AVX-512VL lane kernel on a CPU without it"
        );
    } else {
        assert!(available(), "Avx2 kernel called on a CPU without avx2");
    }
    assert_eq!(H * W::BYTES, Avx2::BYTES, "one ymm register per state word");
    assert!(L == H || L == 2 * H, "one or two registers per state word");
    // SAFETY: the features were just checked (never more than the CPU has), and the
    // register sizes.
    unsafe {
        match (L == H, VL) {
            (true, false) => pi_single_avx2::<W, L>(s),
            (true, true) => pi_single_vl::<W, L>(s),
            (false, false) => pi_pair_avx2::<W, H, L>(s),
            (false, true) => pi_pair_vl::<W, H, L>(s),
        }
    }
}
