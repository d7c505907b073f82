//! Modes of operation (NIST SP 800-38A): ECB, CBC, CFB1, CFB8, full-block CFB, OFB, CTR,
//! plus interleaving and multi-stream processing.
//!
//! A mode only decides which blocks are independent and hands them to the backend in
//! batches; it never knows which backend runs. Each mode declares its parallelism:
//! - ECB, CTR, and CBC/CFB **decryption** are parallel over the whole input;
//! - CBC/CFB encryption and OFB are serial chains; interleaving N chains (DESIGN.md,
//!   "Interleaving") makes each step a contiguous *row* of N independent blocks, so the
//!   backend gets batches of N; multi-stream does the same across K messages;
//! - CFB8/CFB1 advance one byte or bit per cipher call; multi-stream batches K of them.
//!
//! [`Crypter`] is the incremental (update/finish) interface; [`ModeParams::encrypt_all`]
//! and [`ModeParams::decrypt_all`] are one-shot; [`multi`] runs K messages together.

use std::fmt;
use std::str::FromStr;

use crate::cipher::BlockCipher;
use crate::engine::Cipher;

use crate::error::{Error, Result};

mod cfb_bits;
mod chain;
mod crypter;
mod ctr;
pub mod multi;
#[doc(hidden)]
pub mod padding;

pub use crypter::Crypter;

/// A mode of operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Ecb,
    Cbc,
    /// Full-block CFB (CFB128 for AES/SEED, CFB64 for the DES family).
    Cfb,
    Cfb8,
    Cfb1,
    Ofb,
    /// CTR with the whole block as a big-endian counter, +1 per block, wrapping.
    Ctr,
}

impl Mode {
    /// Every mode, in listing order.
    pub const ALL: [Mode; 7] = [
        Mode::Ecb,
        Mode::Cbc,
        Mode::Cfb,
        Mode::Cfb8,
        Mode::Cfb1,
        Mode::Ofb,
        Mode::Ctr,
    ];

    /// OpenSSL's suffix for the mode.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Ecb => "ecb",
            Mode::Cbc => "cbc",
            Mode::Cfb => "cfb",
            Mode::Cfb8 => "cfb8",
            Mode::Cfb1 => "cfb1",
            Mode::Ofb => "ofb",
            Mode::Ctr => "ctr",
        }
    }

    /// ECB and CBC work on whole blocks (and may pad); the others are stream modes that
    /// accept any length.
    pub fn whole_blocks(self) -> bool {
        matches!(self, Mode::Ecb | Mode::Cbc)
    }

    /// Whether the mode takes an IV (all but ECB).
    pub fn takes_iv(self) -> bool {
        self != Mode::Ecb
    }

    /// Whether N-way interleaving is defined for the mode (cbc, full-block cfb, ofb).
    pub fn interleavable(self) -> bool {
        matches!(self, Mode::Cbc | Mode::Cfb | Mode::Ofb)
    }

    /// Whether each block waits for the one before when running `direction` with
    /// `interleave` chains: CBC and CFB encryption and OFB of one chain, CFB8 and CFB1
    /// encryption. Such work runs on [`crate::Cipher::serial_backend`].
    pub fn is_serial(self, direction: Direction, interleave: usize) -> bool {
        match self {
            Mode::Ofb => interleave == 1,
            Mode::Cbc | Mode::Cfb => interleave == 1 && direction == Direction::Encrypt,
            Mode::Cfb8 | Mode::Cfb1 => direction == Direction::Encrypt,
            Mode::Ecb | Mode::Ctr => false,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s.to_ascii_lowercase())
            .ok_or_else(|| Error::UnknownCipher(s.to_string()))
    }
}

/// Encrypt or decrypt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

impl Direction {
    /// `enc` or `dec`, as the CLI and bench name them.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Encrypt => "enc",
            Direction::Decrypt => "dec",
        }
    }
}

/// What decides a mode's output bytes: the mode, its interleave factor N and whether
/// PKCS#7 padding is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModeParams {
    pub mode: Mode,
    /// Interleave factor N ≥ 1 (1 = the standard mode).
    pub interleave: usize,
    /// PKCS#7 padding (ECB and CBC only).
    pub padding: bool,
}

impl ModeParams {
    /// The mode's defaults: N = 1, PKCS#7 on for ECB/CBC, off for the stream modes. (How
    /// many threads run a call is the cipher's setting, [`Cipher::with_threads`]: it never
    /// changes the output.)
    pub fn new(mode: Mode) -> Self {
        ModeParams {
            mode,
            interleave: 1,
            padding: mode.whole_blocks(),
        }
    }

    /// Sets the interleave factor.
    pub fn interleave(mut self, n: usize) -> Self {
        self.interleave = n;
        self
    }

    /// Turns PKCS#7 padding on or off.
    pub fn padding(mut self, on: bool) -> Self {
        self.padding = on;
        self
    }

    /// Checks the combination: N ≥ 1, N > 1 only for cbc/cfb/ofb, padding only for ecb/cbc.
    pub fn validate(&self) -> Result<()> {
        if self.interleave == 0 {
            return Err(Error::ZeroInterleave);
        }
        if self.interleave > 1 && !self.mode.interleavable() {
            return Err(Error::InterleaveUnsupported(self.mode.name()));
        }
        if self.padding && !self.mode.whole_blocks() {
            return Err(Error::PaddingUnsupported(self.mode.name()));
        }
        Ok(())
    }

    /// IV length in bytes for a cipher with `block` byte blocks: 0 for ECB, N blocks else.
    pub fn iv_len(&self, block: usize) -> usize {
        if self.mode.takes_iv() {
            // Saturating: an absurd N gives an IV-length error, never an overflow.
            self.interleave.saturating_mul(block)
        } else {
            0
        }
    }

    /// Starts an incremental encryption or decryption.
    pub fn crypter(&self, cipher: &Cipher, direction: Direction, iv: &[u8]) -> Result<Crypter> {
        Crypter::new(cipher.clone(), *self, direction, iv)
    }

    /// One-shot encryption.
    pub fn encrypt_all(&self, cipher: &Cipher, iv: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        self.run_all(cipher, Direction::Encrypt, iv, data)
    }

    /// One-shot decryption.
    pub fn decrypt_all(&self, cipher: &Cipher, iv: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        self.run_all(cipher, Direction::Decrypt, iv, data)
    }

    fn run_all(&self, cipher: &Cipher, dir: Direction, iv: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        let mut c = self.crypter(cipher, dir, iv)?;
        let mut out = Vec::with_capacity(data.len() + cipher.block_size());
        c.update(data, &mut out);
        c.finish(&mut out)?;
        Ok(out)
    }
}
