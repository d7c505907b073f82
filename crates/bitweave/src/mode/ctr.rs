//! CTR (NIST SP 800-38A §6.5): the whole block is one big-endian counter, +1 per block,
//! wrapping modulo 2^(8·block). Every block is independent: counters are generated in
//! batches and encrypted in one backend call.

use super::xor_in_place;
use crate::cipher::BlockCipher;
use crate::engine::parallel;

/// Counter blocks per backend call.
const BLOCKS_PER_BATCH: usize = 256;

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

    /// XORs the keystream into `data` on `parts` threads (chunk k starts its counter k
    /// chunks' worth of blocks ahead); a final partial block uses the leading bytes of its
    /// keystream block.
    pub(crate) fn apply(&mut self, c: &dyn BlockCipher, data: &mut [u8], parts: usize) {
        let bs = self.block.len();
        if parts <= 1 {
            self.apply_here(c, data);
            return;
        }
        let base = self.block.clone();
        parallel::for_each_chunk(data, bs, parts, |offset, part| {
            let mut ctr = Counter::new(&base);
            add_be(&mut ctr.block, offset / bs);
            ctr.apply_here(c, part);
        });
        add_be(&mut self.block, data.len().div_ceil(bs));
    }

    /// The keystream on the calling thread, in batches.
    fn apply_here(&mut self, c: &dyn BlockCipher, data: &mut [u8]) {
        let bs = self.block.len();
        for chunk in data.chunks_mut(bs * BLOCKS_PER_BATCH) {
            let blocks = chunk.len().div_ceil(bs);
            self.keystream.resize(blocks * bs, 0);
            fill_counters(&mut self.block, &mut self.keystream);
            c.encrypt_blocks(&mut self.keystream);
            xor_in_place(chunk, &self.keystream);
        }
    }
}

/// Adds `n` to a big-endian 64- or 128-bit counter, wrapping.
fn add_be(counter: &mut [u8], n: usize) {
    match counter.len() {
        16 => {
            let v = u128::from_be_bytes(counter.try_into().unwrap()).wrapping_add(n as u128);
            counter.copy_from_slice(&v.to_be_bytes());
        }
        8 => {
            let v = u64::from_be_bytes(counter.try_into().unwrap()).wrapping_add(n as u64);
            counter.copy_from_slice(&v.to_be_bytes());
        }
        other => unreachable!("block sizes are 8 or 16, not {other}"),
    }
}

/// Writes consecutive counter blocks starting at `counter` into `out` (whole blocks) and
/// advances `counter` past them, as one wide integer add per block.
fn fill_counters(counter: &mut [u8], out: &mut [u8]) {
    let n = out.len() / counter.len();
    match counter.len() {
        16 => {
            let base = u128::from_be_bytes(counter.try_into().unwrap());
            for (i, b) in out.chunks_exact_mut(16).enumerate() {
                b.copy_from_slice(&base.wrapping_add(i as u128).to_be_bytes());
            }
        }
        8 => {
            let base = u64::from_be_bytes(counter.try_into().unwrap());
            for (i, b) in out.chunks_exact_mut(8).enumerate() {
                b.copy_from_slice(&base.wrapping_add(i as u64).to_be_bytes());
            }
        }
        other => unreachable!("block sizes are 8 or 16, not {other}"),
    }
    add_be(counter, n);
}
