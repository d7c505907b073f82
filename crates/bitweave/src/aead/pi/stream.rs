//! The incremental sponge: one message fed in pieces of any size. Every completed full
//! block is processed at once (the final block of AD or body is always the short, padded
//! one, so a full block never has to wait for more input); at most one partial block is
//! buffered. Bulk blocks go through the backend's fast path, the serial steps (initial π,
//! AD fold, SMN, final blocks) through the scalar π.
#![deny(unsafe_code)]

use zeroize::Zeroize;

use super::engine::{ABSORB, DECRYPT};
use super::layout::{
    block_words, counter, init_state, inject, rate, rate_bytes, store_words, RATE_WORDS,
    STATE_WORDS,
};
use super::word::Word;

/// The bulk path: `(mode, cis, first counter, full blocks, out, tag)`, see
/// [`super::engine::steps`].
pub type Steps<W> = fn(u8, &[W; STATE_WORDS], u64, &[u8], &mut [u8], &mut [W; 8]);

/// One message's sponge in progress. Secrets are wiped on drop.
pub struct Core<W: Word> {
    cis: [W; STATE_WORDS],
    /// Counter of the last step taken.
    ctr: u64,
    tag: [W; 8],
    buf: [u8; 64],
    len: usize,
    pi1: fn(&mut [W; STATE_WORDS]),
    steps: Steps<W>,
}

impl<W: Word> Drop for Core<W> {
    fn drop(&mut self) {
        self.cis.zeroize();
        self.tag.zeroize();
        self.buf.zeroize();
    }
}

impl<W: Word> Core<W> {
    /// The initial π on `key || npub || 1`.
    pub fn new(key: &[u8], npub: &[u8], pi1: fn(&mut [W; STATE_WORDS]), steps: Steps<W>) -> Self {
        let mut cis = init_state::<W>(key, npub);
        pi1(&mut cis);
        let ctr = counter(&cis);
        Core {
            cis,
            ctr,
            tag: [W::default(); 8],
            buf: [0; 64],
            len: 0,
            pi1,
            steps,
        }
    }

    /// One triplex step on a block of at most a rate (a short one is padded), output
    /// appended to `out` unless absorbing; returns the state after the second π.
    fn step(&mut self, mode: u8, data: &[u8], out: &mut Vec<u8>) -> [W; STATE_WORDS] {
        self.ctr = self.ctr.wrapping_add(1);
        let mut s = self.cis;
        inject(&mut s, self.ctr);
        (self.pi1)(&mut s);
        let ks = rate(&s);
        let pad = block_words::<W>(data);
        let mut v: [W; 8] = core::array::from_fn(|k| ks[k].xor(pad[k]));
        if mode != ABSORB {
            let mut bytes = [0u8; 64];
            store_words(&v, &mut bytes[..rate_bytes::<W>()]);
            out.extend_from_slice(&bytes[..data.len()]);
            if mode == DECRYPT {
                // The rate keeps the ciphertext bytes and keystream ^ padding beyond them,
                // as the encryptor had it: keystream ^ padded plaintext.
                let p = block_words::<W>(&bytes[..data.len()]);
                v = core::array::from_fn(|k| ks[k].xor(p[k]));
            }
            bytes.zeroize();
        }
        for (k, &i) in RATE_WORDS.iter().enumerate() {
            s[i] = v[k];
        }
        v.zeroize();
        (self.pi1)(&mut s);
        for (t, w) in self.tag.iter_mut().zip(rate(&s)) {
            *t = t.add(w);
        }
        s
    }

    /// Feeds bytes of AD (`ABSORB`) or body; output of every completed block is appended.
    pub fn feed(&mut self, mode: u8, mut input: &[u8], out: &mut Vec<u8>) {
        let rb = rate_bytes::<W>();
        if self.len > 0 {
            let take = (rb - self.len).min(input.len());
            self.buf[self.len..self.len + take].copy_from_slice(&input[..take]);
            self.len += take;
            input = &input[take..];
            if self.len < rb {
                return;
            }
            let block = self.buf;
            self.step(mode, &block[..rb], out).zeroize();
            self.len = 0;
        }
        let n = input.len() / rb * rb;
        if n > 0 {
            let start = out.len();
            if mode != ABSORB {
                out.resize(start + n, 0);
            }
            let o: &mut [u8] = if mode == ABSORB {
                &mut []
            } else {
                &mut out[start..]
            };
            (self.steps)(
                mode,
                &self.cis,
                self.ctr.wrapping_add(1),
                &input[..n],
                o,
                &mut self.tag,
            );
            self.ctr = self.ctr.wrapping_add((n / rb) as u64);
        }
        let rest = &input[n..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.len = rest.len();
    }

    /// The final, padded block of AD or body (what is buffered, possibly nothing).
    pub fn end(&mut self, mode: u8, out: &mut Vec<u8>) {
        let block = self.buf;
        let len = self.len;
        self.step(mode, &block[..len], out).zeroize();
        self.len = 0;
    }

    /// After the AD: the tag so far folded into the CIS, then π.
    pub fn fold(&mut self) {
        for (k, &i) in RATE_WORDS.iter().enumerate() {
            self.cis[i] = self.cis[i].xor(self.tag[k]);
        }
        (self.pi1)(&mut self.cis);
    }

    /// The SMN block (one rate): its output state becomes the CIS.
    pub fn smn(&mut self, mode: u8, data: &[u8], out: &mut Vec<u8>) {
        self.cis = self.step(mode, data, out);
    }

    /// The tag, serialised.
    pub fn tag(&self, out: &mut [u8]) {
        store_words(&self.tag, out);
    }
}
