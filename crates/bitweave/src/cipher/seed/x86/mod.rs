//! `gfni512`, `gfni256`, `vaes256`, `aesni256`, `aesni128`: SEED with blocks spread across
//! 32-bit lanes and the S-boxes on GFNI, or on the AES instructions where GFNI is missing.
//!
//! **Layout** (SEED-on-Cell §3, widened): the paper puts word k of four blocks in one
//! 128-bit SPE register, so the Feistel halves L0, L1, R0, R1 are four registers and every
//! instruction works on four blocks. Here a register holds word k of 16 blocks (AVX-512)
//! or 8 blocks (AVX2); loading is a byte swap per word (SEED is big-endian) and a 4×4
//! word transpose inside each 128-bit lane, so lane i of the four registers is one block.
//! Several such register groups are kept in flight ([`GROUPS_512`], [`GROUPS_256`],
//! [`GROUPS_VAES256`]): the F function is three G functions in series, each several
//! instructions of latency, so independent groups keep the vector ports busy.
//!
//! **Constant-time**: where the paper (and `soft`) look up S-box tables with data bytes,
//! the S-boxes here are one `gf2p8affineqb` (SEED's field → AES's field) and one
//! `gf2p8affineinvqb` (inversion, then the S-box's linear part and constant) per S-box
//! kind, 64 (or 32) bytes per instruction, with the matrices derived in
//! [`super::field`]. The even bytes of a word take S1, the odd ones S2 (a byte blend), and
//! G's masked mixing is four rotations inside the 32-bit lanes with AND/XOR
//! ([`super::field::MIX`]). Nothing secret reaches a branch or an address; the key
//! schedule runs the same vector G on a broadcast word.
//!
//! **Modes**: CTR and single-stream CBC/CFB decryption run inside the kernel's pass
//! ([`pass`]): the counter words built in the transposed layout, the ciphertext one block
//! behind read with an unaligned load, the XOR at the store, so a mode costs what ECB does.
//!
//! Here: the levels, the backend, the shared round structure (`seed_core!`) and the
//! AVX2 and SSE lane primitives (`avx2_lanes!`, `sse_lanes!`); one file per backend
//! supplies its G: `gfni512`, `gfni256` (VEX-encoded GFNI, no AVX-512), `vaes256`,
//! `aesni256` (`vaes256`'s G with AESENCLAST per 128-bit half, for AVX2 without VAES) and
//! `aesni128` (`vaes256`'s G on xmm registers, for CPUs with neither AVX2 nor VAES).
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::field::{
    word_shuffle, NibbleMap, AES_IN, AES_OUT_S1, AES_OUT_S2, B1, B2, GFNI_S1, GFNI_S2, GFNI_TO_AES,
    MIX, MIX_TWO_ROTATIONS, ROTL16, ROTL24, ROTL8,
};
use super::{SeedKeySchedule, M};
use crate::cipher::{
    add_be, cbc_decrypt_by_slabs, cfb_decrypt_by_slabs, ctr_by_batches, BlockCipher, ModeKernels,
};
use crate::cpu::Feature;

/// Register groups (of 16 blocks) in flight on AVX-512 (at most 8).
pub const GROUPS_512: usize = 8;
/// Register groups (of 8 blocks) in flight on AVX2 with GFNI (at most 8).
pub const GROUPS_256: usize = 4;
/// Register groups in flight on AVX2 without GFNI (`vaes256`, at most 8). Its G is ~30
/// vector operations with a ~17-cycle chain; on AMD Zen 3 (2026-11-28, 16 KiB ECB, best
/// of 300 timings, TSC c/B) 2 / 3 / 4 / 5 / 6 / 8 groups ran 4.87 / 4.22 / 3.46 / 3.38 /
/// 3.31 / 3.24: eight groups cover the chain, and the four vector pipes are then ~80 %
/// busy (llvm-mca's znver3 model agrees), so more would not help. Re-measured on AMD Zen 4
/// under `BITWEAVE_CPU=avx2` after G went stage by stage (2026-12-03, 16 KiB ECB, best of
/// four alternating runs, TSC c/B): 6 / 7 / 8 groups 2.69 / 2.55 / 2.49. With G on
/// register pairs (~25 operations a register; Intel Xeon family 6 model 167 under
/// `BITWEAVE_CPU=avx2`, 2026-12-06, 16 KiB, TSC c/B): 6 / 8 groups ECB 2.98 / 2.75, CTR
/// 2.93 / 2.73.
pub const GROUPS_VAES256: usize = 8;

/// Register groups (of 4 blocks) in flight on AES-NI without VAES (`aesni128`, at most 8):
/// Intel Xeon family 6 model 207 under `BITWEAVE_CPU=aesni` (2026-11-30, 16 KiB ECB, TSC
/// c/B) ran 2 / 4 / 6 / 8 groups at 9.87 / 7.15 / 6.66 / 6.62.
pub const GROUPS_AESNI128: usize = 8;

/// Register groups (of 8 blocks) in flight on AVX2 with AES-NI only (`aesni256`, at most
/// 8): Intel Xeon family 6 model 207 with `--backend aesni256` (2026-12-01, 16 KiB ECB,
/// TSC c/B, three noisy runs each) ran 4 / 6 / 8 groups at 4.86-5.24 / 4.40-5.16 /
/// 4.45-4.86; its G is `vaes256`'s plus three operations, so it wants as many in flight.
pub const GROUPS_AESNI256: usize = 8;

/// Calls up to this many bytes (four blocks, one xmm register) go from `aesni256` to
/// `aesni128`: on a half-empty ymm register four blocks cost more (ECB: 21.7 TSC c/B
/// against 15.5, Xeon family 6 model 207).
const AESNI256_MIN_BYTES: usize = 64;

/// Which instruction set a keyed [`SeedX86`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// AES-NI, SSSE3, SSE4.1: 4 blocks per xmm register, S-boxes through AESENCLAST.
    Aesni128,
    /// AVX2 + AES-NI (no VAES, no GFNI): 8 blocks per ymm register, AESENCLAST per half.
    Aesni256,
    /// AVX2 + GFNI (VEX-encoded): 8 blocks per ymm register.
    Gfni256,
    /// AVX-512F/BW + GFNI: 16 blocks per zmm register.
    Gfni512,
    /// AVX2 + VAES (no GFNI): 8 blocks per ymm register, S-boxes through AESENCLAST.
    Vaes256,
}

impl Level {
    /// Whether this CPU can run the level (under the tier cap, see [`crate::cpu`]).
    pub fn available(self) -> bool {
        crate::cpu::has_all(self.features())
    }

    /// The registry name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Gfni256 => "gfni256",
            Level::Gfni512 => "gfni512",
            Level::Vaes256 => "vaes256",
            Level::Aesni128 => "aesni128",
            Level::Aesni256 => "aesni256",
        }
    }

    /// The CPU features it needs.
    pub fn features(self) -> &'static [Feature] {
        use Feature::*;
        match self {
            Level::Gfni256 => &[Avx2, Gfni],
            Level::Gfni512 => &[Avx512f, Avx512bw, Gfni],
            Level::Vaes256 => &[Avx2, Aes, Vaes],
            Level::Aesni128 => &[Aes, Ssse3, Sse41],
            Level::Aesni256 => &[Avx2, Aes, Ssse3, Sse41],
        }
    }

    /// The level's constant-time G on one word, or `None` when this CPU lacks the level
    /// (for tests against the table G).
    pub fn g(self, w: u32) -> Option<u32> {
        if !self.available() {
            return None;
        }
        // SAFETY: `self.available()` confirmed the level's features just above.
        Some(unsafe {
            match self {
                Level::Gfni512 => gfni512::g_word(w),
                Level::Gfni256 => gfni256::g_word(w),
                Level::Vaes256 => vaes256::g_word(w),
                Level::Aesni128 => aesni128::g_word(w),
                Level::Aesni256 => aesni256::g_word(w),
            }
        })
    }

    /// Blocks in flight (register lanes × groups).
    pub fn width(self) -> usize {
        match self {
            Level::Gfni256 => 8 * GROUPS_256,
            Level::Vaes256 => 8 * GROUPS_VAES256,
            Level::Aesni128 => 4 * GROUPS_AESNI128,
            Level::Aesni256 => 8 * GROUPS_AESNI256,
            Level::Gfni512 => 16 * GROUPS_512,
        }
    }
}

/// Round keys in the order each direction uses them, wiped on drop. Each round's pair is
/// held as (K0, K0 ⊕ K1), the two words the round XORs in (see `seed_core!`'s `half`),
/// so a round broadcasts both from memory instead of computing one in the integer
/// registers and moving it over.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
struct RoundKeys {
    enc: [[u32; 2]; 16],
    dec: [[u32; 2]; 16],
}

/// SEED on GFNI at a given [`Level`].
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SeedX86 {
    keys: RoundKeys,
    #[zeroize(skip)]
    level: Level,
}

impl SeedX86 {
    /// Keys the backend with a 16-byte key, or `None` when this CPU lacks `level`.
    pub fn new(key: &[u8], level: Level) -> Option<Self> {
        if !level.available() {
            return None;
        }
        let ks = match level {
            // SAFETY: `level.available()` confirmed AVX-512F, AVX-512BW and GFNI above.
            Level::Gfni512 => SeedKeySchedule::new(key, |w| unsafe { gfni512::g_word(w) }),
            // SAFETY: `level.available()` confirmed AVX2 and GFNI above.
            Level::Gfni256 => SeedKeySchedule::new(key, |w| unsafe { gfni256::g_word(w) }),
            // SAFETY: `level.available()` confirmed AVX2, AES and VAES above.
            Level::Vaes256 => SeedKeySchedule::new(key, |w| unsafe { vaes256::g_word(w) }),
            // SAFETY: `level.available()` confirmed AES-NI, SSSE3 and SSE4.1 above.
            Level::Aesni128 => SeedKeySchedule::new(key, |w| unsafe { aesni128::g_word(w) }),
            // SAFETY: `level.available()` confirmed AVX2 and AES-NI above.
            Level::Aesni256 => SeedKeySchedule::new(key, |w| unsafe { aesni256::g_word(w) }),
        };
        let enc = ks.round_keys.map(|[k0, k1]| [k0, k0 ^ k1]);
        let mut dec = enc;
        dec.reverse();
        Some(SeedX86 {
            keys: RoundKeys { enc, dec },
            level,
        })
    }

    /// Runs a pass ([`pass`]) over `data` with the encryption or decryption keys; `iv` as
    /// the kernels' `crypt` takes it.
    fn run<const PASS: u8>(&self, data: &mut [u8], decrypt: bool, iv: &[u8; 16]) {
        let rk = if decrypt {
            &self.keys.dec
        } else {
            &self.keys.enc
        };
        match self.level {
            // SAFETY: a SeedX86 at Gfni512 exists only where `Level::available()` confirmed
            // AVX-512F, AVX-512BW and GFNI.
            Level::Gfni512 => unsafe { gfni512::crypt::<PASS>(data, rk, iv) },
            // SAFETY: a SeedX86 at Gfni256 exists only where AVX2 and GFNI were detected.
            Level::Gfni256 => unsafe { gfni256::crypt::<PASS>(data, rk, iv) },
            // SAFETY: a SeedX86 at Vaes256 exists only where AVX2, AES and VAES were
            // detected.
            Level::Vaes256 => unsafe { vaes256::crypt::<PASS>(data, rk, iv) },
            // SAFETY: a SeedX86 at Aesni128 exists only where AES-NI, SSSE3 and SSE4.1
            // were detected.
            Level::Aesni128 => unsafe { aesni128::crypt::<PASS>(data, rk, iv) },
            // SAFETY: a SeedX86 at Aesni256 exists only where AVX2, AES-NI, SSSE3 and
            // SSE4.1 were detected, which `aesni128` needs too.
            Level::Aesni256 if data.len() <= AESNI256_MIN_BYTES => unsafe {
                aesni128::crypt::<PASS>(data, rk, iv)
            },
            // SAFETY: as above.
            Level::Aesni256 => unsafe { aesni256::crypt::<PASS>(data, rk, iv) },
        }
    }

    fn crypt(&self, blocks: &mut [u8], decrypt: bool) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        self.run::<{ pass::ECB }>(blocks, decrypt, &[0; 16]);
    }
}

impl BlockCipher for SeedX86 {
    fn block_size(&self) -> usize {
        16
    }
    fn width(&self) -> usize {
        self.level.width()
    }
    fn backend(&self) -> &'static str {
        self.level.name()
    }
    fn backend_for(&self, bytes: usize) -> &'static str {
        match self.level {
            Level::Aesni256 if bytes <= AESNI256_MIN_BYTES => Level::Aesni128.name(),
            level => level.name(),
        }
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, false)
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, true)
    }
}

/// The modes fused into the kernels' pass for one stream (a 16-byte counter or chain
/// block); interleaved streams take the generic loops.
impl ModeKernels for SeedX86 {
    fn ctr_keystream_xor(&self, counter: &mut [u8], data: &mut [u8]) {
        let blocks = data.len().div_ceil(16) as u64;
        match <&[u8; 16]>::try_from(&*counter) {
            Ok(iv) if blocks < 1 << 32 => self.run::<{ pass::CTR }>(data, false, iv),
            _ => return ctr_by_batches(self, counter, data),
        }
        add_be(counter, blocks);
    }

    fn cbc_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        if prev.len() != 16 || data.is_empty() {
            return cbc_decrypt_by_slabs(self, prev, data);
        }
        let iv: &mut [u8; 16] = prev.try_into().unwrap();
        let next: [u8; 16] = data[data.len() - 16..].try_into().unwrap();
        self.run::<{ pass::CBC_DECRYPT }>(data, true, iv);
        *iv = next;
    }

    fn cfb_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        if prev.len() != 16 {
            return cfb_decrypt_by_slabs(self, prev, data);
        }
        let iv: &mut [u8; 16] = prev.try_into().unwrap();
        // The chain moves on only over whole blocks, as in the generic loop.
        let next: Option<[u8; 16]> = match data.len() {
            n if n >= 16 && n.is_multiple_of(16) => Some(data[n - 16..].try_into().unwrap()),
            _ => None,
        };
        self.run::<{ pass::CFB_DECRYPT }>(data, false, iv);
        if let Some(next) = next {
            *iv = next;
        }
    }
}

/// Reverses the bytes of every 32-bit word (big-endian block words ↔ native integers).
static BSWAP32: [u8; 16] = word_shuffle([3, 2, 1, 0]);

/// The inverse of AES's ShiftRows as a byte shuffle (byte r + 4c takes byte
/// r + 4((c - r) mod 4)), so that AESENCLAST's ShiftRows puts every byte back in place.
static INV_SHIFT_ROWS: [u8; 16] = {
    let mut idx = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let (r, c) = (i % 4, i / 4);
        idx[i] = (r + 4 * ((c + 4 - r) % 4)) as u8;
        i += 1;
    }
    idx
};

/// Byte shuffles that split two registers of words, `a` and `b`, into one of even bytes
/// (`E`: bytes 0 and 2 of every word, the S1 bytes) and one of odd bytes (`O`, the S2
/// bytes) for `aes_g!`'s paired G, in the order [a → E, b → E, a → O, b → O]; each
/// zeroes the bytes the other register fills, so an OR merges a pair. After
/// AESENCLAST's ShiftRows, byte 2d + h of a 128-bit lane of `E` holds byte 2h of word d
/// of `a`'s lane and byte 8 + 2d + h the same of `b`'s (bytes 2h + 1 for `O`): byte p
/// of `E` and of `O` belong to the same word, and the two bytes of a 16-bit pair are
/// X0 and X2 (X1 and X3) of one word. The pre-rotation ShiftRows undoes is folded in
/// here, where the single-register G spends a shuffle on it.
///
/// `gfni256` keeps G on one register: its G is 16 operations on Intel, and the split and
/// unpacks cost what the blend and rotations save. Paired (without the pre-rotation), it
/// ran 16 KiB SEED-ECB at 2.22 against 2.00 TSC c/B (Xeon family 6 model 167 under
/// `BITWEAVE_CPU=avx2-gfni`, 2026-12-06).
static SPLIT_PAIR: [[u8; 16]; 4] = {
    let mut out = [[0x80u8; 16]; 4];
    let mut k = 0;
    while k < 4 {
        let (from_b, odd) = (k % 2 == 1, k >= 2);
        // The split in order (byte q of `E` or `O`), then INV_SHIFT_ROWS on it: one
        // shuffle that does both.
        let mut plain = [0x80u8; 16];
        let mut q = 0;
        while q < 16 {
            if (q >= 8) == from_b {
                let (d, h) = ((q % 8) / 2, q % 2);
                plain[q] = (4 * d + 2 * h + odd as usize) as u8;
            }
            q += 1;
        }
        let mut i = 0;
        while i < 16 {
            out[k][i] = plain[INV_SHIFT_ROWS[i] as usize];
            i += 1;
        }
        k += 1;
    }
    out
};

/// Swaps the two bytes of every 16-bit pair: X0 ↔ X2 in `E`, X1 ↔ X3 in `O`.
static SWAP_PAIRS: [u8; 16] = [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14];

/// What a pass of `seed_core!`'s kernel reads into the rounds and stores after them: the
/// block cipher alone, or a mode fused around it, so that no keystream, counter or copy
/// of the ciphertext makes a second pass over memory (a `u8` because enums cannot yet be
/// const generic parameters).
pub mod pass {
    /// Blocks in, blocks out.
    pub const ECB: u8 = 0;
    /// Counter blocks built in registers in, data ⊕ keystream out.
    pub const CTR: u8 = 1;
    /// CBC decryption of one stream: blocks in, plaintext ⊕ the ciphertext block before out.
    pub const CBC_DECRYPT: u8 = 2;
    /// CFB decryption of one stream: the ciphertext one block behind in, data ⊕ its
    /// encryption out.
    pub const CFB_DECRYPT: u8 = 3;
}

/// The shared part of every level: the Feistel network on groups of four registers (the
/// words L0, L1, R0, R1 of a register's worth of blocks), the cascade over a batch with
/// the modes fused in (see [`pass`]), and G on one word for the key schedule. Expanded
/// inside a module that defines the vector type `V`, `LANES` (blocks per register),
/// `Consts` (vector constants built once per call) and the lane-wise primitives `set1`,
/// `xor`, `xor3`, `add`, `sub`, `and`, `equal`, `below`, `shuffle`, `shuffle_bytes`,
/// `transpose`, `g`, `g_many`, `g_latency` (G with the shortest dependency chain),
/// `lane0`, `loadu`, `storeu`, `shift_in` and `broadcast_block`, all enabled for
/// `$features`.
macro_rules! seed_core {
    ($features:literal, $groups:expr) => {
        /// Bytes in one register (`LANES / 4` blocks); a group of blocks is four of them.
        const RAW: usize = 4 * LANES;
        /// Bytes in a group: a register's worth of blocks, each as four words.
        const GROUP: usize = 16 * LANES;

        /// Counter offsets in the word layout [`swap_words`] produces: the 128-bit lane L
        /// of word register k holds word k of blocks L, L + LANES/4, L + 2·LANES/4, ...
        static COUNTER_OFFSETS: [u32; LANES] = {
            let mut o = [0u32; LANES];
            let mut d = 0;
            while d < LANES {
                o[d] = ((d % 4) * (LANES / 4) + d / 4) as u32;
                d += 1;
            }
            o
        };

        /// G on one word, for the key schedule (constant-time, like the data path).
        #[target_feature(enable = $features)]
        pub fn g_word(w: u32) -> u32 {
            lane0(g(set1(w), &Consts::new()))
        }

        /// What a pass carries from one group to the next.
        #[derive(Clone, Copy)]
        struct Carry {
            /// CTR: the next register's counter words, W0, W1, W2 as at the call's start
            /// and W3 per lane, advanced register by register. CBC and CFB decryption: in
            /// `words[0]`, the ciphertext block before the next group in its highest block
            /// position.
            words: [V; 4],
            /// CTR: W3 at the call's start in every lane.
            start: V,
        }

        impl Carry {
            /// The counter words of the next register's blocks: a lane whose W3 is below
            /// the start has wrapped past 2^32 since (once at most: a call is shorter than
            /// 2^32 blocks) and carries into W2, and on while the words above are all
            /// ones. Branch-free, as the counter comes from the IV.
            #[inline]
            #[target_feature(enable = $features)]
            fn counter_words(&self) -> [V; 4] {
                let [w0, w1, w2, w3] = self.words;
                let ones = set1(u32::MAX);
                // Masks are all ones (-1) where a carry comes in: subtracting adds it.
                let c2 = below(w3, self.start);
                let c1 = and(c2, equal(w2, ones));
                let c0 = and(c1, equal(w1, ones));
                [sub(w0, c0), sub(w1, c1), sub(w2, c2), w3]
            }
        }

        /// Four registers of blocks as the words [W0, W1, W2, W3] of every block, or back
        /// (an involution): a byte swap per word (SEED is big-endian) and a 4×4 word
        /// transpose inside each 128-bit lane.
        #[inline]
        #[target_feature(enable = $features)]
        fn swap_words(x: [V; 4]) -> [V; 4] {
            let bswap = shuffle(&BSWAP32);
            let mut t = x;
            for v in &mut t {
                *v = shuffle_bytes(*v, bswap);
            }
            transpose(t)
        }

        /// One pass ([`pass`]) over the `N` groups at `p`, in place; `carry` holds what
        /// the pass needs from before `p`.
        ///
        /// The rounds go two per step without swapping halves: L ^= F(R, k_i);
        /// R ^= F(L, k_i+1). After the 16 rounds the block is R ‖ L, as in `soft`. The F
        /// function (RFC 4269 §2.1) runs stage by stage across the groups, so the
        /// instructions of independent groups sit next to each other. CBC decryption
        /// reads the ciphertext one block behind (`p - 16 + RAW·j`) with unaligned loads,
        /// each taken before the store that overwrites it; it stores forward, as the
        /// other passes do (storing backwards cost 3.32 against 2.71 TSC c/B, `vaes256`,
        /// 16 KiB, AMD Zen 3, 2026-12-03).
        #[target_feature(enable = $features)]
        unsafe fn crypt_groups<const N: usize, const PASS: u8>(
            p: *mut u8,
            rk: &[[u32; 2]; 16],
            cs: &Consts,
            carry: &mut Carry,
        ) {
            let mut l0 = [set1(0); N];
            let mut l1 = [set1(0); N];
            let mut r0 = [set1(0); N];
            let mut r1 = [set1(0); N];
            // The last register of blocks as it was before the stores (CBC and CFB
            // decryption chain on from it).
            // SAFETY: the caller hands N groups' worth of readable, writable bytes at
            // `p`, which every access in this block stays within.
            let last = unsafe {
                for n in 0..N {
                    if PASS == pass::CTR {
                        [l0[n], l1[n], r0[n], r1[n]] = carry.counter_words();
                        carry.words[3] = add(carry.words[3], set1(LANES as u32));
                        continue;
                    }
                    let mut x = [set1(0); 4];
                    for (i, v) in x.iter_mut().enumerate() {
                        *v = if PASS == pass::CFB_DECRYPT {
                            behind(p, 4 * n + i, carry.words[0])
                        } else {
                            loadu(p.add(GROUP * n + RAW * i))
                        };
                    }
                    [l0[n], l1[n], r0[n], r1[n]] = swap_words(x);
                }
                loadu(p.add(GROUP * N - RAW))
            };
            /// G on a step's N registers: one register alone is latency-bound, so it
            /// takes G's shortest path; several take the level's G across registers.
            #[inline]
            #[target_feature(enable = $features)]
            fn g_for<const N: usize>(x: &mut [V; N], cs: &Consts) {
                if N == 1 {
                    x[0] = g_latency(x[0], cs);
                } else {
                    g_many(x, cs);
                }
            }
            #[target_feature(enable = $features)]
            fn half<const N: usize>(
                c: &[V; N],
                d: &[V; N],
                l0: &mut [V; N],
                l1: &mut [V; N],
                k: &[u32; 2],
                cs: &Consts,
            ) {
                // The pair as `RoundKeys` holds it: (K0, K0 ⊕ K1).
                let (k0, k01) = (set1(k[0]), set1(k[1]));
                // t1 = G((C ⊕ K0) ⊕ (D ⊕ K1)); t0 = G((C ⊕ K0) + t1); t1 = G(t1 + t0).
                // Loops, not `array::from_fn` closures: in a crate that depends on bitweave
                // with several codegen units, the closures were compiled without this fn's
                // target features and stayed out-of-line calls, one per G (`vaes256` ECB,
                // 1 KiB, in such a crate: 5,520 → 4,160 TSC cycles a call; Xeon family 6
                // model 207 under `BITWEAVE_CPU=avx2`; bitweave's own build unchanged).
                let (mut t0, mut t1) = ([k0; N], [k0; N]);
                for n in 0..N {
                    t1[n] = xor3(c[n], d[n], k01);
                }
                g_for(&mut t1, cs);
                for n in 0..N {
                    t0[n] = add(xor(c[n], k0), t1[n]);
                }
                g_for(&mut t0, cs);
                for n in 0..N {
                    t1[n] = add(t1[n], t0[n]);
                }
                g_for(&mut t1, cs);
                for n in 0..N {
                    l0[n] = xor(l0[n], add(t0[n], t1[n]));
                    l1[n] = xor(l1[n], t1[n]);
                }
            }
            for pair in rk.chunks_exact(2) {
                half(&r0, &r1, &mut l0, &mut l1, &pair[0], cs);
                half(&l0, &l1, &mut r0, &mut r1, &pair[1], cs);
            }
            // SAFETY: as above.
            unsafe {
                // CBC decryption: the ciphertext one block behind group n, read before
                // group n - 1's stores overwrite its first block.
                let mut first = set1(0);
                if PASS == pass::CBC_DECRYPT {
                    first = behind(p, 0, carry.words[0]);
                }
                for n in 0..N {
                    let x = swap_words([r0[n], r1[n], l0[n], l1[n]]);
                    let mut chain = [first; 4];
                    if PASS == pass::CBC_DECRYPT {
                        for (i, v) in chain.iter_mut().enumerate().skip(1) {
                            *v = behind(p, 4 * n + i, carry.words[0]);
                        }
                        if n + 1 < N {
                            first = behind(p, 4 * (n + 1), carry.words[0]);
                        }
                    }
                    for i in 0..4 {
                        let q = p.add(GROUP * n + RAW * i);
                        let out = match PASS {
                            pass::ECB => x[i],
                            pass::CBC_DECRYPT => xor(x[i], chain[i]),
                            _ => xor(x[i], loadu(q)),
                        };
                        storeu(q, out);
                    }
                }
            }
            if PASS == pass::CBC_DECRYPT || PASS == pass::CFB_DECRYPT {
                carry.words[0] = last;
            }
        }

        /// Register `j` of the blocks one block behind `p`: the first from `first` (the
        /// block before `p` in its highest position), the others one unaligned load each.
        ///
        /// # Safety
        /// `p - 16 + RAW·j` to `p + RAW·j` must be readable for j ≥ 1, and one register
        /// at `p` for j = 0.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn behind(p: *const u8, j: usize, first: V) -> V {
            // SAFETY: as the caller guarantees.
            unsafe {
                if j == 0 {
                    shift_in(first, loadu(p))
                } else {
                    loadu(p.add(RAW * j - 16))
                }
            }
        }

        /// Runs `PASS` ([`pass`]) with `rk` over `data`, in place: groups of `$groups`
        /// registers, then all remaining whole registers together (so a batch of a few
        /// registers, such as an interleaved row, still has them all in flight), then a
        /// partial register through a zero-padded copy (wiped after). `iv` is the
        /// counter block for CTR and the ciphertext block before `data` for CBC and CFB
        /// decryption; the caller advances it. ECB and CBC take whole blocks; CTR fewer
        /// than 2^32 of them.
        #[target_feature(enable = $features)]
        pub unsafe fn crypt<const PASS: u8>(data: &mut [u8], rk: &[[u32; 2]; 16], iv: &[u8; 16]) {
            // Behind a barrier, so the rounds read the constants as memory operands: seen
            // as splats, the byte masks were re-made by `vpbroadcastb` (a load and a
            // shuffle-port operation) at their uses, eight times per two rounds. With
            // `RoundKeys`' (K0, K0 ⊕ K1) (the second word was computed and moved over from
            // the integer registers each half round): Xeon family 6 model 167, 16 KiB,
            // TSC c/B, four alternating runs, `vaes256` under `BITWEAVE_CPU=avx2` ECB
            // 2.41 → 2.36, CTR 2.40 → 2.35, CBC decryption 2.40 → 2.36; `aesni256`
            // (`avx2-novaes`) ECB 2.70 → 2.65; `aesni128` (`aesni`) 4.79 → 4.73; the GFNI
            // levels unchanged (`gfni512` 0.90, `gfni256` 2.00).
            let cs = core::hint::black_box(Consts::new());
            let mut carry = Carry {
                words: [set1(0); 4],
                start: set1(0),
            };
            if PASS == pass::CTR {
                let words = iv
                    .chunks_exact(4)
                    .map(|w| u32::from_be_bytes(w.try_into().unwrap()));
                for (c, w) in carry.words.iter_mut().zip(words) {
                    *c = set1(w);
                }
                carry.start = carry.words[3];
                // SAFETY: `COUNTER_OFFSETS` is one register of readable bytes.
                let offsets = unsafe { loadu(COUNTER_OFFSETS.as_ptr().cast()) };
                carry.words[3] = add(carry.words[3], offsets);
            } else {
                // SAFETY: `iv` is 16 readable bytes.
                carry.words[0] = unsafe { broadcast_block(iv.as_ptr()) };
            }
            let mut groups = data.chunks_exact_mut($groups * GROUP);
            for grp in &mut groups {
                // SAFETY: the chunk holds `$groups` groups' worth of bytes.
                unsafe { crypt_groups::<{ $groups }, PASS>(grp.as_mut_ptr(), rk, &cs, &mut carry) };
            }
            let rest = groups.into_remainder();
            let whole = rest.len() / GROUP * GROUP;
            let (regs, tail) = rest.split_at_mut(whole);
            if !regs.is_empty() {
                // SAFETY: `regs` holds `whole / GROUP` (fewer than `$groups`) groups.
                unsafe {
                    crypt_regs::<PASS>(whole / GROUP, regs.as_mut_ptr(), rk, &cs, &mut carry)
                };
            }
            if !tail.is_empty() {
                let mut buf = [0u8; GROUP];
                buf[..tail.len()].copy_from_slice(tail);
                // SAFETY: `buf` is one group's worth of bytes.
                unsafe { crypt_groups::<1, PASS>(buf.as_mut_ptr(), rk, &cs, &mut carry) };
                tail.copy_from_slice(&buf[..tail.len()]);
                // All of it (at memset speed: `zeroize` writes a byte at a time, a tenth
                // of a 64-byte call): past the tail, CTR leaves the keystream of the
                // counters that come next.
                crate::bytes::wipe(&mut buf);
            }
        }

        /// `crypt_groups` for a run-time count of 1 to 8 groups.
        #[target_feature(enable = $features)]
        unsafe fn crypt_regs<const PASS: u8>(
            n: usize,
            p: *mut u8,
            rk: &[[u32; 2]; 16],
            cs: &Consts,
            carry: &mut Carry,
        ) {
            // SAFETY: (all arms) the caller hands `n` groups' worth of bytes at `p`.
            unsafe {
                match n {
                    1 => crypt_groups::<1, PASS>(p, rk, cs, carry),
                    2 => crypt_groups::<2, PASS>(p, rk, cs, carry),
                    3 => crypt_groups::<3, PASS>(p, rk, cs, carry),
                    4 => crypt_groups::<4, PASS>(p, rk, cs, carry),
                    5 => crypt_groups::<5, PASS>(p, rk, cs, carry),
                    6 => crypt_groups::<6, PASS>(p, rk, cs, carry),
                    7 => crypt_groups::<7, PASS>(p, rk, cs, carry),
                    8 => crypt_groups::<8, PASS>(p, rk, cs, carry),
                    _ => unreachable!("at most 8 groups per step"),
                }
            }
        }
    };
}

/// `g_many` for the GFNI levels: G on a step's registers one after another, GFNI's G
/// being short enough that the registers' chains overlap as issued. Expanded after `g`.
macro_rules! g_each {
    ($features:literal) => {
        #[inline]
        #[target_feature(enable = $features)]
        fn g_many<const N: usize>(x: &mut [V; N], c: &Consts) {
            for v in x.iter_mut() {
                *v = g(*v, c);
            }
        }
    };
}

mod gfni512;

/// G through AESENCLAST for a lane width (`vaes256`, `aesni256`, `aesni128`), given its
/// intrinsics: map into AES's field (two nibble lookups), AESENCLAST with a zero round key
/// (AES's inversion and affine map) with the ShiftRows it applies undone beforehand, each
/// S-box kind's map back (two nibble lookups; see [`NibbleMap`]), then the mixing.
/// Expanded after the lane primitives (`V`, `set1`, `xor`, `shuffle`); defines `Consts`,
/// `g`, `g_latency` and `g_many` for [`seed_core`].
///
/// One register's G must blend the two S-box kinds (even bytes S1, odd bytes S2) and
/// rotate bytes within words for the mixing. `g_many` takes registers two at a time and
/// splits their bytes by kind first ([`SPLIT_PAIR`], the ShiftRows pre-rotation folded
/// in): each split register then takes one S-box's map, and the mixing is masks on whole
/// registers and one swap within byte pairs per output
/// ([`crate::cipher::seed::field::mix_split`]), two byte unpacks putting the words back.
macro_rules! aes_g {
    (
        $features:literal,
        shuffle: $shuffle:ident,
        and: $and:ident,
        or: $or:ident,
        srli4: $srli4:path,
        aesenclast: $aesenclast:ident,
        zero: $zero:ident,
        blendv: $blendv:ident,
        unpacklo8: $unpacklo8:ident,
        unpackhi8: $unpackhi8:ident,
        set1_8: $set1_8:ident,
        set1_16: $set1_16:ident,
        reg: $reg:ident $(,)?
    ) => {
        /// Vector constants of G, built once per call.
        pub(super) struct Consts {
            inv_shift_rows: V,
            low: V,
            to_aes: [V; 2],
            s1: [V; 2],
            s2: [V; 2],
            odd: V,
            mix: [V; 4],
            rotl: [V; 2],
            split: [V; 4],
            swap: V,
            masks: [V; 4],
        }

        impl Consts {
            #[inline]
            #[target_feature(enable = $features)]
            pub(super) fn new() -> Self {
                let tables = |m: &NibbleMap| [shuffle(&m.lo), shuffle(&m.hi)];
                Consts {
                    inv_shift_rows: shuffle(&INV_SHIFT_ROWS),
                    low: $set1_8(0x0f),
                    to_aes: tables(&AES_IN),
                    s1: tables(&AES_OUT_S1),
                    s2: tables(&AES_OUT_S2),
                    odd: $set1_16(0xff00u16 as i16),
                    mix: MIX_TWO_ROTATIONS.map(|m| set1(m)),
                    // The compiler emits the rotation by 16 as `vpshuflw` + `vpshufhw`,
                    // two shuffles for one. Hiding its indices (`black_box`, as `gfni512`
                    // does) gave one `vpshufb`, but with the indices loaded from memory at
                    // every use, and these kernels' loads are near their limit (16 ymm
                    // registers hold neither the eight groups nor the tables). AMD Zen 4
                    // (2026-12-03, 16 KiB, TSC c/B, best of five alternating runs):
                    // `vaes256` ECB 2.489 → 2.555, CTR 2.526 → 2.590, CFB decryption
                    // 2.514 → 2.465; `aesni128` ECB 5.01 → 5.69. So the indices stay
                    // visible.
                    rotl: [shuffle(&ROTL8), shuffle(&ROTL16)],
                    split: SPLIT_PAIR.each_ref().map(|s| shuffle(s)),
                    swap: shuffle(&SWAP_PAIRS),
                    masks: M.map(|m| $set1_8(m as i8)),
                }
            }
        }

        /// The two nibble lookups of a byte map, on bytes already split into nibbles.
        #[inline]
        #[target_feature(enable = $features)]
        fn map(lo: V, hi: V, t: &[V; 2]) -> V {
            xor($shuffle(t[0], lo), $shuffle(t[1], hi))
        }

        /// A vector's bytes as low and high nibbles.
        #[inline]
        #[target_feature(enable = $features)]
        fn nibbles(x: V, low: V) -> (V, V) {
            ($and(x, low), $and($srli4(x), low))
        }

        /// G on a register of words, alone: the S-box kinds blended and the mixing with
        /// two rotations (`field::mix_two_rotations`).
        #[inline]
        #[target_feature(enable = $features)]
        fn g(x: V, c: &Consts) -> V {
            let (lo, hi) = nibbles($shuffle(x, c.inv_shift_rows), c.low);
            let a = $aesenclast(map(lo, hi, &c.to_aes), $zero());
            let (lo, hi) = nibbles(a, c.low);
            let y = $blendv(map(lo, hi, &c.s1), map(lo, hi, &c.s2), c.odd);
            let r = $shuffle(y, c.rotl[0]);
            let z0 = xor($and(y, c.mix[0]), $and(r, c.mix[1]));
            let z1 = xor($and(y, c.mix[2]), $and(r, c.mix[3]));
            xor(z0, $shuffle(z1, c.rotl[1]))
        }

        /// One chain of dependent instructions already; nothing shorter to take.
        #[inline]
        #[target_feature(enable = $features)]
        fn g_latency(x: V, c: &Consts) -> V {
            g(x, c)
        }

        /// [`in_order_8`](crate::cipher::in_order_8) on a step of eight registers (other
        /// counts pass unchanged; see `g_many`).
        #[inline]
        #[target_feature(enable = $features)]
        fn in_order<const N: usize>(x: &mut [V; N]) {
            if let Ok(x) = <&mut [V; 8]>::try_from(&mut x[..]) {
                crate::cipher::in_order_8!($reg, x);
            }
        }

        /// `e & me ⊕ o & mo`, one term pair of [`crate::cipher::seed::field::mix_split`].
        #[inline]
        #[target_feature(enable = $features)]
        fn masked(e: V, o: V, me: V, mo: V) -> V {
            xor($and(e, me), $and(o, mo))
        }

        /// G on N registers: two at a time with their bytes split by S-box kind (see the
        /// macro's doc; an odd one left over takes [`g`]), stage by stage across them,
        /// with [`in_order`] between the stages. G is one long chain; issued register by
        /// register, the core's vector scheduler held only three or four of them and the
        /// pipes idled (a C model of eight registers: 10.6 cycles per G against the 7.4 its
        /// operations need on four pipes; stage by stage 9.2). `vaes256`, 16 KiB ECB under
        /// `BITWEAVE_CPU=avx2` on AMD Zen 4 (2026-12-03, best of alternating runs, TSC
        /// c/B): 3.015 → 2.486; `aesni256` (`avx2-novaes`) 3.79 → 2.80, `aesni128`
        /// (`aesni`) 6.03 → 4.98.
        ///
        /// The mixing in 15 operations per pair instead of 16 (each output field is the
        /// XOR of all four terms but the one whose mask clears it: a shared `e ⊕ o`, its
        /// swap, and two bit blends) measured slower: a longer chain in a loop that
        /// already spills (Xeon family 6 model 167 under `BITWEAVE_CPU=avx2`, 2026-12-06,
        /// 16 KiB, TSC c/B: `vaes256` ECB 2.302 → 2.322, CTR 2.291 → 2.308).
        #[inline]
        #[target_feature(enable = $features)]
        fn g_many<const N: usize>(x: &mut [V; N], c: &Consts) {
            let split = 2 * (N / 2);
            // y[2m] and y[2m + 1]: the even and odd bytes of registers 2m and 2m + 1.
            let mut y = [$zero(); N];
            for m in 0..N / 2 {
                let (a, b) = (x[2 * m], x[2 * m + 1]);
                y[2 * m] = $or($shuffle(a, c.split[0]), $shuffle(b, c.split[1]));
                y[2 * m + 1] = $or($shuffle(a, c.split[2]), $shuffle(b, c.split[3]));
            }
            let mut lo = [$zero(); N];
            let mut hi = [$zero(); N];
            for n in 0..split {
                (lo[n], hi[n]) = nibbles(y[n], c.low);
            }
            for n in 0..split {
                y[n] = map(lo[n], hi[n], &c.to_aes);
            }
            in_order(&mut y);
            for v in &mut y[..split] {
                *v = $aesenclast(*v, $zero());
            }
            in_order(&mut y);
            for n in 0..split {
                (lo[n], hi[n]) = nibbles(y[n], c.low);
            }
            for n in 0..split {
                let kind = if n % 2 == 0 { &c.s1 } else { &c.s2 };
                y[n] = map(lo[n], hi[n], kind);
            }
            in_order(&mut y);
            let m = &c.masks;
            for k in 0..N / 2 {
                let (e, o) = (y[2 * k], y[2 * k + 1]);
                let even = xor(
                    masked(e, o, m[0], m[1]),
                    $shuffle(masked(e, o, m[2], m[3]), c.swap),
                );
                let odd = xor(
                    masked(e, o, m[1], m[2]),
                    $shuffle(masked(e, o, m[3], m[0]), c.swap),
                );
                x[2 * k] = $unpacklo8(even, odd);
                x[2 * k + 1] = $unpackhi8(even, odd);
            }
            if N % 2 == 1 {
                x[N - 1] = g(x[N - 1], c);
            }
        }
    };
}

/// The AVX2 lane primitives [`seed_core`] needs besides G and its constants (`set1`,
/// `xor`, `xor3`, `add`, `sub`, `and`, `equal`, `below`, `lane0`, `shuffle`,
/// `shuffle_bytes`, `transpose`, `loadu`, `storeu`, `shift_in`, `broadcast_block`), for
/// the 256-bit levels, enabled for `$features`.
macro_rules! avx2_lanes {
    ($features:literal) => {
        type V = __m256i;
        const LANES: usize = 8;

        #[inline]
        #[target_feature(enable = $features)]
        fn set1(w: u32) -> V {
            _mm256_set1_epi32(w as i32)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn xor(a: V, b: V) -> V {
            _mm256_xor_si256(a, b)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn xor3(a: V, b: V, c: V) -> V {
            _mm256_xor_si256(_mm256_xor_si256(a, b), c)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn add(a: V, b: V) -> V {
            _mm256_add_epi32(a, b)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn sub(a: V, b: V) -> V {
            _mm256_sub_epi32(a, b)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn and(a: V, b: V) -> V {
            _mm256_and_si256(a, b)
        }

        /// All ones in the lanes where `a == b`.
        #[inline]
        #[target_feature(enable = $features)]
        fn equal(a: V, b: V) -> V {
            _mm256_cmpeq_epi32(a, b)
        }

        /// All ones in the lanes where `a < b`, unsigned (signed compare, tops flipped).
        #[inline]
        #[target_feature(enable = $features)]
        fn below(a: V, b: V) -> V {
            let top = set1(1 << 31);
            _mm256_cmpgt_epi32(xor(b, top), xor(a, top))
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn lane0(v: V) -> u32 {
            _mm_cvtsi128_si32(_mm256_castsi256_si128(v)) as u32
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn shuffle(idx: &[u8; 16]) -> V {
            // SAFETY: `idx` is 16 readable bytes; loadu has no alignment requirement.
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(idx.as_ptr().cast()) })
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn shuffle_bytes(x: V, idx: V) -> V {
            _mm256_shuffle_epi8(x, idx)
        }

        /// 4×4 word transpose inside each 128-bit lane (an involution).
        #[inline]
        #[target_feature(enable = $features)]
        fn transpose(x: [V; 4]) -> [V; 4] {
            let t0 = _mm256_unpacklo_epi32(x[0], x[1]);
            let t1 = _mm256_unpackhi_epi32(x[0], x[1]);
            let t2 = _mm256_unpacklo_epi32(x[2], x[3]);
            let t3 = _mm256_unpackhi_epi32(x[2], x[3]);
            [
                _mm256_unpacklo_epi64(t0, t2),
                _mm256_unpackhi_epi64(t0, t2),
                _mm256_unpacklo_epi64(t1, t3),
                _mm256_unpackhi_epi64(t1, t3),
            ]
        }

        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn loadu(p: *const u8) -> V {
            // SAFETY: the caller guarantees 32 readable bytes at `p`.
            unsafe { _mm256_loadu_si256(p.cast()) }
        }

        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn storeu(p: *mut u8, v: V) {
            // SAFETY: the caller guarantees 32 writable bytes at `p`.
            unsafe { _mm256_storeu_si256(p.cast(), v) }
        }

        /// The blocks one before `x`'s: `last`'s high block, then `x`'s low one.
        #[inline]
        #[target_feature(enable = $features)]
        fn shift_in(last: V, x: V) -> V {
            _mm256_permute2x128_si256::<0x21>(last, x)
        }

        /// One block in every block position.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn broadcast_block(p: *const u8) -> V {
            // SAFETY: the caller guarantees 16 readable bytes at `p`.
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(p.cast()) })
        }
    };
}

mod gfni256;

mod vaes256;

mod aesni256;

/// [`avx2_lanes`] on 128-bit registers (4 blocks each), with SSE encodings only: for CPUs
/// with AES-NI but neither VAES nor GFNI.
macro_rules! sse_lanes {
    ($features:literal) => {
        type V = __m128i;
        const LANES: usize = 4;

        #[inline]
        #[target_feature(enable = $features)]
        fn set1(w: u32) -> V {
            _mm_set1_epi32(w as i32)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn xor(a: V, b: V) -> V {
            _mm_xor_si128(a, b)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn xor3(a: V, b: V, c: V) -> V {
            _mm_xor_si128(_mm_xor_si128(a, b), c)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn add(a: V, b: V) -> V {
            _mm_add_epi32(a, b)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn sub(a: V, b: V) -> V {
            _mm_sub_epi32(a, b)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn and(a: V, b: V) -> V {
            _mm_and_si128(a, b)
        }

        /// All ones in the lanes where `a == b`.
        #[inline]
        #[target_feature(enable = $features)]
        fn equal(a: V, b: V) -> V {
            _mm_cmpeq_epi32(a, b)
        }

        /// All ones in the lanes where `a < b`, unsigned (signed compare, tops flipped).
        #[inline]
        #[target_feature(enable = $features)]
        fn below(a: V, b: V) -> V {
            let top = set1(1 << 31);
            _mm_cmpgt_epi32(xor(b, top), xor(a, top))
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn lane0(v: V) -> u32 {
            _mm_cvtsi128_si32(v) as u32
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn shuffle(idx: &[u8; 16]) -> V {
            // SAFETY: `idx` is 16 readable bytes; loadu has no alignment requirement.
            unsafe { _mm_loadu_si128(idx.as_ptr().cast()) }
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn shuffle_bytes(x: V, idx: V) -> V {
            _mm_shuffle_epi8(x, idx)
        }

        /// 4×4 word transpose (an involution).
        #[inline]
        #[target_feature(enable = $features)]
        fn transpose(x: [V; 4]) -> [V; 4] {
            let t0 = _mm_unpacklo_epi32(x[0], x[1]);
            let t1 = _mm_unpackhi_epi32(x[0], x[1]);
            let t2 = _mm_unpacklo_epi32(x[2], x[3]);
            let t3 = _mm_unpackhi_epi32(x[2], x[3]);
            [
                _mm_unpacklo_epi64(t0, t2),
                _mm_unpackhi_epi64(t0, t2),
                _mm_unpacklo_epi64(t1, t3),
                _mm_unpackhi_epi64(t1, t3),
            ]
        }

        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn loadu(p: *const u8) -> V {
            // SAFETY: the caller guarantees 16 readable bytes at `p`.
            unsafe { _mm_loadu_si128(p.cast()) }
        }

        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn storeu(p: *mut u8, v: V) {
            // SAFETY: the caller guarantees 16 writable bytes at `p`.
            unsafe { _mm_storeu_si128(p.cast(), v) }
        }

        /// The block one before `x`'s: `last` itself (a register is one block).
        #[inline]
        #[target_feature(enable = $features)]
        fn shift_in(last: V, _x: V) -> V {
            last
        }

        /// One block in every block position.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn broadcast_block(p: *const u8) -> V {
            // SAFETY: the caller guarantees 16 readable bytes at `p`.
            unsafe { loadu(p) }
        }
    };
}

mod aesni128;

#[cfg(test)]
mod tests {
    use super::super::soft;
    use super::*;

    #[test]
    fn vector_g_matches_the_table_g() {
        let mut w = 0xdead_beefu32;
        let mut words: Vec<u32> = (0..4)
            .flat_map(|pos| (0..=255u32).map(move |v| v << (8 * pos)))
            .collect();
        for _ in 0..20_000 {
            w = w
                .wrapping_mul(0x9e37_79b9)
                .wrapping_add(0x7f4a_7c15)
                .rotate_left(11);
            words.push(w);
        }
        for level in [
            Level::Gfni512,
            Level::Gfni256,
            Level::Vaes256,
            Level::Aesni128,
            Level::Aesni256,
        ] {
            if !level.available() {
                eprintln!(
                    "skipped: {} (CPU lacks {})",
                    level.name(),
                    crate::cpu::describe(level.features())
                );
                continue;
            }
            for &w in &words {
                let got = level.g(w).unwrap();
                assert_eq!(got, soft::g(w), "{} G({w:#010x})", level.name());
            }
        }
    }

    /// A row of the bench names the kernel that ran it: calls `aesni256` hands to
    /// `aesni128` are named so.
    #[test]
    fn aesni256_names_the_kernel_that_runs_a_call() {
        let Some(seed) = SeedX86::new(&[7; 16], Level::Aesni256) else {
            eprintln!(
                "skipped: aesni256 (CPU lacks {})",
                crate::cpu::describe(Level::Aesni256.features())
            );
            return;
        };
        assert_eq!(seed.backend(), "aesni256");
        for (bytes, name) in [(16, "aesni128"), (64, "aesni128"), (80, "aesni256")] {
            assert_eq!(seed.backend_for(bytes), name, "{bytes} bytes");
        }
    }
}
