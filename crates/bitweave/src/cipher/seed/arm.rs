//! `armv8` (SEED): one block at a time ([`super::single`]) with the S-boxes on the ARMv8
//! crypto extension's `AESE`.
//!
//! The x86 `aesni` kernel's method on NEON: each Feistel word broadcast to the four
//! 32-bit lanes, so `AESE`'s ShiftRows changes nothing on four equal columns; with a zero
//! key `AESE` is SubBytes alone. G, per word: two nibble lookups (`tbl`) into AES's field,
//! `AESE` (inversion and AES's affine map), each S-box kind's map back (two lookups), a
//! bit select (even bytes S1, odd bytes S2) and the mixing's three byte rotations as
//! lookups, masked and XORed ([`super::field::MIX`]).
//!
//! Serves serial work and, on ARM64, batches too: the bitsliced `ct64` is the only other
//! constant-time SEED there. Not measured on ARM hardware (the tests run it under qemu).
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
    g
);

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
    rotl: [V; 3],
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
            rotl: [bytes(&ROTL8), bytes(&ROTL16), bytes(&ROTL24)],
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
    let rot = |i: usize| vqtbl1q_u8(y, c.rotl[i]);
    let z0 = veorq_u8(vandq_u8(y, c.mix[0]), vandq_u8(rot(0), c.mix[1]));
    let z1 = veorq_u8(vandq_u8(rot(1), c.mix[2]), vandq_u8(rot(2), c.mix[3]));
    veorq_u8(z0, z1)
}
