//! `packed64`: AES on one to four blocks at a time without the AES instructions, for the
//! work the bitsliced batches serve worst — one CBC/CFB/OFB encryption chain, CFB8/CFB1,
//! a message of a few blocks. A `sliced64` batch runs its circuits over 64 lanes whatever
//! it holds, so one block cost a whole batch (~600 TSC cycles a byte on AMD Zen 4).
//!
//! **Layout**: the state is bitsliced by byte rather than by block. Eight `u64` planes;
//! bit `16b + 4c + r` of plane `k` is bit `k` of row `r`, column `c` of block `b` (up to
//! four blocks, FIPS-197's byte order `4c + r` inside each block's 16 bits). SubBytes is
//! then the batch backends' S-box circuit ([`super::circuit`]) run once on eight `u64`s
//! for all 64 bytes; ShiftRows rotates row `r` of each block by `r` columns (a shift by
//! `4r` bits inside each 16-bit group, masked); MixColumns reads a column's next rows as
//! rotations inside each 4-bit column.
//!
//! **Constant-time**: fixed sequences of shifts and Boolean operations, no table, no
//! secret-dependent branch or index; the round keys are planes too, built from the same
//! constant-time key schedule as `sliced*` (0x63 folded into rounds 1..Nr as there).
#![deny(unsafe_code)]

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::circuit::{inv_sbox_linear_part, sbox_linear_part};
use super::KeySchedule;
use crate::cipher::{BlockCipher, ModeKernels};
use crate::slice::transpose8;

/// Blocks per pass (four 16-bit groups in a `u64`).
const BLOCKS: usize = 4;

/// The planes of up to four blocks.
type State = [u64; 8];

/// A 16-bit pattern repeated in all four groups.
const fn rep(x: u16) -> u64 {
    (x as u64) * 0x0001_0001_0001_0001
}

/// Bits of row `r` in each group (column-major: positions `4c + r`).
const fn row(r: u32) -> u16 {
    0x1111 << r
}

/// ShiftRows: row `r`'s column `c` takes column `c + r`, a shift down by `4r` inside the
/// group; what would cross into the group below wraps to the top.
#[inline(always)]
fn shift_rows(x: u64) -> u64 {
    let part = |r: u32| {
        let down = rep(row(r) & (0xFFFF >> (4 * r)));
        let wrap = rep(row(r) & !(0xFFFF >> (4 * r)));
        ((x >> (4 * r)) & down) | ((x << (16 - 4 * r)) & wrap)
    };
    (x & rep(row(0))) | part(1) | part(2) | part(3)
}

/// InvShiftRows: row `r`'s column `c` takes column `c - r`.
#[inline(always)]
fn inv_shift_rows(x: u64) -> u64 {
    let part = |r: u32| {
        let up = rep(row(r) & (0xFFFF << (4 * r)));
        let wrap = rep(row(r) & !(0xFFFF << (4 * r)));
        ((x << (4 * r)) & up) | ((x >> (16 - 4 * r)) & wrap)
    };
    (x & rep(row(0))) | part(1) | part(2) | part(3)
}

/// Each byte replaced by the one `n` rows further down its column (row `r` takes row
/// `r + n mod 4`): a rotation by `n` bits inside each 4-bit column.
#[inline(always)]
fn rows_down<const N: u32>(x: u64) -> u64 {
    let low = rep(0x1111 * ((1 << (4 - N)) - 1));
    ((x >> N) & low) | ((x << (4 - N)) & !low)
}

/// Multiplication by x in GF(2^8) on planes (x^8 = x^4 + x^3 + x + 1).
#[inline(always)]
fn xtime(a: &State) -> State {
    [
        a[7],
        a[0] ^ a[7],
        a[1],
        a[2] ^ a[7],
        a[3] ^ a[7],
        a[4],
        a[5],
        a[6],
    ]
}

/// MixColumns: out_r = 2·(a_r + a_{r+1}) + a_{r+1} + (a_{r+2} + a_{r+3}).
#[inline(always)]
fn mix_columns(a: &State) -> State {
    let a1 = a.map(rows_down::<1>);
    let b: State = core::array::from_fn(|k| a[k] ^ a1[k]);
    let b2 = xtime(&b);
    core::array::from_fn(|k| b2[k] ^ a1[k] ^ rows_down::<2>(b[k]))
}

/// InvMixColumns as MixColumns after multiplying each column by 4x^2 + 5
/// (`d(x) = c(x)·(4x^2 + 5)` mod x^4 + 1): a + 4·(a + a_{r+2}).
#[inline(always)]
fn inv_mix_columns(a: &State) -> State {
    let v: State = core::array::from_fn(|k| a[k] ^ rows_down::<2>(a[k]));
    let v4 = xtime(&xtime(&v));
    mix_columns(&core::array::from_fn(|k| a[k] ^ v4[k]))
}

#[inline(always)]
fn add_round_key(s: &mut State, k: &State) {
    for (x, y) in s.iter_mut().zip(k) {
        *x ^= y;
    }
}

/// The rounds on packed planes with the round keys in encryption order.
#[inline(always)]
fn encrypt(s: &mut State, keys: &[State]) {
    let nr = keys.len() - 1;
    add_round_key(s, &keys[0]);
    for (r, k) in keys.iter().enumerate().skip(1) {
        let t = sbox_linear_part(s).map(shift_rows);
        *s = if r == nr { t } else { mix_columns(&t) };
        add_round_key(s, k);
    }
}

/// The inverse rounds with the round keys in decryption order.
#[inline(always)]
fn decrypt(s: &mut State, keys: &[State]) {
    let nr = keys.len() - 1;
    add_round_key(s, &keys[0]);
    for (r, k) in keys.iter().enumerate().skip(1) {
        let mut t = inv_sbox_linear_part(&s.map(inv_shift_rows));
        add_round_key(&mut t, k);
        *s = if r == nr { t } else { inv_mix_columns(&t) };
    }
}

/// Up to four blocks (`blocks.len()` a multiple of 16, at most 64) as planes; missing
/// blocks are zeros.
#[inline(always)]
fn pack(blocks: &[u8]) -> State {
    let mut s = [0u64; 8];
    for (b, block) in blocks.chunks_exact(16).enumerate() {
        let half = |i: usize| {
            transpose8(u64::from_le_bytes(
                block[8 * i..8 * i + 8].try_into().unwrap(),
            ))
        };
        let (lo, hi) = (half(0), half(1));
        for (k, plane) in s.iter_mut().enumerate() {
            let bits = ((lo >> (8 * k)) & 0xFF) | (((hi >> (8 * k)) & 0xFF) << 8);
            *plane |= bits << (16 * b);
        }
    }
    s
}

/// The inverse of [`pack`] into `blocks`.
#[inline(always)]
fn unpack(s: &State, blocks: &mut [u8]) {
    for (b, block) in blocks.chunks_exact_mut(16).enumerate() {
        let (mut lo, mut hi) = (0u64, 0u64);
        for (k, plane) in s.iter().enumerate() {
            let bits = plane >> (16 * b);
            lo |= (bits & 0xFF) << (8 * k);
            hi |= ((bits >> 8) & 0xFF) << (8 * k);
        }
        block[..8].copy_from_slice(&transpose8(lo).to_le_bytes());
        block[8..].copy_from_slice(&transpose8(hi).to_le_bytes());
    }
}

/// A round key's planes, replicated for the four blocks, with 0x63 folded in when `fold`.
fn key_planes(bytes: [u8; 16], fold: bool) -> State {
    let mut key = [0u8; 64];
    for block in key.chunks_exact_mut(16) {
        for (d, &b) in block.iter_mut().zip(&bytes) {
            *d = if fold { b ^ 0x63 } else { b };
        }
    }
    let planes = pack(&key);
    key.zeroize();
    planes
}

/// AES with byte-sliced planes, round keys in both orders (wiped on drop).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct AesPacked {
    enc: Vec<State>,
    dec: Vec<State>,
}

impl AesPacked {
    /// Keys the backend (`key` is 16, 24 or 32 bytes).
    pub fn new(key: &[u8]) -> Self {
        let ks = KeySchedule::with_sub_word(key, super::sliced::sub_word_ct);
        let enc: Vec<State> = (0..=ks.rounds())
            .map(|r| key_planes(ks.round_key_bytes(r), r != 0))
            .collect();
        let mut dec = enc.clone();
        dec.reverse();
        AesPacked { enc, dec }
    }

    fn crypt(&self, blocks: &mut [u8], decrypting: bool) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        for group in blocks.chunks_mut(16 * BLOCKS) {
            let mut s = pack(group);
            if decrypting {
                decrypt(&mut s, &self.dec);
            } else {
                encrypt(&mut s, &self.enc);
            }
            unpack(&s, group);
            s.zeroize();
        }
    }
}

impl BlockCipher for AesPacked {
    fn block_size(&self) -> usize {
        16
    }
    fn width(&self) -> usize {
        BLOCKS
    }
    fn backend(&self) -> &'static str {
        "packed64"
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, false)
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, true)
    }
}

/// The generic mode loops: every call is a few blocks at most anyway.
impl ModeKernels for AesPacked {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let data: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
        let mut out = vec![0u8; 64];
        unpack(&pack(&data), &mut out);
        assert_eq!(out, data);
    }

    /// FIPS-197 Appendix C.1 (AES-128), both directions, one block and four.
    #[test]
    fn fips197_vector() {
        let key: Vec<u8> = (0..16).collect();
        let pt: Vec<u8> = (0..16).map(|i| i * 0x11).collect();
        let ct = [
            0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
            0xc5, 0x5a,
        ];
        let aes = AesPacked::new(&key);
        for n in [1, 4, 5] {
            let mut b = pt.repeat(n);
            aes.encrypt_blocks(&mut b);
            assert_eq!(b, ct.repeat(n), "packed64 encryption, {n} blocks");
            aes.decrypt_blocks(&mut b);
            assert_eq!(b, pt.repeat(n), "packed64 decryption, {n} blocks");
        }
    }
}
