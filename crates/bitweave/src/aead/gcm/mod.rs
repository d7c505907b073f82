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
pub mod field;
#[doc(hidden)]
pub mod ghash;
#[cfg(target_arch = "aarch64")]
mod pmull;
#[cfg(target_arch = "x86_64")]
mod stitched;

#[cfg(target_arch = "x86_64")]
use std::sync::Arc;

use zeroize::Zeroize;

use super::tags_equal;
use crate::cipher::{CipherKind, ModeKernels};
use crate::engine::Cipher;
use crate::error::{Error, Result};
pub use ghash::{GhashBackend, GhashKey};
#[cfg(target_arch = "x86_64")]
use {
    crate::cipher::aes::x86::{AesX86, Level},
    stitched::Direction,
};

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
    /// Where AES runs on AES-NI and GHASH on `clmul128` (the AES-NI tier): the same key
    /// on AES-NI for the loop that interleaves the two ([`stitched`]).
    #[cfg(target_arch = "x86_64")]
    stitched: Option<Arc<AesX86>>,
    /// Messages up to this many bytes take one AES call for E_K(J0) and their keystream:
    /// [`SHORT_WIDE`] where AES runs on VAES-512, [`SHORT`] elsewhere.
    short: usize,
}

impl AesGcm {
    /// Keys AES-128/192/256-GCM (by the key's length) on the fastest GHASH backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_ghash(key, GhashBackend::best())
    }

    /// Keys it on a given GHASH backend (for tests and benchmarks); an unavailable one is
    /// an error.
    pub fn with_ghash(key: &[u8], backend: GhashBackend) -> Result<Self> {
        Self::with_backends(key, backend, None)
    }

    /// Keys it on a given GHASH backend and AES backend (a name as
    /// [`Cipher::with_backend`] takes, `None` for the best), for tests and benchmarks: on
    /// `aesni` with `clmul128` the two run interleaved in one loop, as on the AES-NI tier.
    /// An unavailable backend is an error.
    pub fn with_backends(key: &[u8], backend: GhashBackend, aes: Option<&str>) -> Result<Self> {
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
        let aes = Cipher::with_backend(kind, key, aes)?;
        // H = E_K(0^128): the keystream of counter block zero.
        let mut h = [0u8; 16];
        aes.ctr_keystream_xor(&mut [0u8; 16], &mut h);
        let ghash = GhashKey::new(&h, backend);
        h.zeroize();
        #[cfg(target_arch = "x86_64")]
        let stitched = (backend == GhashBackend::Clmul128
            && aes.blocks_backend(PIECE) == "aesni"
            && crate::cpu::has_all(&stitched::FEATURES))
        .then(|| AesX86::new_shared(key, Level::AesNi))
        .flatten();
        let short = if aes.blocks_backend(16 + SHORT_WIDE) == "vaes512" {
            SHORT_WIDE
        } else {
            SHORT
        };
        Ok(AesGcm {
            aes,
            ghash,
            #[cfg(target_arch = "x86_64")]
            stitched,
            short,
        })
    }

    /// The GHASH backend in use.
    pub fn ghash_backend(&self) -> GhashBackend {
        self.ghash.backend()
    }

    /// Whether AES and GHASH run interleaved in one loop (AES-NI with `clmul128`).
    pub fn is_stitched(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.stitched.is_some();
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Encrypts `data` in place and returns the tag over `aad` and the ciphertext.
    pub fn encrypt_in_place(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<[u8; 16]> {
        check_length(data.len())?;
        let lengths = (aad.len() as u64, data.len() as u64);
        let mut y = self.hash_aad(aad);
        if data.len() <= SHORT {
            return Ok(self.encrypt_short::<{ 16 + SHORT }>(nonce, data, y, lengths));
        }
        if data.len() <= self.short {
            return Ok(self.encrypt_short::<{ 16 + SHORT_WIDE }>(nonce, data, y, lengths));
        }
        let (mut counter, tag_mask) = self.first_counter(nonce);
        let done = self.stitched_bulk(&mut counter, &mut y, data, true);
        for (piece, last) in pieces(&mut data[done..]) {
            self.aes.ctr_keystream_xor(&mut counter, piece);
            self.hash_piece(&mut y, piece, last, lengths);
        }
        Ok(masked(y, &tag_mask))
    }

    /// Checks `tag` and decrypts `data` in place. On a mismatch the result is
    /// [`Error::TagMismatch`] and `data` holds the ciphertext again: a short message is
    /// decrypted into a stack buffer and copied out only after the check; a longer one is
    /// hashed and then decrypted piece by piece while in cache, and a bad tag puts the
    /// keystream back on. Either way no unauthenticated plaintext is left and nothing is
    /// lost.
    pub fn decrypt_in_place(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<()> {
        check_length(data.len())?;
        let lengths = (aad.len() as u64, data.len() as u64);
        let mut y = self.hash_aad(aad);
        if data.len() > SHORT && data.len() <= self.short {
            self.ghash.update_final(&mut y, data, lengths.0, lengths.1);
            return self.decrypt_short::<{ 16 + SHORT_WIDE }>(nonce, data, y, tag);
        }
        // Up to SHORT the buffer stays in this function: through `decrypt_short` the 16-
        // and 64-byte calls measured 5-10 % slower.
        let short = data.len() <= SHORT;
        let mut buf = [0u8; 16 + SHORT];
        let (expected, first) = if short {
            self.ghash.update_final(&mut y, data, lengths.0, lengths.1);
            let buf = &mut buf[..16 + data.len()];
            self.short_keystream(nonce, data, buf);
            (masked(y, &buf[..16]), None)
        } else {
            let (first, tag_mask) = self.first_counter(nonce);
            let mut counter = first;
            let done = self.stitched_bulk(&mut counter, &mut y, data, false);
            for (piece, last) in pieces(&mut data[done..]) {
                self.hash_piece(&mut y, piece, last, lengths);
                self.aes.ctr_keystream_xor(&mut counter, piece);
            }
            (masked(y, &tag_mask), Some(first))
        };
        let verdict = if tags_equal(&expected, tag) {
            if short {
                data.copy_from_slice(&buf[16..16 + data.len()]);
            }
            Ok(())
        } else {
            if let Some(mut first) = first {
                self.aes.ctr_keystream_xor(&mut first, data);
            }
            Err(Error::TagMismatch)
        };
        crate::bytes::wipe(&mut buf);
        verdict
    }

    /// [`Self::encrypt_in_place`] for a message of at most N - 16 bytes, through an N-byte
    /// stack buffer (wiped).
    fn encrypt_short<const N: usize>(
        &self,
        nonce: &[u8; 12],
        data: &mut [u8],
        mut y: u128,
        lengths: (u64, u64),
    ) -> [u8; 16] {
        let mut buf = [0u8; N];
        let buf = &mut buf[..16 + data.len()];
        self.short_keystream(nonce, data, buf);
        data.copy_from_slice(&buf[16..]);
        self.ghash.update_final(&mut y, data, lengths.0, lengths.1);
        let tag = masked(y, &buf[..16]);
        crate::bytes::wipe(buf);
        tag
    }

    /// The end of [`Self::decrypt_in_place`] for a message of at most N - 16 bytes (`y` its
    /// final hash): decrypted into an N-byte stack buffer (wiped) and copied out only if
    /// the tag matches.
    fn decrypt_short<const N: usize>(
        &self,
        nonce: &[u8; 12],
        data: &mut [u8],
        y: u128,
        tag: &[u8; 16],
    ) -> Result<()> {
        let mut buf = [0u8; N];
        let buf = &mut buf[..16 + data.len()];
        self.short_keystream(nonce, data, buf);
        let verdict = if tags_equal(&masked(y, &buf[..16]), tag) {
            data.copy_from_slice(&buf[16..]);
            Ok(())
        } else {
            Err(Error::TagMismatch)
        };
        crate::bytes::wipe(buf);
        verdict
    }

    /// For short messages (see [`SHORT`]): `buf`, 16 bytes longer than `data`, becomes
    /// E_K(J0) ‖ (`data` ⊕ keystream) from one AES call.
    fn short_keystream(&self, nonce: &[u8; 12], data: &[u8], buf: &mut [u8]) {
        buf[16..].copy_from_slice(data);
        self.aes.ctr_keystream_xor(&mut j0(nonce), buf);
    }

    /// On the AES-NI tier, en- or decrypts and hashes the whole 128-byte groups of `data`
    /// in the stitched loop and returns how many bytes that was (0 elsewhere). The rest
    /// (possibly nothing) goes the general way, whose last piece also hashes the lengths
    /// block.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn stitched_bulk(
        &self,
        counter: &mut [u8; 16],
        y: &mut u128,
        data: &mut [u8],
        encrypt: bool,
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let Some(aes) = &self.stitched {
            let bulk = data.len() / stitched::GROUP * stitched::GROUP;
            let direction = if encrypt {
                Direction::Encrypt
            } else {
                Direction::Decrypt
            };
            return stitched::crypt_groups(
                aes,
                self.ghash.powers(),
                counter,
                y,
                &mut data[..bulk],
                direction,
            );
        }
        0
    }

    /// The hash after the AAD.
    fn hash_aad(&self, aad: &[u8]) -> u128 {
        let mut y = 0u128;
        if !aad.is_empty() {
            self.ghash.update_padded(&mut y, aad);
        }
        y
    }

    /// Hashes one piece of ciphertext; the last also takes the lengths block.
    fn hash_piece(&self, y: &mut u128, piece: &[u8], last: bool, lengths: (u64, u64)) {
        if last {
            self.ghash.update_final(y, piece, lengths.0, lengths.1);
        } else {
            self.ghash.update_padded(y, piece);
        }
    }

    /// For messages longer than the short paths take: the first data counter block
    /// (J0 + 1) and E_K(J0), from a call of their own.
    fn first_counter(&self, nonce: &[u8; 12]) -> ([u8; 16], [u8; 16]) {
        let mut counter = j0(nonce);
        let mut tag_mask = [0u8; 16];
        self.aes.ctr_keystream_xor(&mut counter, &mut tag_mask);
        (counter, tag_mask)
    }
}

/// `data` in pieces of [`PIECE`] bytes, each with whether it is the last. Empty `data`
/// is one empty piece, so the lengths block is hashed whatever is left.
fn pieces(data: &mut [u8]) -> impl Iterator<Item = (&mut [u8], bool)> {
    let count = data.len().div_ceil(PIECE);
    let empty = data.is_empty().then(<&mut [u8]>::default);
    data.chunks_mut(PIECE)
        .chain(empty)
        .enumerate()
        .map(move |(i, piece)| (piece, i + 1 >= count))
}

/// Messages up to this many bytes take one AES call for E_K(J0) and their keystream
/// together (J0 and fifteen blocks, a 256-byte stack buffer): at 64 bytes a second call
/// costs about as much as the whole message's keystream.
const SHORT: usize = 240;

/// [`SHORT`] where AES runs on VAES-512 (J0 and up to 31 blocks, a 512-byte buffer): from
/// 240 to 496 bytes the second call was what kept AES-128-GCM under libgcrypt there
/// (256 B encryption 1.09 → 0.96 TSC c/B, 0.88× → 0.97-1.00×; 384 B 0.85-0.88× →
/// 0.98-1.02×; Intel Xeon family 6 model 207). On VAES-256 the seventeen blocks of a
/// 256-byte message are one register more than a pass of eight, and AES-256-GCM at 256 B
/// went from 1.02 to 1.09-1.34 c/B (`BITWEAVE_CPU=avx2`); on AES-NI the stitched loop
/// was faster at 496 B. Messages up to [`SHORT`] keep the 256-byte buffer: zeroing and
/// wiping a 512-byte one, or a closure around either, cost them ~5 % at 16 and 64 bytes.
const SHORT_WIDE: usize = 496;

/// The pre-counter block J0 = nonce ‖ 0^31 ‖ 1 (96-bit nonces).
/// Built in a register: byte stores followed by a wide load of the same bytes stall on
/// store forwarding (a tenth of a 64-byte message's time).
fn j0(nonce: &[u8; 12]) -> [u8; 16] {
    let low = u64::from_le_bytes(nonce[..8].try_into().expect("8 bytes"));
    let high = u32::from_le_bytes(nonce[8..].try_into().expect("4 bytes"));
    (low as u128 | (high as u128) << 64 | 1 << 120).to_le_bytes()
}

/// T = E_K(J0) ⊕ GHASH(A, C), from the final hash and E_K(J0).
fn masked(y: u128, tag_mask: &[u8]) -> [u8; 16] {
    let mut tag = y.to_be_bytes();
    for (t, m) in tag.iter_mut().zip(tag_mask) {
        *t ^= m;
    }
    tag
}

fn check_length(len: usize) -> Result<()> {
    if len as u64 > MAX_TEXT {
        Err(Error::GcmTooLong { len: len as u64 })
    } else {
        Ok(())
    }
}
