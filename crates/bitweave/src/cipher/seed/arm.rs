//! `armv8` (SEED): the S-boxes on the ARMv8 crypto extension's `AESE`, one block at a
//! time for serial work ([`super::single`]) and four blocks in the lanes (two such groups
//! in step) for batches.
//!
//! The x86 `aesni` kernel's method on NEON. G on a register of four 32-bit words: two
//! nibble lookups (`tbl`) into AES's field, `AESE` with a zero key (ShiftRows, then
//! inversion and AES's affine map), each S-box kind's map back (two lookups), a bit
//! select (even bytes S1, odd bytes S2), and the mixing's four byte rotations
//! ([`super::field::MIX`]) as lookups, masked and XORed. ShiftRows moved each byte to
//! another 32-bit column (its row, hence its even/odd place, stays); the rotations' lookup
//! tables undo that move as they rotate, in the same instruction. So the same G serves a
//! word broadcast to all four lanes (a chain: there the move changed nothing) and four
//! blocks' words side by side (a batch, loaded transposed with `ld4`).
//!
//! The bitsliced `ct64` is the only other constant-time SEED on ARM64. Not measured on
//! ARM hardware (the tests run it under qemu; `scripts/predict-arm.sh` predicts it).
#![allow(unsafe_code)]

use core::arch::aarch64::*;

use super::field::{NibbleMap, AES_IN, AES_OUT_S1, AES_OUT_S2, MIX, ROTL16, ROTL24, ROTL8};
use super::single::one_block_kernel;
use crate::cpu::Feature;

one_block_kernel!(
    KERNEL,
    "armv8",
    "neon,aes",
    &[Feature::Neon, Feature::ArmAes],
    Consts,
    g,
    in_step = 4,
    batch = (crypt_lanes, 8)
);

/// Where ShiftRows put the byte that belongs at register byte `4c + r` (column c, row r):
/// ShiftRows moves row r left by r columns, so it came to column c - r.
const fn unshift(i: usize) -> u8 {
    let (c, r) = (i / 4, i % 4);
    (4 * ((c + 4 - r) % 4) + r) as u8
}

/// The mixing's rotation tables composed with undoing ShiftRows: byte i takes the byte
/// that, in ShiftRows-free order, rotation `rot` would bring to i.
const fn unshift_then(rot: &[u8; 16]) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = unshift(rot[i] as usize);
        i += 1;
    }
    t
}

/// Rotations by 0, 8, 16 and 24 bits of the un-shifted bytes.
static MIX_TABLES: [[u8; 16]; 4] = [
    unshift_then(&super::field::word_shuffle([0, 1, 2, 3])),
    unshift_then(&ROTL8),
    unshift_then(&ROTL16),
    unshift_then(&ROTL24),
];

/// A word broadcast to the four 32-bit lanes, as bytes.
type V = uint8x16_t;

/// G's vector constants (public constants, not secrets).
struct Consts {
    low: V,
    to_aes: [V; 2],
    s1: [V; 2],
    s2: [V; 2],
    odd: V,
    mix: [V; 4],
    rotl: [V; 4],
}

impl Consts {
    #[inline]
    #[target_feature(enable = "neon,aes")]
    fn new() -> Self {
        // SAFETY: 16 readable bytes.
        let bytes = |b: &[u8; 16]| unsafe { vld1q_u8(b.as_ptr()) };
        let tables = |m: &NibbleMap| [bytes(&m.lo), bytes(&m.hi)];
        Consts {
            low: vdupq_n_u8(0x0f),
            to_aes: tables(&AES_IN),
            s1: tables(&AES_OUT_S1),
            s2: tables(&AES_OUT_S2),
            odd: vreinterpretq_u8_u16(vdupq_n_u16(0xff00)),
            mix: MIX.map(|m| vreinterpretq_u8_u32(vdupq_n_u32(m))),
            rotl: MIX_TABLES.each_ref().map(bytes),
        }
    }
}

/// A byte map as two nibble lookups, on bytes already split into nibbles.
#[inline]
#[target_feature(enable = "neon,aes")]
fn map(lo: V, hi: V, t: &[V; 2]) -> V {
    veorq_u8(vqtbl1q_u8(t[0], lo), vqtbl1q_u8(t[1], hi))
}

/// Bytes as low and high nibbles.
#[inline]
#[target_feature(enable = "neon,aes")]
fn nibbles(x: V, low: V) -> (V, V) {
    (vandq_u8(x, low), vshrq_n_u8::<4>(x))
}

/// G on a broadcast word (see the module doc).
#[inline]
#[target_feature(enable = "neon,aes")]
fn g(x: V, c: &Consts) -> V {
    let (lo, hi) = nibbles(x, c.low);
    let s = vaeseq_u8(map(lo, hi, &c.to_aes), vdupq_n_u8(0));
    let (lo, hi) = nibbles(s, c.low);
    let y = vbslq_u8(c.odd, map(lo, hi, &c.s2), map(lo, hi, &c.s1));
    let term = |r: usize| vandq_u8(vqtbl1q_u8(y, c.rotl[r]), c.mix[r]);
    veorq_u8(veorq_u8(term(0), term(1)), veorq_u8(term(2), term(3)))
}

/// Independent blocks eight at a time: two groups of four, one block per 32-bit lane, in
/// step (one group's G chain leaves most of the core idle). `ld4` puts word k of each
/// block of a group in register k, a byte swap per word makes them the big-endian integers
/// the rounds take. A last group of four runs alone, the rest as broadcast words (four
/// blocks in step, then two, then one).
#[target_feature(enable = "neon,aes")]
fn crypt_lanes(blocks: &mut [u8], rk: &RoundKeys) {
    let c = Consts::new();
    let mut pairs = blocks.chunks_exact_mut(128);
    for p in &mut pairs {
        let (g0, g1) = p.split_at_mut(64);
        let [w0, w1] = rounds_in_step([load_group(g0), load_group(g1)], rk, &c);
        store_group(g0, w0);
        store_group(g1, w1);
    }
    let mut rest = pairs.into_remainder();
    if rest.len() >= 64 {
        let (g, tail) = rest.split_at_mut(64);
        store_group(g, rounds(load_group(g), rk, &c));
        rest = tail;
    }
    crypt_in_step(rest, rk);
}

/// Four blocks as four registers of words, register k holding word k of every block.
#[inline]
#[target_feature(enable = "neon")]
fn load_group(g: &[u8]) -> [V; 4] {
    assert_eq!(g.len(), 64);
    // SAFETY: `g` is 64 readable bytes; `ld4` has no alignment requirement.
    let w = unsafe { vld4q_u32(g.as_ptr().cast()) };
    [w.0, w.1, w.2, w.3].map(|v| vrev32q_u8(vreinterpretq_u8_u32(v)))
}

/// The inverse of [`load_group`].
#[inline]
#[target_feature(enable = "neon")]
fn store_group(g: &mut [u8], w: [V; 4]) {
    assert_eq!(g.len(), 64);
    let [a, b, c, d] = w.map(|v| vreinterpretq_u32_u8(vrev32q_u8(v)));
    // SAFETY: `g` is 64 writable bytes.
    unsafe { vst4q_u32(g.as_mut_ptr().cast(), uint32x4x4_t(a, b, c, d)) };
}
