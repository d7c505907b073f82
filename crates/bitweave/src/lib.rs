//! bitweave: parallel block-cipher processing.
//!
//! Data flows one way: bytes → [`mode`] (which blocks are independent) → batches of
//! independent blocks → a [`BlockCipher`] backend that encrypts many blocks at once → bytes.
//! A backend never knows about modes; a mode never knows which backend runs.
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

pub use cipher::{BlockCipher, CipherKind};
pub use engine::Cipher;
pub use error::{Error, Result};
pub use mode::{Crypter, Direction, Mode, ModeParams};
pub use suite::Suite;
