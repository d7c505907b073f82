//! The x86 rounds of [`super::shift`]: `shift256` (AVX2) and `rotate256` (AVX-512VL, same
//! registers). Each 32-bit half is held spread and broadcast to the four 64-bit lanes of a
//! ymm register, so one instruction looks up four S-boxes' copies of one output bit.
//!
//! Lanes of group A hold S-boxes 1, 3, 5, 7 and of group B S-boxes 2, 4, 6, 8. Per round:
//! XOR the key chunks (stored complemented, in their windows), bring each lane's window
//! down — its low six bits are then 63 - x — and for each output bit j shift or rotate the
//! bit's truth table by 63 - x, bring the looked-up bit to its P position, merge the eight
//! results of a lane and OR the four lanes together. Nothing but register shifts and logic sees
//! the secret, so no bit of it reaches an address or a branch.
//!
//! The two forms differ in how a looked-up bit reaches its P position, which is what a
//! round's instruction count hangs on. `shift256` shifts the bit to the sign with
//! `vpsllvq` and selects the P mask with `vblendvpd` on AMD (one micro-op there); on Intel
//! (where `vblendvpd` is three micro-ops) it shifts the bit back down onto its position
//! and masks it (see [`pick`]). `rotate256` rotates a pre-rotated table so the bit lands
//! on its P position directly (see [`LanesRotate`]).
#![allow(unsafe_code)]

use std::arch::x86_64::*;

#[cfg(doc)]
use super::shift_layout::fold_key;
use super::shift_layout::{fp, ip, position, PLACE, TRUTH, WINDOW};
use crate::cipher::Feedback;

/// f on broadcast spread halves, in one of the two instruction sets.
trait RoundFunction {
    /// The register a half is held in.
    type V: Vector;
    /// f's output in the form the next round reads it.
    type Out: Copy;

    /// An output of zero.
    fn zero(&self) -> Self::Out;

    /// f of a broadcast spread half, given as that half XOR the round's key chunks of
    /// group A (`aka`) and of group B (`akb`) — computed before the previous output is
    /// ready — and that output, `pend`, still to be XORed in.
    ///
    /// # Safety
    /// The CPU must have the form's features (checked when the backend was built).
    unsafe fn f(&self, aka: Self::V, akb: Self::V, pend: Self::Out) -> Self::Out;

    /// An output as a broadcast spread half, to XOR into a half.
    fn plain(&self, out: Self::Out) -> Self::V;

    /// Whether blocks in step XOR the pending output into the half first and the key
    /// chunks into that (three XORs a round, the half's new value among them) rather
    /// than keying the half ahead of the output (five): in step the vector pipes are the
    /// limit, not one block's chain.
    const PEND_FIRST_IN_STEP: bool = false;
}

/// The register the rounds hold a half in: a ymm register holds one block's half,
/// broadcast to its four lanes; a zmm register two blocks' halves, one per 256-bit half
/// (`rotate256` on two blocks per instruction, see [`crypt_avx512`]).
trait Vector: Copy {
    /// All zeros.
    fn zero() -> Self;
    fn xor(self, other: Self) -> Self;
    /// `self`, through an empty assembly block (see [`settled`]).
    fn settled(self) -> Self;
    /// One round's key chunks as group A and group B lanes (see [`round_keys`]).
    fn round_keys(k: &[u64; 8]) -> (Self, Self);
}

impl Vector for __m256i {
    #[inline(always)]
    fn zero() -> Self {
        broadcast(0)
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        xor(self, other)
    }
    #[inline(always)]
    fn settled(self) -> Self {
        // SAFETY: AVX2, available to every caller (see `lanes`).
        unsafe { settled(self) }
    }
    #[inline(always)]
    fn round_keys(k: &[u64; 8]) -> (Self, Self) {
        round_keys(k)
    }
}

/// Only the zmm form's entry points ([`crypt_avx512`]'s pairs, which enable AVX-512F)
/// hold halves in zmm registers, so every caller of these has AVX-512F.
impl Vector for __m512i {
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: AVX-512F, available to every caller (see the impl's doc).
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_xor_si512(self, other) }
    }
    #[inline(always)]
    fn settled(self) -> Self {
        // SAFETY: as above.
        unsafe { settled512(self) }
    }
    #[inline(always)]
    fn round_keys(k: &[u64; 8]) -> (Self, Self) {
        let (a, b) = round_keys(k);
        // SAFETY: as above.
        unsafe { (both_halves(a), both_halves(b)) }
    }
}

/// A ymm register in both 256-bit halves of a zmm one.
#[target_feature(enable = "avx512f")]
#[inline]
fn both_halves(x: __m256i) -> __m512i {
    _mm512_broadcast_i64x4(x)
}

/// [`both_halves`] on two registers.
#[target_feature(enable = "avx512f")]
#[inline]
fn two(x: [__m256i; 2]) -> [__m512i; 2] {
    [both_halves(x[0]), both_halves(x[1])]
}

/// [`both_halves`] on four registers.
#[target_feature(enable = "avx512f")]
#[inline]
fn four(x: [__m256i; 4]) -> [__m512i; 4] {
    [
        both_halves(x[0]),
        both_halves(x[1]),
        both_halves(x[2]),
        both_halves(x[3]),
    ]
}

/// [`settled`] on a zmm register.
#[target_feature(enable = "avx512f")]
#[inline]
fn settled512(mut x: __m512i) -> __m512i {
    // SAFETY: an empty assembly block that only claims to read and write `x`.
    unsafe {
        std::arch::asm!("/* {0} */", inout(zmm_reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// Four u64s into a ymm (lane 0 first).
#[inline(always)]
fn lanes(v: [u64; 4]) -> __m256i {
    // SAFETY: loadu reads 32 bytes from a live [u64; 4]; AVX is part of AVX2, which every
    // caller (a `target_feature(enable = "avx2")` function) has.
    unsafe { _mm256_loadu_si256(v.as_ptr().cast()) }
}

/// `t[s][j]` per output bit j, as the lanes of group A (`first` = 0: S-boxes 1, 3, 5, 7)
/// or group B (`first` = 1).
fn grouped(t: &[[u64; 4]; 8], first: usize) -> [[u64; 4]; 4] {
    core::array::from_fn(|j| core::array::from_fn(|lane| t[first + 2 * lane][j]))
}

/// Four lane sets into four registers. Written out, not `array::from_fn`: a closure there
/// is compiled without the caller's target features, and with several codegen units each
/// load stayed a call.
#[inline(always)]
fn lanes4(v: &[[u64; 4]; 4]) -> [__m256i; 4] {
    [lanes(v[0]), lanes(v[1]), lanes(v[2]), lanes(v[3])]
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

/// The round's constants in lanes: truth tables and P masks per output bit, per group,
/// and the shifts from the sign down to each bit's position. `BLEND`: how a looked-up bit
/// reaches its P position ([`pick`]); without it only the high copy of each position is
/// written ([`PLACE_HIGH`]) and the lane reduction copies it down ([`or_lanes_high`]).
struct Lanes<const BLEND: bool> {
    truth_a: [__m256i; 4],
    truth_b: [__m256i; 4],
    place_a: [__m256i; 4],
    place_b: [__m256i; 4],
    down_a: [__m256i; 4],
    down_b: [__m256i; 4],
    window_a: __m256i,
    window_b: __m256i,
    six: __m256i,
}

/// [`PLACE`] with only its high copies (bits 32-63): shifted down from the sign, a
/// looked-up bit has the table's lower bits below it, so only its own position is kept.
const PLACE_HIGH: [[u64; 4]; 8] = {
    let mut m = PLACE;
    let mut s = 0;
    while s < 8 {
        let mut j = 0;
        while j < 4 {
            m[s][j] &= !0u64 << 32;
            j += 1;
        }
        s += 1;
    }
    m
};

/// Per output bit, the right shift from the sign (bit 63) to its high copy.
const DOWN: [[u64; 4]; 8] = {
    let mut m = [[0u64; 4]; 8];
    let mut s = 0;
    while s < 8 {
        let mut j = 0;
        while j < 4 {
            m[s][j] = PLACE_HIGH[s][j].leading_zeros() as u64;
            j += 1;
        }
        s += 1;
    }
    m
};

impl<const BLEND: bool> Lanes<BLEND> {
    #[inline(always)]
    fn new() -> Self {
        let place = if BLEND { &PLACE } else { &PLACE_HIGH };
        Lanes {
            truth_a: lanes4(&grouped(&TRUTH, 0)),
            truth_b: lanes4(&grouped(&TRUTH, 1)),
            place_a: lanes4(&grouped(place, 0)),
            place_b: lanes4(&grouped(place, 1)),
            down_a: lanes4(&grouped(&DOWN, 0)),
            down_b: lanes4(&grouped(&DOWN, 1)),
            window_a: windows(0),
            window_b: windows(1),
            // SAFETY: AVX (set1) is available to every caller (see `lanes`).
            six: unsafe { _mm256_set1_epi64x(63) },
        }
    }
}

/// `place` where the sign bit of `sign`'s lane is set, else `zero`'s lane (0):
/// `vblendvpd` with `place` read from memory. Written as assembly so the compiler keeps
/// the one-instruction select (it would otherwise turn it into a compare and two ANDs on
/// the chain's critical path), and with the mask operand folded and one zero register
/// shared: with blocks in step the round ran out of registers, and the separate loads of
/// the masks and the zeroing of each select's output were a quarter of its instructions.
#[target_feature(enable = "avx2")]
#[inline]
fn select(place: &__m256i, sign: __m256i, zero: __m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: vblendvpd reads `place`, a live 32-byte value (AVX, enabled here), and
    // writes a register only.
    unsafe {
        std::arch::asm!(
            "vblendvpd {o}, {z}, ymmword ptr [{p}], {s}",
            o = lateout(ymm_reg) out,
            z = in(ymm_reg) zero,
            p = in(reg) place as *const __m256i,
            s = in(ymm_reg) sign,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    out
}

/// One output bit of a group: `place` if bit x of `truth` is set (`x63` = 63 - x). The
/// bit goes to the sign; with `BLEND` the sign selects `place` through [`select`] (one
/// micro-op on AMD), else `vpsrlvq` by `down` moves it onto the high copy of its position
/// and an AND with `place` (that copy alone) clears the table bits shifted in below it.
///
/// On Intel, where `vblendvpd` is three micro-ops, the select was a compare and an AND:
/// `vpcmpgtq` takes three cycles and runs on one port, which the eight of a round shared.
/// The shift takes one cycle on the two shift ports (eight shifts a round more there); Xeon
/// family 6 model 167 under `BITWEAVE_CPU=avx2` (2026-12-06, 16 KiB encryption, TSC c/B,
/// ratio to libgcrypt in the same runs, seven alternating runs): 3DES-CBC 0.57-0.58 →
/// 0.59-0.61, 3DES-OFB 0.56 → 0.58, DES-CBC 0.77 → 0.77-0.80, 3DES-CFB8 0.57 → 0.57;
/// one block of 3DES ECB (blocks in step) 0.73-0.77 → 0.76-0.77. Both ways with half the
/// bits (group B kept the compare, to spread the work over the ports) measured slower:
/// 3DES-CBC 0.54.
///
/// Tried on Intel and not kept: the sign spread by `vpsrad` over the high 32 bits (one
/// cycle against the compare's three), with the P masks' high copy and the reduction
/// [`or_lanes_high`]. Same CPU and cap (2026-12-06, best of four alternating runs):
/// 3DES-CBC encryption 16 KiB 107.4 → 101.1 but 1 KiB 103.9 → 101.7, OFB 109.8 → 107.6,
/// CFB8 866 → 894, DES-CBC 37.3 → 37.3: within the machine's noise.
#[target_feature(enable = "avx2")]
#[inline]
fn pick<const BLEND: bool>(
    truth: __m256i,
    x63: __m256i,
    place: &__m256i,
    down: __m256i,
    zero: __m256i,
) -> __m256i {
    let sign = _mm256_sllv_epi64(truth, x63);
    if BLEND {
        select(place, sign, zero)
    } else {
        _mm256_and_si256(_mm256_srlv_epi64(sign, down), *place)
    }
}

impl<const BLEND: bool> RoundFunction for Lanes<BLEND> {
    type V = __m256i;
    type Out = __m256i;
    const PEND_FIRST_IN_STEP: bool = true;

    #[inline(always)]
    fn zero(&self) -> __m256i {
        broadcast(0)
    }

    #[inline(always)]
    unsafe fn f(&self, aka: __m256i, akb: __m256i, pend: __m256i) -> __m256i {
        // SAFETY: every caller has AVX2 (the trait's contract), all this uses.
        unsafe { across_halves(f_avx2(xor(aka, pend), xor(akb, pend), self)) }
    }

    #[inline(always)]
    fn plain(&self, out: __m256i) -> __m256i {
        out
    }
}

/// f up to the lane reduction's last step: each 128-bit half's two lanes ORed, in both
/// copies of the spread form ([`or_lanes`], [`or_lanes_high`]); [`across_halves`] or the
/// chain's [`Halves`] finish it.
#[target_feature(enable = "avx2")]
#[inline]
fn f_avx2<const BLEND: bool>(ra: __m256i, rb: __m256i, c: &Lanes<BLEND>) -> __m256i {
    // 63 - x per lane (the stored key chunks are complemented).
    let xa = _mm256_and_si256(_mm256_srlv_epi64(ra, c.window_a), c.six);
    let xb = _mm256_and_si256(_mm256_srlv_epi64(rb, c.window_b), c.six);
    // One zero for the eight selects, behind a barrier so it is not re-made for each.
    let z = settled(_mm256_setzero_si256());
    // Written out: a closure here is not inlined into other crates' builds.
    macro_rules! look_up {
        ($truth:ident, $place:ident, $down:ident, $x:ident, $j:literal) => {
            pick::<BLEND>(c.$truth[$j], $x, &c.$place[$j], c.$down[$j], z)
        };
    }
    macro_rules! a {
        ($j:literal) => {
            look_up!(truth_a, place_a, down_a, xa, $j)
        };
    }
    macro_rules! b {
        ($j:literal) => {
            look_up!(truth_b, place_b, down_b, xb, $j)
        };
    }
    let a01 = _mm256_or_si256(a!(0), a!(1));
    let a23 = _mm256_or_si256(a!(2), a!(3));
    let b01 = _mm256_or_si256(b!(0), b!(1));
    let b23 = _mm256_or_si256(b!(2), b!(3));
    let o = _mm256_or_si256(_mm256_or_si256(a01, a23), _mm256_or_si256(b01, b23));
    if BLEND {
        or_lanes(o)
    } else {
        or_lanes_high(o)
    }
}

/// The OR of each 128-bit half's two 64-bit lanes (`vpshufd`, one cycle), the lane
/// reduction's first step; [`across_halves`] is its second. Written as assembly so the
/// compiler keeps this order; left to itself it reduces across the halves first through
/// an extract, an insert and a `vpermq`, which costs the chain several cycles a round.
#[target_feature(enable = "avx2")]
#[inline]
fn or_lanes(o: __m256i) -> __m256i {
    let within: __m256i;
    // SAFETY: vpshufd and vpor read and write registers only (AVX2, enabled here).
    unsafe {
        std::arch::asm!(
            "vpshufd {t}, {o}, 0x4E",
            "vpor {o}, {o}, {t}",
            o = inout(ymm_reg) o => within,
            t = out(ymm_reg) _,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    within
}

/// [`or_lanes`] for halves with bits in the high 32 bits of each lane only ([`pick`]
/// without `BLEND`): each 128-bit half's two high dwords copied into every dword, in
/// either order (two `vpshufd` side by side) and ORed, so both copies of the spread form
/// come out of the same two steps as `or_lanes`.
#[target_feature(enable = "avx2")]
#[inline]
fn or_lanes_high(o: __m256i) -> __m256i {
    let within: __m256i;
    // SAFETY: vpshufd and vpor read and write registers only (AVX2, enabled here).
    unsafe {
        std::arch::asm!(
            "vpshufd {t}, {o}, 0xF5",
            "vpshufd {o}, {o}, 0x5F",
            "vpor {o}, {o}, {t}",
            o = inout(ymm_reg) o => within,
            t = out(ymm_reg) _,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    within
}

/// The lane reductions' last step: each 128-bit half ORed with the other.
#[target_feature(enable = "avx2")]
#[inline]
fn across_halves(o: __m256i) -> __m256i {
    _mm256_or_si256(o, swap_halves_avx2(o))
}

/// `x` with its 128-bit halves swapped (`vperm2i128`), as assembly for the reason
/// [`or_lanes`] gives.
#[target_feature(enable = "avx2")]
#[inline]
fn swap_halves_avx2(x: __m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: vperm2i128 reads and writes registers only (AVX2, enabled here).
    unsafe {
        std::arch::asm!(
            "vperm2i128 {o}, {x}, {x}, 0x01",
            o = lateout(ymm_reg) out,
            x = in(ymm_reg) x,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// f's output one step short of broadcast, for one block alone (a chain): each 128-bit
/// half's lanes ORed (`half`) and the same with the halves swapped (`swapped`), so the
/// next round merges both into its key-XORed half and only that step follows the
/// cross-lane swap ([`ChainShift`], [`ChainRotate`]).
#[derive(Clone, Copy)]
struct Halves {
    half: __m256i,
    swapped: __m256i,
}

impl Halves {
    #[inline(always)]
    fn zero() -> Self {
        Halves {
            half: broadcast(0),
            swapped: broadcast(0),
        }
    }

    /// Both halves ORed: f's output broadcast, to XOR into a half.
    #[inline(always)]
    fn merged(self) -> __m256i {
        // SAFETY: AVX2, available to every caller (see `lanes`).
        unsafe { _mm256_or_si256(self.half, self.swapped) }
    }
}

/// [`Lanes`] with its output as [`Halves`], for one block alone (a chain): the next round
/// XORs the in-half reduction into the key-XORed half while the halves swap, and the
/// swapped copy after it, so one operation (not the reduction's OR and then the XOR)
/// follows the swap on the chain's critical path. Xeon family 6 model 167 under
/// `BITWEAVE_CPU=avx2` (2026-12-06, 16 KiB encryption, TSC c/B, three alternating runs):
/// 3DES-CBC 112.4 → 111.4, DES-CBC 38.3 → 37.9, 3DES-OFB 112.4 → 111.4, 3DES-CFB8 939 →
/// 920 — a cycle off a round of ~25 that the shift ports, not the latencies, mostly set.
struct ChainShift<const BLEND: bool>(Lanes<BLEND>);

impl<const BLEND: bool> RoundFunction for ChainShift<BLEND> {
    type V = __m256i;
    type Out = Halves;

    #[inline(always)]
    fn zero(&self) -> Halves {
        Halves::zero()
    }

    #[inline(always)]
    unsafe fn f(&self, aka: __m256i, akb: __m256i, pend: Halves) -> Halves {
        // SAFETY: every caller has AVX2 (the trait's contract), all this uses.
        unsafe {
            let xa = xor(xor(aka, pend.half), pend.swapped);
            let xb = xor(xor(akb, pend.half), pend.swapped);
            let half = f_avx2(xa, xb, &self.0);
            Halves {
                half,
                swapped: swap_halves_avx2(half),
            }
        }
    }

    #[inline(always)]
    fn plain(&self, out: Halves) -> __m256i {
        out.merged()
    }
}

// ---- rotate256: AVX-512VL --------------------------------------------------------------

/// Per lane of a group (0: A, 1: B), the one-copy P positions of the output bits whose
/// flags are set in `bits` (bit j for output bit j).
const fn places(group: usize, bits: u32) -> [u64; 4] {
    let mut m = [0u64; 4];
    let mut lane = 0;
    while lane < 4 {
        let mut j = 0;
        while j < 4 {
            if bits & (1 << j) != 0 {
                m[lane] |= 1 << position(group + 2 * lane, j);
            }
            j += 1;
        }
        lane += 1;
    }
    m
}

/// Lane by lane OR of two lane sets.
const fn or4(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]]
}

/// The constants of [`LanesRotate`] as four u64 lanes each (lane l holds S-box 2l in
/// group A and 2l + 1 in group B, 0-based), computed at compile time; the registers are
/// loaded from them and the tests run the same round on them in scalar code.
struct RotateTables {
    /// `[group][j]`: output bit j's truth table per lane, rotated so that a rotate by
    /// 63 - x puts bit x on the bit's P position p: x + (p + 1) + (63 - x) = p + 64.
    truth: [[[u64; 4]; 4]; 2],
    /// `[group]`: the pair selects' keys (the positions of bit 0, to choose between bits
    /// 0 and 1; of bit 2, between 2 and 3).
    pair: [[[u64; 4]; 2]; 2],
    /// `[group]`: the keys that merge a group's two pairs (the positions of its bits 0
    /// and 1).
    low_pair: [[u64; 4]; 2],
    /// Group A's positions: the key between the groups.
    group_a: [u64; 4],
    /// Group A's and B's bits 0 and 1: the last key of the chain order (see
    /// [`LanesRotate`]).
    a_and_b_low: [u64; 4],
    /// The positions each lane's eight bits own, and the same for the lane it swaps with
    /// in a 128-bit half (the lane reduction's first step).
    owned: [u64; 4],
    owned_swapped: [u64; 4],
}

const ROTATE: RotateTables = {
    let mut truth = [[[0u64; 4]; 4]; 2];
    let mut group = 0;
    while group < 2 {
        let mut j = 0;
        while j < 4 {
            let mut lane = 0;
            while lane < 4 {
                let s = group + 2 * lane;
                truth[group][j][lane] = TRUTH[s][j].rotate_left(position(s, j) + 1);
                lane += 1;
            }
            j += 1;
        }
        group += 1;
    }
    let a = places(0, 0b1111);
    let owned = or4(a, places(1, 0b1111));
    RotateTables {
        truth,
        pair: [
            [places(0, 0b0001), places(0, 0b0100)],
            [places(1, 0b0001), places(1, 0b0100)],
        ],
        low_pair: [places(0, 0b0011), places(1, 0b0011)],
        group_a: a,
        a_and_b_low: or4(a, places(1, 0b0011)),
        owned,
        owned_swapped: [owned[1], owned[0], owned[3], owned[2]],
    }
};

/// The AVX-512 form's constants in registers (see [`RotateTables`]).
///
/// This form keeps one copy of a half (the low 32 bits of a lane; the high 32 bits are
/// never read) and its round keys folded to match ([`fold_key`]): a 32-bit rotate
/// (`vprorvd`) brings each window to the lane's low six bits, wrapping around where the
/// spread form needs its second copy. A lookup is then a 64-bit rotate (`vprolvq`, count
/// modulo 64) of a truth table pre-rotated so that bit x lands on that output bit's P
/// position, whatever x is — no mask step, no sign to spread, and no select per bit
/// (`shift256`'s eight `vblendvpd` were three micro-ops each on Intel, and its shifts and
/// selects kept the vector ports full).
///
/// Within a lane the eight looked-up bits (four per group) sit on eight distinct P
/// positions, every other bit of the rotated tables being junk. A select `k ? u : v`
/// (`vpternlogq` 0xCA) keyed by the positions of some of them passes those from `u` and
/// everything else from `v`; seven such selects route each position to its own lookup
/// (see [`halves_or`]), and one AND clears the positions no bit of this lane owns.
///
/// In a zmm register (`LanesRotate<__m512i>`) every constant sits in both 256-bit halves
/// and each half runs one block's round: every step works within a 64-bit lane or a
/// 256-bit half, so two blocks' rounds take one instruction apiece.
struct LanesRotate<V> {
    truth: [[V; 4]; 2],
    window: [V; 2],
    pair: [[V; 2]; 2],
    low_pair: [V; 2],
    group_a: V,
    a_and_b_low: V,
    owned: V,
    owned_swapped: V,
}

impl LanesRotate<__m256i> {
    #[inline(always)]
    fn new() -> Self {
        let t = &ROTATE;
        LanesRotate {
            truth: [lanes4(&t.truth[0]), lanes4(&t.truth[1])],
            window: [windows(0), windows(1)],
            pair: [
                [lanes(t.pair[0][0]), lanes(t.pair[0][1])],
                [lanes(t.pair[1][0]), lanes(t.pair[1][1])],
            ],
            low_pair: [lanes(t.low_pair[0]), lanes(t.low_pair[1])],
            group_a: lanes(t.group_a),
            a_and_b_low: lanes(t.a_and_b_low),
            owned: lanes(t.owned),
            owned_swapped: lanes(t.owned_swapped),
        }
    }
}

impl LanesRotate<__m512i> {
    /// [`LanesRotate::new`]'s constants in both halves of zmm registers.
    #[target_feature(enable = "avx2,avx512f,avx512vl")]
    #[inline]
    fn new_pairs() -> Self {
        let c = LanesRotate::<__m256i>::new();
        LanesRotate {
            truth: [four(c.truth[0]), four(c.truth[1])],
            window: two(c.window),
            pair: [two(c.pair[0]), two(c.pair[1])],
            low_pair: two(c.low_pair),
            group_a: both_halves(c.group_a),
            a_and_b_low: both_halves(c.a_and_b_low),
            owned: both_halves(c.owned),
            owned_swapped: both_halves(c.owned_swapped),
        }
    }
}

/// `rotate256`'s operations on a register: each works within a 64-bit lane, or (the
/// swaps) within a 128- or 256-bit half, so on a zmm register it runs two blocks' rounds
/// side by side.
///
/// # Safety
/// Every method needs AVX-512F and AVX-512VL.
trait RotateOps: Vector {
    /// Each 32-bit lane rotated right by the count in the same lane.
    unsafe fn rorv32(x: Self, count: Self) -> Self;
    /// Each 64-bit lane rotated left by the count in the same lane.
    unsafe fn rolv64(x: Self, count: Self) -> Self;
    /// `vpternlogq` with truth table `IMM`.
    unsafe fn ternary<const IMM: i32>(a: Self, b: Self, c: Self) -> Self;
    unsafe fn and(a: Self, b: Self) -> Self;
    unsafe fn or(a: Self, b: Self) -> Self;
    /// The two 64-bit lanes of every 128-bit half swapped.
    unsafe fn swap_lanes(x: Self) -> Self;
    /// The two 128-bit halves of every 256-bit half swapped.
    unsafe fn swap_halves(x: Self) -> Self;
}

impl RotateOps for __m256i {
    #[inline(always)]
    unsafe fn rorv32(x: Self, count: Self) -> Self {
        // SAFETY: AVX-512F/VL, the trait's contract.
        unsafe { _mm256_rorv_epi32(x, count) }
    }
    #[inline(always)]
    unsafe fn rolv64(x: Self, count: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_rolv_epi64(x, count) }
    }
    #[inline(always)]
    unsafe fn ternary<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_ternarylogic_epi64::<IMM>(a, b, c) }
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_or_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn swap_lanes(x: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_shuffle_epi32::<0x4E>(x) }
    }
    #[inline(always)]
    unsafe fn swap_halves(x: Self) -> Self {
        // SAFETY: as above.
        unsafe { swap_halves(x) }
    }
}

impl RotateOps for __m512i {
    #[inline(always)]
    unsafe fn rorv32(x: Self, count: Self) -> Self {
        // SAFETY: AVX-512F/VL, the trait's contract.
        unsafe { _mm512_rorv_epi32(x, count) }
    }
    #[inline(always)]
    unsafe fn rolv64(x: Self, count: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_rolv_epi64(x, count) }
    }
    #[inline(always)]
    unsafe fn ternary<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_ternarylogic_epi64::<IMM>(a, b, c) }
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_and_si512(a, b) }
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_or_si512(a, b) }
    }
    #[inline(always)]
    unsafe fn swap_lanes(x: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_shuffle_epi32::<0x4E>(x) }
    }
    #[inline(always)]
    unsafe fn swap_halves(x: Self) -> Self {
        // SAFETY: as above. 0xB1 takes 128-bit halves 1, 0, 3, 2.
        unsafe { _mm512_shuffle_i64x2::<0xB1>(x, x) }
    }
}

/// The rotated table's bit x on its P position (`x63`'s low six bits are 63 - x).
///
/// # Safety
/// AVX-512F and AVX-512VL ([`RotateOps`]).
#[inline(always)]
unsafe fn look_up<V: RotateOps>(truth: V, x63: V) -> V {
    // SAFETY: this fn's contract.
    unsafe { V::rolv64(truth, x63) }
}

/// `key ? u : v`, bit by bit.
///
/// # Safety
/// As [`look_up`].
#[inline(always)]
unsafe fn mux<V: RotateOps>(key: V, u: V, v: V) -> V {
    // SAFETY: this fn's contract.
    unsafe { V::ternary::<0xCA>(key, u, v) }
}

/// One group's four lookups, selected in pairs: (bits 0 and 1, bits 2 and 3).
///
/// # Safety
/// As [`look_up`].
#[inline(always)]
unsafe fn pairs<V: RotateOps>(c: &LanesRotate<V>, g: usize, x63: V) -> (V, V) {
    let t = &c.truth[g];
    // SAFETY: this fn's contract.
    unsafe {
        (
            mux(c.pair[g][0], look_up(t[0], x63), look_up(t[1], x63)),
            mux(c.pair[g][1], look_up(t[2], x63), look_up(t[3], x63)),
        )
    }
}

/// f up to the lane reduction's last step, on the windows of groups A (`xa`) and B
/// (`xb`): each 128-bit half's two lanes ORed (and cleared outside the positions they own,
/// the AND folded into the OR's `vpternlogq`, 0xF8: A | (B & C)).
///
/// After a select per pair of lookups, the pairs merge as a balanced tree (each group's
/// pairs, then the groups), or with `CHAIN` in the order they finish: A's pairs, then B's
/// first pair, then B's second. The eight lookups are variable rotates, which run on two
/// ports, so B's come out up to two cycles after A's: a lone block's round (a serial
/// chain) waits one select level less for them. With blocks in step the other blocks'
/// work fills those cycles and the chain order cost 2 % on AMD Zen 4 (2026-11-30), so the
/// in-step rounds keep the tree. Chain order on Intel, a small gain near this machine's
/// noise (Xeon family 6 model 207, 16 KiB, best of five and of three alternating runs,
/// TSC c/B): 3DES-CBC encryption 74.6 → 73.2 and 75.8 → 74.1, DES-CBC 27.1 → 26.4 and
/// 27.3 → 26.8; on Zen 4 it saved 0.6 cycles a round (3DES-CBC 1.6 %).
///
/// # Safety
/// As [`look_up`].
#[inline(always)]
unsafe fn halves_or<const CHAIN: bool, V: RotateOps>(c: &LanesRotate<V>, xa: V, xb: V) -> V {
    // SAFETY: this fn's contract.
    unsafe {
        let ((a01, a23), (b01, b23)) = (pairs(c, 0, xa), pairs(c, 1, xb));
        let a = mux(c.low_pair[0], a01, a23);
        let o = if CHAIN {
            mux(c.a_and_b_low, mux(c.group_a, a, b01), b23)
        } else {
            mux(c.group_a, a, mux(c.low_pair[1], b01, b23))
        };
        let clean = V::and(o, c.owned);
        let swapped = V::swap_lanes(o);
        V::ternary::<0xF8>(clean, swapped, c.owned_swapped)
    }
}

/// The windows (per lane, rotated right by `window`) of `ak ^ (half | swapped)`
/// (`vpternlogq` 0x1E is A ^ (B | C)). The one rotate after the merge: `swapped` is the
/// last input ready and is then two instructions from the windows, as it was with the
/// three inputs rotated first and merged after (rotates distribute over XOR and OR), at
/// two vector operations instead of four per group. Intel's cores run the chain's round
/// on three vector ports, so the operations count there: Xeon family 6 model 207
/// (2026-11-30, TSC c/B) 3DES-CBC 80.2-82.4 → 79.4-80.1, 3DES-CFB8 720 → 676, DES-CBC
/// 29.8 → 28.0-28.9.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn windows_of(ak: __m256i, pend: Halves, window: __m256i) -> __m256i {
    _mm256_rorv_epi32(
        _mm256_ternarylogic_epi64::<0x1E>(ak, pend.half, pend.swapped),
        window,
    )
}

impl<V: RotateOps> RoundFunction for LanesRotate<V> {
    type V = V;
    type Out = V;

    #[inline(always)]
    fn zero(&self) -> V {
        V::zero()
    }

    #[inline(always)]
    unsafe fn f(&self, aka: V, akb: V, pend: V) -> V {
        // SAFETY: the caller has AVX2 and AVX-512F/VL (the trait's contract), all these
        // use.
        unsafe {
            let xa = V::rorv32(aka.xor(pend), self.window[0]);
            let xb = V::rorv32(akb.xor(pend), self.window[1]);
            let half = halves_or::<false, V>(self, xa, xb);
            V::or(half, V::swap_halves(half))
        }
    }

    #[inline(always)]
    fn plain(&self, out: V) -> V {
        out
    }
}

/// `x` with its 128-bit halves swapped, as `vshufi64x2` (3 cycles on AMD Zen 4). Written
/// as assembly: the compiler turns the swap into `vpermq` (4 cycles there), and the swap
/// is on the chain's critical path every round.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn swap_halves(x: __m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: vshufi64x2 on ymm registers (AVX-512F/VL, enabled here) reads and writes
    // registers only.
    unsafe {
        std::arch::asm!(
            "vshufi64x2 {o}, {x}, {x}, 1",
            o = lateout(ymm_reg) out,
            x = in(ymm_reg) x,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// [`LanesRotate`] with its output as [`Halves`], for one block alone.
///
/// The next round ORs both halves into the key-XORed half in one `vpternlogq` before
/// rotating the windows, so the OR after the swap leaves the critical path (3DES-CBC
/// 71.6-72.8 → 68.4-69.0 c/B on Intel, with the rotates then still ahead of the merge; see
/// [`windows_of`]). With blocks in step this form once cost four extra rotates a round
/// (3DES ECB at 64 B, three in step: 41-42 → 49 c/B); with the merge ahead of the rotate it
/// costs none, and the two measured alike (Xeon family 6 model 207, 3DES ECB 64 B:
/// 48.6-49.6 against 48.7-48.8 c/B), so [`crypt_in_step`] keeps the broadcast form.
///
/// Where the chain's round goes on AMD Zen 4 (latencies measured there, 2026-12-03, in
/// core cycles: `vprolvq` and `vprorvd` 2, `vpternlogq` and `vpshufd` 1, `vshufi64x2` 3;
/// the rotates issue two a cycle on two pipes that `vpternlogq` also takes, while
/// `vpsrlvq` runs beside them on two others): the merge into the half 1, the windows'
/// rotate 2, the lookups 2 plus 3 while the eight issue, the rest of the select tree 2,
/// the lane reduction 2 and the swap 3: ~16 cycles a round, 17 measured (3DES-CBC, 74 TSC
/// c/B at 3.6 GHz). Tried and slower that day:
/// - Swapping each lane's raw output (two swaps, then a merge of four terms into the
///   windows, one `vpternlogq` each), a cycle shorter on paper: 3DES-CBC 73.7 → 73.3,
///   DES-CBC 24.8 → 26.4, 3DES-CFB8 607 → 656, 3DES-OFB 73.8 → 78.5 TSC c/B. Six more
///   `vpternlogq` a round take the rotates' pipes. On Intel too (Xeon family 6 model 167,
///   2026-12-06, the four lane orders `vpshufd`, `vshufi64x2` and `vpermq` of the merged
///   lookups, 16 KiB, ratio to libgcrypt, three alternating runs): 3DES-CBC 0.93-0.94 →
///   0.81-0.85, DES-CBC 1.20-1.27 → 1.06-1.15, 3DES-OFB 0.84-0.90 → 0.78-0.83.
/// - For blocks in step, windows by `vpsrlvq` on halves kept in two copies (the copy made
///   by one `vpshufd` per output and per round key), moving two operations a round off the
///   rotates' pipes: 3DES ECB 16-128 B 3-4 % slower.
struct ChainRotate(LanesRotate<__m256i>);

impl RoundFunction for ChainRotate {
    type V = __m256i;
    type Out = Halves;

    #[inline(always)]
    fn zero(&self) -> Halves {
        Halves::zero()
    }

    #[inline(always)]
    unsafe fn f(&self, aka: __m256i, akb: __m256i, pend: Halves) -> Halves {
        let c = &self.0;
        // SAFETY: the caller has AVX2 and AVX-512F/VL (the trait's contract), all these
        // use.
        unsafe {
            let xa = windows_of(aka, pend, c.window[0]);
            let xb = windows_of(akb, pend, c.window[1]);
            let half = halves_or::<true, __m256i>(c, xa, xb);
            Halves {
                half,
                swapped: swap_halves(half),
            }
        }
    }

    #[inline(always)]
    fn plain(&self, out: Halves) -> __m256i {
        out.merged()
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
    l: [F::V; N],
    r: [F::V; N],
    keys: &[[u64; 8]],
    c: &F,
) -> ([F::V; N], [F::V; N]) {
    let (mut a, mut b) = (r, l);
    let mut pend = [c.zero(); N];
    for (i, k) in keys.iter().enumerate() {
        let (ka, kb) = F::V::round_keys(k);
        for n in 0..N {
            if F::PEND_FIRST_IN_STEP && N > 1 {
                let half = a[n].xor(c.plain(pend[n]));
                // SAFETY: as below.
                let out = unsafe { c.f(half.xor(ka), half.xor(kb), c.zero()) };
                if i % 16 == 15 {
                    (a[n], b[n], pend[n]) = (half, b[n].xor(c.plain(out)), c.zero());
                } else {
                    (a[n], b[n], pend[n]) = (b[n], half, out);
                }
                continue;
            }
            let (aka, akb) = (a[n].xor(ka).settled(), a[n].xor(kb).settled());
            // SAFETY: the caller's CPU has F's features (this function's contract).
            let out = unsafe { c.f(aka, akb, pend[n]) };
            if i % 16 == 15 {
                b[n] = b[n].xor(c.plain(out));
            } else {
                (a[n], b[n], pend[n]) = (b[n], a[n].xor(c.plain(pend[n])), out);
            }
        }
    }
    // 15 role swaps per stage, an odd number in all: `a` ends as L16, `b` as R16.
    for n in 0..N {
        a[n] = a[n].xor(c.plain(pend[n]));
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
/// step: a lone block's round is latency-bound, so other blocks' instructions fill the
/// gaps. Returns the blocks left over (fewer than `N`).
///
/// # Safety
/// The CPU must have `F`'s features.
#[inline(always)]
unsafe fn crypt_in_step<'a, const N: usize, F: RoundFunction<V = __m256i>>(
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

/// [`crypt_in_step`] with two blocks per zmm register (one per 256-bit half): `2N`
/// blocks at a time. Returns the blocks left over (fewer than `2N`).
///
/// # Safety
/// The CPU must have `F`'s features and AVX-512F.
#[inline(always)]
unsafe fn crypt_in_step_pairs<'a, const N: usize, F: RoundFunction<V = __m512i>>(
    blocks: &'a mut [u8],
    keys: &[[u64; 8]],
    c: &F,
) -> &'a mut [u8] {
    let mut groups = blocks.chunks_exact_mut(16 * N);
    for g in &mut groups {
        let (mut l, mut r) = ([__m512i::zero(); N], [__m512i::zero(); N]);
        for (n, pair) in g.chunks_exact(16).enumerate() {
            // SAFETY: AVX-512F, this function's contract.
            (l[n], r[n]) = unsafe { load_pair(pair) };
        }
        // SAFETY: this function's contract.
        let (l, r) = unsafe { rounds(l, r, keys, c) };
        for (n, pair) in g.chunks_exact_mut(16).enumerate() {
            // SAFETY: AVX-512F, this function's contract.
            unsafe { store_pair(l[n], r[n], pair) };
        }
    }
    groups.into_remainder()
}

/// Two blocks (16 bytes) through IP as the halves of zmm registers (L, R).
#[target_feature(enable = "avx512f")]
#[inline]
fn load_pair(pair: &[u8]) -> (__m512i, __m512i) {
    let ((l0, r0), (l1, r1)) = (ip(&pair[..8]), ip(&pair[8..]));
    (
        halves(broadcast(l0), broadcast(l1)),
        halves(broadcast(r0), broadcast(r1)),
    )
}

/// [`load_pair`]'s inverse: the halves of `l` and `r` through FP into two blocks.
#[target_feature(enable = "avx512f")]
#[inline]
fn store_pair(l: __m512i, r: __m512i, pair: &mut [u8]) {
    let ([l0, l1], [r0, r1]) = (split(l), split(r));
    fp(lane0(l0), lane0(r0), &mut pair[..8]);
    fp(lane0(l1), lane0(r1), &mut pair[8..]);
}

/// `low` and `high` as the 256-bit halves of one register.
#[target_feature(enable = "avx512f")]
#[inline]
fn halves(low: __m256i, high: __m256i) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
}

/// A register's 256-bit halves, low first.
#[target_feature(enable = "avx512f")]
#[inline]
fn split(x: __m512i) -> [__m256i; 2] {
    [_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64::<1>(x)]
}

/// `P` zmm registers of block pairs and one ymm register of a lone block, stepped through
/// the rounds together ([`crypt_mixed`]): an odd number of blocks in one pass.
#[derive(Clone, Copy)]
struct Mixed<const P: usize> {
    pairs: [__m512i; P],
    one: __m256i,
}

/// Only [`crypt_mixed`] (which enables AVX-512F) holds a [`Mixed`], so every caller of
/// these has AVX-512F, as for `__m512i`'s impl.
impl<const P: usize> Vector for Mixed<P> {
    #[inline(always)]
    fn zero() -> Self {
        Mixed {
            pairs: [__m512i::zero(); P],
            one: __m256i::zero(),
        }
    }
    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        let mut pairs = self.pairs;
        for (p, o) in pairs.iter_mut().zip(other.pairs) {
            *p = p.xor(o);
        }
        Mixed {
            pairs,
            one: self.one.xor(other.one),
        }
    }
    #[inline(always)]
    fn settled(self) -> Self {
        // A loop, not `map`: see `lanes4`.
        let mut pairs = self.pairs;
        for p in pairs.iter_mut() {
            *p = p.settled();
        }
        Mixed {
            pairs,
            one: self.one.settled(),
        }
    }
    #[inline(always)]
    fn round_keys(k: &[u64; 8]) -> (Self, Self) {
        let (a, b) = __m256i::round_keys(k);
        let (pa, pb) = __m512i::round_keys(k);
        (
            Mixed {
                pairs: [pa; P],
                one: a,
            },
            Mixed {
                pairs: [pb; P],
                one: b,
            },
        )
    }
}

/// `rotate256`'s round on a [`Mixed`]: the pairs' constants in zmm registers, the lone
/// block's in ymm ones.
struct MixedRotate<const P: usize> {
    pairs: LanesRotate<__m512i>,
    one: LanesRotate<__m256i>,
}

impl<const P: usize> RoundFunction for MixedRotate<P> {
    type V = Mixed<P>;
    type Out = Mixed<P>;

    #[inline(always)]
    fn zero(&self) -> Mixed<P> {
        Mixed::zero()
    }

    #[inline(always)]
    unsafe fn f(&self, aka: Mixed<P>, akb: Mixed<P>, pend: Mixed<P>) -> Mixed<P> {
        let c = self;
        let mut pairs = pend.pairs;
        // SAFETY: the caller has AVX2 and AVX-512F/VL (the trait's contract), all these
        // use.
        unsafe {
            for (i, p) in pairs.iter_mut().enumerate() {
                *p = c.pairs.f(aka.pairs[i], akb.pairs[i], *p);
            }
            Mixed {
                pairs,
                one: c.one.f(aka.one, akb.one, pend.one),
            }
        }
    }

    #[inline(always)]
    fn plain(&self, out: Mixed<P>) -> Mixed<P> {
        out
    }
}

/// `2P + 1` blocks (exactly `blocks`) through `rotate256`'s rounds in one pass: `P` zmm
/// pairs and the last block in a ymm register, their instructions interleaved, where the
/// lone block ran after the pairs on its own before (its round latency-bound).
///
/// # Safety
/// The CPU must have AVX2 and AVX-512F/VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn crypt_mixed<const P: usize>(blocks: &mut [u8], keys: &[[u64; 8]]) {
    assert_eq!(blocks.len(), 16 * P + 8, "2P + 1 blocks");
    let (mut l, mut r) = (Mixed::<P>::zero(), Mixed::<P>::zero());
    let (pairs, last) = blocks.split_at_mut(16 * P);
    for (n, pair) in pairs.chunks_exact(16).enumerate() {
        (l.pairs[n], r.pairs[n]) = load_pair(pair);
    }
    let (bl, br) = ip(last);
    (l.one, r.one) = (broadcast(bl), broadcast(br));
    let c = MixedRotate::<P> {
        pairs: LanesRotate::new_pairs(),
        one: LanesRotate::new(),
    };
    // SAFETY: this function's features are `MixedRotate`'s.
    let ([l], [r]) = unsafe { rounds([l], [r], keys, &c) };
    for (n, pair) in pairs.chunks_exact_mut(16).enumerate() {
        store_pair(l.pairs[n], r.pairs[n], pair);
    }
    fp(lane0(l.one), lane0(r.one), last);
}

/// Blocks per pass of [`chain`]: IP'd into a stack buffer, chained, FP'd back.
const CHAIN_PASS: usize = 32;

/// One CBC/CFB/OFB encryption chain over whole blocks with the feedback kept broadcast
/// in registers (IP domain); `state` is the chain's block.
///
/// The blocks go through IP a pass ahead of the chain and through FP a pass behind it,
/// into and out of a buffer of spread halves: inside the chain each block is then two
/// broadcast loads and two stores around its rounds, where IP and FP (~90 scalar
/// operations a block, which the compiler vectorizes in a pass) took issue slots from the
/// rounds' vector operations. Xeon family 6 model 167 (2026-12-05, TSC c/B, best of three
/// alternating runs, libgcrypt in the same runs): default tier (`rotate256`) DES-CBC
/// 16 KiB 23.95 → 21.51 (26.47), 64 B 25.99 → 22.80; 3DES-CBC 16 KiB 64.5 → 62.3 (58.6),
/// 64 B 70.3 → 64.7; under `BITWEAVE_CPU=avx2-gfni` (`shift256`) DES-CBC 16 KiB 37.7 →
/// 35.8, 3DES-CBC 109.8 → 103.5, 3DES-OFB 109.5 → 103.7.
///
/// # Safety
/// The CPU must have `F`'s features.
#[inline(always)]
unsafe fn chain<F: RoundFunction<V = __m256i>>(
    feedback: Feedback,
    state: &mut [u8],
    data: &mut [u8],
    keys: &[[u64; 8]],
    c: &F,
) {
    let (sl, sr) = ip(state);
    let (mut zl, mut zr) = (broadcast(sl), broadcast(sr));
    let mut halves = [(0u64, 0u64); CHAIN_PASS];
    for pass in data.chunks_mut(8 * CHAIN_PASS) {
        let halves = &mut halves[..pass.len() / 8];
        for (h, b) in halves.iter_mut().zip(pass.chunks_exact(8)) {
            *h = ip(b);
        }
        for h in halves.iter_mut() {
            let (pl, pr) = (broadcast(h.0), broadcast(h.1));
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
            *h = (lane0(ol), lane0(or));
        }
        for (h, b) in halves.iter().zip(pass.chunks_exact_mut(8)) {
            fp(h.0, h.1, b);
        }
    }
    // The buffer last held outputs, which for OFB decryption are plaintext.
    crate::bytes::wipe(&mut halves[..CHAIN_PASS.min(data.len() / 8)]);
    fp(lane0(zl), lane0(zr), state);
}

// ---- Entry points --------------------------------------------------------------------

/// All rounds of `keys` on spread (L, R); returns the pre-output as spread halves.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn rounds_avx2(l: u64, r: u64, keys: &[[u64; 8]]) -> (u64, u64) {
    let (l, r) = ([broadcast(l)], [broadcast(r)]);
    // SAFETY: AVX2, this function's contract, is all `Lanes` needs.
    let ([l], [r]) = unsafe {
        if crate::cpu::intel_tuning() {
            rounds(l, r, keys, &ChainShift(Lanes::<false>::new()))
        } else {
            rounds(l, r, keys, &ChainShift(Lanes::<true>::new()))
        }
    };
    (lane0(l), lane0(r))
}

/// Every block of `blocks` through `shift256`'s rounds, several at a time in step: a lone
/// block's round is a ~24-cycle chain on Zen 3 (~14 on Zen 4) that leaves most of its
/// ~30 vector operations' slots empty. Four blocks go in step, then three, two, one.
/// AMD EPYC Zen 3 (the blend form), 3DES ECB decryption (2026-12-02, two runs each), two / three / four in
/// step at 64 B read 81-87 / 70-72 / 67-69 TSC c/B, DES 29.5 / 25.2 / 24.2-24.8. Intel
/// (measured with the compare form, which the shift form replaced at the same count:
/// eight operations a round more than the blend) gains less but gains: Xeon family 6
/// model 167 under `BITWEAVE_CPU=avx2` (2026-12-05, ECB
/// encryption, two runs), two / four in step at 64 B 3DES 76.3 / 68.7-70.6, DES
/// 27.4-28.1 / 25.1; the blend form there 71.3-78.4 and 25.7-27.3.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn crypt_avx2(blocks: &mut [u8], keys: &[[u64; 8]]) {
    /// Four, three, two in step, then one.
    #[target_feature(enable = "avx2")]
    fn in_step<const BLEND: bool>(blocks: &mut [u8], keys: &[[u64; 8]]) {
        let c = Lanes::<BLEND>::new();
        // SAFETY: AVX2, enabled here, is all `Lanes` needs.
        unsafe {
            let rest = crypt_in_step::<4, _>(blocks, keys, &c);
            let rest = crypt_in_step::<3, _>(rest, keys, &c);
            let rest = crypt_in_step::<2, _>(rest, keys, &c);
            crypt_in_step::<1, _>(rest, keys, &c);
        }
    }
    if crate::cpu::intel_tuning() {
        in_step::<false>(blocks, keys)
    } else {
        in_step::<true>(blocks, keys)
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
    unsafe {
        if crate::cpu::intel_tuning() {
            chain(
                feedback,
                state,
                data,
                keys,
                &ChainShift(Lanes::<false>::new()),
            )
        } else {
            chain(
                feedback,
                state,
                data,
                keys,
                &ChainShift(Lanes::<true>::new()),
            )
        }
    }
}

/// Whether every round key word is in [`fold_key`]'s one-copy form.
fn folded(keys: &[[u64; 8]]) -> bool {
    keys.iter().flatten().all(|&k| k >> 32 == 0)
}

/// [`rounds_avx2`] with `rotate256`'s round, on round keys folded by [`fold_key`] (others
/// give wrong output).
///
/// # Safety
/// The CPU must have AVX2, AVX-512F and AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(crate) unsafe fn rounds_avx512(l: u64, r: u64, keys: &[[u64; 8]]) -> (u64, u64) {
    debug_assert!(folded(keys), "rotate256 takes folded round keys");
    let c = ChainRotate(LanesRotate::new());
    // SAFETY: this function's contract gives `LanesRotate` its features.
    let ([l], [r]) = unsafe { rounds([broadcast(l)], [broadcast(r)], keys, &c) };
    (lane0(l), lane0(r))
}

/// Every block of `blocks` through `rotate256`'s rounds, three at a time in step (its
/// round is ~36 vector micro-ops against `shift256`'s ~52; measured on Intel, 3DES ECB at
/// 64 B: two in step 44.9 c/B, three 41.0-42.6, four 47-48, where the registers run out),
/// then two, then one.
///
/// On Intel, from four blocks, the blocks go two per zmm register first
/// ([`crypt_in_step_pairs`], then what is left as [`crypt_pairs_first`] says). A zmm instruction
/// does a ymm one's work for two blocks on two ports where the ymm form has three, a
/// round's work per block ~20 % less. Xeon family 6 model 207 (2026-12-01, TSC c/B, ymm
/// → pairs, best of three alternating runs): 3DES ECB 32 B 56.9 → 36.0, 64 B 48.9 →
/// 41.2, 128 B 49.6 → 36.3; 3DES-CBC decryption 64 B 50.7 → 43.4, 128 B 51.1 → 37.3;
/// DES-CBC decryption 64 B 20.1 → 16.9, 128 B 19.5 → 13.9 (from 256 B the bitsliced
/// backend runs). AMD keeps the ymm form (Zen 4 runs a zmm operation as two ymm ones),
/// except for four blocks, which it would run as three in step and then one, in two
/// passes, where two pairs take one. AMD EPYC Zen 4 (2026-12-03, TSC c/B, ymm → pairs,
/// best of three alternating): 32 B 3DES ECB 49.3 → 40.9, CTR 50.5 → 40.6, CBC
/// decryption 50.6 → 42.9, DES-CBC decryption 19.9 → 16.0; at 40 B (two pairs and a
/// lone block) 3DES ECB went 42.2 → 44.1, and from 48 B all pairs ran as the ymm form or
/// slower (64 B 3DES ECB 41.1 → 44.8; with four pairs in step 40.4).
///
/// On AMD the blocks go four in step first, as many groups as [`fours_first`] allows (32
/// ymm registers hold four blocks' halves beside the round's constants on AVX-512VL). AMD
/// EPYC Zen 4 (2026-12-03, TSC c/B, threes → fours, best of three alternating runs): 3DES
/// ECB 56 B 44.2 → 39.7, 64 B 41.1 → 39.2, 128 B 41.2 → 38.9; 3DES-CBC decryption 56 B
/// 45.4 → 40.1, 80 B 43.7 → 39.7, 128 B 42.0 → 38.9; DES ECB 128 B 15.4 → 13.8. Four
/// then a lone block or a pair measured slower than threes (3DES ECB 40 B 42.6 → 46.2,
/// 48 B 39.4 → 41.5), five or six in step slower than four (five: 3DES-CBC decryption
/// 128 B 53.5).
///
/// A block left alone runs the chain's round ([`lone_block`]).
///
/// # Safety
/// As [`rounds_avx512`].
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(crate) unsafe fn crypt_avx512(blocks: &mut [u8], keys: &[[u64; 8]]) {
    debug_assert!(folded(keys), "rotate256 takes folded round keys");
    // SAFETY: this function's contract gives `LanesRotate` its features.
    unsafe {
        // Under four blocks the pairs gain nothing (two: one register either way) and
        // their constants cost a 3-block call ~5 %.
        if blocks.len() >= 32 && (crate::cpu::intel_tuning() || blocks.len() < 40) {
            crypt_pairs_first(blocks, keys);
        } else {
            let c = LanesRotate::new();
            let (fours, rest) = blocks.split_at_mut(8 * 4 * fours_first(blocks.len() / 8));
            _ = crypt_in_step::<4, _>(fours, keys, &c);
            let rest = crypt_in_step::<3, _>(rest, keys, &c);
            let rest = crypt_in_step::<2, _>(rest, keys, &c);
            lone_block(rest, keys, c);
        }
    }
}

/// How many groups of four blocks in step [`crypt_avx512`] runs on AMD before its
/// groups of three, two and one: as many as leave a remainder of 0, 3, 6 or 9 blocks
/// (threes), so no group of four leaves a lone block or a pair behind it.
fn fours_first(blocks: usize) -> usize {
    match blocks % 4 {
        0 | 3 => blocks / 4,
        2 => blocks.saturating_sub(6) / 4,
        _ => blocks.saturating_sub(9) / 4,
    }
}

/// One block (or none) through `rotate256`'s rounds in the chain's form ([`ChainRotate`]):
/// a lone block is one dependency chain, as a chain is, and the form that keeps the
/// swap off the rounds' critical path is the faster one for it. AMD EPYC Zen 4
/// (2026-12-03, TSC c/B, the in-step form → the chain's, best of three alternating):
/// 3DES ECB 8 B 83.1 → 79.7-80.2, 3DES-CBC decryption 8 B 86.3 → 83.8-84.8, DES ECB 8 B
/// 33.4 → 31.9-32.1 (two runs); with two or three blocks in step the chain's form was slower (3DES ECB 16 B
/// 49.4 → 57.3, 64 B 41.0 → 46.5), as it measured on Intel. Intel's lone block (after
/// its pairs) was not re-measured; the chain's form was measured faster there for one
/// block's chain (see [`Halves`]). `c` is the caller's constants, not built again.
///
/// # Safety
/// As [`rounds_avx512`].
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn lone_block(blocks: &mut [u8], keys: &[[u64; 8]], c: LanesRotate<__m256i>) {
    debug_assert!(blocks.len() <= 8, "at most one block");
    if !blocks.is_empty() {
        // SAFETY: this function's contract gives `ChainRotate` its features.
        _ = unsafe { crypt_in_step::<1, _>(blocks, keys, &ChainRotate(c)) };
    }
}

/// [`crypt_avx512`]'s order on Intel: six blocks at a time as three zmm pairs, then what
/// is left (up to five blocks) in one pass: pairs; five as two pairs with the last block
/// beside them in a ymm register ([`crypt_mixed`]); three in the ymm form in step (as
/// one pair and one ymm register they measured slower, 3DES ECB 24 B 47.1 → 50.1-50.7
/// TSC c/B). Five ran as two pairs and then a lone block: in one pass, 40 B 3DES ECB
/// 45.8-46.0 → 41.3-41.6, DES-CBC decryption 18.7-21.4 → 16.5-17.7 (Xeon family 6 model
/// 207, four alternating runs).
///
/// # Safety
/// As [`rounds_avx512`].
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn crypt_pairs_first(blocks: &mut [u8], keys: &[[u64; 8]]) {
    let pairs = LanesRotate::new_pairs();
    // SAFETY: this function's contract gives `LanesRotate` and `crypt_mixed` their
    // features.
    unsafe {
        let rest = crypt_in_step_pairs::<3, _>(blocks, keys, &pairs);
        match rest.len() / 8 {
            5 => crypt_mixed::<2>(rest, keys),
            4 => _ = crypt_in_step_pairs::<2, _>(rest, keys, &pairs),
            3 => _ = crypt_in_step::<3, _>(rest, keys, &LanesRotate::new()),
            2 => _ = crypt_in_step_pairs::<1, _>(rest, keys, &pairs),
            1 => lone_block(rest, keys, LanesRotate::new()),
            _ => {}
        }
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
    debug_assert!(folded(keys), "rotate256 takes folded round keys");
    // SAFETY: this function's contract gives `LanesRotate` its features.
    unsafe {
        chain(
            feedback,
            state,
            data,
            keys,
            &ChainRotate(LanesRotate::new()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::shift::f64;
    use super::super::shift_layout::{fold_key, spread, KEY_ORDER};
    use super::*;

    /// `shift256`'s two ways to a P position (the blend AMD gets, the shift and AND Intel
    /// gets) give the same rounds on random halves and keys: the backend tests run only
    /// the one the tuning picks (`cpu::tuning`). Each form also as the chain's round
    /// ([`ChainShift`]: the output as [`Halves`]).
    #[test]
    fn both_selects_give_the_same_rounds() {
        if !crate::cpu::has(crate::cpu::Feature::Avx2) {
            eprintln!("skipped: shift256's blend and shift forms (this CPU lacks AVX2)");
            return;
        }
        #[target_feature(enable = "avx2")]
        fn run<const BLEND: bool>(l: u64, r: u64, keys: &[[u64; 8]]) -> (u64, u64) {
            let c = Lanes::<BLEND>::new();
            let (l, r) = ([broadcast(l)], [broadcast(r)]);
            // SAFETY: AVX2, enabled here, is all `Lanes` needs.
            let (([bl], [br]), ([cl], [cr])) = unsafe {
                (
                    rounds(l, r, keys, &c),
                    rounds(l, r, keys, &ChainShift(Lanes::<BLEND>::new())),
                )
            };
            assert_eq!(
                (lane0(bl), lane0(br)),
                (lane0(cl), lane0(cr)),
                "chain, blend {BLEND}"
            );
            (lane0(bl), lane0(br))
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200 {
            let (l, r) = (next(), next());
            let keys: Vec<[u64; 8]> = (0..48).map(|_| core::array::from_fn(|_| next())).collect();
            // SAFETY: the CPU has AVX2 (checked above).
            let (blend, shift) = unsafe { (run::<true>(l, r, &keys), run::<false>(l, r, &keys)) };
            assert_eq!(blend, shift, "halves {l:#x} {r:#x}");
        }
        eprintln!("ran: shift256's blend and shift forms");
    }

    /// Groups of four leave only groups of three behind them, or the whole count when it
    /// is too small for a four to help.
    #[test]
    fn fours_leave_threes() {
        for n in 0..200 {
            let rest = n - 4 * fours_first(n);
            assert!(
                matches!(rest, 0 | 3 | 6 | 9) || (rest == n && n < 6),
                "{n} blocks leave {rest}"
            );
        }
    }

    /// `rotate256` on two blocks per zmm register gives what it gives on one block per
    /// ymm register, for every block count to 20 on random blocks and round keys (the
    /// backend tests compare the dispatch's choice with `soft`).
    #[test]
    fn pairs_match_single_registers() {
        use crate::cpu::Feature::{Avx2, Avx512f, Avx512vl};
        if !crate::cpu::has_all(&[Avx2, Avx512f, Avx512vl]) {
            eprintln!("skipped: rotate256 on zmm pairs (this CPU lacks AVX-512F/VL)");
            return;
        }
        #[target_feature(enable = "avx2,avx512f,avx512vl")]
        fn run(blocks: &mut [u8], keys: &[[u64; 8]], pairs: bool) {
            // SAFETY: AVX2 and AVX-512F/VL, enabled here, are all either form needs.
            unsafe {
                if pairs {
                    crypt_pairs_first(blocks, keys);
                } else {
                    crypt_in_step::<1, _>(blocks, keys, &LanesRotate::new());
                }
            }
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in 0..=20 {
            // Folded round keys: one copy, in the low 32 bits.
            let keys: Vec<[u64; 8]> = (0..48)
                .map(|_| core::array::from_fn(|_| next() & 0xFFFF_FFFF))
                .collect();
            let data: Vec<u8> = (0..8 * n).map(|_| next() as u8).collect();
            let (mut paired, mut single) = (data.clone(), data);
            // SAFETY: the CPU has AVX2 and AVX-512F/VL (checked above).
            unsafe {
                run(&mut paired, &keys, true);
                run(&mut single, &keys, false);
            }
            assert_eq!(
                paired, single,
                "rotate256 3DES, {n} blocks, zmm pairs against ymm"
            );
        }
        eprintln!(
            "ran: rotate256 on zmm pairs (and pairs beside a ymm block) against ymm, 0-20 blocks"
        );
    }

    /// `rotate256`'s round on [`ROTATE`], lane by lane in scalar code (what `vprorvd`,
    /// `vprolvq`, the selects and the AND do), against the portable f on random halves
    /// and keys: the tables, the positions and the key fold are checked on any x86 CPU,
    /// not only where AVX-512 runs the kernel.
    #[test]
    fn rotate_tables_give_the_f_function() {
        let t = &ROTATE;
        let mux = |key: u64, u: u64, v: u64| (key & u) | (!key & v);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = spread((x >> 32) as u32);
            // Round key words as `Rounds` stores them: chunk of S-box KEY_ORDER[i],
            // complemented, at its window.
            let k: [u64; 8] = core::array::from_fn(|i| {
                let s = KEY_ORDER[i];
                ((x >> (6 * i)) & 63) << WINDOW[s]
            });
            let mut f = 0u64;
            for lane in 0..4 {
                let pair = |g: usize| {
                    let s = g + 2 * lane;
                    let half = (r ^ fold_key(k[4 * g + lane])) as u32;
                    let x63 = half.rotate_right(WINDOW[s]) & 63;
                    let look = |j: usize| t.truth[g][j][lane].rotate_left(x63);
                    (
                        mux(t.pair[g][0][lane], look(0), look(1)),
                        mux(t.pair[g][1][lane], look(2), look(3)),
                    )
                };
                let ((a01, a23), (b01, b23)) = (pair(0), pair(1));
                let a = mux(t.low_pair[0][lane], a01, a23);
                let tree = mux(t.group_a[lane], a, mux(t.low_pair[1][lane], b01, b23));
                let chain = mux(t.a_and_b_low[lane], mux(t.group_a[lane], a, b01), b23);
                assert_eq!(tree & t.owned[lane], chain & t.owned[lane], "merge orders");
                f |= tree & t.owned[lane];
            }
            assert_eq!(f, f64(r, &k) & 0xFFFF_FFFF, "half {r:#x}, keys {k:x?}");
        }
    }
}
