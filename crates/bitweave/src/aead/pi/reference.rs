//! The plain reference: π-Cipher v2 exactly as PI-CIPHER.md states it, one block at a time,
//! written for reading rather than speed. Every fast path is tested against it.
#![deny(unsafe_code)]

use zeroize::Zeroize;

use super::layout::{
    block_of, blocks, counter, init_state, inject, rate, rate_bytes, store_words, RATE_WORDS,
    ROUNDS, STATE_WORDS,
};
use super::word::Word;
use super::Sealed;

/// Four words: one chunk of the state, one operand of `*`.
type Chunk<W> = [W; 4];

/// μ: the left operand's half of `*` (each sum leaves one input word out).
fn mu<W: Word>(x: Chunk<W>) -> Chunk<W> {
    let (c, r) = (W::C_MU, W::R_MU);
    let s0 = c[0].add(x[0]).add(x[1]).add(x[2]).rotl(r[0]);
    let s1 = c[1].add(x[0]).add(x[1]).add(x[3]).rotl(r[1]);
    let s2 = c[2].add(x[0]).add(x[2]).add(x[3]).rotl(r[2]);
    let s3 = c[3].add(x[1]).add(x[2]).add(x[3]).rotl(r[3]);
    [
        s0.xor(s1).xor(s3),
        s0.xor(s1).xor(s2),
        s1.xor(s2).xor(s3),
        s0.xor(s2).xor(s3),
    ]
}

/// ν: the right operand's half of `*`.
fn nu<W: Word>(y: Chunk<W>) -> Chunk<W> {
    let (c, r) = (W::C_NU, W::R_NU);
    let t0 = c[0].add(y[0]).add(y[2]).add(y[3]).rotl(r[0]);
    let t1 = c[1].add(y[1]).add(y[2]).add(y[3]).rotl(r[1]);
    let t2 = c[2].add(y[0]).add(y[1]).add(y[2]).rotl(r[2]);
    let t3 = c[3].add(y[0]).add(y[1]).add(y[3]).rotl(r[3]);
    [
        t1.xor(t2).xor(t3),
        t0.xor(t2).xor(t3),
        t0.xor(t1).xor(t3),
        t0.xor(t1).xor(t2),
    ]
}

/// σ: word-wise sum, then the word positions rotated left by one.
fn sigma<W: Word>(a: Chunk<W>, b: Chunk<W>) -> Chunk<W> {
    [
        a[1].add(b[1]),
        a[2].add(b[2]),
        a[3].add(b[3]),
        a[0].add(b[0]),
    ]
}

/// The ARX operation `X * Y = σ(μ(X), ν(Y))` (not symmetric). Public so that models of
/// ARX hardware (`bitweave-sim`'s PPE) can check each operation block against it.
pub fn star<W: Word>(x: Chunk<W>, y: Chunk<W>) -> Chunk<W> {
    sigma(mu(x), nu(y))
}

fn chunk<W: Word>(s: &[W; STATE_WORDS], i: usize) -> Chunk<W> {
    [s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]]
}

/// One round: E1 runs forward through the chunks from constant C, E2 backward from C'.
fn round<W: Word>(s: &mut [W; STATE_WORDS], r: usize) {
    let c: Chunk<W> = W::RC[8 * r..8 * r + 4].try_into().unwrap();
    let c2: Chunk<W> = W::RC[8 * r + 4..8 * r + 8].try_into().unwrap();
    let j0 = star(c, chunk(s, 0));
    let j1 = star(j0, chunk(s, 1));
    let j2 = star(j1, chunk(s, 2));
    let j3 = star(j2, chunk(s, 3));
    let i3 = star(j3, c2);
    let i2 = star(j2, i3);
    let i1 = star(j1, i2);
    let i0 = star(j0, i1);
    for (k, ch) in [i0, i1, i2, i3].iter().enumerate() {
        s[4 * k..4 * k + 4].copy_from_slice(ch);
    }
}

/// The permutation π: [`ROUNDS`] rounds.
pub fn pi<W: Word>(s: &mut [W; STATE_WORDS]) {
    for r in 0..ROUNDS {
        round(s, r);
    }
}

/// One sponge in progress: the common internal state, the counter, the tag accumulator.
struct Triplex<W: Word> {
    cis: [W; STATE_WORDS],
    ctr: u64,
    tag: [W; 8],
}

impl<W: Word> Drop for Triplex<W> {
    fn drop(&mut self) {
        self.cis.zeroize();
        self.tag.zeroize();
    }
}

/// What a triplex step does with its data block.
#[derive(Clone, Copy, PartialEq)]
enum Dir {
    /// The block is absorbed (AD, plaintext): rate ^= block; output = rate.
    Absorb,
    /// The block is ciphertext: output = rate ^ block, then the rate holds the ciphertext
    /// bytes (and keystream ^ padding beyond them), as the encryptor had it.
    Decrypt,
}

impl<W: Word> Triplex<W> {
    fn new(key: &[u8], npub: &[u8]) -> Self {
        let mut cis = init_state::<W>(key, npub);
        pi(&mut cis);
        let ctr = counter(&cis);
        Triplex {
            cis,
            ctr,
            tag: [W::default(); 8],
        }
    }

    /// One block with the next counter value; `out` (if any) gets `len` bytes of
    /// keystream ^ data (ciphertext when absorbing plaintext, plaintext when decrypting).
    /// Returns the state after the second π.
    fn step(&mut self, data: &[u8], mut out: Option<&mut [u8]>, dir: Dir) -> [W; STATE_WORDS] {
        self.ctr = self.ctr.wrapping_add(1);
        let mut s = self.cis;
        inject(&mut s, self.ctr);
        pi(&mut s);
        let mut bytes = [0u8; 64];
        let r = rate_bytes::<W>();
        store_words(&rate(&s), &mut bytes[..r]);
        let n = data.len();
        for i in 0..n {
            let v = bytes[i] ^ data[i];
            if let Some(o) = out.as_deref_mut() {
                o[i] = v;
            }
            bytes[i] = if dir == Dir::Decrypt { data[i] } else { v };
        }
        if n < r {
            bytes[n] ^= 0x01;
        }
        for (k, &i) in RATE_WORDS.iter().enumerate() {
            s[i] = W::load_le(&bytes[k * W::BYTES..]);
        }
        bytes.zeroize();
        pi(&mut s);
        for (t, w) in self.tag.iter_mut().zip(rate(&s)) {
            *t = t.add(w);
        }
        s
    }

    /// AD blocks, then the fold of the tag accumulator into the CIS.
    fn absorb_ad(&mut self, ad: &[u8]) {
        for b in 0..blocks::<W>(ad.len()) {
            let mut s = self.step(block_of::<W>(ad, b), None, Dir::Absorb);
            s.zeroize();
        }
        for (k, &i) in RATE_WORDS.iter().enumerate() {
            self.cis[i] = self.cis[i].xor(self.tag[k]);
        }
        pi(&mut self.cis);
    }

    /// The SMN block: its output state becomes the CIS of the message blocks.
    fn smn(&mut self, data: &[u8], out: &mut [u8], dir: Dir) {
        self.cis = self.step(data, Some(out), dir);
    }

    fn message(&mut self, data: &[u8], out: &mut [u8], dir: Dir) {
        let r = rate_bytes::<W>();
        for b in 0..blocks::<W>(data.len()) {
            let blk = block_of::<W>(data, b);
            let mut s = self.step(blk, Some(&mut out[b * r..b * r + blk.len()]), dir);
            s.zeroize();
        }
    }

    fn tag(&self, out: &mut [u8]) {
        store_words(&self.tag, out);
    }
}

/// Encrypts: returns `E(nsec) || C || T` (no `E(nsec)` when `nsec` is `None`, ref2's
/// no-SMN mode). Lengths are checked by the caller.
pub fn encrypt<W: Word>(
    key: &[u8],
    npub: &[u8],
    nsec: Option<&[u8]>,
    ad: &[u8],
    msg: &[u8],
) -> Vec<u8> {
    let r = rate_bytes::<W>();
    let smn_len = if nsec.is_some() { r } else { 0 };
    let mut c = vec![0u8; smn_len + msg.len() + r];
    let mut t = Triplex::<W>::new(key, npub);
    t.absorb_ad(ad);
    if let Some(n) = nsec {
        t.smn(n, &mut c[..r], Dir::Absorb);
    }
    t.message(msg, &mut c[smn_len..smn_len + msg.len()], Dir::Absorb);
    t.tag(&mut c[smn_len + msg.len()..]);
    c
}

/// Decrypts `c` (already length-checked) into `(nsec, plaintext, computed tag)`; the caller
/// compares the tag and releases nothing on mismatch.
pub fn decrypt<W: Word>(key: &[u8], npub: &[u8], with_nsec: bool, ad: &[u8], c: &[u8]) -> Sealed {
    let r = rate_bytes::<W>();
    let smn_len = if with_nsec { r } else { 0 };
    let mlen = c.len() - smn_len - r;
    let mut out = Sealed::new(smn_len, mlen, r);
    let mut t = Triplex::<W>::new(key, npub);
    t.absorb_ad(ad);
    if with_nsec {
        t.smn(&c[..r], &mut out.nsec, Dir::Decrypt);
    }
    t.message(
        &c[smn_len..smn_len + mlen],
        &mut out.plaintext,
        Dir::Decrypt,
    );
    t.tag(&mut out.tag);
    out
}
