//! Runs a [`Crypter`] from a borrowed input straight into a borrowed output, in slabs.
//!
//! The library's `Crypter` appends to a `Vec`; handing it the whole input would need a
//! second full-size buffer and a copy into the Python object. On one thread, slabs of
//! 256 KiB keep that intermediate buffer in cache, so the copy out of it reads warm cache
//! and memory traffic stays one read of the input and one write of the output (measured
//! on 16 MiB AES-CTR: 4.4 GB/s into `out=`, 6.2 GB/s in place, vs 2.2 and 3.0 GB/s with
//! 1 MiB slabs). On several threads a slab is split across the library's pool, and each
//! split costs a wake-up of the pool: 4 MiB per thread amortises it.

use bitweave::engine::parallel;
use bitweave::{Crypter, Result};
use zeroize::Zeroizing;

use crate::buffer::{Dst, Src};

/// Bytes of input per slab on one thread.
const SLAB_ONE_THREAD: usize = 256 << 10;
/// Bytes of input per slab and thread on several threads.
const SLAB_PER_THREAD: usize = 4 << 20;

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
        let slab = if threads <= 1 {
            SLAB_ONE_THREAD
        } else {
            SLAB_PER_THREAD.saturating_mul(threads)
        };
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
