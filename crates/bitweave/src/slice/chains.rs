//! Interleaved chains on a bitsliced cipher in one kernel call (MX-1 §3.2, Tables I/VI):
//! rows of N blocks, N a whole number of batches, each batch-wide column of the rows run
//! down all rows with the chain's XOR fused into the transposition — CBC XORs the previous
//! ciphertext into the rows as they are loaded, CFB XORs the keystream into the plaintext
//! as it is stored, and OFB keeps its state in plane form from row to row (no
//! transposition on the way in at all). No pass over memory of its own, so the chained
//! modes run at the cipher's ECB speed.
#![deny(unsafe_code)]

use super::{run_kernel, Kernel, Lanes, Width};
use crate::cipher::{chains_by_rows, BlockCipher, Feedback};

/// A keyed bitsliced cipher as the chain kernel sees it: one batch of `64·WORDS` blocks
/// in plane form, loaded from blocks (or from the XOR of two block runs), encrypted in
/// place, stored (or XORed into the destination). Implementations are
/// `#[inline(always)]`, so they compile inside the kernel's SIMD context.
pub(crate) trait PlaneCipher {
    /// Bytes per block.
    const BLOCK: usize;
    /// One batch in plane form.
    type Planes<L: Lanes>: Copy;
    fn load<L: Lanes>(src: &[u8]) -> Self::Planes<L>;
    /// The planes of `src ⊕ other`.
    fn load_xor<L: Lanes>(src: &[u8], other: &[u8]) -> Self::Planes<L>;
    fn encrypt<L: Lanes>(&self, p: &mut Self::Planes<L>);
    fn store<L: Lanes>(p: &Self::Planes<L>, dst: &mut [u8]);
    /// `dst ^=` the blocks of `p`.
    fn store_xor<L: Lanes>(p: &Self::Planes<L>, dst: &mut [u8]);
}

/// The work of one interleaved-chain call: `state` is the N feedback blocks, `rows` the
/// rows (or one core's column group of them), each as long as `state`, a whole number of
/// batches at the width the kernel runs.
pub(crate) struct Chains<'a, 'r, C> {
    pub cipher: &'a C,
    pub feedback: Feedback,
    pub state: &'a mut [u8],
    pub rows: &'a mut [&'r mut [u8]],
}

impl<C: PlaneCipher> Kernel for Chains<'_, '_, C> {
    #[inline(always)]
    fn run<L: Lanes>(&mut self) {
        let batch = 64 * C::BLOCK * L::WORDS;
        for col in (0..self.state.len()).step_by(batch) {
            let at = col..col + batch;
            let state = &mut self.state[at.clone()];
            match self.feedback {
                // C_i = E(P_i ⊕ C_{i-1}).
                Feedback::Cbc => {
                    for i in 0..self.rows.len() {
                        let (done, rest) = self.rows.split_at_mut(i);
                        let prev: &[u8] = match done.last() {
                            Some(r) => &r[at.clone()],
                            None => state,
                        };
                        let cur = &mut rest[0][at.clone()];
                        let mut p = C::load_xor::<L>(cur, prev);
                        self.cipher.encrypt(&mut p);
                        C::store(&p, cur);
                    }
                }
                // C_i = P_i ⊕ E(C_{i-1}).
                Feedback::Cfb => {
                    for i in 0..self.rows.len() {
                        let (done, rest) = self.rows.split_at_mut(i);
                        let prev: &[u8] = match done.last() {
                            Some(r) => &r[at.clone()],
                            None => state,
                        };
                        let mut p = C::load::<L>(prev);
                        self.cipher.encrypt(&mut p);
                        C::store_xor(&p, &mut rest[0][at.clone()]);
                    }
                }
                // S_i = E(S_{i-1}), C_i = P_i ⊕ S_i.
                Feedback::Ofb => {
                    let mut p = C::load::<L>(state);
                    for r in self.rows.iter_mut() {
                        self.cipher.encrypt(&mut p);
                        C::store_xor(&p, &mut r[at.clone()]);
                    }
                    C::store(&p, state);
                }
            }
        }
        if self.feedback != Feedback::Ofb {
            if let Some(last) = self.rows.last() {
                self.state.copy_from_slice(last);
            }
        }
    }
}

/// A bitsliced backend's `encrypt_chain_rows`: the fused kernel at `width` when each row
/// is a whole number of batches, otherwise row by row through `backend`'s batches.
pub(crate) fn encrypt_chain_rows<B: BlockCipher, C: PlaneCipher>(
    backend: &B,
    cipher: &C,
    width: Width,
    feedback: Feedback,
    state: &mut [u8],
    rows: &mut [&mut [u8]],
) {
    if !state.len().is_multiple_of(C::BLOCK * width.lanes()) {
        for r in rows.iter_mut() {
            chains_by_rows(backend, feedback, state, r);
        }
        return;
    }
    run_kernel(
        width,
        &mut Chains {
            cipher,
            feedback,
            state,
            rows,
        },
    );
}
