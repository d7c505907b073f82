//! SEED (KISA; RFC 4269): the S-boxes, the G function's tables and the key schedule.
//!
//! The S-boxes are derived, not typed in: S1(x) = A1·x^247 ⊕ 169 and S2(x) = A2·x^251 ⊕ 56
//! in GF(2^8) modulo x^8+x^6+x^5+x+1 (SEED-on-Cell paper §2.2). The paper gives the
//! exponents and constants but not the affine matrices; the columns of A1 and A2 below were
//! solved from the first entries of the RFC 4269 tables (a test checks them against those
//! entries, and the RFC 4269 Appendix B vectors check everything end to end).
//!
//! The key schedule runs G, whose reference form here indexes tables by key-derived bytes,
//! so key setup is **not constant-time** on this reference path.

use zeroize::{Zeroize, ZeroizeOnDrop};

#[cfg(target_arch = "x86_64")]
pub mod aesni;
#[cfg(target_arch = "aarch64")]
pub mod arm;
pub mod ct;
pub mod field;
#[cfg(target_arch = "x86_64")]
pub mod gfni;
#[cfg(target_arch = "x86_64")]
pub mod gfni_avx2;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub mod single;
pub mod soft;
#[cfg(target_arch = "x86_64")]
pub mod x86;

/// Multiplication in SEED's field (the tests check the field maps against it).
#[cfg(test)]
const fn gf_mul(a: u8, b: u8) -> u8 {
    super::gf256::mul(a, b, super::gf256::SEED)
}

const fn gf_pow(x: u8, n: u32) -> u8 {
    super::gf256::pow(x, n, super::gf256::SEED)
}

/// Applies the GF(2)-linear map whose column j (image of bit j) is `cols[j]`.
const fn linear(cols: &[u8; 8], y: u8) -> u8 {
    let mut r = 0u8;
    let mut j = 0;
    while j < 8 {
        if (y >> j) & 1 != 0 {
            r ^= cols[j];
        }
        j += 1;
    }
    r
}

/// Columns of A1 (image of x^0..x^7).
pub const A1_COLS: [u8; 8] = [0x2c, 0xd0, 0x69, 0xc2, 0x41, 0x44, 0x58, 0xe2];
/// Columns of A2.
pub const A2_COLS: [u8; 8] = [0xd0, 0x2a, 0xe1, 0x2c, 0x21, 0x30, 0xa2, 0x6c];

const fn build_sbox(cols: &[u8; 8], n: u32, b: u8) -> [u8; 256] {
    let mut s = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        s[x] = linear(cols, gf_pow(x as u8, n)) ^ b;
        x += 1;
    }
    s
}

/// S-box S1 = A1·x^247 ⊕ 169.
pub const S1: [u8; 256] = build_sbox(&A1_COLS, 247, 169);
/// S-box S2 = A2·x^251 ⊕ 56.
pub const S2: [u8; 256] = build_sbox(&A2_COLS, 251, 56);

/// The byte masks m0..m3 of the G function.
pub const M: [u8; 4] = [0xfc, 0xf3, 0xcf, 0x3f];

/// Key-schedule constants KC_i = golden ratio 0x9e3779b9 rotated left by i.
pub const KC: [u32; 16] = {
    let mut kc = [0u32; 16];
    let mut i = 0;
    while i < 16 {
        kc[i] = 0x9e37_79b9u32.rotate_left(i as u32);
        i += 1;
    }
    kc
};

/// The 16 pairs of round keys (K_{i,0}, K_{i,1}).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SeedKeySchedule {
    pub round_keys: [[u32; 2]; 16],
}

impl SeedKeySchedule {
    /// Expands a 16-byte key (RFC 4269 §2.3) with the given G function.
    pub fn new(key: &[u8], g: impl Fn(u32) -> u32) -> Self {
        let w = |i: usize| u32::from_be_bytes(key[4 * i..4 * i + 4].try_into().unwrap());
        let (mut a, mut b, mut c, mut d) = (w(0), w(1), w(2), w(3));
        let mut round_keys = [[0u32; 2]; 16];
        for (i, rk) in round_keys.iter_mut().enumerate() {
            rk[0] = g(a.wrapping_add(c).wrapping_sub(KC[i]));
            rk[1] = g(b.wrapping_sub(d).wrapping_add(KC[i]));
            // Rounds 1, 3, ... (1-based) rotate A‖B right by 8; the others C‖D left by 8.
            if i % 2 == 0 {
                let ab = (((a as u64) << 32) | b as u64).rotate_right(8);
                (a, b) = ((ab >> 32) as u32, ab as u32);
            } else {
                let cd = (((c as u64) << 32) | d as u64).rotate_left(8);
                (c, d) = ((cd >> 32) as u32, cd as u32);
            }
        }
        (a, b, c, d) = (0, 0, 0, 0);
        let _ = (a, b, c, d);
        SeedKeySchedule { round_keys }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_sboxes_match_rfc4269_table_heads() {
        const S1_HEAD: [u8; 8] = [0xa9, 0x85, 0xd6, 0xd3, 0x54, 0x1d, 0xac, 0x25];
        const S2_HEAD: [u8; 8] = [0x38, 0xe8, 0x2d, 0xa6, 0xcf, 0xde, 0xb3, 0xb8];
        assert_eq!(&S1[..8], &S1_HEAD);
        assert_eq!(&S2[..8], &S2_HEAD);
        // Both are permutations.
        for s in [&S1, &S2] {
            let mut seen = [false; 256];
            s.iter().for_each(|&v| seen[v as usize] = true);
            assert!(seen.iter().all(|&x| x));
        }
    }
}
