//! CFB with 8-bit and 1-bit segments (NIST SP 800-38A §6.3): each cipher call yields one
//! byte or one bit of keystream, and the shift register takes the ciphertext segment back.
//!
//! The registers of K streams sit side by side, so one backend call advances K streams
//! (multi-stream); a single message is the case K = 1.

use crate::cipher::BlockCipher;

/// The shift registers of K streams (K blocks, contiguous).
pub(crate) struct ShiftRegisters {
    regs: Vec<u8>,
    keystream: Vec<u8>,
    bs: usize,
}

impl Drop for ShiftRegisters {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.regs);
        zeroize::Zeroize::zeroize(&mut self.keystream);
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
    fn keystream(&mut self, c: &dyn BlockCipher, k: usize) -> &[u8] {
        self.keystream.clear();
        self.keystream.extend_from_slice(&self.regs[..k * self.bs]);
        c.encrypt_blocks(&mut self.keystream);
        &self.keystream
    }

    /// CFB8 step: `bytes[t]` is the next byte of stream t (t < bytes.len()), replaced in
    /// place; the register takes the ciphertext byte.
    pub(crate) fn cfb8_step(&mut self, c: &dyn BlockCipher, bytes: &mut [u8], decrypt: bool) {
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
    pub(crate) fn cfb1_step(
        &mut self,
        c: &dyn BlockCipher,
        bytes: &mut [u8],
        bit: u32,
        decrypt: bool,
    ) {
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
    pub(crate) fn cfb8(&mut self, c: &dyn BlockCipher, data: &mut [u8], decrypt: bool) {
        for i in 0..data.len() {
            self.cfb8_step(c, &mut data[i..i + 1], decrypt);
        }
    }

    /// Runs CFB1 over one stream's bytes (K = 1), most significant bit first.
    pub(crate) fn cfb1(&mut self, c: &dyn BlockCipher, data: &mut [u8], decrypt: bool) {
        for i in 0..data.len() {
            for bit in (0..8).rev() {
                self.cfb1_step(c, &mut data[i..i + 1], bit, decrypt);
            }
        }
    }
}

/// Shifts a big-endian register left by one bit, bringing `bit` in at the bottom.
fn shift_left_one_bit(reg: &mut [u8], bit: u8) {
    let mut carry = bit;
    for b in reg.iter_mut().rev() {
        let out = *b >> 7;
        *b = (*b << 1) | carry;
        carry = out;
    }
}
