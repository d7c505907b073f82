//! `clmul128` and `clmul256`: GHASH on x86-64 PCLMULQDQ, and on VPCLMULQDQ with two
//! blocks per 256-bit register (sixteen blocks per reduction) for long inputs. Eight blocks are multiplied by H^8..H^1 and
//! their 256-bit products summed before one reduction (aggregated reduction, as in
//! Gueron and Kounavis's white paper), so the reduction's dozen operations are paid once
//! per 128 bytes and the 32 multiplies of a group are independent of one another.
//! The arithmetic is [`super::field`]'s, lane by lane: a register holds a block as one
//! little-endian u128 (the byte-swapped block), low 64 bits in lane 0.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::field::{AGGREGATE, WIDE_AGGREGATE, ZMM_AGGREGATE};
use crate::cpu::Feature;

/// Folds the whole blocks of `blocks` into `y`: y = (…((y ⊕ X_1)·H ⊕ X_2)·H …)·H.
/// Panics if this CPU lacks PCLMULQDQ or SSSE3 (a [`super::GhashKey`] on this backend is
/// only made after checking, so this never fires).
pub fn update(powers: &[u128; AGGREGATE], y: &mut u128, blocks: &[u8]) {
    assert!(crate::cpu::has_all(&[Feature::Pclmulqdq, Feature::Ssse3]));
    // SAFETY: the features were just checked.
    unsafe { update_blocks(powers, y, blocks) }
}

/// [`update`]'s kernel, eight blocks at a time as (y ⊕ X_1)·H^8 ⊕ X_2·H^7 ⊕ … ⊕ X_8·H
/// (a trailing partial block, which `GhashKey` never passes, is ignored).
///
/// # Safety
/// The CPU must have PCLMULQDQ and SSSE3.
#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
unsafe fn update_blocks(powers: &[u128; AGGREGATE], y: &mut u128, blocks: &[u8]) {
    let swap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    // SAFETY: a u128 is 16 readable bytes, its lanes in little-endian order.
    let mut acc = unsafe { _mm_loadu_si128((y as *const u128).cast()) };
    // Whole groups of eight (a constant count, so the loop is unrolled and the powers'
    // addresses fixed), then the rest (fewer than eight) as one shorter group with
    // H^n..H^1: one reduction either way.
    let mut groups = blocks.chunks_exact(16 * AGGREGATE);
    for group in &mut groups {
        acc = fold_group(acc, group, AGGREGATE, powers, swap);
    }
    let n = groups.remainder().len() / 16;
    if n > 0 {
        acc = fold_group(acc, groups.remainder(), n, powers, swap);
    }
    // SAFETY: as the load above.
    unsafe { _mm_storeu_si128((y as *mut u128).cast(), acc) };
}

/// (acc ⊕ X_1)·H^n ⊕ X_2·H^(n-1) ⊕ … ⊕ X_n·H, reduced: the first `n` blocks of `group`.
#[inline(always)]
pub(super) fn fold_group(
    acc: __m128i,
    group: &[u8],
    n: usize,
    powers: &[u128; AGGREGATE],
    swap: __m128i,
) -> __m128i {
    assert!(n <= AGGREGATE && group.len() >= 16 * n);
    // SAFETY: the whole body: PCLMULQDQ, SSSE3 and SSE2 are enabled by the only caller;
    // block i < n is 16 bytes inside `group` and power n-1-i < AGGREGATE (checked above).
    unsafe {
        let (mut lo, mut mid, mut hi) = (
            _mm_setzero_si128(),
            _mm_setzero_si128(),
            _mm_setzero_si128(),
        );
        let block =
            |i: usize| _mm_shuffle_epi8(_mm_loadu_si128(group.as_ptr().add(16 * i).cast()), swap);
        let power = |i: usize| _mm_loadu_si128(powers.as_ptr().add(n - 1 - i).cast());
        for i in 1..n {
            product_into(block(i), power(i), &mut lo, &mut mid, &mut hi);
        }
        // Block 0 carries the running hash, so it is multiplied last: the other products
        // do not wait for the previous group's reduction.
        product_into(
            _mm_xor_si128(block(0), acc),
            power(0),
            &mut lo,
            &mut mid,
            &mut hi,
        );
        reduce(lo, karatsuba_mid(lo, mid, hi), hi)
    }
}

/// Adds the carry-less product x·h into the 256-bit sum `hi ‖ mid·2^64 ‖ lo` with three
/// 64-bit multiplies instead of four (Karatsuba): `mid` gathers (x0⊕x1)·(h0⊕h1), which is
/// the cross terms plus x0·h0 and x1·h1; [`karatsuba_mid`] takes those out once per
/// reduction. The multiplier is the bottleneck of GHASH, so a quarter fewer multiplies is
/// a quarter less time.
#[inline(always)]
pub(super) fn product_into(
    x: __m128i,
    h: __m128i,
    lo: &mut __m128i,
    mid: &mut __m128i,
    hi: &mut __m128i,
) {
    // SAFETY: the whole body: PCLMULQDQ and SSE2 are enabled by every caller (the kernels below).
    unsafe {
        *lo = _mm_xor_si128(*lo, _mm_clmulepi64_si128(x, h, 0x00));
        *hi = _mm_xor_si128(*hi, _mm_clmulepi64_si128(x, h, 0x11));
        let xk = _mm_xor_si128(x, _mm_shuffle_epi32(x, 0x4e));
        let hk = _mm_xor_si128(h, _mm_shuffle_epi32(h, 0x4e));
        *mid = _mm_xor_si128(*mid, _mm_clmulepi64_si128(xk, hk, 0x00));
    }
}

/// [`product_into`] on two blocks and two powers at once, one per 128-bit lane of 256-bit
/// sums.
#[inline(always)]
fn pair_product_into(
    x: __m256i,
    h: __m256i,
    lo: &mut __m256i,
    mid: &mut __m256i,
    hi: &mut __m256i,
) {
    // SAFETY: the whole body: VPCLMULQDQ and AVX2 are enabled by every caller (the 256-bit
    // kernels below).
    unsafe {
        *lo = _mm256_xor_si256(*lo, _mm256_clmulepi64_epi128(x, h, 0x00));
        *hi = _mm256_xor_si256(*hi, _mm256_clmulepi64_epi128(x, h, 0x11));
        let xk = _mm256_xor_si256(x, _mm256_shuffle_epi32(x, 0x4e));
        let hk = _mm256_xor_si256(h, _mm256_shuffle_epi32(h, 0x4e));
        *mid = _mm256_xor_si256(*mid, _mm256_clmulepi64_epi128(xk, hk, 0x00));
    }
}

/// A 256-bit sum's two lanes added into one 128-bit sum.
#[inline(always)]
fn lanes_sum(v: __m256i) -> __m128i {
    // SAFETY: AVX2 is enabled by every caller (the 256-bit kernels below).
    unsafe { _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)) }
}

/// The cross terms from Karatsuba's middle product: mid ⊕ lo ⊕ hi.
#[inline(always)]
pub(super) fn karatsuba_mid(lo: __m128i, mid: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: SSE2 is enabled by every caller.
    unsafe { _mm_xor_si128(mid, _mm_xor_si128(lo, hi)) }
}

/// `field::reduce`, on registers: the 256-bit product is assembled from `lo`, `mid`,
/// `hi` and its high-degree half folded back with shifts by 1, 2 and 7. The powers are
/// kept divided by x (`field::X_INVERSE`), so the product needs no one-bit shift first.
/// SSE shifts are per 64-bit lane, so the bits a 128-bit shift moves across lanes are
/// carried by byte shifts.
#[inline(always)]
pub(super) fn reduce(lo: __m128i, mid: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: the whole body: SSE2 is enabled by every caller.
    unsafe {
        // The 256-bit product v_hi ‖ v_lo.
        let v_lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
        let v_hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
        // t: each lane's bits that the shifts by 1, 2, 7 move out of it (to the lane below,
        // or out of the 128 bits as `w`, which is folded in again).
        let t = _mm_xor_si128(
            _mm_xor_si128(_mm_slli_epi64(v_lo, 63), _mm_slli_epi64(v_lo, 62)),
            _mm_slli_epi64(v_lo, 57),
        );
        let u = _mm_xor_si128(v_lo, _mm_slli_si128(t, 8));
        let shifted = _mm_xor_si128(
            _mm_xor_si128(_mm_srli_epi64(u, 1), _mm_srli_epi64(u, 2)),
            _mm_srli_epi64(u, 7),
        );
        _mm_xor_si128(
            _mm_xor_si128(v_hi, _mm_srli_si128(t, 8)),
            _mm_xor_si128(u, shifted),
        )
    }
}

/// Folds whole blocks into `y` sixteen at a time on 256-bit registers: block 2j and 2j+1
/// of a group share a register and are multiplied by H^(16-2j) and H^(15-2j) (`desc`
/// holds H^16..H^1), the two lanes' sums are added and reduced once; fewer than sixteen
/// left go to [`update`]. Panics if this CPU lacks VPCLMULQDQ, AVX2, PCLMULQDQ or SSSE3.
pub fn update_wide(
    powers: &[u128; AGGREGATE],
    desc: &[u128; WIDE_AGGREGATE],
    y: &mut u128,
    blocks: &[u8],
) {
    assert!(crate::cpu::has_all(&[
        Feature::Vpclmulqdq,
        Feature::Avx2,
        Feature::Pclmulqdq,
        Feature::Ssse3
    ]));
    let whole = blocks.len() / (16 * WIDE_AGGREGATE) * (16 * WIDE_AGGREGATE);
    if whole > 0 {
        // SAFETY: the features were just checked.
        unsafe { update_wide_blocks(desc, y, &blocks[..whole]) };
    }
    if whole < blocks.len() {
        update(powers, y, &blocks[whole..]);
    }
}

/// [`update_wide`]'s kernel over whole groups of sixteen blocks.
///
/// # Safety
/// The CPU must have VPCLMULQDQ, AVX2, PCLMULQDQ and SSSE3.
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
unsafe fn update_wide_blocks(desc: &[u128; WIDE_AGGREGATE], y: &mut u128, blocks: &[u8]) {
    let swap = _mm256_broadcastsi128_si256(_mm_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ));
    // SAFETY: `desc` starts with H^16; a u128 is 16 readable bytes, its lanes in
    // little-endian order.
    let (h16, mut acc) = unsafe {
        (
            _mm_loadu_si128(desc.as_ptr().cast()),
            _mm_loadu_si128((y as *const u128).cast()),
        )
    };
    for group in blocks.chunks_exact(16 * WIDE_AGGREGATE) {
        let (mut lo, mut mid, mut hi) = (
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
        );
        for j in 0..WIDE_AGGREGATE / 2 {
            // SAFETY: blocks 2j and 2j+1 are 32 bytes inside `group`; `desc` holds
            // WIDE_AGGREGATE u128s, and 2j + 1 < WIDE_AGGREGATE.
            let (x, h) = unsafe {
                (
                    _mm256_loadu_si256(group.as_ptr().add(32 * j).cast()),
                    _mm256_loadu_si256(desc.as_ptr().add(2 * j).cast()),
                )
            };
            pair_product_into(_mm256_shuffle_epi8(x, swap), h, &mut lo, &mut mid, &mut hi);
        }
        let (mut lo, mut mid, mut hi) = (lanes_sum(lo), lanes_sum(mid), lanes_sum(hi));
        // The running hash times H^16, added last (see `update_512_blocks`).
        product_into(acc, h16, &mut lo, &mut mid, &mut hi);
        acc = reduce(lo, karatsuba_mid(lo, mid, hi), hi);
    }
    // SAFETY: as the load above.
    unsafe { _mm_storeu_si128((y as *mut u128).cast(), acc) };
}

/// Folds whole blocks into `y` thirty-two at a time on 512-bit registers: four blocks per
/// register, multiplied by H^32..H^1 (`desc`), the lanes summed and reduced once; fewer
/// than thirty-two left go to [`update_wide`] (with `desc16`, the last sixteen powers). A VPCLMULQDQ issues at the same rate whatever its
/// width on the cores measured (Zen 4), so four blocks per instruction halve
/// [`update_wide`]'s multiplier time. Panics if this CPU lacks AVX-512F/BW, VPCLMULQDQ,
/// PCLMULQDQ or SSSE3.
pub fn update_512(
    powers: &[u128; AGGREGATE],
    desc: &[u128; ZMM_AGGREGATE],
    desc16: &[u128; WIDE_AGGREGATE],
    y: &mut u128,
    blocks: &[u8],
) {
    assert!(crate::cpu::has_all(&[
        Feature::Avx512f,
        Feature::Avx512bw,
        Feature::Vpclmulqdq,
        Feature::Avx2,
        Feature::Pclmulqdq,
        Feature::Ssse3
    ]));
    let whole = blocks.len() / (16 * ZMM_AGGREGATE) * (16 * ZMM_AGGREGATE);
    if whole > 0 {
        // SAFETY: the features were just checked.
        unsafe { update_512_blocks(desc, y, &blocks[..whole]) };
    }
    if whole < blocks.len() {
        update_wide(powers, desc16, y, &blocks[whole..]);
    }
}

/// [`update_512`]'s kernel over whole groups of sixteen blocks.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW, VPCLMULQDQ, PCLMULQDQ and SSSE3.
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,avx2,pclmulqdq,ssse3")]
unsafe fn update_512_blocks(desc: &[u128; ZMM_AGGREGATE], y: &mut u128, blocks: &[u8]) {
    let swap = _mm512_broadcast_i32x4(_mm_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ));
    const REGS: usize = ZMM_AGGREGATE / 4;
    // The powers and their Karatsuba halves' sums, loaded once for every group.
    // SAFETY: `desc` holds ZMM_AGGREGATE = 4 * REGS u128s.
    let h: [__m512i; REGS] =
        core::array::from_fn(|j| unsafe { _mm512_loadu_si512(desc.as_ptr().add(4 * j).cast()) });
    let hk: [__m512i; REGS] =
        core::array::from_fn(|j| _mm512_xor_si512(h[j], _mm512_shuffle_epi32(h[j], 0x4e)));
    let h32 = _mm512_castsi512_si128(h[0]);
    // SAFETY: a u128 is 16 readable bytes, its lanes in little-endian order.
    let mut acc = unsafe { _mm_loadu_si128((y as *const u128).cast()) };
    for group in blocks.chunks_exact(16 * ZMM_AGGREGATE) {
        let (mut lo, mut mid, mut hi) = (
            _mm512_setzero_si512(),
            _mm512_setzero_si512(),
            _mm512_setzero_si512(),
        );
        for j in 0..REGS {
            // SAFETY: blocks 4j..4j+3 are 64 bytes inside `group` (REGS * 64 bytes).
            let x = unsafe { _mm512_loadu_si512(group.as_ptr().add(64 * j).cast()) };
            let x = _mm512_shuffle_epi8(x, swap);
            // Karatsuba per lane, as `product_into`.
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(x, h[j], 0x00));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(x, h[j], 0x11));
            let xk = _mm512_xor_si512(x, _mm512_shuffle_epi32(x, 0x4e));
            mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128(xk, hk[j], 0x00));
        }
        let fold = |v: __m512i| {
            let v = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
            _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1))
        };
        let (mut lo, mut mid, mut hi) = (fold(lo), fold(mid), fold(hi));
        // The running hash belongs with the group's first block: (acc ⊕ X_1)·H^32. Its
        // product is taken apart and last, so that only one multiply and the reduction
        // wait for the previous group; the block products overlap that chain.
        product_into(acc, h32, &mut lo, &mut mid, &mut hi);
        acc = reduce(lo, karatsuba_mid(lo, mid, hi), hi);
    }
    // SAFETY: as the load above.
    unsafe { _mm_storeu_si128((y as *mut u128).cast(), acc) };
}

/// Messages whose text and lengths block fit one reduction on the 256- and 512-bit
/// backends: up to this many bytes of text (31 blocks, the lengths block the 32nd;
/// `clmul128` takes up to 15).
pub const FINAL_ONCE_MAX: usize = 16 * (ZMM_AGGREGATE - 1);

/// GHASH's last step in one reduction: the text `data` (at most [`FINAL_ONCE_MAX`] bytes,
/// its last block zero-padded) and then the lengths block `lengths` folded into `y`, n
/// blocks in all, block i multiplied by H^(n-i) from `desc` (H^32..H^1), two blocks per
/// 256-bit register with `wide` ([`final_once`]), else one per 128-bit register
/// ([`final_once_128`]), as the aggregated kernels fold a group. Through them a short
/// message's text went first (one reduction for up to eight blocks, sixteen from
/// sixteen) and the lengths block after it, a second multiply and reduction waiting on
/// the first. Panics if this CPU lacks PCLMULQDQ or SSSE3 (with `wide`, VPCLMULQDQ or
/// AVX2), or `data` is too long. Out of
/// line: inlined, it made `GhashKey::update_final` too large to inline into its callers,
/// and every message paid a call with six register saves (AES-128-GCM 16 B 6.09 → 6.34
/// TSC c/B, `BITWEAVE_CPU=avx2`).
#[inline(never)]
pub fn update_final_once(
    desc: &[u128; ZMM_AGGREGATE],
    y: &mut u128,
    data: &[u8],
    lengths: u128,
    wide: bool,
) {
    assert!(data.len() <= FINAL_ONCE_MAX);
    assert!(crate::cpu::has_all(&[Feature::Pclmulqdq, Feature::Ssse3]));
    assert!(!wide || crate::cpu::has_all(&[Feature::Vpclmulqdq, Feature::Avx2]));
    // The last two blocks (the text's last, zero-padded, and the lengths block) in a
    // buffer; every block before them is whole and read in place. With no text the
    // buffer holds the lengths block alone, after a zero block that is not multiplied.
    let text_blocks = data.len().div_ceil(16);
    let before = text_blocks.saturating_sub(1);
    let mut tail = [0u8; 32];
    tail[..data.len() - 16 * before].copy_from_slice(&data[16 * before..]);
    tail[16..].copy_from_slice(&lengths.to_be_bytes());
    let (head, n) = (&data[..16 * before], text_blocks + 1);
    // SAFETY: the features were just checked.
    unsafe {
        if wide {
            final_once(desc, y, head, &tail, n)
        } else {
            final_once_128(desc, y, head, &tail, n)
        }
    }
}

/// [`final_once`] on 128-bit registers (`clmul128`, for up to 15 blocks of text: the
/// multiplies are as many as by eight-block groups, the reduction one instead of two).
///
/// # Safety
/// The CPU must have PCLMULQDQ and SSSE3.
#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
unsafe fn final_once_128(
    desc: &[u128; ZMM_AGGREGATE],
    y: &mut u128,
    head: &[u8],
    tail: &[u8; 32],
    n: usize,
) {
    debug_assert!(n <= ZMM_AGGREGATE && head.len() == 16 * n.saturating_sub(2));
    let swap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let first = ZMM_AGGREGATE - n;
    // SAFETY: block i < n - 2 lies in `head`, the last two in `tail`; power first + i <
    // ZMM_AGGREGATE; a u128 is 16 readable bytes.
    unsafe {
        let block = |i: usize| {
            let at = if i + 2 < n {
                head.as_ptr().add(16 * i)
            } else {
                tail.as_ptr().add(16 * (i + 2 - n))
            };
            _mm_shuffle_epi8(_mm_loadu_si128(at.cast()), swap)
        };
        let power = |i: usize| _mm_loadu_si128(desc.as_ptr().add(first + i).cast());
        let (mut lo, mut mid, mut hi) = (
            _mm_setzero_si128(),
            _mm_setzero_si128(),
            _mm_setzero_si128(),
        );
        for i in 1..n {
            product_into(block(i), power(i), &mut lo, &mut mid, &mut hi);
        }
        // The first block carries the running hash, multiplied last (as `fold_group`).
        let acc = _mm_loadu_si128((y as *const u128).cast());
        product_into(
            _mm_xor_si128(block(0), acc),
            power(0),
            &mut lo,
            &mut mid,
            &mut hi,
        );
        let acc = reduce(lo, karatsuba_mid(lo, mid, hi), hi);
        _mm_storeu_si128((y as *mut u128).cast(), acc);
    }
}

/// [`update_final_once`]'s 256-bit kernel: `head` the whole blocks before `tail`'s two
/// (of which only the last counts when `n` is 1). Pairs run from the end of the message,
/// so with n odd the first block (which carries the running hash) is multiplied alone in
/// a 128-bit register.
///
/// # Safety
/// The CPU must have VPCLMULQDQ, AVX2, PCLMULQDQ and SSSE3.
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,ssse3")]
unsafe fn final_once(
    desc: &[u128; ZMM_AGGREGATE],
    y: &mut u128,
    head: &[u8],
    tail: &[u8; 32],
    n: usize,
) {
    debug_assert!(n <= ZMM_AGGREGATE && head.len() == 16 * n.saturating_sub(2));
    let swap128 = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let swap = _mm256_broadcastsi128_si256(swap128);
    // SAFETY: a u128 is 16 readable bytes, its lanes in little-endian order.
    let acc = unsafe { _mm_loadu_si128((y as *const u128).cast()) };
    // Block i's power H^(n-i) is desc[ZMM_AGGREGATE - n + i].
    let first = ZMM_AGGREGATE - n;
    // SAFETY: first + i + 1 < ZMM_AGGREGATE for every pair below (i + 1 < n).
    let power_pair = |i: usize| unsafe { _mm256_loadu_si256(desc.as_ptr().add(first + i).cast()) };
    let (mut lo, mut mid, mut hi) = (
        _mm256_setzero_si256(),
        _mm256_setzero_si256(),
        _mm256_setzero_si256(),
    );
    let mut pair = |x: __m256i, h: __m256i| {
        pair_product_into(_mm256_shuffle_epi8(x, swap), h, &mut lo, &mut mid, &mut hi);
    };
    // The block at index i, from the head or the tail (the tail's two are n-2 and n-1).
    // SAFETY: i < n - 2 lies in `head` (16(n-2) bytes), the others in `tail`.
    let block = |i: usize| unsafe {
        if i + 2 < n {
            _mm_loadu_si128(head.as_ptr().add(16 * i).cast())
        } else {
            _mm_loadu_si128(tail.as_ptr().add(16 * (i + 2 - n)).cast())
        }
    };
    let odd = n % 2 == 1;
    // Pairs (i, i + 1) from the second block when n is odd, from the first when even; the
    // last pair, (n - 2, n - 1), is the tail.
    let mut i = usize::from(odd);
    while i + 2 < n {
        // SAFETY: blocks i and i + 1 < n - 2 are 32 bytes inside `head`.
        pair(
            unsafe { _mm256_loadu_si256(head.as_ptr().add(16 * i).cast()) },
            power_pair(i),
        );
        i += 2;
    }
    if n >= 2 {
        // SAFETY: `tail` is 32 readable bytes.
        pair(
            unsafe { _mm256_loadu_si256(tail.as_ptr().cast()) },
            power_pair(n - 2),
        );
    }
    let (mut lo, mut mid, mut hi) = (lanes_sum(lo), lanes_sum(mid), lanes_sum(hi));
    // SAFETY: desc[first] is H^n.
    let h_n = unsafe { _mm_loadu_si128(desc.as_ptr().add(first).cast()) };
    // The running hash belongs with the first block, (acc ⊕ X_0)·H^n: with n odd the
    // first block is multiplied here with it, with n even it went in the first pair.
    let x0 = if odd {
        _mm_shuffle_epi8(block(0), swap128)
    } else {
        _mm_setzero_si128()
    };
    product_into(_mm_xor_si128(x0, acc), h_n, &mut lo, &mut mid, &mut hi);
    let acc = reduce(lo, karatsuba_mid(lo, mid, hi), hi);
    // SAFETY: as the load above.
    unsafe { _mm_storeu_si128((y as *mut u128).cast(), acc) };
}
