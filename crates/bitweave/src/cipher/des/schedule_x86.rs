//! The DES key schedule's sixteen PC-2 permutations on AVX2 or AVX-512: four (eight)
//! rounds' C‖D side by side in a register, so each group of PC-2's moves (mask, shift,
//! OR) is one vector operation per four (eight) round keys instead of one scalar operation
//! per round key. The rotations of C and D are per-lane variable shifts by the rounds'
//! fixed totals; nothing depends on the key but the values, so it is constant-time like
//! the scalar schedule. The same holds for the round keys' bit masks.
//!
//! The AVX-512 forms halve the vector operations (eight lanes; PC-2's AND and OR one
//! `vpternlogq`; 32 registers hold PC-2's masks, which AVX2's 16 spilled to the stack): a
//! new 3DES key's set-up is most of a one-shot call on a short message (#29).
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

/// The vector forms of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    Avx512,
    Avx2,
}

impl Form {
    /// Widest first.
    pub(super) const ALL: [Form; 2] = [Form::Avx512, Form::Avx2];

    /// Whether this CPU runs the form (under the tier cap).
    pub(super) fn available(self) -> bool {
        crate::cpu::has(match self {
            Form::Avx512 => crate::cpu::Feature::Avx512f,
            Form::Avx2 => crate::cpu::Feature::Avx2,
        })
    }

    /// The widest form this CPU runs.
    fn best() -> Option<Form> {
        Self::ALL.into_iter().find(|f| f.available())
    }

    /// The 16 round keys from C0 and D0 (28 bits each, PC-1's output), as
    /// [`DesKeySchedule::new`](super::DesKeySchedule::new) computes them one by one;
    /// `None` on a CPU without the form.
    pub(super) fn round_keys(self, c0: u32, d0: u32) -> Option<[u64; 16]> {
        if !self.available() {
            return None;
        }
        // SAFETY: the CPU has the form's feature (`cpu::has` never reports a feature it
        // lacks), all either function needs.
        Some(unsafe {
            match self {
                Form::Avx512 => round_keys_avx512(c0, d0),
                Form::Avx2 => round_keys_avx2(c0, d0),
            }
        })
    }

    /// The bitsliced kernels' masks of `round_keys` (`n` of them, in order), each round
    /// key's 48 bits as 0 or all ones, its first bit (bit 47 of the u64) first; `None` on
    /// a CPU without the form.
    pub(super) fn masks(
        self,
        round_keys: impl Iterator<Item = u64>,
        n: usize,
    ) -> Option<Vec<[u64; 48]>> {
        if !self.available() {
            return None;
        }
        // SAFETY: as in `round_keys`.
        Some(unsafe {
            match self {
                Form::Avx512 => masks_avx512(round_keys, n),
                Form::Avx2 => masks_avx2(round_keys, n),
            }
        })
    }
}

/// [`Form::round_keys`] on the widest form this CPU runs.
pub(super) fn round_keys(c0: u32, d0: u32) -> Option<[u64; 16]> {
    Form::best()?.round_keys(c0, d0)
}

/// `moves` applied to every lane of `x`, on AVX-512 (AND and OR as one `vpternlogq`).
#[target_feature(enable = "avx512f")]
fn apply512(moves: &Moves, x: __m512i) -> __m512i {
    let mut out = _mm512_setzero_si512();
    for &(mask, d) in &moves.up[..moves.ups] {
        // (x & mask) << d, as (x << d) & (mask << d): the AND goes into the OR.
        let bits = _mm512_sllv_epi64(x, _mm512_set1_epi64(d as i64));
        let mask = _mm512_set1_epi64((mask << d) as i64);
        out = _mm512_ternarylogic_epi64::<0xF8>(out, bits, mask);
    }
    for &(mask, d) in &moves.down[..moves.downs] {
        let bits = _mm512_srlv_epi64(x, _mm512_set1_epi64(d as i64));
        let mask = _mm512_set1_epi64((mask >> d) as i64);
        out = _mm512_ternarylogic_epi64::<0xF8>(out, bits, mask);
    }
    out
}

/// [`Form::round_keys`] on AVX-512F, eight round keys per register.
///
/// # Safety
/// The CPU must have AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn round_keys_avx512(c0: u32, d0: u32) -> [u64; 16] {
    let mut out = [0u64; 16];
    let (c, d) = (_mm512_set1_epi64(c0 as i64), _mm512_set1_epi64(d0 as i64));
    let low28 = _mm512_set1_epi64(0x0fff_ffff);
    for (group, keys) in out.chunks_exact_mut(8).enumerate() {
        // SAFETY: eight readable i64s of TOTALS; loadu needs no alignment.
        let left = unsafe { _mm512_loadu_si512(TOTALS[8 * group..].as_ptr().cast()) };
        let right = _mm512_sub_epi64(_mm512_set1_epi64(28), left);
        let rotate = |x: __m512i| {
            let r = _mm512_or_si512(_mm512_sllv_epi64(x, left), _mm512_srlv_epi64(x, right));
            _mm512_and_si512(r, low28)
        };
        let cd = _mm512_or_si512(_mm512_slli_epi64::<28>(rotate(c)), rotate(d));
        // SAFETY: `keys` is eight u64s, 64 writable bytes; storeu needs no alignment.
        unsafe { _mm512_storeu_si512(keys.as_mut_ptr().cast(), apply512(&PC2_MOVES, cd)) };
    }
    out
}

/// [`Form::round_keys`] on AVX2.
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

/// [`Form::masks`] on the widest form this CPU runs. Four masks (AVX2) are a shift that
/// brings each bit to the sign and a compare, where the portable form was two shifts and
/// a shuffle per two (a 3DES key's 2,304 masks were over a quarter of its set-up, by a
/// profile on Intel). All of a key's masks are built in one call, each straight into the
/// vector's spare capacity: zeroing its 18 KiB first (3DES) was a visible part of a new
/// key's set-up, and a local array pushed after could leave a copy of secret masks on
/// the stack.
pub(super) fn masks(round_keys: impl Iterator<Item = u64>, n: usize) -> Option<Vec<[u64; 48]>> {
    Form::best()?.masks(round_keys, n)
}

/// [`Form::masks`] on AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn masks_avx2(round_keys: impl Iterator<Item = u64>, n: usize) -> Vec<[u64; 48]> {
    let zero = _mm256_setzero_si256();
    let mut out: Vec<[u64; 48]> = Vec::with_capacity(n);
    let mut filled = 0;
    for (slot, round_key) in out.spare_capacity_mut().iter_mut().zip(round_keys) {
        let key = _mm256_set1_epi64x(round_key as i64);
        let masks: *mut u64 = slot.as_mut_ptr().cast();
        for group in 0..12 {
            // Mask i is bit 47 - i: shifted left by 16 + i it is the sign.
            let first = 16 + 4 * group as i64;
            let counts = _mm256_set_epi64x(first + 3, first + 2, first + 1, first);
            let m = _mm256_cmpgt_epi64(zero, _mm256_sllv_epi64(key, counts));
            // SAFETY: `slot` is 48 u64s of the vector's spare capacity; this writes
            // 4 of them at 4 × group < 48 (storeu needs no alignment).
            unsafe { _mm256_storeu_si256(masks.add(4 * group).cast(), m) };
        }
        filled += 1;
    }
    debug_assert_eq!(filled, n, "one entry per round key");
    // SAFETY: the first `filled` entries were written whole above.
    unsafe { out.set_len(filled) };
    out
}

/// [`Form::masks`] on AVX-512F: eight masks a shift and an arithmetic shift right.
///
/// # Safety
/// The CPU must have AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn masks_avx512(round_keys: impl Iterator<Item = u64>, n: usize) -> Vec<[u64; 48]> {
    let mut out: Vec<[u64; 48]> = Vec::with_capacity(n);
    let mut filled = 0;
    for (slot, round_key) in out.spare_capacity_mut().iter_mut().zip(round_keys) {
        let key = _mm512_set1_epi64(round_key as i64);
        let masks: *mut u64 = slot.as_mut_ptr().cast();
        for group in 0..6 {
            // Mask i is bit 47 - i: shifted left by 16 + i it is the sign.
            let first = 16 + 8 * group as i64;
            let counts = _mm512_add_epi64(
                _mm512_set1_epi64(first),
                _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
            );
            let m = _mm512_srai_epi64::<63>(_mm512_sllv_epi64(key, counts));
            // SAFETY: `slot` is 48 u64s of the vector's spare capacity; this writes
            // 8 of them at 8 × group < 48 (storeu needs no alignment).
            unsafe { _mm512_storeu_si512(masks.add(8 * group).cast(), m) };
        }
        filled += 1;
    }
    debug_assert_eq!(filled, n, "one entry per round key");
    // SAFETY: the first `filled` entries were written whole above.
    unsafe { out.set_len(filled) };
    out
}
