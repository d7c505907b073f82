//! Sealed files: authenticated, streaming, versioned encryption of a byte stream under a
//! passphrase (Argon2id) or a 32-byte key. The format is specified in
//! `docs/SEALED-FORMAT.md`; in short: an 88-byte header (suite, KDF parameters, salt, a
//! per-file nonce, a header MAC), then fixed-size chunks, each `ciphertext ‖ tag`,
//! authenticated with its index and a last-chunk flag (the STREAM construction of age and
//! libsodium's secretstream), so truncation, extension, reordering and splicing all fail.
//!
//! Chunks of a window (a few per core) are sealed or opened in parallel on rayon and
//! written in order, so memory stays constant whatever the input size.
//!
//! ```
//! use bitweave::seal::{open, seal, OpenOptions, SealOptions, Secret};
//! let key = Secret::key([7; 32]);
//! let mut sealed = Vec::new();
//! seal(&b"hello"[..], &mut sealed, &key, &SealOptions::default()).unwrap();
//! let mut plain = Vec::new();
//! open(&sealed[..], &mut plain, &key, &OpenOptions::default()).unwrap();
//! assert_eq!(plain, b"hello");
//! ```
//!
//! [`open`] writes each window of chunks only after all of them authenticated; if a later
//! chunk fails, the bytes already written are authentic but incomplete, so a caller writing
//! to a file must discard it on error (the CLI writes a temporary file and renames it on
//! success).
#![deny(unsafe_code)]

mod chunk;
mod error;
mod header;
mod keys;

use std::io::{self, Read, Write};

use rayon::prelude::*;

pub use chunk::{ctr_block, pi_nonce};
pub use error::SealError;
pub use header::{
    Argon2Params, Header, Kdf, SealSuite, BODY_LEN, DEFAULT_CHUNK_LOG2, HEADER_LEN, MAGIC,
    MAX_ARGON2_M_KIB, MAX_ARGON2_P, MAX_ARGON2_T, MAX_CHUNK_LOG2, MIN_CHUNK_LOG2, SALT_LEN,
    VERSION,
};
pub use keys::{FileKeys, Secret, KEY_LEN};

use chunk::{wipe, ChunkCipher};

/// Chunks in flight per thread: enough to keep every core busy while the window's slowest
/// chunk finishes, few enough that memory stays a few MiB.
const CHUNKS_PER_THREAD: usize = 4;

/// How to seal.
#[derive(Clone, Debug)]
pub struct SealOptions {
    pub suite: SealSuite,
    /// Plaintext bytes per chunk as a power of two ([`MIN_CHUNK_LOG2`]..=[`MAX_CHUNK_LOG2`]).
    pub chunk_log2: u8,
    /// Argon2id costs, used when the secret is a passphrase.
    pub argon2: Argon2Params,
    /// Worker threads (0 = all cores); the output never depends on it.
    pub threads: usize,
}

impl Default for SealOptions {
    /// AES-256-CTR + HMAC-SHA-256 (the fastest engine here, and the most reviewed
    /// construction), 1 MiB chunks, RFC 9106's 64 MiB / 3 passes / 4 lanes.
    fn default() -> Self {
        SealOptions {
            suite: SealSuite::Aes256CtrHmacSha256,
            chunk_log2: DEFAULT_CHUNK_LOG2,
            argon2: Argon2Params::default(),
            threads: 0,
        }
    }
}

/// How to open.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// Worker threads (0 = all cores).
    pub threads: usize,
}

/// Seals `input` into `output` with fresh random salt and nonce. Returns the plaintext
/// length.
pub fn seal<R: Read, W: Write>(
    input: R,
    output: W,
    secret: &Secret,
    opts: &SealOptions,
) -> Result<u64, SealError> {
    let kdf = match secret {
        Secret::Passphrase(_) => Kdf::Argon2id(opts.argon2),
        Secret::Key(_) => Kdf::RawKey,
    };
    let header = Header::random(opts.suite, kdf, opts.chunk_log2)?;
    seal_with_header(input, output, secret, &header, opts.threads)
}

/// Seals under a given header (fixed salt and nonce: test vectors). A header must never be
/// reused with the same secret for different data.
pub fn seal_with_header<R: Read, W: Write>(
    mut input: R,
    mut output: W,
    secret: &Secret,
    header: &Header,
    threads: usize,
) -> Result<u64, SealError> {
    header.validate()?;
    let keys = FileKeys::derive(secret, header)?;
    let cipher = ChunkCipher::new(header.suite, &keys)?;
    output
        .write_all(&header.encode_body())
        .and_then(|()| output.write_all(&keys.header_mac()))
        .map_err(SealError::Write)?;
    let chunk = header.chunk_size();
    let tag = header.suite.tag_len();
    let pool = Pool::new(threads)?;
    let mut slots = Slots::new(pool.window(), chunk + tag);
    let mut index = 0u64;
    let mut total = 0u64;
    loop {
        let (count, eof) = slots.fill(&mut input, chunk).map_err(SealError::Read)?;
        let bufs = &mut slots.bufs[..count];
        total += bufs.iter().map(|b| b.len() as u64).sum::<u64>();
        pool.run(|| {
            bufs.par_iter_mut().enumerate().for_each(|(i, buf)| {
                let last = eof && i + 1 == count;
                cipher.seal(index + i as u64, last, buf);
            })
        });
        for buf in bufs.iter() {
            output.write_all(buf).map_err(SealError::Write)?;
        }
        index += count as u64;
        if eof {
            break;
        }
        slots.carry(count);
    }
    output.flush().map_err(SealError::Write)?;
    Ok(total)
}

/// Opens a sealed stream from `input` into `output`. Returns the plaintext length.
pub fn open<R: Read, W: Write>(
    mut input: R,
    mut output: W,
    secret: &Secret,
    opts: &OpenOptions,
) -> Result<u64, SealError> {
    let mut raw = [0u8; HEADER_LEN];
    let got = read_full(&mut input, &mut raw).map_err(SealError::Read)?;
    if got < MAGIC.len() || raw[..MAGIC.len()] != MAGIC {
        return Err(SealError::NotSealed);
    }
    if got < HEADER_LEN {
        return Err(SealError::TruncatedHeader);
    }
    let header = Header::parse_body(raw[..BODY_LEN].try_into().unwrap())?;
    let keys = FileKeys::derive(secret, &header)?;
    keys.verify_header(&raw[BODY_LEN..])?;
    let cipher = ChunkCipher::new(header.suite, &keys)?;
    let tag = header.suite.tag_len();
    let record = header.chunk_size() + tag;
    let pool = Pool::new(opts.threads)?;
    let mut slots = Slots::new(pool.window(), record);
    let mut index = 0u64;
    let mut total = 0u64;
    loop {
        let (count, eof) = slots.fill(&mut input, record).map_err(SealError::Read)?;
        let bufs = &mut slots.bufs[..count];
        let failed = pool.run(|| {
            bufs.par_iter_mut()
                .enumerate()
                .map(|(i, buf)| {
                    let last = eof && i + 1 == count;
                    open_one(&cipher, index + i as u64, last, buf, tag).err()
                })
                .collect::<Vec<_>>()
        });
        // The earliest failure is the one to report; nothing of this window is written.
        if let Some(e) = failed.into_iter().flatten().next() {
            return Err(e);
        }
        for buf in bufs.iter() {
            total += buf.len() as u64;
            output.write_all(buf).map_err(SealError::Write)?;
        }
        index += count as u64;
        if eof {
            break;
        }
        slots.carry(count);
    }
    output.flush().map_err(SealError::Write)?;
    Ok(total)
}

/// Opens one record, and on failure says why as precisely as the record allows: a record
/// that verifies only as non-final means the file was cut after it; a record that verifies
/// only as final means bytes were appended after it. (A failed check leaves `buf` as it
/// was, so the second try needs no copy.)
fn open_one(
    cipher: &ChunkCipher,
    index: u64,
    last: bool,
    buf: &mut Vec<u8>,
    tag: usize,
) -> Result<(), SealError> {
    if buf.len() < tag {
        return Err(SealError::TruncatedTag(index));
    }
    if cipher.open(index, last, buf) {
        return Ok(());
    }
    if cipher.open(index, !last, buf) {
        wipe(buf);
        return Err(if last {
            SealError::Truncated(index)
        } else {
            SealError::TrailingData(index)
        });
    }
    Err(SealError::ChunkAuth(index))
}

/// A window of reusable buffers plus one lookahead slot: a chunk is the last one only if
/// the read after it finds the end, so the window's last slot waits for the next read.
struct Slots {
    bufs: Vec<Vec<u8>>,
    /// Slot 0 holds a record carried over from the previous round.
    carried: bool,
}

impl Slots {
    fn new(window: usize, capacity: usize) -> Self {
        Slots {
            bufs: (0..=window).map(|_| Vec::with_capacity(capacity)).collect(),
            carried: false,
        }
    }

    /// Fills slots with records of `size` bytes after the carried-over one. Returns how
    /// many slots this round processes and whether the input ended there. Before the end,
    /// the window's extra slot is the lookahead and is not counted; at the end, a trailing
    /// empty read is not a record (only empty input makes an empty first record).
    fn fill<R: Read>(&mut self, input: &mut R, size: usize) -> io::Result<(usize, bool)> {
        let window = self.bufs.len() - 1;
        let mut filled = usize::from(self.carried);
        loop {
            if filled == window + 1 {
                return Ok((window, false));
            }
            let buf = &mut self.bufs[filled];
            // Resizing from the previous round's length zeroes at most a tag's worth of
            // bytes (clearing first would memset the whole chunk every time).
            buf.resize(size, 0);
            let n = read_full(input, buf)?;
            buf.truncate(n);
            filled += 1;
            if n < size {
                let empty_tail = n == 0 && filled > 1;
                return Ok((filled - usize::from(empty_tail), true));
            }
        }
    }

    /// Moves the lookahead slot (just after the `count` processed ones) to the front.
    fn carry(&mut self, count: usize) {
        self.bufs.swap(0, count);
        self.carried = true;
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        for b in &mut self.bufs {
            wipe(b);
        }
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full<R: Read>(input: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Where the chunk work runs: rayon's global pool (all cores) or a pool of a given size.
/// Only the parallel step enters it, so the reader and writer need not be `Send`.
struct Pool {
    own: Option<rayon::ThreadPool>,
}

impl Pool {
    fn new(threads: usize) -> Result<Self, SealError> {
        let own = match threads {
            0 => None,
            n => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| SealError::BadParams(format!("cannot start {n} threads: {e}")))?,
            ),
        };
        Ok(Pool { own })
    }

    /// Chunks per window.
    fn window(&self) -> usize {
        let threads = match &self.own {
            Some(p) => p.current_num_threads(),
            None => rayon::current_num_threads(),
        };
        threads * CHUNKS_PER_THREAD
    }

    fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        match &self.own {
            Some(p) => p.install(f),
            None => f(),
        }
    }
}
