//! π-Cipher v2, generic over the word size. `word` holds the per-size constants, `layout`
//! the byte/state conventions, `reference` the plain implementation, `lanes` the
//! word-sliced π, `engine` the multi-buffer scheduler, `x86` the SIMD builds of the lane
//! kernel, `wide` the whole-step kernel for runs of blocks (instances `avx2`, `avx512`,
//! `neon` on ARM64 and `scalar`, the portable one) and `stream` the incremental sponge.
#![deny(unsafe_code)]

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod avx512;
pub mod engine;
pub mod lanes;
pub mod layout;
#[cfg(target_arch = "aarch64")]
pub mod neon;
pub mod reference;
pub mod scalar;
pub mod stream;
pub mod wide;
pub mod word;
#[cfg(target_arch = "x86_64")]
pub mod x86;

use zeroize::Zeroize;

use crate::bytes::SecretVec;

/// The raw result of a decryption before the tag check: recovered SMN, plaintext and the
/// tag recomputed over the ciphertext. Secrets are wiped on drop.
pub struct Sealed {
    pub nsec: SecretVec,
    pub plaintext: SecretVec,
    pub tag: Vec<u8>,
}

impl Sealed {
    pub fn new(nsec_len: usize, mlen: usize, tag_len: usize) -> Self {
        Sealed {
            nsec: SecretVec::zeroed(nsec_len),
            plaintext: SecretVec::zeroed(mlen),
            tag: vec![0; tag_len],
        }
    }
}

impl Drop for Sealed {
    fn drop(&mut self) {
        self.tag.zeroize();
    }
}
