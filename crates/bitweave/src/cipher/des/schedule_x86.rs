//! The DES key schedule's sixteen PC-2 permutations on AVX2: four rounds' C‖D side by
//! side in a register, so each group of PC-2's moves (mask, shift, OR) is one vector
//! operation per four round keys instead of one scalar operation per round key. The
//! rotations of C and D are per-lane variable shifts by the rounds' fixed totals; nothing
//! depends on the key but the values, so it is constant-time like the scalar schedule.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::{Moves, PC2_MOVES, SHIFTS};

/// C and D's total left rotation before round r: the running sum of [`SHIFTS`].
const TOTALS: [i64; 16] = {
    let mut t = [0i64; 16];
    let mut sum = 0;
    let mut r = 0;
    while r < 16 {
        sum += SHIFTS[r] as i64;
        t[r] = sum;
        r += 1;
    }
    t
};

/// `moves` applied to every lane of `x`.
#[target_feature(enable = "avx2")]
fn apply(moves: &Moves, x: __m256i) -> __m256i {
    let mut out = _mm256_setzero_si256();
    for &(mask, d) in &moves.up[..moves.ups] {
        let bits = _mm256_and_si256(x, _mm256_set1_epi64x(mask as i64));
        out = _mm256_or_si256(out, _mm256_sllv_epi64(bits, _mm256_set1_epi64x(d as i64)));
    }
    for &(mask, d) in &moves.down[..moves.downs] {
        let bits = _mm256_and_si256(x, _mm256_set1_epi64x(mask as i64));
        out = _mm256_or_si256(out, _mm256_srlv_epi64(bits, _mm256_set1_epi64x(d as i64)));
    }
    out
}

/// The 16 round keys from C0 and D0 (28 bits each, PC-1's output), as
/// [`DesKeySchedule::new`](super::DesKeySchedule::new) computes them one by one; `None`
/// on a CPU without AVX2.
pub(super) fn round_keys(c0: u32, d0: u32) -> Option<[u64; 16]> {
    if !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return None;
    }
    // SAFETY: the CPU has AVX2 (`cpu::has` never reports a feature it lacks), all
    // `round_keys_avx2` needs.
    Some(unsafe { round_keys_avx2(c0, d0) })
}

/// [`round_keys`] on AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn round_keys_avx2(c0: u32, d0: u32) -> [u64; 16] {
    let mut out = [0u64; 16];
    let (c, d) = (_mm256_set1_epi64x(c0 as i64), _mm256_set1_epi64x(d0 as i64));
    let low28 = _mm256_set1_epi64x(0x0fff_ffff);
    for (group, keys) in out.chunks_exact_mut(4).enumerate() {
        let t = &TOTALS[4 * group..4 * group + 4];
        let left = _mm256_set_epi64x(t[3], t[2], t[1], t[0]);
        let right = _mm256_sub_epi64(_mm256_set1_epi64x(28), left);
        let rotate = |x: __m256i| {
            let r = _mm256_or_si256(_mm256_sllv_epi64(x, left), _mm256_srlv_epi64(x, right));
            _mm256_and_si256(r, low28)
        };
        let cd = _mm256_or_si256(_mm256_slli_epi64::<28>(rotate(c)), rotate(d));
        // SAFETY: `keys` is four u64s, 32 writable bytes; storeu needs no alignment.
        unsafe { _mm256_storeu_si256(keys.as_mut_ptr().cast(), apply(&PC2_MOVES, cd)) };
    }
    out
}

/// Writes a round key's 48 bits as the bitsliced kernels' masks (0 or all ones; the
/// key's first bit, bit 47 of the u64, first) and returns true, or returns false on a CPU
/// without AVX2. Four masks are a shift that brings each bit to the sign and a compare,
/// where the portable form was two shifts and a shuffle per two (a 3DES key's 2,304 masks
/// were over a quarter of its set-up, by a profile on Intel).
pub(super) fn bit_masks(round_key: u64, out: &mut [u64; 48]) -> bool {
    if !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return false;
    }
    // SAFETY: the CPU has AVX2 (`cpu::has` never reports a feature it lacks), all
    // `bit_masks_avx2` needs.
    unsafe { bit_masks_avx2(round_key, out) };
    true
}

/// [`bit_masks`] on AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn bit_masks_avx2(round_key: u64, out: &mut [u64; 48]) {
    let key = _mm256_set1_epi64x(round_key as i64);
    let zero = _mm256_setzero_si256();
    for (group, masks) in out.chunks_exact_mut(4).enumerate() {
        // Mask i is bit 47 - i: shifted left by 16 + i it is the sign.
        let first = 16 + 4 * group as i64;
        let counts = _mm256_set_epi64x(first + 3, first + 2, first + 1, first);
        let signs = _mm256_sllv_epi64(key, counts);
        let m = _mm256_cmpgt_epi64(zero, signs);
        // SAFETY: `masks` is four u64s, 32 writable bytes; storeu needs no alignment.
        unsafe { _mm256_storeu_si256(masks.as_mut_ptr().cast(), m) };
    }
}
