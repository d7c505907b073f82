//! `armv8`: AES on the ARMv8 crypto extension's instructions (AESE/AESMC, AESD/AESIMC).
//!
//! **Constant-time**: the AES instructions run in data-independent time, and key setup
//! computes SubWord with `AESE` (no table), so nothing secret reaches a branch or an
//! address. The counter of CTR mode is added in the integer registers (add with carry,
//! no branch).
//!
//! `AESE` is AddRoundKey, SubBytes and ShiftRows in one (the key XOR comes *first*, where
//! x86's `AESENC` puts it last), and `AESMC` is MixColumns; cores fuse the pair. A round is
//! a few cycles of latency while the core starts one or two pairs per cycle, so batches
//! keep eight independent blocks in flight and cascade down (4, 2, 1) for a tail; serial
//! chains keep the feedback block in a register and fold whatever the next block XORs in
//! into the first round's key, so their critical path is the AES instructions alone.
//!
//! Nothing here is measured on ARM hardware: the tests run it under qemu, which checks
//! the bytes, not the speed.
#![allow(unsafe_code)]

use core::arch::aarch64::*;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::KeySchedule;
use crate::cipher::{cbc_decrypt_by_slabs, BlockCipher, Feedback, ModeKernels};
use crate::cpu::Feature;

/// The CPU features the backend needs.
pub const FEATURES: &[Feature] = &[Feature::Neon, Feature::ArmAes];

/// Blocks in flight in a batch.
pub const WIDTH: usize = 8;

/// Round keys in the byte order the instructions read, wiped on drop.
#[derive(Clone, Zeroize)]
#[repr(C, align(16))]
struct Keys([[u8; 16]; 15]);

impl Keys {
    /// Round key `r` as a vector.
    #[inline]
    #[target_feature(enable = "neon")]
    fn at(&self, r: usize) -> uint8x16_t {
        // SAFETY: `self.0[r]` is 16 readable bytes (an out-of-range `r` panics first).
        unsafe { vld1q_u8(self.0[r].as_ptr()) }
    }
}

/// AES on the ARMv8 crypto extension.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct AesArm {
    enc: Keys,
    /// Equivalent-inverse-cipher keys (FIPS-197 §5.3.5): reversed, InvMixColumns applied
    /// to the middle ones, as `AESD` + `AESIMC` expect.
    dec: Keys,
    rounds: usize,
}

impl AesArm {
    /// Keys the backend, or `None` when this CPU (under the tier cap) lacks the AES
    /// instructions.
    pub fn new(key: &[u8]) -> Option<Self> {
        if !crate::cpu::has_all(FEATURES) {
            return None;
        }
        // SAFETY: the check above confirmed NEON and the AES instructions.
        Some(unsafe { Self::expand(key) })
    }

    #[target_feature(enable = "neon,aes")]
    fn expand(key: &[u8]) -> Self {
        // The closure inherits `expand`'s target features.
        let ks = KeySchedule::with_sub_word(key, |w| sub_word(w));
        let rounds = ks.rounds();
        let mut enc = Keys([[0; 16]; 15]);
        let mut dec = Keys([[0; 16]; 15]);
        for r in 0..=rounds {
            enc.0[r] = ks.round_key_bytes(r);
        }
        for r in 0..=rounds {
            let k = enc.at(rounds - r);
            let k = if r == 0 || r == rounds {
                k
            } else {
                vaesimcq_u8(k)
            };
            // SAFETY: `dec.0[r]` is 16 writable bytes.
            unsafe { vst1q_u8(dec.0[r].as_mut_ptr(), k) };
        }
        AesArm { enc, dec, rounds }
    }
}

/// SubWord through `AESE` with a zero key: with the word in all four columns, ShiftRows
/// moves nothing that matters and SubBytes is the S-box, in constant time.
#[target_feature(enable = "neon,aes")]
fn sub_word(w: u32) -> u32 {
    let x = vreinterpretq_u8_u32(vdupq_n_u32(w.swap_bytes()));
    let y = vaeseq_u8(x, vdupq_n_u8(0));
    vgetq_lane_u32::<0>(vreinterpretq_u32_u8(y)).swap_bytes()
}

/// One full round: `AESE` + `AESMC` (encryption) or `AESD` + `AESIMC` (decryption with
/// the equivalent-inverse keys).
#[inline]
#[target_feature(enable = "neon,aes")]
fn round<const DEC: bool>(s: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
    if DEC {
        vaesimcq_u8(vaesdq_u8(s, k))
    } else {
        vaesmcq_u8(vaeseq_u8(s, k))
    }
}

/// The last round without MixColumns, then the final key XOR.
#[inline]
#[target_feature(enable = "neon,aes")]
fn last_round<const DEC: bool>(s: uint8x16_t, k: uint8x16_t, k_final: uint8x16_t) -> uint8x16_t {
    let s = if DEC {
        vaesdq_u8(s, k)
    } else {
        vaeseq_u8(s, k)
    };
    veorq_u8(s, k_final)
}

/// Blocks (an array of vectors) through the NR rounds, each round's key loaded once for
/// all of them. A macro, not a function: as a function it was too big to inline, and an
/// eight-block group then went to the stack and back around the call. The constant round
/// count lets the compiler unroll the rounds and keep the keys in registers.
macro_rules! blocks {
    ($keys:expr, $s:expr, $dec:expr, $nr:expr) => {{
        let keys: &Keys = $keys;
        let mut s = $s;
        for r in 0..$nr - 1 {
            let k = keys.at(r);
            for x in s.iter_mut() {
                *x = round::<{ $dec }>(*x, k);
            }
        }
        let (k, k_final) = (keys.at($nr - 1), keys.at($nr));
        for x in s.iter_mut() {
            *x = last_round::<{ $dec }>(*x, k, k_final);
        }
        s
    }};
}

/// Loads R blocks from `p`.
///
/// # Safety
/// `p` points to `16 * R` readable bytes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn load<const R: usize>(p: *const u8) -> [uint8x16_t; R] {
    // SAFETY: the caller guarantees 16 * R readable bytes.
    core::array::from_fn(|i| unsafe { vld1q_u8(p.add(16 * i)) })
}

/// Stores R blocks to `p`.
///
/// # Safety
/// `p` points to `16 * R` writable bytes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn store<const R: usize>(p: *mut u8, s: [uint8x16_t; R]) {
    for (i, x) in s.into_iter().enumerate() {
        // SAFETY: the caller guarantees 16 * R writable bytes.
        unsafe { vst1q_u8(p.add(16 * i), x) };
    }
}

/// Every block of `data` (whole blocks) in place: groups of eight, then one group of 4,
/// 2 and 1 as the tail needs.
#[target_feature(enable = "neon,aes")]
fn crypt<const DEC: bool, const NR: usize>(keys: &Keys, data: &mut [u8]) {
    let mut chunks = data.chunks_exact_mut(16 * WIDTH);
    for c in &mut chunks {
        // SAFETY: `c` is 16 * WIDTH bytes.
        unsafe {
            let s = load::<WIDTH>(c.as_ptr());
            store(c.as_mut_ptr(), blocks!(keys, s, DEC, NR));
        }
    }
    let mut tail = chunks.into_remainder();
    while !tail.is_empty() {
        let take = match tail.len() / 16 {
            4.. => 4,
            2 | 3 => 2,
            _ => 1,
        };
        let (c, rest) = tail.split_at_mut(16 * take);
        // SAFETY: `c` is 16 * take bytes.
        unsafe {
            match take {
                4 => store(
                    c.as_mut_ptr(),
                    blocks!(keys, load::<4>(c.as_ptr()), DEC, NR),
                ),
                2 => store(
                    c.as_mut_ptr(),
                    blocks!(keys, load::<2>(c.as_ptr()), DEC, NR),
                ),
                _ => store(
                    c.as_mut_ptr(),
                    blocks!(keys, load::<1>(c.as_ptr()), DEC, NR),
                ),
            }
        }
        tail = rest;
    }
}

/// One serial chain (`feedback`'s recurrence) with its feedback block in a register.
///
/// `AESE(x, k)` XORs `k` into `x` first, so whatever goes into the next block's input —
/// the last key, and the next plaintext for CBC or this one for CFB — is folded into
/// round 0's key off the critical path: the next block starts with
/// `AESE(t, k_last ⊕ v ⊕ k_0)`, where `t` is this block's state before its final key
/// XOR. The block's output needs one more XOR that nothing waits for.
#[target_feature(enable = "neon,aes")]
fn single_chain<const NR: usize>(keys: &Keys, fb: Feedback, state: &mut [u8], data: &mut [u8]) {
    let n = data.len() / 16;
    if n == 0 {
        return;
    }
    let ptr = data.as_mut_ptr();
    let at = |i: usize| {
        debug_assert!(i < n);
        // SAFETY: every call below passes `i < n`: the block lies inside `data`.
        unsafe { vld1q_u8(ptr.add(16 * i)) }
    };
    let (k0, k_last) = (keys.at(0), keys.at(NR));
    // SAFETY: `state` is one 16-byte block (the caller's chain state).
    let s = unsafe { vld1q_u8(state.as_ptr()) };
    // (x, key): the next block's input to its first AESE, and the key folded into it.
    let (mut x, mut key) = match fb {
        Feedback::Cbc => (s, veorq_u8(at(0), k0)),
        Feedback::Cfb | Feedback::Ofb => (s, k0),
    };
    let mut last_feedback = s;
    for i in 0..n {
        x = round::<false>(x, key);
        for r in 1..NR - 1 {
            x = round::<false>(x, keys.at(r));
        }
        let t = vaeseq_u8(x, keys.at(NR - 1));
        let e = veorq_u8(t, k_last);
        let (out, feedback, carry) = match fb {
            Feedback::Cbc => {
                let next = if i + 1 < n { at(i + 1) } else { vdupq_n_u8(0) };
                (e, e, next)
            }
            Feedback::Cfb => {
                let c = veorq_u8(e, at(i));
                (c, c, at(i))
            }
            Feedback::Ofb => (veorq_u8(e, at(i)), e, vdupq_n_u8(0)),
        };
        // SAFETY: block `i < n` lies inside `data`.
        unsafe { vst1q_u8(ptr.add(16 * i), out) };
        last_feedback = feedback;
        x = t;
        key = veorq_u8(veorq_u8(k_last, carry), k0);
    }
    // SAFETY: `state` is one 16-byte block.
    unsafe { vst1q_u8(state.as_mut_ptr(), last_feedback) };
}

/// Counter block `ctr` as a vector in big-endian byte order.
#[inline]
#[target_feature(enable = "neon")]
fn counter_block(ctr: u128) -> uint8x16_t {
    let hi = vcreate_u64(((ctr >> 64) as u64).swap_bytes());
    let lo = vcreate_u64((ctr as u64).swap_bytes());
    vreinterpretq_u8_u64(vcombine_u64(hi, lo))
}

/// XORs the keystream of counters `ctr .. ctr + R` into `data` (at most `16 * R` bytes;
/// the last block it reaches may be partial and goes through a stack copy that is
/// wiped).
#[inline]
#[target_feature(enable = "neon,aes")]
fn ctr_group<const R: usize, const NR: usize>(keys: &Keys, ctr: u128, data: &mut [u8]) {
    let s: [uint8x16_t; R] = core::array::from_fn(|i| counter_block(ctr.wrapping_add(i as u128)));
    let ks = blocks!(keys, s, false, NR);
    for (block, k) in data.chunks_mut(16).zip(ks) {
        if block.len() == 16 {
            // SAFETY: `block` is 16 bytes.
            unsafe { vst1q_u8(block.as_mut_ptr(), veorq_u8(vld1q_u8(block.as_ptr()), k)) };
        } else {
            let mut tmp = [0u8; 16];
            // SAFETY: `tmp` is 16 bytes.
            unsafe { vst1q_u8(tmp.as_mut_ptr(), k) };
            block.iter_mut().zip(&tmp).for_each(|(d, k)| *d ^= k);
            tmp.zeroize();
        }
    }
}

/// Counter mode: groups of eight counter blocks built in registers, then one group of
/// 4, 2 and 1 as the tail needs.
#[target_feature(enable = "neon,aes")]
fn ctr<const NR: usize>(keys: &Keys, counter: &mut [u8], data: &mut [u8]) {
    let mut ctr = u128::from_be_bytes(counter.try_into().expect("a 16-byte counter"));
    let mut chunks = data.chunks_mut(16 * WIDTH);
    for c in &mut chunks {
        let n = c.len().div_ceil(16);
        if n == WIDTH {
            ctr_group::<WIDTH, NR>(keys, ctr, c);
        } else {
            // The tail: at most one group each of 4, 2 and 1 registers.
            let (mut rest, mut at) = (c, ctr);
            while !rest.is_empty() {
                let take = match rest.len().div_ceil(16) {
                    4.. => 4,
                    2 | 3 => 2,
                    _ => 1,
                };
                let (g, r) = rest.split_at_mut(rest.len().min(16 * take));
                match take {
                    4 => ctr_group::<4, NR>(keys, at, g),
                    2 => ctr_group::<2, NR>(keys, at, g),
                    _ => ctr_group::<1, NR>(keys, at, g),
                }
                at = at.wrapping_add(take as u128);
                rest = r;
            }
        }
        ctr = ctr.wrapping_add(n as u128);
    }
    counter.copy_from_slice(&ctr.to_be_bytes());
}

/// CBC decryption of one stream: eight blocks decrypted together, each XORed with the
/// ciphertext block before it (kept in a register across groups).
#[target_feature(enable = "neon,aes")]
fn cbc_decrypt_one<const NR: usize>(keys: &Keys, prev: &mut [u8], data: &mut [u8]) {
    // SAFETY: `prev` is one 16-byte block.
    let mut behind = unsafe { vld1q_u8(prev.as_ptr()) };
    let mut chunks = data.chunks_exact_mut(16 * WIDTH);
    for c in &mut chunks {
        // SAFETY: `c` is 16 * WIDTH bytes.
        unsafe {
            let ct = load::<WIDTH>(c.as_ptr());
            let mut p = blocks!(keys, ct, true, NR);
            p[0] = veorq_u8(p[0], behind);
            for i in 1..WIDTH {
                p[i] = veorq_u8(p[i], ct[i - 1]);
            }
            behind = ct[WIDTH - 1];
            store(c.as_mut_ptr(), p);
        }
    }
    for c in chunks.into_remainder().chunks_exact_mut(16) {
        // SAFETY: `c` is 16 bytes.
        unsafe {
            let ct = vld1q_u8(c.as_ptr());
            let [p] = blocks!(keys, [ct], true, NR);
            vst1q_u8(c.as_mut_ptr(), veorq_u8(p, behind));
            behind = ct;
        }
    }
    // SAFETY: `prev` is one 16-byte block.
    unsafe { vst1q_u8(prev.as_mut_ptr(), behind) };
}

/// Runs `$call` with the const `NR` set to `$rounds` (10, 12 or 14), so every kernel is
/// compiled for each key size with its rounds unrolled.
macro_rules! per_rounds {
    ($rounds:expr, $call:expr) => {
        match $rounds {
            10 => {
                const NR: usize = 10;
                $call
            }
            12 => {
                const NR: usize = 12;
                $call
            }
            _ => {
                const NR: usize = 14;
                $call
            }
        }
    };
}

impl BlockCipher for AesArm {
    fn block_size(&self) -> usize {
        16
    }
    fn width(&self) -> usize {
        WIDTH
    }
    fn backend(&self) -> &'static str {
        "armv8"
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        // SAFETY: an AesArm exists only where `new` confirmed NEON and AES.
        unsafe { per_rounds!(self.rounds, crypt::<false, NR>(&self.enc, blocks)) }
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        // SAFETY: as in `encrypt_blocks`.
        unsafe { per_rounds!(self.rounds, crypt::<true, NR>(&self.dec, blocks)) }
    }
}

impl ModeKernels for AesArm {
    fn encrypt_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        if state.len() == 16 {
            // SAFETY: as in `encrypt_blocks`.
            unsafe {
                per_rounds!(
                    self.rounds,
                    single_chain::<NR>(&self.enc, feedback, state, data)
                )
            }
        } else {
            crate::cipher::chains_by_rows(self, feedback, state, data)
        }
    }
    fn ctr_keystream_xor(&self, counter: &mut [u8], data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { per_rounds!(self.rounds, ctr::<NR>(&self.enc, counter, data)) }
    }
    fn cbc_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        if prev.len() == 16 {
            // SAFETY: as in `encrypt_blocks`.
            unsafe { per_rounds!(self.rounds, cbc_decrypt_one::<NR>(&self.dec, prev, data)) }
        } else {
            cbc_decrypt_by_slabs(self, prev, data)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS-197 Appendix C.1 and C.3, both directions, through the batch path (9 blocks:
    /// a group of eight and a tail) and a single block.
    #[test]
    fn fips197_appendix_c() {
        let cases = [
            (
                "000102030405060708090a0b0c0d0e0f",
                "69c4e0d86a7b0430d8cdb78070b4c55a",
            ),
            (
                "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
                "8ea2b7ca516745bfeafc49904b496089",
            ),
        ];
        for (key, ct) in cases {
            let key = hex::decode(key).unwrap();
            let Some(aes) = AesArm::new(&key) else {
                let capped = crate::cpu::cap().ok().flatten().is_some();
                assert!(
                    capped || !crate::cpu::detected(Feature::ArmAes),
                    "armv8 unavailable on a CPU with the AES instructions"
                );
                eprintln!("skipped: aes on armv8 (the AES instructions are not reported)");
                return;
            };
            let pt = hex::decode("00112233445566778899aabbccddeeff").unwrap();
            for n in [1, 9] {
                let mut buf = pt.repeat(n);
                aes.encrypt_blocks(&mut buf);
                assert_eq!(
                    buf,
                    hex::decode(ct).unwrap().repeat(n),
                    "aes-{} armv8 encrypt",
                    8 * key.len()
                );
                aes.decrypt_blocks(&mut buf);
                assert_eq!(buf, pt.repeat(n), "aes-{} armv8 decrypt", 8 * key.len());
            }
        }
    }
}
