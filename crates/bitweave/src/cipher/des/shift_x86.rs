//! The x86 rounds of [`super::shift`]: `shift256` (AVX2) and `rotate256` (AVX-512VL, same
//! registers). Each 32-bit half is held spread and broadcast to the four 64-bit lanes of a
//! ymm register, so one instruction looks up four S-boxes' copies of one output bit.
//!
//! Lanes of group A hold S-boxes 1, 3, 5, 7 and of group B S-boxes 2, 4, 6, 8. Per round:
//! XOR the key chunks (stored complemented, in their windows), bring each lane's window
//! down — its low six bits are then 63 - x — and for each output bit j shift or rotate the
//! bit's truth table by 63 - x, turn the looked-up bit into its P position, and OR the
//! eight results and the four lanes together. Nothing but register shifts and logic sees
//! the secret, so no bit of it reaches an address or a branch.
//!
//! The two forms differ in how a looked-up bit reaches its P position, which is what a
//! round's instruction count hangs on. `shift256` shifts the bit to the sign with
//! `vpsllvq` and selects the P mask with `vblendvpd` (one instruction on AMD, three
//! micro-ops on Intel's recent cores, where the eight selects were half of a round's
//! work). `rotate256` rotates a pre-rotated table so the bit lands on its P position
//! directly (see [`LanesRotate`]).
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::shift_layout::{fp, ip, PLACE, TRUTH, WINDOW};
use crate::cipher::Feedback;

/// f on broadcast spread halves, in one of the two instruction sets.
trait RoundFunction {
    /// f of a broadcast spread half, given as that half XOR the round's key chunks of
    /// group A (`ra`) and of group B (`rb`); the result is broadcast too.
    ///
    /// # Safety
    /// The CPU must have the form's features (checked when the backend was built).
    unsafe fn f(&self, ra: __m256i, rb: __m256i) -> __m256i;
}

/// Four u64s into a ymm (lane 0 first).
#[inline(always)]
fn lanes(v: [u64; 4]) -> __m256i {
    // SAFETY: loadu reads 32 bytes from a live [u64; 4]; AVX is part of AVX2, which every
    // caller (a `target_feature(enable = "avx2")` function) has.
    unsafe { _mm256_loadu_si256(v.as_ptr().cast()) }
}

/// `t[s][j]` of group A's (`first` = 0) or group B's (`first` = 1) four S-boxes.
#[inline(always)]
fn group(t: &[[u64; 4]; 8], first: usize, j: usize) -> __m256i {
    lanes([
        t[first][j],
        t[first + 2][j],
        t[first + 4][j],
        t[first + 6][j],
    ])
}

/// `group` for the four output bits. Written out, not `array::from_fn`: a closure there
/// is compiled without the caller's target features, and with several codegen units each
/// load stayed a call.
#[inline(always)]
fn four(t: &[[u64; 4]; 8], first: usize) -> [__m256i; 4] {
    [
        group(t, first, 0),
        group(t, first, 1),
        group(t, first, 2),
        group(t, first, 3),
    ]
}

/// Where a group's S-boxes' windows start, per lane.
#[inline(always)]
fn windows(first: usize) -> __m256i {
    lanes([
        WINDOW[first] as u64,
        WINDOW[first + 2] as u64,
        WINDOW[first + 4] as u64,
        WINDOW[first + 6] as u64,
    ])
}

// ---- shift256: AVX2 ------------------------------------------------------------------

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

impl Lanes {
    #[inline(always)]
    fn new() -> Self {
        Lanes {
            truth_a: four(&TRUTH, 0),
            truth_b: four(&TRUTH, 1),
            place_a: four(&PLACE, 0),
            place_b: four(&PLACE, 1),
            window_a: windows(0),
            window_b: windows(1),
            // SAFETY: AVX (set1) is available to every caller (see `lanes`).
            six: unsafe { _mm256_set1_epi64x(63) },
        }
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

/// One output bit of a group: `place` if bit x of `truth` is set (`x63` = 63 - x).
#[target_feature(enable = "avx2")]
#[inline]
fn pick(truth: __m256i, x63: __m256i, place: __m256i) -> __m256i {
    select(place, _mm256_sllv_epi64(truth, x63))
}

impl RoundFunction for Lanes {
    #[inline(always)]
    unsafe fn f(&self, ra: __m256i, rb: __m256i) -> __m256i {
        // SAFETY: every caller has AVX2 (the trait's contract), all this uses.
        unsafe { f_avx2(ra, rb, self) }
    }
}

#[target_feature(enable = "avx2")]
#[inline]
fn f_avx2(ra: __m256i, rb: __m256i, c: &Lanes) -> __m256i {
    // 63 - x per lane (the stored key chunks are complemented).
    let xa = _mm256_and_si256(_mm256_srlv_epi64(ra, c.window_a), c.six);
    let xb = _mm256_and_si256(_mm256_srlv_epi64(rb, c.window_b), c.six);
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

// ---- rotate256: AVX-512VL --------------------------------------------------------------

/// The AVX-512 form's constants: truth tables rotated to their bits' P positions, the
/// windows, and the select tree's keys.
///
/// This form keeps one copy of a half (the low 32 bits of a lane; the high 32 bits are
/// never read) and its round keys folded to match ([`fold_key`]): a 32-bit rotate
/// (`vprorvd`) brings each window to the lane's low six bits, wrapping around where the
/// spread form needs its second copy. A lookup is then a 64-bit rotate (`vprolvq`, count
/// modulo 64) of a truth table pre-rotated so that bit x lands on that output bit's P
/// position, whatever x is — no mask step, no sign to spread, and half the shift-unit
/// work of selecting through the sign (the shift units, two per core, were the limit).
///
/// Within a lane the eight looked-up bits (four per group) sit on eight distinct P
/// positions, every other bit of the rotated tables being junk. A select `k ? u : v`
/// (`vpternlogq` 0xCA) keyed by the positions of some of them passes those from `u` and
/// everything else from `v`; three levels of such selects route each position to its own
/// lookup, and one AND clears the positions no bit of this lane owns.
struct LanesRotate {
    truth_a: [__m256i; 4],
    truth_b: [__m256i; 4],
    window_a: __m256i,
    window_b: __m256i,
    /// Level 1 keys: the positions of bit 0 (to select between bits 0 and 1) and of bit
    /// 2 (between 2 and 3), per group.
    key_a: [__m256i; 2],
    key_b: [__m256i; 2],
    /// Level 2 keys: the positions of bits 0 and 1 of a group.
    pair_a: __m256i,
    pair_b: __m256i,
    /// Level 3 key: the positions of group A's four bits.
    group_a: __m256i,
    /// The positions this lane's eight bits own, and the same with the 64-bit lanes of
    /// each 128-bit half swapped (for the first step of the lane reduction).
    owned: __m256i,
    owned_swapped: __m256i,
}

/// A spread round key (chunks at their windows, up to bit 33) for `rotate256`'s one-copy
/// form: the bits above 31 wrap around to the bottom.
pub(crate) fn fold_key(k: u64) -> u64 {
    (k | (k >> 32)) & 0xFFFF_FFFF
}

/// Where output bit j of S-box s lands after P in the one-copy form.
fn position(s: usize, j: usize) -> u32 {
    (PLACE[s][j] as u32).trailing_zeros()
}

/// The OR of the one-copy P positions of output bits `js`, per lane of a group.
#[inline(always)]
fn places(first: usize, js: &[usize]) -> __m256i {
    let mut m = [0u64; 4];
    for (lane, m) in m.iter_mut().enumerate() {
        for &j in js {
            *m |= 1 << position(first + 2 * lane, j);
        }
    }
    lanes(m)
}

/// Truth tables of a group's output bit j, each rotated so that a rotate by 63 - x puts
/// bit x on the bit's P position p: bit x sits at x + (p + 1) + (63 - x) = p + 64.
#[inline(always)]
fn rotated_truth(first: usize, j: usize) -> __m256i {
    let t = |lane: usize| {
        let s = first + 2 * lane;
        TRUTH[s][j].rotate_left(position(s, j) + 1)
    };
    lanes([t(0), t(1), t(2), t(3)])
}

/// [`rotated_truth`] for the four output bits (written out: see [`four`]).
#[inline(always)]
fn rotated_truths(first: usize) -> [__m256i; 4] {
    [
        rotated_truth(first, 0),
        rotated_truth(first, 1),
        rotated_truth(first, 2),
        rotated_truth(first, 3),
    ]
}

impl LanesRotate {
    #[inline(always)]
    fn new() -> Self {
        let owned = |lane: usize| -> u64 {
            let mut m = 0;
            for j in 0..4 {
                m |= 1 << position(2 * lane, j) | 1 << position(2 * lane + 1, j);
            }
            m
        };
        LanesRotate {
            truth_a: rotated_truths(0),
            truth_b: rotated_truths(1),
            window_a: windows(0),
            window_b: windows(1),
            key_a: [places(0, &[0]), places(0, &[2])],
            key_b: [places(1, &[0]), places(1, &[2])],
            pair_a: places(0, &[0, 1]),
            pair_b: places(1, &[0, 1]),
            group_a: places(0, &[0, 1, 2, 3]),
            owned: lanes([owned(0), owned(1), owned(2), owned(3)]),
            owned_swapped: lanes([owned(1), owned(0), owned(3), owned(2)]),
        }
    }
}

/// The rotated table's bit x on its P position (`x63`'s low six bits are 63 - x).
#[inline(always)]
fn look_up(truth: __m256i, x63: __m256i) -> __m256i {
    // SAFETY: an AVX-512VL instruction, which every caller has (see `RoundFunction::f`).
    unsafe { _mm256_rolv_epi64(truth, x63) }
}

/// `key ? u : v`, bit by bit.
#[inline(always)]
fn mux(key: __m256i, u: __m256i, v: __m256i) -> __m256i {
    // SAFETY: an AVX-512VL instruction, which every caller has (see `RoundFunction::f`).
    unsafe { _mm256_ternarylogic_epi64::<0xCA>(key, u, v) }
}

impl RoundFunction for LanesRotate {
    #[inline(always)]
    unsafe fn f(&self, ra: __m256i, rb: __m256i) -> __m256i {
        // SAFETY: the caller has AVX2 and AVX-512F/VL (the trait's contract); registers
        // only.
        let (xa, xb) = unsafe {
            (
                _mm256_rorv_epi32(ra, self.window_a),
                _mm256_rorv_epi32(rb, self.window_b),
            )
        };
        let (ta, tb) = (&self.truth_a, &self.truth_b);
        let a01 = mux(self.key_a[0], look_up(ta[0], xa), look_up(ta[1], xa));
        let a23 = mux(self.key_a[1], look_up(ta[2], xa), look_up(ta[3], xa));
        let b01 = mux(self.key_b[0], look_up(tb[0], xb), look_up(tb[1], xb));
        let b23 = mux(self.key_b[1], look_up(tb[2], xb), look_up(tb[3], xb));
        let a = mux(self.pair_a, a01, a23);
        let b = mux(self.pair_b, b01, b23);
        let o = mux(self.group_a, a, b);
        // The lane reduction, with the clearing AND folded into its first step: the
        // swapped copy is cleared by the swapped mask in the same `vpternlogq` (0xF8:
        // A | (B & C)) that ORs it in.
        // SAFETY: as above.
        unsafe {
            let clean = _mm256_and_si256(o, self.owned);
            let swapped = _mm256_shuffle_epi32::<0x4E>(o);
            let half = _mm256_ternarylogic_epi64::<0xF8>(clean, swapped, self.owned_swapped);
            _mm256_or_si256(half, _mm256_permute2x128_si256::<0x01>(half, half))
        }
    }
}

// ---- The rounds, the block loop and the chain, for either form --------------------------

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

/// `x`, through an empty assembly block: the compiler cannot re-associate across it. The
/// rounds XOR the key into a half before f's previous output is ready; left to itself,
/// the compiler XORs that output in first (one XOR fewer for two groups) and puts a
/// second XOR on the chain's critical path every round.
#[target_feature(enable = "avx2")]
#[inline]
fn settled(mut x: __m256i) -> __m256i {
    // SAFETY: an empty assembly block that only claims to read and write `x`.
    unsafe {
        std::arch::asm!("/* {0} */", inout(ymm_reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

#[inline(always)]
fn xor(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2, available to every caller (see `lanes`).
    unsafe { _mm256_xor_si256(a, b) }
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
///
/// # Safety
/// The CPU must have `F`'s features.
#[inline(always)]
unsafe fn rounds<const N: usize, F: RoundFunction>(
    l: [__m256i; N],
    r: [__m256i; N],
    keys: &[[u64; 8]],
    c: &F,
) -> ([__m256i; N], [__m256i; N]) {
    let (mut a, mut b) = (r, l);
    let mut pend = [broadcast(0); N];
    for (i, k) in keys.iter().enumerate() {
        let (ka, kb) = round_keys(k);
        for n in 0..N {
            // SAFETY: AVX2, available to every caller (see `lanes`).
            let (aka, akb) = unsafe { (settled(xor(a[n], ka)), settled(xor(a[n], kb))) };
            // SAFETY: the caller's CPU has F's features (this function's contract).
            let out = unsafe { c.f(xor(aka, pend[n]), xor(akb, pend[n])) };
            if i % 16 == 15 {
                b[n] = xor(b[n], out);
            } else {
                (a[n], b[n], pend[n]) = (b[n], xor(a[n], pend[n]), out);
            }
        }
    }
    // 15 role swaps per stage, an odd number in all: `a` ends as L16, `b` as R16.
    for n in 0..N {
        a[n] = xor(a[n], pend[n]);
    }
    (b, a)
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

/// Blocks of `blocks` through the rounds of `keys` (IP and FP included), `N` at a time in
/// step: a lone block's round is latency-bound (~10 of its ~14 cycles on Zen 4 wait on
/// the previous instruction), so other blocks' instructions fill the gaps. Returns the
/// blocks left over (fewer than `N`).
///
/// # Safety
/// The CPU must have `F`'s features.
#[inline(always)]
unsafe fn crypt_in_step<'a, const N: usize, F: RoundFunction>(
    blocks: &'a mut [u8],
    keys: &[[u64; 8]],
    c: &F,
) -> &'a mut [u8] {
    let mut groups = blocks.chunks_exact_mut(8 * N);
    for g in &mut groups {
        let (mut l, mut r) = ([broadcast(0); N], [broadcast(0); N]);
        for (n, b) in g.chunks_exact(8).enumerate() {
            let (bl, br) = ip(b);
            (l[n], r[n]) = (broadcast(bl), broadcast(br));
        }
        // SAFETY: this function's contract.
        let (l, r) = unsafe { rounds(l, r, keys, c) };
        for (n, b) in g.chunks_exact_mut(8).enumerate() {
            fp(lane0(l[n]), lane0(r[n]), b);
        }
    }
    groups.into_remainder()
}

/// One CBC/CFB/OFB encryption chain over whole blocks with the feedback kept broadcast
/// in registers (IP domain); `state` is the chain's block.
///
/// # Safety
/// The CPU must have `F`'s features.
#[inline(always)]
unsafe fn chain<F: RoundFunction>(
    feedback: Feedback,
    state: &mut [u8],
    data: &mut [u8],
    keys: &[[u64; 8]],
    c: &F,
) {
    let (sl, sr) = ip(state);
    let (mut zl, mut zr) = (broadcast(sl), broadcast(sr));
    for b in data.chunks_exact_mut(8) {
        let (pl, pr) = ip(b);
        let (pl, pr) = (broadcast(pl), broadcast(pr));
        let (il, ir) = match feedback {
            Feedback::Cbc => (xor(zl, pl), xor(zr, pr)),
            Feedback::Cfb | Feedback::Ofb => (zl, zr),
        };
        // SAFETY: this function's contract.
        let ([l], [r]) = unsafe { rounds([il], [ir], keys, c) };
        // The next feedback, and what the block becomes (OFB: the data XOR the output).
        let (ol, or) = match feedback {
            Feedback::Cbc => {
                (zl, zr) = (l, r);
                (zl, zr)
            }
            Feedback::Cfb => {
                (zl, zr) = (xor(l, pl), xor(r, pr));
                (zl, zr)
            }
            Feedback::Ofb => {
                (zl, zr) = (l, r);
                (xor(l, pl), xor(r, pr))
            }
        };
        fp(lane0(ol), lane0(or), b);
    }
    fp(lane0(zl), lane0(zr), state);
}

// ---- Entry points --------------------------------------------------------------------

/// All rounds of `keys` on spread (L, R); returns the pre-output as spread halves.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn rounds_avx2(l: u64, r: u64, keys: &[[u64; 8]]) -> (u64, u64) {
    // SAFETY: AVX2, this function's contract, is all `Lanes` needs.
    let ([l], [r]) = unsafe { rounds([broadcast(l)], [broadcast(r)], keys, &Lanes::new()) };
    (lane0(l), lane0(r))
}

/// Every block of `blocks` through `shift256`'s rounds, two at a time in step (the
/// round's ~30 vector operations a block leave room for a second block, not a third).
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn crypt_avx2(blocks: &mut [u8], keys: &[[u64; 8]]) {
    let c = Lanes::new();
    // SAFETY: AVX2, this function's contract, is all `Lanes` needs.
    unsafe {
        let rest = crypt_in_step::<2, _>(blocks, keys, &c);
        crypt_in_step::<1, _>(rest, keys, &c);
    }
}

/// [`chain`] with `shift256`'s round.
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
    // SAFETY: AVX2, this function's contract, is all `Lanes` needs.
    unsafe { chain(feedback, state, data, keys, &Lanes::new()) }
}

/// [`rounds_avx2`] with `rotate256`'s round.
///
/// # Safety
/// The CPU must have AVX2, AVX-512F and AVX-512VL, and `keys` must be folded
/// ([`fold_key`]).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(crate) unsafe fn rounds_avx512(l: u64, r: u64, keys: &[[u64; 8]]) -> (u64, u64) {
    let c = LanesRotate::new();
    // SAFETY: this function's contract gives `LanesRotate` its features.
    let ([l], [r]) = unsafe { rounds([broadcast(l)], [broadcast(r)], keys, &c) };
    (lane0(l), lane0(r))
}

/// Every block of `blocks` through `rotate256`'s rounds, three at a time in step (its
/// round is half the shift work of `shift256`'s; measured on Intel, 3DES ECB at 64 B: two
/// in step 44.9 c/B, three 41.0-42.6, four 47-48, where the registers run out), then two,
/// then one.
///
/// # Safety
/// As [`rounds_avx512`].
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(crate) unsafe fn crypt_avx512(blocks: &mut [u8], keys: &[[u64; 8]]) {
    let c = LanesRotate::new();
    // SAFETY: this function's contract gives `LanesRotate` its features.
    unsafe {
        let rest = crypt_in_step::<3, _>(blocks, keys, &c);
        let rest = crypt_in_step::<2, _>(rest, keys, &c);
        crypt_in_step::<1, _>(rest, keys, &c);
    }
}

/// [`chain`] with `rotate256`'s round.
///
/// # Safety
/// As [`rounds_avx512`].
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(crate) unsafe fn chain_avx512(
    feedback: Feedback,
    state: &mut [u8],
    data: &mut [u8],
    keys: &[[u64; 8]],
) {
    // SAFETY: this function's contract gives `LanesRotate` its features.
    unsafe { chain(feedback, state, data, keys, &LanesRotate::new()) }
}
