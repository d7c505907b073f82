//! CFB with 8-bit and 1-bit segments (NIST SP 800-38A §6.3): each cipher call yields one
//! byte or one bit of keystream, and the shift register takes the ciphertext segment back.
//!
//! The registers of K streams sit side by side, so one backend call advances K streams
//! (multi-stream); a single message is the case K = 1.

use crate::cipher::{shift_left_one_bit, BlockCipher, ModeKernels};
use crate::engine::Cipher;

/// The shift registers of K streams (K blocks, contiguous).
pub(crate) struct ShiftRegisters {
    regs: Vec<u8>,
    keystream: Vec<u8>,
    bs: usize,
}

impl Drop for ShiftRegisters {
    fn drop(&mut self) {
        crate::bytes::wipe_vec(&mut self.regs);
        crate::bytes::wipe_vec(&mut self.keystream);
    }
}

impl ShiftRegisters {
    /// Starts K streams from their IVs (K blocks of `bs` bytes).
    pub(crate) fn new(ivs: &[u8], bs: usize) -> Self {
        ShiftRegisters {
            regs: ivs.to_vec(),
            keystream: Vec::new(),
            bs,
        }
    }

    /// One cipher call for the first `k` streams: returns their keystream blocks.
    fn keystream(&mut self, c: &Cipher, k: usize) -> &[u8] {
        self.keystream.clear();
        self.keystream.extend_from_slice(&self.regs[..k * self.bs]);
        c.encrypt_blocks(&mut self.keystream);
        &self.keystream
    }

    /// CFB8 step: `bytes[t]` is the next byte of stream t (t < bytes.len()), replaced in
    /// place; the register takes the ciphertext byte.
    pub(crate) fn cfb8_step(&mut self, c: &Cipher, bytes: &mut [u8], decrypt: bool) {
        let bs = self.bs;
        let k = bytes.len();
        self.keystream(c, k);
        for (t, byte) in bytes.iter_mut().enumerate() {
            let input = *byte;
            *byte ^= self.keystream[t * bs];
            let feedback = if decrypt { input } else { *byte };
            let reg = &mut self.regs[t * bs..(t + 1) * bs];
            reg.copy_within(1.., 0);
            reg[bs - 1] = feedback;
        }
    }

    /// CFB1 step on bit `bit` (7 = most significant, processed first) of `bytes[t]`.
    pub(crate) fn cfb1_step(&mut self, c: &Cipher, bytes: &mut [u8], bit: u32, decrypt: bool) {
        let bs = self.bs;
        let k = bytes.len();
        self.keystream(c, k);
        for (t, byte) in bytes.iter_mut().enumerate() {
            let input = (*byte >> bit) & 1;
            let out = input ^ (self.keystream[t * bs] >> 7);
            *byte = (*byte & !(1 << bit)) | (out << bit);
            let feedback = if decrypt { input } else { out };
            shift_left_one_bit(&mut self.regs[t * bs..(t + 1) * bs], feedback);
        }
    }

    /// Runs CFB8 over one stream's bytes (K = 1).
    pub(crate) fn cfb8(&mut self, c: &Cipher, data: &mut [u8], decrypt: bool) {
        if decrypt {
            self.decrypt_batched(c, data, 8);
        } else {
            c.cfb8_encrypt(&mut self.regs[..self.bs], data);
        }
    }

    /// Runs CFB1 over one stream's bytes (K = 1), most significant bit first.
    pub(crate) fn cfb1(&mut self, c: &Cipher, data: &mut [u8], decrypt: bool) {
        if decrypt {
            self.decrypt_batched(c, data, 1);
        } else {
            c.cfb1_encrypt(&mut self.regs[..self.bs], data);
        }
    }

    /// CFB8 or CFB1 decryption of one stream (K = 1), `seg` bits per segment, in batches.
    ///
    /// Decryption is parallel although encryption is not: the register before each
    /// segment is the `8·bs` ciphertext bits that precede it (the IV's at first), all
    /// known, so a batch of segments needs one batch of independent cipher calls, like CBC
    /// decryption. The register for the segment starting at bit p of `window` = register ‖
    /// ciphertext is window bits p..p+8·bs.
    fn decrypt_batched(&mut self, c: &Cipher, data: &mut [u8], seg: usize) {
        let bs = self.bs;
        let per_byte = 8 / seg;
        let batch = (DECRYPT_BATCH_BLOCKS / per_byte).max(1);
        let mut window = Vec::with_capacity(bs + batch);
        for chunk in data.chunks_mut(batch) {
            window.clear();
            window.extend_from_slice(&self.regs[..bs]);
            window.extend_from_slice(chunk);
            self.keystream.clear();
            self.keystream.resize(chunk.len() * per_byte * bs, 0);
            for (p, block) in self.keystream.chunks_exact_mut(bs).enumerate() {
                register_at_bit(&window, p * seg, block);
            }
            c.encrypt_blocks(&mut self.keystream);
            for (i, byte) in chunk.iter_mut().enumerate() {
                let ks = &self.keystream[i * per_byte * bs..];
                *byte ^= if seg == 8 {
                    ks[0]
                } else {
                    // Bit m (0 = most significant) of the byte from the top bit of block m.
                    (0..8).fold(0u8, |acc, m| acc | ((ks[m * bs] >> 7) << (7 - m)))
                };
            }
            let n = chunk.len();
            self.regs[..bs].copy_from_slice(&window[n..n + bs]);
        }
        crate::bytes::wipe_vec(&mut window);
    }
}

/// Segments of CFB8/CFB1 decryption per cipher call (blocks of keystream input).
const DECRYPT_BATCH_BLOCKS: usize = 1024;

/// Writes bits `bit..bit + 8·out.len()` of `window` (big-endian bit order) into `out`.
fn register_at_bit(window: &[u8], bit: usize, out: &mut [u8]) {
    let (q, r) = (bit / 8, (bit % 8) as u32);
    let n = out.len();
    if r == 0 {
        out.copy_from_slice(&window[q..q + n]);
        return;
    }
    // One wide shift: the register's bytes as a big-endian integer, topped up from the
    // byte after them.
    let next = window[q + n] >> (8 - r);
    if n == 16 {
        let x = u128::from_be_bytes(window[q..q + 16].try_into().unwrap());
        out.copy_from_slice(&((x << r) | next as u128).to_be_bytes());
    } else {
        let x = u64::from_be_bytes(window[q..q + 8].try_into().unwrap());
        out.copy_from_slice(&((x << r) | next as u64).to_be_bytes());
    }
}
