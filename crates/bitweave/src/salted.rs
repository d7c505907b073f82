//! OpenSSL's password-based file format, as `openssl enc -pass …` writes it: the 8 bytes
//! `Salted__`, an 8-byte salt, then the ciphertext of the plain mode, with key and IV
//! derived from the password and salt. Two derivations exist:
//!
//! - **PBKDF2-HMAC** (`openssl enc -pbkdf2 [-iter N] [-md D]`; default SHA-256 and 10,000
//!   iterations): one PBKDF2 output of `key_len + iv_len` bytes, key first.
//! - **Legacy `EVP_BytesToKey`** (no `-pbkdf2`; OpenSSL warns it is deprecated): one
//!   iteration of D_i = H(D_{i−1} ‖ password ‖ salt), D_0 empty, concatenated until key and
//!   IV are filled. The default digest was MD5 before OpenSSL 1.1.0 and is SHA-256 since.
//!
//! With `-nosalt` there is no header and the salt is empty. The format has no integrity
//! check: a wrong password shows only as bad padding (CBC/ECB) or garbage (stream modes).
//! The digests and PBKDF2 are RustCrypto's; only the format is written here.

use md5::Md5;
use sha1::Sha1;
use sha2::{Sha256, Sha512};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::{Direction, Suite};

/// The first 8 bytes of a salted file.
pub const MAGIC: &[u8; 8] = b"Salted__";
/// Header length: magic and salt.
pub const HEADER_LEN: usize = 16;
/// `openssl enc -pbkdf2`'s iteration count when `-iter` is not given.
pub const DEFAULT_ITER: u32 = 10_000;

/// The message digest of a derivation (`-md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Md {
    Md5,
    Sha1,
    Sha256,
    Sha512,
}

impl std::str::FromStr for Md {
    type Err = Error;
    /// OpenSSL's names, case-insensitive, with or without the dash (`sha256`, `SHA-256`).
    fn from_str(s: &str) -> Result<Md> {
        match s.to_ascii_lowercase().replace('-', "").as_str() {
            "md5" => Ok(Md::Md5),
            "sha1" => Ok(Md::Sha1),
            "sha256" => Ok(Md::Sha256),
            "sha512" => Ok(Md::Sha512),
            _ => Err(Error::Salted(format!(
                "unknown digest '{s}' (md5, sha1, sha256, sha512)"
            ))),
        }
    }
}

/// How key and IV come from the password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kdf {
    /// `EVP_BytesToKey` with one iteration (OpenSSL's default without `-pbkdf2`).
    Legacy(Md),
    /// PBKDF2-HMAC with `iter` iterations.
    Pbkdf2 { md: Md, iter: u32 },
}

/// A derived key and IV, wiped on drop.
pub struct Derived {
    pub key: Zeroizing<Vec<u8>>,
    pub iv: Zeroizing<Vec<u8>>,
}

/// Derives `key_len` key bytes and `iv_len` IV bytes from `password` and `salt` (empty
/// for `-nosalt`), as `openssl enc` does.
pub fn derive(kdf: Kdf, password: &[u8], salt: &[u8], key_len: usize, iv_len: usize) -> Derived {
    let mut both = Zeroizing::new(vec![0u8; key_len + iv_len]);
    match kdf {
        Kdf::Pbkdf2 { md, iter } => {
            let f = match md {
                Md::Md5 => pbkdf2::pbkdf2_hmac::<Md5>,
                Md::Sha1 => pbkdf2::pbkdf2_hmac::<Sha1>,
                Md::Sha256 => pbkdf2::pbkdf2_hmac::<Sha256>,
                Md::Sha512 => pbkdf2::pbkdf2_hmac::<Sha512>,
            };
            f(password, salt, iter.max(1), &mut both);
        }
        Kdf::Legacy(md) => match md {
            Md::Md5 => bytes_to_key::<Md5>(password, salt, &mut both),
            Md::Sha1 => bytes_to_key::<Sha1>(password, salt, &mut both),
            Md::Sha256 => bytes_to_key::<Sha256>(password, salt, &mut both),
            Md::Sha512 => bytes_to_key::<Sha512>(password, salt, &mut both),
        },
    }
    Derived {
        key: Zeroizing::new(both[..key_len].to_vec()),
        iv: Zeroizing::new(both[key_len..].to_vec()),
    }
}

/// `EVP_BytesToKey(cipher, md, salt, password, count = 1)` into `out`.
fn bytes_to_key<D: sha2::Digest + Clone>(password: &[u8], salt: &[u8], out: &mut [u8]) {
    let mut prev: Zeroizing<Vec<u8>> = Zeroizing::new(Vec::new());
    let mut filled = 0;
    while filled < out.len() {
        let mut h = D::new();
        h.update(&prev[..]);
        h.update(password);
        h.update(salt);
        prev = Zeroizing::new(h.finalize().to_vec());
        let n = prev.len().min(out.len() - filled);
        out[filled..filled + n].copy_from_slice(&prev[..n]);
        filled += n;
    }
}

/// The header of a salted file.
pub fn header(salt: &[u8; 8]) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..].copy_from_slice(salt);
    h
}

/// The salt of a salted file's first bytes (`data` at least [`HEADER_LEN`] long, else
/// the file is too short to be one).
pub fn read_salt(data: &[u8]) -> Result<[u8; 8]> {
    if data.len() >= HEADER_LEN && data.starts_with(MAGIC) {
        return Ok(data[8..HEADER_LEN].try_into().expect("8 bytes"));
    }
    let message = if data.starts_with(MAGIC) {
        "bad salted file: 'Salted__' with no complete salt after it".to_string()
    } else if data.len() < HEADER_LEN {
        format!(
            "not a salted file: {} bytes, shorter than the 16-byte 'Salted__' header",
            data.len()
        )
    } else {
        "not a salted file: it does not start with 'Salted__' (written with -nosalt, or not by openssl enc -pass?)".into()
    };
    Err(Error::Salted(message))
}

/// Where a password run's salt comes from — `openssl enc`'s rules, shared by the CLI and
/// the Python package so both write and read the same files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaltRule {
    /// `-nosalt`: no salt, no header (it wins over a given salt, as in openssl).
    None,
    /// `-S HEX`: this salt; no header is written, and none is read.
    Given([u8; 8]),
    /// Encryption without `-S`: a fresh random salt, written as the 16-byte header.
    Fresh,
    /// Decryption without `-S`: the salt is read from the input's header.
    FromHeader,
}

impl SaltRule {
    /// The rule for a run in `direction` with `-nosalt` and `-S` as given.
    pub fn new(nosalt: bool, given: Option<[u8; 8]>, direction: Direction) -> Self {
        match (nosalt, given, direction) {
            (true, _, _) => SaltRule::None,
            (false, Some(s), _) => SaltRule::Given(s),
            (false, None, Direction::Encrypt) => SaltRule::Fresh,
            (false, None, Direction::Decrypt) => SaltRule::FromHeader,
        }
    }
}

/// IV bytes a password run derives for `suite`: a block for the modes that take an IV,
/// none for ECB (as `openssl enc -P` prints no `iv=` line then).
pub fn iv_len(suite: Suite) -> usize {
    if suite.mode.takes_iv() {
        suite.cipher.block_size()
    } else {
        0
    }
}

/// A fresh random salt.
pub fn random_salt() -> Result<[u8; 8]> {
    let mut s = [0u8; 8];
    getrandom::fill(&mut s)
        .map_err(|e| Error::Salted(format!("no randomness for the salt: {e}")))?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salt_rules_follow_openssl() {
        use Direction::{Decrypt, Encrypt};
        let s = [7u8; 8];
        assert_eq!(SaltRule::new(true, Some(s), Encrypt), SaltRule::None);
        assert_eq!(SaltRule::new(true, None, Decrypt), SaltRule::None);
        assert_eq!(SaltRule::new(false, Some(s), Decrypt), SaltRule::Given(s));
        assert_eq!(SaltRule::new(false, None, Encrypt), SaltRule::Fresh);
        assert_eq!(SaltRule::new(false, None, Decrypt), SaltRule::FromHeader);
        let ecb: Suite = "aes-128-ecb".parse().unwrap();
        let cbc: Suite = "des-ede3-cbc".parse().unwrap();
        assert_eq!((iv_len(ecb), iv_len(cbc)), (0, 8));
    }

    /// Values printed by `openssl enc -P` (OpenSSL 3.0.x), fixed here so the test does
    /// not depend on the local openssl or its defaults.
    #[test]
    fn derivations_match_openssl() {
        let cases: [(Kdf, &str, &str, usize, usize, &str, &str); 5] = [
            // openssl enc -aes-256-cbc -md md5 -pass pass:password -S 0102030405060708 -P
            (
                Kdf::Legacy(Md::Md5),
                "password",
                "0102030405060708",
                32,
                16,
                "e7b0971e52ca5cc8d0539fb3412f6316f7ba2e6ee293d9f3457b99436b51ce02",
                "8d450e2ed75a84a923d4eac9fe49226b",
            ),
            // ... -md sha256 (OpenSSL 3's default digest)
            (
                Kdf::Legacy(Md::Sha256),
                "password",
                "0102030405060708",
                32,
                16,
                "2435177f1410536baad2acc155c0f94783d58384573cb0f72157443606285d3f",
                "f96efc044e0f1613bf324245c95e7411",
            ),
            // openssl enc -des-ede3-cbc -md sha1 -pass pass:pw -S a1a2a3a4a5a6a7a8 -P
            (
                Kdf::Legacy(Md::Sha1),
                "pw",
                "a1a2a3a4a5a6a7a8",
                24,
                8,
                "ba31d4c60882c1eb9d3b6a8a04f2cc912c0bcd679c7edaf7",
                "17d41ecb2faa4f3f",
            ),
            // openssl enc -aes-128-cbc -pbkdf2 -pass pass:password -S 0102030405060708 -P
            (
                Kdf::Pbkdf2 {
                    md: Md::Sha256,
                    iter: DEFAULT_ITER,
                },
                "password",
                "0102030405060708",
                16,
                16,
                "f550f3f36ca07658588cbea7d3b646c6",
                "4080f8e5384c695db2f79e46195168b8",
            ),
            // openssl enc -des-ede3-cbc -pbkdf2 -iter 1000 -md sha512 -pass pass:pw
            //   -S a1a2a3a4a5a6a7a8 -P
            (
                Kdf::Pbkdf2 {
                    md: Md::Sha512,
                    iter: 1000,
                },
                "pw",
                "a1a2a3a4a5a6a7a8",
                24,
                8,
                "653f8d2f9c564b564f8a55f3adf88d53eb5dbe61d276087d",
                "69613cd19ab03397",
            ),
        ];
        for (kdf, pw, salt, kl, il, key, iv) in cases {
            let d = derive(kdf, pw.as_bytes(), &hex(salt), kl, il);
            assert_eq!(hexs(&d.key), key, "{kdf:?} key");
            assert_eq!(hexs(&d.iv), iv, "{kdf:?} iv");
        }
    }

    #[test]
    fn headers_round_trip_and_bad_ones_are_named() {
        let salt = [9u8; 8];
        let h = header(&salt);
        assert_eq!(read_salt(&h).unwrap(), salt);
        let short = read_salt(&h[..12]).unwrap_err().to_string();
        assert!(short.contains("no complete salt"), "{short}");
        let tiny = read_salt(b"abc").unwrap_err().to_string();
        assert!(tiny.contains("shorter than"), "{tiny}");
        let other = read_salt(&[0u8; 32]).unwrap_err().to_string();
        assert!(other.contains("does not start with 'Salted__'"), "{other}");
        assert_eq!("SHA-256".parse::<Md>().unwrap(), Md::Sha256);
        assert!("sha3".parse::<Md>().is_err());
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn hexs(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}
