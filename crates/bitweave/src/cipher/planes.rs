//! Interleaved chains on a bitsliced cipher in one kernel call (MX-1 §3.2, Tables I/VI):
//! rows of N blocks, N a whole number of batches, each batch-wide column of the rows run
//! down all rows with the chain's XOR fused into the transposition — CBC XORs the previous
//! ciphertext into the rows as they are loaded, CFB XORs the keystream into the plaintext
//! as it is stored, and OFB keeps its state in plane form from row to row (no
//! transposition on the way in at all). No pass over memory of its own, so the chained
//! modes run at the cipher's ECB speed.
//!
//! ECB runs through the same kernel ([`ecb_batches`]): one compiled copy of the cipher
//! core serves every mode. Separate kernels measured 5–25 % apart on the same core (the
//! compiler spills and lays out each inlined copy of a 64- or 128-plane circuit its own
//! way), which would show up as a chained mode "slower than ECB" for no reason of its own.
#![deny(unsafe_code)]

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::cipher::{chains_as_rows, chains_by_rows, BlockCipher, Feedback, ModeKernels};
use crate::slice::{for_each_batch, run_kernel, Kernel, Lanes, Width};

/// A keyed bitsliced cipher as the chain kernel sees it: one batch of `64·WORDS` blocks
/// in plane form, loaded from blocks (or from the XOR of two block runs), run through the
/// cipher in place, stored (or XORed into the destination). Implementations are
/// `#[inline(always)]`, so they compile inside the kernel's SIMD context.
pub(crate) trait PlaneCipher {
    /// Bytes per block.
    const BLOCK: usize;
    /// One batch in plane form.
    type Planes<L: Lanes>: Copy;
    fn load<L: Lanes>(src: &[u8]) -> Self::Planes<L>;
    /// The planes of `src ⊕ other`.
    fn load_xor<L: Lanes>(src: &[u8], other: &[u8]) -> Self::Planes<L>;
    /// The keyed cipher on one batch, in place: encryption, or decryption for an
    /// instance that holds decryption keys (DES) or runs the inverse cipher (AES).
    fn crypt<L: Lanes>(&self, p: &mut Self::Planes<L>);
    fn store<L: Lanes>(p: &Self::Planes<L>, dst: &mut [u8]);
    /// `dst ^=` the blocks of `p`.
    fn store_xor<L: Lanes>(p: &Self::Planes<L>, dst: &mut [u8]);
}

/// The work of one interleaved-chain call: `state` is the N feedback blocks, `rows` the
/// rows (or one core's column group of them), each as long as `state`, a whole number of
/// batches at the width the kernel runs.
pub(crate) struct Chains<'a, 'r, C> {
    pub cipher: &'a C,
    /// `None`: independent batches (ECB), one per row; `state` is then empty.
    pub feedback: Option<Feedback>,
    pub state: &'a mut [u8],
    pub rows: &'a mut [&'r mut [u8]],
}

impl<C: PlaneCipher> Kernel for Chains<'_, '_, C> {
    #[inline(always)]
    fn run<L: Lanes>(&mut self) {
        let batch = 64 * C::BLOCK * L::WORDS;
        let fb = self.feedback;
        let width = if fb.is_some() {
            self.state.len()
        } else {
            batch
        };
        for col in (0..width).step_by(batch) {
            let at = col..col + batch;
            let state = &mut self.state[if fb.is_some() { at.clone() } else { 0..0 }];
            // OFB keeps its state in plane form from row to row (updated in place: a
            // batch of planes is 4–8 KiB, too much to copy per row).
            let mut carried = (fb == Some(Feedback::Ofb)).then(|| C::load::<L>(state));
            for i in 0..self.rows.len() {
                let (done, rest) = self.rows.split_at_mut(i);
                let prev: &[u8] = match done.last() {
                    Some(r) => &r[at.clone()],
                    None => state,
                };
                let cur = &mut rest[0][at.clone()];
                let mut fresh;
                let p = match carried.as_mut() {
                    Some(p) => p,
                    None => {
                        fresh = match fb {
                            // C_i = E(P_i ⊕ C_{i-1}).
                            Some(Feedback::Cbc) => C::load_xor::<L>(cur, prev),
                            // C_i = P_i ⊕ E(C_{i-1}).
                            Some(_) => C::load::<L>(prev),
                            None => C::load::<L>(cur),
                        };
                        &mut fresh
                    }
                };
                self.cipher.crypt(p);
                match fb {
                    None | Some(Feedback::Cbc) => C::store(p, cur),
                    Some(_) => C::store_xor(p, cur),
                }
            }
            if let Some(p) = &carried {
                C::store(p, state);
            }
        }
        if matches!(fb, Some(Feedback::Cbc | Feedback::Cfb)) {
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
            feedback: Some(feedback),
            state,
            rows,
        },
    );
}

/// ECB on a bitsliced cipher: whole batches of `data` at `width` through the chain kernel
/// (see the module note), a bounded number of batches per kernel call.
pub(crate) fn ecb_batches<C: PlaneCipher>(cipher: &C, width: Width, data: &mut [u8]) {
    const ROWS_PER_CALL: usize = 64;
    let batch = C::BLOCK * width.lanes();
    assert!(data.len().is_multiple_of(batch), "whole batches only");
    let mut rows: Vec<&mut [u8]> = Vec::with_capacity(ROWS_PER_CALL);
    for part in data.chunks_mut(ROWS_PER_CALL * batch) {
        rows.clear();
        rows.extend(part.chunks_exact_mut(batch));
        run_kernel(
            width,
            &mut Chains {
                cipher,
                feedback: None,
                state: &mut [],
                rows: &mut rows,
            },
        );
    }
}

/// CBC or CFB decryption of N interleaved streams (any N) on a bitsliced cipher, in
/// place: block x takes the ciphertext C_{x−N}, which is `prev` for the first row. Whole
/// batches run from the last to the first, so every C_{x−N} a batch reads is still
/// ciphertext (an earlier batch, or this one, already in planes) — no copy of the input
/// and no XOR pass of its own. CBC: P = D(C) ⊕ C_{x−N}, the previous ciphertext moved
/// into place before the planes are XORed into it; CFB: P = C ⊕ E(C_{x−N}).
struct BackwardDecrypt<'a, C> {
    cipher: &'a C,
    cfb: bool,
    /// The N ciphertext blocks before `data`.
    prev: &'a [u8],
    /// Whole batches.
    data: &'a mut [u8],
}

impl<C: PlaneCipher> Kernel for BackwardDecrypt<'_, C> {
    #[inline(always)]
    fn run<L: Lanes>(&mut self) {
        let batch = 64 * C::BLOCK * L::WORDS;
        let row = self.prev.len();
        let data = &mut *self.data;
        let mut scratch = Vec::new();
        for start in (0..data.len()).step_by(batch).rev() {
            let end = start + batch;
            // Where C_{x−N} for x in start..end lives: `data` from `row` on, `prev` before.
            let from_prev = start..row.min(end);
            if self.cfb {
                let mut p = if from_prev.is_empty() {
                    C::load::<L>(&data[start - row..end - row])
                } else {
                    scratch.clear();
                    scratch.extend_from_slice(&self.prev[from_prev.clone()]);
                    scratch.extend_from_slice(&data[..end.saturating_sub(row)]);
                    C::load::<L>(&scratch)
                };
                self.cipher.crypt(&mut p);
                C::store_xor(&p, &mut data[start..end]);
            } else {
                let mut p = C::load::<L>(&data[start..end]);
                self.cipher.crypt(&mut p);
                if end > row {
                    let first = start.max(row);
                    data.copy_within(first - row..end - row, first);
                }
                if !from_prev.is_empty() {
                    data[from_prev.clone()].copy_from_slice(&self.prev[from_prev]);
                }
                C::store_xor(&p, &mut data[start..end]);
            }
        }
    }
}

/// A bitsliced backend's `cbc_decrypt_rows` / `cfb_decrypt_rows`: `cipher` decrypts (CBC)
/// or encrypts (CFB). The tail after the whole batches goes first through the portable
/// slab loop (its previous row is still ciphertext then), then the batches backwards in
/// one kernel call; `prev` becomes the last row when `data` is whole rows.
pub(crate) fn decrypt_rows<B: BlockCipher, C: PlaneCipher>(
    backend: &B,
    cipher: &C,
    width: Width,
    cfb: bool,
    prev: &mut [u8],
    data: &mut [u8],
) {
    let row = prev.len();
    let batch = C::BLOCK * width.lanes();
    let whole = data.len() / batch * batch;
    if whole == 0 {
        return slab_decrypt(backend, cfb, prev, data);
    }
    let next_prev = (data.len() >= row && data.len().is_multiple_of(row))
        .then(|| data[data.len() - row..].to_vec());
    let (body, tail) = data.split_at_mut(whole);
    if !tail.is_empty() {
        // The row before the tail: ciphertext from `prev` and `body`, both intact.
        let mut before = prev[prev.len().min(whole)..].to_vec();
        before.extend_from_slice(&body[whole.saturating_sub(row)..]);
        slab_decrypt(backend, cfb, &mut before, tail);
    }
    run_kernel(
        width,
        &mut BackwardDecrypt {
            cipher,
            cfb,
            prev,
            data: body,
        },
    );
    if let Some(last) = next_prev {
        prev.copy_from_slice(&last);
    }
}

fn slab_decrypt<B: BlockCipher>(backend: &B, cfb: bool, prev: &mut [u8], data: &mut [u8]) {
    if cfb {
        crate::cipher::cfb_decrypt_by_slabs(backend, prev, data)
    } else {
        crate::cipher::cbc_decrypt_by_slabs(backend, prev, data)
    }
}

/// Round-key masks, one `u64` of all ones or all zeros per key bit and round, wiped at
/// memset speed when they drop. `zeroize` on a `Vec` clears its elements word by word
/// and then its whole allocation a byte at a time, with volatile stores: for 3DES's
/// 36 KiB of masks (then both directions; DES keeps one since) that was 12 µs of every new
/// key, a 1 KiB one-shot 3DES-ECB call with a new key taking 16 µs against 4 with a kept
/// one (Xeon family 6 model 207). Built at their exact length, so there is no spare
/// capacity to clear.
#[derive(Clone)]
pub(crate) struct KeyMasks<const N: usize>(Vec<[u64; N]>);

impl<const N: usize> KeyMasks<N> {
    pub(crate) fn new(masks: Vec<[u64; N]>) -> Self {
        KeyMasks(masks)
    }
}

impl<const N: usize> core::ops::Deref for KeyMasks<N> {
    type Target = [[u64; N]];
    fn deref(&self) -> &[[u64; N]] {
        &self.0
    }
}

impl<const N: usize> Zeroize for KeyMasks<N> {
    fn zeroize(&mut self) {
        crate::bytes::wipe(self.0.as_flattened_mut());
    }
}

impl<const N: usize> Drop for KeyMasks<N> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<const N: usize> ZeroizeOnDrop for KeyMasks<N> {}

/// A bitsliced cipher's keys: what a [`Sliced`] backend holds, handing out the cipher and
/// its inverse as the kernels run them. They wipe themselves on drop (as [`KeyMasks`]
/// do, at memset speed).
pub(crate) trait PlaneKeys: Clone + Send + Sync + Zeroize + ZeroizeOnDrop {
    /// The keyed cipher, as the kernels take it.
    type Cipher<'a>: PlaneCipher
    where
        Self: 'a;
    /// The cipher, or with `decrypt` the inverse cipher.
    fn cipher(&self, decrypt: bool) -> Self::Cipher<'_>;

    /// The width a message's short tail runs at when the backend runs at `width`:
    /// [`Width::tail`], unless the cipher's batches cost otherwise.
    fn tail(width: Width) -> Width {
        width.tail()
    }
}

/// A bitsliced backend at one lane width (`sliced64/128/256/512`), for any cipher with
/// [`PlaneKeys`]: ECB batches, interleaved chains and CBC/CFB decryption rows all run this
/// module's kernels, so AES and DES differ only in their keys and circuits. The keys wipe
/// themselves when they drop ([`PlaneKeys`]).
#[derive(Clone, Zeroize)]
pub(crate) struct Sliced<K: PlaneKeys> {
    keys: K,
    #[zeroize(skip)]
    width: Width,
}

impl<K: PlaneKeys> Sliced<K> {
    /// The backend with `keys` at `width`; the caller checked that this CPU runs
    /// `width` before it built the keys.
    pub(crate) fn with_keys(keys: K, width: Width) -> Self {
        Sliced { keys, width }
    }

    fn crypt(&self, data: &mut [u8], decrypt: bool) {
        let block = <K::Cipher<'_> as PlaneCipher>::BLOCK;
        for_each_batch(self.width, K::tail(self.width), block, data, |w, data| {
            ecb_batches(&self.keys.cipher(decrypt), w, data)
        });
    }
}

impl<K: PlaneKeys> BlockCipher for Sliced<K> {
    fn block_size(&self) -> usize {
        <K::Cipher<'_> as PlaneCipher>::BLOCK
    }
    fn width(&self) -> usize {
        self.width.lanes()
    }
    fn backend(&self) -> &'static str {
        self.width.backend_name()
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, false)
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, true)
    }
}

impl<K: PlaneKeys> ModeKernels for Sliced<K> {
    fn encrypt_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        chains_as_rows(self, feedback, state, data)
    }
    fn encrypt_chain_rows(&self, feedback: Feedback, state: &mut [u8], rows: &mut [&mut [u8]]) {
        let cipher = &self.keys.cipher(false);
        encrypt_chain_rows(self, cipher, self.width, feedback, state, rows)
    }
    fn cbc_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        decrypt_rows(self, &self.keys.cipher(true), self.width, false, prev, data)
    }
    /// CFB decryption runs the forward cipher.
    fn cfb_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        decrypt_rows(self, &self.keys.cipher(false), self.width, true, prev, data)
    }
}
