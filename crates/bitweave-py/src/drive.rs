//! Runs a [`Crypter`] from a borrowed input straight into a borrowed output, in slabs.
//!
//! The library's `Crypter` appends to a `Vec`; handing it the whole input would need a
//! second full-size buffer and a copy into the Python object. Slabs of about 1 MiB per
//! thread keep that intermediate buffer cache-sized: each slab is big enough for the
//! library to split over its threads, and the copy out of it reads warm cache, so memory
//! traffic stays one read of the input and one write of the output.

use bitweave::engine::parallel;
use bitweave::{Crypter, Result};
use zeroize::Zeroizing;

use crate::buffer::{Dst, Src};

/// Bytes of input per slab and thread.
const SLAB_PER_THREAD: usize = 1 << 20;

/// A run's scratch buffer (wiped on drop: it holds plaintext at times).
pub struct Scratch {
    buf: Zeroizing<Vec<u8>>,
    slab: usize,
}

impl Scratch {
    /// Scratch for inputs of about `len` bytes on `threads` threads (0 = all cores).
    pub fn new(len: usize, threads: usize) -> Self {
        let threads = if threads == 0 {
            parallel::available_threads()
        } else {
            threads
        };
        let slab = SLAB_PER_THREAD.saturating_mul(threads.max(1));
        // Room for one slab plus what the crypter may hold back (a row of blocks).
        let cap = len.min(slab) + 1024;
        Scratch {
            buf: Zeroizing::new(Vec::with_capacity(cap)),
            slab,
        }
    }
}

/// Feeds `src` to `c`, writing the output to `dst` from offset `at`; returns the bytes
/// written. `dst` must have room for the crypter's pending bytes plus `src.len()`.
pub fn update(c: &mut Crypter, src: Src, dst: Dst, at: usize, s: &mut Scratch) -> usize {
    let mut read = 0;
    let mut written = 0;
    while read < src.len() {
        let n = s.slab.min(src.len() - read);
        s.buf.clear();
        c.update(src.piece(read, n), &mut s.buf);
        dst.write(at + written, &s.buf);
        read += n;
        written += s.buf.len();
    }
    s.buf.clear();
    written
}

/// Finishes `c` into `dst` at `at`; returns the bytes written.
pub fn finish(c: Crypter, dst: Dst, at: usize, s: &mut Scratch) -> Result<usize> {
    s.buf.clear();
    c.finish(&mut s.buf)?;
    dst.write(at, &s.buf);
    let n = s.buf.len();
    s.buf.clear();
    Ok(n)
}
