//! What can go wrong sealing or opening: each failure has its own message, and none of them
//! prints a secret.

use std::io;

/// A failure of [`super::seal`] or [`super::open`].
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("unknown suite '{0}' (aes-256-ctr-hmac-sha256, pi64cipher256v2, pi32cipher256v2)")]
    UnknownSuite(String),
    #[error("invalid parameters: {0}")]
    BadParams(String),
    #[error("not a bitweave sealed file (bad magic bytes)")]
    NotSealed,
    #[error("unsupported sealed-file version {0} (this build reads version 1)")]
    UnsupportedVersion(u8),
    #[error("invalid header: {0}")]
    BadHeader(String),
    #[error("truncated: the input ends inside the header")]
    TruncatedHeader,
    #[error("this file was sealed with a passphrase; give a passphrase, not a key file")]
    NeedPassphrase,
    #[error("this file was sealed with a key file; give the key file, not a passphrase")]
    NeedKey,
    #[error("wrong passphrase or key, or the header was altered (header authentication failed)")]
    WrongKey,
    #[error("chunk {0} failed authentication: the data was altered, reordered or spliced")]
    ChunkAuth(u64),
    #[error("chunk {0} failed authentication: it is shorter than a full chunk, so the input was cut inside it (or the data was altered)")]
    CutOrAltered(u64),
    #[error("truncated: chunk {0} is authentic but is not the last one; the rest is missing")]
    Truncated(u64),
    #[error("truncated: the input ends inside the tag of chunk {0}")]
    TruncatedTag(u64),
    #[error("extra data after the final chunk ({0})")]
    TrailingData(u64),
    #[error("key derivation failed: {0}")]
    Kdf(String),
    #[error("no random numbers from the operating system: {0}")]
    Random(String),
    #[error(transparent)]
    Cipher(#[from] crate::Error),
    #[error("read failed: {0}")]
    Read(#[source] io::Error),
    #[error("write failed: {0}")]
    Write(#[source] io::Error),
}
