//! bitweave: parallel block-cipher processing.
//!
//! Data flows one way: bytes → [`mode`] (which blocks are independent) → batches of
//! independent blocks → a [`BlockCipher`] backend that encrypts many blocks at once → bytes.
//! The block contract knows nothing of modes; a backend that fuses mode work into its
//! kernels (CTR counters, chains, CBC/CFB decryption) does it through the separate
//! [`ModeKernels`] trait, whose defaults are the portable loops. A mode never knows which
//! backend runs: it talks to the [`Cipher`] front type.
//!
//! ```
//! use bitweave::{Cipher, Suite, Direction};
//! let suite: Suite = "aes-128-cbc".parse().unwrap();
//! let key = [0u8; 16];
//! let iv = [0u8; 16];
//! let ct = suite.params().encrypt_all(&Cipher::new(suite.cipher, &key).unwrap(), &iv, b"hello").unwrap();
//! let pt = suite.params().decrypt_all(&Cipher::new(suite.cipher, &key).unwrap(), &iv, &ct).unwrap();
//! assert_eq!(pt, b"hello");
//! # let _ = Direction::Encrypt;
//! ```

pub mod aead;
mod bytes;
pub mod cipher;
pub mod cpu;
pub mod engine;
pub mod error;
pub mod mode;
#[cfg(unix)]
pub mod output_file;
pub mod rustcrypto;
pub mod salted;
pub mod seal;
pub mod slice;
pub mod suite;

pub use cipher::{BlockCipher, CipherKind, ModeKernels};
pub use engine::Cipher;
pub use error::{Error, Result};
pub use mode::{Crypter, Direction, Mode, ModeParams};
pub use suite::Suite;
