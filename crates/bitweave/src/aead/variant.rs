//! The six π-Cipher v2 variants: word size, key size, and what follows from them.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// A π-Cipher v2 variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PiVariant {
    Pi16Cipher096V2,
    Pi16Cipher128V2,
    Pi32Cipher128V2,
    Pi32Cipher256V2,
    Pi64Cipher128V2,
    Pi64Cipher256V2,
}

impl PiVariant {
    pub const ALL: [PiVariant; 6] = [
        PiVariant::Pi16Cipher096V2,
        PiVariant::Pi16Cipher128V2,
        PiVariant::Pi32Cipher128V2,
        PiVariant::Pi32Cipher256V2,
        PiVariant::Pi64Cipher128V2,
        PiVariant::Pi64Cipher256V2,
    ];

    /// SUPERCOP's name, e.g. `pi32cipher128v2`.
    pub fn name(self) -> &'static str {
        match self {
            PiVariant::Pi16Cipher096V2 => "pi16cipher096v2",
            PiVariant::Pi16Cipher128V2 => "pi16cipher128v2",
            PiVariant::Pi32Cipher128V2 => "pi32cipher128v2",
            PiVariant::Pi32Cipher256V2 => "pi32cipher256v2",
            PiVariant::Pi64Cipher128V2 => "pi64cipher128v2",
            PiVariant::Pi64Cipher256V2 => "pi64cipher256v2",
        }
    }

    /// Word size w in bits.
    pub fn word_bits(self) -> usize {
        match self {
            PiVariant::Pi16Cipher096V2 | PiVariant::Pi16Cipher128V2 => 16,
            PiVariant::Pi32Cipher128V2 | PiVariant::Pi32Cipher256V2 => 32,
            PiVariant::Pi64Cipher128V2 | PiVariant::Pi64Cipher256V2 => 64,
        }
    }

    /// Key length in bytes.
    pub fn key_len(self) -> usize {
        match self {
            PiVariant::Pi16Cipher096V2 => 12,
            PiVariant::Pi32Cipher256V2 | PiVariant::Pi64Cipher256V2 => 32,
            _ => 16,
        }
    }

    /// Public message number (nonce) length in bytes.
    pub fn npub_len(self) -> usize {
        if self.word_bits() == 16 {
            4
        } else {
            16
        }
    }

    /// Rate in bytes: also the length of the secret message number, of its encryption and
    /// of the tag.
    pub fn rate(self) -> usize {
        self.word_bits()
    }

    /// Secret message number length in bytes (one rate block).
    pub fn nsec_len(self) -> usize {
        self.rate()
    }

    /// Tag length in bytes (one rate block, never truncated).
    pub fn tag_len(self) -> usize {
        self.rate()
    }

    /// Ciphertext length for a message of `mlen` bytes (with an SMN).
    pub fn ciphertext_len(self, mlen: usize) -> usize {
        self.nsec_len() + mlen + self.tag_len()
    }
}

impl fmt::Display for PiVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PiVariant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.to_ascii_lowercase();
        PiVariant::ALL
            .into_iter()
            .find(|v| v.name() == lower)
            .ok_or_else(|| Error::UnknownCipher(s.to_string()))
    }
}
