//! AES-GCM (NIST SP 800-38D) with 96-bit nonces and 16-byte tags: the library's AES
//! counter mode (the fastest kernel for the CPU, as every AES call gets) and a GHASH
//! backend ([`ghash`]). It exists for the sealed-file suite `aes-256-gcm`, whose MAC then
//! costs a fraction of HMAC-SHA-256's, and is public for anyone who wants AES-GCM.
//!
//! The message is worked on in pieces of [`PIECE`] bytes, each hashed and encrypted (or
//! hashed and decrypted) while it is in the first-level cache, so memory is read once.
//!
//! ```
//! use bitweave::aead::gcm::AesGcm;
//! let gcm = AesGcm::new(&[7; 32]).unwrap();
//! let mut data = *b"attack at dawn";
//! let tag = gcm.encrypt_in_place(&[1; 12], b"header", &mut data).unwrap();
//! gcm.decrypt_in_place(&[1; 12], b"header", &mut data, &tag).unwrap();
//! assert_eq!(&data, b"attack at dawn");
//! ```

#[cfg(target_arch = "x86_64")]
mod clmul;
#[doc(hidden)]
pub mod ghash;

use zeroize::Zeroize;

use super::tags_equal;
use crate::cipher::{CipherKind, ModeKernels};
use crate::engine::Cipher;
use crate::error::{Error, Result};
pub use ghash::{GhashBackend, GhashKey};

/// Bytes hashed and en/decrypted together: small enough to stay in L1 between the two
/// passes, large enough that the per-call costs vanish.
pub const PIECE: usize = 16 * 1024;

/// The most plaintext one GCM message may have: 2^32 - 2 blocks (SP 800-38D §5.2.1.1),
/// which also keeps the 32-bit counter from wrapping, so the library's 128-bit counter
/// increment equals GCM's inc32.
pub const MAX_TEXT: u64 = (1 << 36) - 32;

/// AES-GCM keyed once: the AES key schedule and the hash key's powers.
pub struct AesGcm {
    aes: Cipher,
    ghash: GhashKey,
}

impl AesGcm {
    /// Keys AES-128/192/256-GCM (by the key's length) on the fastest GHASH backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_ghash(key, GhashBackend::best())
    }

    /// Keys it on a given GHASH backend (for tests and benchmarks); an unavailable one is
    /// an error.
    pub fn with_ghash(key: &[u8], backend: GhashBackend) -> Result<Self> {
        let kind = match key.len() {
            16 => CipherKind::Aes128,
            24 => CipherKind::Aes192,
            _ => CipherKind::Aes256,
        };
        if !backend.available() {
            return Err(Error::BackendUnavailable {
                backend: backend.name().to_string(),
                needs: backend.needs().to_string(),
            });
        }
        let aes = Cipher::new(kind, key)?;
        // H = E_K(0^128): the keystream of counter block zero.
        let mut h = [0u8; 16];
        aes.ctr_keystream_xor(&mut [0u8; 16], &mut h);
        let ghash = GhashKey::new(&h, backend);
        h.zeroize();
        Ok(AesGcm { aes, ghash })
    }

    /// The GHASH backend in use.
    pub fn ghash_backend(&self) -> GhashBackend {
        self.ghash.backend()
    }

    /// Encrypts `data` in place and returns the tag over `aad` and the ciphertext.
    pub fn encrypt_in_place(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<[u8; 16]> {
        check_length(data.len())?;
        let (mut counter, mut y, tag_mask) = self.start(nonce, aad);
        for piece in data.chunks_mut(PIECE) {
            self.aes.ctr_keystream_xor(&mut counter, piece);
            self.ghash.update_padded(&mut y, piece);
        }
        Ok(self.finish(y, aad.len(), data.len(), tag_mask))
    }

    /// Checks `tag` and decrypts `data` in place. On a mismatch the result is
    /// [`Error::TagMismatch`] and `data` holds the ciphertext again: each piece is hashed
    /// and then decrypted while in cache, and a bad tag puts the keystream back on, so no
    /// unauthenticated plaintext is left and nothing is lost.
    pub fn decrypt_in_place(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<()> {
        check_length(data.len())?;
        let (first, mut y, tag_mask) = self.start(nonce, aad);
        let mut counter = first;
        for piece in data.chunks_mut(PIECE) {
            self.ghash.update_padded(&mut y, piece);
            self.aes.ctr_keystream_xor(&mut counter, piece);
        }
        let expected = self.finish(y, aad.len(), data.len(), tag_mask);
        if tags_equal(&expected, tag) {
            Ok(())
        } else {
            self.aes.ctr_keystream_xor(&mut first.clone(), data);
            Err(Error::TagMismatch)
        }
    }

    /// The first data counter block (J0 + 1), the hash after the AAD, and E_K(J0).
    fn start(&self, nonce: &[u8; 12], aad: &[u8]) -> ([u8; 16], u128, [u8; 16]) {
        let mut counter = [0u8; 16];
        counter[..12].copy_from_slice(nonce);
        counter[15] = 1;
        let mut tag_mask = [0u8; 16];
        // E_K(J0); the counter moves on to J0 + 1, where the data starts.
        self.aes.ctr_keystream_xor(&mut counter, &mut tag_mask);
        let mut y = 0u128;
        self.ghash.update_padded(&mut y, aad);
        (counter, y, tag_mask)
    }

    /// T = E_K(J0) ⊕ GHASH(A, C).
    fn finish(&self, mut y: u128, aad_len: usize, text_len: usize, tag_mask: [u8; 16]) -> [u8; 16] {
        self.ghash
            .update_lengths(&mut y, aad_len as u64, text_len as u64);
        let mut tag = y.to_be_bytes();
        for (t, m) in tag.iter_mut().zip(tag_mask) {
            *t ^= m;
        }
        tag
    }
}

fn check_length(len: usize) -> Result<()> {
    if len as u64 > MAX_TEXT {
        Err(Error::GcmTooLong { len: len as u64 })
    } else {
        Ok(())
    }
}
