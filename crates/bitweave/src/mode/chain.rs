//! The chained modes (CBC, full-block CFB, OFB) over N interleaved streams.
//!
//! State is one *row*: the N feedback blocks of streams 0..N-1, contiguous. Data is a
//! sequence of rows laid out as the plaintext is (stream k owns blocks k, k+N, k+2N, ...),
//! so each chained step is one contiguous batch of N independent blocks. A row shorter
//! than N holds only streams 0..w-1 (the end of the input, or in multi-stream processing
//! the streams still running); a partial final block is allowed only for CFB and OFB and
//! is processed as the standard mode processes a final partial segment.
//!
//! Callers pass whole rows except at the very end, so any split of the input gives the
//! same result.

use super::xor_in_place;
use crate::cipher::{BlockCipher, Feedback};

/// Rows per batch for the parallel directions (CBC and CFB decryption).
const ROWS_PER_SLAB: usize = 64;

/// The N feedback blocks of N interleaved streams (the IVs at first).
pub(crate) struct Chain {
    row: Vec<u8>,
    /// Scratch for a batch: keystream or previous ciphertext.
    scratch: Vec<u8>,
}

impl Drop for Chain {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.row);
        zeroize::Zeroize::zeroize(&mut self.scratch);
    }
}

impl Chain {
    /// Starts N streams from their IVs (N blocks concatenated).
    pub(crate) fn new(iv: &[u8]) -> Self {
        Chain {
            row: iv.to_vec(),
            scratch: Vec::new(),
        }
    }

    /// Bytes in a full row.
    pub(crate) fn row_len(&self) -> usize {
        self.row.len()
    }

    /// CBC encryption: C_i = E(P_i ⊕ C_{i-N}).
    pub(crate) fn cbc_encrypt(&mut self, c: &dyn BlockCipher, data: &mut [u8]) {
        self.serial(c, Feedback::Cbc, data);
    }

    /// Runs the serial recurrence `fb` (CBC/CFB encryption, OFB) over whole rows through
    /// the backend's chain primitive, then a final short row (fewer than N blocks, the last
    /// one possibly partial) zero-filled to whole blocks on the running streams' prefix.
    fn serial(&mut self, c: &dyn BlockCipher, fb: Feedback, data: &mut [u8]) {
        let row_len = self.row.len();
        let whole = data.len() / row_len * row_len;
        let (body, tail) = data.split_at_mut(whole);
        if !body.is_empty() {
            c.encrypt_chains(fb, &mut self.row, body);
        }
        if !tail.is_empty() {
            let bs = c.block_size();
            let used = tail.len().div_ceil(bs) * bs;
            self.scratch.clear();
            self.scratch.extend_from_slice(tail);
            self.scratch.resize(used, 0);
            c.encrypt_chains(fb, &mut self.row[..used], &mut self.scratch);
            tail.copy_from_slice(&self.scratch[..tail.len()]);
        }
    }

    /// CBC decryption: P_i = D(C_i) ⊕ C_{i-N}; every block is independent, so whole slabs
    /// of rows go to the backend at once.
    pub(crate) fn cbc_decrypt(&mut self, c: &dyn BlockCipher, data: &mut [u8]) {
        let slab = self.row.len() * ROWS_PER_SLAB;
        for s in data.chunks_mut(slab) {
            self.load_previous_ciphertext(s, s.len());
            c.decrypt_blocks(s);
            xor_in_place(s, &self.scratch);
        }
    }

    /// Full-block CFB encryption: C_i = P_i ⊕ E(C_{i-N}).
    pub(crate) fn cfb_encrypt(&mut self, c: &dyn BlockCipher, data: &mut [u8]) {
        self.serial(c, Feedback::Cfb, data);
    }

    /// Full-block CFB decryption: P_i = C_i ⊕ E(C_{i-N}), parallel like CBC decryption.
    pub(crate) fn cfb_decrypt(&mut self, c: &dyn BlockCipher, data: &mut [u8], bs: usize) {
        let slab = self.row.len() * ROWS_PER_SLAB;
        for s in data.chunks_mut(slab) {
            let used = s.len().div_ceil(bs) * bs;
            self.load_previous_ciphertext(s, used);
            c.encrypt_blocks(&mut self.scratch);
            xor_in_place(s, &self.scratch);
        }
    }

    /// OFB (both directions): O_i = E(O_{i-N}), C_i = P_i ⊕ O_i.
    pub(crate) fn ofb(&mut self, c: &dyn BlockCipher, data: &mut [u8]) {
        self.serial(c, Feedback::Ofb, data);
    }

    /// Fills `scratch` with the `len` bytes of ciphertext one row behind slab `s`
    /// (the chain row, then `s` itself), and advances the chain to the slab's last row.
    /// `s` is ciphertext when called.
    fn load_previous_ciphertext(&mut self, s: &[u8], len: usize) {
        let row_len = self.row.len();
        self.scratch.clear();
        self.scratch
            .extend_from_slice(&self.row[..row_len.min(len)]);
        if len > row_len {
            self.scratch.extend_from_slice(&s[..len - row_len]);
        }
        if s.len() >= row_len && s.len().is_multiple_of(row_len) {
            self.row.copy_from_slice(&s[s.len() - row_len..]);
        }
    }
}
