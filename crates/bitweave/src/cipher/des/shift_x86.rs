//! The AVX2 round of [`super::shift`] (`shift256`): each 32-bit half is held spread and
//! broadcast to the four 64-bit lanes of a ymm register, so one instruction looks up four
//! S-boxes' copies of one output bit.
//!
//! Lanes of group A hold S-boxes 1, 3, 5, 7 and of group B S-boxes 2, 4, 6, 8. Per round:
//! XOR the key chunks (stored complemented, in their windows), shift each lane's window
//! down and mask six bits — giving 63 - x — then for each output bit j shift the truth
//! table left by 63 - x (`vpsllvq`: bit x reaches the sign), select that bit's P mask with
//! `vblendvpd`, OR the eight results and the four lanes together. The select reads only
//! the sign, so no bit of the secret reaches an address or a branch.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::shift_layout::{fp, ip, PLACE, TRUTH, WINDOW};
use crate::cipher::Feedback;

/// The round's constants in lanes: truth tables and P masks per output bit, per group.
struct Lanes {
    truth_a: [__m256i; 4],
    truth_b: [__m256i; 4],
    place_a: [__m256i; 4],
    place_b: [__m256i; 4],
    window_a: __m256i,
    window_b: __m256i,
    six: __m256i,
}

/// Four u64s into a ymm (lane 0 first).
#[inline(always)]
fn lanes(v: [u64; 4]) -> __m256i {
    // SAFETY: loadu reads 32 bytes from a live [u64; 4]; AVX is part of AVX2, which every
    // caller (a `target_feature(enable = "avx2")` function) has.
    unsafe { _mm256_loadu_si256(v.as_ptr().cast()) }
}

impl Lanes {
    #[inline(always)]
    fn new() -> Self {
        let group = |t: &[[u64; 4]; 8], first: usize, j: usize| {
            lanes([
                t[first][j],
                t[first + 2][j],
                t[first + 4][j],
                t[first + 6][j],
            ])
        };
        let w = |first: usize| {
            lanes([
                WINDOW[first] as u64,
                WINDOW[first + 2] as u64,
                WINDOW[first + 4] as u64,
                WINDOW[first + 6] as u64,
            ])
        };
        // Written out, not `array::from_fn`: a closure there is compiled without the
        // caller's AVX2, and with several codegen units each load stayed a call.
        let four = |t: &[[u64; 4]; 8], first: usize| {
            [
                group(t, first, 0),
                group(t, first, 1),
                group(t, first, 2),
                group(t, first, 3),
            ]
        };
        Lanes {
            truth_a: four(&TRUTH, 0),
            truth_b: four(&TRUTH, 1),
            place_a: four(&PLACE, 0),
            place_b: four(&PLACE, 1),
            window_a: w(0),
            window_b: w(1),
            // SAFETY: AVX (set1) is available to every caller (see `lanes`).
            six: unsafe { _mm256_set1_epi64x(63) },
        }
    }
}

/// One round's key chunks as group A and group B lanes: `shift`'s `[u64; 8]` reordered
/// to A's four lanes then B's, so each group is one load.
#[inline(always)]
fn round_keys(k: &[u64; 8]) -> (__m256i, __m256i) {
    // SAFETY: two 32-byte loads from the live [u64; 8]; AVX is available to every caller.
    unsafe {
        (
            _mm256_loadu_si256(k.as_ptr().cast()),
            _mm256_loadu_si256(k.as_ptr().add(4).cast()),
        )
    }
}

/// `place` where the sign bit of `sign`'s lane is set, else 0: `vblendvpd`. Written as
/// assembly so the compiler keeps the one-instruction select (it would otherwise turn it
/// into a compare and two ANDs on the chain's critical path).
#[target_feature(enable = "avx2")]
#[inline]
fn select(place: __m256i, sign: __m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: vxorpd and vblendvpd read and write registers only (AVX, enabled here).
    unsafe {
        std::arch::asm!(
            "vxorpd {o}, {o}, {o}",
            "vblendvpd {o}, {o}, {p}, {s}",
            o = out(ymm_reg) out,
            p = in(ymm_reg) place,
            s = in(ymm_reg) sign,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// f of a broadcast spread half, given as that half XOR the round's key chunks of group
/// A (`ra`) and of group B (`rb`); the result is broadcast too.
#[target_feature(enable = "avx2")]
#[inline]
fn f(ra: __m256i, rb: __m256i, c: &Lanes) -> __m256i {
    // 63 - x per lane (the stored key chunks are complemented).
    let xa = _mm256_and_si256(_mm256_srlv_epi64(ra, c.window_a), c.six);
    let xb = _mm256_and_si256(_mm256_srlv_epi64(rb, c.window_b), c.six);
    let pick =
        |truth: __m256i, x: __m256i, place: __m256i| select(place, _mm256_sllv_epi64(truth, x));
    let a01 = _mm256_or_si256(
        pick(c.truth_a[0], xa, c.place_a[0]),
        pick(c.truth_a[1], xa, c.place_a[1]),
    );
    let a23 = _mm256_or_si256(
        pick(c.truth_a[2], xa, c.place_a[2]),
        pick(c.truth_a[3], xa, c.place_a[3]),
    );
    let b01 = _mm256_or_si256(
        pick(c.truth_b[0], xb, c.place_b[0]),
        pick(c.truth_b[1], xb, c.place_b[1]),
    );
    let b23 = _mm256_or_si256(
        pick(c.truth_b[2], xb, c.place_b[2]),
        pick(c.truth_b[3], xb, c.place_b[3]),
    );
    let o = _mm256_or_si256(_mm256_or_si256(a01, a23), _mm256_or_si256(b01, b23));
    or_lanes(o)
}

/// The OR of the four 64-bit lanes, broadcast: within each 128-bit half first (`vpshufd`,
/// one cycle), then across the halves (`vperm2i128`). Written as assembly so the
/// compiler keeps this order; left to itself it reduces across the halves first through
/// an extract, an insert and a `vpermq`, which costs the chain several cycles a round.
#[target_feature(enable = "avx2")]
#[inline]
fn or_lanes(o: __m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: vpshufd, vpor and vperm2i128 read and write registers only (AVX2, enabled
    // here).
    unsafe {
        std::arch::asm!(
            "vpshufd {t}, {o}, 0x4E",
            "vpor {o}, {o}, {t}",
            "vperm2i128 {t}, {o}, {o}, 0x01",
            "vpor {o}, {o}, {t}",
            o = inout(ymm_reg) o => out,
            t = out(ymm_reg) _,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// [`super::shift`]'s stage structure on broadcast halves of `N` independent blocks, in
/// step with one another (their instructions interleave, filling the units one block's
/// dependency chain leaves idle); returns (r, l) as the stage structure's pre-output.
///
/// Each round reads one half (`a`) and XORs f of it into the other (`b`); then the
/// halves swap roles, except after a stage's last round (the stage's final swap). The
/// f output that last changed `a` is kept apart in `pend` rather than applied, so that
/// `a`'s key XOR for the next round is computed while f is still running: the chain's
/// critical path is then f alone plus one XOR.
#[target_feature(enable = "avx2")]
#[inline]
fn rounds<const N: usize>(
    l: [__m256i; N],
    r: [__m256i; N],
    keys: &[[u64; 8]],
    c: &Lanes,
) -> ([__m256i; N], [__m256i; N]) {
    let (mut a, mut b) = (r, l);
    let mut pend = [_mm256_setzero_si256(); N];
    for (i, k) in keys.iter().enumerate() {
        let (ka, kb) = round_keys(k);
        for n in 0..N {
            let (aka, akb) = (_mm256_xor_si256(a[n], ka), _mm256_xor_si256(a[n], kb));
            let out = f(
                _mm256_xor_si256(aka, pend[n]),
                _mm256_xor_si256(akb, pend[n]),
                c,
            );
            if i % 16 == 15 {
                b[n] = _mm256_xor_si256(b[n], out);
            } else {
                (a[n], b[n], pend[n]) = (b[n], _mm256_xor_si256(a[n], pend[n]), out);
            }
        }
    }
    // 15 role swaps per stage, an odd number in all: `a` ends as L16, `b` as R16.
    (b, core::array::from_fn(|n| _mm256_xor_si256(a[n], pend[n])))
}

#[inline(always)]
fn broadcast(x: u64) -> __m256i {
    // SAFETY: AVX (set1) is available to every caller (see `lanes`).
    unsafe { _mm256_set1_epi64x(x as i64) }
}

#[inline(always)]
fn lane0(v: __m256i) -> u64 {
    // SAFETY: SSE2/AVX moves, available to every caller (see `lanes`).
    unsafe { _mm_cvtsi128_si64(_mm256_castsi256_si128(v)) as u64 }
}

/// All rounds of `keys` on spread (L, R); returns the pre-output as spread halves.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn rounds_avx2(l: u64, r: u64, keys: &[[u64; 8]]) -> (u64, u64) {
    let c = Lanes::new();
    let ([l], [r]) = rounds([broadcast(l)], [broadcast(r)], keys, &c);
    (lane0(l), lane0(r))
}

/// Every block of `blocks` through the rounds of `keys` (IP and FP included), two at a
/// time in step: a lone block's round is latency-bound (~10 of its ~14 cycles on Zen 4
/// wait on the previous instruction), so a second block's instructions fill the gaps.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn crypt_avx2(blocks: &mut [u8], keys: &[[u64; 8]]) {
    let c = Lanes::new();
    let mut pairs = blocks.chunks_exact_mut(16);
    for p in &mut pairs {
        let (x, y) = p.split_at_mut(8);
        let ((xl, xr), (yl, yr)) = (ip(x), ip(y));
        let (l, r) = rounds(
            [broadcast(xl), broadcast(yl)],
            [broadcast(xr), broadcast(yr)],
            keys,
            &c,
        );
        fp(lane0(l[0]), lane0(r[0]), x);
        fp(lane0(l[1]), lane0(r[1]), y);
    }
    for b in pairs.into_remainder().chunks_exact_mut(8) {
        let (bl, br) = ip(b);
        let ([l], [r]) = rounds([broadcast(bl)], [broadcast(br)], keys, &c);
        fp(lane0(l), lane0(r), b);
    }
}

/// One CBC/CFB/OFB encryption chain over whole blocks with the feedback kept broadcast
/// in registers (IP domain); `state` is the chain's block.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn chain_avx2(
    feedback: Feedback,
    state: &mut [u8],
    data: &mut [u8],
    keys: &[[u64; 8]],
) {
    let c = Lanes::new();
    let (sl, sr) = ip(state);
    let (mut zl, mut zr) = (broadcast(sl), broadcast(sr));
    for b in data.chunks_exact_mut(8) {
        let (pl, pr) = ip(b);
        let (pl, pr) = (broadcast(pl), broadcast(pr));
        match feedback {
            Feedback::Cbc => {
                let ([l], [r]) = rounds(
                    [_mm256_xor_si256(zl, pl)],
                    [_mm256_xor_si256(zr, pr)],
                    keys,
                    &c,
                );
                (zl, zr) = (l, r);
                fp(lane0(zl), lane0(zr), b);
            }
            Feedback::Cfb => {
                let ([el], [er]) = rounds([zl], [zr], keys, &c);
                (zl, zr) = (_mm256_xor_si256(el, pl), _mm256_xor_si256(er, pr));
                fp(lane0(zl), lane0(zr), b);
            }
            Feedback::Ofb => {
                let ([l], [r]) = rounds([zl], [zr], keys, &c);
                (zl, zr) = (l, r);
                fp(lane0(zl) ^ lane0(pl), lane0(zr) ^ lane0(pr), b);
            }
        }
    }
    fp(lane0(zl), lane0(zr), state);
}
