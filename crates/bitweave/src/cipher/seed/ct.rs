//! `ct64`: portable constant-time SEED on 64-bit integers (SWAR: two 32-bit words, eight
//! S-box bytes, per `u64`).
//!
//! **Constant-time**: no table lookups at all. The S-boxes are computed from their
//! definition in SEED's field (SEED-on-Cell §2.2): S1(x) = A1·x^247 ⊕ 169 and
//! S2(x) = A2·x^251 ⊕ 56, where x^247 = (x^127)^16 and x^251 = (x^127)^8. Every byte of a
//! `u64` is raised to the 127th power with an Itoh–Tsujii chain (four field
//! multiplications, squarings as GF(2)-linear maps), then one linear map with per-byte
//! columns applies A1·Sq^4 to the even bytes of each word and A2·Sq^3 to the odd ones.
//! Multiplications are shift-and-add with masks built by subtraction, never a branch or
//! an index; G's mixing is the rotations and masks of [`super::field::MIX`].
//!
//! It is slow (a few hundred operations per S-box byte, shared by eight bytes); it exists
//! so that CPUs without GFNI still get a SEED free of secret-dependent memory accesses.
//! [`WIDTH`] blocks go through the rounds together: word k of block 2i is the low half of
//! `u64` i, word k of block 2i+1 the high half.
#![deny(unsafe_code)]

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::field::{compose, frobenius_cols, B1, B2, MIX};
use super::{SeedKeySchedule, A1_COLS, A2_COLS};
use crate::cipher::{BlockCipher, ModeKernels};

/// Blocks per internal step.
pub const WIDTH: usize = 8;
/// `u64`s per Feistel word (two blocks each).
const PAIRS: usize = WIDTH / 2;

/// Bit 0 of every byte.
const LSB: u64 = 0x0101_0101_0101_0101;

/// Per-byte spread: every byte holding 0 or 1 becomes 0x00 or 0xff. (0x80·b - b is 0x7f
/// or 0 per byte and never borrows from the next byte; OR-ing 0x80·b completes 0xff.)
#[inline(always)]
fn spread(bits: u64) -> u64 {
    let hi = bits << 7;
    hi.wrapping_sub(bits) | hi
}

/// Multiplication by X in SEED's field, on every byte (X^8 = X^6 + X^5 + X + 1).
#[inline(always)]
fn xtime(a: u64) -> u64 {
    ((a & 0x7f7f_7f7f_7f7f_7f7f) << 1) ^ (spread((a >> 7) & LSB) & 0x6363_6363_6363_6363)
}

/// Bytewise multiplication in SEED's field.
#[inline(always)]
fn mul(mut a: u64, b: u64) -> u64 {
    let mut r = 0;
    for i in 0..8 {
        r ^= a & spread((b >> i) & LSB);
        a = xtime(a);
    }
    r
}

/// A bytewise GF(2)-linear map; `cols[j]` holds column j for every byte (so bytes may
/// have different maps).
#[inline(always)]
fn linear(x: u64, cols: &[u64; 8]) -> u64 {
    let mut r = 0;
    for (j, c) in cols.iter().enumerate() {
        r ^= spread((x >> j) & LSB) & c;
    }
    r
}

/// Columns for every byte from columns for even and odd bytes.
const fn byte_cols(even: [u8; 8], odd: [u8; 8]) -> [u64; 8] {
    let mut cols = [0u64; 8];
    let mut j = 0;
    while j < 8 {
        cols[j] = u64::from_le_bytes([
            even[j], odd[j], even[j], odd[j], even[j], odd[j], even[j], odd[j],
        ]);
        j += 1;
    }
    cols
}

/// x ↦ x^2 and x ↦ x^8 on every byte.
const SQ: [u64; 8] = byte_cols(frobenius_cols(1), frobenius_cols(1));
const SQ3: [u64; 8] = byte_cols(frobenius_cols(3), frobenius_cols(3));
/// From x^127: A1·(x^127)^16 on even bytes (S1), A2·(x^127)^8 on odd bytes (S2).
const POST: [u64; 8] = byte_cols(
    compose(&A1_COLS, &frobenius_cols(4)),
    compose(&A2_COLS, &frobenius_cols(3)),
);
/// The S-boxes' constants, 169 on even bytes and 56 on odd ones.
const POST_XOR: u64 = u64::from_le_bytes([B1, B2, B1, B2, B1, B2, B1, B2]);

/// S1 on the even bytes, S2 on the odd bytes.
#[inline(always)]
fn sboxes(x: u64) -> u64 {
    // Itoh–Tsujii: x^3, x^7, x^63 = (x^7)^8·x^7, x^127 = (x^63)^2·x.
    let x3 = mul(linear(x, &SQ), x);
    let x7 = mul(linear(x3, &SQ), x);
    let x63 = mul(linear(x7, &SQ3), x7);
    let x127 = mul(linear(x63, &SQ), x);
    linear(x127, &POST) ^ POST_XOR
}

/// Two copies of a 32-bit constant.
const fn twice(w: u32) -> u64 {
    (w as u64) << 32 | w as u64
}

/// Rotation left by `8r` bits inside each 32-bit half.
#[inline(always)]
fn rotl_bytes(x: u64, r: u32) -> u64 {
    if r == 0 {
        return x;
    }
    let s = 8 * r;
    let keep = twice(u32::MAX << s);
    ((x << s) & keep) | ((x >> (32 - s)) & !keep)
}

/// Addition modulo 2^32 inside each 32-bit half: the low 31 bits add without reaching
/// the next half, the top bits are a XOR.
#[inline(always)]
fn add(a: u64, b: u64) -> u64 {
    const LOW31: u64 = twice(0x7fff_ffff);
    ((a & LOW31) + (b & LOW31)) ^ ((a ^ b) & !LOW31)
}

/// G on two words.
#[inline(always)]
fn g(x: u64) -> u64 {
    let y = sboxes(x);
    (0..4).fold(0, |z, r| z ^ (rotl_bytes(y, r) & twice(MIX[r as usize])))
}

/// G on one word (for the key schedule).
pub fn g_word(w: u32) -> u32 {
    g(w as u64) as u32
}

/// SEED on the portable constant-time backend.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SeedCt64 {
    enc: [[u32; 2]; 16],
    dec: [[u32; 2]; 16],
}

impl SeedCt64 {
    /// Keys the backend with a 16-byte key (the key schedule runs the constant-time G).
    pub fn new(key: &[u8]) -> Self {
        let ks = SeedKeySchedule::new(key, g_word);
        let enc = ks.round_keys;
        let mut dec = enc;
        dec.reverse();
        SeedCt64 { enc, dec }
    }

    /// One step of [`WIDTH`] blocks (whole blocks, at most `WIDTH`; missing ones are zero).
    fn crypt_step(rk: &[[u32; 2]; 16], blocks: &mut [u8]) {
        // word k of block b → half (b % 2) of w[k][b / 2]
        let mut w = [[0u64; PAIRS]; 4];
        for (b, block) in blocks.chunks_exact(16).enumerate() {
            for (k, word) in block.chunks_exact(4).enumerate() {
                let v = u32::from_be_bytes(word.try_into().unwrap()) as u64;
                w[k][b / 2] |= v << (32 * (b % 2));
            }
        }
        let [mut l0, mut l1, mut r0, mut r1] = w;
        w.zeroize();
        // Two rounds per step: L ^= F(R, k_i); R ^= F(L, k_i+1) (then the block is R ‖ L).
        fn half(
            c: &[u64; PAIRS],
            d: &[u64; PAIRS],
            l0: &mut [u64; PAIRS],
            l1: &mut [u64; PAIRS],
            k: [u32; 2],
        ) {
            for n in 0..PAIRS {
                let t0 = c[n] ^ twice(k[0]);
                let t1 = g(t0 ^ d[n] ^ twice(k[1]));
                let t0 = g(add(t0, t1));
                let t1 = g(add(t1, t0));
                l0[n] ^= add(t0, t1);
                l1[n] ^= t1;
            }
        }
        for pair in rk.chunks_exact(2) {
            half(&r0, &r1, &mut l0, &mut l1, pair[0]);
            half(&l0, &l1, &mut r0, &mut r1, pair[1]);
        }
        let mut out = [r0, r1, l0, l1];
        for (b, block) in blocks.chunks_exact_mut(16).enumerate() {
            for (k, word) in block.chunks_exact_mut(4).enumerate() {
                let v = (out[k][b / 2] >> (32 * (b % 2))) as u32;
                word.copy_from_slice(&v.to_be_bytes());
            }
        }
        for v in [&mut l0, &mut l1, &mut r0, &mut r1] {
            v.zeroize();
        }
        out.zeroize();
    }

    fn crypt(&self, blocks: &mut [u8], decrypt: bool) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        let rk = if decrypt { &self.dec } else { &self.enc };
        blocks
            .chunks_mut(16 * WIDTH)
            .for_each(|step| Self::crypt_step(rk, step));
    }
}

impl BlockCipher for SeedCt64 {
    fn block_size(&self) -> usize {
        16
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn backend(&self) -> &'static str {
        "ct64"
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, false)
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, true)
    }
}

impl ModeKernels for SeedCt64 {}

#[cfg(test)]
mod tests {
    use super::super::{gf_pow, soft, S1, S2};
    use super::*;

    #[test]
    fn swar_helpers() {
        for x in 0..=255u8 {
            let xx = u64::from_le_bytes([x; 8]);
            assert_eq!(spread(xx & LSB), if x & 1 != 0 { u64::MAX } else { 0 });
            for y in [0u8, 1, 2, 0x53, 0xca, 0xff] {
                let p = mul(xx, u64::from_le_bytes([y; 8]));
                assert_eq!(p, u64::from_le_bytes([super::super::gf_mul(x, y); 8]));
            }
            assert_eq!(linear(xx, &SQ3), u64::from_le_bytes([gf_pow(x, 8); 8]));
        }
        let (a, b) = (0xffff_fff0_8000_0001u64, 0x0000_0011_8000_ffffu64);
        assert_eq!(add(a, b), 0x0000_0001_0001_0000);
        assert_eq!(rotl_bytes(0x1122_3344_5566_7788, 1), 0x2233_4411_6677_8855);
    }

    #[test]
    fn sboxes_match_the_tables_on_all_inputs() {
        for x in 0..=255u8 {
            let got = sboxes(u64::from_le_bytes([x; 8])).to_le_bytes();
            for (i, &v) in got.iter().enumerate() {
                let want = if i % 2 == 0 {
                    S1[x as usize]
                } else {
                    S2[x as usize]
                };
                assert_eq!(v, want, "byte {i} of S({x:#x})");
            }
        }
    }

    #[test]
    fn g_matches_the_table_g() {
        let mut w = 0x0bad_f00du32;
        for _ in 0..20_000 {
            w = w
                .wrapping_mul(0x9e37_79b9)
                .wrapping_add(0x7f4a_7c15)
                .rotate_left(13);
            let w2 = w.rotate_left(16) ^ 0x5a5a_5a5a;
            let both = g((w2 as u64) << 32 | w as u64);
            assert_eq!(both as u32, soft::g(w));
            assert_eq!((both >> 32) as u32, soft::g(w2));
        }
        for pos in 0..4 {
            for v in 0..=255u32 {
                assert_eq!(g_word(v << (8 * pos)), soft::g(v << (8 * pos)));
            }
        }
    }
}
