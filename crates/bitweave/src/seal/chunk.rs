//! One chunk sealed or opened (docs/SEALED-FORMAT.md §5): the STREAM construction — chunk i
//! is encrypted under a nonce/IV made of its index, and authenticated together with its
//! index and a last-chunk flag, so chunks cannot be moved, dropped, added or relabelled.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::error::SealError;
use super::header::SealSuite;
use super::keys::FileKeys;
use crate::aead::gcm::AesGcm;
use crate::aead::{tags_equal, Ciphertext, Message, PiCipher, PiVariant};
use crate::cipher::{CipherKind, ModeKernels};
use crate::engine::Cipher;

/// A suite keyed for one file.
pub enum ChunkCipher {
    /// AES-256-CTR keyed with `enc-key`; HMAC-SHA-256 pre-keyed with `mac-key` (cloned per
    /// chunk, so the key's two compressions are paid once).
    AesHmac { aes: Cipher, mac: Hmac<Sha256> },
    /// π-Cipher keyed with `pi-key`.
    Pi(PiCipher),
    /// AES-256-GCM keyed with `gcm-key` (boxed: the hash key's powers are 384 bytes).
    Gcm(Box<AesGcm>),
}

/// The CTR counter block of chunk `index`: the index (64-bit big-endian) then 64 zero
/// bits. A chunk has at most 2^20 blocks, so the low half never carries into the index:
/// the counter ranges of two chunks never overlap.
pub fn ctr_block(index: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&index.to_be_bytes());
    b
}

/// π-Cipher's 16-byte public message number for chunk `index`: the index (64-bit
/// big-endian), seven zero bytes, then the last-chunk flag.
pub fn pi_nonce(index: u64, last: bool) -> [u8; 16] {
    let mut n = [0u8; 16];
    n[..8].copy_from_slice(&index.to_be_bytes());
    n[15] = last as u8;
    n
}

/// AES-GCM's 12-byte nonce for chunk `index`: the index (64-bit big-endian), three zero
/// bytes, then the last-chunk flag. Unique per chunk under a key that is unique per file.
pub fn gcm_nonce(index: u64, last: bool) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..8].copy_from_slice(&index.to_be_bytes());
    n[11] = last as u8;
    n
}

impl ChunkCipher {
    pub fn new(suite: SealSuite, keys: &FileKeys) -> Result<Self, SealError> {
        Ok(match suite {
            SealSuite::Aes256CtrHmacSha256 => {
                let enc = keys.subkey("enc-key");
                let mac = keys.subkey("mac-key");
                ChunkCipher::AesHmac {
                    aes: Cipher::new(CipherKind::Aes256, &enc[..])?,
                    mac: <Hmac<Sha256> as KeyInit>::new_from_slice(&mac[..]).expect("any length"),
                }
            }
            SealSuite::Pi64Cipher256V2 | SealSuite::Pi32Cipher256V2 => {
                let variant = if suite == SealSuite::Pi64Cipher256V2 {
                    PiVariant::Pi64Cipher256V2
                } else {
                    PiVariant::Pi32Cipher256V2
                };
                ChunkCipher::Pi(PiCipher::new(variant, &keys.subkey("pi-key")[..])?)
            }
            SealSuite::Aes256Gcm => {
                ChunkCipher::Gcm(Box::new(AesGcm::new(&keys.subkey("gcm-key")[..])?))
            }
        })
    }

    /// HMAC-SHA-256(mac-key, index ‖ flag ‖ ciphertext).
    fn hmac_tag(mac: &Hmac<Sha256>, index: u64, last: bool, ct: &[u8]) -> [u8; 32] {
        let mut m = mac.clone();
        m.update(&index.to_be_bytes());
        m.update(&[last as u8]);
        m.update(ct);
        m.finalize().into_bytes().into()
    }

    /// Turns the plaintext in `buf` into ciphertext ‖ tag.
    pub fn seal(&self, index: u64, last: bool, buf: &mut Vec<u8>) {
        match self {
            ChunkCipher::AesHmac { aes, mac } => {
                aes.ctr_keystream_xor(&mut ctr_block(index), buf);
                let tag = Self::hmac_tag(mac, index, last, buf);
                buf.extend_from_slice(&tag);
            }
            ChunkCipher::Gcm(gcm) => {
                let tag = gcm
                    .encrypt_in_place(&gcm_nonce(index, last), &[], buf)
                    .expect("a chunk is far below GCM's length limit");
                buf.extend_from_slice(&tag);
            }
            ChunkCipher::Pi(pi) => {
                let sealed = pi
                    .encrypt_message(&Message {
                        npub: &pi_nonce(index, last),
                        nsec: None,
                        ad: &[],
                        plaintext: buf,
                    })
                    .expect("nonce length fixed by the suite");
                wipe(buf);
                buf.clear();
                crate::bytes::extend(buf, &sealed);
            }
        }
    }

    /// Checks ciphertext ‖ tag in `buf` as chunk `index` with flag `last`; on success
    /// leaves the plaintext in `buf`. On failure `buf` holds no plaintext.
    pub fn open(&self, index: u64, last: bool, buf: &mut Vec<u8>) -> bool {
        match self {
            ChunkCipher::AesHmac { aes, mac } => {
                let Some(ct_len) = buf.len().checked_sub(32) else {
                    return false;
                };
                let (ct, tag) = buf.split_at(ct_len);
                // Verify before decrypting: nothing unauthenticated is ever produced.
                if !tags_equal(&Self::hmac_tag(mac, index, last, ct), tag) {
                    return false;
                }
                buf.truncate(ct_len);
                aes.ctr_keystream_xor(&mut ctr_block(index), buf);
                true
            }
            ChunkCipher::Gcm(gcm) => {
                let Some(ct_len) = buf.len().checked_sub(16) else {
                    return false;
                };
                let tag: [u8; 16] = buf[ct_len..].try_into().expect("16 bytes");
                buf.truncate(ct_len);
                // Hashed and decrypted piece by piece; a bad tag restores the ciphertext.
                let ok = gcm
                    .decrypt_in_place(&gcm_nonce(index, last), &[], buf, &tag)
                    .is_ok();
                if !ok {
                    buf.extend_from_slice(&tag);
                }
                ok
            }
            ChunkCipher::Pi(pi) => {
                let nonce = pi_nonce(index, last);
                let opened = pi.decrypt_message(&Ciphertext {
                    npub: &nonce,
                    ad: &[],
                    ciphertext: buf,
                    with_nsec: false,
                });
                match opened {
                    Ok(o) => {
                        buf.clear();
                        crate::bytes::extend(buf, &o.plaintext);
                        true
                    }
                    Err(_) => false,
                }
            }
        }
    }
}

/// Clears a buffer that held plaintext at memset speed (`black_box` keeps the store).
pub fn wipe(buf: &mut [u8]) {
    buf.fill(0);
    std::hint::black_box(buf);
}
