//! The sealed file's header: a fixed 88-byte record (docs/SEALED-FORMAT.md §2), encoded and
//! parsed with strict validation, so a hostile file can neither pick absurd KDF costs nor
//! smuggle bytes that the header MAC would not cover.

use super::error::SealError;

/// The file starts with these six bytes.
pub const MAGIC: [u8; 6] = *b"BWSEAL";
/// The only format version this code reads and writes.
pub const VERSION: u8 = 1;
/// Header bytes covered by the header MAC (every field before it).
pub const BODY_LEN: usize = 56;
/// The header MAC: HMAC-SHA-256.
pub const MAC_LEN: usize = 32;
/// The whole header.
pub const HEADER_LEN: usize = BODY_LEN + MAC_LEN;
/// Length of the Argon2 salt and of the per-file nonce.
pub const SALT_LEN: usize = 16;

/// Smallest chunk: 1 KiB (small chunks only cost tag overhead; tests use them).
pub const MIN_CHUNK_LOG2: u8 = 10;
/// Largest chunk: 16 MiB (bounds the memory a file can make the reader allocate).
pub const MAX_CHUNK_LOG2: u8 = 24;
/// Default chunk: 1 MiB, large enough that per-chunk costs vanish, small enough that a
/// window of chunks per core stays a few MiB.
pub const DEFAULT_CHUNK_LOG2: u8 = 20;

/// Argon2id memory cost limit in KiB (2 GiB): a hostile header cannot demand more.
pub const MAX_ARGON2_M_KIB: u32 = 2 * 1024 * 1024;
/// Argon2id pass limit.
pub const MAX_ARGON2_T: u32 = 64;
/// Argon2id lane limit.
pub const MAX_ARGON2_P: u32 = 16;

/// A cipher suite: how each chunk is encrypted and authenticated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SealSuite {
    /// AES-256 in CTR mode, then HMAC-SHA-256 over the ciphertext (encrypt-then-MAC).
    Aes256CtrHmacSha256,
    /// π-Cipher v2 with 64-bit words and a 256-bit key (64-byte tag).
    Pi64Cipher256V2,
    /// π-Cipher v2 with 32-bit words and a 256-bit key (32-byte tag).
    Pi32Cipher256V2,
    /// AES-256-GCM (16-byte tag): the same AES-256 counter mode with GHASH for its MAC,
    /// a fraction of HMAC-SHA-256's cost where the CPU has a carry-less multiply.
    Aes256Gcm,
}

impl SealSuite {
    pub const ALL: [SealSuite; 4] = [
        SealSuite::Aes256CtrHmacSha256,
        SealSuite::Pi64Cipher256V2,
        SealSuite::Pi32Cipher256V2,
        SealSuite::Aes256Gcm,
    ];

    /// The default: the fastest suite on this CPU. `aes-256-gcm` where GHASH runs on a
    /// carry-less multiply instruction, else `aes-256-ctr-hmac-sha256` (GHASH in portable
    /// code costs more than SHA-256). Every suite opens on every machine.
    pub fn preferred() -> SealSuite {
        if crate::aead::gcm::GhashBackend::best() == crate::aead::gcm::GhashBackend::Soft {
            SealSuite::Aes256CtrHmacSha256
        } else {
            SealSuite::Aes256Gcm
        }
    }

    /// The name for `--suite`.
    pub fn name(self) -> &'static str {
        match self {
            SealSuite::Aes256CtrHmacSha256 => "aes-256-ctr-hmac-sha256",
            SealSuite::Pi64Cipher256V2 => "pi64cipher256v2",
            SealSuite::Pi32Cipher256V2 => "pi32cipher256v2",
            SealSuite::Aes256Gcm => "aes-256-gcm",
        }
    }

    /// The header's suite byte.
    pub fn id(self) -> u8 {
        match self {
            SealSuite::Aes256CtrHmacSha256 => 1,
            SealSuite::Pi64Cipher256V2 => 2,
            SealSuite::Pi32Cipher256V2 => 3,
            SealSuite::Aes256Gcm => 4,
        }
    }

    fn from_id(id: u8) -> Option<Self> {
        SealSuite::ALL.into_iter().find(|s| s.id() == id)
    }

    /// Bytes of authentication tag after each chunk's ciphertext.
    pub fn tag_len(self) -> usize {
        match self {
            SealSuite::Aes256CtrHmacSha256 => 32,
            SealSuite::Pi64Cipher256V2 => 64,
            SealSuite::Pi32Cipher256V2 => 32,
            SealSuite::Aes256Gcm => 16,
        }
    }
}

impl std::fmt::Display for SealSuite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SealSuite {
    type Err = SealError;
    fn from_str(s: &str) -> Result<Self, SealError> {
        let lower = s.to_ascii_lowercase();
        SealSuite::ALL
            .into_iter()
            .find(|v| v.name() == lower)
            .ok_or_else(|| SealError::UnknownSuite(s.to_string()))
    }
}

/// Argon2id cost parameters, as stored in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argon2Params {
    /// Memory in KiB.
    pub m_kib: u32,
    /// Passes over memory.
    pub t: u32,
    /// Lanes.
    pub p: u32,
}

impl Default for Argon2Params {
    /// RFC 9106 §4's second recommended option (64 MiB, 3 passes, 4 lanes): a few hundred
    /// milliseconds here, affordable on any machine that runs this tool.
    fn default() -> Self {
        Argon2Params {
            m_kib: 64 * 1024,
            t: 3,
            p: 4,
        }
    }
}

impl Argon2Params {
    /// Checks the format's limits (and Argon2's own rule m ≥ 8p).
    pub fn validate(&self) -> Result<(), SealError> {
        let bad = |why: String| Err(SealError::BadParams(why));
        if self.p == 0 || self.p > MAX_ARGON2_P {
            return bad(format!(
                "Argon2 lanes must be 1..={MAX_ARGON2_P}, not {}",
                self.p
            ));
        }
        if self.t == 0 || self.t > MAX_ARGON2_T {
            return bad(format!(
                "Argon2 passes must be 1..={MAX_ARGON2_T}, not {}",
                self.t
            ));
        }
        if self.m_kib < 8 * self.p || self.m_kib > MAX_ARGON2_M_KIB {
            return bad(format!(
                "Argon2 memory must be {}..={MAX_ARGON2_M_KIB} KiB for {} lanes, not {}",
                8 * self.p,
                self.p,
                self.m_kib
            ));
        }
        Ok(())
    }
}

/// Where the master key comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kdf {
    /// A 32-byte key given directly (a key file).
    RawKey,
    /// Argon2id over a passphrase with the header's salt.
    Argon2id(Argon2Params),
}

impl Kdf {
    fn id(self) -> u8 {
        match self {
            Kdf::RawKey => 0,
            Kdf::Argon2id(_) => 1,
        }
    }
}

/// The parsed header (without its MAC, which `seal::keys` checks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub suite: SealSuite,
    pub kdf: Kdf,
    /// Plaintext bytes per chunk, as a power of two.
    pub chunk_log2: u8,
    /// Argon2 salt (all zero with a raw key).
    pub salt: [u8; SALT_LEN],
    /// Per-file random nonce: the HKDF salt, so every file gets fresh keys.
    pub nonce: [u8; SALT_LEN],
}

impl Header {
    /// A header with fresh random salt (for a passphrase) and nonce.
    pub fn random(suite: SealSuite, kdf: Kdf, chunk_log2: u8) -> Result<Self, SealError> {
        let mut salt = [0u8; SALT_LEN];
        let mut nonce = [0u8; SALT_LEN];
        getrandom::fill(&mut nonce).map_err(|e| SealError::Random(e.to_string()))?;
        if matches!(kdf, Kdf::Argon2id(_)) {
            getrandom::fill(&mut salt).map_err(|e| SealError::Random(e.to_string()))?;
        }
        let h = Header {
            suite,
            kdf,
            chunk_log2,
            salt,
            nonce,
        };
        h.validate()?;
        Ok(h)
    }

    /// Plaintext bytes per chunk.
    pub fn chunk_size(&self) -> usize {
        1 << self.chunk_log2
    }

    /// Checks every field against the format's rules.
    pub fn validate(&self) -> Result<(), SealError> {
        if !(MIN_CHUNK_LOG2..=MAX_CHUNK_LOG2).contains(&self.chunk_log2) {
            return Err(SealError::BadParams(format!(
                "chunk size must be 2^{MIN_CHUNK_LOG2}..=2^{MAX_CHUNK_LOG2} bytes, not 2^{}",
                self.chunk_log2
            )));
        }
        match self.kdf {
            Kdf::Argon2id(p) => p.validate(),
            Kdf::RawKey if self.salt != [0; SALT_LEN] => Err(SealError::BadParams(
                "a raw-key header must have an all-zero salt".into(),
            )),
            Kdf::RawKey => Ok(()),
        }
    }

    /// The 56 bytes the header MAC covers (and the key derivation binds).
    pub fn encode_body(&self) -> [u8; BODY_LEN] {
        let mut b = [0u8; BODY_LEN];
        b[0..6].copy_from_slice(&MAGIC);
        b[6] = VERSION;
        b[7] = self.suite.id();
        b[8] = self.kdf.id();
        b[9] = self.chunk_log2;
        // b[10..12]: reserved, zero.
        let (m, t, p) = match self.kdf {
            Kdf::RawKey => (0, 0, 0),
            Kdf::Argon2id(a) => (a.m_kib, a.t, a.p),
        };
        b[12..16].copy_from_slice(&m.to_be_bytes());
        b[16..20].copy_from_slice(&t.to_be_bytes());
        b[20..24].copy_from_slice(&p.to_be_bytes());
        b[24..40].copy_from_slice(&self.salt);
        b[40..56].copy_from_slice(&self.nonce);
        b
    }

    /// Parses and validates a header body; the MAC is checked later, once keys exist.
    pub fn parse_body(b: &[u8; BODY_LEN]) -> Result<Self, SealError> {
        if b[0..6] != MAGIC {
            return Err(SealError::NotSealed);
        }
        if b[6] != VERSION {
            return Err(SealError::UnsupportedVersion(b[6]));
        }
        let bad = |why: String| Err(SealError::BadHeader(why));
        let suite = match SealSuite::from_id(b[7]) {
            Some(s) => s,
            None => return bad(format!("unknown suite id {}", b[7])),
        };
        if b[10..12] != [0, 0] {
            return bad("reserved bytes are not zero".into());
        }
        let word = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().unwrap());
        let (m, t, p) = (word(12), word(16), word(20));
        let kdf = match b[8] {
            0 if (m, t, p) == (0, 0, 0) => Kdf::RawKey,
            0 => return bad("a raw-key header must have zero Argon2 parameters".into()),
            1 => Kdf::Argon2id(Argon2Params { m_kib: m, t, p }),
            k => return bad(format!("unknown key derivation id {k}")),
        };
        let h = Header {
            suite,
            kdf,
            chunk_log2: b[9],
            salt: b[24..40].try_into().unwrap(),
            nonce: b[40..56].try_into().unwrap(),
        };
        h.validate().map_err(|e| match e {
            SealError::BadParams(why) => SealError::BadHeader(why),
            other => other,
        })?;
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Header {
        Header {
            suite: SealSuite::Pi64Cipher256V2,
            kdf: Kdf::Argon2id(Argon2Params {
                m_kib: 64,
                t: 1,
                p: 2,
            }),
            chunk_log2: 12,
            salt: [3; 16],
            nonce: [9; 16],
        }
    }

    #[test]
    fn body_round_trips() {
        let h = sample();
        assert_eq!(Header::parse_body(&h.encode_body()).unwrap(), h);
    }

    #[test]
    fn every_field_is_checked() {
        let good = sample().encode_body();
        let cases: &[(usize, u8, &str)] = &[
            (0, b'X', "not a bitweave sealed file"),
            (6, 2, "unsupported sealed-file version 2"),
            (7, 0, "unknown suite id 0"),
            (8, 7, "unknown key derivation id 7"),
            (8, 0, "zero Argon2 parameters"),
            (9, 9, "chunk size"),
            (9, 25, "chunk size"),
            (11, 1, "reserved"),
            (23, 0, "lanes"),
            (19, 0, "passes"),
            (12, 0x80, "memory"),
        ];
        for &(at, val, want) in cases {
            let mut b = good;
            b[at] = val;
            let err = Header::parse_body(&b).unwrap_err().to_string();
            assert!(err.contains(want), "byte {at} = {val}: {err}");
        }
    }
}
