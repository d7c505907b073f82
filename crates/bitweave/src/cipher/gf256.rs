//! Arithmetic in GF(2^8), for the tables and matrices AES and SEED derive at compile time
//! from their fields' definitions (public constants: never run on secret data).

/// AES's field: modulo x^8 + x^4 + x^3 + x + 1 (the polynomial without its x^8 term).
pub const AES: u8 = 0x1b;
/// SEED's field: modulo x^8 + x^6 + x^5 + x + 1.
pub const SEED: u8 = 0x63;

/// `a · b` modulo `x^8 + poly`, `poly` being the reduction polynomial without its x^8 term
/// ([`AES`], [`SEED`]).
pub const fn mul(mut a: u8, mut b: u8, poly: u8) -> u8 {
    let mut r = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        let carry = a & 0x80;
        a <<= 1;
        if carry != 0 {
            a ^= poly;
        }
        b >>= 1;
    }
    r
}

/// `x^n` modulo `x^8 + poly` (square and multiply); x^254 is the inverse (0 maps to 0).
pub const fn pow(x: u8, mut n: u32, poly: u8) -> u8 {
    let mut r = 1u8;
    let mut base = x;
    while n != 0 {
        if n & 1 != 0 {
            r = mul(r, base, poly);
        }
        base = mul(base, base, poly);
        n >>= 1;
    }
    r
}
