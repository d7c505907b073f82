//! The AES S-box and its inverse as Boolean circuits, derived through the tower field
//! GF(((2^2)^2)^2), and MixColumns / InvMixColumns on bit planes — all generic over
//! [`Logic`], so the same code runs on real lanes (the `sliced` backends) and on
//! `Trace` (`slice::trace`) (gate lists for counting and the MX-1 model).
//!
//! # Derivation (all at compile time, from definitions — nothing typed in)
//!
//! - GF(4) = GF(2)\[w\]/(w²+w+1), elements `a1·w + a0` (bit 1, bit 0).
//! - GF(16) = GF(4)\[z\]/(z²+z+N) with N = w (irreducible: Tr(w) = 1), elements `A1·z + A0`
//!   (bits 3..2, 1..0).
//! - GF(256) = GF(16)\[y\]/(y²+y+M) with [`M`] the first element of trace 1 (found by
//!   search), elements `B1·y + B0` (bits 7..4, 3..0).
//! - [`BETA`], the first tower element that is a root of the AES polynomial
//!   x⁸+x⁴+x³+x+1, gives the isomorphism: polynomial-basis bit `i` ↦ `BETA^i`
//!   ([`TO_TOWER`]); [`FROM_TOWER`] is its inverse, found by search.
//! - Inversion in a quadratic extension: for `a = h·y + l`, `d = h²·M + h·l + l²`, then
//!   `a⁻¹ = (h·d⁻¹)·y + (h + l)·d⁻¹`; the same one level down with N, and in GF(4)
//!   `d⁻¹ = d²`. Squares and constant scalings are linear maps ([`lin8`], `lin4`).
//! - S(x) = A·x⁻¹ ⊕ 0x63 (FIPS-197 §5.1.1); the circuit computes the linear part
//!   `S(x) ⊕ 0x63` with the input map [`TO_TOWER`] and the output map A∘[`FROM_TOWER`]
//!   merged; the inverse S-box takes X∘A⁻¹ on the way in. The constant 0x63 passes
//!   unchanged through ShiftRows and (Inv)MixColumns (each column's coefficients sum to 1),
//!   so the backends fold it into the round keys instead of spending gates on it.
//!
//! Bit order: bit 0 of a byte (its LSB) is element 0 of a `[L; 8]`.
#![deny(unsafe_code)]

use crate::slice::Logic;

// ---- Field arithmetic on bytes (compile time) ------------------------------------------

const fn gf4_mul(a: u8, b: u8) -> u8 {
    let (a1, a0, b1, b0) = ((a >> 1) & 1, a & 1, (b >> 1) & 1, b & 1);
    let p = a0 & b0;
    let c1 = ((a1 ^ a0) & (b1 ^ b0)) ^ p;
    let c0 = (a1 & b1) ^ p;
    (c1 << 1) | c0
}

/// N = w, the GF(16) extension constant.
const N: u8 = 0b10;

const fn gf16_mul(a: u8, b: u8) -> u8 {
    let (a1, a0, b1, b0) = (a >> 2, a & 3, b >> 2, b & 3);
    let p = gf4_mul(a0, b0);
    let c1 = gf4_mul(a1 ^ a0, b1 ^ b0) ^ p;
    let c0 = gf4_mul(gf4_mul(a1, b1), N) ^ p;
    (c1 << 2) | c0
}

/// The GF(256) extension constant: the first `m` with no `t` in GF(16) such that
/// t² + t = m (so y² + y + m is irreducible).
pub const M: u8 = {
    let mut m = 1u8;
    loop {
        let mut t = 0u8;
        let mut root = false;
        while t < 16 {
            if gf16_mul(t, t) ^ t == m {
                root = true;
            }
            t += 1;
        }
        if !root {
            break m;
        }
        m += 1;
    }
};

const fn tower_mul(a: u8, b: u8) -> u8 {
    let (a1, a0, b1, b0) = (a >> 4, a & 15, b >> 4, b & 15);
    let p = gf16_mul(a0, b0);
    let c1 = gf16_mul(a1 ^ a0, b1 ^ b0) ^ p;
    let c0 = gf16_mul(gf16_mul(a1, b1), M) ^ p;
    (c1 << 4) | c0
}

/// The first tower element that is a root of x⁸+x⁴+x³+x+1.
pub const BETA: u8 = {
    let mut b = 2u8;
    loop {
        let b2 = tower_mul(b, b);
        let b3 = tower_mul(b2, b);
        let b4 = tower_mul(b2, b2);
        let b8 = tower_mul(b4, b4);
        if b8 ^ b4 ^ b3 ^ b ^ 1 == 0 {
            break b;
        }
        b += 1;
    }
};

/// Applies a linear map given by its columns (`cols[j]` = image of bit `j`).
pub const fn apply(cols: &[u8; 8], x: u8) -> u8 {
    let mut r = 0;
    let mut j = 0;
    while j < 8 {
        if (x >> j) & 1 == 1 {
            r ^= cols[j];
        }
        j += 1;
    }
    r
}

/// The inverse of an invertible linear map, by search.
const fn inverse(cols: &[u8; 8]) -> [u8; 8] {
    let mut inv = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        let mut x = 0u16;
        while x < 256 {
            if apply(cols, x as u8) == 1 << j {
                inv[j] = x as u8;
            }
            x += 1;
        }
        j += 1;
    }
    inv
}

/// `a ∘ b` (apply `b` first).
const fn compose(a: &[u8; 8], b: &[u8; 8]) -> [u8; 8] {
    let mut c = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        c[j] = apply(a, b[j]);
        j += 1;
    }
    c
}

/// Polynomial basis → tower: bit `i` ↦ BETA^i.
pub const TO_TOWER: [u8; 8] = {
    let mut c = [0u8; 8];
    let mut p = 1u8;
    let mut i = 0;
    while i < 8 {
        c[i] = p;
        p = tower_mul(p, BETA);
        i += 1;
    }
    c
};

/// Tower → polynomial basis.
pub const FROM_TOWER: [u8; 8] = inverse(&TO_TOWER);

/// The linear part of the S-box's affine map: b ⊕ rotl(b,1) ⊕ … ⊕ rotl(b,4).
const AFFINE: [u8; 8] = {
    let mut c = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        let b = 1u8 << j;
        c[j] = b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4);
        j += 1;
    }
    c
};

/// S-box output map: A ∘ FROM_TOWER.
const SBOX_OUT: [u8; 8] = compose(&AFFINE, &FROM_TOWER);
/// Inverse S-box input map: TO_TOWER ∘ A⁻¹.
const INV_IN: [u8; 8] = compose(&TO_TOWER, &inverse(&AFFINE));

/// A GF(16) linear map as 4 columns: `x ↦ f(x)` for `f` given on the basis.
const fn gf16_lin(kind: u8) -> [u8; 4] {
    let mut c = [0u8; 4];
    let mut j = 0;
    while j < 4 {
        let b = 1u8 << j;
        c[j] = match kind {
            0 => gf16_mul(b, b),              // x²
            _ => gf16_mul(gf16_mul(b, b), M), // M·x²
        };
        j += 1;
    }
    c
}

const SQ16: [u8; 4] = rows(&gf16_lin(0));
const SQ16_M: [u8; 4] = rows(&gf16_lin(1));
const TO_TOWER_ROWS: [u8; 8] = rows(&TO_TOWER);
const FROM_TOWER_ROWS: [u8; 8] = rows(&FROM_TOWER);
const SBOX_OUT_ROWS: [u8; 8] = rows(&SBOX_OUT);
const INV_IN_ROWS: [u8; 8] = rows(&INV_IN);

// ---- Circuits --------------------------------------------------------------------------

/// XOR of the inputs selected by `sel` (bit j = include `x[j]`), three at a time with the
/// 3-input XOR. Written out without loops so that, with `sel` a compile-time constant
/// after inlining, every test folds away and only the gates remain.
#[inline(always)]
fn xor_sel<L: Logic, const W: usize>(sel: u8, x: &[L; W]) -> L {
    let mut acc: Option<L> = None;
    let mut pending: Option<L> = None;
    macro_rules! step {
        ($j:expr) => {
            if $j < W && (sel >> $j) & 1 == 1 {
                let xj = x[$j % W];
                match (acc, pending) {
                    (None, _) => acc = Some(xj),
                    (Some(_), None) => pending = Some(xj),
                    (Some(a), Some(p)) => {
                        acc = Some(L::tern::<0x96>(a, p, xj));
                        pending = None;
                    }
                }
            }
        };
    }
    step!(0);
    step!(1);
    step!(2);
    step!(3);
    step!(4);
    step!(5);
    step!(6);
    step!(7);
    match (acc, pending) {
        (Some(a), Some(p)) => a.xor(p),
        (Some(a), None) => a,
        _ => L::splat(0),
    }
}

/// Rows of a linear map given by columns: `rows[i]` bit `j` = bit `i` of `cols[j]`.
pub const fn rows<const W: usize>(cols: &[u8; W]) -> [u8; W] {
    let mut r = [0u8; W];
    let mut i = 0;
    while i < W {
        let mut j = 0;
        while j < W {
            r[i] |= ((cols[j] >> i) & 1) << j;
            j += 1;
        }
        i += 1;
    }
    r
}

/// A linear map on 8 planes given by its rows ([`rows`]).
#[inline(always)]
pub fn lin8<L: Logic>(r: &[u8; 8], x: &[L; 8]) -> [L; 8] {
    [
        xor_sel(r[0], x),
        xor_sel(r[1], x),
        xor_sel(r[2], x),
        xor_sel(r[3], x),
        xor_sel(r[4], x),
        xor_sel(r[5], x),
        xor_sel(r[6], x),
        xor_sel(r[7], x),
    ]
}

/// A linear map on 4 planes given by its rows ([`rows`]).
#[inline(always)]
fn lin4<L: Logic>(r: &[u8; 4], x: &[L; 4]) -> [L; 4] {
    [
        xor_sel(r[0], x),
        xor_sel(r[1], x),
        xor_sel(r[2], x),
        xor_sel(r[3], x),
    ]
}

type G4<L> = [L; 2];
type G16<L> = [L; 4];

#[inline(always)]
fn g4_mul<L: Logic>(a: G4<L>, b: G4<L>) -> G4<L> {
    let p = a[0].and(b[0]);
    // c1 = ((a1 ^ a0) & (b1 ^ b0)) ^ p; c0 = (a1 & b1) ^ p.
    let c1 = L::tern::<0x6a>(a[1].xor(a[0]), b[1].xor(b[0]), p);
    let c0 = L::tern::<0x6a>(a[1], b[1], p);
    [c0, c1]
}

#[inline(always)]
fn g4_add<L: Logic>(a: G4<L>, b: G4<L>) -> G4<L> {
    [a[0].xor(b[0]), a[1].xor(b[1])]
}

#[inline(always)]
fn g16_add<L: Logic>(a: G16<L>, b: G16<L>) -> G16<L> {
    [
        a[0].xor(b[0]),
        a[1].xor(b[1]),
        a[2].xor(b[2]),
        a[3].xor(b[3]),
    ]
}

#[inline(always)]
fn lo4<L: Logic>(a: G16<L>) -> G4<L> {
    [a[0], a[1]]
}

#[inline(always)]
fn hi4<L: Logic>(a: G16<L>) -> G4<L> {
    [a[2], a[3]]
}

#[inline(always)]
fn g16_mul<L: Logic>(a: G16<L>, b: G16<L>) -> G16<L> {
    let (a1, a0, b1, b0) = (hi4(a), lo4(a), hi4(b), lo4(b));
    let p = g4_mul(a0, b0);
    let q = g4_mul(a1, b1);
    let r = g4_mul(g4_add(a1, a0), g4_add(b1, b0));
    let c1 = g4_add(r, p);
    // N·q with N = w: w·(q1·w + q0) = (q1 ^ q0)·w + q1.
    let c0 = [q[1].xor(p[0]), L::tern::<0x96>(q[1], q[0], p[1])];
    [c0[0], c0[1], c1[0], c1[1]]
}

#[inline(always)]
fn g16_inv<L: Logic>(a: G16<L>) -> G16<L> {
    let (a1, a0) = (hi4(a), lo4(a));
    // d = N·a1² + a1·a0 + a0², with N·a1² = [a1.1, a1.0] and a0² = [a0.0 ^ a0.1, a0.1].
    let m = g4_mul(a1, a0);
    let d0 = L::tern::<0x96>(a1[1], m[0], a0[0].xor(a0[1]));
    let d1 = L::tern::<0x96>(a1[0], m[1], a0[1]);
    // d⁻¹ = d² = [d0 ^ d1, d1].
    let di = [d0.xor(d1), d1];
    let c1 = g4_mul(a1, di);
    let c0 = g4_mul(g4_add(a1, a0), di);
    [c0[0], c0[1], c1[0], c1[1]]
}

/// Inversion in the tower representation of GF(256) (0 ↦ 0).
#[inline(always)]
pub fn tower_inv<L: Logic>(x: &[L; 8]) -> [L; 8] {
    let b0: G16<L> = [x[0], x[1], x[2], x[3]];
    let b1: G16<L> = [x[4], x[5], x[6], x[7]];
    let d = g16_add(
        g16_add(lin4(&SQ16_M, &b1), g16_mul(b1, b0)),
        lin4(&SQ16, &b0),
    );
    let di = g16_inv(d);
    let c1 = g16_mul(b1, di);
    let c0 = g16_mul(g16_add(b1, b0), di);
    [c0[0], c0[1], c0[2], c0[3], c1[0], c1[1], c1[2], c1[3]]
}

/// `S(x) ⊕ 0x63`: the S-box without its constant (the backends fold 0x63 into the round
/// keys).
#[inline(always)]
pub fn sbox_linear_part<L: Logic>(x: &[L; 8]) -> [L; 8] {
    lin8(&SBOX_OUT_ROWS, &tower_inv(&lin8(&TO_TOWER_ROWS, x)))
}

/// `S⁻¹(y ⊕ 0x63)`: the inverse S-box of an input whose constant was folded in earlier.
#[inline(always)]
pub fn inv_sbox_linear_part<L: Logic>(y: &[L; 8]) -> [L; 8] {
    lin8(&FROM_TOWER_ROWS, &tower_inv(&lin8(&INV_IN_ROWS, y)))
}

/// The complete S-box, constant included (for tests and key expansion).
pub fn sbox<L: Logic>(x: &[L; 8]) -> [L; 8] {
    let mut y = sbox_linear_part(x);
    for (i, yi) in y.iter_mut().enumerate() {
        if (0x63 >> i) & 1 == 1 {
            *yi = yi.not();
        }
    }
    y
}

/// The complete inverse S-box (for tests).
pub fn inv_sbox<L: Logic>(y: &[L; 8]) -> [L; 8] {
    let mut z = *y;
    for (i, zi) in z.iter_mut().enumerate() {
        if (0x63 >> i) & 1 == 1 {
            *zi = zi.not();
        }
    }
    inv_sbox_linear_part(&z)
}

/// xtime (multiplication by x modulo x⁸+x⁴+x³+x+1) as plane moves plus three XORs.
#[inline(always)]
fn xtime<L: Logic>(b: &[L; 8]) -> [L; 8] {
    [
        b[7],
        b[0].xor(b[7]),
        b[1],
        b[2].xor(b[7]),
        b[3].xor(b[7]),
        b[4],
        b[5],
        b[6],
    ]
}

#[inline(always)]
fn byte<L: Logic>(s: &[L], i: usize) -> [L; 8] {
    [
        s[8 * i],
        s[8 * i + 1],
        s[8 * i + 2],
        s[8 * i + 3],
        s[8 * i + 4],
        s[8 * i + 5],
        s[8 * i + 6],
        s[8 * i + 7],
    ]
}

/// MixColumns on one column (32 planes: bytes r = 0..3, 8 planes each), from `src` into
/// `dst`: out_r = a_r ⊕ (a0⊕a1⊕a2⊕a3) ⊕ xtime(a_r ⊕ a_{r+1}).
#[inline(always)]
pub fn mix_column<L: Logic>(src: &[L], dst: &mut [L]) {
    let a = [byte(src, 0), byte(src, 1), byte(src, 2), byte(src, 3)];
    mix_bytes(&a, dst);
}

#[inline(always)]
fn mix_bytes<L: Logic>(a: &[[L; 8]; 4], dst: &mut [L]) {
    let mut all = [L::splat(0); 8];
    for (k, v) in all.iter_mut().enumerate() {
        *v = L::tern::<0x96>(a[0][k], a[1][k], a[2][k]).xor(a[3][k]);
    }
    for r in 0..4 {
        let mut t = [L::splat(0); 8];
        for (k, v) in t.iter_mut().enumerate() {
            *v = a[r][k].xor(a[(r + 1) % 4][k]);
        }
        let xt = xtime(&t);
        for k in 0..8 {
            dst[8 * r + k] = L::tern::<0x96>(a[r][k], all[k], xt[k]);
        }
    }
}

/// InvMixColumns on one column, from `src` into `dst`: the pre-step
/// a_r ⊕= 4·(a_r ⊕ a_{r+2}) (multiplication by the circulant (05 00 04 00)), then
/// MixColumns, since circ(02 03 01 01) · circ(05 00 04 00) = circ(0e 0b 0d 09).
#[inline(always)]
pub fn inv_mix_column<L: Logic>(src: &[L], dst: &mut [L]) {
    let mut a = [byte(src, 0), byte(src, 1), byte(src, 2), byte(src, 3)];
    for r in 0..2 {
        let mut t = [L::splat(0); 8];
        for (k, v) in t.iter_mut().enumerate() {
            *v = a[r][k].xor(a[r + 2][k]);
        }
        let u = xtime(&xtime(&t));
        for k in 0..8 {
            a[r][k] = a[r][k].xor(u[k]);
            a[r + 2][k] = a[r + 2][k].xor(u[k]);
        }
    }
    mix_bytes(&a, dst);
}

#[cfg(test)]
mod tests {
    use super::super::{gf_mul, INV_SBOX, SBOX};
    use super::*;

    /// Planes holding all 256 byte values: plane k, lane v (word v / 64) = bit k of v.
    fn all_bytes() -> [[u64; 4]; 8] {
        let mut p = [[0u64; 4]; 8];
        for v in 0..256usize {
            for (k, pk) in p.iter_mut().enumerate() {
                pk[v / 64] |= (((v >> k) & 1) as u64) << (v % 64);
            }
        }
        p
    }

    fn run(f: impl Fn(&[u64; 8]) -> [u64; 8]) -> [u8; 256] {
        let p = all_bytes();
        let mut out = [0u8; 256];
        for w in 0..4 {
            let x: [u64; 8] = core::array::from_fn(|k| p[k][w]);
            let y = f(&x);
            for l in 0..64 {
                out[64 * w + l] = (0..8).fold(0, |acc, k| acc | ((((y[k] >> l) & 1) as u8) << k));
            }
        }
        out
    }

    #[test]
    fn tower_field_is_a_field_isomorphism() {
        for a in 0..=255u8 {
            for b in [1u8, 2, 3, 0x53, 0xca, a] {
                let ta = apply(&TO_TOWER, a);
                let tb = apply(&TO_TOWER, b);
                assert_eq!(apply(&FROM_TOWER, tower_mul(ta, tb)), gf_mul(a, b));
            }
        }
    }

    #[test]
    fn sbox_circuits_equal_the_tables_on_all_256_inputs() {
        assert_eq!(run(sbox), SBOX);
        assert_eq!(run(inv_sbox), INV_SBOX);
    }

    #[test]
    fn mix_columns_match_the_field_definition() {
        // Lane l of byte r of the column holds a pseudo-random byte.
        let mut col = [0u64; 32];
        for (i, c) in col.iter_mut().enumerate() {
            *c = 0x9e37_79b9_7f4a_7c15u64
                .wrapping_mul(i as u64 + 1)
                .rotate_left(i as u32);
        }
        let bytes = |planes: &[u64; 32], l: usize| -> [u8; 4] {
            core::array::from_fn(|r| {
                (0..8).fold(0, |acc, k| {
                    acc | ((((planes[8 * r + k] >> l) & 1) as u8) << k)
                })
            })
        };
        let mut m = [0u64; 32];
        mix_column(&col, &mut m);
        let mut im = [0u64; 32];
        inv_mix_column(&m, &mut im);
        assert_eq!(im, col);
        for l in 0..64 {
            let a = bytes(&col, l);
            let got = bytes(&m, l);
            for r in 0..4 {
                let want =
                    gf_mul(a[r], 2) ^ gf_mul(a[(r + 1) % 4], 3) ^ a[(r + 2) % 4] ^ a[(r + 3) % 4];
                assert_eq!(got[r], want);
            }
        }
    }
}
