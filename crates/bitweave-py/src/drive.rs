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

use bitweave::hazmat::parallel;
use bitweave::{Crypter, Result, SecretVec};

use crate::buffer::{Dst, Src};

/// Bytes of input per slab on one thread.
const SLAB_ONE_THREAD: usize = 256 << 10;
/// Bytes of input per slab and thread on several threads.
const SLAB_PER_THREAD: usize = 4 << 20;

/// A run's scratch buffer, wiped when it drops (it holds plaintext at times) by
/// [`SecretVec`]: at memset speed, and not at all when a small call never allocated it.
pub struct Scratch {
    buf: SecretVec,
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
    /// Scratch for a run on `threads` threads (0 = all cores); its buffer grows to what
    /// the crypter needs (at most a slab plus a row) and is reused from call to call.
    pub fn new(threads: usize) -> Self {
        Scratch {
            buf: SecretVec::default(),
            slab: slab_for(threads),
        }
    }
}

/// How much of `len` new input bytes can be transformed in place by a crypter holding
/// nothing from earlier input: whole units, short of the block padded decryption keeps.
fn in_place_prefix(c: &Crypter, len: usize) -> usize {
    let unit = c.unit();
    (len - c.held_back().min(len)) / unit * unit
}

/// Feeds `src` to `c`, writing the output to `dst` from offset 0; returns the bytes
/// written. `dst` must have room for what the crypter holds plus `src.len()`. `fresh`
/// says the crypter holds nothing from earlier input.
///
/// When fresh, whole units go slab by slab: copied to their place in `dst` (unless `dst`
/// is `src`, in place) and transformed there. The rest goes through the crypter's own
/// appending `update` into the scratch buffer and is copied out.
pub fn update(c: &mut Crypter, src: Src, dst: Dst, fresh: bool, s: &mut Scratch) -> usize {
    let body = if fresh {
        in_place_prefix(c, src.len())
    } else {
        0
    };
    let slab = (s.slab / c.unit()).max(1) * c.unit();
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
    let (mut read, mut written) = (body, body);
    while read < src.len() {
        let n = s.slab.min(src.len() - read);
        s.buf.clear();
        c.update(src.piece(read, n), &mut s.buf);
        dst.write(written, &s.buf);
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

/// Runs all of `src` through a fresh crypter `c` (update and finish) into `dst`, which
/// has room for the result (the input length, plus a block when padding); returns the
/// bytes written. On error, wipes what it wrote: no partial output.
pub fn run_all(mut c: Crypter, src: Src, dst: Dst, threads: usize) -> Result<usize> {
    let mut s = Scratch::new(threads);
    let n = update(&mut c, src, dst, true, &mut s);
    match finish(c, dst, n, &mut s) {
        Ok(m) => Ok(n + m),
        Err(e) => {
            // SAFETY: the run is over; nothing else uses `dst`.
            unsafe { dst.piece_mut(0, n) }.fill(0);
            Err(e)
        }
    }
}
