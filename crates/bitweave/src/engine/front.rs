//! The front type users hold: a keyed cipher whose backends the registry chose, one for
//! batches of independent blocks and one for serial work, each call handed to the one
//! that fits its shape.

use std::fmt;
use std::sync::{Arc, OnceLock};

use zeroize::Zeroizing;

use super::registry::{self, BackendInfo, Shape};
use crate::cipher::{BlockCipher, CipherKind, Feedback, ModeKernels};
use crate::error::Result;

/// A keyed cipher on chosen backends: the front type users hold.
///
/// It holds the best backend for batches of independent blocks and the best for serial
/// work (often the same one) and hands each call to the one that fits its shape: one
/// chain, CFB8/CFB1, and calls of (or interleaved chains as many as) at most the serial
/// backend's [`BackendInfo::serial_blocks`] blocks go to the serial one.
/// When the two differ, each is keyed on the first call that needs it.
/// Cheap to clone (the keyed backends are shared), so the same key schedule can serve
/// several streams or threads; [`with_threads`](Self::with_threads) sets how many
/// threads a large call spreads over.
#[derive(Clone)]
pub struct Cipher {
    kind: CipherKind,
    /// The batch backend's name and width (what [`BlockCipher`] reports).
    batch_name: &'static str,
    batch_width: usize,
    backends: Backends,
    /// The cipher's block size, and the largest call of independent blocks that goes to
    /// the serial backend ([`BackendInfo::serial_blocks`] blocks): kept here so a small
    /// call reaches its backend with one indirect call, not three.
    block_size: usize,
    serial_bytes: usize,
    /// Threads a large call spreads over (0 = all cores): how the work runs, never what
    /// it outputs, so it lives here rather than in the mode's parameters.
    threads: usize,
}

/// The keyed backends behind a [`Cipher`].
#[derive(Clone)]
enum Backends {
    /// One backend serves both shapes (AES's, or one the caller named), keyed at once: no
    /// second allocation, lock or once-cell for a cipher that has one backend.
    One(Arc<dyn ModeKernels>),
    /// A serial and a batch backend, each keyed on first use.
    Two(Arc<Pair>),
}

/// Two backends of one key, each keyed on the first call that needs it: a call of a few
/// blocks or one chain never needs the batch backend, a large call of independent blocks
/// never needs the serial one, and keying the unused one costs more than either call —
/// the bitsliced DES key schedule broadcasts every round-key bit to a plane (AMD Zen 4,
/// `Cipher::new` and a 64-byte one-shot call keying both backends: 3DES 13.5 µs, DES 9.1,
/// SEED 3.0; AES, whose two backends are one, 1.4).
struct Pair {
    /// The key, kept until both backends may have been keyed from it (wiped on drop).
    key: Zeroizing<Vec<u8>>,
    serial: Lazy,
    batch: Lazy,
}

/// A registered backend, keyed on first use.
struct Lazy {
    info: BackendInfo,
    keyed: OnceLock<Arc<dyn ModeKernels>>,
}

impl Lazy {
    fn new(info: BackendInfo) -> Self {
        Lazy {
            info,
            keyed: OnceLock::new(),
        }
    }

    fn get(&self, key: &[u8]) -> &dyn ModeKernels {
        &**self.keyed.get_or_init(|| {
            let built = self.info.build(key);
            debug_assert_eq!(built.width(), self.info.width, "{}", self.info.name);
            built
        })
    }
}

impl Cipher {
    /// Keys `kind` on the best backend this CPU can run (or the one named by the
    /// `BITWEAVE_BACKEND` environment variable, when it implements `kind`).
    pub fn new(kind: CipherKind, key: &[u8]) -> Result<Self> {
        Self::with_backend(kind, key, None)
    }

    /// Keys `kind` on the named backend, or on the best one when `backend` is `None`.
    /// A named backend that this CPU cannot run is an error, never a silent fallback.
    /// A named backend serves every shape of work.
    pub fn with_backend(kind: CipherKind, key: &[u8], backend: Option<&str>) -> Result<Self> {
        kind.check_key(key)?;
        let info = registry::select_for(kind, backend, Shape::Batch)?;
        let serial_info = registry::select_for(kind, backend, Shape::Serial)?;
        let backends = if serial_info.name == info.name {
            Backends::One(info.build(key))
        } else {
            Backends::Two(Arc::new(Pair {
                key: Zeroizing::new(key.to_vec()),
                serial: Lazy::new(serial_info),
                batch: Lazy::new(info),
            }))
        };
        Ok(Cipher {
            kind,
            batch_name: info.name,
            batch_width: info.width,
            backends,
            block_size: kind.block_size(),
            serial_bytes: serial_info.serial_blocks * kind.block_size(),
            threads: 0,
        })
    }

    /// The same keyed cipher, spreading large calls over `n` threads (0 = all cores, the
    /// default; 1 = the calling thread only). The output does not depend on it.
    pub fn with_threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }

    /// The thread setting (0 = all cores).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Which cipher this is.
    pub fn kind(&self) -> CipherKind {
        self.kind
    }

    /// Whether serial work has a backend of its own beside the batch one (DES, 3DES and
    /// SEED by default): there a block alone costs a serial kernel's latency, which a
    /// batch call of a few blocks shares.
    pub(crate) fn has_serial_backend(&self) -> bool {
        matches!(self.backends, Backends::Two(_))
    }

    /// The backend that runs serial work (see the type's doc); [`BlockCipher::backend`]
    /// names the one for batches.
    pub fn serial_backend(&self) -> &'static str {
        match &self.backends {
            Backends::One(one) => one.backend(),
            Backends::Two(pair) => pair.serial.info.name,
        }
    }

    /// The backend that runs a call on `bytes` bytes of independent blocks (ECB, CTR,
    /// CBC/CFB decryption): the serial one up to its [`BackendInfo::serial_blocks`] blocks.
    pub fn blocks_backend(&self, bytes: usize) -> &'static str {
        self.for_blocks(bytes).backend_for(bytes)
    }

    /// The backend that runs `n` interleaved chains, a row of `n` blocks at a time.
    pub fn chains_backend(&self, n: usize) -> &'static str {
        let row = n * self.block_size;
        self.for_chains(row).backend_for(row)
    }

    /// The batch backend (keyed now if it was not yet).
    #[inline]
    fn batch(&self) -> &dyn ModeKernels {
        match &self.backends {
            Backends::One(one) => &**one,
            Backends::Two(pair) => pair.batch.get(&pair.key),
        }
    }

    /// The serial backend (keyed now if it was not yet).
    #[inline]
    fn serial(&self) -> &dyn ModeKernels {
        match &self.backends {
            Backends::One(one) => &**one,
            Backends::Two(pair) => pair.serial.get(&pair.key),
        }
    }

    /// The backend for a call on `bytes` bytes of independent blocks.
    #[inline]
    fn for_blocks(&self, bytes: usize) -> &dyn ModeKernels {
        if bytes <= self.serial_bytes {
            self.serial()
        } else {
            self.batch()
        }
    }

    /// The backend for chains whose feedback blocks are `state` bytes: one chain is
    /// serial, and so are as many chains as a call of independent blocks that goes to
    /// the serial backend, since each row of them is such a call.
    #[inline]
    fn for_chains(&self, state: usize) -> &dyn ModeKernels {
        if state <= self.block_size {
            self.serial()
        } else {
            self.for_blocks(state)
        }
    }
}

impl fmt::Debug for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cipher")
            .field("kind", &self.kind)
            .field("backend", &self.batch_name)
            .finish_non_exhaustive()
    }
}

impl BlockCipher for Cipher {
    #[inline]
    fn block_size(&self) -> usize {
        self.block_size
    }
    #[inline]
    fn width(&self) -> usize {
        self.batch_width
    }
    #[inline]
    fn backend(&self) -> &'static str {
        self.batch_name
    }
    #[inline]
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        self.for_blocks(blocks.len()).encrypt_blocks(blocks)
    }
    #[inline]
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        self.for_blocks(blocks.len()).decrypt_blocks(blocks)
    }
}

impl ModeKernels for Cipher {
    #[inline]
    fn encrypt_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        self.for_chains(state.len())
            .encrypt_chains(feedback, state, data)
    }
    #[inline]
    fn encrypt_chain_rows(&self, feedback: Feedback, state: &mut [u8], rows: &mut [&mut [u8]]) {
        self.for_chains(state.len())
            .encrypt_chain_rows(feedback, state, rows)
    }
    #[inline]
    fn min_streamed_share(&self) -> usize {
        self.batch().min_streamed_share()
    }
    #[inline]
    fn cfb8_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        self.serial().cfb8_encrypt(reg, data)
    }
    #[inline]
    fn cfb1_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        self.serial().cfb1_encrypt(reg, data)
    }
    #[inline]
    fn ctr_keystream_xor(&self, counter: &mut [u8], data: &mut [u8]) {
        self.for_blocks(data.len()).ctr_keystream_xor(counter, data)
    }
    #[inline]
    fn cbc_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        self.for_blocks(data.len()).cbc_decrypt_rows(prev, data)
    }
    #[inline]
    fn cfb_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        self.for_blocks(data.len()).cfb_decrypt_rows(prev, data)
    }
}
