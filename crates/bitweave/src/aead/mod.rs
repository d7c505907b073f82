//! Authenticated encryption: π-Cipher (CAESAR round 2, v2), the ARX paper's AEAD, and
//! AES-GCM ([`gcm`], for the sealed-file suite `aes-256-gcm`).
//!
//! Six variants (PI-CIPHER.md §1): 16-, 32- and 64-bit words, two key sizes each. The output
//! is SUPERCOP's: `E(nsec) || C || T`, with the encrypted secret message number and the tag
//! each one rate long (16/32/64 bytes). π runs 3 rounds, as the designers' reference (`ref2`)
//! and their published KATs do; SUPERCOP's v2 `ref` directory computes a different function.
//!
//! Backends: `ref` (the plain reference, [`pi::reference`]), `portable` (the scalar π one
//! state at a time, with the lane engine's savings), `avx2` and `avx512` (the whole-step
//! kernel of that width for runs of one message's blocks — AVX-512's rest through AVX2's —
//! and the AVX2 lane engine for everything else, chosen at run time). Every backend computes the same bytes;
//! the tests hold each fast path to the reference.
//!
//! ```
//! use bitweave::aead::{PiCipher, PiVariant};
//! let v: PiVariant = "pi32cipher128v2".parse().unwrap();
//! let pi = PiCipher::new(v, &[7; 16]).unwrap();
//! let c = pi.encrypt(&[1; 16], &[2; 32], b"header", b"hello").unwrap();
//! assert_eq!(c.len(), 32 + 5 + 32);
//! let opened = pi.decrypt(&[1; 16], b"header", &c).unwrap();
//! assert_eq!(&opened.plaintext[..], b"hello");
//! assert_eq!(&opened.nsec[..], &[2; 32]);
//! ```
#![deny(unsafe_code)]

pub mod gcm;
#[doc(hidden)]
pub mod pi;
mod stream;

mod backend;
mod front;
mod variant;

pub use crate::bytes::SecretVec;
pub use backend::PiBackend;
pub use front::{tags_equal, Ciphertext, Message, Opened, PiCipher};
pub use stream::{Opener, Opening, Sealer, Sealing};
pub use variant::PiVariant;
