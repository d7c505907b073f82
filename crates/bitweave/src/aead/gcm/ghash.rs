//! GHASH (NIST SP 800-38D §6.4): the polynomial hash of GCM over GF(2^128) mod
//! x^128 + x^7 + x^2 + x + 1, in backends that compute the same function: `clmul512`
//! (VPCLMULQDQ, four blocks per register, sixteen per reduction), `clmul256`
//! (VPCLMULQDQ, two blocks per register, sixteen per reduction), `clmul128` (PCLMULQDQ,
//! eight per reduction), `pmull` (ARM64 PMULL, eight per reduction) and `soft` (portable,
//! a block at a time through [`super::field::mul`]). The field's representation and
//! arithmetic, which every backend shares, are in [`super::field`].
//!
//! **Constant-time.** No branch or address depends on the key H or the data: the `clmul`
//! and `pmull` backends use the carry-less multiply instruction, `soft` the masked integer
//! multiplies of [`super::field`].

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::field::{mul, AGGREGATE, X_INVERSE, ZMM_AGGREGATE};
use crate::cpu::{self, Feature};

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
    /// ciphertext lengths in bits. Whole groups of `AGGREGATE` (eight) blocks are hashed in
    /// place; the rest goes through a small buffer together with the lengths block, so a
    /// text under eight blocks costs one call and one reduction (the buffer holds only
    /// ciphertext and lengths, which are public, so it is not wiped). A text of 8 to 31
    /// blocks on the 256- and 512-bit backends (8 to 15 on `clmul128`), which that way
    /// took two reductions or more in a row, goes in one with the lengths block
    /// (`clmul::update_final_once`); under eight blocks its set-up cost more than it saved
    /// (AES-128-GCM 16 B 5.58 → 5.87 TSC c/B under `BITWEAVE_CPU=avx2`). Inline: out of
    /// line, every message paid a call with six register saves.
    #[inline]
    pub fn update_final(&self, y: &mut u128, data: &[u8], aad_bytes: u64, text_bytes: u64) {
        let lengths = ((aad_bytes as u128 * 8) << 64) | (text_bytes as u128 * 8);
        #[cfg(target_arch = "x86_64")]
        {
            let (once, wide) = match self.backend {
                GhashBackend::Clmul256 | GhashBackend::Clmul512 => {
                    (super::clmul::FINAL_ONCE_MAX, true)
                }
                GhashBackend::Clmul128 => (16 * (super::field::WIDE_AGGREGATE - 1), false),
                _ => (0, false),
            };
            if (16 * AGGREGATE..=once).contains(&data.len()) {
                return super::clmul::update_final_once(&self.desc, y, data, lengths, wide);
            }
        }
        let direct = data.len() / (16 * AGGREGATE) * (16 * AGGREGATE);
        let (head, tail) = data.split_at(direct);
        if !head.is_empty() {
            self.update_blocks(y, head);
        }
        let mut buf = [0u8; 16 * (AGGREGATE + 1)];
        buf[..tail.len()].copy_from_slice(tail);
        let at = tail.len().div_ceil(16) * 16;
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
    fn desc16(&self) -> &[u128; super::field::WIDE_AGGREGATE] {
        self.desc[ZMM_AGGREGATE - super::field::WIDE_AGGREGATE..]
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

#[cfg(test)]
mod tests {
    use super::*;

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
                0usize, 1, 15, 16, 17, 31, 32, 33, 64, 127, 128, 129, 143, 144, 255, 256, 257, 479,
                480, 481, 495, 496, 497, 512, 1000,
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
