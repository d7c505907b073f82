//! Runs a [`Crypter`] from a borrowed input straight into a borrowed output, in slabs.
//!
//! A whole run ([`run_all`]) copies each slab of input to its place in the output and
//! transforms it there while it is still in cache: one read of the input and one write of
//! the output, no intermediate buffer. A streaming `update` may start with bytes the
//! crypter held back from the previous call, so it goes through the crypter's own
//! appending `update` into a [`Scratch`] buffer and copies out of it. On one thread, slabs of
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

/// Bytes of input per slab on `threads` threads (0 = all cores).
fn slab_for(threads: usize) -> usize {
    let threads = if threads == 0 {
        parallel::available_threads()
    } else {
        threads
    };
    if threads <= 1 {
        SLAB_ONE_THREAD
    } else {
        SLAB_PER_THREAD.saturating_mul(threads)
    }
}

impl Scratch {
    /// Scratch for inputs of about `len` bytes on `threads` threads (0 = all cores).
    pub fn new(len: usize, threads: usize) -> Self {
        let slab = slab_for(threads);
        // Room for one slab plus what the crypter may hold back (a row of blocks).
        let cap = len.min(slab) + 1024;
        Scratch {
            buf: Zeroizing::new(Vec::with_capacity(cap)),
            slab,
        }
    }
}

/// Runs all of `src` through a fresh crypter `c` (update and finish) into `dst`, which
/// has room for the result (the input length, plus a block when padding); returns the
/// bytes written. On error, wipes what it wrote: no partial output.
///
/// Whole units go slab by slab: copied to their place in `dst` (unless `dst` is `src`,
/// in place) and transformed there. The rest — the last partial unit, and the block that
/// padded decryption holds back for unpadding — goes through `update` and `finish`.
pub fn run_all(mut c: Crypter, src: Src, dst: Dst, threads: usize) -> Result<usize> {
    let unit = c.unit();
    let held = c.held_back().min(src.len());
    let body = (src.len() - held) / unit * unit;
    let slab = (slab_for(threads) / unit).max(1) * unit;
    let mut at = 0;
    while at < body {
        let n = slab.min(body - at);
        dst.write(at, src.piece(at, n));
        // SAFETY: nothing else touches `dst[at..at + n]` until this call returns (the
        // input there, when in place, was read by the copy above).
        let piece = unsafe { dst.piece_mut(at, n) };
        c.update_in_place_before_end(piece)
            .expect("nothing pending and whole units");
        at += n;
    }
    let mut tail = Zeroizing::new(Vec::with_capacity(src.len() - body + 2 * unit));
    c.update(src.piece(body, src.len() - body), &mut tail);
    match c.finish(&mut tail) {
        Ok(()) => {
            dst.write(body, &tail);
            Ok(body + tail.len())
        }
        Err(e) => {
            // SAFETY: the run is over; nothing else uses `dst`.
            unsafe { dst.piece_mut(0, body) }.fill(0);
            Err(e)
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
