//! π-Cipher v2 encryption with every π computed by the PPE model, so a whole AEAD output can
//! be compared with the library's `PiCipher`. The mode (PI-CIPHER.md §4: initialisation,
//! counter, triplex steps, AD fold, SMN, message, tag) is written here once more; the byte
//! conventions (state loading, rate layout, padding) use the library's public `layout`
//! helpers, and every permutation runs as PPE programs ([`super::pi::run_pi`]).

use bitweave::aead::pi::layout::{
    block_of, blocks, counter, init_state, inject, rate, rate_bytes, store_words, RATE_WORDS,
    STATE_WORDS,
};
use bitweave::aead::pi::word::Word;

use super::pe::{PpeConfig, RunStats};
use super::pi::{run_pi, PiError};
use super::WordSize;

/// π on the PPE for a library word type; accumulates the cycle statistics.
pub struct PpePi {
    pub ws: WordSize,
    pub rounds: usize,
    pub config: PpeConfig,
    /// Permutations run.
    pub calls: u64,
    /// Cycles of all permutations (each from reset).
    pub cycles: u64,
}

impl PpePi {
    pub fn new(ws: WordSize, rounds: usize, config: PpeConfig) -> Self {
        PpePi {
            ws,
            rounds,
            config,
            calls: 0,
            cycles: 0,
        }
    }

    /// Applies π to `s` on the PPE.
    pub fn permute<W: Word>(&mut self, s: &mut [W; STATE_WORDS]) -> Result<RunStats, PiError> {
        let words: [u64; 16] = core::array::from_fn(|i| s[i].to_limb(0));
        let run = run_pi(self.ws, self.rounds, &words, &self.config)?;
        for (d, v) in s.iter_mut().zip(run.state) {
            *d = W::limb(v, 0);
        }
        self.calls += 1;
        self.cycles += run.stats.cycles;
        Ok(run.stats)
    }
}

/// One triplex step (PI-CIPHER.md §4 step 3) with counter value `ctr`: returns the state
/// after the second π; writes keystream ^ data to `out`.
fn step<W: Word>(
    pi: &mut PpePi,
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: Option<&mut [u8]>,
    tag: &mut [W; 8],
) -> Result<[W; STATE_WORDS], PiError> {
    let mut s = *cis;
    inject(&mut s, ctr);
    pi.permute(&mut s)?;
    let r = rate_bytes::<W>();
    let mut bytes = [0u8; 64];
    store_words(&rate(&s), &mut bytes[..r]);
    for (i, d) in data.iter().enumerate() {
        bytes[i] ^= d;
    }
    if let Some(o) = out {
        o.copy_from_slice(&bytes[..data.len()]);
    }
    if data.len() < r {
        bytes[data.len()] ^= 0x01;
    }
    for (k, &i) in RATE_WORDS.iter().enumerate() {
        s[i] = W::load_le(&bytes[k * W::BYTES..]);
    }
    pi.permute(&mut s)?;
    for (t, w) in tag.iter_mut().zip(rate(&s)) {
        *t = t.add(w);
    }
    Ok(s)
}

/// Encrypts to SUPERCOP's `E(nsec) || C || T` with every π on the PPE.
pub fn encrypt<W: Word>(
    pi: &mut PpePi,
    key: &[u8],
    npub: &[u8],
    nsec: &[u8],
    ad: &[u8],
    msg: &[u8],
) -> Result<Vec<u8>, PiError> {
    let r = rate_bytes::<W>();
    let mut c = vec![0u8; r + msg.len() + r];
    let mut cis = init_state::<W>(key, npub);
    pi.permute(&mut cis)?;
    let mut ctr = counter(&cis);
    let mut tag = [W::default(); 8];
    for b in 0..blocks::<W>(ad.len()) {
        ctr = ctr.wrapping_add(1);
        step(pi, &cis, ctr, block_of::<W>(ad, b), None, &mut tag)?;
    }
    for (k, &i) in RATE_WORDS.iter().enumerate() {
        cis[i] = cis[i].xor(tag[k]);
    }
    pi.permute(&mut cis)?;
    ctr = ctr.wrapping_add(1);
    cis = step(pi, &cis, ctr, nsec, Some(&mut c[..r]), &mut tag)?;
    for b in 0..blocks::<W>(msg.len()) {
        ctr = ctr.wrapping_add(1);
        let blk = block_of::<W>(msg, b);
        let o = &mut c[r + b * r..r + b * r + blk.len()];
        step(pi, &cis, ctr, blk, Some(o), &mut tag)?;
    }
    store_words(&tag, &mut c[r + msg.len()..]);
    Ok(c)
}
