//! Key derivation (docs/SEALED-FORMAT.md §4): passphrase → Argon2id → master key, or a raw
//! 32-byte key; then HKDF-SHA-256 with the per-file nonce as salt and the whole header body
//! in every `info`, so each file gets its own keys and any header change changes them all.

use std::fmt;

use argon2::{Algorithm, Argon2, Params, Version};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

use super::error::SealError;
use super::header::{Header, Kdf, BODY_LEN, MAC_LEN};

/// Length of every key here.
pub const KEY_LEN: usize = 32;

/// Prefix of every HKDF `info`: names the format and version, so keys never collide with
/// another protocol's.
const INFO_PREFIX: &[u8] = b"bitweave-seal v1 ";

/// What the user holds. Wiped on drop, never printed.
pub enum Secret {
    /// A passphrase (its bytes, as typed; no normalisation).
    Passphrase(Zeroizing<Vec<u8>>),
    /// A 32-byte key.
    Key(Zeroizing<[u8; KEY_LEN]>),
}

impl Secret {
    pub fn passphrase(bytes: &[u8]) -> Self {
        Secret::Passphrase(Zeroizing::new(bytes.to_vec()))
    }

    pub fn key(key: [u8; KEY_LEN]) -> Self {
        Secret::Key(Zeroizing::new(key))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Secret::Passphrase(_) => f.write_str("Secret::Passphrase(<redacted>)"),
            Secret::Key(_) => f.write_str("Secret::Key(<redacted>)"),
        }
    }
}

/// The master key: Argon2id's output or the raw key.
fn master_key(secret: &Secret, header: &Header) -> Result<Zeroizing<[u8; KEY_LEN]>, SealError> {
    let mut out = Zeroizing::new([0u8; KEY_LEN]);
    match (&header.kdf, secret) {
        (Kdf::RawKey, Secret::Key(k)) => out.copy_from_slice(&k[..]),
        (Kdf::Argon2id(a), Secret::Passphrase(pw)) => {
            if pw.is_empty() {
                return Err(SealError::BadParams("the passphrase is empty".into()));
            }
            let params = Params::new(a.m_kib, a.t, a.p, Some(KEY_LEN))
                .map_err(|e| SealError::Kdf(e.to_string()))?;
            Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
                .hash_password_into(pw, &header.salt, &mut out[..])
                .map_err(|e| SealError::Kdf(e.to_string()))?;
        }
        (Kdf::RawKey, Secret::Passphrase(_)) => return Err(SealError::NeedKey),
        (Kdf::Argon2id(_), Secret::Key(_)) => return Err(SealError::NeedPassphrase),
    }
    Ok(out)
}

/// The file's keys, derived from the master key and the header. Wiped on drop.
pub struct FileKeys {
    body: [u8; BODY_LEN],
    hkdf: Hkdf<Sha256>,
}

impl FileKeys {
    /// Runs the KDF for this header (the slow step with a passphrase).
    pub fn derive(secret: &Secret, header: &Header) -> Result<Self, SealError> {
        let master = master_key(secret, header)?;
        Ok(FileKeys {
            body: header.encode_body(),
            hkdf: Hkdf::<Sha256>::new(Some(&header.nonce), &master[..]),
        })
    }

    /// The subkey named `label`: HKDF-Expand(PRK, "bitweave-seal v1 " ‖ label ‖ 0x00 ‖ body).
    pub fn subkey(&self, label: &str) -> Zeroizing<[u8; KEY_LEN]> {
        let mut out = Zeroizing::new([0u8; KEY_LEN]);
        self.hkdf
            .expand_multi_info(
                &[INFO_PREFIX, label.as_bytes(), &[0], &self.body],
                &mut out[..],
            )
            .expect("32 bytes is a valid HKDF-SHA-256 output length");
        out
    }

    /// HMAC-SHA-256 of the header body under the `header-mac` subkey.
    pub fn header_mac(&self) -> [u8; MAC_LEN] {
        let key = self.subkey("header-mac");
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key[..]).expect("any length");
        mac.update(&self.body);
        mac.finalize().into_bytes().into()
    }

    /// Checks a stored header MAC in constant time.
    pub fn verify_header(&self, tag: &[u8]) -> Result<(), SealError> {
        let key = self.subkey("header-mac");
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key[..]).expect("any length");
        mac.update(&self.body);
        mac.verify_slice(tag).map_err(|_| SealError::WrongKey)
    }
}
