//! CBC and full-block CFB decryption: one stream, whose blocks decrypt independently
//! once the previous ciphertext is at hand, and whole rows of interleaved streams.

use core::arch::x86_64::*;

use super::{wide_part, AesX86, WIDE_GROUPS_FROM};
use crate::cipher::{prefetch_ahead, STREAM_PREFETCH_BYTES};

/// Single-stream CBC or full-block CFB decryption on VAES-512, front to back, 32 blocks
/// per group: CBC P_i = D(C_i) ⊕ C_{i-1}, CFB P_i = E(C_{i-1}) ⊕ C_i. Groups of eight
/// zmm registers, then a tail in just the registers it needs, the last one partial
/// through masked loads and stores (a whole number of blocks; CFB's partial last block,
/// if any, goes through the generic path). Calls under the hand-off
/// ([`vendor_tuning`](super::vendor_tuning): 128 B on Intel, 1 KiB on AMD)
/// take [`stream_decrypt_vaes256`]. As for counter mode (`ctr::ctr_vaes512_registers`),
/// on Intel the 512-bit AES instructions issue on one port and the registers' other
/// operations on another, where VAES-256's AES ports shared theirs.
///
/// AMD ran a second VAES-512 kernel from 4 KiB until 2026-12-03 (whole groups only, its
/// tail handed to VAES-256): this one measured equal to it from 16 KiB and ahead under
/// it, and ahead of VAES-256 from 1 KiB (Zen 4, TSC c/B best of 3-4, AES-128 CBC, VAES-256
/// or the old kernel → this one: 512 B 0.131 → 0.124, 1 KiB 0.120 → 0.110, 4 KiB
/// 0.118 → 0.110, 16 KiB 0.112 → 0.110, 64 KiB 0.111 → 0.111; 128 B 0.286 → 0.379 and
/// 256 B 0.170 → 0.198, so not under 1 KiB).
#[target_feature(enable = "aes,sse2,avx2,avx512f,avx512bw,vaes")]
pub(super) unsafe fn stream_decrypt_vaes512<const CFB: bool>(
    aes: &AesX86,
    prev: &mut [u8],
    data: &mut [u8],
) {
    let (rounds, keys) = (aes.rounds, (if CFB { &aes.enc } else { aes.dec() }).v128());
    let blocks_end = data.len() / 16 * 16;
    let (whole, partial) = data.split_at_mut(blocks_end);
    // SAFETY: `prev` is one 16-byte block (the caller checked), and so is `whole`'s last
    // block when there is one.
    let (mut last, next_prev) = unsafe {
        let before = _mm_loadu_si128(prev.as_ptr().cast());
        let after = match whole.len() {
            0 => before,
            n => _mm_loadu_si128(whole[n - 16..].as_ptr().cast()),
        };
        (_mm512_broadcast_i32x4(before), after)
    };
    let len = whole.len();
    let mut groups = whole.chunks_exact_mut(512);
    for (n, g) in (&mut groups).enumerate() {
        prefetch_ahead::<8>(g.as_ptr(), len - 512 * n);
        // SAFETY: eight registers cover the 512-byte group.
        unsafe { decrypt_registers_vaes512::<CFB, 8, false>(keys, rounds, &mut last, g) };
    }
    let tail = groups.into_remainder();
    // A last register of one block runs on the 128-bit instructions in the same pass, as
    // in VAES-256's tail: a masked register of one block cost a whole register's rounds
    // on Intel's one 512-bit AES port (Xeon family 6 model 167, TSC c/B best of three,
    // CBC AES-128 144 B 0.247 → 0.209, 208 B 0.187 → 0.158, 400 B 0.146 → 0.128;
    // AES-256 144 B 0.300 → 0.257; libgcrypt 0.224, 0.179, 0.128, 0.260).
    let odd = tail.len() % 64 == 16 && tail.len() > 64;
    // SAFETY: the registers cover the tail (at most 64 bytes each), or where `odd` all
    // but its last block, which the kernel takes apart.
    unsafe {
        if odd {
            tail_vaes512::<CFB, true>(keys, rounds, &mut last, tail, tail.len() / 64)
        } else {
            tail_vaes512::<CFB, false>(keys, rounds, &mut last, tail, tail.len().div_ceil(64))
        }
    }
    // SAFETY: `prev` is one 16-byte block.
    unsafe { _mm_storeu_si128(prev.as_mut_ptr().cast(), next_prev) };
    if CFB && !partial.is_empty() {
        crate::cipher::cfb_decrypt_by_slabs(aes, prev, partial);
    }
}

/// The lone block after a tail's registers (where `ODD`; nothing otherwise), run on the
/// 128-bit instructions round by round beside them, so it costs no pass of its own.
struct OddBlock<const CFB: bool, const ODD: bool> {
    at: *mut u8,
    /// Its ciphertext, the next call's previous block.
    c: __m128i,
    /// What the last round folds in: CBC the previous ciphertext, CFB the block itself.
    fold: __m128i,
    state: __m128i,
}

impl<const CFB: bool, const ODD: bool> OddBlock<CFB, ODD> {
    /// The block at `at` (its ciphertext and the one before it read now), XORed with `k0`.
    ///
    /// # Safety
    /// Where `ODD`, the 16 bytes at `at` must be readable and writable, and the 16 before
    /// them readable.
    #[target_feature(enable = "aes,sse2")]
    #[inline]
    unsafe fn new(at: *mut u8, k0: __m128i) -> Self {
        let zero = _mm_setzero_si128();
        if !ODD {
            return OddBlock {
                at,
                c: zero,
                fold: zero,
                state: zero,
            };
        }
        // SAFETY: the caller's.
        let (c, behind) = unsafe {
            (
                _mm_loadu_si128(at.cast()),
                _mm_loadu_si128(at.sub(16).cast()),
            )
        };
        let (input, fold) = if CFB { (behind, c) } else { (c, behind) };
        OddBlock {
            at,
            c,
            fold,
            state: _mm_xor_si128(input, k0),
        }
    }

    #[target_feature(enable = "aes,sse2")]
    #[inline]
    fn round(&mut self, k: __m128i) {
        if ODD {
            self.state = if CFB {
                _mm_aesenc_si128(self.state, k)
            } else {
                _mm_aesdec_si128(self.state, k)
            };
        }
    }

    /// The last round with key `last`, the result stored; returns the block's ciphertext.
    #[target_feature(enable = "aes,sse2")]
    #[inline]
    fn finish(&self, last: __m128i) -> __m128i {
        if ODD {
            let kf = _mm_xor_si128(last, self.fold);
            let out = if CFB {
                _mm_aesenclast_si128(self.state, kf)
            } else {
                _mm_aesdeclast_si128(self.state, kf)
            };
            // SAFETY: `new`'s contract made `at` writable where `ODD`.
            unsafe { _mm_storeu_si128(self.at.cast(), out) };
        }
        self.c
    }
}

/// A VAES-512 tail in `registers` (at most eight), and where `ODD` one block after them.
///
/// # Safety
/// As [`decrypt_registers_vaes512`].
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
unsafe fn tail_vaes512<const CFB: bool, const ODD: bool>(
    keys: &[__m128i; 15],
    rounds: usize,
    last: &mut __m512i,
    tail: &mut [u8],
    registers: usize,
) {
    // SAFETY: the caller's.
    unsafe {
        match registers {
            0 => {}
            1 => decrypt_registers_vaes512::<CFB, 1, ODD>(keys, rounds, last, tail),
            2 => decrypt_registers_vaes512::<CFB, 2, ODD>(keys, rounds, last, tail),
            3 => decrypt_registers_vaes512::<CFB, 3, ODD>(keys, rounds, last, tail),
            4 => decrypt_registers_vaes512::<CFB, 4, ODD>(keys, rounds, last, tail),
            5 => decrypt_registers_vaes512::<CFB, 5, ODD>(keys, rounds, last, tail),
            6 => decrypt_registers_vaes512::<CFB, 6, ODD>(keys, rounds, last, tail),
            7 => decrypt_registers_vaes512::<CFB, 7, ODD>(keys, rounds, last, tail),
            _ => decrypt_registers_vaes512::<CFB, 8, ODD>(keys, rounds, last, tail),
        }
    }
}

/// Decrypts the whole blocks of `g` (at most R registers of four; the last register may
/// hold fewer, masked; where `ODD`, R whole registers and one block after them, on the
/// 128-bit instructions in the same pass) in place; `last` holds the ciphertext block before them in its
/// top lane, and the last register afterwards. Each register's previous-ciphertext blocks
/// are the same ciphertext shifted by one lane (`valignq` across neighbouring registers),
/// and the XOR is folded into the last round key.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
unsafe fn decrypt_registers_vaes512<const CFB: bool, const R: usize, const ODD: bool>(
    keys: &[__m128i; 15],
    rounds: usize,
    last: &mut __m512i,
    g: &mut [u8],
) {
    if ODD {
        assert_eq!(g.len(), 64 * R + 16);
    } else {
        assert!(g.len() <= 64 * R && g.len().is_multiple_of(16));
    }
    let (p, blocks) = (g.as_mut_ptr(), g.len() / 16);
    // The qwords of register i's blocks in `g`.
    let mask = |i: usize| ((1u32 << (2 * blocks.saturating_sub(4 * i).min(4))) - 1) as __mmask8;
    // SAFETY: each masked access touches register i's blocks within `g` only.
    unsafe {
        let c: [__m512i; R] =
            core::array::from_fn(|i| _mm512_maskz_loadu_epi64(mask(i), p.add(64 * i).cast()));
        // behind[i] = [C_{4i-1}, C_{4i}, C_{4i+1}, C_{4i+2}]
        let behind: [__m512i; R] = core::array::from_fn(|i| {
            _mm512_alignr_epi64(c[i], if i == 0 { *last } else { c[i - 1] }, 6)
        });
        let (input, fold) = if CFB { (behind, c) } else { (c, behind) };
        let mut odd = OddBlock::<CFB, ODD>::new(p.add(64 * R), keys[0]);
        let k0 = _mm512_broadcast_i32x4(keys[0]);
        let mut x: [__m512i; R] = input.map(|v| _mm512_xor_si512(v, k0));
        for kr in &keys[1..rounds] {
            odd.round(*kr);
            let kr = _mm512_broadcast_i32x4(*kr);
            x = x.map(|v| {
                if CFB {
                    _mm512_aesenc_epi128(v, kr)
                } else {
                    _mm512_aesdec_epi128(v, kr)
                }
            });
        }
        let odd_c = odd.finish(keys[rounds]);
        let kl = _mm512_broadcast_i32x4(keys[rounds]);
        for i in 0..R {
            let kf = _mm512_xor_si512(kl, fold[i]);
            let out = if CFB {
                _mm512_aesenclast_epi128(x[i], kf)
            } else {
                _mm512_aesdeclast_epi128(x[i], kf)
            };
            _mm512_mask_storeu_epi64(p.add(64 * i).cast(), mask(i), out);
        }
        *last = if ODD {
            _mm512_broadcast_i32x4(odd_c)
        } else {
            c[R - 1]
        };
    }
}

/// Single-stream CBC or full-block CFB decryption on VAES-256, as
/// [`stream_decrypt_vaes512`] with 16 blocks per group: each register's previous blocks
/// are its neighbour's high lane and its own low lane (`vperm2i128`). A tail under one
/// group runs as one group of just the registers it needs, and a last odd block on the
/// 128-bit instructions in the same pass, so a short message pays one pass of rounds and
/// no copy (CFB's partial last block, if any, goes through the generic path).
///
/// The odd block's rounds ran after the registers' until 2026-12-05, a second pass:
/// Intel Xeon family 6 model 167 under `--backend vaes256`, TSC c/B best of three, CBC
/// AES-128 80 B 0.429 → 0.376, 144 B 0.270 → 0.238, 208 B 0.199 → 0.189; AES-256 80 B
/// 0.486 → 0.422; CFB AES-128 48 B 0.649 → 0.556 (libgcrypt 0.381, 0.229, 0.182, 0.413,
/// 0.688).
#[target_feature(enable = "aes,sse2,avx2,vaes")]
pub(super) unsafe fn stream_decrypt_vaes256<const CFB: bool>(
    aes: &AesX86,
    prev: &mut [u8],
    data: &mut [u8],
) {
    let rounds = aes.rounds;
    let keys = if CFB { &aes.enc } else { aes.dec() };
    let k = keys.v256();
    // SAFETY: `prev` is one 16-byte block (the caller checked).
    let mut last = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(prev.as_ptr().cast()) });
    let len = data.len();
    let (wide, data) = wide_part(data, WIDE_GROUPS_FROM, 384);
    for (n, g) in wide.chunks_exact_mut(384).enumerate() {
        let p = g.as_mut_ptr();
        prefetch_ahead::<6>(p, len - 384 * n);
        // SAFETY: `g` is twelve registers.
        unsafe { decrypt_registers_vaes256::<CFB, 12, false>(k, rounds, &mut last, p) };
    }
    let len = data.len();
    let mut groups = data.chunks_exact_mut(256);
    for (n, g) in (&mut groups).enumerate() {
        let p = g.as_mut_ptr();
        prefetch_ahead::<4>(p, len - 256 * n);
        // SAFETY: `g` is eight registers.
        unsafe {
            decrypt_registers_vaes256::<CFB, GROUP_REGISTERS, false>(k, rounds, &mut last, p)
        };
    }
    let tail = groups.into_remainder();
    let p = tail.as_mut_ptr();
    let registers = tail.len() / 32;
    let odd = tail.len() - 32 * registers >= 16;
    // SAFETY: the tail holds `registers` whole registers, and a whole block after them
    // where `odd`.
    unsafe {
        if odd {
            tail_vaes256::<CFB, true>(k, rounds, &mut last, p, registers)
        } else {
            tail_vaes256::<CFB, false>(k, rounds, &mut last, p, registers)
        }
    }
    let mut before = _mm256_extracti128_si256::<1>(last);
    if odd && registers == 0 {
        // A lone block, on the 128-bit instructions.
        // SAFETY: the tail holds a whole block at `32 * registers`; AES-NI is among this
        // fn's features.
        unsafe {
            decrypt_blocks_aesni::<CFB, 1>(keys.v128(), rounds, &mut before, p.add(32 * registers))
        };
    }
    // SAFETY: `prev` is one 16-byte block (the caller checked).
    unsafe { _mm_storeu_si128(prev.as_mut_ptr().cast(), before) };
    // CFB's partial last block.
    let blocks_end = tail.len() / 16 * 16;
    let partial = &mut tail[blocks_end..];
    if CFB && !partial.is_empty() {
        crate::cipher::cfb_decrypt_by_slabs(aes, prev, partial);
    }
}

/// A VAES-256 tail of `registers` (under one group) at `p`, and where `ODD` the block after
/// them in the same pass.
///
/// # Safety
/// As [`decrypt_registers_vaes256`].
#[target_feature(enable = "aes,sse2,avx2,vaes")]
#[inline]
unsafe fn tail_vaes256<const CFB: bool, const ODD: bool>(
    k: &[__m256i; 15],
    rounds: usize,
    last: &mut __m256i,
    p: *mut u8,
    registers: usize,
) {
    // SAFETY: each arm reads and writes the tail's whole registers (and odd block) only.
    unsafe {
        match registers {
            0 => {}
            1 => decrypt_registers_vaes256::<CFB, 1, ODD>(k, rounds, last, p),
            2 => decrypt_registers_vaes256::<CFB, 2, ODD>(k, rounds, last, p),
            3 => decrypt_registers_vaes256::<CFB, 3, ODD>(k, rounds, last, p),
            4 => decrypt_registers_vaes256::<CFB, 4, ODD>(k, rounds, last, p),
            5 => decrypt_registers_vaes256::<CFB, 5, ODD>(k, rounds, last, p),
            6 => decrypt_registers_vaes256::<CFB, 6, ODD>(k, rounds, last, p),
            _ => decrypt_registers_vaes256::<CFB, 7, ODD>(k, rounds, last, p),
        }
    }
}

/// Registers in one VAES-256 group (twelve in long calls' first groups, see
/// `WIDE_GROUPS_FROM`).
const GROUP_REGISTERS: usize = 8;

/// Decrypts the R registers (2R blocks) at `p` in place; `last` holds the ciphertext
/// before them in its high lane, and the last of them afterwards.
///
/// What the last round folds in is read again from memory when it is needed (CBC's
/// previous-ciphertext pairs `[C_{2i-1}, C_{2i}]` as one unaligned load at `p - 16 + 32i`,
/// taken before the store that overwrites it) rather than kept from the first loads: R
/// loaded registers, R shifted copies and R states are more than AVX2's 16 registers, and
/// the compiler spilled them (Zen 4: CBC 256 B at 0.20 c/B against libgcrypt's 0.16).
#[target_feature(enable = "aes,sse2,avx2,vaes")]
#[inline]
unsafe fn decrypt_registers_vaes256<const CFB: bool, const R: usize, const ODD: bool>(
    k: &[__m256i; 15],
    rounds: usize,
    last: &mut __m256i,
    p: *mut u8,
) {
    // (Written out, not as closures: closures here were left out of line with their
    // intrinsics in builds without LTO.)
    // SAFETY: the caller hands R registers at `p`; every access below is within them (the
    // unaligned pair loads at `p - 16 + 32i` are taken for i ≥ 1 only).
    unsafe {
        let first_pair = _mm256_permute2x128_si256(*last, _mm256_loadu_si256(p.cast()), 0x21);
        let mut x = [_mm256_setzero_si256(); R];
        for (i, v) in x.iter_mut().enumerate() {
            let c = _mm256_loadu_si256(p.add(32 * i).cast());
            // CFB's input pairs: in whole groups (the bulk of a message) one unaligned
            // load each; in a shorter tail shifted out of whole-register loads, because a
            // short buffer in a loop was just written by the caller and an unaligned load
            // straddling two of its stores waits for them (Zen 4: CFB 64 B 0.61 → 0.69
            // c/B), while at 16 KiB the shifts cost 0.12 → 0.13. The CBC folds below are
            // read late, off the critical path.
            let input = if !CFB {
                c
            } else if i == 0 {
                first_pair
            } else if R >= GROUP_REGISTERS {
                _mm256_loadu_si256(p.add(32 * i - 16).cast())
            } else {
                _mm256_permute2x128_si256(_mm256_loadu_si256(p.add(32 * i - 32).cast()), c, 0x21)
            };
            *v = _mm256_xor_si256(input, k[0]);
        }
        // What the last round folds in: CBC the previous ciphertext, CFB the block itself.
        let mut next = if CFB {
            _mm256_loadu_si256(p.cast())
        } else {
            first_pair
        };
        let mut odd = OddBlock::<CFB, ODD>::new(p.add(32 * R), _mm256_castsi256_si128(k[0]));
        for kr in &k[1..rounds] {
            x = x.map(|v| {
                if CFB {
                    _mm256_aesenc_epi128(v, *kr)
                } else {
                    _mm256_aesdec_epi128(v, *kr)
                }
            });
            odd.round(_mm256_castsi256_si128(*kr));
        }
        let odd_c = odd.finish(_mm256_castsi256_si128(k[rounds]));
        for (i, v) in x.iter().enumerate() {
            let kf = _mm256_xor_si256(k[rounds], next);
            // Read before register i is overwritten: the next CBC fold overlaps it, and
            // the last register is the next group's previous ciphertext.
            if i + 1 < R {
                let at = if CFB { 32 * (i + 1) } else { 32 * i + 16 };
                next = _mm256_loadu_si256(p.add(at).cast());
            } else {
                *last = _mm256_loadu_si256(p.add(32 * i).cast());
            }
            let out = if CFB {
                _mm256_aesenclast_epi128(*v, kf)
            } else {
                _mm256_aesdeclast_epi128(*v, kf)
            };
            _mm256_storeu_si256(p.add(32 * i).cast(), out);
        }
        if ODD {
            *last = _mm256_broadcastsi128_si256(odd_c);
        }
    }
}

/// Single-stream CBC or full-block CFB decryption on AES-NI, eight blocks per group, the
/// XOR with the previous ciphertext folded into the last round key. A tail under one
/// group runs as one group of just its blocks, in place (CFB's partial last block, if
/// any, goes through the generic path).
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn stream_decrypt_aesni<const CFB: bool>(
    aes: &AesX86,
    prev: &mut [u8],
    data: &mut [u8],
) {
    let rounds = aes.rounds;
    let k = (if CFB { &aes.enc } else { aes.dec() }).v128();
    // SAFETY: `prev` is one 16-byte block (the caller checked).
    let mut last = unsafe { _mm_loadu_si128(prev.as_ptr().cast()) };
    let len = data.len();
    let (wide, data) = wide_part(data, WIDE_GROUPS_FROM, 192);
    for (n, g) in wide.chunks_exact_mut(192).enumerate() {
        let p = g.as_mut_ptr();
        prefetch_ahead::<3>(p, len - 192 * n);
        // SAFETY: `g` is twelve blocks.
        unsafe { decrypt_blocks_aesni::<CFB, 12>(k, rounds, &mut last, p) };
    }
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
    // SAFETY: as above.
    unsafe { _mm_storeu_si128(prev.as_mut_ptr().cast(), last) };
    let blocks_end = tail.len() / 16 * 16;
    let partial = &mut tail[blocks_end..];
    if CFB && !partial.is_empty() {
        crate::cipher::cfb_decrypt_by_slabs(aes, prev, partial);
    }
}

/// Full-block CFB or CBC decryption of one to four whole blocks (one stream), at every level:
/// [`decrypt_blocks_aesni`] with the rounds unrolled for the key size, the data loaded
/// whole, the new chain block stored back as one 16-byte store (so the next call's load is
/// forwarded from it). Through [`stream_decrypt_aesni`] a short call paid its group loops'
/// set-up (two divisions by multiplication, a jump table, six register saves) and its
/// rounds as a loop over the key schedule, on the path from one call's ciphertext to the
/// call after next's keystream. Xeon family 6 model 167 under `BITWEAVE_CPU=avx2`
/// (2026-12-05), TSC c/B, best of three alternating runs (vs libgcrypt in the same runs):
/// AES-128 16 B 1.42 → 1.05 (1.03× → 1.39×), 32 B 0.76 → 0.58, 64 B 0.42 → 0.35; AES-256
/// 16 B 1.75 → 1.12 (0.84× → 1.31×), 32 B 0.88 → 0.72, 64 B level (0.45-0.47). AMD not
/// measured (it ran the VAES kernels here). CBC decryption (`CFB` false, the decryption
/// keys) takes it once its keys are derived: see `FRESH_ALWAYS_MAX` for when that is and
/// what it gained.
///
/// # Safety
/// The CPU has AES-NI, `prev` is one block and `data` one to four whole blocks.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn decrypt_few<const CFB: bool>(aes: &AesX86, prev: &mut [u8], data: &mut [u8]) {
    /// `R` blocks with the round count a constant in each arm, so the rounds unroll.
    #[target_feature(enable = "aes,sse2")]
    #[inline]
    unsafe fn blocks<const CFB: bool, const R: usize>(
        k: &[__m128i; 15],
        rounds: usize,
        last: &mut __m128i,
        p: *mut u8,
    ) {
        // SAFETY: the caller hands R blocks at `p`.
        unsafe {
            match rounds {
                10 => decrypt_blocks_aesni::<CFB, R>(k, 10, last, p),
                12 => decrypt_blocks_aesni::<CFB, R>(k, 12, last, p),
                _ => decrypt_blocks_aesni::<CFB, R>(k, 14, last, p),
            }
        }
    }
    debug_assert!(prev.len() == 16 && data.len().is_multiple_of(16) && data.len() <= 64);
    let k = (if CFB { &aes.enc } else { aes.dec() }).v128();
    let (rounds, p) = (aes.rounds, data.as_mut_ptr());
    // SAFETY: `prev` is one block; each arm reads and writes `data`'s whole blocks.
    unsafe {
        let mut last = _mm_loadu_si128(prev.as_ptr().cast());
        match data.len() / 16 {
            1 => blocks::<CFB, 1>(k, rounds, &mut last, p),
            2 => blocks::<CFB, 2>(k, rounds, &mut last, p),
            3 => blocks::<CFB, 3>(k, rounds, &mut last, p),
            _ => blocks::<CFB, 4>(k, rounds, &mut last, p),
        }
        _mm_storeu_si128(prev.as_mut_ptr().cast(), last);
    }
}

/// Decryption of one to four whole blocks, ECB or single-stream CBC, on a context whose
/// decryption keys are not derived yet (a fresh key's first small call): the rounds take
/// the encryption keys through `AESIMC` as they go, so the call neither allocates, fills
/// nor (on drop) wipes the equivalent inverse cipher's schedule. The `AESIMC`s wait on
/// keys only, so they run beside the blocks' round chain, which a few blocks leave idle.
/// CBC (`prev` given) chains from `prev` and leaves the last ciphertext block there. The
/// caller has checked `data` is one to four blocks, and `prev` one block.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn decrypt_fresh_aesni(aes: &AesX86, prev: Option<&mut [u8]>, data: &mut [u8]) {
    let (k, rounds) = aes.encryption_keys();
    let p = data.as_mut_ptr();
    let blocks = data.len() / 16;
    let cbc = prev.is_some();
    let mut last = match &prev {
        // SAFETY: `prev` is one 16-byte block (the caller checked).
        Some(prev) => unsafe { _mm_loadu_si128(prev.as_ptr().cast()) },
        None => _mm_setzero_si128(),
    };
    // SAFETY: each arm reads and writes `data`'s blocks only (one to four, the caller
    // checked).
    unsafe {
        match blocks {
            1 => decrypt_fresh_blocks::<1>(k, rounds, cbc, &mut last, p),
            2 => decrypt_fresh_blocks::<2>(k, rounds, cbc, &mut last, p),
            3 => decrypt_fresh_blocks::<3>(k, rounds, cbc, &mut last, p),
            _ => decrypt_fresh_blocks::<4>(k, rounds, cbc, &mut last, p),
        }
    }
    if let Some(prev) = prev {
        // SAFETY: as above.
        unsafe { _mm_storeu_si128(prev.as_mut_ptr().cast(), last) };
    }
}

/// Decrypts the R blocks at `p` in place from the encryption keys `k` (see
/// [`decrypt_fresh_aesni`]); with `cbc` (public: the mode), `last` is the ciphertext block
/// before them, and the last of them afterwards.
#[target_feature(enable = "aes,sse2")]
#[inline]
unsafe fn decrypt_fresh_blocks<const R: usize>(
    k: &[__m128i; 15],
    rounds: usize,
    cbc: bool,
    last: &mut __m128i,
    p: *mut u8,
) {
    let mut c = [_mm_setzero_si128(); R];
    let mut x = [_mm_setzero_si128(); R];
    for i in 0..R {
        // SAFETY: the caller hands R blocks at `p`.
        c[i] = unsafe { _mm_loadu_si128(p.add(16 * i).cast()) };
        x[i] = _mm_xor_si128(c[i], k[rounds]);
    }
    for r in (1..rounds).rev() {
        let d = _mm_aesimc_si128(k[r]);
        for v in &mut x {
            *v = _mm_aesdec_si128(*v, d);
        }
    }
    for i in 0..R {
        let behind = if i == 0 { *last } else { c[i - 1] };
        let kf = if cbc {
            _mm_xor_si128(k[0], behind)
        } else {
            k[0]
        };
        // SAFETY: as above.
        unsafe { _mm_storeu_si128(p.add(16 * i).cast(), _mm_aesdeclast_si128(x[i], kf)) };
    }
    *last = c[R - 1];
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
pub(super) unsafe fn decrypt_rows_vaes512<const CFB: bool>(
    aes: &AesX86,
    prev: &mut [u8],
    data: &mut [u8],
) {
    // SAFETY: the features are present and `data` is whole rows of `prev.len()` bytes, a
    // multiple of 64 and at least one row (the caller checked both, `whole_rows_of_registers`).
    // Every 64-byte access starts at `a <= len - 64`; the previous row of byte `o` is at
    // `o - row` in `data` when `o >= row`, else in `prev` (whole when `o + 64 <= row`, else
    // assembled in `t` from both sides).
    unsafe {
        let (row, len) = (prev.len(), data.len());
        debug_assert!(len.is_multiple_of(row) && len.is_multiple_of(64) && len >= row);
        let rounds = aes.rounds;
        let keys = if CFB { &aes.enc } else { aes.dec() };
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
}

/// Whether `data` is whole rows of `prev.len()` bytes and whole 64-byte registers, the
/// shape [`decrypt_rows_vaes512`] takes.
pub(super) fn whole_rows_of_registers(prev: &[u8], data: &[u8]) -> bool {
    !data.is_empty() && data.len().is_multiple_of(prev.len()) && data.len().is_multiple_of(64)
}

#[cfg(test)]
mod tests {
    use super::super::Level;
    use super::*;

    /// The VAES-512 single-stream decryption kernel gives AES-NI's plaintext and next
    /// chaining block, CBC and CFB, for lengths through three groups (partial registers,
    /// and CFB's partial last block) and one long message.
    /// A single-stream decryption kernel: (cipher, chaining block, data).
    type StreamFn = unsafe fn(&AesX86, &mut [u8], &mut [u8]);

    /// Each mode's reference and VAES-512 kernel.
    const KERNELS: [(&str, StreamFn, StreamFn); 2] = [
        (
            "cbc",
            stream_decrypt_aesni::<false>,
            stream_decrypt_vaes512::<false>,
        ),
        (
            "cfb",
            stream_decrypt_aesni::<true>,
            stream_decrypt_vaes512::<true>,
        ),
    ];

    #[test]
    fn vaes512_stream_decryption_matches_aesni() {
        if !Level::Vaes512.available() {
            eprintln!("SKIPPED: no VAES-512 on this CPU; stream_decrypt_vaes512 did not run");
            return;
        }
        let lens = (0..=1600usize)
            .step_by(16)
            .chain([5, 250, 1031, 16384 + 16]);
        for key_len in [16, 24, 32] {
            let key: Vec<u8> = (0..key_len as u8)
                .map(|b| b.wrapping_mul(53) ^ 0x3c)
                .collect();
            let aes = AesX86::new_shared(&key, Level::Vaes512).expect("VAES-512");
            for len in lens.clone() {
                let data: Vec<u8> = (0..len).map(|i| (i * 13 + 7) as u8).collect();
                let iv: Vec<u8> = (0..16u8).map(|b| b ^ 0x9e).collect();
                for (mode, aesni, vaes512) in KERNELS {
                    if mode == "cbc" && !len.is_multiple_of(16) {
                        continue;
                    }
                    let (mut want, mut want_prev) = (data.clone(), iv.clone());
                    // SAFETY: AES-NI is present (VAES-512 implies it).
                    unsafe { aesni(&aes, &mut want_prev, &mut want) };
                    let (mut got, mut prev) = (data.clone(), iv.clone());
                    // SAFETY: VAES-512 is present (checked above).
                    unsafe { vaes512(&aes, &mut prev, &mut got) };
                    assert!(
                        got == want && prev == want_prev,
                        "aes-{} {mode} decryption, vaes512 (stream_decrypt_vaes512): {len} bytes",
                        8 * key_len,
                    );
                }
            }
        }
    }
}
