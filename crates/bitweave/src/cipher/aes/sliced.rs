//! `sliced64`, `sliced128` (SSE2 on x86-64, NEON on ARM64), `sliced256`, `sliced512`:
//! AES-128/192/256, bitsliced — one block per bit lane (64, 128, 256 or 512 blocks per
//! batch), the interleaved-bitslice method of the MX-1 paper.
//!
//! **Constant-time**: fixed sequences of Boolean operations on bit planes, no table
//! lookups, no secret-dependent branch or index; round keys are all-zeros/all-ones masks
//! per key bit, XORed in as broadcast constants. Key expansion runs SubWord through the same
//! S-box circuit (on 64-bit lanes), so it is constant-time too. The registry ranks these
//! backends below AES-NI/VAES and above `soft`: they are the constant-time default on CPUs
//! without the AES instructions.
//!
//! # Layout
//!
//! A batch is transposed into 128 planes ([`planes_from_blocks16`]): plane `8i + k` is bit
//! `k` (LSB = 0) of state byte `i`, with FIPS-197's byte order (byte `4c + r` is row `r` of
//! column `c`). ShiftRows is a renaming of byte indices folded into the S-box loop;
//! MixColumns and the S-boxes are the circuits of [`super::circuit`]. The S-box constant
//! 0x63 is folded into round keys 1..Nr (see that module).
//!
//! # Sections
//! 1. round structure, 2. key masks and backend glue.
#![deny(unsafe_code)]

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::circuit::{inv_mix_column, inv_sbox_linear_part, mix_column, sbox, sbox_linear_part};
use super::KeySchedule;
use crate::cipher::planes::{KeyMasks, PlaneCipher, PlaneKeys, Sliced};
use crate::slice::{
    blocks16_from_planes, blocks16_from_planes_xor, planes_from_blocks16, planes_from_blocks16_xor,
    Lanes, Logic, Width,
};

// ---- 1. Round structure ----------------------------------------------------------------

/// ShiftRows: output byte `4c + r` takes input byte `4((c + r) mod 4) + r`.
const SR_SRC: [usize; 16] = {
    let mut t = [0usize; 16];
    let mut i = 0;
    while i < 16 {
        let (c, r) = (i / 4, i % 4);
        t[i] = 4 * ((c + r) % 4) + r;
        i += 1;
    }
    t
};

/// InvShiftRows: output byte `4c + r` takes input byte `4((c - r) mod 4) + r`.
const ISR_SRC: [usize; 16] = {
    let mut t = [0usize; 16];
    let mut i = 0;
    while i < 16 {
        let (c, r) = (i / 4, i % 4);
        t[i] = 4 * ((c + 4 - r) % 4) + r;
        i += 1;
    }
    t
};

/// `dst = src ^ k` (k: one mask per plane, broadcast).
#[inline(always)]
fn add_round_key<L: Logic>(src: &[L; 128], dst: &mut [L; 128], k: &[u64; 128]) {
    for ((d, s), &m) in dst.iter_mut().zip(src.iter()).zip(k.iter()) {
        *d = s.xor(L::splat(m));
    }
}

/// `dst[j] = S(src[SR_SRC[j]])` (or the inverse S-box with InvShiftRows), byte by byte.
#[inline(always)]
fn sub_shift<L: Logic, const INV: bool>(src: &[L; 128], dst: &mut [L; 128]) {
    for j in 0..16 {
        let i = if INV { ISR_SRC[j] } else { SR_SRC[j] };
        let x: &[L; 8] = src[8 * i..8 * i + 8].try_into().unwrap();
        let y = if INV {
            inv_sbox_linear_part(x)
        } else {
            sbox_linear_part(x)
        };
        dst[8 * j..8 * j + 8].copy_from_slice(&y);
    }
}

/// Encrypts one batch in plane form with the masks of rounds 0..=Nr. Each round reads
/// `s` and writes its result back to `s` through the scratch `t` (SubBytes/ShiftRows into
/// `t`, MixColumns and AddRoundKey back into `s`), so no state copy is needed.
#[inline(always)]
fn encrypt_planes<L: Logic>(s: &mut [L; 128], keys: &[[u64; 128]]) {
    let nr = keys.len() - 1;
    let mut t = [L::splat(0); 128];
    t.copy_from_slice(s);
    add_round_key(&t, s, &keys[0]);
    L::settle(s);
    for (r, k) in keys.iter().enumerate().skip(1) {
        sub_shift::<L, false>(s, &mut t);
        L::settle(&mut t);
        if r != nr {
            let mut u = [L::splat(0); 32];
            for c in 0..4 {
                mix_column(&t[32 * c..32 * c + 32], &mut u);
                t[32 * c..32 * c + 32].copy_from_slice(&u);
            }
            L::settle(&mut t);
        }
        add_round_key(&t, s, k);
        L::settle(s);
    }
}

/// Decrypts one batch in plane form; `keys` are the round masks in application order
/// (round Nr first).
#[inline(always)]
fn decrypt_planes<L: Logic>(s: &mut [L; 128], keys: &[[u64; 128]]) {
    let nr = keys.len() - 1;
    let mut t = [L::splat(0); 128];
    t.copy_from_slice(s);
    add_round_key(&t, s, &keys[0]);
    L::settle(s);
    for (r, k) in keys.iter().enumerate().skip(1) {
        sub_shift::<L, true>(s, &mut t);
        L::settle(&mut t);
        if r != nr {
            let mut u = [L::splat(0); 128];
            add_round_key(&t, &mut u, k);
            L::settle(&mut u);
            for c in 0..4 {
                inv_mix_column(&u[32 * c..32 * c + 32], &mut s[32 * c..32 * c + 32]);
            }
        } else {
            add_round_key(&t, s, k);
        }
        L::settle(s);
    }
}

/// The whole bitsliced AES data path, in place on 128 planes (the layout of
/// [`planes_from_blocks16`]) for a 16-, 24- or 32-byte key, over any [`Logic`] type: the
/// entry point an architecture model (the MX-1 SIMD matrix) uses to run this backend's
/// round structure and circuits on its lane type.
pub fn crypt_planes_for_key<L: Logic>(s: &mut [L; 128], key: &[u8], decrypt: bool) {
    let ks = KeySchedule::with_sub_word(key, sub_word_ct);
    let mut keys: Vec<[u64; 128]> = (0..=ks.rounds())
        .map(|r| key_masks(ks.round_key_bytes(r), r != 0))
        .collect();
    if decrypt {
        keys.reverse();
        decrypt_planes(s, &keys);
    } else {
        encrypt_planes(s, &keys);
    }
    keys.zeroize();
}

/// Round-key masks in the shape the chain, ECB and decryption kernels
/// ([`crate::cipher::planes`]) take: the cipher, or with `decrypt` the inverse cipher
/// (`keys` then in decryption order).
pub(crate) struct AesPlanes<'a> {
    keys: &'a [[u64; 128]],
    decrypt: bool,
}

impl PlaneCipher for AesPlanes<'_> {
    const BLOCK: usize = 16;
    type Planes<L: Lanes> = [L; 128];
    #[inline(always)]
    fn load<L: Lanes>(src: &[u8]) -> [L; 128] {
        planes_from_blocks16(src)
    }
    #[inline(always)]
    fn load_xor<L: Lanes>(src: &[u8], other: &[u8]) -> [L; 128] {
        planes_from_blocks16_xor(src, other)
    }
    #[inline(always)]
    fn crypt<L: Lanes>(&self, p: &mut [L; 128]) {
        if self.decrypt {
            decrypt_planes(p, self.keys)
        } else {
            encrypt_planes(p, self.keys)
        }
    }
    #[inline(always)]
    fn store<L: Lanes>(p: &[L; 128], dst: &mut [u8]) {
        blocks16_from_planes(p, dst)
    }
    #[inline(always)]
    fn store_xor<L: Lanes>(p: &[L; 128], dst: &mut [u8]) {
        blocks16_from_planes_xor(p, dst)
    }
}

// ---- 2. Key masks and backend glue -----------------------------------------------------

/// SubWord through the S-box circuit: the four bytes in four lanes of a u64 plane set.
pub(super) fn sub_word_ct(w: u32) -> u32 {
    let b = w.to_be_bytes();
    let mut x = [0u64; 8];
    for (k, xk) in x.iter_mut().enumerate() {
        for (lane, &byte) in b.iter().enumerate() {
            *xk |= (((byte >> k) & 1) as u64) << lane;
        }
    }
    let y = sbox(&x);
    let mut out = [0u8; 4];
    for (lane, o) in out.iter_mut().enumerate() {
        for (k, yk) in y.iter().enumerate() {
            *o |= (((yk >> lane) & 1) as u8) << k;
        }
    }
    u32::from_be_bytes(out)
}

/// Per-plane masks of a round key, with 0x63 folded in when `fold` (rounds 1..Nr).
fn key_masks(bytes: [u8; 16], fold: bool) -> [u64; 128] {
    let mut m = [0u64; 128];
    for (i, &b) in bytes.iter().enumerate() {
        let b = if fold { b ^ 0x63 } else { b };
        for k in 0..8 {
            m[8 * i + k] = 0u64.wrapping_sub(((b >> k) & 1) as u64);
        }
    }
    m
}

/// AES's round-key masks in both directions: what the `sliced` backends hold.
#[derive(Clone, Zeroize)]
pub(crate) struct AesKeys {
    enc: KeyMasks<128>,
    dec: KeyMasks<128>,
}

/// Wiped on drop by its [`KeyMasks`] themselves (a derived drop would wipe them twice).
impl ZeroizeOnDrop for AesKeys {}

impl PlaneKeys for AesKeys {
    type Cipher<'a> = AesPlanes<'a>;
    fn cipher(&self, decrypt: bool) -> AesPlanes<'_> {
        let keys = if decrypt { &*self.dec } else { &*self.enc };
        AesPlanes { keys, decrypt }
    }
}

/// AES bitsliced at a given lane width.
pub(crate) type AesSliced = Sliced<AesKeys>;

impl AesSliced {
    /// Keys the backend (`key` is 16, 24 or 32 bytes), or `None` if this CPU cannot run
    /// `width`.
    pub fn new(key: &[u8], width: Width) -> Option<Self> {
        if !width.available() {
            return None;
        }
        let ks = KeySchedule::with_sub_word(key, sub_word_ct);
        let nr = ks.rounds();
        let enc: Vec<[u64; 128]> = (0..=nr)
            .map(|r| key_masks(ks.round_key_bytes(r), r != 0))
            .collect();
        let dec = KeyMasks::new(enc.iter().rev().copied().collect());
        let enc = KeyMasks::new(enc);
        Some(Sliced::with_keys(AesKeys { enc, dec }, width))
    }
}

/// Gate lists of the AES circuits, traced from the generic functions the backends run:
/// (S-box without constant, inverse S-box without constant, MixColumns on one column,
/// InvMixColumns on one column).
pub fn circuits() -> [crate::slice::trace::Circuit; 4] {
    use crate::slice::trace::{Circuit, Trace};
    let s8 = |f: fn(&[Trace; 8]) -> [Trace; 8]| {
        Circuit::record(8, |x| f(x.try_into().unwrap()).to_vec())
    };
    let col = |f: fn(&[Trace], &mut [Trace])| {
        Circuit::record(32, |x| {
            let mut c = x.to_vec();
            f(x, &mut c);
            c
        })
    };
    [
        s8(sbox_linear_part),
        s8(inv_sbox_linear_part),
        col(mix_column),
        col(inv_mix_column),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_time_sub_word_matches_the_table() {
        for w in [0u32, 0x0102_0304, 0xffee_ddcc, 0x5363_a0b1] {
            let want = u32::from_be_bytes(w.to_be_bytes().map(|b| super::super::SBOX[b as usize]));
            assert_eq!(sub_word_ct(w), want);
        }
    }

    #[test]
    fn shift_rows_tables_are_inverse() {
        for j in 0..16 {
            assert_eq!(ISR_SRC[SR_SRC[j]], j);
        }
    }
}
