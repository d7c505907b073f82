//! Shared test helpers: the one loader for the KAT files in `tests/vectors/`.
#![allow(dead_code)]

pub mod oracle;

use std::path::PathBuf;

use bitweave::Suite;
use serde::Deserialize;

/// One KAT file (schema: tests/vectors/README.md).
#[derive(Deserialize)]
pub struct VectorFile {
    pub algorithm: String,
    pub block_bytes: usize,
    pub padding: String,
    pub interleave: usize,
    pub vectors: Vec<Vector>,
    #[serde(skip)]
    pub file: String,
}

/// One known-answer vector (hex fields decoded).
#[derive(Deserialize)]
pub struct Vector {
    pub id: u32,
    #[serde(deserialize_with = "from_hex")]
    pub key: Vec<u8>,
    #[serde(deserialize_with = "from_hex")]
    pub iv: Vec<u8>,
    #[serde(deserialize_with = "from_hex")]
    pub plaintext: Vec<u8>,
    #[serde(deserialize_with = "from_hex")]
    pub ciphertext: Vec<u8>,
}

fn from_hex<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    let s = String::deserialize(d)?;
    hex::decode(s).map_err(serde::de::Error::custom)
}

impl VectorFile {
    /// The suite the file tests.
    pub fn suite(&self) -> Suite {
        self.algorithm.parse().expect("known algorithm")
    }

    /// The file's mode parameters.
    pub fn params(&self) -> bitweave::ModeParams {
        self.suite()
            .params()
            .padding(self.padding == "pkcs7")
            .interleave(self.interleave)
    }
}

/// The vectors directory.
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

/// Every block-cipher vector file (the π-Cipher files have their own schema).
pub fn block_cipher_files() -> Vec<VectorFile> {
    let mut files: Vec<_> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with("pi"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let mut f: VectorFile =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            f.file = p.file_name().unwrap().to_string_lossy().into_owned();
            f
        })
        .collect()
}
