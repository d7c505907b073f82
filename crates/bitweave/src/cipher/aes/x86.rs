//! `aesni`, `vaes256`, `vaes512`: AES on the x86 AES instructions.
//!
//! **Constant-time**: the AES instructions run in data-independent time, and key setup
//! computes SubWord with `AESENCLAST` (no table), so nothing secret reaches a branch or an
//! address.
//!
//! Throughput comes from blocks in flight: one `AESENC` has a latency of several cycles
//! but the CPU starts one or two per cycle, so each backend keeps eight independent
//! registers busy per round — 8 blocks (`aesni`, 128-bit), 16 (`vaes256`, two blocks per
//! ymm) or 32 (`vaes512`, four per zmm) — and cascades down for a tail: full-width
//! groups, then one register at a time, then single blocks on AES-NI.
//!
//! Serial chains (`encrypt_chains` with one stream) keep the feedback block in a register
//! for the whole run, so standard CBC/CFB/OFB encryption pays only the instruction
//! latency per block; several chains go to the batch path one row at a time.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::KeySchedule;
use crate::cipher::{
    prefetch_ahead, BlockCipher, Feedback, ModeKernels, STREAMED_BYTES, STREAM_PREFETCH_BYTES,
};
use crate::cpu::Feature;

/// Which instruction set a keyed [`AesX86`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// 128-bit AES-NI, 8 blocks in flight.
    AesNi,
    /// VAES on 256-bit registers, 16 blocks in flight.
    Vaes256,
    /// VAES on 512-bit registers (AVX-512F), 32 blocks in flight.
    Vaes512,
}

impl Level {
    /// Whether this CPU can run the level (under the tier cap, see [`crate::cpu`]).
    pub fn available(self) -> bool {
        crate::cpu::has_all(self.features())
    }

    /// The registry name.
    pub fn name(self) -> &'static str {
        match self {
            Level::AesNi => "aesni",
            Level::Vaes256 => "vaes256",
            Level::Vaes512 => "vaes512",
        }
    }

    /// The CPU features it needs.
    pub fn features(self) -> &'static [Feature] {
        use Feature::*;
        match self {
            Level::AesNi => &[Aes, Sse2],
            Level::Vaes256 => &[Aes, Vaes, Avx2],
            // AVX2 too: its small-message and tail paths are VAES-256's.
            Level::Vaes512 => &[Aes, Vaes, Avx2, Avx512f, Avx512bw],
        }
    }

    /// Blocks in flight.
    pub fn width(self) -> usize {
        match self {
            Level::AesNi => 8,
            Level::Vaes256 => 16,
            Level::Vaes512 => 32,
        }
    }
}

/// Round keys, wiped on drop, stored as the kernels read them: 16 bytes per round, and
/// each round's key repeated for the two lanes of VAES-256. Kernels use them as vectors
/// where they are; a copy or broadcast per call cost as much as the rounds themselves on
/// a 16-byte message.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
struct RoundKeys {
    x1: Keys128,
    x2: Keys256,
}

#[derive(Clone)]
#[repr(C, align(16))]
struct Keys128([[u8; 16]; 15]);

#[derive(Clone)]
#[repr(C, align(32))]
struct Keys256([[u8; 32]; 15]);

// Wiped at memset speed: `zeroize`'s byte-by-byte volatile stores over both directions'
// 1,440 bytes were most of a `Cipher::new` (0.8 µs of it on Zen 4).
impl Zeroize for Keys128 {
    fn zeroize(&mut self) {
        crate::bytes::wipe(&mut self.0);
    }
}

impl Zeroize for Keys256 {
    fn zeroize(&mut self) {
        crate::bytes::wipe(&mut self.0);
    }
}

impl RoundKeys {
    fn from_bytes(bytes: &[[u8; 16]; 15]) -> Self {
        let mut x2 = Keys256([[0; 32]; 15]);
        for (w, k) in x2.0.iter_mut().zip(bytes) {
            w[..16].copy_from_slice(k);
            w[16..].copy_from_slice(k);
        }
        RoundKeys {
            x1: Keys128(*bytes),
            x2,
        }
    }

    /// The round keys as 128-bit vectors, in place.
    fn v128(&self) -> &[__m128i; 15] {
        // SAFETY: Keys128 is 15 × 16 bytes aligned to 16, the layout of [__m128i; 15], and
        // every bit pattern is a valid __m128i.
        unsafe { &*(&self.x1 as *const Keys128).cast::<[__m128i; 15]>() }
    }

    /// The round keys in both lanes of 256-bit vectors, in place.
    fn v256(&self) -> &[__m256i; 15] {
        // SAFETY: Keys256 is 15 × 32 bytes aligned to 32, the layout of [__m256i; 15].
        unsafe { &*(&self.x2 as *const Keys256).cast::<[__m256i; 15]>() }
    }
}

/// AES on the x86 AES instructions at a given [`Level`].
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct AesX86 {
    enc: RoundKeys,
    /// Equivalent-inverse-cipher keys (FIPS-197 §5.3.5): reversed, InvMixColumns applied
    /// to the middle ones, as `AESDEC` expects.
    dec: RoundKeys,
    rounds: usize,
    #[zeroize(skip)]
    level: Level,
}

impl AesX86 {
    /// Keys the backend, or `None` when this CPU lacks `level`.
    pub fn new(key: &[u8], level: Level) -> Option<Self> {
        if !level.available() {
            return None;
        }
        // SAFETY: `level.available()` checked AES-NI and SSE2 above.
        Some(unsafe { Self::expand(key, level) })
    }

    #[target_feature(enable = "aes,sse2")]
    unsafe fn expand(key: &[u8], level: Level) -> Self {
        let ks = KeySchedule::with_sub_word(key, |w| sub_word_aesni(w));
        let rounds = ks.rounds();
        let mut enc = [[0u8; 16]; 15];
        let mut dec = [[0u8; 16]; 15];
        for (r, k) in enc.iter_mut().enumerate().take(rounds + 1) {
            *k = ks.round_key_bytes(r);
        }
        for r in 0..=rounds {
            let k = _mm_loadu_si128(enc[rounds - r].as_ptr().cast());
            let k = if r == 0 || r == rounds {
                k
            } else {
                _mm_aesimc_si128(k)
            };
            _mm_storeu_si128(dec[r].as_mut_ptr().cast(), k);
        }
        let aes = AesX86 {
            enc: RoundKeys::from_bytes(&enc),
            dec: RoundKeys::from_bytes(&dec),
            rounds,
            level,
        };
        crate::bytes::wipe(&mut enc);
        crate::bytes::wipe(&mut dec);
        aes
    }

    fn crypt(&self, blocks: &mut [u8], decrypt: bool) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        let keys = if decrypt { &self.dec } else { &self.enc };
        // SAFETY: an AesX86 exists only for a level `Level::available()` confirmed (every
        // level has AES-NI).
        unsafe {
            if blocks.len() == 16 {
                // One block (a serial CFB8/CFB1 step): no wide round keys to build.
                return one_block_aesni(keys, self.rounds, blocks, decrypt);
            }
            match (self.level, decrypt) {
                (Level::AesNi, false) => crypt_aesni::<false>(keys, self.rounds, blocks),
                (Level::AesNi, true) => crypt_aesni::<true>(keys, self.rounds, blocks),
                (Level::Vaes256, false) => crypt_vaes256::<false>(keys, self.rounds, blocks),
                (Level::Vaes256, true) => crypt_vaes256::<true>(keys, self.rounds, blocks),
                // Under 4 KiB VAES-256 is faster: VAES-512 broadcasts its 15 round keys per
                // call (Zen 4, ECB encryption: 64 B 0.80 against 0.57 c/B, 256 B 0.22 against
                // 0.17, 1 KiB 0.14 against 0.13, 2 KiB 0.14 against 0.12; equal at 4 KiB).
                (Level::Vaes512, false) if blocks.len() < VAES512_MIN_BATCH => {
                    crypt_vaes256::<false>(keys, self.rounds, blocks)
                }
                (Level::Vaes512, true) if blocks.len() < VAES512_MIN_BATCH => {
                    crypt_vaes256::<true>(keys, self.rounds, blocks)
                }
                (Level::Vaes512, false) => crypt_vaes512::<false>(keys, self.rounds, blocks),
                (Level::Vaes512, true) => crypt_vaes512::<true>(keys, self.rounds, blocks),
            }
        }
    }
}

/// Batches (ECB, and the batch path of other modes) under this many bytes run VAES-256's
/// kernel on a VAES-512 backend (measured; see `AesX86::crypt`).
const VAES512_MIN_BATCH: usize = 4096;

/// CTR calls under this many bytes run VAES-256's kernel on a VAES-512 backend: below
/// four groups the per-call set-up is not repaid (Zen 4: 512 B 0.24 c/B against 0.21 on
/// VAES-256, 1 KiB 0.18 against 0.17; even at 2 KiB).
const VAES512_MIN_CTR: usize = 2048;

/// Single-stream CBC/CFB decryptions under one 512-byte group run VAES-256's kernel on a
/// VAES-512 backend (it sizes its registers to them).
const VAES512_MIN_STREAM: usize = 512;

/// SubWord through `AESENCLAST` with a zero key: with the word in all four columns,
/// ShiftRows moves nothing that matters and SubBytes is the S-box, in constant time.
#[target_feature(enable = "aes,sse2")]
fn sub_word_aesni(w: u32) -> u32 {
    let x = _mm_set1_epi32(w.swap_bytes() as i32);
    let y = _mm_aesenclast_si128(x, _mm_setzero_si128());
    (_mm_cvtsi128_si32(y) as u32).swap_bytes()
}

/// One block through all rounds.
#[target_feature(enable = "aes,sse2")]
fn block_aesni<const DEC: bool>(k: &[__m128i; 15], rounds: usize, mut s: __m128i) -> __m128i {
    s = _mm_xor_si128(s, k[0]);
    for kr in &k[1..rounds] {
        s = if DEC {
            _mm_aesdec_si128(s, *kr)
        } else {
            _mm_aesenc_si128(s, *kr)
        };
    }
    if DEC {
        _mm_aesdeclast_si128(s, k[rounds])
    } else {
        _mm_aesenclast_si128(s, k[rounds])
    }
}

/// One block in place through AES-NI.
#[target_feature(enable = "aes,sse2")]
unsafe fn one_block_aesni(keys: &RoundKeys, rounds: usize, block: &mut [u8], decrypt: bool) {
    let k = keys.v128();
    let x = _mm_loadu_si128(block.as_ptr().cast());
    let y = if decrypt {
        block_aesni::<true>(k, rounds, x)
    } else {
        block_aesni::<false>(k, rounds, x)
    };
    _mm_storeu_si128(block.as_mut_ptr().cast(), y);
}

/// Bytes of address range per pass of the interleaved-chain groups: a slab that stays in
/// L2 (1 MiB per core here) together with the next one, which its groups prefetch.
const CHAIN_SLAB_BYTES: usize = 256 * 1024;

/// The least share of every row a thread gets when interleaved chains stream from
/// memory. With narrower shares two threads ran slower than one on 64 MiB (128 chains,
/// 1 KiB shares: 0.72×; 256 chains, 2 KiB: 0.91×; 512 chains, 4 KiB: 1.08×) — likely
/// each thread's hardware prefetchers fetching lines of its neighbour's columns — while
/// from the caches the same splits gain 1.28×, 1.35× and 1.49× (8 MiB).
const MIN_STREAMED_SHARE: usize = 4096;

/// AES encryption rounds 1 to `rounds` of a block whose round-0 XOR is done: the
/// shift-register modes fold their feedback into that XOR.
#[target_feature(enable = "aes,sse2")]
fn rounds_after_first(k: &[__m128i; 15], rounds: usize, mut s: __m128i) -> __m128i {
    for kr in &k[1..rounds] {
        s = _mm_aesenc_si128(s, *kr);
    }
    _mm_aesenclast_si128(s, k[rounds])
}

/// CFB8 encryption with the shift register in an XMM register: per byte one AES-NI block
/// (the latency chain) and two vector operations after it. The register's byte shift and
/// the plaintext byte do not depend on the keystream, so they are ready (with round key
/// 0) before it: the next input is `(k0 ⊕ shift(r) ⊕ p at byte 15) ⊕ (E(r) moved to byte
/// 15)`, since C = P ⊕ E(r)₀ lands in byte 15.
#[target_feature(enable = "aes,sse2")]
unsafe fn cfb8_encrypt_aesni(keys: &RoundKeys, rounds: usize, reg: &mut [u8], data: &mut [u8]) {
    let k = keys.v128();
    let mut r = _mm_loadu_si128(reg.as_ptr().cast());
    let mut x = _mm_xor_si128(r, k[0]);
    for b in data.iter_mut() {
        let ks = rounds_after_first(k, rounds, x);
        let p = _mm_slli_si128(_mm_cvtsi32_si128(*b as i32), 15);
        let ready = _mm_xor_si128(_mm_srli_si128(r, 1), p);
        r = _mm_xor_si128(ready, _mm_slli_si128(ks, 15));
        x = _mm_xor_si128(_mm_xor_si128(ready, k[0]), _mm_slli_si128(ks, 15));
        *b ^= _mm_cvtsi128_si32(ks) as u8;
    }
    _mm_storeu_si128(reg.as_mut_ptr().cast(), r);
}

/// CFB1 encryption with the shift register in an XMM register, in the block's byte
/// order: per bit one AES-NI block (the latency chain) and four vector operations after
/// it. The register's one-bit shift (each byte doubled and topped up with the top bit of
/// the byte after it) and the plaintext bit do not depend on the keystream, so they are
/// ready (with round key 0) before it; after it, only the keystream's first bit is moved
/// to the register's last bit.
#[target_feature(enable = "aes,sse2")]
unsafe fn cfb1_encrypt_aesni(keys: &RoundKeys, rounds: usize, reg: &mut [u8], data: &mut [u8]) {
    let k = keys.v128();
    let ones = _mm_set1_epi8(1);
    let last_bit = _mm_slli_si128(_mm_cvtsi32_si128(1), 15);
    let mut r = _mm_loadu_si128(reg.as_ptr().cast());
    let mut x = _mm_xor_si128(r, k[0]);
    for b in data.iter_mut() {
        let mut out = 0u8;
        for bit in (0..8).rev() {
            let ks = rounds_after_first(k, rounds, x);
            let p = (*b >> bit) & 1;
            let shifted = _mm_or_si128(
                _mm_add_epi8(r, r),
                _mm_and_si128(_mm_srli_epi16(_mm_srli_si128(r, 1), 7), ones),
            );
            let ready = _mm_xor_si128(shifted, _mm_slli_si128(_mm_cvtsi32_si128(p as i32), 15));
            // The keystream's top bit (bit 7 of byte 0) to bit 0 of byte 15.
            let c = _mm_and_si128(_mm_slli_si128(_mm_srli_epi64(ks, 7), 15), last_bit);
            r = _mm_xor_si128(ready, c);
            x = _mm_xor_si128(_mm_xor_si128(ready, k[0]), c);
            out |= (p ^ ((_mm_cvtsi128_si32(ks) as u8) >> 7)) << bit;
        }
        *b = out;
    }
    _mm_storeu_si128(reg.as_mut_ptr().cast(), r);
}

/// Defines a batch function: groups of eight registers of `$lanes` blocks each, then the
/// remaining registers as one group, then single blocks on AES-NI.
macro_rules! batch_fn {
    ($name:ident, $features:literal, $vec:ty, $lanes:literal,
     $load:ident, $store:ident, $keys:expr, $xor:ident, $enc:ident, $enclast:ident, $dec:ident, $declast:ident) => {
        #[target_feature(enable = $features)]
        unsafe fn $name<const DEC: bool>(keys: &RoundKeys, rounds: usize, blocks: &mut [u8]) {
            const REG: usize = 16 * $lanes;
            let k128 = keys.v128();
            let k = $keys(keys);
            let round = |s: $vec, kr: $vec| if DEC { $dec(s, kr) } else { $enc(s, kr) };
            let last = |s: $vec, kr: $vec| {
                if DEC {
                    $declast(s, kr)
                } else {
                    $enclast(s, kr)
                }
            };
            let len = blocks.len();
            let mut groups = blocks.chunks_exact_mut(8 * REG);
            for (n, g) in (&mut groups).enumerate() {
                let p = g.as_mut_ptr();
                prefetch_ahead::<{ 8 * REG / 64 }>(p, len - n * 8 * REG);
                let mut s: [$vec; 8] = core::array::from_fn(|i| {
                    // SAFETY: the group holds 8 registers' worth of bytes.
                    $xor(unsafe { $load(p.add(i * REG).cast()) }, k[0])
                });
                for kr in &k[1..rounds] {
                    s = s.map(|x| round(x, *kr));
                }
                for (i, x) in s.iter().enumerate() {
                    // SAFETY: as above.
                    unsafe { $store(p.add(i * REG).cast(), last(*x, k[rounds])) };
                }
            }
            // The tail's registers (up to seven) run as one group in step, so their
            // rounds interleave: one register at a time, 4 AES-NI blocks (64 B) ran at
            // 1.01 c/B on Zen 4, against 0.58 for OpenSSL's interleaved tail.
            let rest = groups.into_remainder();
            let nregs = rest.len() / REG;
            let (regs, singles) = rest.split_at_mut(nregs * REG);
            let p = regs.as_mut_ptr();
            match nregs {
                0 => {}
                1 => tail::<1, DEC>(&k, rounds, p),
                2 => tail::<2, DEC>(&k, rounds, p),
                3 => tail::<3, DEC>(&k, rounds, p),
                4 => tail::<4, DEC>(&k, rounds, p),
                5 => tail::<5, DEC>(&k, rounds, p),
                6 => tail::<6, DEC>(&k, rounds, p),
                _ => tail::<7, DEC>(&k, rounds, p),
            }
            /// R registers at `p` through every round, in step.
            #[target_feature(enable = $features)]
            unsafe fn tail<const R: usize, const DEC: bool>(
                k: &[$vec; 15],
                rounds: usize,
                p: *mut u8,
            ) {
                // SAFETY (loads and stores): the caller's tail holds R registers at `p`.
                let mut s: [$vec; R] =
                    core::array::from_fn(|i| $xor(unsafe { $load(p.add(i * REG).cast()) }, k[0]));
                for kr in &k[1..rounds] {
                    s = s.map(|x| if DEC { $dec(x, *kr) } else { $enc(x, *kr) });
                }
                for (i, x) in s.into_iter().enumerate() {
                    let y = if DEC {
                        $declast(x, k[rounds])
                    } else {
                        $enclast(x, k[rounds])
                    };
                    unsafe { $store(p.add(i * REG).cast(), y) };
                }
            }
            for b in singles.chunks_exact_mut(16) {
                let x = _mm_loadu_si128(b.as_ptr().cast());
                _mm_storeu_si128(b.as_mut_ptr().cast(), block_aesni::<DEC>(&k128, rounds, x));
            }
        }
    };
}

batch_fn!(
    crypt_aesni,
    "aes,sse2",
    __m128i,
    1,
    _mm_loadu_si128,
    _mm_storeu_si128,
    RoundKeys::v128,
    _mm_xor_si128,
    _mm_aesenc_si128,
    _mm_aesenclast_si128,
    _mm_aesdec_si128,
    _mm_aesdeclast_si128
);
batch_fn!(
    crypt_vaes256,
    "aes,sse2,avx2,vaes",
    __m256i,
    2,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    RoundKeys::v256,
    _mm256_xor_si256,
    _mm256_aesenc_epi128,
    _mm256_aesenclast_epi128,
    _mm256_aesdec_epi128,
    _mm256_aesdeclast_epi128
);
batch_fn!(
    crypt_vaes512,
    "aes,sse2,avx512f,vaes",
    __m512i,
    4,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    |k: &RoundKeys| k.v128().map(|x| _mm512_broadcast_i32x4(x)),
    _mm512_xor_si512,
    _mm512_aesenc_epi128,
    _mm512_aesenclast_epi128,
    _mm512_aesdec_epi128,
    _mm512_aesdeclast_epi128
);

/// One serial chain with its feedback block held in a register for the whole run.
///
/// The chain's critical path is exactly the AES instructions: whatever the next block
/// XORs into the chain (the next plaintext and round key 0 for CBC, this plaintext and
/// key 0 for CFB, key 0 for OFB) is folded into the last round's key, off the path,
/// because `AESENCLAST(x, k ⊕ v) = AESENCLAST(x, k) ⊕ v`; the output block is recovered
/// with one more XOR that nothing waits for.
#[target_feature(enable = "aes,sse2")]
unsafe fn single_chain(
    keys: &RoundKeys,
    rounds: usize,
    fb: Feedback,
    state: &mut [u8],
    data: &mut [u8],
) {
    let n = data.len() / 16;
    if n == 0 {
        return;
    }
    let k = keys.v128();
    let (k0, klast) = (k[0], k[rounds]);
    let ptr = data.as_mut_ptr();
    let load = |i: usize| _mm_loadu_si128(ptr.add(16 * i).cast());
    let s = _mm_loadu_si128(state.as_ptr().cast());
    // x: the next block's state after AddRoundKey 0.
    let mut x = match fb {
        Feedback::Cbc => _mm_xor_si128(_mm_xor_si128(s, load(0)), k0),
        Feedback::Cfb | Feedback::Ofb => _mm_xor_si128(s, k0),
    };
    let mut last_feedback = s;
    for i in 0..n {
        for kr in &k[1..rounds] {
            x = _mm_aesenc_si128(x, *kr);
        }
        let carry = match fb {
            Feedback::Cbc if i + 1 < n => _mm_xor_si128(load(i + 1), k0),
            Feedback::Cbc => _mm_setzero_si128(),
            Feedback::Cfb => _mm_xor_si128(load(i), k0),
            Feedback::Ofb => k0,
        };
        let t = _mm_aesenclast_si128(x, _mm_xor_si128(klast, carry));
        let (out, feedback) = match fb {
            Feedback::Cbc => {
                let c = _mm_xor_si128(t, carry);
                (c, c)
            }
            Feedback::Cfb => {
                let c = _mm_xor_si128(t, k0);
                (c, c)
            }
            Feedback::Ofb => {
                let o = _mm_xor_si128(t, k0);
                (_mm_xor_si128(o, load(i)), o)
            }
        };
        _mm_storeu_si128(ptr.add(16 * i).cast(), out);
        last_feedback = feedback;
        x = t;
    }
    _mm_storeu_si128(state.as_mut_ptr().cast(), last_feedback);
}

/// Defines a multi-chain function: N chains (N a multiple of the register's lanes) in
/// groups of up to eight registers; each group's feedback blocks stay in registers while
/// it runs down all rows (a group's chains depend only on the same columns of the row
/// before), so eight independent registers hide the AES latency as in ECB.
macro_rules! chains_fn {
    ($name:ident, $features:literal, $vec:ty, $lanes:literal, $max_group:literal,
     $load:ident, $store:ident, $keys:expr, $xor:ident, $enc:ident, $enclast:ident) => {
        /// Returns false (doing nothing) when N is not a multiple of the lanes. `ahead`
        /// are the rows that follow (the next slab), only prefetched.
        #[target_feature(enable = $features)]
        unsafe fn $name(
            keys: &RoundKeys,
            rounds: usize,
            fb: Feedback,
            state: &mut [u8],
            rows: &mut [&mut [u8]],
            ahead: &[&mut [u8]],
        ) -> bool {
            const REG: usize = 16 * $lanes;
            let row_len = state.len();
            if !row_len.is_multiple_of(REG) {
                return false;
            }
            assert!(rows.iter().all(|r| r.len() == row_len), "whole rows only");
            let k = $keys(keys);
            let regs = row_len / REG;
            let mut g = 0;
            while g < regs {
                // Up to $max_group registers per group (as many as fit in the register
                // file beside the keys), the round count a constant for full groups.
                let r = if regs - g >= $max_group {
                    $max_group
                } else {
                    (regs - g).min(8)
                };
                let st = state.as_mut_ptr().add(g * REG);
                let off = g * REG;
                match (r, rounds) {
                    (16, 10) => group::<16, 10>(&k, fb, st, rows, ahead, off),
                    (16, 12) => group::<16, 12>(&k, fb, st, rows, ahead, off),
                    (16, _) => group::<16, 14>(&k, fb, st, rows, ahead, off),
                    (8, 10) => group::<8, 10>(&k, fb, st, rows, ahead, off),
                    (8, 12) => group::<8, 12>(&k, fb, st, rows, ahead, off),
                    (8, _) => group::<8, 14>(&k, fb, st, rows, ahead, off),
                    (7, _) => group_any::<7>(&k, rounds, fb, st, rows, ahead, off),
                    (6, _) => group_any::<6>(&k, rounds, fb, st, rows, ahead, off),
                    (5, _) => group_any::<5>(&k, rounds, fb, st, rows, ahead, off),
                    (4, _) => group_any::<4>(&k, rounds, fb, st, rows, ahead, off),
                    (3, _) => group_any::<3>(&k, rounds, fb, st, rows, ahead, off),
                    (2, _) => group_any::<2>(&k, rounds, fb, st, rows, ahead, off),
                    _ => group_any::<1>(&k, rounds, fb, st, rows, ahead, off),
                }
                g += r;
            }
            return true;

            /// A partial group (fewer than eight registers), any round count.
            #[target_feature(enable = $features)]
            unsafe fn group_any<const R: usize>(
                k: &[$vec; 15],
                rounds: usize,
                fb: Feedback,
                st: *mut u8,
                rows: &mut [&mut [u8]],
                ahead: &[&mut [u8]],
                off: usize,
            ) {
                match rounds {
                    10 => group::<R, 10>(k, fb, st, rows, ahead, off),
                    12 => group::<R, 12>(k, fb, st, rows, ahead, off),
                    _ => group::<R, 14>(k, fb, st, rows, ahead, off),
                }
            }

            /// `R` registers of chains starting `off` bytes into each row, `NR` rounds.
            #[target_feature(enable = $features)]
            #[inline]
            unsafe fn group<const R: usize, const NR: usize>(
                k: &[$vec; 15],
                fb: Feedback,
                st: *mut u8,
                rows: &mut [&mut [u8]],
                ahead: &[&mut [u8]],
                off: usize,
            ) {
                // Nothing but AES instructions on the chains' critical path: whatever the
                // next row's first round XORs in (round key 0, and for CBC the next
                // plaintext) is folded into this row's last round key, so the last round
                // yields the next row's round-1 input directly; the output block is
                // recovered off the path with one XOR (`AESENCLAST(x, k ⊕ v) =
                // AESENCLAST(x, k) ⊕ v`). Only the R chain registers stay live across
                // the rounds; everything else is loaded when the last round needs it.
                let n = rows.len();
                let row_len = rows.first().map_or(1, |r| r.len());
                let mut x: [$vec; R] = core::array::from_fn(|i| {
                    let s = $xor($load(st.add(i * REG).cast()), k[0]);
                    match fb {
                        Feedback::Cbc if n > 0 => {
                            $xor(s, $load(rows[0].as_ptr().add(off + i * REG).cast()))
                        }
                        _ => s,
                    }
                });
                for j in 0..n {
                    for kr in &k[1..NR] {
                        x = x.map(|v| $enc(v, *kr));
                    }
                    let p = rows[j].as_mut_ptr().add(off);
                    let next = rows.get(j + 1).map(|r| r.as_ptr().add(off));
                    // The next slab, prefetched at the pace of the walk (the walk's row
                    // stride is a pattern the hardware prefetchers do not follow). With
                    // eight rows or more per slab, in memory order: the groups pass over
                    // a slab register group by register group, so step (this group, row
                    // j) fetches the R·REG bytes at the same position of the next slab
                    // read as one stream. With fewer (rows longer than 32 KiB), each
                    // group fetches its own blocks of the next slab, row for row. Measured
                    // on 64 MiB, one thread, memory order against row for row: 128 chains
                    // 1.08-1.19x, 1024 chains 1.04-1.07x, 2048 equal, 4096 0.85-0.90x
                    // (hence the rule). Row for row in turn had beaten a fixed 4 or 8
                    // rows ahead by up to 1.4x (session 5).
                    let (ahead_row, col) = if n >= 8 {
                        let lin = off * n + j * R * REG;
                        (lin / row_len, lin % row_len)
                    } else {
                        (j, off)
                    };
                    if let Some(r) = ahead.get(ahead_row) {
                        // R·REG/64 + 1 lines from the one holding the first byte: the last
                        // is where the blocks spill over when rows do not start on a line
                        // (malloc gives large buffers 16-byte alignment). A line missed
                        // on every row halved the throughput with 128 chains on 64 MiB. A
                        // fixed count keeps it unrolled.
                        let q = r.as_ptr().add(col);
                        let first = q.wrapping_sub(q as usize % 64);
                        for i in 0..=R * REG / 64 {
                            _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(64 * i).cast());
                        }
                    }
                    for i in 0..R {
                        let at = p.add(i * REG);
                        // t: CBC k0 ⊕ P_{j+1} (k0 after the last row), CFB k0 ⊕ P_j, OFB
                        // k0. The last round then gives y = (its usual output) ⊕ t, the
                        // next row's round-1 input.
                        let t = match (fb, next) {
                            (Feedback::Cbc, Some(q)) => $xor($load(q.add(i * REG).cast()), k[0]),
                            (Feedback::Cfb, _) => $xor($load(at.cast()), k[0]),
                            _ => k[0],
                        };
                        x[i] = $enclast(x[i], $xor(k[NR], t));
                        // CBC: C = y ⊕ t; CFB: C = y ⊕ k0; OFB: P ⊕ keystream (y ⊕ k0).
                        let out = match fb {
                            Feedback::Cbc => $xor(x[i], t),
                            Feedback::Cfb => $xor(x[i], k[0]),
                            Feedback::Ofb => $xor($xor(x[i], k[0]), $load(at.cast())),
                        };
                        $store(at.cast(), out);
                    }
                }
                // The new feedback: the last ciphertext row (CBC, CFB) or the keystream.
                for i in 0..R {
                    let v = match (fb, rows.last()) {
                        (Feedback::Cbc | Feedback::Cfb, Some(r)) => {
                            $load(r.as_ptr().add(off + i * REG).cast())
                        }
                        (Feedback::Ofb, Some(_)) => $xor(x[i], k[0]),
                        (_, None) => continue,
                    };
                    $store(st.add(i * REG).cast(), v);
                }
            }
        }
    };
}

chains_fn!(
    chains_aesni,
    "aes,sse2",
    __m128i,
    1,
    8,
    _mm_loadu_si128,
    _mm_storeu_si128,
    RoundKeys::v128,
    _mm_xor_si128,
    _mm_aesenc_si128,
    _mm_aesenclast_si128
);
chains_fn!(
    chains_vaes256,
    "aes,sse2,avx2,vaes",
    __m256i,
    2,
    8,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    RoundKeys::v256,
    _mm256_xor_si256,
    _mm256_aesenc_epi128,
    _mm256_aesenclast_epi128
);
chains_fn!(
    chains_vaes512,
    "aes,sse2,avx512f,vaes",
    __m512i,
    4,
    16,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    |k: &RoundKeys| k.v128().map(|x| _mm512_broadcast_i32x4(x)),
    _mm512_xor_si512,
    _mm512_aesenc_epi128,
    _mm512_aesenclast_epi128
);

/// Counter mode on VAES-512: 32 counter blocks per group in eight registers of four,
/// built as [`GroupCounters`] builds VAES-256's (two byte-swapped bases per group, then a
/// masked blend and an XOR per register), so a carry out of the low 64 bits needs no
/// branch: the counter starts from the IV, which the constant-time check treats as
/// secret (this kernel used to branch to another path for a group whose low half
/// carried). A message under four groups ([`VAES512_MIN_CTR`], sent there by the
/// dispatch) and the tail take [`ctr_vaes256`], which sizes its registers to the tail:
/// here they went through the generic batch path, and 16-256 B messages ran 3-4× slower
/// than on VAES-256 (Zen 4).
#[target_feature(enable = "aes,sse2,avx2,avx512f,avx512bw,vaes")]
unsafe fn ctr_vaes512(aes: &AesX86, counter: &mut [u8], data: &mut [u8]) {
    let (keys, rounds) = (&aes.enc, aes.rounds);
    let k: [__m512i; 15] = keys.v128().map(|x| _mm512_broadcast_i32x4(x));
    let mut ctr = u128::from_be_bytes(counter[..16].try_into().unwrap());
    // Block i of a group starting at B + a (B a multiple of 32) is B or B + 32 with
    // (a + i) mod 32 in its last byte; which one, and that byte, are fixed per call.
    // Per register r, in the high qword of lane j (the block's last 8 bytes): a + 4r + j.
    // In vector arithmetic: built per call, it cost a 1 KiB message a fifth of its time
    // as scalar code.
    let a = _mm512_set1_epi64((ctr & 31) as i64);
    let thirty_one = _mm512_set1_epi64(31);
    let (mut upper, mut low) = ([0 as __mmask8; 8], [k[0]; 8]);
    for r in 0..8 {
        let b = 4 * r as i64;
        let index = _mm512_set_epi64(b + 3, 0, b + 2, 0, b + 1, 0, b, 0);
        let v = _mm512_maskz_add_epi64(0xaa, a, index);
        let up = _mm512_cmpgt_epu64_mask(v, thirty_one);
        upper[r] = up | (up >> 1);
        low[r] = _mm512_xor_si512(
            _mm512_slli_epi64::<56>(_mm512_and_si512(v, thirty_one)),
            k[0],
        );
    }
    let block = |b: u128| {
        _mm512_broadcast_i32x4(_mm_set_epi64x(
            (b as u64).swap_bytes() as i64,
            ((b >> 64) as u64).swap_bytes() as i64,
        ))
    };
    let len = data.len();
    let mut groups = data.chunks_exact_mut(512);
    for (n, g) in (&mut groups).enumerate() {
        prefetch_ahead::<8>(g.as_ptr(), len - 512 * n);
        let base = ctr & !31;
        let (lower, higher) = (block(base), block(base.wrapping_add(32)));
        let mut x: [__m512i; 8] = core::array::from_fn(|r| {
            _mm512_xor_si512(_mm512_mask_blend_epi64(upper[r], lower, higher), low[r])
        });
        for kr in &k[1..rounds] {
            x = x.map(|v| _mm512_aesenc_epi128(v, *kr));
        }
        let p = g.as_mut_ptr();
        for (i, v) in x.iter().enumerate() {
            let ks = _mm512_aesenclast_epi128(*v, k[rounds]);
            let d = _mm512_loadu_si512(p.add(64 * i).cast());
            _mm512_storeu_si512(p.add(64 * i).cast(), _mm512_xor_si512(d, ks));
        }
        ctr = ctr.wrapping_add(32);
    }
    counter.copy_from_slice(&ctr.to_be_bytes());
    ctr_vaes256(aes, counter, groups.into_remainder());
}

/// Counter mode on VAES-256: 16 counter blocks per group in eight registers of two,
/// built in registers (instead of a buffer that is written, encrypted and read again:
/// writing them with integer instructions one group ahead was no faster at 16 KiB and
/// stalled small messages on store forwarding) with the carry from the low into the high
/// 64 bits computed without a branch: the counter starts from the IV, which the
/// constant-time check treats as secret. A tail under one group runs only the registers
/// it needs, in place, so a 16-byte message costs one register's rounds and allocates
/// nothing.
#[target_feature(enable = "aes,sse2,avx2,vaes")]
unsafe fn ctr_vaes256(aes: &AesX86, counter: &mut [u8], data: &mut [u8]) {
    // The round count stays a variable: as a constant (rounds unrolled) AES-256 ran 15 %
    // slower at 16 KiB (Zen 3).
    let (k, rounds) = (aes.enc.v256(), aes.rounds);
    let mut ctr = u128::from_be_bytes(counter[..16].try_into().unwrap());
    let len = data.len();
    let k0 = k[0];
    // Whole groups from two on: building the per-call group pattern costs about what
    // counting one group's registers directly does, so a single group does the latter.
    let grouped = if len >= 512 { len / 256 * 256 } else { 0 };
    let (head, mut rest) = data.split_at_mut(grouped);
    if grouped > 0 {
        let blocks = GroupCounters::new(k0, ctr);
        for (n, g) in head.chunks_exact_mut(256).enumerate() {
            prefetch_ahead::<4>(g.as_ptr(), len - 256 * n);
            // SAFETY: `g` is 256 bytes, eight registers.
            unsafe { ctr_rounds_xor_vaes256(k, rounds, blocks.at(ctr), g) };
            ctr = ctr.wrapping_add(16);
        }
    } else if rest.len() > 256 {
        let (g, r) = rest.split_at_mut(256);
        // SAFETY: `g` is 256 bytes, eight registers.
        unsafe { ctr_rounds_xor_vaes256::<8>(k, rounds, counter_registers(k0, ctr), g) };
        ctr = ctr.wrapping_add(16);
        rest = r;
    }
    // SAFETY: each arm's registers cover the tail.
    unsafe {
        match rest.len().div_ceil(32) {
            0 => {}
            1 => ctr_rounds_xor_vaes256::<1>(k, rounds, counter_registers(k0, ctr), rest),
            2 => ctr_rounds_xor_vaes256::<2>(k, rounds, counter_registers(k0, ctr), rest),
            3 => ctr_rounds_xor_vaes256::<3>(k, rounds, counter_registers(k0, ctr), rest),
            4 => ctr_rounds_xor_vaes256::<4>(k, rounds, counter_registers(k0, ctr), rest),
            _ => ctr_rounds_xor_vaes256::<8>(k, rounds, counter_registers(k0, ctr), rest),
        }
    }
    ctr = ctr.wrapping_add(rest.len().div_ceil(16) as u128);
    counter.copy_from_slice(&ctr.to_be_bytes());
}

/// The counter blocks of whole 16-block groups at two vector operations per register.
/// A group starting at counter `c = B + a` (B a multiple of 16, `a = c mod 16`) holds
/// blocks `B + a + i`, i < 16: each is `B` or `B + 16` (whichever its `a + i` reaches)
/// with `(a + i) mod 16` in its low nibble, where B's is zero, so an XOR puts it there.
/// Groups advance by 16 and keep `a`, so which base each block takes and its low nibble
/// (XORed with round key 0) are fixed per call; per group only the two bases are
/// computed, with integer instructions (add with carry, byte swap). Building each
/// register from a 128-bit add took five operations per register, and CTR ran at 0.8×
/// ECB on Zen 3.
struct GroupCounters {
    /// Per register: all ones in the lanes whose block takes `B + 16`.
    upper: [__m256i; 8],
    /// Per register: the low nibbles at byte 15 of each lane, XOR round key 0.
    low: [__m256i; 8],
}

impl GroupCounters {
    #[target_feature(enable = "avx2")]
    fn new(k0: __m256i, ctr: u128) -> Self {
        let a = (ctr & 15) as i64;
        let upper = core::array::from_fn(|r| {
            let up = |i: i64| -((a + i) >> 4);
            let (u0, u1) = (up(2 * r as i64), up(2 * r as i64 + 1));
            _mm256_set_epi64x(u1, u1, u0, u0)
        });
        let low = core::array::from_fn(|r| {
            let nibble = |i: i64| ((a + i) & 15) << 56;
            let (n0, n1) = (nibble(2 * r as i64), nibble(2 * r as i64 + 1));
            _mm256_xor_si256(_mm256_set_epi64x(n1, 0, n0, 0), k0)
        });
        GroupCounters { upper, low }
    }

    /// The group starting at `ctr` (the counter this was made with, plus a multiple of
    /// 16), XORed with round key 0.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn at(&self, ctr: u128) -> [__m256i; 8] {
        let base = ctr & !15;
        let lanes = |b: u128| {
            let lane = _mm_set_epi64x(
                (b as u64).swap_bytes() as i64,
                ((b >> 64) as u64).swap_bytes() as i64,
            );
            _mm256_broadcastsi128_si256(lane)
        };
        let (lower, higher) = (lanes(base), lanes(base.wrapping_add(16)));
        core::array::from_fn(|r| {
            _mm256_xor_si256(
                _mm256_blendv_epi8(lower, higher, self.upper[r]),
                self.low[r],
            )
        })
    }
}

/// Counter blocks `ctr .. ctr + 2R`, two per register, XORed with round key 0. Per
/// register: add the block offsets to the low 64 bits, add the carry into the high 64
/// bits (an unsigned compare of the offset with `!low`: one instruction, where comparing
/// the sums took two), byte-swap to big-endian blocks.
#[target_feature(enable = "avx2")]
#[inline]
fn counter_registers<const R: usize>(k0: __m256i, ctr: u128) -> [__m256i; R] {
    // Reverses the 16 bytes of each 128-bit lane (little-endian integer ↔ big-endian block).
    let reverse = _mm256_broadcastsi128_si256(_mm_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ));
    let (lo, hi) = (ctr as u64, (ctr >> 64) as u64);
    let base = _mm256_broadcastsi128_si256(_mm_set_epi64x(hi as i64, lo as i64));
    // Block b = lo + b wraps exactly when b > !lo (unsigned). AVX2 compares 64-bit lanes
    // as signed only, so both sides have their sign bit flipped; the low qwords compare
    // equal (never greater), so the mask lands in the high qword, where subtracting it
    // adds the carry.
    let flip = i64::MIN;
    let limit = _mm256_set_epi64x((!lo as i64) ^ flip, flip, (!lo as i64) ^ flip, flip);
    core::array::from_fn(|i| {
        let b = 2 * i as i64;
        let sum = _mm256_add_epi64(base, _mm256_set_epi64x(0, b + 1, 0, b));
        let offset = _mm256_set_epi64x((b + 1) ^ flip, flip, b ^ flip, flip);
        let carry = _mm256_cmpgt_epi64(offset, limit);
        let block = _mm256_shuffle_epi8(_mm256_sub_epi64(sum, carry), reverse);
        _mm256_xor_si256(block, k0)
    })
}

/// Runs rounds 1 to `rounds` on R registers of counter blocks (round key 0 already
/// XORed) and XORs the keystream into `data`, at most R registers long: registers past
/// its end are dropped, the last one it reaches may be partial, and unused keystream
/// never leaves the registers except through a 16-byte stack copy that is wiped.
#[target_feature(enable = "aes,sse2,avx2,vaes")]
#[inline]
unsafe fn ctr_rounds_xor_vaes256<const R: usize>(
    k: &[__m256i; 15],
    rounds: usize,
    mut x: [__m256i; R],
    data: &mut [u8],
) {
    debug_assert!(data.len() <= 32 * R);
    for kr in &k[1..rounds] {
        x = x.map(|v| _mm256_aesenc_epi128(v, *kr));
    }
    let p = data.as_mut_ptr();
    if data.len() == 32 * R {
        // Whole registers (every group, and tails of whole pairs of blocks): straight-line
        // code that keeps the keystream in registers. Through the general loop below the
        // compiler spilled all R registers to the stack first (Zen 4: a 256-byte message
        // ran at 0.26 c/B against 0.13 for the rounds alone).
        for (i, v) in x.iter().enumerate() {
            let ks = _mm256_aesenclast_epi128(*v, k[rounds]);
            // SAFETY: register i covers bytes 32i..32i+32 of `data`, which has 32R.
            unsafe {
                let at = p.add(32 * i);
                let d = _mm256_loadu_si256(at.cast());
                _mm256_storeu_si256(at.cast(), _mm256_xor_si256(d, ks));
            }
        }
        return;
    }
    for (i, v) in x.iter().enumerate().take(data.len().div_ceil(32)) {
        let ks = _mm256_aesenclast_epi128(*v, k[rounds]);
        let rem = data.len() - 32 * i;
        // SAFETY: every access stays within `data`: whole registers where 32 bytes remain,
        // else 16 bytes where 16 remain, and the last bytes through the stack copy.
        unsafe {
            let at = p.add(32 * i);
            if rem >= 32 {
                let d = _mm256_loadu_si256(at.cast());
                _mm256_storeu_si256(at.cast(), _mm256_xor_si256(d, ks));
                continue;
            }
            let (mut half, mut at, mut rem) = (_mm256_castsi256_si128(ks), at, rem);
            if rem >= 16 {
                let d = _mm_loadu_si128(at.cast());
                _mm_storeu_si128(at.cast(), _mm_xor_si128(d, half));
                half = _mm256_extracti128_si256::<1>(ks);
                (at, rem) = (at.add(16), rem - 16);
            }
            if rem > 0 {
                let mut tmp = [0u8; 16];
                core::ptr::copy_nonoverlapping(at, tmp.as_mut_ptr(), rem);
                let d = _mm_loadu_si128(tmp.as_ptr().cast());
                _mm_storeu_si128(tmp.as_mut_ptr().cast(), _mm_xor_si128(d, half));
                core::ptr::copy_nonoverlapping(tmp.as_ptr(), at, rem);
                crate::bytes::wipe(&mut tmp);
            }
        }
    }
}

/// Counter mode on AES-NI: eight counter blocks per group in registers, each a
/// branch-free 128-bit add (the counter starts from the IV, which the constant-time check
/// treats as secret) byte-swapped as two integers (SSE2 only), the keystream XORed as it
/// leaves; a tail under one group runs only the blocks it needs, in place.
#[target_feature(enable = "aes,sse2")]
unsafe fn ctr_aesni(aes: &AesX86, counter: &mut [u8], data: &mut [u8]) {
    let (k, rounds) = (aes.enc.v128(), aes.rounds);
    let mut ctr = u128::from_be_bytes(counter[..16].try_into().unwrap());
    let len = data.len();
    let mut groups = data.chunks_exact_mut(128);
    let counters = GroupCounters128::new(k[0], ctr);
    for (n, g) in (&mut groups).enumerate() {
        prefetch_ahead::<2>(g.as_ptr(), len - 128 * n);
        ctr_rounds_xor_aesni(k, rounds, counters.at(ctr), g);
        ctr = ctr.wrapping_add(8);
    }
    let rest = groups.into_remainder();
    match rest.len().div_ceil(16) {
        0 => {}
        1 => ctr_blocks_aesni::<1>(k, rounds, ctr, rest),
        2 => ctr_blocks_aesni::<2>(k, rounds, ctr, rest),
        3 | 4 => ctr_blocks_aesni::<4>(k, rounds, ctr, rest),
        _ => ctr_blocks_aesni::<8>(k, rounds, ctr, rest),
    }
    ctr = ctr.wrapping_add(rest.len().div_ceil(16) as u128);
    counter.copy_from_slice(&ctr.to_be_bytes());
}

/// XORs the keystream of counters `ctr .. ctr + R` into `data` (at most R blocks; blocks
/// past its end are dropped, the last it reaches may be partial and goes through a
/// 16-byte stack copy that is wiped).
#[target_feature(enable = "aes,sse2")]
#[inline]
fn ctr_blocks_aesni<const R: usize>(k: &[__m128i; 15], rounds: usize, ctr: u128, data: &mut [u8]) {
    let x: [__m128i; R] = core::array::from_fn(|i| {
        let c = ctr.wrapping_add(i as u128);
        let hi = ((c >> 64) as u64).swap_bytes() as i64;
        let lo = (c as u64).swap_bytes() as i64;
        _mm_xor_si128(_mm_set_epi64x(lo, hi), k[0])
    });
    ctr_rounds_xor_aesni(k, rounds, x, data)
}

/// The counter blocks of whole 8-block groups, as [`GroupCounters`] builds VAES-256's:
/// a group starting at `c = B + a` (B a multiple of 8) holds `B` or `B + 8` with
/// `(a + i) mod 8` in its last byte, so per group only the two bases are byte-swapped and
/// per block an AND and two XORs pick and finish it (no 128-bit add and no transfer from
/// the integer registers per block). Branch-free: `a` comes from the IV.
struct GroupCounters128 {
    /// Per block: all ones where the block takes `B + 8`.
    upper: [__m128i; 8],
    /// Per block: the low bits at byte 15, XOR round key 0.
    low: [__m128i; 8],
}

impl GroupCounters128 {
    #[target_feature(enable = "sse2")]
    fn new(k0: __m128i, ctr: u128) -> Self {
        let a = (ctr & 7) as i64;
        GroupCounters128 {
            upper: core::array::from_fn(|i| _mm_set1_epi64x(-((a + i as i64) >> 3))),
            low: core::array::from_fn(|i| {
                _mm_xor_si128(_mm_set_epi64x(((a + i as i64) & 7) << 56, 0), k0)
            }),
        }
    }

    /// The group starting at `ctr` (the counter this was made with, plus a multiple of
    /// 8), XORed with round key 0.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn at(&self, ctr: u128) -> [__m128i; 8] {
        let base = ctr & !7;
        let block = |b: u128| {
            _mm_set_epi64x(
                (b as u64).swap_bytes() as i64,
                ((b >> 64) as u64).swap_bytes() as i64,
            )
        };
        let lower = block(base);
        let diff = _mm_xor_si128(lower, block(base.wrapping_add(8)));
        core::array::from_fn(|i| {
            _mm_xor_si128(
                _mm_xor_si128(lower, self.low[i]),
                _mm_and_si128(diff, self.upper[i]),
            )
        })
    }
}

/// Rounds 1 to `rounds` on R counter blocks (round key 0 already XORed), the keystream
/// XORed into `data` as [`ctr_blocks_aesni`] says.
#[target_feature(enable = "aes,sse2")]
#[inline]
fn ctr_rounds_xor_aesni<const R: usize>(
    k: &[__m128i; 15],
    rounds: usize,
    mut x: [__m128i; R],
    data: &mut [u8],
) {
    debug_assert!(data.len() <= 16 * R);
    for kr in &k[1..rounds] {
        x = x.map(|v| _mm_aesenc_si128(v, *kr));
    }
    if data.len() == 16 * R {
        // Whole blocks (every group): straight-line, keystream kept in registers (through
        // the loop below the compiler spilled all R to the stack first; Zen 4 CTR ran at
        // 0.35 c/B against ECB's 0.23).
        let p = data.as_mut_ptr();
        for (i, v) in x.iter().enumerate() {
            let ks = _mm_aesenclast_si128(*v, k[rounds]);
            // SAFETY: block i is bytes 16i..16i+16 of `data`, which has 16R.
            unsafe {
                let at = p.add(16 * i);
                let d = _mm_loadu_si128(at.cast());
                _mm_storeu_si128(at.cast(), _mm_xor_si128(d, ks));
            }
        }
        return;
    }
    for (v, d) in x.iter().zip(data.chunks_mut(16)) {
        let ks = _mm_aesenclast_si128(*v, k[rounds]);
        if d.len() == 16 {
            // SAFETY: `d` is 16 bytes.
            unsafe {
                let v = _mm_loadu_si128(d.as_ptr().cast());
                _mm_storeu_si128(d.as_mut_ptr().cast(), _mm_xor_si128(v, ks));
            }
        } else {
            let mut tmp = [0u8; 16];
            tmp[..d.len()].copy_from_slice(d);
            // SAFETY: `tmp` is 16 bytes.
            unsafe {
                let v = _mm_loadu_si128(tmp.as_ptr().cast());
                _mm_storeu_si128(tmp.as_mut_ptr().cast(), _mm_xor_si128(v, ks));
            }
            d.copy_from_slice(&tmp[..d.len()]);
            crate::bytes::wipe(&mut tmp);
        }
    }
}

/// Single-stream CBC or full-block CFB decryption on VAES-512, front to back, 32 blocks
/// per group: CBC P_i = D(C_i) ⊕ C_{i-1}, CFB P_i = E(C_{i-1}) ⊕ C_i. Each register's
/// previous-ciphertext blocks are the same ciphertext shifted by one lane (`valignq`
/// across neighbouring registers), all loaded before the group is overwritten, and the
/// XOR is folded into the last round key. A message under one group (sent there by the
/// dispatch, [`VAES512_MIN_STREAM`]) and the tail (with a final partial CFB block) take
/// [`stream_decrypt_vaes256`], which sizes its registers to them (the generic path they
/// took before ran 64-256 B 3-4× slower than VAES-256, Zen 4).
#[target_feature(enable = "aes,sse2,avx2,avx512f,avx512bw,vaes")]
unsafe fn stream_decrypt_vaes512<const CFB: bool>(aes: &AesX86, prev: &mut [u8], data: &mut [u8]) {
    let rounds = aes.rounds;
    let keys = if CFB { &aes.enc } else { &aes.dec };
    let k: [__m512i; 15] = keys.v128().map(|x| _mm512_broadcast_i32x4(x));
    let mut last = _mm512_broadcast_i32x4(_mm_loadu_si128(prev.as_ptr().cast()));
    let len = data.len();
    let mut groups = data.chunks_exact_mut(512);
    for (n, g) in (&mut groups).enumerate() {
        let p = g.as_mut_ptr();
        prefetch_ahead::<8>(p, len - 512 * n);
        let c: [__m512i; 8] = core::array::from_fn(|i| _mm512_loadu_si512(p.add(64 * i).cast()));
        // behind[i] = [C_{4i-1}, C_{4i}, C_{4i+1}, C_{4i+2}]
        let behind: [__m512i; 8] = core::array::from_fn(|i| {
            _mm512_alignr_epi64(c[i], if i == 0 { last } else { c[i - 1] }, 6)
        });
        // The AES input, and what the last round folds in.
        let (input, fold) = if CFB { (behind, c) } else { (c, behind) };
        let mut x: [__m512i; 8] = input.map(|v| _mm512_xor_si512(v, k[0]));
        for kr in &k[1..rounds] {
            x = x.map(|v| {
                if CFB {
                    _mm512_aesenc_epi128(v, *kr)
                } else {
                    _mm512_aesdec_epi128(v, *kr)
                }
            });
        }
        for i in 0..8 {
            let kf = _mm512_xor_si512(k[rounds], fold[i]);
            let out = if CFB {
                _mm512_aesenclast_epi128(x[i], kf)
            } else {
                _mm512_aesdeclast_epi128(x[i], kf)
            };
            _mm512_storeu_si512(p.add(64 * i).cast(), out);
        }
        last = c[7];
    }
    _mm_storeu_si128(prev.as_mut_ptr().cast(), _mm512_extracti32x4_epi32(last, 3));
    stream_decrypt_vaes256::<CFB>(aes, prev, groups.into_remainder());
}

/// Single-stream CBC or full-block CFB decryption on VAES-256, as
/// [`stream_decrypt_vaes512`] with 16 blocks per group: each register's previous blocks
/// are its neighbour's high lane and its own low lane (`vperm2i128`). A tail under one
/// group runs as one group of just the registers it needs, and a last odd block on the
/// 128-bit instructions, so a short message pays one pass of rounds and no copy (CFB's
/// partial last block, if any, goes through the generic path).
#[target_feature(enable = "aes,sse2,avx2,vaes")]
unsafe fn stream_decrypt_vaes256<const CFB: bool>(aes: &AesX86, prev: &mut [u8], data: &mut [u8]) {
    let rounds = aes.rounds;
    let keys = if CFB { &aes.enc } else { &aes.dec };
    let k = keys.v256();
    let mut last = _mm256_broadcastsi128_si256(_mm_loadu_si128(prev.as_ptr().cast()));
    let len = data.len();
    let mut groups = data.chunks_exact_mut(256);
    for (n, g) in (&mut groups).enumerate() {
        let p = g.as_mut_ptr();
        prefetch_ahead::<4>(p, len - 256 * n);
        // SAFETY: `g` is eight registers.
        unsafe { decrypt_registers_vaes256::<CFB, 8>(k, rounds, &mut last, p) };
    }
    let tail = groups.into_remainder();
    let p = tail.as_mut_ptr();
    // SAFETY: each arm reads and writes the tail's whole registers only.
    unsafe {
        match tail.len() / 32 {
            0 => {}
            1 => decrypt_registers_vaes256::<CFB, 1>(k, rounds, &mut last, p),
            2 => decrypt_registers_vaes256::<CFB, 2>(k, rounds, &mut last, p),
            3 => decrypt_registers_vaes256::<CFB, 3>(k, rounds, &mut last, p),
            4 => decrypt_registers_vaes256::<CFB, 4>(k, rounds, &mut last, p),
            5 => decrypt_registers_vaes256::<CFB, 5>(k, rounds, &mut last, p),
            6 => decrypt_registers_vaes256::<CFB, 6>(k, rounds, &mut last, p),
            _ => decrypt_registers_vaes256::<CFB, 7>(k, rounds, &mut last, p),
        }
    }
    let mut before = _mm256_extracti128_si256::<1>(last);
    let whole = tail.len() / 32 * 32;
    if tail.len() - whole >= 16 {
        // An odd last block, on the 128-bit instructions.
        decrypt_blocks_aesni::<CFB, 1>(keys.v128(), rounds, &mut before, p.add(whole));
    }
    _mm_storeu_si128(prev.as_mut_ptr().cast(), before);
    // CFB's partial last block.
    let blocks_end = tail.len() / 16 * 16;
    let partial = &mut tail[blocks_end..];
    if CFB && !partial.is_empty() {
        crate::cipher::cfb_decrypt_by_slabs(aes, prev, partial);
    }
}

/// Decrypts the R registers (2R blocks) at `p` in place; `last` holds the ciphertext
/// before them in its high lane, and the last of them afterwards.
#[target_feature(enable = "aes,sse2,avx2,vaes")]
#[inline]
unsafe fn decrypt_registers_vaes256<const CFB: bool, const R: usize>(
    k: &[__m256i; 15],
    rounds: usize,
    last: &mut __m256i,
    p: *mut u8,
) {
    // SAFETY: the caller hands R registers at `p`.
    let c: [__m256i; R] =
        core::array::from_fn(|i| unsafe { _mm256_loadu_si256(p.add(32 * i).cast()) });
    // behind[i] = [C_{2i-1}, C_{2i}]
    let behind: [__m256i; R] = core::array::from_fn(|i| {
        _mm256_permute2x128_si256(if i == 0 { *last } else { c[i - 1] }, c[i], 0x21)
    });
    let (input, fold) = if CFB { (behind, c) } else { (c, behind) };
    let mut x: [__m256i; R] = input.map(|v| _mm256_xor_si256(v, k[0]));
    for kr in &k[1..rounds] {
        x = x.map(|v| {
            if CFB {
                _mm256_aesenc_epi128(v, *kr)
            } else {
                _mm256_aesdec_epi128(v, *kr)
            }
        });
    }
    for i in 0..R {
        let kf = _mm256_xor_si256(k[rounds], fold[i]);
        let out = if CFB {
            _mm256_aesenclast_epi128(x[i], kf)
        } else {
            _mm256_aesdeclast_epi128(x[i], kf)
        };
        // SAFETY: as above.
        unsafe { _mm256_storeu_si256(p.add(32 * i).cast(), out) };
    }
    *last = c[R - 1];
}

/// Single-stream CBC or full-block CFB decryption on AES-NI, eight blocks per group, the
/// XOR with the previous ciphertext folded into the last round key. A tail under one
/// group runs as one group of just its blocks, in place (CFB's partial last block, if
/// any, goes through the generic path).
#[target_feature(enable = "aes,sse2")]
unsafe fn stream_decrypt_aesni<const CFB: bool>(aes: &AesX86, prev: &mut [u8], data: &mut [u8]) {
    let rounds = aes.rounds;
    let k = (if CFB { &aes.enc } else { &aes.dec }).v128();
    let mut last = _mm_loadu_si128(prev.as_ptr().cast());
    let len = data.len();
    let mut groups = data.chunks_exact_mut(128);
    for (n, g) in (&mut groups).enumerate() {
        let p = g.as_mut_ptr();
        prefetch_ahead::<2>(p, len - 128 * n);
        // SAFETY: `g` is eight blocks.
        unsafe { decrypt_blocks_aesni::<CFB, 8>(k, rounds, &mut last, p) };
    }
    let tail = groups.into_remainder();
    let p = tail.as_mut_ptr();
    // SAFETY: each arm reads and writes the tail's whole blocks only.
    unsafe {
        match tail.len() / 16 {
            0 => {}
            1 => decrypt_blocks_aesni::<CFB, 1>(k, rounds, &mut last, p),
            2 => decrypt_blocks_aesni::<CFB, 2>(k, rounds, &mut last, p),
            3 => decrypt_blocks_aesni::<CFB, 3>(k, rounds, &mut last, p),
            4 => decrypt_blocks_aesni::<CFB, 4>(k, rounds, &mut last, p),
            5 => decrypt_blocks_aesni::<CFB, 5>(k, rounds, &mut last, p),
            6 => decrypt_blocks_aesni::<CFB, 6>(k, rounds, &mut last, p),
            _ => decrypt_blocks_aesni::<CFB, 7>(k, rounds, &mut last, p),
        }
    }
    _mm_storeu_si128(prev.as_mut_ptr().cast(), last);
    let blocks_end = tail.len() / 16 * 16;
    let partial = &mut tail[blocks_end..];
    if CFB && !partial.is_empty() {
        crate::cipher::cfb_decrypt_by_slabs(aes, prev, partial);
    }
}

/// Decrypts the R blocks at `p` in place; `last` is the ciphertext block before them, and
/// the last of them afterwards.
#[target_feature(enable = "aes,sse2")]
#[inline]
unsafe fn decrypt_blocks_aesni<const CFB: bool, const R: usize>(
    k: &[__m128i; 15],
    rounds: usize,
    last: &mut __m128i,
    p: *mut u8,
) {
    // SAFETY: the caller hands R blocks at `p`.
    let c: [__m128i; R] =
        core::array::from_fn(|i| unsafe { _mm_loadu_si128(p.add(16 * i).cast()) });
    let behind: [__m128i; R] = core::array::from_fn(|i| if i == 0 { *last } else { c[i - 1] });
    let (input, fold) = if CFB { (behind, c) } else { (c, behind) };
    let mut x: [__m128i; R] = input.map(|v| _mm_xor_si128(v, k[0]));
    for kr in &k[1..rounds] {
        x = x.map(|v| {
            if CFB {
                _mm_aesenc_si128(v, *kr)
            } else {
                _mm_aesdec_si128(v, *kr)
            }
        });
    }
    for i in 0..R {
        let kf = _mm_xor_si128(k[rounds], fold[i]);
        let out = if CFB {
            _mm_aesenclast_si128(x[i], kf)
        } else {
            _mm_aesdeclast_si128(x[i], kf)
        };
        // SAFETY: as above.
        unsafe { _mm_storeu_si128(p.add(16 * i).cast(), out) };
    }
    *last = c[R - 1];
}

/// CBC or full-block CFB decryption of N interleaved streams on VAES-512 (`data` whole
/// rows of N blocks), 32 blocks per group: CBC P_i = D(C_i) ⊕ C_{i-N}, CFB
/// P_i = E(C_{i-N}) ⊕ C_i, the XOR folded into the last round key. The pass runs from the
/// end of `data` to its start, so the ciphertext a block needs (one row earlier) is still
/// in place when it is read, and nothing is copied but the last row, which becomes
/// `prev`. Each register's four previous-row blocks come with one load from `data` or
/// from `prev`; a register straddling the two (N not a multiple of four) is assembled.
#[target_feature(enable = "aes,sse2,avx512f,avx512bw,vaes")]
unsafe fn decrypt_rows_vaes512<const CFB: bool>(aes: &AesX86, prev: &mut [u8], data: &mut [u8]) {
    let (row, len) = (prev.len(), data.len());
    debug_assert!(len.is_multiple_of(row) && len.is_multiple_of(64) && len >= row);
    let rounds = aes.rounds;
    let keys = if CFB { &aes.enc } else { &aes.dec };
    let k: [__m512i; 15] = keys.v128().map(|x| _mm512_broadcast_i32x4(x));
    let next_prev = data[len - row..].to_vec();
    let (d, pv) = (data.as_mut_ptr(), prev.as_ptr());
    // The 64 bytes of ciphertext one row before byte `o` of `data`.
    macro_rules! behind {
        ($o:expr) => {{
            let o: usize = $o;
            if o >= row {
                _mm512_loadu_si512(d.add(o - row).cast())
            } else if o + 64 <= row {
                _mm512_loadu_si512(pv.add(o).cast())
            } else {
                let mut t = [0u8; 64];
                t[..row - o].copy_from_slice(&prev[o..]);
                t[row - o..].copy_from_slice(core::slice::from_raw_parts(d, o + 64 - row));
                _mm512_loadu_si512(t.as_ptr().cast())
            }
        }};
    }
    // One register's worth: the AES input and the value folded into the last round key.
    macro_rules! operands {
        ($c:expr, $b:expr) => {
            if CFB {
                ($b, $c)
            } else {
                ($c, $b)
            }
        };
    }
    macro_rules! round {
        ($x:expr, $kr:expr) => {
            if CFB {
                _mm512_aesenc_epi128($x, $kr)
            } else {
                _mm512_aesdec_epi128($x, $kr)
            }
        };
    }
    macro_rules! last {
        ($x:expr, $kr:expr) => {
            if CFB {
                _mm512_aesenclast_epi128($x, $kr)
            } else {
                _mm512_aesdeclast_epi128($x, $kr)
            }
        };
    }
    let mut end = len;
    while end >= 512 {
        let a = end - 512;
        // The pass meets each byte first as a previous row (`behind`), so that is where
        // memory is waited for: prefetch it ahead, in the pass's direction. Without this
        // the kernel ran 64 MiB at 23-29 GB/s for CBC and 13-17 GB/s for CFB; with it at
        // 40-44 GB/s.
        if a >= row + STREAM_PREFETCH_BYTES {
            let q = d.add(a - row - STREAM_PREFETCH_BYTES);
            for i in 0..8 {
                _mm_prefetch::<_MM_HINT_T0>(q.add(64 * i).cast());
            }
        }
        let c: [__m512i; 8] =
            core::array::from_fn(|i| _mm512_loadu_si512(d.add(a + 64 * i).cast()));
        let b: [__m512i; 8] = core::array::from_fn(|i| behind!(a + 64 * i));
        let mut x = [k[0]; 8];
        let mut fold = [k[0]; 8];
        for i in 0..8 {
            let (input, folded) = operands!(c[i], b[i]);
            x[i] = _mm512_xor_si512(input, k[0]);
            fold[i] = _mm512_xor_si512(folded, k[rounds]);
        }
        for kr in &k[1..rounds] {
            x = x.map(|v| round!(v, *kr));
        }
        for i in 0..8 {
            _mm512_storeu_si512(d.add(a + 64 * i).cast(), last!(x[i], fold[i]));
        }
        end = a;
    }
    while end >= 64 {
        let a = end - 64;
        let (input, folded) = operands!(_mm512_loadu_si512(d.add(a).cast()), behind!(a));
        let mut x = _mm512_xor_si512(input, k[0]);
        for kr in &k[1..rounds] {
            x = round!(x, *kr);
        }
        let out = last!(x, _mm512_xor_si512(folded, k[rounds]));
        _mm512_storeu_si512(d.add(a).cast(), out);
        end = a;
    }
    prev.copy_from_slice(&next_prev);
}

/// Whether `data` is whole rows of `prev.len()` bytes and whole 64-byte registers, the
/// shape [`decrypt_rows_vaes512`] takes.
fn whole_rows_of_registers(prev: &[u8], data: &[u8]) -> bool {
    !data.is_empty() && data.len().is_multiple_of(prev.len()) && data.len().is_multiple_of(64)
}

impl BlockCipher for AesX86 {
    fn block_size(&self) -> usize {
        16
    }
    fn width(&self) -> usize {
        self.level.width()
    }
    fn backend(&self) -> &'static str {
        self.level.name()
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, false)
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, true)
    }
}

impl ModeKernels for AesX86 {
    fn cbc_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        match self.level {
            // SAFETY: an AesX86 at Vaes512 exists only where its features were detected.
            // The size hand-offs are made here, not inside the kernels, so a small call
            // reaches its kernel in one call.
            // SAFETY: as above (VAES-512 implies VAES-256's features).
            Level::Vaes512 if prev.len() == 16 && data.len() < VAES512_MIN_STREAM => unsafe {
                stream_decrypt_vaes256::<false>(self, prev, data)
            },
            // SAFETY: as above.
            Level::Vaes512 if prev.len() == 16 => unsafe {
                stream_decrypt_vaes512::<false>(self, prev, data)
            },
            // SAFETY: as above.
            Level::Vaes512 if whole_rows_of_registers(prev, data) => unsafe {
                decrypt_rows_vaes512::<false>(self, prev, data)
            },
            // SAFETY: as above, at Vaes256.
            Level::Vaes256 if prev.len() == 16 => unsafe {
                stream_decrypt_vaes256::<false>(self, prev, data)
            },
            // SAFETY: as above, at AesNi.
            Level::AesNi if prev.len() == 16 => unsafe {
                stream_decrypt_aesni::<false>(self, prev, data)
            },
            _ => crate::cipher::cbc_decrypt_by_slabs(self, prev, data),
        }
    }

    fn cfb_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        match self.level {
            // SAFETY: an AesX86 at Vaes512 exists only where its features were detected.
            // The size hand-offs are made here, not inside the kernels, so a small call
            // reaches its kernel in one call.
            // SAFETY: as above (VAES-512 implies VAES-256's features).
            Level::Vaes512 if prev.len() == 16 && data.len() < VAES512_MIN_STREAM => unsafe {
                stream_decrypt_vaes256::<true>(self, prev, data)
            },
            // SAFETY: as above.
            Level::Vaes512 if prev.len() == 16 => unsafe {
                stream_decrypt_vaes512::<true>(self, prev, data)
            },
            // SAFETY: as above.
            Level::Vaes512 if whole_rows_of_registers(prev, data) => unsafe {
                decrypt_rows_vaes512::<true>(self, prev, data)
            },
            // SAFETY: as above, at Vaes256.
            Level::Vaes256 if prev.len() == 16 => unsafe {
                stream_decrypt_vaes256::<true>(self, prev, data)
            },
            // SAFETY: as above, at AesNi.
            Level::AesNi if prev.len() == 16 => unsafe {
                stream_decrypt_aesni::<true>(self, prev, data)
            },
            _ => crate::cipher::cfb_decrypt_by_slabs(self, prev, data),
        }
    }

    fn ctr_keystream_xor(&self, counter: &mut [u8], data: &mut [u8]) {
        match self.level {
            // SAFETY: an AesX86 at Vaes512 exists only where its features were detected.
            Level::Vaes512 if data.len() >= VAES512_MIN_CTR => unsafe {
                ctr_vaes512(self, counter, data)
            },
            // SAFETY: as above, at Vaes256 (VAES-512 implies its features).
            Level::Vaes512 | Level::Vaes256 => unsafe { ctr_vaes256(self, counter, data) },
            // SAFETY: as above, at AesNi.
            Level::AesNi => unsafe { ctr_aesni(self, counter, data) },
        }
    }

    fn encrypt_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        assert!(
            !state.is_empty() && data.len().is_multiple_of(state.len()),
            "whole rows only"
        );
        if state.len() == 16 {
            // SAFETY: an AesX86 exists only where AES-NI was detected.
            unsafe { single_chain(&self.enc, self.rounds, feedback, state, data) };
            return;
        }
        crate::cipher::chains_as_rows(self, feedback, state, data);
    }

    fn cfb8_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        assert_eq!(reg.len(), 16, "one block");
        // SAFETY: an AesX86 exists only where AES-NI was detected.
        unsafe { cfb8_encrypt_aesni(&self.enc, self.rounds, reg, data) }
    }

    fn cfb1_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        assert_eq!(reg.len(), 16, "one block");
        // SAFETY: an AesX86 exists only where AES-NI was detected.
        unsafe { cfb1_encrypt_aesni(&self.enc, self.rounds, reg, data) }
    }

    fn min_streamed_share(&self) -> usize {
        MIN_STREAMED_SHARE
    }

    fn encrypt_chain_rows(&self, feedback: Feedback, state: &mut [u8], rows: &mut [&mut [u8]]) {
        let (keys, rounds) = (&self.enc, self.rounds);
        // A register group walks down the rows with a stride of a row; on inputs larger
        // than the caches that stride defeats the prefetchers and the TLB, so the rows go
        // in slabs that stay in L2 while every group passes over them. A slab is sized by
        // the address range its rows span: when threads split the chains, a thread's rows
        // are segments of longer rows (sizing by the segments was up to 10 % slower on
        // two threads, 64 MiB). Rows that fit in the L3 go in one pass: there slabs only
        // add each group's entry and exit per slab (on 8-16 MiB, 1024 chains ran at 0.89x
        // ECB with slabs and 0.98x without, 8192 chains at 0.78x and 0.97x).
        let stride = match rows {
            [a, b, ..] => (b.as_ptr() as usize).abs_diff(a.as_ptr() as usize),
            _ => 0,
        };
        let span = stride * rows.len().saturating_sub(1) + state.len();
        let slab = if span <= STREAMED_BYTES {
            rows.len()
        } else {
            (CHAIN_SLAB_BYTES / state.len().max(stride).max(1)).max(1)
        };
        let mut rest = rows;
        while !rest.is_empty() {
            let take = slab.min(rest.len());
            let (rows, after) = std::mem::take(&mut rest).split_at_mut(take);
            let ahead: &[&mut [u8]] = after;
            // Register-resident groups at the widest level whose lanes divide N; AES-NI
            // (one block per register) takes any N.
            // SAFETY: an AesX86 exists only for a level `Level::available()` confirmed, and
            // each call runs that level's instructions or a lower level's.
            unsafe {
                let done = match self.level {
                    Level::AesNi => false,
                    Level::Vaes256 => chains_vaes256(keys, rounds, feedback, state, rows, ahead),
                    Level::Vaes512 => {
                        chains_vaes512(keys, rounds, feedback, state, rows, ahead)
                            || chains_vaes256(keys, rounds, feedback, state, rows, ahead)
                    }
                };
                if !done {
                    chains_aesni(keys, rounds, feedback, state, rows, ahead);
                }
            }
            rest = after;
        }
    }
}
