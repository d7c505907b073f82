//! The multi-core engine: large inputs are split into contiguous chunks that run on
//! rayon's pool; results are identical to one thread because every split point is one the
//! mode already treats as a boundary (a block for ECB/CTR, a row for CBC/CFB decryption,
//! a group of streams for interleaved chains). Small inputs stay on the calling thread.

use rayon::prelude::*;

/// Below this many bytes per thread, splitting costs more than it gains.
pub const MIN_BYTES_PER_THREAD: usize = 64 * 1024;

/// The number of cores (the default thread count), asked once: the standard library
/// reads the affinity mask and the cgroup quota files on every call, three system calls
/// per file, which a stream of 1 MiB pieces would pay a thousand times per GiB.
pub fn available_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How many chunks to cut `len` bytes into for `threads` requested threads
/// (0 = all cores): at least one, and none smaller than [`MIN_BYTES_PER_THREAD`].
pub fn chunks_for(len: usize, threads: usize) -> usize {
    if len < 2 * MIN_BYTES_PER_THREAD {
        // Too small to split: a small call skips the thread count.
        return 1;
    }
    let want = if threads == 0 {
        available_threads()
    } else {
        threads
    };
    want.min(len / MIN_BYTES_PER_THREAD).max(1)
}

/// The chunk length [`for_each_chunk`] uses: `len` split `parts` ways, rounded up to
/// whole `align`-byte units.
pub fn chunk_len(len: usize, align: usize, parts: usize) -> usize {
    (len.div_ceil(align).div_ceil(parts.max(1)) * align).max(align)
}

/// Runs `f(offset, chunk)` over `parts` contiguous chunks of `data` in parallel; every
/// chunk but the last is a whole number of `align`-byte units.
pub fn for_each_chunk(
    data: &mut [u8],
    align: usize,
    parts: usize,
    f: impl Fn(usize, &mut [u8]) + Sync + Send,
) {
    if parts <= 1 {
        f(0, data);
        return;
    }
    let chunk = chunk_len(data.len(), align, parts);
    data.par_chunks_mut(chunk)
        .enumerate()
        .for_each(|(i, c)| f(i * chunk, c));
}

/// Runs `f` on each item of `items` in parallel (one task per item).
pub fn for_each_mut<T: Send>(items: &mut [T], f: impl Fn(&mut T) + Sync + Send) {
    if items.len() <= 1 {
        items.iter_mut().for_each(f);
    } else {
        items.par_iter_mut().for_each(f);
    }
}
