//! Where bytes live in the π-Cipher state (PI-CIPHER.md §2, §4): the 16-word state as four
//! 4-word chunks, the rate (chunks I0 and I2), the 64-bit counter and the 10* padding. Shared
//! by the reference and the lane engine so both read the specification the same way.
#![deny(unsafe_code)]
// Word-sliced code indexes state word i of lane l; index loops say that most plainly.
#![allow(clippy::needless_range_loop)]

use super::word::{limbs, Word};

/// Words in the state: four chunks I0..I3 of four words.
pub const STATE_WORDS: usize = 16;
/// Rounds of π in v2 (the designers' reference; SUPERCOP's v2 `ref` wrongly uses 4).
pub const ROUNDS: usize = 3;
/// State word index of each rate word, in serialisation order (I0 then I2).
pub const RATE_WORDS: [usize; 8] = [0, 1, 2, 3, 8, 9, 10, 11];

/// Rate (= tag = SMN) length in bytes for word type `W`: 8 words.
pub const fn rate_bytes<W: Word>() -> usize {
    8 * W::BYTES
}

/// State length in bytes: 16 words.
pub const fn state_bytes<W: Word>() -> usize {
    STATE_WORDS * W::BYTES
}

/// The state before the initial π: `key || npub || 0x01 || 0…`, loaded little-endian.
pub fn init_state<W: Word>(key: &[u8], npub: &[u8]) -> [W; STATE_WORDS] {
    let mut buf = [0u8; 128];
    let n = state_bytes::<W>();
    debug_assert!(key.len() + npub.len() < n);
    buf[..key.len()].copy_from_slice(key);
    buf[key.len()..key.len() + npub.len()].copy_from_slice(npub);
    buf[key.len() + npub.len()] = 0x01;
    let mut s = [W::default(); STATE_WORDS];
    for (i, w) in s.iter_mut().enumerate() {
        *w = W::load_le(&buf[i * W::BYTES..]);
    }
    crate::bytes::wipe(&mut buf);
    s
}

/// ctr0: the first 64 bits of chunk I1 of the common internal state, low limb first.
pub fn counter<W: Word>(cis: &[W; STATE_WORDS]) -> u64 {
    (0..limbs::<W>()).fold(0, |a, i| a | cis[4 + i].to_limb(i))
}

/// XORs the 64-bit counter into the first words of chunk I0, low limb into word 0.
#[inline(always)]
pub fn inject<W: Word>(s: &mut [W; STATE_WORDS], ctr: u64) {
    for i in 0..limbs::<W>() {
        s[i] = s[i].xor(W::limb(ctr, i));
    }
}

/// The 8 rate words of `s`.
#[inline(always)]
pub fn rate<W: Word>(s: &[W; STATE_WORDS]) -> [W; 8] {
    RATE_WORDS.map(|i| s[i])
}

/// A data block of `len < RATE` bytes (or a full one) as the 8 words XORed into the rate:
/// a short block gets the 10* padding (0x01 after the data, then zeros).
#[inline(always)]
pub fn block_words<W: Word>(data: &[u8]) -> [W; 8] {
    let mut buf = [0u8; 64];
    let r = rate_bytes::<W>();
    buf[..data.len()].copy_from_slice(data);
    if data.len() < r {
        buf[data.len()] = 0x01;
    }
    let words = core::array::from_fn(|i| W::load_le(&buf[i * W::BYTES..]));
    crate::bytes::wipe(&mut buf);
    words
}

/// Serialises 8 rate words into `out[..len]` (the first `len` bytes, `len ≤ RATE`).
#[inline(always)]
pub fn store_words<W: Word>(words: &[W; 8], out: &mut [u8]) {
    let mut buf = [0u8; 64];
    for (i, w) in words.iter().enumerate() {
        w.store_le(&mut buf[i * W::BYTES..]);
    }
    let n = out.len();
    out.copy_from_slice(&buf[..n]);
    crate::bytes::wipe(&mut buf);
}

/// Number of blocks AD or a message of `len` bytes occupies: the full blocks plus the
/// always-present padded final block.
pub const fn blocks<W: Word>(len: usize) -> usize {
    len / rate_bytes::<W>() + 1
}

/// Block `b` of `data` (the final one may be short, even empty).
#[inline(always)]
pub fn block_of<W: Word>(data: &[u8], b: usize) -> &[u8] {
    let r = rate_bytes::<W>();
    let start = b * r;
    &data[start..(start + r).min(data.len())]
}
