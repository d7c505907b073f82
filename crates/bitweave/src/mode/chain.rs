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

use crate::cipher::{BlockCipher, Feedback, ModeKernels, STREAMED_BYTES};
use crate::engine::parallel;
use crate::engine::Cipher;

/// The N feedback blocks of N interleaved streams (the IVs at first).
pub(crate) struct Chain {
    row: Vec<u8>,
    /// Scratch for a final short row.
    scratch: Vec<u8>,
}

impl Drop for Chain {
    fn drop(&mut self) {
        crate::bytes::wipe_vec(&mut self.row);
        crate::bytes::wipe_vec(&mut self.scratch);
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

    /// Restarts the streams from `iv` (a row): CFB on one chain after a block finished
    /// across calls (see `Crypter`'s tail).
    pub(crate) fn restart(&mut self, iv: &[u8]) {
        self.row.copy_from_slice(iv);
    }

    /// Bytes in a full row.
    pub(crate) fn row_len(&self) -> usize {
        self.row.len()
    }

    /// CBC encryption: C_i = E(P_i ⊕ C_{i-N}).
    pub(crate) fn cbc_encrypt(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        self.serial(c, Feedback::Cbc, data, parts);
    }

    /// CBC decryption: P_i = D(C_i) ⊕ C_{i-N}; every block is independent.
    pub(crate) fn cbc_decrypt(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        self.parallel_decrypt(c, data, parts, false);
    }

    /// Full-block CFB encryption: C_i = P_i ⊕ E(C_{i-N}).
    pub(crate) fn cfb_encrypt(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        self.serial(c, Feedback::Cfb, data, parts);
    }

    /// Full-block CFB decryption: P_i = C_i ⊕ E(C_{i-N}), parallel like CBC decryption.
    pub(crate) fn cfb_decrypt(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        self.parallel_decrypt(c, data, parts, true);
    }

    /// OFB (both directions): O_i = E(O_{i-N}), C_i = P_i ⊕ O_i.
    pub(crate) fn ofb(&mut self, c: &Cipher, data: &mut [u8], parts: usize) {
        self.serial(c, Feedback::Ofb, data, parts);
    }

    /// Runs the serial recurrence `fb` (CBC/CFB encryption, OFB) over whole rows through
    /// the backend's chain primitive, then a final short row (fewer than N blocks, the last
    /// one possibly partial) zero-filled to whole blocks on the running streams' prefix.
    /// With `parts` > 1 the streams are cut into that many contiguous groups of columns
    /// (whole batches of the backend; on large calls no narrower than the backend's
    /// `min_streamed_share`), each run down every row on its own thread.
    fn serial(&mut self, c: &Cipher, fb: Feedback, data: &mut [u8], parts: usize) {
        // One stream of whole blocks on one thread, the common small call: straight to the
        // backend. (Block sizes are powers of two, so a mask tests for whole blocks.)
        let row_len = self.row.len();
        if parts <= 1 && row_len == c.block_size() && data.len() & (row_len - 1) == 0 {
            c.encrypt_chains(fb, &mut self.row, data);
            return;
        }
        self.serial_rows(c, fb, data, parts);
    }

    /// [`Chain::serial`] in general. Kept out of line, so the one-stream path above does
    /// not pay this one's register saves and stack frame.
    #[inline(never)]
    fn serial_rows(&mut self, c: &Cipher, fb: Feedback, data: &mut [u8], parts: usize) {
        let row_len = self.row.len();
        let bs = c.block_size();
        // (Integer division costs more than a one-block call's AES rounds on some CPUs:
        // a power-of-two row, the common case, takes a mask, and one thread no split.)
        let whole = if row_len.is_power_of_two() {
            data.len() & !(row_len - 1)
        } else {
            data.len() / row_len * row_len
        };
        let (body, tail) = data.split_at_mut(whole);
        let parts = if parts > 1 && body.len() > STREAMED_BYTES {
            match c.min_streamed_share() {
                0 => parts,
                share => parts.min(row_len / share).max(1),
            }
        } else {
            parts
        };
        let group = if parts > 1 {
            parallel::chunk_len(row_len, c.width() * bs, parts)
        } else {
            row_len
        };
        if !body.is_empty() && group < row_len {
            Self::serial_groups(c, fb, &mut self.row, body, group);
        } else if !body.is_empty() {
            c.encrypt_chains(fb, &mut self.row, body);
        }
        if !tail.is_empty() {
            let used = tail.len().div_ceil(bs) * bs;
            self.scratch.clear();
            self.scratch.extend_from_slice(tail);
            self.scratch.resize(used, 0);
            c.encrypt_chains(fb, &mut self.row[..used], &mut self.scratch);
            tail.copy_from_slice(&self.scratch[..tail.len()]);
        }
    }

    /// Whole rows of `body`, the chains cut into groups of `group` bytes of each row: group
    /// g is columns g·group.. of every row, handed to the backend as row segments (no
    /// gathering: each thread reads and writes its own columns in place).
    fn serial_groups(c: &Cipher, fb: Feedback, state: &mut [u8], body: &mut [u8], group: usize) {
        let row_len = state.len();
        let rows = body.len() / row_len;
        let mut work: Vec<(&mut [u8], Vec<&mut [u8]>)> = state
            .chunks_mut(group)
            .map(|st| (st, Vec::with_capacity(rows)))
            .collect();
        for row in body.chunks_exact_mut(row_len) {
            for ((_, rows), seg) in work.iter_mut().zip(row.chunks_mut(group)) {
                rows.push(seg);
            }
        }
        parallel::for_each_mut(&mut work, |(st, rows)| c.encrypt_chain_rows(fb, st, rows));
    }

    /// CBC or CFB decryption over `parts` threads.
    fn parallel_decrypt(&mut self, c: &Cipher, data: &mut [u8], parts: usize, cfb: bool) {
        if parts <= 1 {
            self.decrypt_rows(c, data, cfb);
        } else {
            self.decrypt_in_parts(c, data, parts, cfb);
        }
    }

    /// [`Chain::parallel_decrypt`] on more than one thread: each chunk (whole rows) starts
    /// from the ciphertext row before it, copied before any chunk is overwritten. Kept out
    /// of line, so a call on one thread does not pay this one's register saves and stack
    /// frame.
    #[inline(never)]
    fn decrypt_in_parts(&mut self, c: &Cipher, data: &mut [u8], parts: usize, cfb: bool) {
        let row_len = self.row.len();
        let chunk = parallel::chunk_len(data.len(), row_len, parts);
        let starts: Vec<Vec<u8>> = (0..data.len().div_ceil(chunk))
            .map(|i| match i {
                0 => self.row.clone(),
                _ => data[i * chunk - row_len..i * chunk].to_vec(),
            })
            .collect();
        let next_row = data
            .len()
            .is_multiple_of(row_len)
            .then(|| data[data.len() - row_len..].to_vec());
        parallel::for_each_chunk(data, row_len, parts, |offset, part| {
            Chain::new(&starts[offset / chunk]).decrypt_rows(c, part, cfb);
        });
        if let Some(r) = next_row {
            self.row.copy_from_slice(&r);
        }
    }

    /// CBC or CFB decryption on the calling thread, through the backend's primitive.
    fn decrypt_rows(&mut self, c: &Cipher, data: &mut [u8], cfb: bool) {
        if cfb {
            c.cfb_decrypt_rows(&mut self.row, data);
        } else {
            c.cbc_decrypt_rows(&mut self.row, data);
        }
    }
}
