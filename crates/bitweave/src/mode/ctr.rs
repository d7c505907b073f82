//! CTR (NIST SP 800-38A §6.5): the whole block is one big-endian counter, +1 per block,
//! wrapping modulo 2^(8·block). Every block is independent: the backend's counter
//! primitive encrypts them in batches, and large inputs split across threads with each
//! chunk's counter advanced by the blocks before it.

use crate::cipher::{add_be, ModeKernels};
use crate::engine::parallel;
use crate::engine::Cipher;

/// The next counter block, held inline (a heap copy and its free were a visible share
/// of a one-shot call with a fresh key on a 64-byte message).
pub(crate) struct Counter {
    bytes: [u8; 16],
    /// The block size: `bytes[..len]` is the counter.
    len: usize,
}

impl Drop for Counter {
    fn drop(&mut self) {
        crate::bytes::wipe(&mut self.bytes);
    }
}

impl Counter {
    /// Starts from the initial counter block T_1 (one block of at most 16 bytes).
    pub(crate) fn new(iv: &[u8]) -> Self {
        let mut bytes = [0; 16];
        bytes[..iv.len()].copy_from_slice(iv);
        Counter {
            bytes,
            len: iv.len(),
        }
    }

    /// The counter block.
    #[inline]
    fn block(&mut self) -> &mut [u8] {
        &mut self.bytes[..self.len]
    }

    /// XORs the keystream into `data` on `parts` threads; a final partial block uses the
    /// leading bytes of its keystream block.
    #[inline]
    pub(crate) fn apply(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        if parts <= 1 {
            c.ctr_keystream_xor(self.block(), data);
        } else {
            self.apply_split(c, data, parts);
        }
    }

    /// [`apply`](Self::apply) over several threads, out of line: the one-thread call
    /// inlines into its caller without rayon's plumbing.
    #[inline(never)]
    fn apply_split(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        let bs = self.len;
        let base = Counter::new(self.block());
        parallel::for_each_chunk(data, bs, parts, |offset, part| {
            let mut ctr = Counter::new(&base.bytes[..bs]);
            add_be(ctr.block(), (offset / bs) as u64);
            c.ctr_keystream_xor(ctr.block(), part);
        });
        add_be(self.block(), data.len().div_ceil(bs) as u64);
    }
}
