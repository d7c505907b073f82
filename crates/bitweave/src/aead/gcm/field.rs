//! GHASH's field, GF(2^128) mod x^128 + x^7 + x^2 + x + 1, as every GHASH backend
//! ([`super::ghash`]) holds it: the representation, the portable product (the `soft`
//! backend's and the key setup's), the reduction the carry-less multiply backends run
//! lane by lane, and how many blocks each backend folds per reduction.
//!
//! **Representation.** A 16-byte block read as one big-endian integer is GCM's field
//! element with its bits reversed (byte 0's top bit is the coefficient of x^0). The
//! carry-less product of two such integers is the reversed product shifted right by one,
//! so [`mul`] multiplies, shifts the 256-bit result left by one and reduces it with
//! shifts by 1, 2 and 7 (x^128 = x^7 + x^2 + x + 1, read in reversed bit order) —
//! [`reduce`]; the carry-less multiply backends keep the hash key's powers divided by
//! x ([`X_INVERSE`]), so their product needs no shift before the same reduction (its
//! SIMD twin in `clmul`).
//!
//! **Constant-time.** No branch or address depends on the operands: [`mul`] multiplies
//! 64-bit words whose set bits are four apart, so the integer multiplier's carries never
//! reach a bit that is kept (`clmul64_low`); integer multiplication runs in fixed time
//! on x86-64 and ARM64 cores.

/// Blocks folded per reduction by the 128-bit aggregated kernel: the hash key's powers
/// H^1..H^AGGREGATE are precomputed.
pub const AGGREGATE: usize = 8;
/// Blocks per reduction on 256-bit registers (two per register): H^16..H^1.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub const WIDE_AGGREGATE: usize = 16;
/// Blocks per reduction on 512-bit registers (four per register): H^32..H^1.
pub const ZMM_AGGREGATE: usize = 32;

/// x^-1 = x^127 + x^6 + x + 1 in GHASH's field (x times it is x^128 + x^7 + x^2 + x,
/// which is 1 mod the polynomial), in the reversed representation: x^j is bit 127 - j.
///
/// Why the carry-less multiply backends keep H^i·x^-1: the carry-less product of two
/// reversed 128-bit elements is the reversed 256-bit product shifted right by one, so
/// multiplying by H^i directly needs a one-bit left shift of the 256-bit result before
/// the reduction ([`mul`] does it). Multiplying by H^i·x^-1 instead gives the
/// reversed product of (·)·H^i·x^-1·x, that is the wanted product, with no shift: ten
/// vector operations less per reduction.
pub const X_INVERSE: u128 = 1 << 127 | 1 << 126 | 1 << 121 | 1;

/// a·b in GHASH's field, both operands and the result in the reversed representation.
pub fn mul(a: u128, b: u128) -> u128 {
    let (hi, lo) = clmul128(a, b);
    // The reversed product is one bit short of 256: shift it into place.
    reduce((hi << 1) | (lo >> 127), lo << 1)
}

/// Reduces the 256-bit reversed product `hi ‖ lo` mod x^128 + x^7 + x^2 + x + 1: `lo`
/// holds the coefficients of x^128..x^255, each x^(128+j) = x^j·(1 + x + x^2 + x^7), and
/// multiplying by x^s is a right shift by s in this bit order. The bits the shifts push
/// out below bit 0 (degrees 128..134) are folded once more through `w`.
pub fn reduce(hi: u128, lo: u128) -> u128 {
    let w = (lo << 127) ^ (lo << 126) ^ (lo << 121);
    let u = lo ^ w;
    hi ^ u ^ (u >> 1) ^ (u >> 2) ^ (u >> 7)
}

/// The 256-bit carry-less product of two 128-bit integers, as (high, low) halves
/// (Karatsuba: three 64-bit products).
fn clmul128(a: u128, b: u128) -> (u128, u128) {
    let (a1, a0) = ((a >> 64) as u64, a as u64);
    let (b1, b0) = ((b >> 64) as u64, b as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    (hi ^ (mid >> 64), lo ^ (mid << 64))
}

/// The 128-bit carry-less product of two 64-bit words: the low half from masked integer
/// multiplies, the high half the same way on the bit-reversed words (reversing both
/// factors reverses the 127-bit product).
fn clmul64(x: u64, y: u64) -> u128 {
    let lo = clmul64_low(x, y);
    let hi = clmul64_low(x.reverse_bits(), y.reverse_bits()).reverse_bits() >> 1;
    ((hi as u128) << 64) | lo as u128
}

/// The low 64 bits of the carry-less product of `x` and `y`. Each factor is split into
/// four classes of bits (positions ≡ 0, 1, 2, 3 mod 4); an integer product of two classes
/// sums at most 16 one-bit terms per column, and a column that reaches 16 (whose carry
/// would land on the next bit of its class, four up) lies at bit 60 or above, so that
/// carry leaves the 64-bit word: every kept bit is its column's parity, the carry-less
/// product's bit.
fn clmul64_low(x: u64, y: u64) -> u64 {
    const M0: u64 = 0x1111_1111_1111_1111;
    const M: [u64; 4] = [M0, M0 << 1, M0 << 2, M0 << 3];
    let xs = M.map(|m| x & m);
    let ys = M.map(|m| y & m);
    let mut z = 0u64;
    for (class, mask) in M.iter().enumerate() {
        // Column class `class` collects the products of classes i and j with i + j ≡ class.
        let mut sum = 0u64;
        for i in 0..4 {
            sum ^= xs[i].wrapping_mul(ys[(class + 4 - i) % 4]);
        }
        z |= sum & mask;
    }
    z
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-by-bit carry-less product, the definition.
    fn clmul64_slow(x: u64, y: u64) -> u128 {
        (0..64)
            .filter(|i| y >> i & 1 == 1)
            .fold(0u128, |acc, i| acc ^ ((x as u128) << i))
    }

    #[test]
    fn x_inverse_times_x_is_one() {
        // In the reversed representation 1 is bit 127 and x is bit 126.
        assert_eq!(mul_spec(X_INVERSE, 1 << 126), 1 << 127);
        assert_eq!(mul(X_INVERSE, 1 << 126), 1 << 127);
    }

    /// GF(2^128) product by SP 800-38D's Algorithm 1, on the bytes.
    fn mul_spec(x: u128, y: u128) -> u128 {
        const R: u128 = 0xe1 << 120;
        let (mut z, mut v) = (0u128, y);
        for i in 0..128 {
            if x >> (127 - i) & 1 == 1 {
                z ^= v;
            }
            v = if v & 1 == 1 { (v >> 1) ^ R } else { v >> 1 };
        }
        z
    }

    #[test]
    fn clmul64_matches_definition() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..2000 {
            let (x, y) = (next(), next());
            assert_eq!(clmul64(x, y), clmul64_slow(x, y), "{x:#x} {y:#x}");
        }
        assert_eq!(
            clmul64(u64::MAX, u64::MAX),
            clmul64_slow(u64::MAX, u64::MAX)
        );
    }

    #[test]
    fn mul_matches_algorithm_1() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..500 {
            let a = (next() as u128) << 64 | next() as u128;
            let b = (next() as u128) << 64 | next() as u128;
            assert_eq!(mul(a, b), mul_spec(a, b));
        }
        let ones = u128::MAX;
        assert_eq!(mul(ones, ones), mul_spec(ones, ones));
    }
}
