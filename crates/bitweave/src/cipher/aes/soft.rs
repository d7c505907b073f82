//! `soft`: the portable AES reference, one block at a time with 32-bit T-tables.
//!
//! **Not constant-time**: every round indexes tables with secret-dependent bytes, so cache
//! timing can leak key and data. It is the readable reference every fast backend is tested
//! against; the registry prefers constant-time backends whenever one can run.
//!
//! Encryption follows FIPS-197 §5.1 with SubBytes, ShiftRows and MixColumns folded into
//! four tables; decryption is the equivalent inverse cipher of §5.3.5 (InvMixColumns applied
//! to the middle round keys). The tables are computed at compile time from [`SBOX`].
#![deny(unsafe_code)]

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{gf_mul, KeySchedule, INV_SBOX, MAX_RK_WORDS, SBOX};
use crate::cipher::{BlockCipher, ModeKernels};

/// Builds T0 for encryption: column (2s, s, s, 3s) for s = S(x).
const fn build_te0() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut x = 0;
    while x < 256 {
        let s = SBOX[x];
        t[x] = u32::from_be_bytes([gf_mul(s, 2), s, s, gf_mul(s, 3)]);
        x += 1;
    }
    t
}

/// Builds T0 for decryption: column (14s, 9s, 13s, 11s) for s = S^-1(x).
const fn build_td0() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut x = 0;
    while x < 256 {
        let s = INV_SBOX[x];
        t[x] = u32::from_be_bytes([gf_mul(s, 14), gf_mul(s, 9), gf_mul(s, 13), gf_mul(s, 11)]);
        x += 1;
    }
    t
}

const fn rotated(t: &[u32; 256], by: u32) -> [u32; 256] {
    let mut r = [0u32; 256];
    let mut x = 0;
    while x < 256 {
        r[x] = t[x].rotate_right(by);
        x += 1;
    }
    r
}

const TE0: [u32; 256] = build_te0();
static TE: [[u32; 256]; 4] = [TE0, rotated(&TE0, 8), rotated(&TE0, 16), rotated(&TE0, 24)];
const TD0: [u32; 256] = build_td0();
static TD: [[u32; 256]; 4] = [TD0, rotated(&TD0, 8), rotated(&TD0, 16), rotated(&TD0, 24)];

/// The encryption and decryption T-tables, for the timing test's positive control: it
/// flushes the encryption tables from the cache between calls, as a cache attacker
/// would, to show that the test sees this backend's secret-indexed lookups.
#[doc(hidden)]
pub fn tables() -> [&'static [[u32; 256]; 4]; 2] {
    [&TE, &TD]
}

/// InvMixColumns of one big-endian column word.
fn inv_mix_column(w: u32) -> u32 {
    let b = w.to_be_bytes();
    let m = |c: [u8; 4]| {
        gf_mul(b[0], c[0]) ^ gf_mul(b[1], c[1]) ^ gf_mul(b[2], c[2]) ^ gf_mul(b[3], c[3])
    };
    u32::from_be_bytes([
        m([14, 11, 13, 9]),
        m([9, 14, 11, 13]),
        m([13, 9, 14, 11]),
        m([11, 13, 9, 14]),
    ])
}

/// AES on the portable table-based reference backend.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct AesSoft {
    enc: [u32; MAX_RK_WORDS],
    dec: [u32; MAX_RK_WORDS],
    rounds: usize,
}

impl AesSoft {
    /// Keys the backend; `key` is 16, 24 or 32 bytes.
    pub fn new(key: &[u8]) -> Self {
        let ks = KeySchedule::new(key);
        let rounds = ks.rounds();
        let mut enc = [0u32; MAX_RK_WORDS];
        let mut dec = [0u32; MAX_RK_WORDS];
        for r in 0..=rounds {
            enc[4 * r..4 * r + 4].copy_from_slice(&ks.round_key(r));
            // Equivalent inverse cipher: decryption round r uses encryption key rounds-r,
            // with InvMixColumns applied to every key but the first and last.
            let mut k = ks.round_key(rounds - r);
            if r != 0 && r != rounds {
                k = k.map(inv_mix_column);
            }
            dec[4 * r..4 * r + 4].copy_from_slice(&k);
        }
        AesSoft { enc, dec, rounds }
    }

    fn encrypt_block(&self, block: &mut [u8]) {
        self.encrypt_one::<false>(block, &self.enc[..4].try_into().unwrap());
    }

    /// Encrypts blocks that arrive in ShiftRows order ([`super::state`]): round 1 reads
    /// each column from its own word instead of from four columns, and AddRoundKey 0 uses
    /// round key 0 in the same order. Output is ordinary ciphertext.
    pub fn encrypt_prescheduled_blocks(&self, blocks: &mut [u8]) {
        assert_eq!(blocks.len() % 16, 0, "whole blocks only");
        let mut k0 = [0u8; 16];
        store(&mut k0, self.enc[..4].try_into().unwrap());
        super::state::to_shift_rows_order(&mut k0);
        let k0 = load(&k0, &[0; 4]);
        for block in blocks.chunks_exact_mut(16) {
            self.encrypt_one::<true>(block, &k0);
        }
    }

    /// FIPS-197 encryption with round key 0 given; `PRESCHEDULED` input is in ShiftRows
    /// order, so round 1 takes column c's four bytes from word c. The two variants differ
    /// only in those compile-time indices.
    fn encrypt_one<const PRESCHEDULED: bool>(&self, block: &mut [u8], k0: &[u32; 4]) {
        let rk = &self.enc;
        let s = load(block, k0);
        let first = |c: usize, j: usize| if PRESCHEDULED { c } else { (c + j) % 4 };
        let k = &rk[4..8];
        let mut s = [0, 1, 2, 3].map(|c| {
            TE[0][(s[first(c, 0)] >> 24) as usize]
                ^ TE[1][(s[first(c, 1)] >> 16 & 0xff) as usize]
                ^ TE[2][(s[first(c, 2)] >> 8 & 0xff) as usize]
                ^ TE[3][(s[first(c, 3)] & 0xff) as usize]
                ^ k[c]
        });
        for r in 2..self.rounds {
            let k = &rk[4 * r..4 * r + 4];
            s = [0, 1, 2, 3].map(|c| {
                TE[0][(s[c] >> 24) as usize]
                    ^ TE[1][(s[(c + 1) % 4] >> 16 & 0xff) as usize]
                    ^ TE[2][(s[(c + 2) % 4] >> 8 & 0xff) as usize]
                    ^ TE[3][(s[(c + 3) % 4] & 0xff) as usize]
                    ^ k[c]
            });
        }
        let k = &rk[4 * self.rounds..4 * self.rounds + 4];
        let out = [0, 1, 2, 3].map(|c| {
            u32::from_be_bytes([
                SBOX[(s[c] >> 24) as usize],
                SBOX[(s[(c + 1) % 4] >> 16 & 0xff) as usize],
                SBOX[(s[(c + 2) % 4] >> 8 & 0xff) as usize],
                SBOX[(s[(c + 3) % 4] & 0xff) as usize],
            ]) ^ k[c]
        });
        store(block, out);
    }

    fn decrypt_block(&self, block: &mut [u8]) {
        let rk = &self.dec;
        let mut s = load(block, &rk[0..4]);
        for r in 1..self.rounds {
            let k = &rk[4 * r..4 * r + 4];
            s = [0, 1, 2, 3].map(|c| {
                TD[0][(s[c] >> 24) as usize]
                    ^ TD[1][(s[(c + 3) % 4] >> 16 & 0xff) as usize]
                    ^ TD[2][(s[(c + 2) % 4] >> 8 & 0xff) as usize]
                    ^ TD[3][(s[(c + 1) % 4] & 0xff) as usize]
                    ^ k[c]
            });
        }
        let k = &rk[4 * self.rounds..4 * self.rounds + 4];
        let out = [0, 1, 2, 3].map(|c| {
            u32::from_be_bytes([
                INV_SBOX[(s[c] >> 24) as usize],
                INV_SBOX[(s[(c + 3) % 4] >> 16 & 0xff) as usize],
                INV_SBOX[(s[(c + 2) % 4] >> 8 & 0xff) as usize],
                INV_SBOX[(s[(c + 1) % 4] & 0xff) as usize],
            ]) ^ k[c]
        });
        store(block, out);
    }
}

fn load(block: &[u8], k: &[u32]) -> [u32; 4] {
    [0, 1, 2, 3].map(|c| u32::from_be_bytes(block[4 * c..4 * c + 4].try_into().unwrap()) ^ k[c])
}

fn store(block: &mut [u8], s: [u32; 4]) {
    for (c, w) in s.iter().enumerate() {
        block[4 * c..4 * c + 4].copy_from_slice(&w.to_be_bytes());
    }
}

impl BlockCipher for AesSoft {
    fn block_size(&self) -> usize {
        16
    }
    fn width(&self) -> usize {
        1
    }
    fn backend(&self) -> &'static str {
        "soft"
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        assert_eq!(blocks.len() % 16, 0, "whole blocks only");
        blocks
            .chunks_exact_mut(16)
            .for_each(|b| self.encrypt_block(b));
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        assert_eq!(blocks.len() % 16, 0, "whole blocks only");
        blocks
            .chunks_exact_mut(16)
            .for_each(|b| self.decrypt_block(b));
    }
}

impl ModeKernels for AesSoft {}
