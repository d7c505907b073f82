//! Counter mode: counter blocks built in registers, the keystream XORed into the data as
//! it leaves the rounds.

use core::arch::x86_64::*;

use super::AesX86;
use crate::cipher::prefetch_ahead;

/// Counter mode on VAES-512: 32 counter blocks per group in eight registers of four,
/// built as [`GroupCounters`] builds VAES-256's (two byte-swapped bases per group, then a
/// masked blend, which runs beside the AES units, and an XOR per register), so a carry
/// out of the low 64 bits needs no branch: the counter starts from the IV, which the
/// constant-time check treats as secret (this kernel used to branch to another path for a
/// group whose low half carried). AMD's kernel from 16 KiB (sent there by the dispatch:
/// [`vendor_tuning`](super::vendor_tuning); Intel runs
/// [`ctr_vaes512_registers`] from 49 B); the tail takes [`ctr_vaes256`], which sizes
/// its registers to it.
#[target_feature(enable = "aes,sse2,avx2,avx512f,avx512bw,vaes")]
pub(super) unsafe fn ctr_vaes512(aes: &AesX86, counter: &mut [u8], data: &mut [u8]) {
    // SAFETY: the features are present (the caller's contract); each group `g` is a whole
    // 512-byte chunk of `data`, read and written at `64 * i` for `i < 8`.
    unsafe {
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
        // The group's two bases and the next one, from the integer registers two groups
        // ahead of the rounds (per group, AES-256 16 KiB 0.163 → 0.159 TSC c/B, Zen 4).
        let base = ctr & !31;
        let (mut lower, mut higher, mut after) = (
            block(base),
            block(base.wrapping_add(32)),
            block(base.wrapping_add(64)),
        );
        for (n, g) in (&mut groups).enumerate() {
            prefetch_ahead::<8>(g.as_ptr(), len - 512 * n);
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
            (lower, higher, after) = (higher, after, block((ctr & !31).wrapping_add(64)));
        }
        counter.copy_from_slice(&ctr.to_be_bytes());
        ctr_vaes256(aes, counter, groups.into_remainder());
    }
}

/// Counter mode on VAES-512 with a short tail in zmm registers, Intel's kernel from 49 B
/// (the AES-NI kernels take shorter calls there) and AMD's from 48 B to 1 KiB: 32 blocks per group in eight zmm registers, each register's four counter blocks built directly as
/// [`counter_registers`] builds VAES-256's (a 128-bit add whose carry out of the low 64
/// bits is a compare into a mask, not a branch: the counter comes from the IV), a tail in
/// just the registers it needs, the last one partial through a masked load and store.
///
/// On Intel the 512-bit AES instructions issue on one port and the counters' operations
/// on another, where VAES-256's two AES ports shared theirs with the counters, and the
/// counters cost half the operations a block that they cost on ymm. Xeon family 6 model
/// 207 (2026-11-30), AES-128 TSC c/B, before (VAES-256 under 1 KiB, [`ctr_vaes512`]'s
/// groups from there) → now, libgcrypt in the same runs: 64 B 0.52 → 0.45 (0.61), 256 B
/// 0.23-0.25 → 0.17 (0.21), 384 B 0.21 → 0.14 (0.18), 512 B 0.20 → 0.13 (0.16), 1 KiB
/// 0.15-0.16 → 0.12 (0.14), 16 KiB 0.123 → 0.122 (0.13); AES-256 256 B 0.28 → 0.18
/// (0.23). On AMD Zen 4 it leads VAES-256 from 48 B to 1 KiB only (figures at
/// [`vendor_tuning`](super::vendor_tuning)). The first registers' counters come from the
/// stored block loaded as a vector, as VAES-256's do (Xeon family 6 model 167,
/// 2026-12-06, TSC c/B, best of three alternating runs: AES-128 64 B 0.418 → 0.407,
/// 256 B 0.166 → 0.151, 1 KiB 0.108 → 0.105; AES-256 64 B 0.482 → 0.462, 128 B 0.264 →
/// 0.242).
#[target_feature(enable = "aes,sse2,avx2,avx512f,avx512bw,vaes")]
pub(super) unsafe fn ctr_vaes512_registers(aes: &AesX86, counter: &mut [u8], data: &mut [u8]) {
    let mut ctr = u128::from_be_bytes(counter[..16].try_into().unwrap());
    let mut be = load_counter(counter);
    let k0 = _mm512_broadcast_i32x4(aes.enc.v128()[0]);
    let len = data.len();
    let mut groups = data.chunks_exact_mut(512);
    for (n, g) in (&mut groups).enumerate() {
        prefetch_ahead::<8>(g.as_ptr(), len - 512 * n);
        // SAFETY: eight registers cover the 512-byte group.
        unsafe { ctr_rounds_xor_vaes512::<8>(aes, counter_registers512(k0, be), g) };
        ctr = ctr.wrapping_add(32);
        be = stored(ctr);
    }
    let tail = groups.into_remainder();
    // SAFETY: each arm's registers cover the tail (at most 64 bytes each).
    unsafe {
        match tail.len().div_ceil(64) {
            0 => {}
            1 => ctr_rounds_xor_vaes512::<1>(aes, counter_registers512(k0, be), tail),
            2 => ctr_rounds_xor_vaes512::<2>(aes, counter_registers512(k0, be), tail),
            3 => ctr_rounds_xor_vaes512::<3>(aes, counter_registers512(k0, be), tail),
            4 => ctr_rounds_xor_vaes512::<4>(aes, counter_registers512(k0, be), tail),
            5 => ctr_rounds_xor_vaes512::<5>(aes, counter_registers512(k0, be), tail),
            6 => ctr_rounds_xor_vaes512::<6>(aes, counter_registers512(k0, be), tail),
            7 => ctr_rounds_xor_vaes512::<7>(aes, counter_registers512(k0, be), tail),
            _ => ctr_rounds_xor_vaes512::<8>(aes, counter_registers512(k0, be), tail),
        }
    }
    let ctr = ctr.wrapping_add(tail.len().div_ceil(16) as u128);
    // One 16-byte store, as in `ctr_vaes256`.
    // SAFETY: `counter` holds 16 writable bytes.
    unsafe { _mm_storeu_si128(counter.as_mut_ptr().cast(), stored(ctr)) };
}

/// `R` zmm registers of counter blocks `ctr .. ctr + 4R`, XORed with round key 0, from
/// the counter block `be` as stored: per register a 64-bit add, an unsigned compare of
/// each block's offset with `!lo` (block `lo + i` wraps exactly when `i > !lo`) into a
/// mask on the high qwords, a masked add of the carry, a byte swap.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn counter_registers512<const R: usize>(k0: __m512i, be: __m128i) -> [__m512i; R] {
    let be = _mm512_broadcast_i32x4(be);
    let reverse = _mm512_broadcast_i32x4(reverse128());
    let low_twice = _mm512_broadcast_i32x4(low_twice128());
    let base = _mm512_shuffle_epi8(be, reverse);
    // !lo in every qword (0x55: NOT C).
    let low = _mm512_shuffle_epi8(be, low_twice);
    let limit = _mm512_ternarylogic_epi64::<0x55>(low, low, low);
    let one = _mm512_set1_epi64(1);
    core::array::from_fn(|r| {
        let b = 4 * r as i64;
        let sum = _mm512_add_epi64(base, _mm512_set_epi64(0, b + 3, 0, b + 2, 0, b + 1, 0, b));
        // Offsets on the high qwords; zero on the low ones never compares greater.
        let offset = _mm512_set_epi64(b + 3, 0, b + 2, 0, b + 1, 0, b, 0);
        let carry = _mm512_cmpgt_epu64_mask(offset, limit);
        let block = _mm512_shuffle_epi8(_mm512_mask_add_epi64(sum, carry, sum, one), reverse);
        _mm512_xor_si512(block, k0)
    })
}

/// Rounds 1 to `rounds` on R zmm registers of counter blocks (round key 0 already XORed),
/// the keystream XORed into `data` (at most 64R bytes; the last register it reaches may
/// be partial, through a masked load and store, and registers past its end are dropped).
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
unsafe fn ctr_rounds_xor_vaes512<const R: usize>(
    aes: &AesX86,
    mut x: [__m512i; R],
    data: &mut [u8],
) {
    assert!(data.len() <= 64 * R);
    let (keys, rounds) = (aes.enc.v128(), aes.rounds);
    for kr in &keys[1..rounds] {
        let kr = _mm512_broadcast_i32x4(*kr);
        x = x.map(|v| _mm512_aesenc_epi128(v, kr));
    }
    let last = _mm512_broadcast_i32x4(keys[rounds]);
    let p = data.as_mut_ptr();
    for (i, v) in x.iter().enumerate() {
        let left = data.len().saturating_sub(64 * i);
        if left >= 64 {
            // SAFETY: register i covers bytes 64i..64i+64 of `data`.
            unsafe {
                let at = p.add(64 * i);
                let kd = _mm512_xor_si512(_mm512_loadu_si512(at.cast()), last);
                _mm512_storeu_si512(at.cast(), _mm512_aesenclast_epi128(*v, kd));
            }
        } else if left > 0 {
            let m: __mmask64 = (1u64 << left) - 1;
            // SAFETY: the mask covers `left` bytes from 64i, the end of `data`; masked-off
            // bytes are neither read nor written.
            unsafe {
                let at = p.add(64 * i);
                let kd = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, at.cast()), last);
                _mm512_mask_storeu_epi8(at.cast(), m, _mm512_aesenclast_epi128(*v, kd));
            }
        }
    }
}

/// Counter mode on VAES-256: 16 counter blocks per group in eight registers of two,
/// built in registers (instead of a buffer that is written, encrypted and read again:
/// writing them with integer instructions one group ahead was no faster at 16 KiB and
/// stalled small messages on store forwarding) with the carry from the low into the high
/// 64 bits computed without a branch: the counter starts from the IV, which the
/// constant-time check treats as secret. A tail under one group runs only the registers
/// it needs, in place, so a 16-byte message costs one register's rounds and allocates
/// nothing. (Five to seven registers once ran all eight: AES-128 144 B 0.318 → 0.256 TSC
/// c/B, 192 B 0.241 → 0.205, AES-256 144 B 0.371 → 0.279, and AES-GCM's 128-byte
/// messages with them, J0 and eight blocks; Xeon family 6 model 167 under
/// `BITWEAVE_CPU=avx2`, 2026-12-06.)
#[target_feature(enable = "aes,sse2,avx2,vaes")]
pub(super) unsafe fn ctr_vaes256(aes: &AesX86, counter: &mut [u8], data: &mut [u8]) {
    // The round count stays a variable: as a constant (rounds unrolled) AES-256 ran 15 %
    // slower at 16 KiB (Zen 3).
    let (k, rounds) = (aes.enc.v256(), aes.rounds);
    let mut ctr = u128::from_be_bytes(counter[..16].try_into().unwrap());
    let len = data.len();
    // Round key 0 from the 128-bit rows, which need no address arithmetic: the counter
    // blocks' whitening does not wait for the 256-bit rows' place (1-2 cycles at 64 B).
    let k0 = _mm256_broadcastsi128_si256(aes.enc.v128()[0]);
    // Whole groups from two on: a single group counts its registers directly. Even with
    // the group pattern at 11 operations, one group through it ran 256 B at 0.84×
    // libgcrypt against 0.88× (Intel, `BITWEAVE_CPU=avx2`): the bases' byte swaps and
    // the selectors sit between the counter and the first round. Again with both taken
    // from the loaded block (Xeon family 6 model 167, 2026-12-06, TSC c/B): 256 B
    // AES-128 0.189 → 0.193, AES-256 0.210 → 0.230.
    let grouped = if len >= 512 { len / 256 * 256 } else { 0 };
    let (head, mut rest) = data.split_at_mut(grouped);
    if grouped > 0 {
        // SAFETY: this fn's features are the group loop's.
        unsafe { ctr_groups_vaes256(k0, k, rounds, load_counter(counter), head) };
        ctr = ctr.wrapping_add(grouped as u128 / 16);
    } else if rest.len() > 256 {
        let (g, r) = rest.split_at_mut(256);
        let be = load_counter(counter);
        // SAFETY: `g` is 256 bytes, eight registers.
        unsafe { ctr_rounds_xor_vaes256::<8>(k, rounds, counter_registers(k0, be), g) };
        ctr = ctr.wrapping_add(16);
        rest = r;
    }
    // The tail's counter block: as stored when nothing ran before it, so the first
    // round waits on a load and two byte shuffles, not on the integer registers.
    let be = if rest.len() == len {
        load_counter(counter)
    } else {
        stored(ctr)
    };
    // SAFETY: each arm's registers cover the tail.
    unsafe {
        match rest.len().div_ceil(32) {
            0 => {}
            1 => ctr_rounds_xor_vaes256::<1>(k, rounds, counter_registers(k0, be), rest),
            2 => ctr_rounds_xor_vaes256::<2>(k, rounds, counter_registers(k0, be), rest),
            3 => ctr_rounds_xor_vaes256::<3>(k, rounds, counter_registers(k0, be), rest),
            4 => ctr_rounds_xor_vaes256::<4>(k, rounds, counter_registers(k0, be), rest),
            5 => ctr_rounds_xor_vaes256::<5>(k, rounds, counter_registers(k0, be), rest),
            6 => ctr_rounds_xor_vaes256::<6>(k, rounds, counter_registers(k0, be), rest),
            7 => ctr_rounds_xor_vaes256::<7>(k, rounds, counter_registers(k0, be), rest),
            _ => ctr_rounds_xor_vaes256::<8>(k, rounds, counter_registers(k0, be), rest),
        }
    }
    ctr = ctr.wrapping_add(rest.len().div_ceil(16) as u128);
    // One 16-byte store, which forwards to the next call's loads, this kernel's two
    // 8-byte ones and the one-block kernel's 16-byte one.
    // SAFETY: `counter` holds 16 writable bytes.
    unsafe { _mm_storeu_si128(counter.as_mut_ptr().cast(), stored(ctr)) };
}

/// Whole 16-block groups of counter mode (`head` a multiple of 256 bytes) from the
/// counter block `be` as stored.
///
/// The base chain runs a group ahead of the rounds, in vector registers: the next group's
/// counters wait on two instructions, not on a chain from the integer registers (and,
/// bswap, movq, unpack, insert, shuffle) that could only start once this group's rounds
/// had left room for it. Together with the data folded into the last round key: AES-128-CTR
/// at 16 KiB, median of 300 timings 0.170-0.177 TSC c/B against 0.180-0.191 before, best
/// of 300 unchanged at ~0.16 (AMD Zen 3, alternating runs; libgcrypt 0.133-0.137 best in
/// the same runs).
///
/// The pattern's selectors and first base come from the stored block by byte shuffles
/// (no integer registers): Intel Xeon family 6 model 167 under `BITWEAVE_CPU=avx2`
/// (2026-12-06, TSC c/B, best of three alternating runs) AES-256 1 KiB 0.161 → 0.157,
/// AES-192 1 KiB 0.142 → 0.138, AES-128 1 KiB 0.122 → 0.124.
/// The first group from [`counter_registers`] instead (five operations a register, not
/// two), while the pattern is set up: AES-128 512 B 0.148 → 0.164, AES-256 0.175 → 0.204.
/// Beside the AES units the counters' operation count matters more than their latency.
#[target_feature(enable = "aes,sse2,avx2,vaes")]
unsafe fn ctr_groups_vaes256(
    k0: __m256i,
    k: &[__m256i; 15],
    rounds: usize,
    be: __m128i,
    head: &mut [u8],
) {
    let len = head.len();
    let be = _mm256_broadcastsi128_si256(be);
    let blocks = GroupCounters::new(k0, be);
    // Two groups ahead: one ahead, the group's upper
    // base came from the iteration just before (Zen 4 under `--backend vaes256`, 16 KiB:
    // AES-128 0.140 → 0.133 TSC c/B, AES-256 0.184 → 0.166; 1 KiB 0.160 → 0.152).
    let mut base = HexBase::new(be);
    let mut next = base.next();
    let mut after = next.next();
    for (n, g) in head.chunks_exact_mut(256).enumerate() {
        prefetch_ahead::<4>(g.as_ptr(), len - 256 * n);
        let x = blocks.at(&base, &next);
        (base, next, after) = (next, after, after.next());
        // SAFETY: `g` is 256 bytes, eight registers.
        unsafe { ctr_rounds_xor_vaes256(k, rounds, x, g) };
    }
}

/// The counter blocks of whole 16-block groups at two vector operations per register,
/// neither of them on the AES units' ports.
///
/// A group starting at counter `c = B + a` (B a multiple of 16, `a = c mod 16`) holds
/// blocks `B + a + i`, i < 16: each is `B` or `B + 16` (whichever its `a + i` reaches)
/// with `(a + i) mod 16` in its low nibble, where both bases have zeros. Groups advance by
/// 16 and keep `a`, so per call one selector per register, `w`, says it all: all ones in
/// the lanes that take `B + 16`, zeros in the others, and the block's low nibble in the
/// nibble's four bits. Per group, with `d = B ⊕ (B + 16)` and ones in the nibble's bits
/// (where both bases have zeros), a block is `B ⊕ k0 ⊕ (w & d)`: the selected base
/// elsewhere, `k0 ⊕ nibble` in the nibble. Per group only the two bases are computed
/// ([`HexBase`], a group ahead).
///
/// A `vpblendvb` select and an XOR per register, as before, ran on the ports of `vaesenc`
/// (Zen 4, eight `vaesenc` and eight `vpblendvb` take 6 cycles, with eight `vpand` and
/// eight `vpxor` 4): AES-128 16 KiB 0.129 → 0.117 TSC c/B, 2 KiB 0.140 → 0.128, 1 KiB
/// 0.152 → 0.138, 512 B 0.178 → 0.157 (`--backend vaes256`, Zen 4, best of 400 at each of
/// eleven buffer offsets, typical shown). An AND and two XORs per
/// register (the nibble XORed separately) were slower than the select. Building each
/// register from a 128-bit add took five operations per register, and CTR ran at 0.8×
/// ECB on Zen 3.
struct GroupCounters {
    /// Per register: the selector `w` above.
    select: [__m256i; 8],
    k0: __m256i,
}

/// The low nibble of byte 15 (the block's last) in each 128-bit lane.
#[target_feature(enable = "avx2")]
#[inline]
fn last_nibble() -> __m256i {
    _mm256_set_epi64x(15 << 56, 0, 15 << 56, 0)
}

/// Byte indices that reverse a 16-byte block (little-endian integer ↔ big-endian block).
#[target_feature(enable = "sse2")]
#[inline]
fn reverse128() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// Byte indices that take a stored counter block's low 64 bits (its last eight bytes) as
/// a little-endian integer into both qwords.
#[target_feature(enable = "sse2")]
#[inline]
fn low_twice128() -> __m128i {
    _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// [`reverse128`] in each 128-bit lane.
#[target_feature(enable = "avx2")]
#[inline]
fn reverse() -> __m256i {
    _mm256_broadcastsi128_si256(reverse128())
}

impl GroupCounters {
    /// All eight selectors from one byte vector: `a + i` for the sixteen blocks in one
    /// register's bytes (even blocks in the low lane, odd in the high, so register r's
    /// two blocks sit at byte r of each lane), from which a byte shuffle per register
    /// spreads a block's "all ones" byte over its first fifteen bytes and its last byte
    /// (the nibble, under the all-ones byte's top four bits) into byte 15. Eleven
    /// operations per call where building each selector from 64-bit lanes took six per
    /// register, which at 512 bytes were a fifth of the call: they share the vector ports
    /// with `vaesenc` and delay the first group's rounds (Intel Xeon family 6 model 207
    /// under `BITWEAVE_CPU=avx2`, AES-128 against libgcrypt capped alike: 512 B
    /// 0.83-0.84× → 0.90-0.94×, 1 KiB 0.91-0.93× → 0.97×). Built in vector arithmetic from
    /// `a`: through `set_epi64x` of scalars the compiler assembled the registers on the
    /// stack and read them back wider than written (a store-forwarding stall).
    #[target_feature(enable = "avx2")]
    fn new(k0: __m256i, be: __m256i) -> Self {
        const fn lane(first: i8) -> [i8; 16] {
            let mut b = [0i8; 16];
            let mut i = 0;
            while i < 16 {
                b[i] = first + 2 * (i as i8 % 8);
                i += 1;
            }
            b
        }
        let bytes = |lo: [i8; 16], hi: [i8; 16]| {
            // SAFETY: 32 readable bytes; loadu has no alignment requirement.
            unsafe { _mm256_loadu_si256([lo, hi].as_ptr().cast()) }
        };
        // Byte j of a lane (j < 8 and again at j + 8): the lane's j-th block, a + i.
        let a = _mm256_and_si256(
            _mm256_shuffle_epi8(be, _mm256_set1_epi8(15)),
            _mm256_set1_epi8(15),
        );
        let s = _mm256_add_epi8(a, bytes(lane(0), lane(1)));
        let upper = _mm256_cmpgt_epi8(s, _mm256_set1_epi8(15));
        // Bytes 0-7 of a lane: the blocks' all-ones bytes; bytes 8-15: their last bytes,
        // the nibble of a + i under the all-ones byte's top four bits (a + i < 32, so
        // its own bits 4-7 are those of `upper` or zero).
        let (ones, top) = ([-1; 8], [0xF0u8 as i8; 8]);
        let halves = |first: [i8; 8], second: [i8; 8]| {
            let mut b = [0i8; 16];
            b[..8].copy_from_slice(&first);
            b[8..].copy_from_slice(&second);
            b
        };
        let keep_upper = bytes(halves(ones, top), halves(ones, top));
        let keep_s = bytes(halves([0; 8], ones), halves([0; 8], ones));
        let rows = _mm256_or_si256(
            _mm256_and_si256(upper, keep_upper),
            _mm256_and_si256(s, keep_s),
        );
        let select = core::array::from_fn(|r| {
            let mut idx = [r as i8; 16];
            idx[15] = 8 + r as i8;
            _mm256_shuffle_epi8(rows, bytes(idx, idx))
        });
        GroupCounters { select, k0 }
    }

    /// The group whose blocks lie in the sixteens starting at `lower` and `upper` (the
    /// next one), XORed with round key 0.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn at(&self, lower: &HexBase, upper: &HexBase) -> [__m256i; 8] {
        let base = _mm256_xor_si256(lower.be, self.k0);
        let d = _mm256_xor_si256(_mm256_xor_si256(lower.be, upper.be), last_nibble());
        core::array::from_fn(|r| _mm256_xor_si256(base, _mm256_and_si256(self.select[r], d)))
    }
}

/// A multiple of 16, `B`, held both ways in both lanes of a register: as a little-endian
/// 128-bit integer (low half in the low qword), where the next sixteen is a vector add,
/// and as the big-endian block: per group only the two bases are byte-swapped.
#[derive(Clone, Copy)]
struct HexBase {
    le: __m256i,
    be: __m256i,
}

impl HexBase {
    /// The sixteen holding the counter block `be` (as stored, in both lanes).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn new(be: __m256i) -> Self {
        let b = _mm256_andnot_si256(last_nibble(), be);
        HexBase {
            le: _mm256_shuffle_epi8(b, reverse()),
            be: b,
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn from_le(le: __m256i) -> Self {
        HexBase {
            le,
            be: _mm256_shuffle_epi8(le, reverse()),
        }
    }

    /// `B + 16`, branch-free: the low half wraps exactly when it becomes zero (it was a
    /// multiple of 16), and that lane's all-ones compare, moved to the high lane, is
    /// subtracted there as the carry.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn next(&self) -> Self {
        let sum = _mm256_add_epi64(self.le, _mm256_set_epi64x(0, 16, 0, 16));
        let wrapped = _mm256_cmpeq_epi64(sum, _mm256_setzero_si256());
        Self::from_le(_mm256_sub_epi64(sum, _mm256_slli_si256::<8>(wrapped)))
    }
}

/// Counter blocks `ctr .. ctr + 2R`, two per register, XORed with round key 0, from the
/// counter block `be` as it is stored (big-endian). Per register: add the block offsets to
/// the low 64 bits, add the carry into the high 64 bits (an unsigned compare of the offset
/// with `!low`: one instruction, where comparing the sums took two), byte-swap to
/// big-endian blocks.
#[target_feature(enable = "avx2")]
#[inline]
fn counter_registers<const R: usize>(k0: __m256i, be: __m128i) -> [__m256i; R] {
    let be = _mm256_broadcastsi128_si256(be);
    let reverse = reverse();
    let low_twice = _mm256_broadcastsi128_si256(low_twice128());
    let base = _mm256_shuffle_epi8(be, reverse);
    // Block b = lo + b wraps exactly when b > !lo (unsigned). AVX2 compares 64-bit lanes
    // as signed only, so both sides have their sign bit flipped: the limit's high qword
    // is !lo ^ MIN = lo ^ MAX. The offsets' low qwords are MIN, never greater than
    // anything, so the mask lands in the high qword only, where subtracting it adds the
    // carry. The base and the limit are each one byte shuffle of the stored block, which
    // the call loads as a vector ([`load_counter`]): built from the counter in the
    // integer registers (two moves, an unpack, a lane insert), the first round waited
    // longer. Intel Xeon family 6 model 167 under `BITWEAVE_CPU=avx2` (2026-12-06, TSC
    // c/B, best of three alternating runs, encryption, libgcrypt's ratio after):
    // AES-256 256 B 0.225 → 0.210 (0.86 → 0.93×), 512 B 0.186 → 0.177 (0.88 → 0.92×);
    // AES-192 256 B 0.201 → 0.192 (0.90 → 0.95×); AES-128 128 B 0.261 → 0.256 (0.99 →
    // 1.04×), 256 B 0.181 → 0.184 (0.93 → 0.92×).
    let flip = i64::MIN;
    let limit = _mm256_xor_si256(
        _mm256_shuffle_epi8(be, low_twice),
        _mm256_set1_epi64x(i64::MAX),
    );
    core::array::from_fn(|i| {
        let b = 2 * i as i64;
        let sum = _mm256_add_epi64(base, _mm256_set_epi64x(0, b + 1, 0, b));
        let offset = _mm256_set_epi64x((b + 1) ^ flip, flip, b ^ flip, flip);
        let carry = _mm256_cmpgt_epi64(offset, limit);
        let block = _mm256_shuffle_epi8(_mm256_sub_epi64(sum, carry), reverse);
        _mm256_xor_si256(block, k0)
    })
}

/// The counter block as stored (its first 16 bytes), in a vector register: two 8-byte
/// loads, each forwarded from whatever wrote it last, the kernels' one 16-byte store or a
/// caller's two 8-byte halves (AES-GCM's first counter block is a `[u8; 16]` made from
/// integers). One 16-byte load over two 8-byte stores waits for them to reach the cache
/// (AES-GCM encryption at 64 B: 2.20 → 2.50 TSC c/B, 128 B 1.40 → 1.69, Xeon family 6
/// model 167); the loads are written as assembly because the compiler merges two
/// adjacent 8-byte loads into that one 16-byte load.
#[target_feature(enable = "avx")]
#[inline]
fn load_counter(counter: &[u8]) -> __m128i {
    let p = counter[..16].as_ptr();
    let out: __m128i;
    // SAFETY: two 8-byte loads within the 16 bytes at `p`; registers otherwise.
    unsafe {
        std::arch::asm!(
            "vmovq {o}, qword ptr [{p}]",
            "vmovhps {o}, {o}, qword ptr [{p} + 8]",
            p = in(reg) p,
            o = out(xmm_reg) out,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    out
}

/// Counter `ctr` as its stored (big-endian) block.
#[target_feature(enable = "sse2")]
#[inline]
fn stored(ctr: u128) -> __m128i {
    _mm_set_epi64x(
        (ctr as u64).swap_bytes() as i64,
        ((ctr >> 64) as u64).swap_bytes() as i64,
    )
}

/// Runs rounds 1 to `rounds` on R registers of counter blocks (round key 0 already
/// XORed) and XORs the keystream into `data`, at most R registers long: registers past
/// its end are dropped, the last one it reaches may be partial, and unused keystream
/// never leaves the registers (a partial block through [`xor_partial`]).
///
/// The register loop runs over the constant R, so every register index is a constant
/// and the keystream stays in registers; the one partial register is picked out in that
/// loop and finished after it. (Iterating up to the data's length, the compiler spilled
/// all R registers to the stack before the last round, even for whole registers: Zen 4,
/// 256-byte messages ran at 0.21 c/B against libgcrypt's 0.18.)
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
    let whole = data.len() / 32;
    let mut partial = _mm256_setzero_si256();
    for (i, v) in x.iter().enumerate() {
        if i < whole {
            // SAFETY: register i covers bytes 32i..32i+32 of `data`, which has at least
            // 32·whole.
            unsafe {
                let at = p.add(32 * i);
                let kd = _mm256_xor_si256(_mm256_loadu_si256(at.cast()), k[rounds]);
                _mm256_storeu_si256(at.cast(), _mm256_aesenclast_epi128(*v, kd));
            }
        } else if i == whole {
            partial = _mm256_aesenclast_epi128(*v, k[rounds]);
        }
    }
    let rem = data.len() - 32 * whole;
    if rem == 0 {
        return;
    }
    // SAFETY: every access stays within `data`'s last `rem` (< 32) bytes: 16 bytes where
    // 16 remain, and the last bytes through [`xor_partial`].
    unsafe {
        let (mut half, mut at, mut rem) = (_mm256_castsi256_si128(partial), p.add(32 * whole), rem);
        if rem >= 16 {
            let d = _mm_loadu_si128(at.cast());
            _mm_storeu_si128(at.cast(), _mm_xor_si128(d, half));
            half = _mm256_extracti128_si256::<1>(partial);
            (at, rem) = (at.add(16), rem - 16);
        }
        if rem > 0 {
            xor_partial(core::slice::from_raw_parts_mut(at, rem), half);
        }
    }
}

/// XORs the first `d.len()` (fewer than 16) bytes of the keystream block `ks` into `d`,
/// in the integer registers: a load, XOR and store of 8, 4, 2 and 1 bytes as the length
/// needs (branches on the length only), so the keystream's bytes never go through
/// memory. (It replaced a wiped 16-byte stack copy, copied in and out by two `memcpy`
/// calls; no faster in the bench, whose ~35 TSC cycles for a partial last block are the
/// stream's kept keystream, `Crypter::process_stream`.) Out of line: inlined, it cost
/// the whole-block calls beside it (AES-NI, 64 B 0.582 → 0.604 TSC c/B, Zen 4).
#[target_feature(enable = "sse2")]
#[inline(never)]
fn xor_partial(d: &mut [u8], ks: __m128i) {
    debug_assert!(d.len() < 16);
    let mut k = _mm_cvtsi128_si64(ks) as u64;
    let mut rest = d;
    if rest.len() >= 8 {
        let (head, tail) = rest.split_at_mut(8);
        let x = u64::from_le_bytes(head.try_into().unwrap()) ^ k;
        head.copy_from_slice(&x.to_le_bytes());
        k = _mm_cvtsi128_si64(_mm_unpackhi_epi64(ks, ks)) as u64;
        rest = tail;
    }
    if rest.len() >= 4 {
        let (head, tail) = rest.split_at_mut(4);
        let x = u32::from_le_bytes(head.try_into().unwrap()) ^ k as u32;
        head.copy_from_slice(&x.to_le_bytes());
        k >>= 32;
        rest = tail;
    }
    if rest.len() >= 2 {
        let (head, tail) = rest.split_at_mut(2);
        let x = u16::from_le_bytes(head.try_into().unwrap()) ^ k as u16;
        head.copy_from_slice(&x.to_le_bytes());
        k >>= 16;
        rest = tail;
    }
    if let [b] = rest {
        *b ^= k as u8;
    }
}

/// Counter mode on one block or less (1 to 16 bytes), at every level (AMD and Intel; see
/// [`vendor_tuning`](super::vendor_tuning) for Intel's figures): the counter block
/// is the block to encrypt, loaded whole (no byte swap, no add before the first round),
/// and the counter's advance runs in the integer registers beside the rounds: no moves
/// from the integer registers, byte swaps or lane arithmetic before the first round, so
/// back-to-back calls overlap more. AMD Zen 3 (2026-12-04), AES-128-CTR 16 B, TSC c/B,
/// libgcrypt ~2.5 in the same runs: 2.47 → 1.70 at the VAES-256 level, 2.08 → 1.70 at
/// the AES-NI one; AES-256 2.93 → 2.11.
///
/// The next counter goes back as one 16-byte store, so the next call's 16-byte load is
/// forwarded from it (as the VAES kernels write it). Written as two 8-byte stores,
/// the load waited until they reached the cache and back-to-back
/// calls ran one at a time: 2.92.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn ctr_one_block(aes: &AesX86, counter: &mut [u8], data: &mut [u8]) {
    debug_assert!((1..=16).contains(&data.len()));
    let k = aes.enc.v128();
    let block: &mut [u8; 16] = (&mut counter[..16]).try_into().unwrap();
    // SAFETY: `block` is 16 readable bytes; loadu has no alignment requirement.
    let x = _mm_xor_si128(unsafe { _mm_loadu_si128(block.as_ptr().cast()) }, k[0]);
    let next = u128::from_be_bytes(*block).wrapping_add(1);
    if data.len() == 16 {
        let mut x = [x];
        for kr in &k[1..aes.rounds] {
            x[0] = _mm_aesenc_si128(x[0], *kr);
        }
        last_round_xor(&x, k[aes.rounds], data);
    } else {
        // SAFETY: as this fn's.
        unsafe { partial_block(k, aes.rounds, x, data) };
    }
    let hi = ((next >> 64) as u64).swap_bytes() as i64;
    let lo = (next as u64).swap_bytes() as i64;
    // SAFETY: `block` is 16 writable bytes; storeu has no alignment requirement.
    unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), _mm_set_epi64x(lo, hi)) };
}

/// [`ctr_one_block`]'s partial block, out of line so the whole-block path (the one the
/// 16-byte figures measure) stays as it was measured.
#[target_feature(enable = "aes,sse2")]
#[inline(never)]
unsafe fn partial_block(k: &[__m128i; 15], rounds: usize, x: __m128i, data: &mut [u8]) {
    ctr_rounds_xor_aesni::<1>(k, rounds, [x], data);
}

/// Counter mode on AES-NI (with SSSE3 and SSE4.1, which every AES-NI CPU has): eight
/// counter blocks per group, built branch-free (the counter starts from the IV, which the
/// constant-time check treats as secret): one or two groups (four on AMD) straight from
/// the counter in the vector registers ([`counter_blocks_aesni`]); beyond, on Intel from
/// a chain of bases in the vector registers ([`groups_from_octets`]), elsewhere in the
/// integer registers through a stack buffer ([`groups_from_stack`]): each is the faster
/// on its vendor by 4-25 %. The data is folded into the last round key. A tail under one
/// group runs only the blocks it needs, in place.
#[target_feature(enable = "aes,sse2,ssse3,sse4.1")]
pub(super) unsafe fn ctr_aesni(aes: &AesX86, counter: &mut [u8], data: &mut [u8]) {
    // The round count a constant, so the rounds unroll (no loop branch per round; an
    // empty `asm!` keeps them round by round, see `ctr_group_aesni`): 64 B 0.49 → 0.45
    // TSC c/B, 1 KiB 0.278 → 0.273 (Zen 4, AES-128, best of 400).
    let (k, octets) = (aes.enc.v128(), aes.tuning.ctr_aesni_octets);
    match aes.rounds {
        10 => ctr_aesni_fixed::<10>(k, counter, data, octets),
        12 => ctr_aesni_fixed::<12>(k, counter, data, octets),
        _ => ctr_aesni_fixed::<14>(k, counter, data, octets),
    }
}

/// [`ctr_aesni`] with `ROUNDS` rounds; `octets` picks [`groups_from_octets`] over
/// [`groups_from_stack`].
#[target_feature(enable = "aes,sse2,ssse3,sse4.1")]
fn ctr_aesni_fixed<const ROUNDS: usize>(
    k: &[__m128i; 15],
    counter: &mut [u8],
    data: &mut [u8],
    octets: bool,
) {
    let mut ctr = u128::from_be_bytes(counter[..16].try_into().unwrap());
    let len = data.len();
    let mut groups = data.chunks_exact_mut(128);
    let group = |x: [__m128i; 8], g: &mut [u8]| ctr_group_aesni::<ROUNDS>(k, x, g);
    // Up to two groups (four where the stack buffer would take them): straight from the
    // counter (see below). Three and four from the counter rather than the buffer: Zen 4,
    // `BITWEAVE_CPU=aesni`, TSC c/B best of three runs, 384 B AES-128 0.313 → 0.300,
    // AES-256 0.404 → 0.373; 512 B 0.291 → 0.288, 0.380 → 0.360 (from eight groups on the
    // buffer stays ahead: 1 KiB 0.257 against 0.270).
    if groups.len() <= if octets { 2 } else { 4 } {
        for g in &mut groups {
            group(counter_blocks_aesni(k[0], ctr), g);
            ctr = ctr.wrapping_add(8);
        }
    } else if octets {
        ctr = groups_from_octets::<ROUNDS>(k, ctr, &mut groups, len);
    } else {
        ctr = groups_from_stack::<ROUNDS>(k, ctr, &mut groups, len);
    }
    let rest = groups.into_remainder();
    // A tail runs exactly the blocks it needs. Rounded up to four or eight blocks, the
    // spare blocks' AESENCs filled the pipes that a short chain leaves free only in part:
    // Zen 4, `BITWEAVE_CPU=aesni`, AES-128 TSC c/B best of three runs, 48 B 0.839 →
    // 0.717, 80 B 0.615 → 0.492, 96 B 0.549 → 0.439, 112 B 0.478 → 0.395 (libgcrypt
    // 0.834, 0.515, 0.480, 0.489).
    match rest.len().div_ceil(16) {
        0 => {}
        1 => ctr_blocks_aesni::<1>(k, ROUNDS, ctr, rest),
        2 => ctr_blocks_aesni::<2>(k, ROUNDS, ctr, rest),
        3 => ctr_blocks_aesni::<3>(k, ROUNDS, ctr, rest),
        4 => ctr_blocks_aesni::<4>(k, ROUNDS, ctr, rest),
        5 => ctr_blocks_aesni::<5>(k, ROUNDS, ctr, rest),
        6 => ctr_blocks_aesni::<6>(k, ROUNDS, ctr, rest),
        7 => ctr_blocks_aesni::<7>(k, ROUNDS, ctr, rest),
        _ => ctr_blocks_aesni::<8>(k, ROUNDS, ctr, rest),
    }
    ctr = ctr.wrapping_add(rest.len().div_ceil(16) as u128);
    counter.copy_from_slice(&ctr.to_be_bytes());
}

/// Three or more whole groups, their counters from [`GroupCounters128`] and an
/// [`OctetBase`] chain kept in the vector registers two groups ahead (an AND and an XOR
/// per block); returns the counter after them. Intel's choice: there the vector ALU has
/// a port the AES units do not use, and [`groups_from_stack`]'s stores, each block's two
/// halves read back as one load, ran AES-128 16 KiB at 0.30 TSC c/B against this path's
/// 0.24 (Xeon family 6 model 207, `BITWEAVE_CPU=aesni`, 2026-11-30; libgcrypt 0.24).
#[target_feature(enable = "aes,sse2,ssse3,sse4.1")]
#[inline]
fn groups_from_octets<const ROUNDS: usize>(
    k: &[__m128i; 15],
    mut ctr: u128,
    groups: &mut core::slice::ChunksExactMut<'_, u8>,
    len: usize,
) -> u128 {
    // The per-call constants of the groups after the first, built before it so they
    // are ready when its rounds end, and the first group straight from the counter.
    // Built after two counter-made groups instead, they arrived late (Zen 4, AES-128,
    // TSC c/B best of 400: 512 B 0.315 → 0.303, 1 KiB 0.273 → 0.268).
    let rest_from = ctr.wrapping_add(8);
    let counters = GroupCounters128::new(k[0], rest_from);
    // The octet chain runs two groups ahead of the rounds. In step with them, the next
    // group's counters waited on a chain of five allocated behind this group's rounds
    // (0.27 c/B against 0.22; Intel, AVX-512). One group ahead was still too close on
    // Zen 4: each group's counters need the *next* octet too (`upper`), which was then
    // computed in the iteration just before.
    let mut base = OctetBase::new(rest_from);
    let mut next = base.next();
    let mut after = next.next();
    if let Some(g) = groups.next() {
        ctr_group_aesni::<ROUNDS>(k, counter_blocks_aesni(k[0], ctr), g);
        ctr = rest_from;
    }
    for (n, g) in groups.enumerate() {
        prefetch_ahead::<2>(g.as_ptr(), len - 128 * (n + 1));
        let x = counters.at(&base, &next);
        (base, next, after) = (next, after, after.next());
        ctr_group_aesni::<ROUNDS>(k, x, g);
        ctr = ctr.wrapping_add(8);
    }
    ctr
}

/// Five or more whole groups, their counters from [`StackCounters`] a group ahead;
/// returns the counter after them. AMD's choice: built in vector registers instead (see
/// [`groups_from_octets`]), the counters took ~20 of the ~35 vector operations beside a
/// group's AESENCs, and some of them issued on the two AES pipes (Zen 4,
/// `BITWEAVE_CPU=aesni`, 16 KiB: AES-128 0.24 → 0.23 TSC c/B, AES-256 0.32 → 0.31).
/// The first group's blocks, loaded right after their stores, wait for them to reach the
/// cache: up to four groups that costs more than the buffer saves (128 B 0.42 → 0.49 when
/// one group took it), so those come from [`counter_blocks_aesni`]; the first of five or
/// more taken from there beside the buffer measured slower (Zen 4, AES-128, 640 B 0.283
/// against 0.277, 1 KiB 0.261 against 0.257). Not Intel's: there, even with every block
/// read back as two 8-byte halves (forwarded from their stores, no stall) and used for
/// all groups, the buffer ran slower than the vector-built counters at every size (Xeon
/// family 6 model 167 under `BITWEAVE_CPU=aesni`, 2026-12-06: AES-128 256 B 0.28 → 0.35,
/// 16 KiB 0.20 → 0.27 TSC c/B).
#[target_feature(enable = "aes,sse2,ssse3,sse4.1")]
#[inline]
fn groups_from_stack<const ROUNDS: usize>(
    k: &[__m128i; 15],
    mut ctr: u128,
    groups: &mut core::slice::ChunksExactMut<'_, u8>,
    len: usize,
) -> u128 {
    let mut counters = StackCounters::new(k[0]);
    counters.fill(ctr);
    for (n, g) in groups.enumerate() {
        prefetch_ahead::<2>(g.as_ptr(), len - 128 * n);
        let x = counters.load();
        counters.fill(ctr.wrapping_add(8));
        ctr_group_aesni::<ROUNDS>(k, x, g);
        ctr = ctr.wrapping_add(8);
    }
    ctr
}

/// A group's eight counter blocks, XORed with round key 0, built in the integer registers
/// (a 128-bit add, two byte swaps and two XORs with round key 0's halves per block) and
/// stored to a stack buffer the rounds load: the vector pipes, which the rounds keep busy,
/// see loads only. Branch-free (the counter comes from the IV).
struct StackCounters {
    blocks: [[u64; 2]; 8],
    k0: [u64; 2],
}

impl StackCounters {
    #[target_feature(enable = "sse2")]
    fn new(k0: __m128i) -> Self {
        let mut k = [0u64; 2];
        // SAFETY: `k` is 16 writable bytes; storeu has no alignment requirement.
        unsafe { _mm_storeu_si128(k.as_mut_ptr().cast(), k0) };
        StackCounters {
            blocks: [[0; 2]; 8],
            k0: k,
        }
    }

    /// Stores the blocks of counters `ctr .. ctr + 8`.
    #[inline]
    fn fill(&mut self, ctr: u128) {
        for (i, b) in self.blocks.iter_mut().enumerate() {
            let c = ctr.wrapping_add(i as u128);
            *b = [
                ((c >> 64) as u64).swap_bytes() ^ self.k0[0],
                (c as u64).swap_bytes() ^ self.k0[1],
            ];
        }
        // The blocks must reach memory as stores: left visible, the compiler would feed
        // the loads from the integer registers through vector inserts.
        core::hint::black_box(&mut self.blocks);
    }

    #[target_feature(enable = "sse2")]
    #[inline]
    fn load(&self) -> [__m128i; 8] {
        let p = core::hint::black_box(&self.blocks);
        // SAFETY: each block is 16 readable bytes; loadu has no alignment requirement.
        core::array::from_fn(|i| unsafe { _mm_loadu_si128(p[i].as_ptr().cast()) })
    }
}

impl Drop for StackCounters {
    /// The blocks are counters XORed with round key 0 (for AES-128 the key itself).
    fn drop(&mut self) {
        crate::bytes::wipe(self.blocks.as_flattened_mut());
        crate::bytes::wipe(&mut self.k0);
    }
}

/// XORs the keystream of counters `ctr .. ctr + R` into `data` (at most R blocks; blocks
/// past its end are dropped, the last it reaches may be partial and goes through
/// [`xor_partial`]).
#[target_feature(enable = "aes,sse2,ssse3")]
#[inline]
fn ctr_blocks_aesni<const R: usize>(k: &[__m128i; 15], rounds: usize, ctr: u128, data: &mut [u8]) {
    ctr_rounds_xor_aesni(k, rounds, counter_blocks_aesni::<R>(k[0], ctr), data)
}

/// Counter blocks `ctr .. ctr + R`, XORed with round key 0, built in the vector registers
/// from the counter as a little-endian 128-bit vector: per block a 64-bit add of the
/// block's offset, the carry into the high half subtracted as a compare mask (block `i`
/// carries exactly when `i > !low`, and `!low` is clamped to R so a signed 32-bit compare
/// decides it), a byte swap and the XOR. Branch-free: the counter comes from the IV.
///
/// Each block was a 128-bit add in the integer registers, its halves byte-swapped there
/// and moved over one by one: Zen 4, `BITWEAVE_CPU=aesni`, TSC c/B best of three runs,
/// AES-128 64 B 0.582 → 0.571, 128 B 0.395 → 0.384, 256 B 0.341 → 0.321; AES-256 256 B
/// 0.410 → 0.384. (A byte add on the big-endian block with a per-block key select, and
/// the second group's counters built before the first group's rounds, measured slower.)
#[target_feature(enable = "sse2,ssse3")]
#[inline]
fn counter_blocks_aesni<const R: usize>(k0: __m128i, ctr: u128) -> [__m128i; R] {
    let low = ctr as u64;
    let le = _mm_set_epi64x((ctr >> 64) as i64, low as i64);
    let room = _mm_set1_epi32((!low).min(R as u64) as i32);
    let to_be = reverse128();
    core::array::from_fn(|i| {
        let i = i as i32;
        let sum = _mm_add_epi64(le, _mm_set_epi64x(0, i.into()));
        // All ones in the high half when block i carries out of the low 64 bits.
        let carry = _mm_cmpgt_epi32(_mm_set_epi32(i, i, i32::MIN, i32::MIN), room);
        _mm_xor_si128(_mm_shuffle_epi8(_mm_sub_epi64(sum, carry), to_be), k0)
    })
}

/// The counter blocks of whole 8-block groups, as [`GroupCounters`] builds VAES-256's:
/// a group starting at `c = B + a` (B a multiple of 8) holds `B` or `B + 8` with
/// `(a + i) mod 8` in its last three bits, so per group only the two bases are
/// byte-swapped and per block an AND and an XOR pick and finish it (no 128-bit add and
/// no transfer from the integer registers per block). Branch-free: `a` comes from the IV.
/// (An AND and two XORs per block, the low bits XORed separately: AES-128 512 B 0.300 →
/// 0.292 TSC c/B, best of 400, Zen 4 under `--backend aesni`; 1 KiB and up unchanged.)
///
/// The selectors built in vector arithmetic as [`GroupCounters`] builds VAES-256's
/// (fifteen operations a call) measured within noise of these (+1 % at 384 B-1 KiB;
/// without any set-up, a wrong result as a bound, +5 %) on Intel Xeon family 6 model 167
/// under `BITWEAVE_CPU=aesni` (2026-12-06), so they stay as they are.
struct GroupCounters128 {
    /// Per block: all ones where the block takes `B + 8`, and `(a + i) mod 8` in the last
    /// three bits (zero in both bases).
    select: [__m128i; 8],
    k0: __m128i,
}

impl GroupCounters128 {
    /// The last three bits of byte 15.
    const LOW_BITS: i64 = 7 << 56;

    #[target_feature(enable = "sse2")]
    fn new(k0: __m128i, ctr: u128) -> Self {
        let a = (ctr & 7) as i64;
        GroupCounters128 {
            select: core::array::from_fn(|i| {
                let v = a + i as i64;
                let upper = -(v >> 3);
                _mm_set_epi64x((upper & !Self::LOW_BITS) | ((v & 7) << 56), upper)
            }),
            k0,
        }
    }

    /// The group whose blocks lie in the octets starting at `lower` and `upper` (the next
    /// one), XORed with round key 0.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn at(&self, lower: &OctetBase, upper: &OctetBase) -> [__m128i; 8] {
        let base = _mm_xor_si128(lower.be, self.k0);
        let d = _mm_xor_si128(
            _mm_xor_si128(lower.be, upper.be),
            _mm_set_epi64x(Self::LOW_BITS, 0),
        );
        core::array::from_fn(|i| _mm_xor_si128(base, _mm_and_si128(self.select[i], d)))
    }
}

/// A multiple of 8, `B`, held both ways in registers: as a little-endian 128-bit integer
/// (low half in the low lane), where the next octet is a vector add, and as the big-endian
/// block. Kept in the vector registers from group to group and computed a group ahead of
/// the rounds: built from the integer registers per group (`bswap`, `movq`, `punpcklqdq`
/// on the path into the first round, allocated behind the previous group's rounds),
/// AES-NI counter mode ran 0.29-0.33 c/B against ECB's 0.21 on an Intel Xeon with
/// AVX-512 (2026-11-27); this way 0.21.
#[derive(Clone, Copy)]
struct OctetBase {
    le: __m128i,
    be: __m128i,
}

impl OctetBase {
    /// The octet holding counter `ctr`.
    #[target_feature(enable = "sse2,ssse3")]
    #[inline]
    fn new(ctr: u128) -> Self {
        let b = ctr & !7;
        Self::from_le(_mm_set_epi64x((b >> 64) as i64, b as i64))
    }

    #[target_feature(enable = "sse2,ssse3")]
    #[inline]
    fn from_le(le: __m128i) -> Self {
        OctetBase {
            le,
            be: _mm_shuffle_epi8(le, reverse128()),
        }
    }

    /// `B + 8`, branch-free: the low half wraps exactly when it becomes zero (it was a
    /// multiple of 8), and that lane's all-ones compare, moved to the high lane, is
    /// subtracted there as the carry.
    #[target_feature(enable = "sse2,ssse3,sse4.1")]
    #[inline]
    fn next(&self) -> Self {
        let sum = _mm_add_epi64(self.le, _mm_set_epi64x(0, 8));
        let wrapped = _mm_cmpeq_epi64(sum, _mm_setzero_si128());
        Self::from_le(_mm_sub_epi64(sum, _mm_slli_si128::<8>(wrapped)))
    }
}

/// One whole group: rounds 1 to `ROUNDS` on eight counter blocks (round key 0 already
/// XORed), then [`last_round_xor`].
///
/// Each round passes the eight states through [`in_order`](super::in_order), so the
/// unrolled rounds stay round by round across the blocks. Unrolled without it, the
/// compiler, short of registers for eight blocks and every round key, reordered them
/// block by block — each block's rounds a chain of dependent AESENCs, leaving it to the
/// out-of-order window to overlap them: on Zen 3 AES-256-CTR ran at 0.52 c/B against
/// OpenSSL's 0.35 (AES-NI tier), and the rounds were kept a loop until this barrier.
#[target_feature(enable = "aes,sse2")]
#[inline]
fn ctr_group_aesni<const ROUNDS: usize>(k: &[__m128i; 15], mut x: [__m128i; 8], g: &mut [u8]) {
    // The keys through a pointer the compiler cannot see through: it then loads each
    // round key where its round needs it, instead of copying the round keys to the stack
    // at entry (eight blocks and eleven or more keys do not fit in 16 registers) and
    // reloading the copies (Zen 4, --backend aesni, TSC c/B best of 400: AES-128 128 B
    // 0.355 → 0.335, AES-256 256 B 0.386 → 0.376; 1 KiB and up unchanged).
    let k = core::hint::black_box(k);
    for kr in &k[1..ROUNDS] {
        x = x.map(|v| _mm_aesenc_si128(v, *kr));
        super::in_order(&mut x);
    }
    last_round_xor(&x, k[ROUNDS], g);
}

/// The last round on N blocks with the keystream XORed into `blocks` (16N bytes), each
/// data block folded into the last round key (AESENCLAST XORs its key last, so the data
/// XOR leaves the path from the rounds to the store); straight-line, the keystream kept in
/// registers (through a loop over `chunks_mut` the compiler spilled all eight to the stack
/// first; Zen 4 CTR ran at 0.35 c/B against ECB's 0.23).
#[target_feature(enable = "aes,sse2")]
#[inline]
fn last_round_xor<const N: usize>(x: &[__m128i; N], last: __m128i, blocks: &mut [u8]) {
    assert_eq!(blocks.len(), 16 * N);
    let p = blocks.as_mut_ptr();
    for (i, v) in x.iter().enumerate() {
        // SAFETY: block i is bytes 16i..16i+16 of `blocks`, which has 16N.
        unsafe {
            let at = p.add(16 * i);
            let kd = _mm_xor_si128(_mm_loadu_si128(at.cast()), last);
            _mm_storeu_si128(at.cast(), _mm_aesenclast_si128(*v, kd));
        }
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
        // A tail of exactly R whole blocks (1, 2 or 4: whole groups of 8 go through
        // `ctr_group_aesni`).
        last_round_xor(&x, k[rounds], data);
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
            xor_partial(d, ks);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Level;
    use super::*;

    /// Both VAES-512 counter kernels (Intel runs `ctr_vaes512_registers`, AMD both at
    /// different sizes) give the keystream of one
    /// block at a time on AES-NI, across carries out of the low 64 bits and the wrap of
    /// all 128, for lengths through three groups (partial last blocks and registers
    /// included) and one long message.
    #[test]
    fn vaes512_counter_kernels_match_block_by_block() {
        if !Level::Vaes512.available() {
            eprintln!(
                "SKIPPED: no VAES-512 on this CPU; ctr_vaes512 and ctr_vaes512_registers did not run"
            );
            return;
        }
        type CtrKernel = unsafe fn(&AesX86, &mut [u8], &mut [u8]);
        let kernels: [(&str, CtrKernel); 2] = [
            ("ctr_vaes512", ctr_vaes512),
            ("ctr_vaes512_registers", ctr_vaes512_registers),
        ];
        let starts = [
            0u128,
            (1 << 64) - 21,
            (1 << 64) - 3,
            u128::MAX - 30,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ];
        let lens = (0..=1600usize)
            .step_by(37)
            .chain([256, 512, 1024, 16384 + 5]);
        for key_len in [16, 24, 32] {
            let key: Vec<u8> = (0..key_len as u8)
                .map(|b| b.wrapping_mul(29) ^ 0xa3)
                .collect();
            let aes = AesX86::new_shared(&key, Level::Vaes512).expect("VAES-512");
            for len in lens.clone() {
                let data: Vec<u8> = (0..len).map(|i| (i * 11 + 5) as u8).collect();
                for &start in &starts {
                    let mut want = data.clone();
                    for (i, block) in want.chunks_mut(16).enumerate() {
                        let mut c = start.wrapping_add(i as u128).to_be_bytes();
                        // SAFETY: AES-NI is present (VAES-512 implies it).
                        unsafe { ctr_aesni(&aes, &mut c, block) };
                    }
                    for (name, kernel) in kernels {
                        let (mut got, mut c) = (data.clone(), start.to_be_bytes());
                        // SAFETY: VAES-512 is present (checked above).
                        unsafe { kernel(&aes, &mut c, &mut got) };
                        let blocks = len.div_ceil(16) as u128;
                        assert!(
                            got == want && c == start.wrapping_add(blocks).to_be_bytes(),
                            "aes-{} ctr, vaes512 ({name}): start {start:#x}, {len} bytes",
                            8 * key_len,
                        );
                    }
                }
            }
        }
    }

    /// Short calls on AES-NI and VAES-256 (every length through 520 bytes: AES-NI's one
    /// and two groups and their tails, VAES-256's registers before its group loop) give
    /// the counter blocks encrypted one by one, wherever the last byte wraps, across
    /// carries out of the low 64 bits and the wrap of all 128.
    #[test]
    fn short_calls_match_ecb_of_their_counters() {
        let levels = [Level::AesNi, Level::Vaes256];
        let starts = [
            0u128,
            0xf1,
            0xff,
            0x1fe,
            0xffff_fff3,
            (1 << 64) - 17,
            (1 << 64) - 1,
            u128::MAX - 20,
            u128::MAX,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_32e9,
        ];
        for level in levels {
            if !level.available() {
                eprintln!(
                    "SKIPPED: {level:?} is not on this CPU; its short counter calls did not run"
                );
                continue;
            }
            for key_len in [16, 24, 32] {
                let key: Vec<u8> = (0..key_len as u8)
                    .map(|b| b.wrapping_mul(41) ^ 0x6d)
                    .collect();
                let aes = AesX86::new_shared(&key, level).expect("checked above");
                for &start in &starts {
                    for len in 0..=520usize {
                        let data: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
                        // The portable loop: counter blocks through ECB.
                        let (mut want, mut want_c) = (data.clone(), start.to_be_bytes());
                        crate::cipher::ctr_by_batches(&*aes, &mut want_c, &mut want);
                        let (mut got, mut c) = (data.clone(), start.to_be_bytes());
                        // SAFETY: the level's features are present (checked above).
                        unsafe {
                            match level {
                                Level::AesNi => ctr_aesni(&aes, &mut c, &mut got),
                                _ => ctr_vaes256(&aes, &mut c, &mut got),
                            }
                        }
                        assert!(
                            got == want && c == want_c,
                            "aes-{} ctr, {level:?}: start {start:#x}, {len} bytes",
                            8 * key_len,
                        );
                        if (1..=16).contains(&len) {
                            let (mut got, mut c) = (data.clone(), start.to_be_bytes());
                            // SAFETY: AES-NI is present at every level.
                            unsafe { ctr_one_block(&aes, &mut c, &mut got) };
                            assert!(
                                got == want && c == want_c,
                                "aes-{} ctr one block, {level:?}: start {start:#x}, {len} bytes",
                                8 * key_len,
                            );
                        }
                    }
                }
            }
        }
    }

    /// Both ways of building AES-NI's counter groups (each vendor runs only one) give the
    /// keystream of one block at a time, across carries out of the low 64 bits and the
    /// wrap of all 128, for group counts and tails around the paths' thresholds.
    #[test]
    fn aesni_counter_groups_match_block_by_block_either_way() {
        if !Level::AesNi.available() {
            eprintln!("SKIPPED: no AES-NI on this CPU; the AES-NI counter groups did not run");
            return;
        }
        let starts = [
            0u128,
            (1 << 64) - 21,
            (1 << 64) - 8,
            u128::MAX - 30,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ];
        for key_len in [16, 24, 32] {
            let key: Vec<u8> = (0..key_len as u8)
                .map(|b| b.wrapping_mul(37) ^ 0x5c)
                .collect();
            let aes = AesX86::new_shared(&key, Level::AesNi).expect("AES-NI");
            for &start in &starts {
                for len in [3 * 128, 3 * 128 + 5, 5 * 128 + 16, 17 * 128 + 127usize] {
                    let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                    let mut want = data.clone();
                    for (i, block) in want.chunks_mut(16).enumerate() {
                        let mut c = start.wrapping_add(i as u128).to_be_bytes();
                        // SAFETY: AES-NI is present (checked above).
                        unsafe { ctr_aesni(&aes, &mut c, block) };
                    }
                    for octets in [false, true] {
                        let mut got = data.clone();
                        let mut c = start.to_be_bytes();
                        // SAFETY: as above.
                        unsafe {
                            match aes.rounds {
                                10 => {
                                    ctr_aesni_fixed::<10>(aes.enc.v128(), &mut c, &mut got, octets)
                                }
                                12 => {
                                    ctr_aesni_fixed::<12>(aes.enc.v128(), &mut c, &mut got, octets)
                                }
                                _ => {
                                    ctr_aesni_fixed::<14>(aes.enc.v128(), &mut c, &mut got, octets)
                                }
                            }
                        };
                        let blocks = len.div_ceil(16) as u128;
                        assert!(
                            got == want && c == start.wrapping_add(blocks).to_be_bytes(),
                            "aes-{} ctr, aesni, counters in {}: start {start:#x}, {len} bytes",
                            8 * key_len,
                            if octets {
                                "vector registers"
                            } else {
                                "a stack buffer"
                            },
                        );
                    }
                }
            }
        }
    }
}
