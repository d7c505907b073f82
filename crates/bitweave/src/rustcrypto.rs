//! The RustCrypto `cipher` 0.5 traits over bitweave's engines, so the RustCrypto mode crates
//! (`cbc`, `ctr`, `cfb-mode`, `ofb`, ...) can drive bitweave's AES, DES/3DES and SEED.
//!
//! Each type keys a [`Cipher`] on the best backend this CPU can run (VAES, bitsliced,
//! GFNI, ...; `BITWEAVE_BACKEND` overrides as everywhere) and declares a `ParBlocksSize` as
//! wide as that cipher's widest engine, so modes that batch blocks (CTR keystream, CBC
//! decryption) hand the engine a full batch per call. A serial mode (CBC encryption) feeds
//! one block at a time: that is the chain's nature, and what [`crate::mode`]'s interleaved
//! modes exist to avoid.
//!
//! ```
//! use bitweave::rustcrypto::{traits::{BlockCipherEncrypt, KeyInit}, Aes128};
//! let aes = Aes128::new(&[0u8; 16].into());
//! let mut block = [0u8; 16].into();
//! aes.encrypt_block(&mut block);
//! assert_eq!(block[0], 0x66); // FIPS-197: AES-128 of zeros under the zero key
//! ```

use core::fmt;

pub use rustcrypto_cipher as traits;
use rustcrypto_cipher::consts::{U16, U24, U32, U512, U64, U8};
use rustcrypto_cipher::{
    AlgorithmName, Array, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut,
    InOutBuf, Key, KeyInit, KeySizeUser, ParBlocks, ParBlocksSizeUser,
};

use crate::{BlockCipher, Cipher, CipherKind};

/// The blocks of an in/out buffer as one byte slice for one engine call: the output, with
/// the input copied in first when the two differ.
fn out_bytes<'o, B: BlockSizeUser>(blocks: InOutBuf<'_, 'o, Block<B>>) -> &'o mut [u8]
where
    Block<B>: Copy,
{
    Array::slice_as_flattened_mut(blocks.into_out_with_copied_in())
}

macro_rules! rustcrypto_type {
    ($name:ident, $kind:expr, $key:ty, $block:ty, $par:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone)]
        pub struct $name {
            inner: Cipher,
        }

        impl $name {
            /// The bitweave engine behind this type (for its backend name, or bitweave's own
            /// modes on the same key schedule).
            pub fn engine(&self) -> &Cipher {
                &self.inner
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $key;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                let inner = Cipher::new($kind, key.as_slice())
                    .expect("the key length is fixed by the type");
                Self { inner }
            }
        }

        impl BlockSizeUser for $name {
            type BlockSize = $block;
        }

        impl ParBlocksSizeUser for $name {
            type ParBlocksSize = $par;
        }

        impl AlgorithmName for $name {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($kind.name())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "{} {{ backend: {} }}",
                    stringify!($name),
                    self.inner.backend()
                )
            }
        }

        impl BlockCipherEncBackend for $name {
            fn encrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
                self.inner.encrypt_blocks(block.into_out_with_copied_in());
            }
            fn encrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                self.inner
                    .encrypt_blocks(out_bytes::<Self>(blocks.into_buf()));
            }
            fn encrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                self.inner.encrypt_blocks(out_bytes::<Self>(blocks));
            }
        }

        impl BlockCipherDecBackend for $name {
            fn decrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
                self.inner.decrypt_blocks(block.into_out_with_copied_in());
            }
            fn decrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                self.inner
                    .decrypt_blocks(out_bytes::<Self>(blocks.into_buf()));
            }
            fn decrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                self.inner.decrypt_blocks(out_bytes::<Self>(blocks));
            }
        }

        impl BlockCipherEncrypt for $name {
            fn encrypt_with_backend(
                &self,
                f: impl BlockCipherEncClosure<BlockSize = Self::BlockSize>,
            ) {
                f.call(self)
            }
        }

        impl BlockCipherDecrypt for $name {
            fn decrypt_with_backend(
                &self,
                f: impl BlockCipherDecClosure<BlockSize = Self::BlockSize>,
            ) {
                f.call(self)
            }
        }
    };
}

rustcrypto_type!(
    Aes128,
    CipherKind::Aes128,
    U16,
    U16,
    U32,
    "AES-128 (FIPS-197) on bitweave's best AES engine."
);
rustcrypto_type!(
    Aes192,
    CipherKind::Aes192,
    U24,
    U16,
    U32,
    "AES-192 (FIPS-197) on bitweave's best AES engine."
);
rustcrypto_type!(
    Aes256,
    CipherKind::Aes256,
    U32,
    U16,
    U32,
    "AES-256 (FIPS-197) on bitweave's best AES engine."
);
rustcrypto_type!(
    Des,
    CipherKind::Des,
    U8,
    U8,
    U512,
    "DES (FIPS 46-3, legacy) on bitweave's bitsliced engine."
);
rustcrypto_type!(
    TdesEde2,
    CipherKind::DesEde,
    U16,
    U8,
    U512,
    "Two-key triple DES (legacy) on bitweave's bitsliced engine."
);
rustcrypto_type!(
    TdesEde3,
    CipherKind::DesEde3,
    U24,
    U8,
    U512,
    "Three-key triple DES (SP 800-67) on bitweave's bitsliced engine."
);
rustcrypto_type!(
    Seed,
    CipherKind::Seed,
    U16,
    U16,
    U64,
    "SEED (RFC 4269) on bitweave's GFNI or constant-time engine."
);
