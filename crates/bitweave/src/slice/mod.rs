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
//! Implementations: `u64` (64 lanes, portable, [`portable`]), `x86::Sse2` and `arm::Neon`
//! (128 lanes), `x86::Avx2` (256 lanes; `x86::Avx512Vl` the same with `vpternlogq`) and
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
//! [`transpose64`](transpose::transpose64) turns 64 rows into 64 planes within each word. Which block lands in
//! which lane only has to be the same on the way in and out, and it is, because stores are
//! the exact inverses of the loads.
//!
//! Here: the two traits. Beside them: `ternary` (3-input operations lowered to 2-input
//! ones), `transpose` (blocks ↔ planes), `width` (register widths and running work at
//! one), and the lane types `portable`, `arm`, `x86`, `trace`.
#![deny(unsafe_code)]

#[cfg(target_arch = "aarch64")]
pub mod arm;
pub mod portable;
pub mod synth;
pub mod synth2;
mod ternary;
pub mod trace;
mod transpose;
mod width;
#[cfg(target_arch = "x86_64")]
pub mod x86;

use ternary::{plan, tern_lowered};
pub use transpose::{
    blocks16_from_planes, blocks16_from_planes_xor, blocks8_from_planes, blocks8_from_planes_xor,
    planes_from_blocks16, planes_from_blocks16_xor, planes_from_blocks8, planes_from_blocks8_xor,
    transpose8,
};
pub(crate) use width::for_each_batch;
pub use width::{run_kernel, Kernel, Width};

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
    /// Whether the lane type runs circuits of 2-input gates better than [`Logic::tern`]'s
    /// (it has no 3-input instruction, so `tern` lowers to one to six operations): the
    /// DES S-boxes then use `cipher::des::circuit2`. Off by default, so a lane type that
    /// records gates (the MX-1 model's) keeps the 3-input circuits.
    const TWO_INPUT_GATES: bool = false;
    /// The 3-input function with truth table `IMM`: result bit = bit `4a + 2b + c` of
    /// `IMM` (the `vpternlogq` convention). The default lowers it to at most a few 2-input
    /// operations, choosing the cheapest Shannon/Davio split at compile time.
    #[inline(always)]
    fn tern<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        tern_lowered::<Self>(const { plan(IMM as u8) }, a, b, c)
    }
    /// Marks the end of a transformation whose results `planes` are the next one's
    /// operands, in order. Registers and memory words need nothing (the default); a lane
    /// type that names storage — the MX-1 model's SRAM bit addresses — lays them out
    /// consecutively there, as a program for that machine would choose its output
    /// pointers, so that its multi-bit instructions apply to the next transformation.
    #[inline(always)]
    fn settle(planes: &mut [Self]) {
        let _ = planes;
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
