//! GHASH (NIST SP 800-38D §6.4): the polynomial hash of GCM over GF(2^128) mod
//! x^128 + x^7 + x^2 + x + 1, in backends that compute the same function: `clmul512`
//! (VPCLMULQDQ, four blocks per register, sixteen per reduction), `clmul256`
//! (VPCLMULQDQ, two blocks per register, sixteen per reduction), `clmul128` (PCLMULQDQ,
//! eight per reduction), `pmull` (ARM64 PMULL, eight per reduction) and `soft` (portable).
//!
//! **Representation.** A 16-byte block read as one big-endian integer is GCM's field
//! element with its bits reversed (byte 0's top bit is the coefficient of x^0). The
//! carry-less product of two such integers is the reversed product shifted right by one,
//! so `soft` multiplies, shifts the 256-bit result left by one and reduces it with
//! shifts by 1, 2 and 7 (x^128 = x^7 + x^2 + x + 1, read in reversed bit order) —
//! `reduce` below; the carry-less multiply backends keep the hash key's powers divided by
//! x ([`X_INVERSE`]), so their product needs no shift before the same reduction (its
//! SIMD twin in `clmul`).
//!
//! **Constant-time.** No branch or address depends on the key H or the data: the `clmul`
//! backends use the carry-less multiply instruction; `soft` multiplies 64-bit words whose set bits are
//! four apart, so the integer multiplier's carries never reach a bit that is kept
//! (`clmul64_low`); integer multiplication runs in fixed time on x86-64 and ARM64 cores.

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::cpu::{self, Feature};

/// Blocks folded per reduction by the 128-bit aggregated kernel: the hash key's powers
/// H^1..H^AGGREGATE are precomputed.
pub const AGGREGATE: usize = 8;
/// Blocks per reduction on 256-bit registers (two per register): H^16..H^1.
pub const WIDE_AGGREGATE: usize = 16;
/// Blocks per reduction on 512-bit registers (four per register): H^32..H^1.
pub const ZMM_AGGREGATE: usize = 32;

/// Which implementation a [`GhashKey`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GhashBackend {
    /// Portable: masked 64-bit integer multiplies.
    Soft,
    /// x86-64 PCLMULQDQ (with SSSE3 for the byte swap), eight blocks per reduction.
    Clmul128,
    /// x86-64 VPCLMULQDQ on 256-bit registers (AVX2), sixteen blocks per reduction.
    Clmul256,
    /// x86-64 VPCLMULQDQ on 512-bit registers (AVX-512), thirty-two blocks per reduction.
    Clmul512,
    /// ARM64 PMULL (the crypto extension's AES feature), eight blocks per reduction.
    Pmull,
}

impl GhashBackend {
    /// Every backend, the portable one first.
    pub const ALL: [GhashBackend; 5] = [
        GhashBackend::Soft,
        GhashBackend::Clmul128,
        GhashBackend::Clmul256,
        GhashBackend::Clmul512,
        GhashBackend::Pmull,
    ];

    /// The name `bitweave list` and the tests print.
    pub fn name(self) -> &'static str {
        match self {
            GhashBackend::Soft => "soft",
            GhashBackend::Clmul128 => "clmul128",
            GhashBackend::Clmul256 => "clmul256",
            GhashBackend::Clmul512 => "clmul512",
            GhashBackend::Pmull => "pmull",
        }
    }

    /// Whether this CPU can run it (under the tier cap).
    pub fn available(self) -> bool {
        match self {
            GhashBackend::Soft => true,
            GhashBackend::Clmul128 => {
                cfg!(target_arch = "x86_64") && cpu::has_all(&[Feature::Pclmulqdq, Feature::Ssse3])
            }
            GhashBackend::Clmul256 => {
                GhashBackend::Clmul128.available()
                    && cpu::has_all(&[Feature::Vpclmulqdq, Feature::Avx2])
            }
            GhashBackend::Clmul512 => {
                GhashBackend::Clmul256.available()
                    && cpu::has_all(&[Feature::Avx512f, Feature::Avx512bw])
            }
            GhashBackend::Pmull => cfg!(target_arch = "aarch64") && cpu::has(Feature::ArmAes),
        }
    }

    /// What the backend needs, for error messages.
    pub fn needs(self) -> &'static str {
        match self {
            GhashBackend::Soft => "nothing",
            GhashBackend::Clmul128 => "x86-64 pclmulqdq and ssse3",
            GhashBackend::Clmul256 => "x86-64 vpclmulqdq, avx2, pclmulqdq and ssse3",
            GhashBackend::Clmul512 => "x86-64 avx512f, avx512bw, vpclmulqdq, pclmulqdq and ssse3",
            GhashBackend::Pmull => "ARM64 aes (the crypto extension, with PMULL)",
        }
    }

    /// The fastest backend this CPU can run.
    pub fn best() -> Self {
        [
            GhashBackend::Clmul512,
            GhashBackend::Clmul256,
            GhashBackend::Clmul128,
            GhashBackend::Pmull,
        ]
        .into_iter()
        .find(|b| b.available())
        .unwrap_or(GhashBackend::Soft)
    }
}

/// x^-1 = x^127 + x^6 + x + 1 in GHASH's field (x times it is x^128 + x^7 + x^2 + x,
/// which is 1 mod the polynomial), in the reversed representation: x^j is bit 127 - j.
///
/// Why the carry-less multiply backends keep H^i·x^-1: the carry-less product of two
/// reversed 128-bit elements is the reversed 256-bit product shifted right by one, so
/// multiplying by H^i directly needs a one-bit left shift of the 256-bit result before
/// the reduction (`mul` below does it). Multiplying by H^i·x^-1 instead gives the
/// reversed product of (·)·H^i·x^-1·x, that is the wanted product, with no shift: ten
/// vector operations less per reduction.
pub const X_INVERSE: u128 = 1 << 127 | 1 << 126 | 1 << 121 | 1;

/// The hash key H and its powers, for one backend.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct GhashKey {
    /// `powers[i]` = H^(i+1), each a block read as a big-endian integer; divided by x
    /// on the carry-less multiply backends ([`X_INVERSE`]).
    powers: [u128; AGGREGATE],
    /// H^32..H^1, highest first, divided by x as `powers` are (the 512-bit kernel loads
    /// them in fours, the 256-bit one the last sixteen in pairs; x86-64 only).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    desc: [u128; ZMM_AGGREGATE],
    #[zeroize(skip)]
    backend: GhashBackend,
}

impl GhashKey {
    /// Keys GHASH with `h` = E_K(0^128) on `backend`. Panics if the CPU cannot run it
    /// (callers check [`GhashBackend::available`]).
    pub fn new(h: &[u8; 16], backend: GhashBackend) -> Self {
        assert!(
            backend.available(),
            "GHASH backend {} not available",
            backend.name()
        );
        let h = u128::from_be_bytes(*h);
        let mut up = [h; ZMM_AGGREGATE];
        for i in 1..ZMM_AGGREGATE {
            up[i] = mul(up[i - 1], h);
        }
        if backend != GhashBackend::Soft {
            // The carry-less multiply backends take the powers divided by x (see
            // `X_INVERSE`), which spares their reductions a 256-bit shift.
            for p in &mut up {
                *p = mul(*p, X_INVERSE);
            }
        }
        let mut powers = [0u128; AGGREGATE];
        powers.copy_from_slice(&up[..AGGREGATE]);
        let mut desc = up;
        desc.reverse();
        up.zeroize();
        GhashKey {
            powers,
            desc,
            backend,
        }
    }

    pub fn backend(&self) -> GhashBackend {
        self.backend
    }

    /// Folds `data` into the running hash `y`, as whole blocks with the last one padded
    /// with zeros (GCM pads the AAD and the ciphertext each to a block). To hash a long
    /// input in pieces, give every piece but the last a length that is a multiple of 16.
    /// GHASH reads only public bytes (AAD, ciphertext), so the padding buffer is not wiped.
    pub fn update_padded(&self, y: &mut u128, data: &[u8]) {
        let whole = data.len() - data.len() % 16;
        let (blocks, rest) = data.split_at(whole);
        self.update_blocks(y, blocks);
        if !rest.is_empty() {
            let mut last = [0u8; 16];
            last[..rest.len()].copy_from_slice(rest);
            self.update_blocks(y, &last);
        }
    }

    /// Folds in the last of the text (padded) and GCM's final block, the AAD and
    /// ciphertext lengths in bits. Whole groups of [`AGGREGATE`] blocks are hashed in
    /// place; the rest goes through a small buffer together with the lengths block, so a
    /// short message costs one call and one reduction (the buffer holds only ciphertext
    /// and lengths, which are public, so it is not wiped).
    pub fn update_final(&self, y: &mut u128, data: &[u8], aad_bytes: u64, text_bytes: u64) {
        let direct = data.len() / (16 * AGGREGATE) * (16 * AGGREGATE);
        let (head, tail) = data.split_at(direct);
        if !head.is_empty() {
            self.update_blocks(y, head);
        }
        let mut buf = [0u8; 16 * (AGGREGATE + 1)];
        buf[..tail.len()].copy_from_slice(tail);
        let at = tail.len().div_ceil(16) * 16;
        let lengths = ((aad_bytes as u128 * 8) << 64) | (text_bytes as u128 * 8);
        buf[at..at + 16].copy_from_slice(&lengths.to_be_bytes());
        self.update_blocks(y, &buf[..at + 16]);
    }

    /// H^1..H^8, for the stitched AES-NI loop.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn powers(&self) -> &[u128; AGGREGATE] {
        &self.powers
    }

    /// H^16..H^1, the tail of `desc`.
    #[cfg(target_arch = "x86_64")]
    fn desc16(&self) -> &[u128; WIDE_AGGREGATE] {
        self.desc[ZMM_AGGREGATE - WIDE_AGGREGATE..]
            .try_into()
            .expect("16 powers")
    }

    /// Whole blocks on this key's backend.
    fn update_blocks(&self, y: &mut u128, blocks: &[u8]) {
        match self.backend {
            GhashBackend::Soft => update_soft(&self.powers, y, blocks),
            GhashBackend::Clmul128 => {
                #[cfg(target_arch = "x86_64")]
                super::clmul::update(&self.powers, y, blocks);
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("clmul128 is x86-64 only")
            }
            GhashBackend::Clmul256 => {
                #[cfg(target_arch = "x86_64")]
                super::clmul::update_wide(&self.powers, self.desc16(), y, blocks);
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("clmul256 is x86-64 only")
            }
            GhashBackend::Clmul512 => {
                #[cfg(target_arch = "x86_64")]
                super::clmul::update_512(&self.powers, &self.desc, self.desc16(), y, blocks);
                #[cfg(not(target_arch = "x86_64"))]
                unreachable!("clmul512 is x86-64 only")
            }
            GhashBackend::Pmull => {
                #[cfg(target_arch = "aarch64")]
                super::pmull::update(&self.powers, y, blocks);
                #[cfg(not(target_arch = "aarch64"))]
                unreachable!("pmull is ARM64 only")
            }
        }
    }
}

/// Whole blocks one at a time: y = (y ⊕ X_i)·H.
fn update_soft(powers: &[u128; AGGREGATE], y: &mut u128, blocks: &[u8]) {
    for block in blocks.chunks_exact(16) {
        let x = u128::from_be_bytes(block.try_into().expect("16 bytes"));
        *y = mul(*y ^ x, powers[0]);
    }
}

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
pub(super) fn reduce(hi: u128, lo: u128) -> u128 {
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

    #[test]
    fn backends_agree() {
        let mut ran = vec![];
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 131 % 251) as u8).collect();
        let h = [
            0x66u8, 0xe9, 0x4b, 0xd4, 0xef, 0x8a, 0x2c, 0x3b, 0x88, 0x4c, 0xfa, 0x59, 0xca, 0x34,
            0x2b, 0x2e,
        ];
        let soft = GhashKey::new(&h, GhashBackend::Soft);
        for backend in GhashBackend::ALL {
            if !backend.available() {
                println!("GHASH backend {} not run: this CPU cannot", backend.name());
                continue;
            }
            ran.push(backend.name());
            let key = GhashKey::new(&h, backend);
            for len in [
                0usize, 1, 15, 16, 17, 64, 127, 128, 129, 143, 144, 255, 256, 257, 1000,
            ] {
                let (mut a, mut b) = (7u128, 7u128);
                soft.update_padded(&mut a, &data[..len]);
                key.update_padded(&mut b, &data[..len]);
                assert_eq!(a, b, "ghash/{}/len {len}", backend.name());
                // The final step equals the padded text followed by the lengths block.
                let lengths = ((3u128 * 8) << 64) | (len as u128 * 8);
                soft.update_padded(&mut a, &lengths.to_be_bytes());
                let mut d = 7u128;
                key.update_final(&mut d, &data[..len], 3, len as u64);
                let mut e = 7u128;
                key.update_padded(&mut e, &data[..len]);
                key.update_padded(&mut e, &lengths.to_be_bytes());
                assert_eq!((d, e), (a, a), "ghash/{}/final, len {len}", backend.name());
            }
        }
        println!("GHASH backends run: {ran:?}");
    }
}
