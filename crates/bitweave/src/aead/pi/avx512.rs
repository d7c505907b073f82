//! The whole-step kernel's AVX-512 instance ([`super::wide`] on zmm registers): 8 blocks
//! per batch for π64, 16 for π32, 32 for π16. Three-input XORs are one `vpternlog`;
//! rotations are `vprold`/`vprolq`, and `vpshldw` (VBMI2) for 16-bit words.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::engine::{ABSORB, DECRYPT, ENCRYPT};
use super::layout::STATE_WORDS;
use super::wide::{blocks_paired, unroll, Isa, Kernel, Offsets};

type Z = __m512i;
type Chunk = [Z; 4];

/// zmm registers (AVX-512 F/BW/VL/VBMI2; see [`available`]).
pub struct Avx512;

/// Whether this CPU runs the kernel (under the tier cap).
pub fn available() -> bool {
    crate::cpu::has_all(FEATURES)
}

/// The features of the AVX-512 kernel: F, BW and VL for 16-bit words and 256/512-bit
/// forms; VBMI2 for the 16-bit funnel-shift rotate.
pub const FEATURES: &[crate::cpu::Feature] = &[
    crate::cpu::Feature::Avx512f,
    crate::cpu::Feature::Avx512bw,
    crate::cpu::Feature::Avx512vl,
    crate::cpu::Feature::Avx512vbmi2,
];

impl Isa for Avx512 {
    type V = Z;
    const BYTES: usize = 64;
    #[inline(always)]
    unsafe fn zero() -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    unsafe fn xor(a: Z, b: Z) -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_xor_si512(a, b) }
    }
    #[inline(always)]
    unsafe fn xor3(a: Z, b: Z, c: Z) -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_ternarylogic_epi64::<0x96>(a, b, c) }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Z {
        // SAFETY: the ISA's features are present and `p` is valid for 64 bytes (the `Isa`
        // contract).
        unsafe { _mm512_loadu_si512(p as *const Z) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Z) {
        // SAFETY: the ISA's features are present and `p` is valid for 64 bytes (the `Isa`
        // contract).
        unsafe { _mm512_storeu_si512(p as *mut Z, v) }
    }
}

// ---- 64-bit words: 8 blocks of 64 bytes, a plain 8×8 transpose. ----

#[inline(always)]
unsafe fn transpose_q8(r: [Z; 8]) -> [Z; 8] {
    // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
    unsafe {
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
}

impl Kernel<u64> for Avx512 {
    const L: usize = 8;
    #[inline(always)]
    unsafe fn splat(w: u64) -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_set1_epi64(w as i64) }
    }
    #[inline(always)]
    unsafe fn add(a: Z, b: Z) -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_add_epi64(a, b) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            [
                _mm512_rol_epi64::<7>(s[0]),
                _mm512_rol_epi64::<19>(s[1]),
                _mm512_rol_epi64::<31>(s[2]),
                _mm512_rol_epi64::<53>(s[3]),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            [
                _mm512_rol_epi64::<11>(s[0]),
                _mm512_rol_epi64::<23>(s[1]),
                _mm512_rol_epi64::<37>(s[2]),
                _mm512_rol_epi64::<59>(s[3]),
            ]
        }
    }
    #[inline(always)]
    unsafe fn to_sliced(r: [Z; 8]) -> [Z; 8] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { transpose_q8(r) }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Z; 8]) -> [Z; 8] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { transpose_q8(v) }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Z) -> [Z; 4] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            let c = _mm512_add_epi64(_mm512_set1_epi64(base as i64), idx);
            [c, c, c, c]
        }
    }
}

// ---- 32-bit words: 16 blocks of 32 bytes, two blocks per register. ----

/// 4×4 transpose of 32-bit elements inside each 128-bit lane (its own inverse).
#[inline(always)]
unsafe fn transpose_d4(r: [Z; 4]) -> [Z; 4] {
    // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
    unsafe {
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
}

impl Kernel<u32> for Avx512 {
    const L: usize = 16;
    #[inline(always)]
    unsafe fn splat(w: u32) -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_set1_epi32(w as i32) }
    }
    #[inline(always)]
    unsafe fn add(a: Z, b: Z) -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_add_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            [
                _mm512_rol_epi32::<5>(s[0]),
                _mm512_rol_epi32::<11>(s[1]),
                _mm512_rol_epi32::<17>(s[2]),
                _mm512_rol_epi32::<23>(s[3]),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            [
                _mm512_rol_epi32::<3>(s[0]),
                _mm512_rol_epi32::<10>(s[1]),
                _mm512_rol_epi32::<19>(s[2]),
                _mm512_rol_epi32::<29>(s[3]),
            ]
        }
    }
    /// Row r holds blocks 2r, 2r+1; lane j of a 4×4-transposed group of rows holds word
    /// `4(j&1) + i` of blocks `2r + (j>>1)`; one 128-bit shuffle then gathers word i.
    #[inline(always)]
    unsafe fn to_sliced(r: [Z; 8]) -> [Z; 8] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            let o = transpose_d4([r[0], r[1], r[2], r[3]]);
            let p = transpose_d4([r[4], r[5], r[6], r[7]]);
            let lo = |i: usize| _mm512_shuffle_i64x2::<0x88>(o[i], p[i]);
            let hi = |i: usize| _mm512_shuffle_i64x2::<0xDD>(o[i], p[i]);
            [lo(0), lo(1), lo(2), lo(3), hi(0), hi(1), hi(2), hi(3)]
        }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Z; 8]) -> [Z; 8] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            let lo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
            let hi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
            let o: [Z; 4] = unroll!(4, i => _mm512_permutex2var_epi64(v[i], lo, v[4 + i]));
            let p: [Z; 4] = unroll!(4, i => _mm512_permutex2var_epi64(v[i], hi, v[4 + i]));
            let a = transpose_d4(o);
            let b = transpose_d4(p);
            [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
        }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Z) -> [Z; 4] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            let lo = _mm512_add_epi32(_mm512_set1_epi32(base as u32 as i32), idx);
            // The low limb wrapped where it came out below the lane's offset.
            let carry = _mm512_cmplt_epu32_mask(lo, idx);
            let hi = _mm512_set1_epi32((base >> 32) as u32 as i32);
            let hi = _mm512_mask_add_epi32(hi, carry, hi, _mm512_set1_epi32(1));
            [lo, hi, hi, hi]
        }
    }
}

// ---- 16-bit words: 32 blocks of 16 bytes, one block per 128-bit lane. ----

impl Kernel<u16> for Avx512 {
    const L: usize = 32;
    #[inline(always)]
    unsafe fn splat(w: u16) -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_set1_epi16(w as i16) }
    }
    #[inline(always)]
    unsafe fn add(a: Z, b: Z) -> Z {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { _mm512_add_epi16(a, b) }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            [
                _mm512_shldi_epi16::<1>(s[0], s[0]),
                _mm512_shldi_epi16::<4>(s[1], s[1]),
                _mm512_shldi_epi16::<9>(s[2], s[2]),
                _mm512_shldi_epi16::<11>(s[3], s[3]),
            ]
        }
    }
    #[inline(always)]
    unsafe fn rot_nu(s: Chunk) -> Chunk {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
            [
                _mm512_shldi_epi16::<2>(s[0], s[0]),
                _mm512_shldi_epi16::<5>(s[1], s[1]),
                _mm512_shldi_epi16::<7>(s[2], s[2]),
                _mm512_shldi_epi16::<13>(s[3], s[3]),
            ]
        }
    }
    /// An 8×8 transpose of 16-bit elements inside each 128-bit lane (its own inverse):
    /// word k of block 4i + j lands in lane j, element i of register k.
    #[inline(always)]
    unsafe fn to_sliced(r: [Z; 8]) -> [Z; 8] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { transpose_w8(r) }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Z; 8]) -> [Z; 8] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe { transpose_w8(v) }
    }
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Z) -> [Z; 4] {
        // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
        unsafe {
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
    }
}

#[inline(always)]
unsafe fn transpose_w8(r: [Z; 8]) -> [Z; 8] {
    // SAFETY: register-only intrinsics; the ISA's features are present (the `Isa` contract).
    unsafe {
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
}

super::wide::entry!(Avx512, "avx512f,avx512bw,avx512vl,avx512vbmi2");
