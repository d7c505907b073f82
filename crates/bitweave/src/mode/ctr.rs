//! CTR (NIST SP 800-38A §6.5): the whole block is one big-endian counter, +1 per block,
//! wrapping modulo 2^(8·block). Every block is independent: counters are generated in
//! batches and encrypted in one backend call.

use super::xor_in_place;
use crate::cipher::BlockCipher;

/// Counter blocks per backend call.
const BLOCKS_PER_BATCH: usize = 64;

/// The next counter block.
pub(crate) struct Counter {
    block: Vec<u8>,
    keystream: Vec<u8>,
}

impl Drop for Counter {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.block);
        zeroize::Zeroize::zeroize(&mut self.keystream);
    }
}

impl Counter {
    /// Starts from the initial counter block T_1.
    pub(crate) fn new(iv: &[u8]) -> Self {
        Counter {
            block: iv.to_vec(),
            keystream: Vec::new(),
        }
    }

    /// XORs the keystream into `data`; a final partial block uses the leading bytes of its
    /// keystream block.
    pub(crate) fn apply(&mut self, c: &dyn BlockCipher, data: &mut [u8]) {
        let bs = self.block.len();
        for chunk in data.chunks_mut(bs * BLOCKS_PER_BATCH) {
            let blocks = chunk.len().div_ceil(bs);
            self.keystream.clear();
            for _ in 0..blocks {
                self.keystream.extend_from_slice(&self.block);
                increment_be(&mut self.block);
            }
            c.encrypt_blocks(&mut self.keystream);
            xor_in_place(chunk, &self.keystream);
        }
    }
}

/// Adds one to a big-endian integer, wrapping.
pub(crate) fn increment_be(block: &mut [u8]) {
    for b in block.iter_mut().rev() {
        *b = b.wrapping_add(1);
        if *b != 0 {
            break;
        }
    }
}
