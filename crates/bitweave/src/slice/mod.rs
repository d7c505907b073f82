//! The interleaved-bitslice substrate (the MX-1 method): lane types, the wide logic library,
//! and the transposition of blocks into bit planes ("bitslice line format") and back.
//!
//! # Model
//!
//! A *plane* is one register-wide value whose bit lane `j` belongs to cipher instance `j`:
//! plane `p` holds bit `p` of every block in the batch. A cipher round is then a fixed
//! sequence of Boolean operations on planes, each operating on all lanes at once, so a
//! 512-bit register runs 512 independent encryptions — the MX-1's 1-bit PEs, with the
//! register width playing the SIMD matrix's row count.
//!
//! # Traits
//!
//! - [`Logic`]: what a Boolean circuit needs — XOR/AND/OR/ANDNOT/NOT, a 3-input operation
//!   [`Logic::tern`] given by its 8-bit truth table (one `vpternlogq` on AVX-512, a short
//!   sequence of 2-input operations elsewhere) and a broadcast constant. The cipher circuits
//!   (DES S-boxes, the AES S-box, MixColumns) are written once, generic over `Logic`.
//! - [`Lanes`]: `Logic` plus what data movement needs — per-64-bit-word shifts for the
//!   transposition, and loads/stores of whole blocks.
//!
//! Implementations: `u64` (64 lanes, portable, [`portable`]), `x86::Avx2` (256 lanes) and
//! `x86::Avx512` (512 lanes), and [`trace::Trace`], which records every operation as a
//! [`trace::Gate`] so the *same* generic circuit code yields a gate list that an interpreter,
//! a gate counter or the MX-1 cycle model can execute ([`trace::Circuit`]). That is the one
//! place the circuits live: generic Rust functions over `Logic`, instantiated with real
//! lanes for speed and with `Trace` for counting and modelling.
//!
//! # Lane order
//!
//! A `Lanes` value of `W` words has `64·W` lanes; word `g`, bit `i` is one lane. The loads
//! fill a row of `W` words from `W` consecutive blocks (the exact word order is the lane
//! type's business: [`Lanes::load16`] deinterleaves with unpack instructions), and
//! [`transpose64`] turns 64 rows into 64 planes within each word. Which block lands in
//! which lane only has to be the same on the way in and out, and it is, because stores are
//! the exact inverses of the loads.
#![deny(unsafe_code)]

pub mod portable;
pub mod synth;
pub mod trace;
#[cfg(target_arch = "x86_64")]
pub mod x86;

/// A register of bit lanes with Boolean operations: everything a cipher circuit needs.
///
/// Every operation acts on all lanes independently and runs in time independent of the
/// values (no branches, no memory indices).
pub trait Logic: Copy {
    /// Each 64-bit word set to `x` (use `0` or `!0` to broadcast a bit to every lane).
    fn splat(x: u64) -> Self;
    /// `self ^ o`.
    fn xor(self, o: Self) -> Self;
    /// `self & o`.
    fn and(self, o: Self) -> Self;
    /// `self | o`.
    fn or(self, o: Self) -> Self;
    /// `!self & o`.
    fn andnot(self, o: Self) -> Self;
    /// `!self`.
    fn not(self) -> Self;
    /// The 3-input function with truth table `IMM`: result bit = bit `4a + 2b + c` of
    /// `IMM` (the `vpternlogq` convention). The default lowers it to at most a few 2-input
    /// operations, choosing the cheapest Shannon/Davio split at compile time.
    #[inline(always)]
    fn tern<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        tern_lowered::<Self>(const { plan(IMM as u8) }, a, b, c)
    }
}

/// [`Logic`] plus data movement: shifts inside each 64-bit word (for the transposition) and
/// block loads and stores.
pub trait Lanes: Logic {
    /// 64-bit words per value.
    const WORDS: usize;
    /// Lanes per value: blocks processed at once.
    const LANES: usize = 64 * Self::WORDS;
    /// Each 64-bit word shifted left by `N`.
    fn shl<const N: u32>(self) -> Self;
    /// Each 64-bit word shifted right by `N`.
    fn shr<const N: u32>(self) -> Self;
    /// Loads `WORDS` 8-byte blocks (`src.len() == 8 * WORDS`), one per word, each as a
    /// little-endian u64.
    fn load8(src: &[u8]) -> Self;
    /// Inverse of [`load8`](Self::load8).
    fn store8(self, dst: &mut [u8]);
    /// Loads `WORDS` 16-byte blocks (`src.len() == 16 * WORDS`) as (low halves, high
    /// halves): word `g` of both results comes from the same block, each half read as a
    /// little-endian u64.
    fn load16(src: &[u8]) -> (Self, Self);
    /// Inverse of [`load16`](Self::load16).
    fn store16(lo: Self, hi: Self, dst: &mut [u8]);
}

/// How [`Logic::tern`] is lowered to 2-input operations: which input is split on (the
/// others keep their order) and the two 2-input cofactor functions.
#[derive(Clone, Copy, Debug)]
pub struct TernPlan {
    /// 0: split on `a`, 1: on `b`, 2: on `c`.
    split: u8,
    kind: u8,
    /// 2-input truth tables over (x, y) = the two remaining inputs, index `2x + y`.
    g: u8,
    h: u8,
}

const K_SAME: u8 = 0; // f = g
const K_XOR: u8 = 1; // f = s ^ g
const K_AND: u8 = 2; // f = s & g
const K_ANDN: u8 = 3; // f = !s & g
const K_OR: u8 = 4; // f = s | g
const K_ORN: u8 = 5; // f = !s | g
const K_DAVIO: u8 = 6; // f = g ^ (s & h)

/// Operations a 2-input truth table costs.
const fn cost2(t: u8) -> u32 {
    match t & 15 {
        0x0 | 0xf | 0xc | 0xa => 0,
        0x8 | 0xe | 0x6 | 0x2 | 0x4 | 0x3 | 0x5 => 1,
        _ => 2,
    }
}

/// The truth-table index of input values when input `split` is `s` and the other two, in
/// order, are `x` and `y`.
const fn tern_index(split: u8, s: u8, x: u8, y: u8) -> u8 {
    match split {
        0 => (s << 2) | (x << 1) | y,
        1 => (x << 2) | (s << 1) | y,
        _ => (x << 2) | (y << 1) | s,
    }
}

/// Chooses the cheapest lowering of a 3-input truth table (evaluated at compile time).
pub const fn plan(imm: u8) -> TernPlan {
    let mut best = TernPlan {
        split: 0,
        kind: K_DAVIO,
        g: 0,
        h: 0,
    };
    let mut best_cost = u32::MAX;
    let mut split = 0u8;
    while split < 3 {
        // Cofactors: f0 (split input 0) and f1, as 2-input tables over the other two.
        let (mut f0, mut f1) = (0u8, 0u8);
        let mut xy = 0u8;
        while xy < 4 {
            let (x, y) = ((xy >> 1) & 1, xy & 1);
            f0 |= ((imm >> tern_index(split, 0, x, y)) & 1) << xy;
            f1 |= ((imm >> tern_index(split, 1, x, y)) & 1) << xy;
            xy += 1;
        }
        let (kind, g, h, cost) = if f0 == f1 {
            (K_SAME, f0, 0, cost2(f0))
        } else if f0 ^ f1 == 15 {
            (K_XOR, f0, 0, 1 + cost2(f0))
        } else if f0 == 0 {
            (K_AND, f1, 0, 1 + cost2(f1))
        } else if f1 == 0 {
            (K_ANDN, f0, 0, 1 + cost2(f0))
        } else if f1 == 15 {
            (K_OR, f0, 0, 1 + cost2(f0))
        } else if f0 == 15 {
            (K_ORN, f1, 0, 2 + cost2(f1))
        } else {
            (K_DAVIO, f0, f0 ^ f1, 2 + cost2(f0) + cost2(f0 ^ f1))
        };
        if cost < best_cost {
            best_cost = cost;
            best = TernPlan { split, kind, g, h };
        }
        split += 1;
    }
    best
}

/// A 2-input function given by its truth table (index `2x + y`).
#[inline(always)]
fn two<L: Logic>(t: u8, x: L, y: L) -> L {
    match t & 15 {
        0x0 => L::splat(0),
        0xf => L::splat(!0),
        0xc => x,
        0xa => y,
        0x3 => x.not(),
        0x5 => y.not(),
        0x8 => x.and(y),
        0xe => x.or(y),
        0x6 => x.xor(y),
        0x2 => x.andnot(y),
        0x4 => y.andnot(x),
        0x7 => x.and(y).not(),
        0x1 => x.or(y).not(),
        0x9 => x.xor(y).not(),
        0xb => y.andnot(x).not(), // !x | y
        _ => x.andnot(y).not(),   // 0xd: x | !y
    }
}

/// Executes a [`TernPlan`]; with a constant plan every `match` folds away.
#[inline(always)]
pub fn tern_lowered<L: Logic>(p: TernPlan, a: L, b: L, c: L) -> L {
    let (s, x, y) = match p.split {
        0 => (a, b, c),
        1 => (b, a, c),
        _ => (c, a, b),
    };
    let g = two(p.g, x, y);
    match p.kind {
        K_SAME => g,
        K_XOR => s.xor(g),
        K_AND => s.and(g),
        K_ANDN => s.andnot(g),
        K_OR => s.or(g),
        K_ORN => g.andnot(s).not(),
        _ => g.xor(s.and(two(p.h, x, y))),
    }
}

/// Swaps bit field `S` between `g[k]` and `g[k + d]` (`k & d == 0`): one SWAPMOVE stage
/// on a group of eight rows, the masked XOR as one 3-input operation.
#[inline(always)]
fn swap_stage<L: Lanes, const S: u32>(g: &mut [L; 8], d: usize, mask: u64) {
    let mask = L::splat(mask);
    for k in 0..8 {
        if k & d == 0 {
            let (a, b) = (g[k], g[k + d]);
            // t = ((a >> S) ^ b) & mask; b ^= t; a ^= t << S.
            let t = L::tern::<0x28>(a.shr::<S>(), b, mask);
            g[k + d] = b.xor(t);
            g[k] = a.xor(t.shl::<S>());
        }
    }
}

/// The stages 32, 16, 8 on one group of eight rows.
#[inline(always)]
fn byte_stages<L: Lanes>(g: &mut [L; 8]) {
    swap_stage::<L, 32>(g, 4, 0x0000_0000_ffff_ffff);
    swap_stage::<L, 16>(g, 2, 0x0000_ffff_0000_ffff);
    swap_stage::<L, 8>(g, 1, 0x00ff_00ff_00ff_00ff);
}

/// The stages 4, 2, 1 of [`transpose64`]: they only pair rows that differ in index bits
/// 2..0, so each group of eight consecutive rows is done in registers, in place.
#[inline(always)]
fn transpose_bits<L: Lanes>(m: &mut [L]) {
    for h in 0..8 {
        let g: &mut [L; 8] = (&mut m[8 * h..8 * h + 8]).try_into().unwrap();
        swap_stage::<L, 4>(g, 4, 0x0f0f_0f0f_0f0f_0f0f);
        swap_stage::<L, 2>(g, 2, 0x3333_3333_3333_3333);
        swap_stage::<L, 1>(g, 1, 0x5555_5555_5555_5555);
    }
}

/// Rows (or row pairs: the two halves of 16-byte blocks) that a transposition reads,
/// from memory or from planes. A trait with `#[inline(always)]` methods rather than
/// closures: closures may stay out-of-line, outside the SIMD entry point's features.
trait RowSource<L: Lanes, const K: usize> {
    fn get(&self, i: usize) -> [L; K];
}

/// Where a transposition writes its rows (or row pairs).
trait RowSink<L: Lanes, const K: usize> {
    fn put(&mut self, i: usize, r: [L; K]);
}

/// The stages 32, 16, 8 of [`transpose64`] on `K` row sets at once: they only pair rows
/// whose indices differ in bits 5..3, so each group of the eight rows `8h + l` (one `l`)
/// is done in registers, read from `src` and written to `dst` (memory in or out directly,
/// no pass of its own).
#[inline(always)]
fn transpose_bytes<L: Lanes, const K: usize>(
    src: &impl RowSource<L, K>,
    dst: &mut impl RowSink<L, K>,
) {
    for l in 0..8 {
        let mut g = [[L::splat(0); 8]; K];
        for h in 0..8 {
            for (gk, rk) in g.iter_mut().zip(src.get(8 * h + l)) {
                gk[h] = rk;
            }
        }
        for gk in g.iter_mut() {
            byte_stages(gk);
        }
        for h in 0..8 {
            let mut r = [L::splat(0); K];
            for (rk, gk) in r.iter_mut().zip(&g) {
                *rk = gk[h];
            }
            dst.put(8 * h + l, r);
        }
    }
}

/// `K` sets of 64 planes, set `k` at `64k..64k + 64` (128 planes of 16-byte blocks are
/// two sets: the low and the high block halves).
struct PlaneSets<L, const N: usize>([L; N]);

impl<L: Lanes, const N: usize, const K: usize> RowSource<L, K> for PlaneSets<L, N> {
    #[inline(always)]
    fn get(&self, i: usize) -> [L; K] {
        let mut r = [L::splat(0); K];
        for (k, rk) in r.iter_mut().enumerate() {
            *rk = self.0[64 * k + i];
        }
        r
    }
}

impl<L: Lanes, const N: usize, const K: usize> RowSink<L, K> for PlaneSets<L, N> {
    #[inline(always)]
    fn put(&mut self, i: usize, r: [L; K]) {
        for (k, rk) in r.into_iter().enumerate() {
            self.0[64 * k + i] = rk;
        }
    }
}

/// Blocks in memory read as rows, `row` bytes each, as `src ⊕ other` when `other` is given.
struct BlocksIn<'a> {
    src: &'a [u8],
    other: Option<&'a [u8]>,
    row: usize,
}

/// Blocks in memory written as rows, `row` bytes each, XORed into `dst` when `xor`.
struct BlocksOut<'a> {
    dst: &'a mut [u8],
    xor: bool,
    row: usize,
}

/// One row of `K` sets from memory: 8-byte blocks (`K = 1`) or 16-byte blocks (`K = 2`).
#[inline(always)]
fn load_rows<L: Lanes, const K: usize>(b: &[u8]) -> [L; K] {
    let mut r = [L::splat(0); K];
    if K == 1 {
        r[0] = L::load8(b);
    } else {
        (r[0], r[1]) = L::load16(b);
    }
    r
}

/// Inverse of [`load_rows`].
#[inline(always)]
fn store_rows<L: Lanes, const K: usize>(r: [L; K], b: &mut [u8]) {
    if K == 1 {
        r[0].store8(b);
    } else {
        L::store16(r[0], r[1], b);
    }
}

impl<L: Lanes, const K: usize> RowSource<L, K> for BlocksIn<'_> {
    #[inline(always)]
    fn get(&self, i: usize) -> [L; K] {
        let at = i * self.row;
        let mut r = load_rows::<L, K>(&self.src[at..]);
        if let Some(o) = self.other {
            let t = load_rows::<L, K>(&o[at..]);
            for k in 0..K {
                r[k] = r[k].xor(t[k]);
            }
        }
        r
    }
}

impl<L: Lanes, const K: usize> RowSink<L, K> for BlocksOut<'_> {
    #[inline(always)]
    fn put(&mut self, i: usize, mut r: [L; K]) {
        let d = &mut self.dst[i * self.row..];
        if self.xor {
            let t = load_rows::<L, K>(d);
            for k in 0..K {
                r[k] = r[k].xor(t[k]);
            }
        }
        store_rows(r, d);
    }
}

/// Transposes 64 rows into 64 planes inside every 64-bit word: afterwards bit `i` of word
/// `g` of `m[p]` is bit `p` of word `g` of the old `m[i]`. Six SWAPMOVE stages of 32 swaps
/// each; the transposition is its own inverse.
///
/// The stages run in two passes over groups of eight rows (`transpose_bytes`,
/// `transpose_bits`; the passes commute), each group in registers: stage by stage over
/// all 64 rows spilled the whole array six times. The block loaders and storers below
/// run the byte pass straight from and to memory.
#[inline(always)]
#[cfg_attr(not(test), allow(dead_code))]
pub fn transpose64<L: Lanes>(m: &mut [L; 64]) {
    *m = planes_from_rows::<L, 1, 64>(&PlaneSets(*m));
}

/// Planes from the `64·K` rows of `src`: the byte pass from memory, then the bit pass.
#[inline(always)]
fn planes_from_rows<L: Lanes, const K: usize, const N: usize>(
    src: &impl RowSource<L, K>,
) -> [L; N] {
    debug_assert_eq!(N, 64 * K);
    let mut m = PlaneSets([L::splat(0); N]);
    transpose_bytes(src, &mut m);
    for k in 0..K {
        transpose_bits(&mut m.0[64 * k..64 * k + 64]);
    }
    m.0
}

/// Rows into `dst` from `N = 64·K` planes: the bit pass, then the byte pass to memory.
#[inline(always)]
fn rows_from_planes<L: Lanes, const K: usize, const N: usize>(
    m: &[L; N],
    dst: &mut impl RowSink<L, K>,
) {
    debug_assert_eq!(N, 64 * K);
    let mut m = PlaneSets(*m);
    for k in 0..K {
        transpose_bits(&mut m.0[64 * k..64 * k + 64]);
    }
    transpose_bytes(&m, dst);
}

#[inline(always)]
fn rows_in<'a>(src: &'a [u8], other: Option<&'a [u8]>, block: usize, w: usize) -> BlocksIn<'a> {
    let row = block * w;
    assert!(src.len() == 64 * row && other.is_none_or(|o| o.len() == 64 * row));
    BlocksIn { src, other, row }
}

#[inline(always)]
fn rows_out(dst: &mut [u8], xor: bool, block: usize, w: usize) -> BlocksOut<'_> {
    let row = block * w;
    assert_eq!(dst.len(), 64 * row);
    BlocksOut { dst, xor, row }
}

/// Loads `64·WORDS` 8-byte blocks into 64 planes: plane `p` holds bit `p` of each block read
/// as a little-endian u64 (so plane `8k + j` is bit `j`, LSB = 0, of byte `k`).
#[inline(always)]
pub fn planes_from_blocks8<L: Lanes>(src: &[u8]) -> [L; 64] {
    planes_from_rows::<L, 1, 64>(&rows_in(src, None, 8, L::WORDS))
}

/// Inverse of [`planes_from_blocks8`].
#[inline(always)]
pub fn blocks8_from_planes<L: Lanes>(m: [L; 64], dst: &mut [u8]) {
    rows_from_planes::<L, 1, 64>(&m, &mut rows_out(dst, false, 8, L::WORDS));
}

/// [`planes_from_blocks8`] of `src ⊕ other`, the XOR done on the loaded rows (a CBC
/// chain's plaintext and previous ciphertext), with no pass over memory of its own.
#[inline(always)]
pub fn planes_from_blocks8_xor<L: Lanes>(src: &[u8], other: &[u8]) -> [L; 64] {
    planes_from_rows::<L, 1, 64>(&rows_in(src, Some(other), 8, L::WORDS))
}

/// [`blocks8_from_planes`] XORed into `dst` (a keystream applied as it is stored).
#[inline(always)]
pub fn blocks8_from_planes_xor<L: Lanes>(m: [L; 64], dst: &mut [u8]) {
    rows_from_planes::<L, 1, 64>(&m, &mut rows_out(dst, true, 8, L::WORDS));
}

/// Loads `64·WORDS` 16-byte blocks into 128 planes: plane `8k + j` is bit `j` (LSB = 0) of
/// byte `k` of each block.
#[inline(always)]
pub fn planes_from_blocks16<L: Lanes>(src: &[u8]) -> [L; 128] {
    planes_from_rows::<L, 2, 128>(&rows_in(src, None, 16, L::WORDS))
}

/// Inverse of [`planes_from_blocks16`].
#[inline(always)]
pub fn blocks16_from_planes<L: Lanes>(m: &[L; 128], dst: &mut [u8]) {
    rows_from_planes::<L, 2, 128>(m, &mut rows_out(dst, false, 16, L::WORDS));
}

/// [`planes_from_blocks16`] of `src ⊕ other`, the XOR done on the loaded rows.
#[inline(always)]
pub fn planes_from_blocks16_xor<L: Lanes>(src: &[u8], other: &[u8]) -> [L; 128] {
    planes_from_rows::<L, 2, 128>(&rows_in(src, Some(other), 16, L::WORDS))
}

/// [`blocks16_from_planes`] XORed into `dst`.
#[inline(always)]
pub fn blocks16_from_planes_xor<L: Lanes>(m: &[L; 128], dst: &mut [u8]) {
    rows_from_planes::<L, 2, 128>(m, &mut rows_out(dst, true, 16, L::WORDS));
}

/// Work generic over the lane type, so one body serves every width; [`run_kernel`] runs it
/// at a chosen [`Width`].
pub trait Kernel {
    /// Runs the work with lane type `L`. Implementations should be `#[inline(always)]` so
    /// the body is compiled inside the SIMD entry point's `#[target_feature]` context.
    fn run<L: Lanes>(&mut self);
}

/// Runs `k` at width `w`. Panics if this CPU cannot run `w` (see [`Width::available`]);
/// the registry never selects such a backend.
pub fn run_kernel<K: Kernel>(w: Width, k: &mut K) {
    match w {
        Width::W64 => k.run::<u64>(),
        #[cfg(target_arch = "x86_64")]
        Width::W256 => x86::run_avx2(k),
        #[cfg(target_arch = "x86_64")]
        Width::W512 => x86::run_avx512(k),
        #[cfg(not(target_arch = "x86_64"))]
        _ => panic!("{} needs x86-64", w.backend_name()),
    }
}

/// Splits `data` (whole `block`-byte blocks) into bitsliced batches and hands each to
/// `run` with the width to run it at: full batches at `width`; then, for the tail, whole
/// 64-block batches on the portable lanes when the tail is short (or `width` is W64);
/// then one zero-padded batch at the narrowest width that holds the rest, whose scratch
/// copy is wiped afterwards. Shared by every bitsliced cipher.
pub(crate) fn for_each_batch(
    width: Width,
    block: usize,
    data: &mut [u8],
    mut run: impl FnMut(Width, &mut [u8]),
) {
    assert_eq!(data.len() % block, 0, "whole blocks only");
    let batch = block * width.lanes();
    let (body, tail) = data.split_at_mut(data.len() / batch * batch);
    if !body.is_empty() {
        run(width, body);
    }
    if tail.is_empty() {
        return;
    }
    let small = block * Width::W64.lanes();
    let (w, pad) = if tail.len() <= small || width == Width::W64 {
        let (whole, rest) = tail.split_at_mut(tail.len() / small * small);
        if !whole.is_empty() {
            run(Width::W64, whole);
        }
        (Width::W64, rest)
    } else {
        (width, tail)
    };
    if pad.is_empty() {
        return;
    }
    let mut buf = vec![0u8; block * w.lanes()];
    buf[..pad.len()].copy_from_slice(pad);
    run(w, &mut buf);
    pad.copy_from_slice(&buf[..pad.len()]);
    crate::bytes::wipe(&mut buf);
}

/// The lane widths bitweave's bitsliced backends run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Portable `u64`: 64 lanes.
    W64,
    /// AVX2: 256 lanes.
    W256,
    /// AVX-512: 512 lanes.
    W512,
}

impl Width {
    /// Whether this CPU runs the width (under the tier cap, see [`crate::cpu`]).
    pub fn available(self) -> bool {
        match self {
            Width::W64 => true,
            #[cfg(target_arch = "x86_64")]
            Width::W256 => x86::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            Width::W512 => x86::has_avx512(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Lanes (blocks per batch).
    pub fn lanes(self) -> usize {
        match self {
            Width::W64 => 64,
            Width::W256 => 256,
            Width::W512 => 512,
        }
    }

    /// Registry name of the backend at this width.
    pub fn backend_name(self) -> &'static str {
        match self {
            Width::W64 => "sliced64",
            Width::W256 => "sliced256",
            Width::W512 => "sliced512",
        }
    }

    /// CPU features the width needs.
    pub fn features(self) -> &'static [crate::cpu::Feature] {
        match self {
            Width::W64 => &[],
            Width::W256 => &[crate::cpu::Feature::Avx2],
            Width::W512 => &[crate::cpu::Feature::Avx512f],
        }
    }

    /// The widest width this CPU runs.
    pub fn best() -> Width {
        [Width::W512, Width::W256, Width::W64]
            .into_iter()
            .find(|w| w.available())
            .unwrap_or(Width::W64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 3-input truth table lowers correctly (checked on u64 lanes, all 8 input
    /// combinations at once).
    #[test]
    fn tern_lowering_matches_truth_table() {
        let (a, b, c) = (0xf0u64, 0xccu64, 0xaau64);
        for imm in 0..=255u8 {
            let got = tern_lowered::<u64>(plan(imm), a, b, c) & 0xff;
            assert_eq!(got, imm as u64, "imm {imm:#04x}");
        }
        assert_eq!(u64::tern::<0x96>(a, b, c) & 0xff, 0x96);
        assert_eq!(u64::tern::<0xca>(a, b, c) & 0xff, 0xca);
    }

    #[test]
    fn transpose_moves_bit_i_of_row_p_to_bit_p_of_row_i() {
        let mut m = [0u64; 64];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for r in m.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *r = x;
        }
        let orig = m;
        transpose64(&mut m);
        for (p, plane) in m.iter().enumerate() {
            for (i, row) in orig.iter().enumerate() {
                assert_eq!((plane >> i) & 1, (row >> p) & 1);
            }
        }
        transpose64(&mut m);
        assert_eq!(m, orig);
    }
}
