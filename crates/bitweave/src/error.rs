//! The one error type of the library: each failure a user can cause has its own message.
//! Messages name no front end's flags or commands: the CLI and the Python package add
//! their own hints (where to list the names, which flag gives the IV).

/// Everything that can go wrong when setting up or running a cipher.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("unknown cipher '{0}'")]
    UnknownCipher(String),
    #[error("wrong key length for {cipher}: expected {expected} bytes, got {got}")]
    KeyLength {
        cipher: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("wrong IV length for {suite}: expected {expected} bytes, got {got}")]
    IvLength {
        suite: String,
        expected: usize,
        got: usize,
    },
    #[error("{0} needs an IV")]
    MissingIv(String),
    #[error("interleave factor must be at least 1")]
    ZeroInterleave,
    #[error("interleaving applies to cbc, cfb and ofb only, not {0}")]
    InterleaveUnsupported(&'static str),
    #[error("padding applies to ecb and cbc only, not {0}")]
    PaddingUnsupported(&'static str),
    #[error("input length {len} is not a whole number of {block}-byte blocks")]
    NotWholeBlocks { len: u64, block: usize },
    #[error("bad decrypt: padding is invalid (wrong key or IV, or corrupted input)")]
    BadPadding,
    #[error("unknown backend '{0}'")]
    UnknownBackend(String),
    #[error("backend '{backend}' does not implement {cipher}")]
    BackendNotForCipher {
        backend: String,
        cipher: &'static str,
    },
    #[error("{0}")]
    CpuCap(String),
    #[error("backend '{backend}' cannot run on this CPU (needs {needs})")]
    BackendUnavailable { backend: String, needs: String },
    #[error("multi-stream call has {ivs} IVs for {messages} messages")]
    StreamCount { ivs: usize, messages: usize },
    #[error("multi-stream call has {outputs} output buffers for {messages} messages")]
    OutputCount { outputs: usize, messages: usize },
    #[error("output buffer {index} is {got} bytes; its message needs exactly {expected}")]
    OutputLength {
        index: usize,
        expected: usize,
        got: usize,
    },
    #[error("wrong public message number (npub) length for {variant}: expected {expected} bytes, got {got}")]
    NpubLength {
        variant: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("wrong secret message number (nsec) length for {variant}: expected {expected} bytes, got {got}")]
    NsecLength {
        variant: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("ciphertext too short for {variant}: {got} bytes, but the encrypted nsec and tag alone take {min}")]
    CiphertextTooShort {
        variant: &'static str,
        min: usize,
        got: usize,
    },
    #[error(
        "AES-GCM message of {len} bytes is too long: one nonce covers at most 2^36 - 32 bytes"
    )]
    GcmTooLong { len: u64 },
    #[error("authentication failed: tag mismatch (wrong key, nonce or data, or tampering)")]
    TagMismatch,
    /// OpenSSL's password-based `Salted__` format: a bad header or digest name.
    #[error("{0}")]
    Salted(String),
    #[error(
        "in-place update needs whole {unit}-byte units, no input pending and no padding held back"
    )]
    InPlaceUnavailable { unit: usize },
}

/// Result with the library's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
