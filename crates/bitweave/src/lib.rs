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
//!
//! `unsafe` lives only in the modules that say `#![allow(unsafe_code)]` — the SIMD kernels
//! and the dispatch into them — and each operation it covers, inside an `unsafe fn` too, is
//! in a block with a `SAFETY:` note.
#![deny(
    unsafe_code,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]

pub mod aead;
mod bytes;
mod cipher;
pub mod cpu;
mod engine;
pub mod error;
pub mod mode;
#[cfg(unix)]
pub mod output_file;
#[cfg(feature = "rustcrypto")]
pub mod rustcrypto;
pub mod salted;
#[cfg(feature = "seal")]
pub mod seal;
mod slice;
pub mod suite;

pub use bytes::SecretVec;
pub use cipher::{BlockCipher, CipherKind, ModeKernels};
pub use engine::Cipher;
pub use error::{Error, Result};
pub use mode::{Crypter, Direction, Mode, ModeParams};
pub use suite::Suite;

/// The internals bitweave's own tools reach into — the architecture models (individual
/// backends and bit-plane types), the constant-time checks, the fuzz targets and the
/// bench (the registry, the multi-core driver): no stability promise, not part of the
/// documented API. Everything a user needs is re-exported at the crate root or lives in
/// the public modules ([`mode`], [`aead`], [`seal`], [`salted`], [`cpu`]).
#[doc(hidden)]
pub mod hazmat {
    pub use crate::aead::pi;
    pub use crate::bytes::copy;
    pub use crate::cipher::{add_be, aes, des, prefetch_ahead, seed, Feedback, STREAMED_BYTES};
    pub use crate::engine::{parallel, registry, split};
    pub use crate::mode::padding;

    /// Bit planes: the gate interface the MX-1 model runs circuits through, the
    /// transpositions, and circuit synthesis (for the sliced tests).
    pub mod slice {
        pub use crate::slice::{
            blocks16_from_planes, blocks8_from_planes, planes_from_blocks16, planes_from_blocks8,
            synth, synth2, Logic,
        };
    }
}
