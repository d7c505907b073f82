//! Independent blocks (ECB, and the batch path of every mode): groups of eight
//! registers, then the remaining registers as one group, then single blocks.

use core::arch::x86_64::*;

use super::{block_aesni, wide_part, RoundKeys, WIDE_GROUPS_FROM};
use crate::cipher::prefetch_ahead;

/// Defines a batch function: groups of `$wide` registers from `$wide_from` bytes (see
/// `WIDE_GROUPS_FROM`), then groups of eight registers of `$lanes` blocks each, then the
/// remaining registers as one group, then single blocks on AES-NI.
macro_rules! batch_fn {
    ($name:ident, $features:literal, $vec:ty, $lanes:literal, wide: ($wide:literal, $wide_from:expr),
     $load:ident, $store:ident, $keys:expr, $xor:ident, $enc:ident, $enclast:ident, $dec:ident, $declast:ident) => {
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<const DEC: bool>(
            keys: &RoundKeys,
            rounds: usize,
            blocks: &mut [u8],
        ) {
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
            const WIDE: usize = $wide;
            let len = blocks.len();
            let (wide, blocks) = wide_part(blocks, $wide_from, WIDE * REG);
            for (n, g) in wide.chunks_exact_mut(WIDE * REG).enumerate() {
                let p = g.as_mut_ptr();
                prefetch_ahead::<{ WIDE * REG / 64 }>(p, len - n * WIDE * REG);
                // SAFETY: `g` holds WIDE registers; this fn's features are `in_step`'s.
                unsafe { in_step::<WIDE, DEC>(&k, rounds, p) };
            }
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
            // SAFETY: this fn's features are `tail`'s; `regs` holds exactly `nregs`
            // registers (under eight: the groups took the rest).
            unsafe {
                match nregs {
                    0 => {}
                    1 => in_step::<1, DEC>(&k, rounds, p),
                    2 => in_step::<2, DEC>(&k, rounds, p),
                    3 => in_step::<3, DEC>(&k, rounds, p),
                    4 => in_step::<4, DEC>(&k, rounds, p),
                    5 => in_step::<5, DEC>(&k, rounds, p),
                    6 => in_step::<6, DEC>(&k, rounds, p),
                    _ => in_step::<7, DEC>(&k, rounds, p),
                }
            }
            /// R registers at `p` through every round, in step: the wide groups and the
            /// tail.
            #[target_feature(enable = $features)]
            unsafe fn in_step<const R: usize, const DEC: bool>(
                k: &[$vec; 15],
                rounds: usize,
                p: *mut u8,
            ) {
                let mut s: [$vec; R] = core::array::from_fn(|i| {
                    // SAFETY: the caller holds R registers at `p`.
                    $xor(unsafe { $load(p.add(i * REG).cast()) }, k[0])
                });
                for kr in &k[1..rounds] {
                    s = s.map(|x| if DEC { $dec(x, *kr) } else { $enc(x, *kr) });
                }
                for (i, x) in s.into_iter().enumerate() {
                    let y = if DEC {
                        $declast(x, k[rounds])
                    } else {
                        $enclast(x, k[rounds])
                    };
                    // SAFETY: as above.
                    unsafe { $store(p.add(i * REG).cast(), y) };
                }
            }
            for b in singles.chunks_exact_mut(16) {
                // SAFETY: `b` is one whole 16-byte block.
                unsafe {
                    let x = _mm_loadu_si128(b.as_ptr().cast());
                    _mm_storeu_si128(b.as_mut_ptr().cast(), block_aesni::<DEC>(&k128, rounds, x));
                }
            }
        }
    };
}

batch_fn!(
    crypt_aesni,
    "aes,sse2",
    __m128i,
    1,
    wide: (12, WIDE_GROUPS_FROM),
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
    wide: (12, WIDE_GROUPS_FROM),
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
    wide: (8, usize::MAX),
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    |k: &RoundKeys| k.v128().map(|x| _mm512_broadcast_i32x4(x)),
    _mm512_xor_si512,
    _mm512_aesenc_epi128,
    _mm512_aesenclast_epi128,
    _mm512_aesdec_epi128,
    _mm512_aesdeclast_epi128
);

/// Two to seven blocks on AES-NI, all in step, with the round count a constant so the
/// rounds unroll: the batches up to `AESNI_MAX_BATCH` at every level (`AesX86::crypt`).
/// [`crypt_aesni`]'s tail runs the rounds as a loop over the key schedule. Xeon family 6
/// model 167 (2026-12-06, default tier, ECB, TSC c/B, best of three to five alternating
/// runs, loop → unrolled): AES-128 encryption 48 B 0.532 → 0.478, 64 B 0.419 → 0.373,
/// 112 B 0.271 → 0.251, decryption 64 B 0.430 → 0.378; AES-192 64 B 0.441 → 0.433,
/// decryption 0.452 → 0.436; AES-256 96 B 0.368 → 0.354, but 64 B 0.487 → 0.500
/// (`AesX86::unrolled_batch` keeps the loop there). AMD not measured.
///
/// # Safety
/// The CPU has AES-NI; `blocks` is two to seven whole blocks.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn few_aesni<const DEC: bool>(
    keys: &RoundKeys,
    rounds: usize,
    blocks: &mut [u8],
) {
    #[target_feature(enable = "aes,sse2")]
    #[inline]
    unsafe fn sized<const DEC: bool, const ROUNDS: usize>(k: &[__m128i; 15], blocks: &mut [u8]) {
        let p = blocks.as_mut_ptr();
        // SAFETY: each arm covers `blocks`' whole blocks (two to seven).
        unsafe {
            match blocks.len() / 16 {
                2 => in_step::<DEC, ROUNDS, 2>(k, p),
                3 => in_step::<DEC, ROUNDS, 3>(k, p),
                4 => in_step::<DEC, ROUNDS, 4>(k, p),
                5 => in_step::<DEC, ROUNDS, 5>(k, p),
                6 => in_step::<DEC, ROUNDS, 6>(k, p),
                _ => in_step::<DEC, ROUNDS, 7>(k, p),
            }
        }
    }
    #[target_feature(enable = "aes,sse2")]
    #[inline]
    unsafe fn in_step<const DEC: bool, const ROUNDS: usize, const R: usize>(
        k: &[__m128i; 15],
        p: *mut u8,
    ) {
        let mut s: [__m128i; R] = core::array::from_fn(|i| {
            // SAFETY: the caller holds R blocks at `p`.
            _mm_xor_si128(unsafe { _mm_loadu_si128(p.add(16 * i).cast()) }, k[0])
        });
        for kr in &k[1..ROUNDS] {
            s = s.map(|x| {
                if DEC {
                    _mm_aesdec_si128(x, *kr)
                } else {
                    _mm_aesenc_si128(x, *kr)
                }
            });
        }
        for (i, x) in s.into_iter().enumerate() {
            let y = if DEC {
                _mm_aesdeclast_si128(x, k[ROUNDS])
            } else {
                _mm_aesenclast_si128(x, k[ROUNDS])
            };
            // SAFETY: as above.
            unsafe { _mm_storeu_si128(p.add(16 * i).cast(), y) };
        }
    }
    let k = keys.v128();
    // SAFETY: this fn's features; `blocks` two to seven whole blocks (the caller's).
    unsafe {
        match rounds {
            10 => sized::<DEC, 10>(k, blocks),
            12 => sized::<DEC, 12>(k, blocks),
            _ => sized::<DEC, 14>(k, blocks),
        }
    }
}
