//! AES (FIPS-197): the key schedule and the field arithmetic every AES backend shares.
//!
//! The S-box is not typed in: [`SBOX`] is derived at compile time from its definition
//! (inversion in GF(2^8) modulo x^8+x^4+x^3+x+1, then the affine map of FIPS-197 §5.1.1).
//! The key expansion is FIPS-197 §5.2, with SubWord supplied by the backend: the AES-NI
//! and ARMv8 backends run it on the AES instruction and the bitsliced ones on their circuit,
//! so their key set-up is constant-time; only `soft` (and [`KeySchedule::new`]) index the
//! S-box table with key bytes, as the rest of `soft` indexes it with data.

use zeroize::{Zeroize, ZeroizeOnDrop};

#[cfg(target_arch = "aarch64")]
pub mod arm;
pub mod circuit;
pub mod packed;
pub mod sliced;
pub mod soft;
pub mod state;
#[cfg(target_arch = "x86_64")]
pub mod x86;

/// Multiplication in GF(2^8) modulo the AES polynomial x^8+x^4+x^3+x+1.
pub const fn gf_mul(a: u8, b: u8) -> u8 {
    super::gf256::mul(a, b, super::gf256::AES)
}

/// x^254 = x^-1 in GF(2^8) (0 maps to 0).
const fn gf_inv(x: u8) -> u8 {
    super::gf256::pow(x, 254, super::gf256::AES)
}

const fn build_sbox() -> [u8; 256] {
    let mut s = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        let b = gf_inv(x as u8);
        s[x] = b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        x += 1;
    }
    s
}

const fn invert(s: &[u8; 256]) -> [u8; 256] {
    let mut inv = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        inv[s[x] as usize] = x as u8;
        x += 1;
    }
    inv
}

/// The AES S-box, derived from its algebraic definition.
pub const SBOX: [u8; 256] = build_sbox();
/// The inverse S-box.
pub const INV_SBOX: [u8; 256] = invert(&SBOX);

/// Maximum number of round-key words (AES-256: 15 round keys of 4 words).
pub const MAX_RK_WORDS: usize = 60;

/// Expanded AES key: `rounds + 1` round keys of four big-endian 32-bit words.
/// Wiped from memory when dropped.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct KeySchedule {
    words: [u32; MAX_RK_WORDS],
    rounds: usize,
}

impl KeySchedule {
    /// Expands a 16-, 24- or 32-byte key (FIPS-197 §5.2) with the table S-box.
    /// The caller has checked the length.
    pub fn new(key: &[u8]) -> Self {
        Self::with_sub_word(key, sub_word)
    }

    /// Expands a key with the given SubWord, so a backend can run key setup through its
    /// own constant-time S-box.
    pub fn with_sub_word(key: &[u8], sub_word: impl Fn(u32) -> u32) -> Self {
        let nk = key.len() / 4;
        assert!(
            matches!(nk, 4 | 6 | 8),
            "AES key must be 16, 24 or 32 bytes"
        );
        let rounds = nk + 6;
        let total = 4 * (rounds + 1);
        let mut w = [0u32; MAX_RK_WORDS];
        for (i, chunk) in key.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let mut rcon = 1u8;
        // `j` is i mod nk, kept as a count: `%` by the run-time nk compiled to a divide
        // per word (Zen 4: a third of AES-NI's key expansion).
        let mut j = 0;
        for i in nk..total {
            let mut t = w[i - 1];
            if j == 0 {
                t = sub_word(t.rotate_left(8)) ^ ((rcon as u32) << 24);
                rcon = gf_mul(rcon, 2);
            } else if nk > 6 && j == 4 {
                t = sub_word(t);
            }
            w[i] = w[i - nk] ^ t;
            j = if j + 1 == nk { 0 } else { j + 1 };
        }
        KeySchedule { words: w, rounds }
    }

    /// Number of rounds: 10, 12 or 14.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Round key `r` (0..=rounds) as four big-endian words.
    pub fn round_key(&self, r: usize) -> [u32; 4] {
        let w = &self.words[4 * r..4 * r + 4];
        [w[0], w[1], w[2], w[3]]
    }

    /// Round key `r` as 16 bytes in state order.
    pub fn round_key_bytes(&self, r: usize) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (i, w) in self.round_key(r).iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
        }
        out
    }
}

fn sub_word(w: u32) -> u32 {
    let b = w.to_be_bytes();
    u32::from_be_bytes([
        SBOX[b[0] as usize],
        SBOX[b[1] as usize],
        SBOX[b[2] as usize],
        SBOX[b[3] as usize],
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbox_matches_fips197_spot_values() {
        // FIPS-197 Figure 7: S(00)=63, S(53)=ed, S(ff)=16.
        assert_eq!(SBOX[0x00], 0x63);
        assert_eq!(SBOX[0x53], 0xed);
        assert_eq!(SBOX[0xff], 0x16);
        for x in 0..256 {
            assert_eq!(INV_SBOX[SBOX[x] as usize] as usize, x);
        }
    }

    #[test]
    fn key_expansion_matches_fips197_appendix_a1() {
        let key = hex_bytes("2b7e151628aed2a6abf7158809cf4f3c");
        let ks = KeySchedule::new(&key);
        // w[43] = b6630ca6 (FIPS-197 A.1, last word).
        assert_eq!(ks.round_key(10)[3], 0xb6630ca6);
        assert_eq!(ks.round_key(1)[0], 0xa0fafe17);
    }

    fn hex_bytes(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
