//! `shift64`, `shift256`, `rotate256`: DES and triple DES one block at a time,
//! constant-time, for serial work — one standard CBC/CFB/OFB encryption chain, CFB8/CFB1,
//! a few blocks — where a bitsliced backend would fill 64-512 lanes to use one.
//!
//! **Constant-time without tables in memory.** Each of the 32 S-box output bits is a
//! Boolean function of six inputs, held as a 64-bit truth table; looking up input x is a
//! shift or rotate by x, and a variable shift or rotate takes the same time for every
//! count (`ror` on x86, `rorv` on ARM, `vpsllvq` in AVX2, `vprolvq` in AVX-512).
//! The bit then reaches the position P sends it to — a constant mask it selects (shifts),
//! or a table pre-rotated to land it there (`rotate256`, `shift64`) — so the round has no
//! secret-dependent branch or address.
//!
//! `shift256` holds four lookups per AVX2 instruction (`vpsllvq` brings the looked-up bit
//! to the sign, `vblendvpd` selects the mask) and reduces the eight results across lanes;
//! the round's latency is the limit of a serial chain: ~14 cycles by the instructions'
//! latencies alone, but ~25 core cycles measured on AMD Zen 3 (2026-12-04, a copy of the
//! loop in C; 3DES-CBC 109 TSC c/B): the ten variable shifts and eight selects issue two a
//! cycle, each shift → `vblendvpd` → `vpor` step pays a cycle's bypass each way between the
//! integer and floating-point vector domains, and the cross-lane `vperm2i128` takes 3
//! cycles plus ~2 into the next integer operation (compare-and-AND selects, and the OR
//! tree and lane reduction kept in the floating-point domain, measured no faster there).
//! `rotate256` (AVX-512VL,
//! same registers) rotates pre-rotated truth tables so each looked-up bit lands on its P
//! position, with no select per bit: ~36 vector micro-ops a round against ~52 (the eight
//! selects are three micro-ops each on Intel, where the vector ports were the limit; see
//! `shift_x86`'s module doc). `shift64` is `rotate256`'s lookup in scalar 64-bit
//! code (a rotation per bit, of a bit-reversed table), for any CPU.
//!
//! Independent blocks (ECB, CTR, CBC/CFB decryption) of four and more run on
//! `rotate256`'s byte-sliced kernel where the CPU has AVX-512 BITALG, VBMI and GFNI
//! (`bitshuffle512`, `bitalg_x86`): eight blocks to a zmm register, one byte per bit
//! position, and four `vpshufbitqmb` a round look up all 32 S-box output bits of the
//! eight. On AVX2 they run on `shift256`'s (`byteshuffle256`, `byteshuffle_x86`): sixteen
//! blocks to four ymm registers, one byte per (S-box, block), the S-boxes looked up by
//! `vpshufb` into bytes that already hold P's and E's placement.
//!
//! # Representation
//!
//! A 32-bit half x is held *spread*: `rotl(x, 1)` in both halves of a u64. Then S-box s's
//! six input bits, cyclically consecutive in x (the expansion E), are bits
//! `28 - 4s .. 33 - 4s` of the spread word, with no wrap-around to handle. Chains stay in
//! the initial permutation's domain: IP and FP are linear and cancel between blocks, so
//! CBC, CFB and OFB run their feedback on spread halves and only the data blocks pass
//! through IP and FP, off the chain's critical path.
//!
//! The rounds of one, or three (EDE), DES stages run as one list of 16 or 48 round keys;
//! decryption runs the reversed list (see `Rounds`).
#![allow(unsafe_code)] // dispatch into `shift_x86`'s SIMD kernels; the `opaque` barrier

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::shift_layout::{
    fp, fp_first_byte, ip, position, IpRegister, KEY_ORDER, PLACE, TRUTH, WINDOW,
};
use super::TdesKeys;
use crate::cipher::{shift_left_one_bit, BlockCipher, Feedback, ModeKernels};

// ---- Round keys ----------------------------------------------------------------------

/// The round keys of one direction, in the order the rounds use them: 16 for DES, 48 for
/// EDE (K1 forward, K2 reversed, K3 forward; decryption is the whole list reversed). Each
/// round's key is its eight six-bit chunks, chunk s already shifted into S-box s's window
/// of a spread half and complemented (so that a lookup's count comes out as 63 - x, which
/// every form's lookup takes), stored in the order [`KEY_ORDER`]
/// (S-boxes 1, 3, 5, 7, then 2, 4, 6, 8: the SIMD forms' two lane groups). For
/// `rotate256`, which keeps one copy of a half, folded to match (`fold_key`).
#[derive(Clone)]
pub(crate) struct Rounds {
    pub(crate) keys: Vec<[u64; 8]>,
    /// The same round keys as 48-bit words (bit 47: the key's first bit), for the
    /// byte-sliced kernel (`bitalg_x86`); empty where the CPU lacks it.
    pub(crate) plain: Vec<u64>,
    /// The same round keys in the byte-sliced kernels' register form (`byteshuffle_x86`),
    /// where one runs ([`byte_sliced`]); empty elsewhere.
    #[cfg(target_arch = "x86_64")]
    pub(crate) lanes: Vec<[super::byteshuffle_x86::Ymm; 4]>,
}

// Wiped at memset speed: `zeroize` on a Vec clears its whole allocation with volatile byte
// stores (6 KiB for both directions of 3DES: a quarter of a `Cipher::new`).
impl Zeroize for Rounds {
    fn zeroize(&mut self) {
        crate::bytes::wipe(&mut self.keys);
        crate::bytes::wipe(&mut self.plain);
        #[cfg(target_arch = "x86_64")]
        crate::bytes::wipe(&mut self.lanes);
    }
}

impl Drop for Rounds {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for Rounds {}

impl Rounds {
    /// Decryption's rounds: encryption's in reverse order (EDE's stages run backwards with
    /// their directions swapped), copied rather than folded again from the schedules.
    fn reversed(&self) -> Self {
        Rounds {
            keys: self.keys.iter().rev().copied().collect(),
            plain: self.plain.iter().rev().copied().collect(),
            #[cfg(target_arch = "x86_64")]
            lanes: self.lanes.iter().rev().copied().collect(),
        }
    }

    /// Encryption's rounds from the key schedules (built at their exact length, so the
    /// wipe covers the whole allocation).
    fn new(schedules: &TdesKeys, level: Level) -> Self {
        let mut keys = Vec::with_capacity(16 * schedules.stages.len());
        keys.extend(schedules.encryption_order().map(|k| {
            std::array::from_fn(|i| {
                let s = KEY_ORDER[i];
                let chunk = (((k >> (42 - 6 * s)) & 63) ^ 63) << WINDOW[s];
                match level {
                    #[cfg(target_arch = "x86_64")]
                    Level::Avx512 => super::shift_layout::fold_key(chunk),
                    _ => chunk,
                }
            })
        }));
        #[cfg(target_arch = "x86_64")]
        let plain = if level == Level::Avx512 && super::bitalg_x86::available() {
            schedules.encryption_order().collect()
        } else {
            Vec::new()
        };
        #[cfg(not(target_arch = "x86_64"))]
        let plain = Vec::new();
        #[cfg(target_arch = "x86_64")]
        let lanes = if byte_sliced(level).is_some() {
            schedules
                .encryption_order()
                .map(super::byteshuffle_x86::round_key)
                .collect()
        } else {
            Vec::new()
        };
        Rounds {
            keys,
            plain,
            #[cfg(target_arch = "x86_64")]
            lanes,
        }
    }
}

// ---- The portable round --------------------------------------------------------------

/// `x`, through an empty assembly block the optimiser cannot see into. Without it, the
/// compiler turned a shift of a constant truth table into a bit test of the table in
/// memory (an address from the secret) and the mask into a conditional move, both flagged
/// by the ctgrind check; behind the barrier only the register shifts remain.
#[inline(always)]
fn opaque(mut x: u64) -> u64 {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: an empty assembly block that only claims to read and write `x`.
    unsafe {
        std::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        x = std::hint::black_box(x);
    }
    x
}

/// `TURNED[s][j]`: output bit j's truth table for S-box s+1, bit-reversed and rotated so
/// that a right rotation by 63 - x puts its bit x on the bit's P position (the low copy of
/// [`PLACE`], p): bit x of the table sits at 63 - x once reversed, and at p - 1 - x
/// (mod 64) once rotated left by p.
const TURNED: [[u64; 4]; 8] = {
    let mut t = [[0u64; 4]; 8];
    let mut s = 0;
    while s < 8 {
        let mut j = 0;
        while j < 4 {
            t[s][j] = TRUTH[s][j].reverse_bits().rotate_left(position(s, j));
            j += 1;
        }
        s += 1;
    }
    t
};

/// The f-function on a spread half with one round's keys; returns f's output spread.
///
/// Per output bit one right rotation of its [`TURNED`] table (by the window's low six
/// bits; a rotation takes its count modulo 64, so the window needs no mask), an AND
/// keeping the bit's P position and an OR into the output; the 32 bits land in the low
/// copy, which one shift and OR copy to the high one. A rotation by a register is one
/// instruction on x86-64 (`ror r64, cl`) and on ARM64 (`rorv`). The eight S-boxes are
/// spelled out ([`sbox`]), so each one's window shift, tables and P positions are
/// constants.
///
/// Before (2026-12-05), each table's bit was shifted to the sign, spread into a mask
/// and both copies' P bits selected (four operations a bit against three), in a loop
/// over the S-boxes that the compiler kept, loading each S-box's number, window and
/// table addresses on every pass. AMD Zen 4 under `BITWEAVE_CPU=aesni` (16 KiB, TSC c/B,
/// best of three alternating runs): DES-CBC encryption 88.6 → 83.2 with the rotation
/// alone → 60.0 with the S-boxes spelled out, 3DES-CBC 266 → 246 → 170, 3DES-CFB8
/// 2106 → 1765 → 1336.
#[inline(always)]
pub(super) fn f64(r: u64, k: &[u64; 8]) -> u64 {
    let out = (sbox::<0>(r, k) | sbox::<1>(r, k))
        | (sbox::<2>(r, k) | sbox::<3>(r, k))
        | ((sbox::<4>(r, k) | sbox::<5>(r, k)) | (sbox::<6>(r, k) | sbox::<7>(r, k)));
    out | out << 32
}

/// The four output bits of the S-box whose key chunk is `k[I]` ([`KEY_ORDER`]), on their P
/// positions in the low copy (see [`f64()`]).
#[inline(always)]
fn sbox<const I: usize>(r: u64, k: &[u64; 8]) -> u64 {
    let s = KEY_ORDER[I];
    // 63 - x in the low six bits, for the six-bit S-box input x (the key chunk is stored
    // complemented).
    let count = ((r ^ k[I]) >> WINDOW[s]) as u32;
    let bit =
        |j: usize| opaque(opaque(TURNED[s][j]).rotate_right(count)) & (PLACE[s][j] & 0xFFFF_FFFF);
    (bit(0) | bit(1)) | (bit(2) | bit(3))
}

/// All rounds of `rounds` on spread (L, R) in the IP domain; returns the pre-output
/// (R16, L16) of the last stage, which is the next stage's (or block's) (L, R).
///
/// A stage is 16 rounds of (L, R) ← (R, L ⊕ f(R)) and a final swap. Keeping L and R in
/// place, a pair of rounds is `l ^= f(r); r ^= f(l)`; after a stage's eight pairs its
/// swapped output is (r, l), so the next stage's pairs run `r ^= f(l); l ^= f(r)`. After
/// one or three stages the output is (r, l).
#[inline(always)]
fn rounds64(mut l: u64, mut r: u64, keys: &[[u64; 8]]) -> (u64, u64) {
    for (stage, ks) in keys.chunks_exact(16).enumerate() {
        for pair in ks.chunks_exact(2) {
            if stage % 2 == 0 {
                l ^= f64(r, &pair[0]);
                r ^= f64(l, &pair[1]);
            } else {
                r ^= f64(l, &pair[0]);
                l ^= f64(r, &pair[1]);
            }
        }
    }
    (r, l)
}

// ---- The backend ----------------------------------------------------------------------

/// The name `rotate256` reports (`backend_for`, the bench's backend column) for calls its
/// byte-sliced kernel runs (`bitalg_x86`: eight blocks to a zmm register's bytes, S-boxes
/// by `vpshufbitqmb`), where the CPU has AVX-512 BITALG, VBMI and GFNI. Not a registry
/// entry of its own: `--backend rotate256` runs it.
#[cfg(target_arch = "x86_64")]
pub const BITSHUFFLE: &str = "bitshuffle512";

/// Independent blocks from which `rotate256` hands a call to `bitshuffle512`. One to
/// three blocks keep the rotations in step: a byte-sliced pass costs eight blocks' chain
/// whatever it holds (AMD Zen 4, 2026-12-03, TSC c/B, rotations first: 3DES ECB three
/// blocks 40.7 vs 45.1, four 40.8 vs 33.8; DES three 16.5 vs 17.5, four 15.6 vs 13.2).
#[cfg(target_arch = "x86_64")]
const BITSHUFFLE_FROM: usize = 4;

/// Whether `serial_blocks` takes `bitshuffle512`'s crossovers: wherever the CPU has the
/// kernel (measured on AMD and on Intel, see `serial_blocks`).
#[cfg(target_arch = "x86_64")]
fn bitshuffle_crossovers() -> bool {
    super::bitalg_x86::available()
}

/// The byte-sliced kernel (`byteshuffle_x86`: sixteen blocks to a register group's
/// bytes, S-boxes by `vpshufb`) a level hands independent blocks to: `byteshuffle256`
/// from `shift256`, `byteshuffle128` from `shift64` where the CPU has SSSE3 and SSE4.1.
/// Not registry entries of their own: `--backend shift256` (`shift64`) runs them.
#[cfg(target_arch = "x86_64")]
fn byte_sliced(level: Level) -> Option<super::byteshuffle_x86::Level> {
    use super::byteshuffle_x86::Level as Width;
    match level {
        Level::Avx2 => Some(Width::Avx2),
        Level::Portable if Width::Ssse3.available() => Some(Width::Ssse3),
        _ => None,
    }
}

/// Independent blocks from which `shift256` hands a call to `byteshuffle256`. Two and
/// three blocks keep the shifts in step: a group costs sixteen blocks' rounds whatever it
/// holds (Intel Xeon family 6 model 167 under `BITWEAVE_CPU=avx2-gfni`, 2026-12-06, ECB
/// encryption, TSC c/B, shifts first: 3DES three blocks 63.5 vs 62.3, four 64.4 vs
/// 45.6; DES three 23.0 vs 28.2, four 23.2 vs 20.0).
#[cfg(target_arch = "x86_64")]
const BYTESHUFFLE_FROM: usize = 4;

/// Independent blocks from which `shift64` hands a call to `byteshuffle128` (x86-64 with
/// SSSE3 and SSE4.1), for DES and for 3DES: `shift64` takes ~1,600 cycles a 3DES block
/// and ~540 a DES block, a `byteshuffle128` group of sixteen ~2,500 and ~1,100 (Intel Xeon
/// family 6 model 167 under `BITWEAVE_CPU=aesni`, 2026-12-06, TSC c/B, `shift64` first:
/// 3DES ECB two blocks 190 vs 150; DES ECB two blocks 66.7 vs 68.9, CTR 68.6 vs 73.4).
#[cfg(target_arch = "x86_64")]
const BYTESHUFFLE128_FROM: [usize; 2] = [3, 2];

/// Which implementation of the round runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Scalar 64-bit code, any CPU.
    Portable,
    /// AVX2, four lookups per instruction.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512VL on the same registers: lookups by rotation, no select per bit.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Level {
    /// The registry name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "shift64",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => "shift256",
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => "rotate256",
        }
    }

    /// CPU features it needs.
    pub fn features(self) -> &'static [crate::cpu::Feature] {
        match self {
            Level::Portable => &[],
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => &[crate::cpu::Feature::Avx2],
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => {
                use crate::cpu::Feature::*;
                &[Avx2, Avx512f, Avx512vl]
            }
        }
    }

    /// Whether this CPU runs it (under the tier cap, see [`crate::cpu`]).
    pub fn available(self) -> bool {
        crate::cpu::has_all(self.features())
    }

    /// Calls of at most this many independent blocks of `kind` run here rather than on
    /// the bitsliced batch backend, which pays a whole pass (transposition and circuit)
    /// for a few blocks. Crossovers measured on AMD EPYC Zen 3 (ECB decryption,
    /// 2026-12-02, alternating six times, best TSC c/B, the batch figure first):
    /// - Where x86-64 has SSSE3 and SSE4.1, `shift64` hands calls of two blocks and more
    ///   (three for DES) to `byteshuffle128` (the byte-sliced kernel on xmm register
    ///   pairs), which holds its own against `sliced128` up to 48 blocks: on an Intel
    ///   Xeon under
    ///   `BITWEAVE_CPU=aesni` (family 6 model 167, 2026-12-06, ECB encryption, TSC c/B,
    ///   `sliced128` second) 3DES 256 B 19.6 vs 31.5, 512 B 19.6 vs 15.8 (a `sliced128`
    ///   batch costs ~8,000 cycles up to 128 blocks, a `byteshuffle128` group ~2,500);
    ///   DES 256 B 8.69 vs 13.0, 512 B 8.68 vs 6.53 (~3,340 against ~1,110). So 48 for
    ///   both, three groups.
    /// - `shift64` against `sliced64` (the portable tier, and x86-64 without SSSE3): DES
    ///   5 blocks 115 vs 105, 6 blocks 95 vs 106; 3DES 4 blocks 349 vs 310, 5 blocks 289
    ///   vs 307. Since `shift64` rotates (see `f64`), on AMD Zen 4 under `BITWEAVE_CPU=aesni`
    ///   (2026-12-05, best of three): DES 6 blocks 70.0 vs 59.8, 7 blocks 60.0 vs 59.8,
    ///   8 blocks 52.5 vs 59.7; 3DES 6 blocks 181 vs 170, 7 blocks 156 vs 170: 7 and 6.
    ///   x86-64 batches have run on SSE2's `sliced128` since, its DES tails on 128
    ///   lanes (a cheaper batch): the same Zen 4 and cap (2026-12-05, best of three),
    ///   DES 6 blocks 69.4 vs 60.0, 7 blocks 59.4 vs 59.9; 3DES 5 blocks 188 vs 170,
    ///   6 blocks 157 vs 170: 6 and 5 there. ARM64 keeps 7 and 6 (its batch backend,
    ///   NEON's `sliced128` with 64-lane tails, is not measured against it).
    /// - `shift256` hands calls of four blocks and more to its byte-sliced kernel
    ///   (`byteshuffle256`, sixteen blocks a group), which holds its own against
    ///   `sliced256` up to 64 blocks: on an Intel Xeon with AVX-512 under
    ///   `BITWEAVE_CPU=avx2-gfni` (family 6 model 167, 2026-12-06, ECB encryption, TSC
    ///   c/B, `sliced256` second) 3DES 128 B 11.7 vs 54.3, 512 B 12.6 vs 12.9, 1 KiB 12.7
    ///   vs 7.0; DES 512 B 4.87 vs 5.31, 1 KiB 4.87 vs 2.97 (a `sliced256` batch costs
    ///   ~6,600-7,100 cycles for 3DES up to 128 blocks, a `byteshuffle256` group of
    ///   sixteen ~1,600). Before it, `shift256` (four in step) crossed to `sliced256` at
    ///   16-20 blocks on AMD Zen 3 and 12-14 on that Intel Xeon. AMD not measured with
    ///   the byte-sliced kernel; it takes the same crossover.
    /// - `rotate256` against `sliced512`: on an Intel Xeon with AVX-512 (family 6 model
    ///   207, 2026-12-02) a 3DES batch costs ~6,000 TSC cycles up to 2 KiB and overtook
    ///   `rotate256` from ~170 B, so 20 blocks; DES not measured there. On AMD Zen 4
    ///   (family 25 model 17, 2026-12-03, ECB encryption and CBC decryption, best of
    ///   three, TSC c/B, `sliced512` second) a 3DES batch costs ~5,240 cycles and
    ///   `rotate256` runs ~40 c/B in step: 16 blocks 41.4 vs 40.8, 18 blocks 39.1 vs
    ///   36.3, 20 blocks 39.8 vs 32.8. CTR crosses a block later (17 blocks 40.6 vs 42.8,
    ///   18 blocks 39.5 vs 39.6: its keystream goes through a scratch buffer), so 3DES
    ///   hands over after 17 blocks there: at 17, ECB and CBC decryption forgo 3-4 % and
    ///   CTR keeps its 5 %. DES crosses at 20 on Zen 4 too (20 blocks 14.7 vs 15.0; 16
    ///   blocks 15.4 vs 19.0).
    ///
    /// - Where the CPU has AVX-512 BITALG, VBMI and GFNI, `rotate256` hands calls of four
    ///   blocks and more to its byte-sliced kernel (`bitshuffle512`, up to four groups of
    ///   eight blocks in step), which holds its own against `sliced512` much longer: on
    ///   AMD Zen 4 (2026-12-03, ECB encryption, TSC c/B, `sliced512` second) 3DES 512 B
    ///   6.90 vs 10.55, 1 KiB 6.85 vs 5.31 (a `sliced512` batch costs ~5,300 cycles up to
    ///   2 KiB, so they cross at ~96 blocks: 768 B ran 6.88, 776 B on `sliced512` 6.97);
    ///   DES 512 B 2.39 vs 4.97, 1 KiB 2.36 vs 2.54, 2 KiB 2.35 vs 1.12, so 128 blocks.
    ///   The same on an Intel Xeon (family 6 model 167, 2026-12-05, same runs): 3DES
    ///   768 B 6.78 vs 6.85 (a batch ~5,250 cycles), DES 1 KiB 2.31 vs 2.30, where its
    ///   old crossover of 20 blocks had 192 B on `sliced512` at 26-30 c/B against 8.
    ///
    /// DES crosses later than triple DES: a batch's transposition does not triple with
    /// the rounds.
    pub fn serial_blocks(self, kind: crate::cipher::CipherKind) -> usize {
        let des = kind == crate::cipher::CipherKind::Des;
        match (self, des) {
            #[cfg(target_arch = "x86_64")]
            (Level::Portable, _) if byte_sliced(self).is_some() => 48,
            (Level::Portable, true) if cfg!(target_arch = "x86_64") => 6,
            (Level::Portable, false) if cfg!(target_arch = "x86_64") => 5,
            (Level::Portable, true) => 7,
            (Level::Portable, false) => 6,
            #[cfg(target_arch = "x86_64")]
            (Level::Avx2, _) => 64,
            #[cfg(target_arch = "x86_64")]
            (Level::Avx512, true) if bitshuffle_crossovers() => 128,
            #[cfg(target_arch = "x86_64")]
            (Level::Avx512, false) if bitshuffle_crossovers() => 96,
            #[cfg(target_arch = "x86_64")]
            (Level::Avx512, false) if !crate::cpu::intel_tuning() => 17,
            #[cfg(target_arch = "x86_64")]
            (Level::Avx512, _) => 20,
        }
    }
}

/// DES or triple DES, one block at a time (see the module doc).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct DesShift {
    enc: Rounds,
    dec: Rounds,
    #[zeroize(skip)]
    level: Level,
    /// The byte-sliced kernel for independent blocks, where the level has one.
    #[cfg(target_arch = "x86_64")]
    #[zeroize(skip)]
    byte: Option<super::byteshuffle_x86::Level>,
}

impl DesShift {
    /// Keys the backend with an 8-, 16- or 24-byte key; `None` if the CPU lacks `level`.
    pub fn new(key: &[u8], level: Level) -> Option<Self> {
        if !level.available() {
            return None;
        }
        let enc = Rounds::new(&TdesKeys::new(key), level);
        Some(DesShift {
            dec: enc.reversed(),
            #[cfg(target_arch = "x86_64")]
            byte: byte_sliced(level).filter(|_| !enc.lanes.is_empty()),
            enc,
            level,
        })
    }

    /// Whether a call on `bytes` bytes of independent blocks runs on the byte-sliced
    /// kernel ([`BITSHUFFLE`]).
    #[cfg(target_arch = "x86_64")]
    fn bitshuffle(&self, bytes: usize) -> bool {
        !self.enc.plain.is_empty() && bytes >= 8 * BITSHUFFLE_FROM
    }

    /// The byte-sliced kernel a call on `bytes` bytes of independent blocks runs on, if
    /// any ([`byte_sliced`]).
    #[cfg(target_arch = "x86_64")]
    fn byteshuffle(&self, bytes: usize) -> Option<super::byteshuffle_x86::Level> {
        use super::byteshuffle_x86::Level as Width;
        let from = match self.byte? {
            Width::Avx2 => BYTESHUFFLE_FROM,
            Width::Ssse3 => BYTESHUFFLE128_FROM[usize::from(self.enc.keys.len() > 16)],
        };
        self.byte.filter(|_| bytes >= 8 * from)
    }

    /// The rounds of `keys` on spread (L, R); see [`rounds64`].
    #[inline(always)]
    fn rounds(&self, l: u64, r: u64, keys: &Rounds) -> (u64, u64) {
        match self.level {
            Level::Portable => rounds64(l, r, &keys.keys),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `new` built this backend only after checking that the CPU has AVX2.
            Level::Avx2 => unsafe { super::shift_x86::rounds_avx2(l, r, &keys.keys) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `new` checked the level's features (and folded the keys).
            Level::Avx512 => unsafe { super::shift_x86::rounds_avx512(l, r, &keys.keys) },
        }
    }

    fn crypt(&self, blocks: &mut [u8], keys: &Rounds) {
        assert_eq!(blocks.len() % 8, 0, "whole blocks only");
        #[cfg(target_arch = "x86_64")]
        {
            use super::shift_x86::{crypt_avx2, crypt_avx512};
            if let Some(width) = self.byteshuffle(blocks.len()) {
                // SAFETY: `new` took `width` from `byte_sliced`, which checked its
                // features, and `Rounds::new` filled `lanes` for it.
                return unsafe { super::byteshuffle_x86::crypt(width, blocks, &keys.lanes) };
            }
            let (plain, keys) = (&keys.plain, &keys.keys);
            match self.level {
                // SAFETY: `new` checked the level's features.
                Level::Avx2 => return unsafe { crypt_avx2(blocks, keys) },
                Level::Avx512 if self.bitshuffle(blocks.len()) => {
                    // SAFETY: `plain` is filled only where the CPU has the kernel's
                    // features (`Rounds::new`).
                    return unsafe { super::bitalg_x86::crypt(blocks, plain) };
                }
                // SAFETY: `new` checked the level's features (and folded the keys).
                Level::Avx512 => return unsafe { crypt_avx512(blocks, keys) },
                Level::Portable => {}
            }
        }
        for b in blocks.chunks_exact_mut(8) {
            let (l, r) = ip(b);
            let (l, r) = self.rounds(l, r, keys);
            fp(l, r, b);
        }
    }

    /// One chain (`state` one block) over whole blocks, in the IP domain.
    fn chain(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        {
            use super::shift_x86::{chain_avx2, chain_avx512};
            let keys = &self.enc.keys;
            match self.level {
                // SAFETY: `new` checked the level's features.
                Level::Avx2 => return unsafe { chain_avx2(feedback, state, data, keys) },
                // SAFETY: `new` checked the level's features (and folded the keys).
                Level::Avx512 => return unsafe { chain_avx512(feedback, state, data, keys) },
                Level::Portable => {}
            }
        }
        let (mut zl, mut zr) = ip(state);
        for b in data.chunks_exact_mut(8) {
            let (pl, pr) = ip(b);
            match feedback {
                Feedback::Cbc => {
                    (zl, zr) = rounds64(zl ^ pl, zr ^ pr, &self.enc.keys);
                    fp(zl, zr, b);
                }
                Feedback::Cfb => {
                    let (el, er) = rounds64(zl, zr, &self.enc.keys);
                    (zl, zr) = (el ^ pl, er ^ pr);
                    fp(zl, zr, b);
                }
                Feedback::Ofb => {
                    (zl, zr) = rounds64(zl, zr, &self.enc.keys);
                    fp(zl ^ pl, zr ^ pr, b);
                }
            }
        }
        fp(zl, zr, state);
    }
}

impl BlockCipher for DesShift {
    fn block_size(&self) -> usize {
        8
    }
    fn width(&self) -> usize {
        1
    }
    fn backend(&self) -> &'static str {
        self.level.name()
    }
    fn backend_for(&self, bytes: usize) -> &'static str {
        #[cfg(target_arch = "x86_64")]
        if self.bitshuffle(bytes) {
            return BITSHUFFLE;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(width) = self.byteshuffle(bytes) {
            return width.name();
        }
        let _ = bytes;
        self.level.name()
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, &self.enc)
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        self.crypt(blocks, &self.dec)
    }
}

impl ModeKernels for DesShift {
    /// One chain runs in the IP domain with its feedback in registers. Several chains
    /// run a row at a time, each row one call of independent blocks: blocks in step, or
    /// the byte-sliced kernels from a few, where one chain after another paid each
    /// block's whole latency.
    fn encrypt_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        if state.len() == 8 {
            self.chain(feedback, state, data)
        } else {
            crate::cipher::chains_by_rows(self, feedback, state, data)
        }
    }
    /// The shift register stays in the IP domain (`shift_layout::IpRegister`) and only the
    /// keystream's first byte leaves FP: IP, FP and the register's byte moves were on the
    /// chain from each byte to the next (Xeon family 6 model 207, TSC c/B: DES-CFB8 on
    /// `rotate256` 292 → 233, 3DES-CFB8 696-700 → 643-645, DES-CFB8 on `shift256` 422 →
    /// 364).
    fn cfb8_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        let mut ip_reg = IpRegister::new(reg);
        for b in data.iter_mut() {
            let (l, r) = ip_reg.halves();
            let (l, r) = self.rounds(l, r, &self.enc);
            *b ^= fp_first_byte(l, r);
            ip_reg = ip_reg.shift_in(*b);
        }
        reg.copy_from_slice(&ip_reg.block());
    }
    fn cfb1_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        let mut ks = [0u8; 8];
        for b in data.iter_mut() {
            let mut out = 0u8;
            for bit in (0..8).rev() {
                let (l, r) = ip(reg);
                let (l, r) = self.rounds(l, r, &self.enc);
                fp(l, r, &mut ks);
                let c = ((*b >> bit) & 1) ^ (ks[0] >> 7);
                out |= c << bit;
                shift_left_one_bit(reg, c);
            }
            *b = out;
        }
        ks.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::super::soft::DesSoft;
    use super::*;

    #[test]
    fn single_blocks_match_soft() {
        let mut x = 7u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x
        };
        for key_len in [8, 16, 24] {
            let key: Vec<u8> = (0..key_len).map(|_| next() as u8).collect();
            let soft = DesSoft::new(&key);
            #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
            let mut levels = vec![Level::Portable];
            #[cfg(target_arch = "x86_64")]
            for level in [Level::Avx2, Level::Avx512] {
                if level.available() {
                    levels.push(level);
                } else {
                    println!("{} not run: this CPU lacks its features", level.name());
                }
            }
            for level in levels {
                let fast = DesShift::new(&key, level).unwrap();
                // 1-9 blocks: every split into the kernels' groups of 3, 2 and 1.
                for blocks in 1..=9 {
                    let data: Vec<u8> = (0..8 * blocks).map(|_| next() as u8).collect();
                    let (mut a, mut b) = (data.clone(), data.clone());
                    soft.encrypt_blocks(&mut a);
                    fast.encrypt_blocks(&mut b);
                    let name = level.name();
                    assert_eq!(a, b, "{name} encrypt, key {key_len}, {blocks} blocks");
                    fast.decrypt_blocks(&mut b);
                    assert_eq!(b, data, "{name} decrypt, key {key_len}, {blocks} blocks");
                }
            }
        }
    }
}
