//! CTR (NIST SP 800-38A §6.5): the whole block is one big-endian counter, +1 per block,
//! wrapping modulo 2^(8·block). Every block is independent: the backend's counter
//! primitive encrypts them in batches, and large inputs split across threads with each
//! chunk's counter advanced by the blocks before it.

use crate::cipher::{add_be, ModeKernels};
use crate::engine::parallel;
use crate::engine::Cipher;

/// The next counter block.
pub(crate) struct Counter {
    block: Vec<u8>,
}

impl Drop for Counter {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.block);
    }
}

impl Counter {
    /// Starts from the initial counter block T_1.
    pub(crate) fn new(iv: &[u8]) -> Self {
        Counter { block: iv.to_vec() }
    }

    /// XORs the keystream into `data` on `parts` threads; a final partial block uses the
    /// leading bytes of its keystream block.
    #[inline]
    pub(crate) fn apply(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        if parts <= 1 {
            c.ctr_keystream_xor(&mut self.block, data);
        } else {
            self.apply_split(c, data, parts);
        }
    }

    /// [`apply`](Self::apply) over several threads, out of line: the one-thread call
    /// inlines into its caller without rayon's plumbing.
    #[inline(never)]
    fn apply_split(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        let bs = self.block.len();
        let base = self.block.clone();
        parallel::for_each_chunk(data, bs, parts, |offset, part| {
            let mut ctr = Counter::new(&base);
            add_be(&mut ctr.block, (offset / bs) as u64);
            c.ctr_keystream_xor(&mut ctr.block, part);
        });
        add_be(&mut self.block, data.len().div_ceil(bs) as u64);
    }
}
