//! `aesni`, `vaes256`, `vaes512`: AES on the x86 AES instructions.
//!
//! **Constant-time**: the AES instructions run in data-independent time, and key setup
//! computes SubWord with `AESENCLAST` (no table), so nothing secret reaches a branch or an
//! address.
//!
//! Throughput comes from blocks in flight: one `AESENC` has a latency of several cycles
//! but the CPU starts one or two per cycle, so each backend keeps eight independent
//! registers busy per round — 8 blocks (`aesni`, 128-bit), 16 (`vaes256`, two blocks per
//! ymm) or 32 (`vaes512`, four per zmm), twelve registers in long batches on `aesni` and
//! `vaes256` (`WIDE_GROUPS_FROM`) — and cascades down for a tail: full-width groups,
//! then one register at a time, then single blocks on AES-NI.
//!
//! Serial chains (`encrypt_chains` with one stream) keep the feedback block in a register
//! for the whole run, so standard CBC/CFB/OFB encryption pays only the instruction
//! latency per block; several chains go to the batch path one row at a time.
//!
//! Here: the levels, the round keys as the kernels read them, the backend and its
//! per-call dispatch (which kernel, which width by size). The kernels, one file per kind
//! of work: `batch` (independent blocks), `chains` (serial chains, one or many),
//! `ctr` (counter mode), `decrypt` (CBC/CFB decryption).
#![allow(unsafe_code)]

use core::arch::x86_64::*;
use core::ptr::addr_of_mut;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::KeySchedule;
use crate::cipher::{BlockCipher, Feedback, ModeKernels, STREAMED_BYTES};
use crate::cpu::Feature;

mod batch;
mod chains;
mod ctr;
mod decrypt;

use batch::{crypt_aesni, crypt_vaes256, crypt_vaes512, few_aesni};
use chains::{
    cfb1_encrypt_aesni, cfb8_encrypt_aesni, chains_aesni, chains_vaes256, chains_vaes512,
    single_chain,
};
use ctr::{ctr_aesni, ctr_one_block, ctr_vaes256, ctr_vaes512, ctr_vaes512_registers};
use decrypt::{
    decrypt_few, decrypt_fresh_aesni, decrypt_rows_vaes512, stream_decrypt_aesni,
    stream_decrypt_vaes256, stream_decrypt_vaes512, whole_rows_of_registers,
};

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
            Level::AesNi => &[Aes, Sse2, Ssse3, Sse41],
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
///
/// The 256-bit rows sit 32-byte aligned inside a buffer that is only 16-byte aligned
/// (one spare row; [`v256`](Self::v256) finds where they start). A 32-byte-aligned type
/// would make its handle's allocation go through `posix_memalign`, which glibc never
/// serves from its per-thread cache: `Cipher::new` and its drop took 272 TSC cycles with
/// it and 216 without (AMD Zen 4, AES-128). Because where the rows start depends on the
/// address, round keys are filled in place where they will live (a handle's heap memory)
/// and never moved: the type is neither `Clone` nor returned by value (only boxed).
#[derive(Zeroize, ZeroizeOnDrop)]
#[repr(C, align(16))]
struct RoundKeys {
    x1: Rows<15>,
    x2: Rows<31>,
}

/// `N` 16-byte rows.
#[repr(C, align(16))]
struct Rows<const N: usize>([[u8; 16]; N]);

// Wiped at memset speed: `zeroize`'s byte-by-byte volatile stores over both directions'
// 1,440 bytes were most of a `Cipher::new` (0.8 µs of it on Zen 4).
impl<const N: usize> Zeroize for Rows<N> {
    fn zeroize(&mut self) {
        crate::bytes::wipe(&mut self.0);
    }
}

impl RoundKeys {
    /// Bytes from the start of `x2` to its first 32-byte boundary: `x2` is 16-byte
    /// aligned, so that is 16 when it lies 16 past a boundary, else 0.
    #[inline(always)]
    fn x2_offset(x2: *const Rows<31>) -> usize {
        x2 as usize & 16
    }

    /// Stores round key `r` in both layouts of the keys at `this`, which may be
    /// uninitialised memory (a key schedule fills its rows where they will live).
    ///
    /// # Safety
    /// `this` must be valid for writes of a `RoundKeys`, and `r` < 15.
    #[target_feature(enable = "sse2")]
    unsafe fn set(this: *mut RoundKeys, r: usize, k: __m128i) {
        // SAFETY: (the caller's contract) row `r` of `x1` and the two 16-byte halves of
        // 256-bit row `r` are inside `*this`: `x2` holds 31 rows, and the 30 from its
        // first 32-byte boundary (at most one row in) hold the 15 256-bit rows.
        unsafe {
            let x1 = addr_of_mut!((*this).x1.0[r]).cast::<__m128i>();
            let x2 = addr_of_mut!((*this).x2);
            let row = x2
                .cast::<u8>()
                .add(Self::x2_offset(x2) + 32 * r)
                .cast::<__m128i>();
            _mm_storeu_si128(x1, k);
            _mm_storeu_si128(row, k);
            _mm_storeu_si128(row.add(1), k);
        }
    }

    /// Fills `this` (possibly uninitialised) with round keys 0..=`rounds` from
    /// `key(r)`, and zeroes the rows past them, which no kernel reads (and the spare row).
    ///
    /// # Safety
    /// `this` must be valid for writes of a `RoundKeys`, where it will stay (the 256-bit
    /// rows' place depends on the address), and `rounds` < 15.
    #[target_feature(enable = "sse2")]
    unsafe fn fill(this: *mut RoundKeys, rounds: usize, key: impl Fn(usize) -> __m128i) {
        // SAFETY: the caller's contract: the spare row (first or last of `x2`) is inside.
        unsafe {
            let x2 = addr_of_mut!((*this).x2);
            let spare = if Self::x2_offset(x2) == 0 { 30 } else { 0 };
            _mm_storeu_si128(addr_of_mut!((*x2).0[spare]).cast(), _mm_setzero_si128());
        }
        for r in 0..15 {
            let k = if r <= rounds {
                key(r)
            } else {
                _mm_setzero_si128()
            };
            // SAFETY: the caller's contract, and r < 15.
            unsafe { Self::set(this, r, k) };
        }
    }

    /// The round keys as 128-bit vectors, in place.
    fn v128(&self) -> &[__m128i; 15] {
        // SAFETY: `x1` is 15 × 16 bytes aligned to 16, the layout of [__m128i; 15], and
        // every bit pattern is a valid __m128i.
        unsafe { &*(&self.x1 as *const Rows<15>).cast::<[__m128i; 15]>() }
    }

    /// The round keys in both lanes of 256-bit vectors, in place.
    fn v256(&self) -> &[__m256i; 15] {
        let x2 = &self.x2 as *const Rows<31>;
        // SAFETY: from `x2`'s first 32-byte boundary (at most 16 bytes in), 480 of its 496
        // bytes are left: 15 × 32 bytes aligned to 32, the layout of [__m256i; 15], filled
        // there by `fill` (the keys never moved since).
        unsafe {
            &*x2.cast::<u8>()
                .add(Self::x2_offset(x2))
                .cast::<[__m256i; 15]>()
        }
    }
}

/// AES on the x86 AES instructions at a given [`Level`].
///
/// Decryption keys are derived on the first call that needs them: a context keyed for
/// one message that is encrypted (CTR, CBC encryption, a one-shot call with a fresh key)
/// never writes, holds or wipes them — with a fresh key per 64-byte call, building and
/// wiping both directions' 1.4 KiB was most of the call (see [`AesX86::new_shared`]).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct AesX86 {
    enc: RoundKeys,
    /// Equivalent-inverse-cipher keys (FIPS-197 §5.3.5): reversed, InvMixColumns applied
    /// to the middle ones, as `AESDEC` expects; derived from `enc` on first use (wiped
    /// on drop by their own `ZeroizeOnDrop`).
    #[zeroize(skip)]
    dec: OnceLock<Box<RoundKeys>>,
    /// Set by the first decryption of three or four blocks that took the decryption keys
    /// on the fly ([`FRESH_DECRYPT_MAX`]): the next one derives them instead.
    #[zeroize(skip)]
    fresh_taken: AtomicBool,
    rounds: usize,
    #[zeroize(skip)]
    level: Level,
    /// The kernel choices that differ by CPU vendor ([`vendor_tuning`]).
    #[zeroize(skip)]
    tuning: VendorTuning,
}

/// Kernel choices that differ by CPU vendor, measured per vendor ([`vendor_tuning`]).
#[derive(Clone)]
struct VendorTuning {
    /// On a VAES-512 backend, batches (ECB, and the batch path of other modes) run
    /// VAES-512's kernel from this call size (VAES-256's below it; see `AesX86::crypt`).
    /// AMD Zen 4, VAES-256 with its twelve-register groups against VAES-512 (2026-12-05,
    /// ECB encryption, TSC c/B, best of three): AES-128 4 / 8 / 16 / 64 KiB 0.113 / 0.113 /
    /// 0.112 / 0.112 against 0.118 / 0.114 / 0.112 / 0.111, AES-256 0.158 / 0.158 / 0.157 /
    /// 0.157 against 0.164 / 0.161 / 0.159 / 0.158: from 16 KiB. Intel from 1 KiB (its
    /// 512-bit AES instructions issue on their own port, so VAES-512 has the throughput
    /// there): Xeon family 6 model 167 (2026-12-06, ECB, TSC c/B, best of three
    /// alternating runs, VAES-256 → VAES-512) AES-128 1 KiB 0.100 → 0.097-0.099, 2 KiB
    /// 0.100 → 0.097-0.099, AES-192 1 KiB 0.120 → 0.116, AES-256 1 KiB 0.139-0.141 →
    /// 0.136, 2 KiB 0.139 → 0.136; at 512 B level, at 128-256 B AES-128 slower (256 B
    /// 0.151 → 0.159).
    ecb_vaes512_from: usize,
    /// On a VAES-512 backend, single-stream CBC/CFB decryption runs
    /// `decrypt::stream_decrypt_vaes512` from this call size (VAES-256's kernel below it).
    decrypt_vaes512_from: usize,
    /// On a VAES-512 backend, CTR runs `ctr::ctr_vaes512_registers` at these call sizes ...
    ctr_vaes512_registers: core::ops::Range<usize>,
    /// ... and `ctr::ctr_vaes512` from this one when outside them (VAES-256's kernel
    /// otherwise). Never reached where the range covers every size (Intel).
    ctr_vaes512_from: usize,
    /// AES-NI counter mode builds three or more groups' counter blocks in the vector
    /// registers rather than on the stack (see `ctr::ctr_aesni`).
    ctr_aesni_octets: bool,
    /// CTR calls of 1 to 16 bytes run `ctr::ctr_one_block` at every level.
    ctr_one_block: bool,
    /// CTR calls of up to this many bytes (beyond `ctr_one_block`'s) run the AES-NI
    /// kernel at every level.
    ctr_aesni_upto: usize,
    /// Single-stream CFB decryption of up to this many bytes runs the AES-NI kernel at
    /// every level (since `decrypt::cfb_decrypt_few` takes one to four whole blocks on
    /// every vendor, that leaves the calls that end in a partial block).
    cfb_decrypt_aesni_upto: usize,
}

impl AesX86 {
    /// [`ModeKernels::encrypt_chains`] on two or more chains (interleaved rows). Kept out of
    /// line, so the one-chain path does not pay this one's register saves.
    #[inline(never)]
    fn interleaved_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        assert!(
            !state.is_empty() && data.len().is_multiple_of(state.len()),
            "whole rows only"
        );
        crate::cipher::chains_as_rows(self, feedback, state, data);
    }

    /// Keys the backend in place in its shared handle, or `None` when this CPU lacks
    /// `level`. The round keys are written straight into the handle's allocation:
    /// built on the stack first (zeroed, then filled), they were copied into the handle,
    /// and with a fresh key per 64-byte call the copies, the zeroing and the second
    /// direction's keys cost more than the key schedule and the call together (AMD Zen 4,
    /// AES-128, `Cipher::new` then drop: 470 TSC cycles before, 272 after; 216 once the
    /// handle also left `posix_memalign`, see `RoundKeys`).
    pub fn new_shared(key: &[u8], level: Level) -> Option<Arc<Self>> {
        if !level.available() {
            return None;
        }
        let mut aes = Arc::<AesX86>::new_uninit();
        let this = Arc::get_mut(&mut aes).expect("not shared yet").as_mut_ptr();
        // SAFETY: `this` points to the new handle's memory, valid for writes of an
        // AesX86; every field is written below before `assume_init`. `level.available()`
        // checked AES-NI and SSE2 above.
        unsafe {
            let rounds = Self::expand(addr_of_mut!((*this).enc), key);
            addr_of_mut!((*this).dec).write(OnceLock::new());
            addr_of_mut!((*this).fresh_taken).write(AtomicBool::new(false));
            addr_of_mut!((*this).rounds).write(rounds);
            addr_of_mut!((*this).level).write(level);
            addr_of_mut!((*this).tuning).write(vendor_tuning());
            Some(aes.assume_init())
        }
    }

    /// The encryption round keys as 128-bit vectors (rounds + 1 of them are used) and the
    /// round count: for kernels outside this module that run AES rounds beside other
    /// work (AES-GCM's stitched loop on AES-NI).
    pub(crate) fn encryption_keys(&self) -> (&[__m128i; 15], usize) {
        (self.enc.v128(), self.rounds)
    }

    /// Fills the encryption round keys at `enc` (possibly uninitialised) from `key` and
    /// returns the round count: AES-128 and AES-256 by `AESKEYGENASSIST` (a word chain
    /// through a general-purpose register per SubWord, as the generic schedule runs it,
    /// took three times as long), AES-192, whose round keys straddle the 128-bit words,
    /// by the generic schedule with SubWord on `AESENCLAST`.
    ///
    /// # Safety
    /// `enc` must be valid for writes of a `RoundKeys`; the CPU must have AES-NI.
    #[target_feature(enable = "aes,sse2")]
    unsafe fn expand(enc: *mut RoundKeys, key: &[u8]) -> usize {
        let mut k = [_mm_setzero_si128(); 15];
        let rounds = match key.len() {
            16 => expand128(key, &mut k),
            32 => expand256(key, &mut k),
            _ => {
                let ks = KeySchedule::with_sub_word(key, |w| sub_word_aesni(w));
                for (r, k) in k.iter_mut().enumerate().take(ks.rounds() + 1) {
                    // SAFETY: 16 bytes from a 16-byte array.
                    *k = unsafe { _mm_loadu_si128(ks.round_key_bytes(r).as_ptr().cast()) };
                }
                ks.rounds()
            }
        };
        // SAFETY: the caller's contract; rounds ≤ 14.
        unsafe { RoundKeys::fill(enc, rounds, |r| k[r]) };
        k.fill(_mm_setzero_si128());
        std::hint::black_box(&mut k);
        rounds
    }

    /// The decryption round keys, derived from the encryption keys on first use.
    fn dec(&self) -> &RoundKeys {
        // SAFETY: every AesX86 was built where AES-NI was detected.
        self.dec.get_or_init(|| unsafe { self.inverse_keys() })
    }

    /// The equivalent inverse cipher's round keys, in their own heap memory: the
    /// encryption keys in reverse order, `AESIMC` on the middle ones.
    ///
    /// # Safety
    /// The CPU must have AES-NI.
    #[target_feature(enable = "aes,sse2")]
    unsafe fn inverse_keys(&self) -> Box<RoundKeys> {
        let (enc, rounds) = self.encryption_keys();
        let mut dec = Box::<RoundKeys>::new_uninit();
        // SAFETY: `fill` writes every byte of `dec`, in its final place, before
        // `assume_init`.
        unsafe {
            RoundKeys::fill(dec.as_mut_ptr(), rounds, |r| {
                let d = enc[rounds - r];
                if r == 0 || r == rounds {
                    d
                } else {
                    _mm_aesimc_si128(d)
                }
            });
            dec.assume_init()
        }
    }

    /// Whether a decryption of `bytes` takes `decrypt::decrypt_fresh_aesni` (see
    /// [`FRESH_DECRYPT_MAX`]): a few whole blocks, decryption keys not derived yet.
    fn fresh_decrypt(&self, bytes: usize) -> bool {
        if !(16..=FRESH_DECRYPT_MAX).contains(&bytes)
            || !bytes.is_multiple_of(16)
            || self.dec.get().is_some()
        {
            return false;
        }
        // One or two blocks always; three or four on the context's first such call only
        // (a plain load and store: a lost race just derives the keys a call early or
        // late, and every path decrypts alike).
        if bytes <= FRESH_ALWAYS_MAX {
            return true;
        }
        let taken = self.fresh_taken.load(Ordering::Relaxed);
        self.fresh_taken.store(true, Ordering::Relaxed);
        !taken
    }

    /// Whether a one-stream CBC decryption of one to four blocks, with the decryption
    /// keys derived, stays off `decrypt::decrypt_few` for VAES-256's stream kernel: four
    /// blocks of AES-256 on a VAES level, the one case where two 256-bit registers beat
    /// four 128-bit ones (see [`FRESH_ALWAYS_MAX`]).
    fn four_on_vaes(&self, data: &[u8]) -> bool {
        self.rounds == 14 && data.len() == 64 && self.level != Level::AesNi
    }

    /// Whether a batch of two to seven blocks runs `batch::few_aesni` (rounds unrolled)
    /// rather than `batch::crypt_aesni`'s tail (rounds as a loop): all but four blocks of
    /// AES-256, which ran faster as the loop (Xeon family 6 model 167, 2026-12-06, ECB
    /// 64 B, TSC c/B, best of five alternating runs: 0.487 against 0.500 unrolled).
    fn unrolled_batch(&self, blocks: &[u8]) -> bool {
        (32..=AESNI_MAX_BATCH).contains(&blocks.len()) && !(self.rounds == 14 && blocks.len() == 64)
    }

    fn crypt(&self, blocks: &mut [u8], decrypt: bool) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        if decrypt && self.fresh_decrypt(blocks.len()) {
            // SAFETY: every level has AES-NI; one to four whole blocks.
            return unsafe { decrypt_fresh_aesni(self, None, blocks) };
        }
        let keys = if decrypt { self.dec() } else { &self.enc };
        // SAFETY: an AesX86 exists only for a level `Level::available()` confirmed (every
        // level has AES-NI).
        unsafe {
            if blocks.len() == 16 {
                // One block (a serial CFB8/CFB1 step): no wide round keys to build.
                return one_block_aesni(keys, self.rounds, blocks, decrypt);
            }
            // Small batches run VAES-256, VAES-512 broadcasting its 15 round keys per call
            // (Zen 4, ECB encryption: 64 B 0.80 against 0.57 c/B, 256 B 0.22 against 0.17,
            // 1 KiB 0.14 against 0.13, 2 KiB 0.14 against 0.12; equal at 4 KiB): on AMD up
            // to 16 KiB since VAES-256's twelve-register groups, on Intel up to 1 KiB (see
            // `VendorTuning::ecb_vaes512_from`).
            let level = match self.level {
                _ if blocks.len() <= AESNI_MAX_BATCH => Level::AesNi,
                Level::Vaes512 if blocks.len() < self.tuning.ecb_vaes512_from => Level::Vaes256,
                level => level,
            };
            match (level, decrypt) {
                (Level::AesNi, false) if self.unrolled_batch(blocks) => {
                    few_aesni::<false>(keys, self.rounds, blocks)
                }
                (Level::AesNi, true) if self.unrolled_batch(blocks) => {
                    few_aesni::<true>(keys, self.rounds, blocks)
                }
                (Level::AesNi, false) => crypt_aesni::<false>(keys, self.rounds, blocks),
                (Level::AesNi, true) => crypt_aesni::<true>(keys, self.rounds, blocks),
                (Level::Vaes256, false) => crypt_vaes256::<false>(keys, self.rounds, blocks),
                (Level::Vaes256, true) => crypt_vaes256::<true>(keys, self.rounds, blocks),
                (Level::Vaes512, false) => crypt_vaes512::<false>(keys, self.rounds, blocks),
                (Level::Vaes512, true) => crypt_vaes512::<true>(keys, self.rounds, blocks),
            }
        }
    }
}

/// ECB and single-stream CBC decryptions up to this many bytes (four blocks) on a
/// context whose decryption keys are not derived yet run `decrypt::decrypt_fresh_aesni`,
/// which takes them on the fly instead, and leave them underived: with a fresh key per
/// call, deriving, holding and wiping the schedule cost more than the call. AMD Zen 3
/// (2026-12-03, `bench --key-setup`, TSC c/B, best of four alternating runs): AES-128-CBC
/// decryption 16 B 29.7 → 24.0 (0.89× → 1.06× libgcrypt), 64 B 7.63 → 6.04; AES-256 16 B
/// 32.0 → 25.9, 64 B 8.30 → 6.50; with the context reused, 16 B and 64 B unchanged (2.36,
/// 0.60-0.62: a few blocks' round chain leaves room for the `AESIMC`s). From eight blocks
/// the `AESIMC`s would compete with the rounds on every call of a reused context.
const FRESH_DECRYPT_MAX: usize = 64;

/// Of [`FRESH_DECRYPT_MAX`]'s calls, those up to this many bytes (two blocks) take the
/// keys on the fly on every call while the keys are underived; three and four blocks only
/// on a context's first such call (`AesX86::fresh_taken`), so a fresh key per call keeps
/// the gain above, and the next derives the keys. A reused context's CBC decryption of one
/// to four blocks then runs `decrypt::decrypt_few` on them (four blocks of AES-256 on a
/// VAES level VAES-256's stream kernel, `AesX86::four_on_vaes`). On Intel the `AESIMC`s
/// of three and four blocks were not free (Xeon family 6 model 167, 2026-12-06, TSC c/B,
/// best of three to five alternating runs, libgcrypt's ratio after): default tier,
/// AES-128-CBC decryption 48 B 0.520 → 0.479, 64 B 0.437 → 0.380 (0.98 → 1.15×); AES-192
/// 64 B 0.479 → 0.432 (0.93 → 1.01×); AES-256 64 B 0.530 → 0.513 (0.91 → 0.95×); the same
/// under `BITWEAVE_CPU=avx2` and `aesni` (there AES-128 64 B 0.91 → 1.04×). With
/// `--key-setup` the calls are unchanged or faster (AES-256-CBC 64 B 6.01 → 5.58). One and
/// two blocks ran slower on derived keys (AES-128-CBC 16 B 1.43 → 1.51).
const FRESH_ALWAYS_MAX: usize = 32;

/// Whether a single-stream CFB decryption of `bytes` (and CBC's on derived keys) goes to
/// `decrypt::decrypt_few`: one to four whole blocks.
fn few_blocks(bytes: usize) -> bool {
    (16..=64).contains(&bytes) && bytes.is_multiple_of(16)
}

/// Batches (ECB, and the batch path of other modes) of up to this many bytes (seven
/// blocks) run AES-NI's kernel at every level: a short batch is bound by its rounds'
/// latency, not by how many blocks an instruction holds, and AES-NI's tail takes all
/// its blocks in step, where VAES-256's takes pairs and then an odd block after them.
/// (Why even counts gained in encryption too, by a cycle a call, is not established:
/// decryption on VAES-256 already ran as fast.) Zen 4, default backend, ECB, TSC c/B, best
/// of three alternating runs with OpenSSL's: AES-128 encryption 32 B 1.120 → 1.098
/// (OpenSSL 1.098), 48 B 0.761 → 0.732, 112 B 0.358 → 0.333; AES-256 encryption 64 B
/// 0.736 → 0.725 (OpenSSL 0.725); AES-128 decryption 112 B 0.364 → 0.333. From eight
/// blocks VAES wins (AES-128 144 B 0.293 against 0.339 on AES-NI).
const AESNI_MAX_BATCH: usize = 112;

/// Calls from this many bytes run the batches and CBC/CFB decryption of AES-NI and
/// VAES-256 in groups of twelve registers first (`batch_fn!`'s first loop,
/// `decrypt::stream_decrypt_aesni`, `decrypt::stream_decrypt_vaes256`), then in groups of
/// eight (VAES-512's eight zmm registers, at one 512-bit AES instruction a cycle on Zen 4,
/// have slack and stay eight). Eight registers in flight at two AES instructions a cycle exactly cover their
/// latency of four, so the eight-register loop has no slack for its loads, XORs and
/// stores and slows as it runs long. AMD Zen 4 (2026-12-05, TSC c/B, best of four or five
/// alternating runs): under `BITWEAVE_CPU=aesni`, AES-128-ECB encryption with eight-block
/// groups at 768 B / 1.5 / 3 / 6 / 12 / 16 KiB ran 0.227 / 0.229 / 0.230 / 0.230 / 0.232 /
/// 0.232, with twelve 0.232 / 0.228 / 0.226 / 0.224 / 0.224 / 0.224 (AESENC's floor: ten a
/// block, two a cycle, 0.223 at this clock; OpenSSL 0.227-0.229 in the same runs), and at
/// 16 KiB AES-256-ECB 0.325 → 0.314, AES-256-CBC decryption 0.325 → 0.309; under
/// `BITWEAVE_CPU=avx2`, at 16 KiB, VAES-256 AES-128-ECB 0.115 → 0.112, AES-256-ECB 0.163 →
/// 0.157, AES-256-CBC decryption 0.162 → 0.154 (libgcrypt 0.157). Under 2 KiB the overlap
/// between calls hides the eight-register loop's stalls and the wider group's longer
/// start does not pay (AES-NI 768 B: 0.227 against 0.232).
const WIDE_GROUPS_FROM: usize = 2048;

/// `data` split into the whole groups of `group` bytes that run as wide groups (none
/// under `from` bytes; see [`WIDE_GROUPS_FROM`]) and the rest.
fn wide_part(data: &mut [u8], from: usize, group: usize) -> (&mut [u8], &mut [u8]) {
    let wide = if data.len() >= from {
        data.len() / group * group
    } else {
        0
    };
    data.split_at_mut(wide)
}

/// The kernel choices by vendor. The call sizes at which single-stream CBC/CFB decryption
/// and CTR run VAES-512's kernels on a VAES-512 backend (VAES-256's elsewhere): VAES-512's
/// per-call set-up (broadcast
/// round keys, the group pattern) has to be repaid, and where that happens differs by
/// vendor, so it is measured per vendor (same run, one thread, TSC c/B):
/// - AMD Zen 4. CBC/CFB decryption (2026-12-03, best of 3-4, VAES-256 or the AMD-only
///   whole-group kernel this replaced → `stream_decrypt_vaes512`): AES-128 CBC 256 B
///   0.170 → 0.198, 512 B 0.131 → 0.124, 1 KiB 0.120 → 0.110, 4 KiB 0.118 → 0.110, 64 KiB
///   0.111 → 0.111: from 1 KiB. CTR, `ctr_vaes512` against VAES-256 (2026-11-29, AES-128,
///   best of 400, three runs): 4 KiB 0.121/0.127, 8 KiB 0.118/0.120, 16 KiB 0.117/0.116,
///   64 KiB 0.116/0.113 (AES-256 16 KiB 0.161/0.159): from 16 KiB; and
///   `ctr_vaes512_registers` against VAES-256 (2026-12-03, best of 3-5): AES-128 48 B
///   0.761 → 0.673, 64 B 0.560 → 0.497, 512 B 0.164 → 0.141, 960 B 0.157 → 0.140, AES-256
///   256 B 0.224 → 0.213, 512 B 0.205 → 0.185, but AES-256 16 B 2.28 → 2.43 (one
///   register's rounds in a row take longer on zmm) and AES-128 1 KiB 0.138 → 0.164 (two
///   whole groups: the counters' zmm operations compete with the rounds): 48 B to 1 KiB.
/// - Intel (a Sapphire Rapids-class Xeon, 2026-11-30): CTR on `ctr_vaes512_registers` at
///   every size, and CBC/CFB decryption on `stream_decrypt_vaes512` from 128 B (see
///   README, session 24).
///
/// Other vendors take AMD's figures. ECB's crossover is at `VendorTuning::ecb_vaes512_from`.
///
/// AES-NI counter mode builds the counters of three or more groups in the vector
/// registers on Intel and on the stack elsewhere (measured in `ctr::groups_from_octets`
/// and `ctr::groups_from_stack`).
///
/// `ctr::ctr_one_block` takes 1-16-byte CTR calls, measured on AMD (Zen 3; see its
/// doc) and on Intel (Xeon family 6 model 167, 2026-12-05, TSC c/B best of three, 16 B
/// on VAES-512's registers → here: AES-128 1.758 → 1.124, AES-256 1.972 → 1.350;
/// libgcrypt 1.867 and 1.946). On Intel the AES-NI kernel also takes calls of up to
/// three blocks, where the VAES kernels' per-call set-up costs more than their width
/// saves (same runs, AES-NI / VAES-256 / VAES-512: AES-128 32 B 0.765 / 0.794 / 0.878,
/// 48 B 0.552 / 0.600 / 0.586, 64 B 0.444 / 0.450 / 0.419; AES-256 32 B 0.798 / 0.874 /
/// 0.985, 48 B 0.583 / 0.671 / 0.656); not measured on AMD, which keeps the VAES kernels
/// there. So does single-stream CFB decryption up to four blocks (same CPU and runs,
/// AES-NI / VAES-256 / VAES-512 kernels: AES-128 16 B 1.311 / 1.435 / 1.513, 32 B 0.715 /
/// 0.831 / 0.857, 64 B 0.406 / 0.419 / 0.415; AES-256 32 B 0.794 / 1.080 / 1.080, 48 B
/// 0.590 / 0.754 / 0.793, 64 B 0.461 / 0.527 / 0.539; libgcrypt 1.43, 1.00, 0.50, 1.04,
/// 0.77, 0.64); CBC decryption measured equal on the three there and keeps VAES.
fn vendor_tuning() -> VendorTuning {
    if crate::cpu::intel_tuning() {
        VendorTuning {
            ecb_vaes512_from: 1024,
            decrypt_vaes512_from: 128,
            ctr_vaes512_registers: 0..usize::MAX,
            ctr_vaes512_from: usize::MAX,
            ctr_aesni_octets: true,
            ctr_one_block: true,
            ctr_aesni_upto: 48,
            cfb_decrypt_aesni_upto: 64,
        }
    } else {
        VendorTuning {
            ecb_vaes512_from: 16384,
            decrypt_vaes512_from: 1024,
            ctr_vaes512_registers: 48..1024,
            ctr_vaes512_from: 16384,
            ctr_aesni_octets: false,
            ctr_one_block: true,
            ctr_aesni_upto: 0,
            cfb_decrypt_aesni_upto: 0,
        }
    }
}

/// SubWord through `AESENCLAST` with a zero key: with the word in all four columns,
/// ShiftRows moves nothing that matters and SubBytes is the S-box, in constant time.
#[target_feature(enable = "aes,sse2")]
fn sub_word_aesni(w: u32) -> u32 {
    let x = _mm_set1_epi32(w.swap_bytes() as i32);
    let y = _mm_aesenclast_si128(x, _mm_setzero_si128());
    (_mm_cvtsi128_si32(y) as u32).swap_bytes()
}

/// `k ^ k << 32 ^ k << 64 ^ k << 96`: each word of a new round key is the previous key's
/// word XOR all the new key's words before it.
#[target_feature(enable = "sse2")]
fn prefix_xor(k: __m128i) -> __m128i {
    let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    _mm_xor_si128(k, _mm_slli_si128::<8>(k))
}

/// The AES-128 key schedule (FIPS-197 §5.2): round keys 0..=10 into `out`; returns 10.
#[target_feature(enable = "aes,sse2")]
fn expand128(key: &[u8], out: &mut [__m128i; 15]) -> usize {
    // SAFETY: `key` is 16 bytes (the caller matched on its length).
    let mut k = unsafe { _mm_loadu_si128(key.as_ptr().cast()) };
    out[0] = k;
    macro_rules! round {
        ($r:expr, $rcon:expr) => {
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(k));
            k = _mm_xor_si128(prefix_xor(k), t);
            out[$r] = k;
        };
    }
    round!(1, 0x01);
    round!(2, 0x02);
    round!(3, 0x04);
    round!(4, 0x08);
    round!(5, 0x10);
    round!(6, 0x20);
    round!(7, 0x40);
    round!(8, 0x80);
    round!(9, 0x1b);
    round!(10, 0x36);
    10
}

/// The AES-256 key schedule: round keys 0..=14 into `out`; returns 14. Even round keys
/// take SubWord(RotWord) of the previous key's last word and a round constant, odd ones
/// SubWord alone (`AESKEYGENASSIST`'s words 3 and 2).
#[target_feature(enable = "aes,sse2")]
fn expand256(key: &[u8], out: &mut [__m128i; 15]) -> usize {
    // SAFETY: `key` is 32 bytes (the caller matched on its length).
    let (mut a, mut b) = unsafe {
        (
            _mm_loadu_si128(key.as_ptr().cast()),
            _mm_loadu_si128(key.as_ptr().add(16).cast()),
        )
    };
    out[0] = a;
    out[1] = b;
    // Even round keys: SubWord(RotWord(last word of b)) with a round constant.
    macro_rules! even {
        ($r:expr, $rcon:expr) => {
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(b));
            a = _mm_xor_si128(prefix_xor(a), t);
            out[$r] = a;
        };
    }
    // Odd round keys: SubWord(last word of a), no rotation or constant.
    macro_rules! odd {
        ($r:expr) => {
            let t = _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>(a));
            b = _mm_xor_si128(prefix_xor(b), t);
            out[$r] = b;
        };
    }
    even!(2, 0x01);
    odd!(3);
    even!(4, 0x02);
    odd!(5);
    even!(6, 0x04);
    odd!(7);
    even!(8, 0x08);
    odd!(9);
    even!(10, 0x10);
    odd!(11);
    even!(12, 0x20);
    odd!(13);
    even!(14, 0x40);
    14
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
    // SAFETY: AES-NI is present (this fn's contract); `block` is one 16-byte block (the
    // caller's `blocks.len() == 16`).
    unsafe {
        let k = keys.v128();
        let x = _mm_loadu_si128(block.as_ptr().cast());
        let y = if decrypt {
            block_aesni::<true>(k, rounds, x)
        } else {
            block_aesni::<false>(k, rounds, x)
        };
        _mm_storeu_si128(block.as_mut_ptr().cast(), y);
    }
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
        // The size hand-offs are made here, not inside the kernels, so a small call
        // reaches its kernel in one call.
        let vaes512_from = self.tuning.decrypt_vaes512_from;
        match self.level {
            // SAFETY: every level has AES-NI; one chain block, one to four whole blocks.
            _ if prev.len() == 16 && self.fresh_decrypt(data.len()) => unsafe {
                decrypt_fresh_aesni(self, Some(prev), data)
            },
            // SAFETY: as above; one chain block, one to four whole blocks.
            _ if prev.len() == 16 && few_blocks(data.len()) && !self.four_on_vaes(data) => unsafe {
                decrypt_few::<false>(self, prev, data)
            },
            // SAFETY: an AesX86 at Vaes512 exists only where its features were detected.
            Level::Vaes512 if prev.len() == 16 && data.len() >= vaes512_from => unsafe {
                stream_decrypt_vaes512::<false>(self, prev, data)
            },
            // SAFETY: as above (VAES-512 implies VAES-256's features).
            Level::Vaes512 if prev.len() == 16 => unsafe {
                stream_decrypt_vaes256::<false>(self, prev, data)
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
        // The size hand-offs are made here, not inside the kernels, so a small call
        // reaches its kernel in one call.
        let vaes512_from = self.tuning.decrypt_vaes512_from;
        match self.level {
            // SAFETY: every level has AES-NI (an AesX86 exists only where it was
            // detected); one chain block and one to four whole blocks.
            _ if prev.len() == 16 && few_blocks(data.len()) => unsafe {
                decrypt_few::<true>(self, prev, data)
            },
            // SAFETY: as above; one chain block.
            _ if prev.len() == 16 && data.len() <= self.tuning.cfb_decrypt_aesni_upto => unsafe {
                stream_decrypt_aesni::<true>(self, prev, data)
            },
            // SAFETY: an AesX86 at Vaes512 exists only where its features were detected.
            Level::Vaes512 if prev.len() == 16 && data.len() >= vaes512_from => unsafe {
                stream_decrypt_vaes512::<true>(self, prev, data)
            },
            // SAFETY: as above (VAES-512 implies VAES-256's features).
            Level::Vaes512 if prev.len() == 16 => unsafe {
                stream_decrypt_vaes256::<true>(self, prev, data)
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
            // SAFETY: every level has AES-NI (an AesX86 exists only where it was detected).
            _ if self.tuning.ctr_one_block && (1..=16).contains(&data.len()) => unsafe {
                ctr_one_block(self, counter, data)
            },
            // SAFETY: as above.
            _ if data.len() <= self.tuning.ctr_aesni_upto => unsafe {
                ctr_aesni(self, counter, data)
            },
            // SAFETY: an AesX86 at Vaes512 exists only where its features were detected.
            Level::Vaes512 if self.tuning.ctr_vaes512_registers.contains(&data.len()) => unsafe {
                ctr_vaes512_registers(self, counter, data)
            },
            // SAFETY: as above.
            Level::Vaes512 if data.len() >= self.tuning.ctr_vaes512_from => unsafe {
                ctr_vaes512(self, counter, data)
            },
            // SAFETY: as above, at Vaes256 (VAES-512 implies its features).
            Level::Vaes512 | Level::Vaes256 => unsafe { ctr_vaes256(self, counter, data) },
            // SAFETY: as above, at AesNi.
            Level::AesNi => unsafe { ctr_aesni(self, counter, data) },
        }
    }

    fn encrypt_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        if state.len() == 16 {
            // A mask, not the general check's division: this is every one-stream call.
            assert!(data.len() & 15 == 0, "whole rows only");
            // SAFETY: an AesX86 exists only where AES-NI was detected, and `state` is
            // one block.
            unsafe { single_chain(&self.enc, self.rounds, feedback, state, data) };
            return;
        }
        self.interleaved_chains(feedback, state, data);
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

/// Keeps eight AES states' rounds in round-major order where the compiler would reorder
/// them ([`in_order_8`]): each round stays between what comes
/// before and after it in the source.
///
/// - Counter mode's unrolled rounds (`ctr`): without it, short of registers, LLVM ran
///   them block by block (see `ctr_group_aesni`).
/// - The stitched GCM loop (`aead::gcm::stitched`): without it LLVM gathered all 24
///   multiplies of a group into one run between two rounds; the core's vector scheduler
///   then filled with multiplies waiting on the one multiplier and the AES rounds behind
///   them could not issue, so the loop ran at the sum of the two (Zen 4, 16 KiB: 0.63
///   c/B; with this, 0.50). Passing the hash's three sums through it as well left too few
///   registers: an AES state was spilled every round (0.91). The loop now passes one
///   more register, the block the next round multiplies (`stitched::in_order_with`): by
///   2026-12-04 LLVM again hoisted every multiply above the rounds, the AES states alone
///   not holding the multiplies back (AMD Zen 3, `BITWEAVE_CPU=aesni`, AES-128-GCM 16 KiB:
///   0.664 → 0.604 TSC c/B).
#[inline(always)]
pub(crate) fn in_order(x: &mut [__m128i; 8]) {
    crate::cipher::in_order_8!(xmm_reg, x);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ECB and CBC decryption of one to four blocks on a fresh context (the on-the-fly
    /// `AESIMC` path) match `soft`, at every level this CPU runs and every key size: the
    /// first call leaves the context's decryption keys underived, a second one too for
    /// one or two blocks, while a second of three or four derives them
    /// ([`FRESH_ALWAYS_MAX`]). A call of five or more blocks after them derives the keys
    /// and matches too, and so do small CBC calls on the derived keys after it
    /// (`decrypt_few`, or VAES-256's kernel for four blocks of AES-256).
    #[test]
    fn fresh_small_decryptions_match_soft() {
        use crate::cipher::aes::soft::AesSoft;
        use crate::cipher::cbc_decrypt_by_slabs;
        for level in [Level::AesNi, Level::Vaes256, Level::Vaes512] {
            if !level.available() {
                println!(
                    "fresh_small_decryptions_match_soft: SKIPPED {} (not on this CPU)",
                    level.name()
                );
                continue;
            }
            for key_len in [16, 24, 32] {
                let key: Vec<u8> = (0..key_len as u8)
                    .map(|i| i.wrapping_mul(37) ^ 0x5a)
                    .collect();
                let soft = AesSoft::new(&key);
                for blocks in 1..=4 {
                    let what = format!("aes-{} {} {blocks} blocks", key_len * 8, level.name());
                    let ct: Vec<u8> = (0..16 * blocks as u8)
                        .map(|i| i.wrapping_mul(91) ^ 0x3c)
                        .collect();
                    let iv = [0xa5u8; 16];
                    let aes = AesX86::new_shared(&key, level).unwrap();
                    let mut got = ct.clone();
                    aes.decrypt_blocks(&mut got);
                    let mut want = ct.clone();
                    soft.decrypt_blocks(&mut want);
                    assert_eq!(got, want, "ECB decryption, {what}");
                    assert!(
                        aes.dec.get().is_none(),
                        "keys derived by a first small call, {what}"
                    );
                    let cbc = |aes: &AesX86| {
                        let (mut prev, mut got) = (iv, ct.clone());
                        aes.cbc_decrypt_rows(&mut prev, &mut got);
                        let (mut soft_prev, mut want) = (iv, ct.clone());
                        cbc_decrypt_by_slabs(&soft, &mut soft_prev, &mut want);
                        assert_eq!((got, prev), (want, soft_prev), "CBC decryption, {what}");
                    };
                    cbc(&aes);
                    assert_eq!(
                        aes.dec.get().is_none(),
                        16 * blocks <= FRESH_ALWAYS_MAX,
                        "keys after a second small call, {what}"
                    );
                    let mut big = ct.repeat(5);
                    let mut soft_big = big.clone();
                    aes.decrypt_blocks(&mut big);
                    soft.decrypt_blocks(&mut soft_big);
                    assert_eq!(big, soft_big, "ECB decryption after the fresh path, {what}");
                    assert!(aes.dec.get().is_some(), "keys not derived, {what}");
                    cbc(&aes);
                }
            }
        }
    }

    /// Batches and CBC/CFB decryption around `WIDE_GROUPS_FROM`, where twelve-register
    /// groups start ahead of the eight-register ones (lengths just under it, and every
    /// remainder after twelve registers of AES-NI and of VAES-256), match `soft` at every
    /// level this CPU runs and every key size.
    #[test]
    fn wide_groups_match_soft() {
        use crate::cipher::aes::soft::AesSoft;
        use crate::cipher::{cbc_decrypt_by_slabs, cfb_decrypt_by_slabs};
        for level in [Level::AesNi, Level::Vaes256, Level::Vaes512] {
            if !level.available() {
                println!(
                    "wide_groups_match_soft: SKIPPED {} (not on this CPU)",
                    level.name()
                );
                continue;
            }
            for key_len in [16, 24, 32] {
                let key: Vec<u8> = (0..key_len as u8)
                    .map(|i| i.wrapping_mul(53) ^ 0x17)
                    .collect();
                let (aes, soft) = (AesX86::new_shared(&key, level).unwrap(), AesSoft::new(&key));
                let lengths = (WIDE_GROUPS_FROM - 16..=WIDE_GROUPS_FROM + 400).step_by(16);
                for len in lengths.chain([16 * 1024 + 80]) {
                    let what = format!("aes-{} {}, {len} bytes", key_len * 8, level.name());
                    let data: Vec<u8> = (0..len).map(|i| (i * 131 + len) as u8).collect();
                    let iv = [0x3cu8; 16];
                    for dec in [false, true] {
                        let (mut got, mut want) = (data.clone(), data.clone());
                        if dec {
                            aes.decrypt_blocks(&mut got);
                            soft.decrypt_blocks(&mut want);
                        } else {
                            aes.encrypt_blocks(&mut got);
                            soft.encrypt_blocks(&mut want);
                        }
                        assert_eq!(got, want, "ECB, decrypt {dec}, {what}");
                    }
                    let (mut prev, mut got) = (iv, data.clone());
                    aes.cbc_decrypt_rows(&mut prev, &mut got);
                    let (mut soft_prev, mut want) = (iv, data.clone());
                    cbc_decrypt_by_slabs(&soft, &mut soft_prev, &mut want);
                    assert_eq!((got, prev), (want, soft_prev), "CBC decryption, {what}");
                    let (mut prev, mut got) = (iv, data.clone());
                    aes.cfb_decrypt_rows(&mut prev, &mut got);
                    let (mut soft_prev, mut want) = (iv, data.clone());
                    cfb_decrypt_by_slabs(&soft, &mut soft_prev, &mut want);
                    assert_eq!((got, prev), (want, soft_prev), "CFB decryption, {what}");
                }
            }
        }
    }

    /// Round keys filled at both places a 16-byte-aligned allocation can put them (the
    /// 256-bit rows starting at `x2`'s first row or its second) read back the same
    /// through both views, with every byte written.
    #[test]
    fn round_keys_read_back_wherever_they_lie() {
        #[repr(C, align(32))]
        struct Place([u8; 16 + core::mem::size_of::<RoundKeys>()]);
        for offset in [0, 16] {
            let mut place = Place([0xAA; 16 + core::mem::size_of::<RoundKeys>()]);
            // SAFETY: 16-byte aligned (a 32-aligned base plus 0 or 16), with room for a
            // RoundKeys; SSE2 is baseline on x86-64. The keys are read through `v128` and
            // `v256` only while `place` lives, and never moved.
            let keys = unsafe {
                let this = place.0.as_mut_ptr().add(offset).cast::<RoundKeys>();
                RoundKeys::fill(this, 10, |r| _mm_set1_epi8(r as i8 + 1));
                &*this
            };
            for r in 0..15 {
                let want = [if r <= 10 { r as u8 + 1 } else { 0 }; 16];
                // SAFETY: plain vectors read as byte arrays of their size (any alignment
                // suits bytes).
                let (k1, k2) = unsafe {
                    (
                        *(&keys.v128()[r] as *const __m128i).cast::<[u8; 16]>(),
                        *(&keys.v256()[r] as *const __m256i).cast::<[[u8; 16]; 2]>(),
                    )
                };
                assert_eq!((k1, k2), (want, [want; 2]), "row {r}, offset {offset}");
            }
            let written = &place.0[offset..offset + core::mem::size_of::<RoundKeys>()];
            assert!(
                !written.contains(&0xAA),
                "a byte left unwritten at offset {offset}"
            );
        }
    }
}
