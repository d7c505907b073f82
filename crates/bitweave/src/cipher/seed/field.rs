//! SEED's S-boxes as field maps the constant-time backends can evaluate without tables.
//!
//! SEED computes in GF(2^8) = GF(2)\[X\]/(X^8+X^6+X^5+X+1) ("SEED's field"); AES and the
//! GFNI instructions compute in GF(2)\[Y\]/(Y^8+Y^4+Y^3+Y+1) ("AES's field"). Both are the
//! field with 256 elements, so they are isomorphic. This module derives everything at
//! compile time from the definitions in [`super`]:
//!
//! - [`BETA`]: the first root (in numeric order) of SEED's polynomial in AES's field. The
//!   GF(2)-linear map `M` sending X^j to BETA^j ([`TO_AES_COLS`]) is then a field
//!   isomorphism (a test checks M(a·b) = M(a)·M(b) for all a, b), and
//!   inv_SEED(x) = M^-1(inv_AES(M·x)).
//! - Since x^247 = (x^-1)^8 and x^251 = (x^-1)^4, and squaring (the Frobenius map) is
//!   GF(2)-linear: S1(x) = L1·inv_AES(M·x) ⊕ 169 with L1 = A1·Sq^3·M^-1, and
//!   S2(x) = L2·inv_AES(M·x) ⊕ 56 with L2 = A2·Sq^2·M^-1 ([`S1_POST_COLS`],
//!   [`S2_POST_COLS`]). One `gf2p8affine` (matrix M) then one `gf2p8affineinv` (matrix
//!   L1 or L2, constant 169 or 56) evaluates 64 S-boxes per 512-bit register.
//! - Without GFNI, the AES instructions do the inversion: AESENCLAST with a zero round key
//!   is ShiftRows(A·inv_AES(y) ⊕ 0x63), A being AES's affine matrix ([`AES_AFFINE_COLS`]).
//!   So S1(x) = N1·SubBytes(M·x) ⊕ c1 with N1 = L1·A^-1 and c1 = N1·0x63 ⊕ 169 (likewise
//!   S2), and each linear map is two 16-entry nibble lookups (`pshufb`): [`NibbleMap`].
//! - [`MIX`]: the G function's masked byte mixing as four (rotation, mask) pairs.
//!
//! Linear maps are given by columns: `cols[j]` is the image of bit j.
#![deny(unsafe_code)]

use super::{gf_pow, linear, A1_COLS, A2_COLS, M};

/// The additive constant of S1 (S1(x) = A1·x^247 ⊕ 169).
pub const B1: u8 = 169;
/// The additive constant of S2 (S2(x) = A2·x^251 ⊕ 56).
pub const B2: u8 = 56;

/// Multiplication in AES's field (modulo Y^8+Y^4+Y^3+Y+1).
pub const fn aes_mul(a: u8, b: u8) -> u8 {
    crate::cipher::gf256::mul(a, b, crate::cipher::gf256::AES)
}

/// Inversion in AES's field with 0 ↦ 0 (x^254), as `gf2p8affineinv` computes it.
pub const fn aes_inv(x: u8) -> u8 {
    crate::cipher::gf256::pow(x, 254, crate::cipher::gf256::AES)
}

/// The first root in AES's field of SEED's polynomial X^8+X^6+X^5+X+1.
const fn seed_poly_root_in_aes() -> u8 {
    let mut b = 2u16;
    while b < 256 {
        let x = b as u8;
        let mut p = [1u8; 9]; // p[i] = x^i
        let mut i = 1;
        while i < 9 {
            p[i] = aes_mul(p[i - 1], x);
            i += 1;
        }
        if p[8] ^ p[6] ^ p[5] ^ p[1] ^ p[0] == 0 {
            return x;
        }
        b += 1;
    }
    panic!("SEED's polynomial has a root in every field with 256 elements")
}

/// A root of SEED's polynomial in AES's field: the image of X under the isomorphism.
pub const BETA: u8 = seed_poly_root_in_aes();

/// Columns of M (SEED's field → AES's field): column j = BETA^j.
pub const TO_AES_COLS: [u8; 8] = {
    let mut cols = [0u8; 8];
    let mut p = 1u8;
    let mut j = 0;
    while j < 8 {
        cols[j] = p;
        p = aes_mul(p, BETA);
        j += 1;
    }
    cols
};

/// Inverts an invertible linear map given by columns (by search: 256 candidates per column).
pub const fn invert_cols(cols: &[u8; 8]) -> [u8; 8] {
    let mut inv = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        let mut x = 0u16;
        let mut found = false;
        while x < 256 {
            if linear(cols, x as u8) == 1 << j {
                inv[j] = x as u8;
                found = true;
            }
            x += 1;
        }
        assert!(found, "map is not invertible");
        j += 1;
    }
    inv
}

/// Columns of M^-1 (AES's field → SEED's field).
pub const FROM_AES_COLS: [u8; 8] = invert_cols(&TO_AES_COLS);

/// Columns of `a ∘ (x ↦ x^(2^k) in SEED's field) ∘ M^-1`: the S-box's linear part after an
/// inversion in AES's field.
const fn post_cols(a: &[u8; 8], k: u32) -> [u8; 8] {
    let mut cols = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        let z = linear(&FROM_AES_COLS, 1 << j);
        cols[j] = linear(a, gf_pow(z, 1 << k));
        j += 1;
    }
    cols
}

/// L1 = A1·Sq^3·M^-1: S1(x) = L1·inv_AES(M·x) ⊕ 169.
pub const S1_POST_COLS: [u8; 8] = post_cols(&A1_COLS, 3);
/// L2 = A2·Sq^2·M^-1: S2(x) = L2·inv_AES(M·x) ⊕ 56.
pub const S2_POST_COLS: [u8; 8] = post_cols(&A2_COLS, 2);

/// Columns of AES's affine matrix A (SubBytes(y) = A·inv(y) ⊕ 0x63): A·y is
/// y ⊕ (y ⋘ 1) ⊕ (y ⋘ 2) ⊕ (y ⋘ 3) ⊕ (y ⋘ 4) (FIPS 197 §5.1.1).
pub const AES_AFFINE_COLS: [u8; 8] = {
    let mut cols = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        let y = 1u8 << j;
        cols[j] = y ^ y.rotate_left(1) ^ y.rotate_left(2) ^ y.rotate_left(3) ^ y.rotate_left(4);
        j += 1;
    }
    cols
};

/// AES's SubBytes constant.
pub const AES_SBOX_CONSTANT: u8 = 0x63;

/// A byte map `x ↦ cols·x ⊕ constant` as the two 16-entry tables a nibble lookup uses:
/// `lo[x & 15] ⊕ hi[x >> 4]` (the constant folded into `lo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NibbleMap {
    pub lo: [u8; 16],
    pub hi: [u8; 16],
}

impl NibbleMap {
    /// The tables of `x ↦ cols·x ⊕ constant`.
    pub const fn new(cols: &[u8; 8], constant: u8) -> Self {
        let mut lo = [0u8; 16];
        let mut hi = [0u8; 16];
        let mut n = 0;
        while n < 16 {
            lo[n] = linear(cols, n as u8) ^ constant;
            hi[n] = linear(cols, (n as u8) << 4);
            n += 1;
        }
        NibbleMap { lo, hi }
    }

    /// The map applied to one byte, as the nibble lookups compute it.
    pub const fn apply(&self, x: u8) -> u8 {
        self.lo[(x & 15) as usize] ^ self.hi[(x >> 4) as usize]
    }
}

/// M: SEED's field into AES's, before AESENCLAST.
pub const AES_IN: NibbleMap = NibbleMap::new(&TO_AES_COLS, 0);

/// `cols ∘ A^-1` and its constant, for an S-box whose post-inversion map is `cols` and
/// constant `b`: from AESENCLAST's output s = A·inv ⊕ 0x63, the S-box is
/// cols·A^-1·(s ⊕ 0x63) ⊕ b.
const fn after_subbytes(cols: &[u8; 8], b: u8) -> NibbleMap {
    let n = compose(cols, &invert_cols(&AES_AFFINE_COLS));
    NibbleMap::new(&n, linear(&n, AES_SBOX_CONSTANT) ^ b)
}

/// S1 from AESENCLAST's output.
pub const AES_OUT_S1: NibbleMap = after_subbytes(&S1_POST_COLS, B1);
/// S2 from AESENCLAST's output.
pub const AES_OUT_S2: NibbleMap = after_subbytes(&S2_POST_COLS, B2);

/// Columns of x ↦ x^(2^k) in SEED's field (k applications of the Frobenius map).
pub const fn frobenius_cols(k: u32) -> [u8; 8] {
    let mut cols = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        cols[j] = gf_pow(1 << j, 1 << k);
        j += 1;
    }
    cols
}

/// Composes two linear maps: columns of `outer ∘ inner`.
pub const fn compose(outer: &[u8; 8], inner: &[u8; 8]) -> [u8; 8] {
    let mut cols = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        cols[j] = linear(outer, inner[j]);
        j += 1;
    }
    cols
}

/// Encodes a linear map as the 64-bit matrix operand of `gf2p8affine(inv)qb`: the
/// instruction computes output bit i as the parity of (matrix byte 7-i) AND (input byte),
/// so byte 7-i holds row i (bit j of row i = bit i of column j).
pub const fn gfni_matrix(cols: &[u8; 8]) -> u64 {
    let mut m = 0u64;
    let mut i = 0;
    while i < 8 {
        let mut row = 0u8;
        let mut j = 0;
        while j < 8 {
            row |= ((cols[j] >> i) & 1) << j;
            j += 1;
        }
        m |= (row as u64) << (8 * (7 - i));
        i += 1;
    }
    m
}

/// `gf2p8affineqb` on one byte, as the instruction reference defines it (for tests and as
/// the executable meaning of the matrices).
pub const fn gfni_affine(matrix: u64, x: u8, b: u8) -> u8 {
    let mut r = 0u8;
    let mut i = 0;
    while i < 8 {
        let row = (matrix >> (8 * (7 - i))) as u8;
        r |= (((row & x).count_ones() & 1) as u8) << i;
        i += 1;
    }
    r ^ b
}

/// `gf2p8affineinvqb` on one byte: the affine map applied to the AES-field inverse.
pub const fn gfni_affine_inv(matrix: u64, x: u8, b: u8) -> u8 {
    gfni_affine(matrix, aes_inv(x), b)
}

/// Matrix operand of the `gf2p8affineqb` that maps SEED's field into AES's.
pub const GFNI_TO_AES: u64 = gfni_matrix(&TO_AES_COLS);
/// Matrix operand of the `gf2p8affineinvqb` (constant [`B1`]) that finishes S1.
pub const GFNI_S1: u64 = gfni_matrix(&S1_POST_COLS);
/// Matrix operand of the `gf2p8affineinvqb` (constant [`B2`]) that finishes S2.
pub const GFNI_S2: u64 = gfni_matrix(&S2_POST_COLS);

/// The G function's mixing as rotations: with Y the word of S-box outputs
/// (Y_j = S1(X_j) for even j, S2(X_j) for odd j, byte 0 least significant),
/// G(X) = ⊕_r rotl(Y, 8r) & MIX\[r\].
///
/// Derivation (SEED-on-Cell §2.2, SS_0..SS_3): byte k of G's output takes
/// Y_j & m_{(j+k) mod 4} from every input byte j. `rotl(Y, 8r)` puts Y_{k-r} at byte k,
/// so MIX\[r\] has mask m_{(2k-r) mod 4} at byte k.
pub const MIX: [u32; 4] = {
    let mut mix = [0u32; 4];
    let mut r = 0;
    while r < 4 {
        let mut k = 0;
        while k < 4 {
            let j = (k + 4 - r) % 4;
            mix[r] |= (M[(j + k) % 4] as u32) << (8 * k);
            k += 1;
        }
        r += 1;
    }
    mix
};

/// G from S-box outputs: the mixing of [`MIX`] on one word (the reference for the SIMD
/// forms, which apply the same rotations and masks lane-wise).
pub const fn mix(y: u32) -> u32 {
    (y & MIX[0])
        ^ (y.rotate_left(8) & MIX[1])
        ^ (y.rotate_left(16) & MIX[2])
        ^ (y.rotate_left(24) & MIX[3])
}

/// [`MIX`] for [`mix_two_rotations`]: the last two masks rotated by 16 bits.
pub const MIX_TWO_ROTATIONS: [u32; 4] = [
    MIX[0],
    MIX[1],
    MIX[2].rotate_left(16),
    MIX[3].rotate_left(16),
];

/// The mixing with two rotations instead of three, for kernels where byte shuffles are
/// the busiest pipe: with `r = rotl(Y, 8)`, the last two terms are one rotation by 16 of
/// `Y & MIX[2]' ⊕ r & MIX[3]'`, the masks rotated by 16 beforehand ([`MIX_TWO_ROTATIONS`];
/// a rotation by 16 undoes itself): 9 vector operations instead of 10, 2 of them shuffles.
pub const fn mix_two_rotations(y: u32) -> u32 {
    let m = MIX_TWO_ROTATIONS;
    let r = y.rotate_left(8);
    ((y & m[0]) ^ (r & m[1])) ^ ((y & m[2]) ^ (r & m[3])).rotate_left(16)
}

/// The mixing on a word's S-box outputs split by kind, for kernels that run S1 and S2 on
/// separate registers (`seed::x86`'s paired G): `e` = (Y0, Y2) and `o` = (Y1, Y3) as
/// 16-bit pairs, low byte first. Returns (Z0, Z2) and (Z1, Z3) in the same form. Every
/// mask then applies to a whole register, and the byte rotations become one swap within
/// the pairs per output: byte k of G takes Y_j & m_{(j+k) mod 4}, so
/// Z0 = Y0&m0 ⊕ Y1&m1 ⊕ Y2&m2 ⊕ Y3&m3 and Z2 the same with Y0 ↔ Y2, Y1 ↔ Y3, and so on.
/// 16 vector operations per two registers of words, 2 of them shuffles, against 9 per
/// register with a blend and two rotations ahead of it.
pub const fn mix_split(e: u16, o: u16) -> (u16, u16) {
    const fn both(t: usize) -> u16 {
        M[t] as u16 * 0x0101
    }
    let even = ((e & both(0)) ^ (o & both(1))) ^ ((e & both(2)) ^ (o & both(3))).rotate_left(8);
    let odd = ((e & both(1)) ^ (o & both(2))) ^ ((e & both(3)) ^ (o & both(0))).rotate_left(8);
    (even, odd)
}

/// A byte shuffle of 16 bytes (`pshufb`/`tbl` indices): output byte `4w + d` takes input
/// byte `4w + map[d]`, the same permutation in every 32-bit word.
pub const fn word_shuffle(map: [u8; 4]) -> [u8; 16] {
    let mut idx = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        idx[i] = (i as u8 & !3) + map[i % 4];
        i += 1;
    }
    idx
}

/// The mixing's rotations left by 8, 16, 24 bits inside every 32-bit word of a
/// little-endian register (byte d takes byte d - r), as byte shuffles.
pub static ROTL8: [u8; 16] = word_shuffle([3, 0, 1, 2]);
pub static ROTL16: [u8; 16] = word_shuffle([2, 3, 0, 1]);
pub static ROTL24: [u8; 16] = word_shuffle([1, 2, 3, 0]);

#[cfg(test)]
mod tests {
    use super::super::{gf_mul, soft, S1, S2};
    use super::*;

    #[test]
    fn beta_is_a_root_and_m_is_a_field_isomorphism() {
        // M maps 1 to 1 and X to BETA, and is multiplicative on every pair.
        assert_eq!(linear(&TO_AES_COLS, 1), 1);
        assert_eq!(linear(&TO_AES_COLS, 2), BETA);
        for a in 0..=255u8 {
            assert_eq!(linear(&FROM_AES_COLS, linear(&TO_AES_COLS, a)), a);
            for b in 0..=255u8 {
                assert_eq!(
                    linear(&TO_AES_COLS, gf_mul(a, b)),
                    aes_mul(linear(&TO_AES_COLS, a), linear(&TO_AES_COLS, b)),
                    "M({a:#x}·{b:#x})"
                );
            }
        }
    }

    #[test]
    fn gfni_model_gives_the_table_sboxes_on_all_inputs() {
        for x in 0..=255u8 {
            let t = gfni_affine(GFNI_TO_AES, x, 0);
            assert_eq!(
                gfni_affine_inv(GFNI_S1, t, B1),
                S1[x as usize],
                "S1({x:#x})"
            );
            assert_eq!(
                gfni_affine_inv(GFNI_S2, t, B2),
                S2[x as usize],
                "S2({x:#x})"
            );
        }
    }

    /// AESENCLAST's byte function with a zero round key, modelled: A·inv ⊕ 0x63.
    fn subbytes(y: u8) -> u8 {
        linear(&AES_AFFINE_COLS, aes_inv(y)) ^ AES_SBOX_CONSTANT
    }

    #[test]
    fn aes_affine_gives_the_aes_sbox() {
        // FIPS 197 Figure 7: S(0x00) = 0x63, S(0x53) = 0xed, S(0xff) = 0x16.
        assert_eq!(subbytes(0x00), 0x63);
        assert_eq!(subbytes(0x53), 0xed);
        assert_eq!(subbytes(0xff), 0x16);
    }

    #[test]
    fn aes_instruction_model_gives_the_table_sboxes_on_all_inputs() {
        for x in 0..=255u8 {
            let s = subbytes(AES_IN.apply(x));
            assert_eq!(AES_OUT_S1.apply(s), S1[x as usize], "S1({x:#x})");
            assert_eq!(AES_OUT_S2.apply(s), S2[x as usize], "S2({x:#x})");
        }
    }

    #[test]
    fn gfni_matrix_encoding_round_trips_the_identity_and_frobenius() {
        // The identity matrix is 0x0102040810204080 in the instructions' encoding.
        let id = [1, 2, 4, 8, 16, 32, 64, 128];
        assert_eq!(gfni_matrix(&id), 0x0102_0408_1020_4080);
        let sq = frobenius_cols(1);
        for x in 0..=255u8 {
            assert_eq!(gfni_affine(gfni_matrix(&sq), x, 0), gf_mul(x, x));
            assert_eq!(linear(&compose(&sq, &sq), x), gf_pow(x, 4));
        }
    }

    /// `n` pseudo-random words from `seed` (a multiply-add-rotate walk).
    fn words(seed: u32, n: usize) -> impl Iterator<Item = u32> {
        core::iter::successors(Some(seed), |w| {
            Some(
                w.wrapping_mul(0x9e37_79b9)
                    .wrapping_add(0x7f4a_7c15)
                    .rotate_left(7),
            )
        })
        .skip(1)
        .take(n)
    }

    #[test]
    fn mixing_with_two_rotations_is_the_mixing() {
        for y in words(0x0123_4567, 100_000) {
            assert_eq!(mix_two_rotations(y), mix(y), "Y {y:#010x}");
        }
        for b in 0..32 {
            assert_eq!(mix_two_rotations(1 << b), mix(1 << b), "bit {b}");
        }
    }

    #[test]
    fn mixing_on_split_bytes_is_the_mixing() {
        let split = |y: u32| {
            let b = y.to_le_bytes();
            let (e, o) = mix_split(
                u16::from_le_bytes([b[0], b[2]]),
                u16::from_le_bytes([b[1], b[3]]),
            );
            let (e, o) = (e.to_le_bytes(), o.to_le_bytes());
            u32::from_le_bytes([e[0], o[0], e[1], o[1]])
        };
        for y in words(0x89ab_cdef, 100_000) {
            assert_eq!(split(y), mix(y), "Y {y:#010x}");
        }
        for b in 0..32 {
            assert_eq!(split(1 << b), mix(1 << b), "bit {b}");
        }
    }

    #[test]
    fn mixing_gives_the_table_g() {
        let g_from_sboxes = |x: u32| {
            let b = x.to_le_bytes();
            let y = u32::from_le_bytes([
                S1[b[0] as usize],
                S2[b[1] as usize],
                S1[b[2] as usize],
                S2[b[3] as usize],
            ]);
            mix(y)
        };
        for w in words(0x1234_5678, 100_000) {
            assert_eq!(g_from_sboxes(w), soft::g(w), "G({w:#010x})");
        }
        for pos in 0..4 {
            for v in 0..=255u32 {
                let w = v << (8 * pos);
                assert_eq!(g_from_sboxes(w), soft::g(w));
            }
        }
    }
}
