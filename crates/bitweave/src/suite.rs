//! Cipher-suite names as OpenSSL spells them: `aes-128-cbc`, `des-ede3` (ECB), `seed-ofb`, ...

use std::fmt;
use std::str::FromStr;

use crate::cipher::CipherKind;
use crate::error::{Error, Result};
use crate::mode::{Mode, ModeParams};

/// A cipher with a mode of operation, e.g. `aes-256-ctr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Suite {
    pub cipher: CipherKind,
    pub mode: Mode,
}

impl Suite {
    /// Every suite bitweave implements (every cipher in every mode), in listing order.
    pub fn all() -> Vec<Suite> {
        CipherKind::ALL
            .iter()
            .flat_map(|&cipher| Mode::ALL.iter().map(move |&mode| Suite { cipher, mode }))
            .collect()
    }

    /// The mode parameters with this mode's defaults (interleave 1, PKCS#7 for ecb/cbc).
    pub fn params(&self) -> ModeParams {
        ModeParams::new(self.mode)
    }

    /// OpenSSL's name for the same operation, when OpenSSL has one.
    pub fn openssl_name(&self) -> Option<String> {
        let has = match (self.cipher, self.mode) {
            (_, Mode::Ctr) => matches!(
                self.cipher,
                CipherKind::Aes128 | CipherKind::Aes192 | CipherKind::Aes256
            ),
            (CipherKind::DesEde, Mode::Cfb8 | Mode::Cfb1) => false,
            (CipherKind::Seed, Mode::Cfb8 | Mode::Cfb1) => false,
            _ => true,
        };
        has.then(|| self.to_string())
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.cipher.name(), self.mode.name())
    }
}

impl FromStr for Suite {
    type Err = Error;

    /// Accepts `<cipher>-<mode>` and OpenSSL's short aliases (`des` = des-cbc,
    /// `des3` = des-ede3-cbc, `des-ede`/`des-ede3` = ECB, `seed` = seed-cbc,
    /// `aes128` = aes-128-cbc, ...). Case-insensitive. Parsed in place, without
    /// allocating: a one-shot call from Python parses its suite every time, and listing
    /// and formatting every suite to compare names was a tenth of a 16-byte call.
    fn from_str(s: &str) -> Result<Self> {
        const ALIASES: [(&str, &str); 8] = [
            ("des", "des-cbc"),
            ("des3", "des-ede3-cbc"),
            ("des-ede", "des-ede-ecb"),
            ("des-ede3", "des-ede3-ecb"),
            ("seed", "seed-cbc"),
            ("aes128", "aes-128-cbc"),
            ("aes192", "aes-192-cbc"),
            ("aes256", "aes-256-cbc"),
        ];
        let name = ALIASES
            .iter()
            .find(|(alias, _)| alias.eq_ignore_ascii_case(s))
            .map_or(s, |(_, name)| name);
        // Mode names have no '-', so the mode is what follows the last one.
        name.rsplit_once('-')
            .and_then(|(cipher, mode)| {
                let named = |n: &str, want: &str| n.eq_ignore_ascii_case(want);
                Some(Suite {
                    cipher: *CipherKind::ALL.iter().find(|k| named(k.name(), cipher))?,
                    mode: *Mode::ALL.iter().find(|m| named(m.name(), mode))?,
                })
            })
            .ok_or_else(|| Error::UnknownCipher(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_aliases() {
        let s: Suite = "AES-128-CFB8".parse().unwrap();
        assert_eq!((s.cipher, s.mode), (CipherKind::Aes128, Mode::Cfb8));
        let s: Suite = "des-ede3".parse().unwrap();
        assert_eq!((s.cipher, s.mode), (CipherKind::DesEde3, Mode::Ecb));
        let s: Suite = "des-ede-cbc".parse().unwrap();
        assert_eq!((s.cipher, s.mode), (CipherKind::DesEde, Mode::Cbc));
        assert!("aes-512-cbc".parse::<Suite>().is_err());
        assert!("des-ede3-".parse::<Suite>().is_err());
        assert!("ctr".parse::<Suite>().is_err());
        assert!("aes-128".parse::<Suite>().is_err());
        assert!("aes-128-ctr-ctr".parse::<Suite>().is_err());
        // Every suite's own name parses back to it.
        for suite in Suite::all() {
            assert_eq!(suite.to_string().parse::<Suite>().unwrap(), suite);
            let upper = suite.to_string().to_ascii_uppercase();
            assert_eq!(upper.parse::<Suite>().unwrap(), suite, "{upper}");
        }
    }
}
