//! `soft`: the portable DES / triple-DES reference, one block at a time.
//!
//! **Not constant-time**: the round function looks up eight combined S-box+P tables
//! (derived at compile time from [`SBOXES`] and [`P`]) with secret-dependent indices.
//! It is the reference the bitsliced backends are tested against. The expansion E is a
//! rotation of R (each 6-bit chunk of E(R) is six cyclically consecutive bits of R).
#![deny(unsafe_code)]

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{permute, TdesKeys, FP, IP, P, SBOXES};
use crate::cipher::{BlockCipher, ModeKernels};

/// `SP[i][x]`: S-box i+1 applied to the 6-bit chunk x, placed in its nibble and sent
/// through P, so a round's f-function is eight lookups XORed together.
static SP: [[u32; 64]; 8] = {
    let mut sp = [[0u32; 64]; 8];
    let mut i = 0;
    while i < 8 {
        let mut x = 0;
        while x < 64 {
            let row = ((x >> 4) & 2) | (x & 1);
            let col = (x >> 1) & 0xf;
            let s = SBOXES[i][row * 16 + col] as u32;
            let before_p = s << (28 - 4 * i);
            // Apply P (bit 1 = MSB of 32).
            let mut after = 0u32;
            let mut j = 0;
            while j < 32 {
                after = (after << 1) | ((before_p >> (32 - P[j] as u32)) & 1);
                j += 1;
            }
            sp[i][x] = after;
            x += 1;
        }
        i += 1;
    }
    sp
};

/// The f-function: E, key mix, S-boxes and P.
fn feistel(r: u32, k: u64) -> u32 {
    let mut out = 0;
    for (i, sp) in SP.iter().enumerate() {
        let chunk = r.rotate_right((59 - 4 * i as u32) % 32) & 0x3f;
        let key = (k >> (42 - 6 * i)) as u32 & 0x3f;
        out ^= sp[(chunk ^ key) as usize];
    }
    out
}

/// Sixteen rounds on (L, R), returning the swapped pre-output (R16, L16). Consecutive
/// DES stages of triple DES chain through this form, because FP followed by IP cancels.
fn rounds(mut l: u32, mut r: u32, keys: &[u64; 16], decrypt: bool) -> (u32, u32) {
    for i in 0..16 {
        let k = if decrypt { keys[15 - i] } else { keys[i] };
        let t = r;
        r = l ^ feistel(r, k);
        l = t;
    }
    (r, l)
}

/// DES or triple DES (EDE) on the portable table-based reference backend.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct DesSoft {
    keys: TdesKeys,
}

impl DesSoft {
    /// Keys the backend with an 8-, 16- or 24-byte key.
    pub fn new(key: &[u8]) -> Self {
        DesSoft {
            keys: TdesKeys::new(key),
        }
    }

    fn crypt_block(&self, block: &mut [u8], decrypt: bool) {
        let x = permute(u64::from_be_bytes(block.try_into().unwrap()), 64, &IP);
        let (mut l, mut r) = ((x >> 32) as u32, x as u32);
        let stages = &self.keys.stages;
        let n = stages.len();
        for s in 0..n {
            // EDE: stages alternate encrypt/decrypt; decryption runs them in reverse.
            let (idx, dec) = if decrypt {
                (n - 1 - s, s % 2 == 0)
            } else {
                (s, s % 2 == 1)
            };
            (l, r) = rounds(l, r, &stages[idx].round_keys, dec);
        }
        let y = permute(((l as u64) << 32) | r as u64, 64, &FP);
        block.copy_from_slice(&y.to_be_bytes());
    }
}

impl BlockCipher for DesSoft {
    fn block_size(&self) -> usize {
        8
    }
    fn width(&self) -> usize {
        1
    }
    fn backend(&self) -> &'static str {
        "soft"
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        assert_eq!(blocks.len() % 8, 0, "whole blocks only");
        blocks
            .chunks_exact_mut(8)
            .for_each(|b| self.crypt_block(b, false));
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        assert_eq!(blocks.len() % 8, 0, "whole blocks only");
        blocks
            .chunks_exact_mut(8)
            .for_each(|b| self.crypt_block(b, true));
    }
}

impl ModeKernels for DesSoft {}
