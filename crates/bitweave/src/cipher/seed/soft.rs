//! `soft`: the portable SEED reference, one block at a time with the four SS tables.
//!
//! **Not constant-time**: the G function looks up SS0..SS3 (RFC 4269 §2.2, built at compile
//! time from the derived S-boxes and masks) with secret-dependent bytes. It is the
//! reference the SIMD backends are tested against.
#![deny(unsafe_code)]

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::{SeedKeySchedule, M, S1, S2};
use crate::cipher::{BlockCipher, ModeKernels};

/// `SS_j[x]`: S-box output of byte j masked into the four bytes of G's result
/// (SEED-on-Cell paper §2.2: SS0 = S1(X0)&m3 ‖ S1(X0)&m2 ‖ S1(X0)&m1 ‖ S1(X0)&m0, ...).
static SS: [[u32; 256]; 4] = {
    // Mask indices of output bytes 3..0 for input byte j, as the paper lists them.
    let order: [[usize; 4]; 4] = [[3, 2, 1, 0], [0, 3, 2, 1], [1, 0, 3, 2], [2, 1, 0, 3]];
    let mut ss = [[0u32; 256]; 4];
    let mut j = 0;
    while j < 4 {
        let mut x = 0;
        while x < 256 {
            let s = if j % 2 == 0 { S1[x] } else { S2[x] };
            let o = order[j];
            ss[j][x] = u32::from_be_bytes([s & M[o[0]], s & M[o[1]], s & M[o[2]], s & M[o[3]]]);
            x += 1;
        }
        j += 1;
    }
    ss
};

/// The G function: four S-box lookups whose masked bytes mix into one word.
pub fn g(x: u32) -> u32 {
    let b = x.to_le_bytes();
    SS[0][b[0] as usize] ^ SS[1][b[1] as usize] ^ SS[2][b[2] as usize] ^ SS[3][b[3] as usize]
}

/// The F function on the right half (c, d) with round key k.
fn f(c: u32, d: u32, k: [u32; 2]) -> (u32, u32) {
    let t0 = c ^ k[0];
    let mut t1 = d ^ k[1];
    t1 = g(t1 ^ t0);
    let t0 = g(t0.wrapping_add(t1));
    let t1 = g(t1.wrapping_add(t0));
    (t0.wrapping_add(t1), t1)
}

/// SEED on the portable table-based reference backend.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SeedSoft {
    keys: SeedKeySchedule,
}

impl SeedSoft {
    /// Keys the backend with a 16-byte key.
    pub fn new(key: &[u8]) -> Self {
        SeedSoft {
            keys: SeedKeySchedule::new(key, g),
        }
    }

    fn crypt_block(&self, block: &mut [u8], decrypt: bool) {
        let w = |i: usize| u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        let (mut l0, mut l1, mut r0, mut r1) = (w(0), w(1), w(2), w(3));
        for i in 0..16 {
            let k = self.keys.round_keys[if decrypt { 15 - i } else { i }];
            let (f0, f1) = f(r0, r1, k);
            (l0, l1, r0, r1) = (r0, r1, l0 ^ f0, l1 ^ f1);
        }
        // The last round does not swap: output R16 ‖ L16 after the loop's final swap.
        for (i, v) in [r0, r1, l0, l1].iter().enumerate() {
            block[4 * i..4 * i + 4].copy_from_slice(&v.to_be_bytes());
        }
    }
}

impl BlockCipher for SeedSoft {
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
            .for_each(|b| self.crypt_block(b, false));
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        assert_eq!(blocks.len() % 16, 0, "whole blocks only");
        blocks
            .chunks_exact_mut(16)
            .for_each(|b| self.crypt_block(b, true));
    }
}

impl ModeKernels for SeedSoft {}
