//! AES-GCM's bulk on the AES-NI tier in one pass: each group of eight counter blocks
//! runs its AES rounds interleaved with the GHASH of eight ciphertext blocks (the
//! previous group's when encrypting, the group's own when decrypting), so the AES units
//! and the carry-less multiplier work at the same time. Run one after the other (AES-CTR
//! over a piece, then `clmul128` over it) the two cost their sum.
//!
//! The counter is GCM's: the block's last 32 bits, big-endian. A message is at most
//! 2^32 - 2 blocks and its first data block has count 2, so the count never wraps and
//! adding to that 32-bit lane is the whole increment (no carry to handle).
//!
//! **Constant-time**: the AES and carry-less multiply instructions run in
//! data-independent time, and no branch or address depends on the key, the counter or
//! the data (only on the length).
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::clmul::{fold_group, karatsuba_mid, product_into, reduce};
use super::field::AGGREGATE;
use crate::cipher::aes::x86::{in_order, AesX86};
use crate::cpu::Feature;

/// Bytes per group: eight blocks, one GHASH reduction.
pub const GROUP: usize = 16 * AGGREGATE;

/// Which way the data goes; the hash always reads the ciphertext.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

/// The features [`crypt_groups`] needs.
pub const FEATURES: [Feature; 4] = [
    Feature::Aes,
    Feature::Pclmulqdq,
    Feature::Ssse3,
    Feature::Sse41,
];

/// En- or decrypts the whole groups at the start of `data` in GCM's counter mode from
/// `counter` (the next counter block, advanced past them) and folds their ciphertext into
/// the hash `y` (`powers` = H^1..H^8). Returns how many bytes it did: the rest, under a
/// group, is the caller's. Panics if this CPU lacks [`FEATURES`].
pub fn crypt_groups(
    aes: &AesX86,
    powers: &[u128; AGGREGATE],
    counter: &mut [u8; 16],
    y: &mut u128,
    data: &mut [u8],
    direction: Direction,
) -> usize {
    assert!(crate::cpu::has_all(&FEATURES));
    let whole = data.len() / GROUP * GROUP;
    if whole > 0 {
        let (keys, rounds) = aes.encryption_keys();
        // SAFETY: the features were just checked.
        unsafe {
            kernel(
                keys,
                rounds,
                powers,
                counter,
                y,
                &mut data[..whole],
                direction,
            )
        };
    }
    whole
}

/// [`crypt_groups`]' kernel over whole groups.
///
/// # Safety
/// The CPU must have [`FEATURES`].
#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3,sse4.1")]
unsafe fn kernel(
    k: &[__m128i; 15],
    rounds: usize,
    powers: &[u128; AGGREGATE],
    counter: &mut [u8; 16],
    y: &mut u128,
    data: &mut [u8],
    direction: Direction,
) {
    assert!((10..=14).contains(&rounds) && data.len().is_multiple_of(GROUP));
    // Swaps the count's four bytes (an involution): a counter block ↔ the same block with
    // its count as a little-endian 32-bit lane (lane 3).
    let swap32 = _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    // Reverses all sixteen bytes: a ciphertext block ↔ GHASH's integer (see `field`).
    let reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let lane3 = |n: i32| _mm_set_epi32(n, 0, 0, 0);
    // SAFETY: 16 readable bytes each; a u128's lanes are in little-endian order.
    let (mut count, mut acc) = unsafe {
        (
            _mm_shuffle_epi8(_mm_loadu_si128(counter.as_ptr().cast()), swap32),
            _mm_loadu_si128((y as *const u128).cast()),
        )
    };
    let groups = data.len() / GROUP;
    let p = data.as_mut_ptr();
    for g in 0..groups {
        // SAFETY: group g is whole inside `data`.
        let here = unsafe { p.add(GROUP * g) };
        // The ciphertext this group hashes: the group's own before it is decrypted, or
        // the previous group's just encrypted (none for the first group).
        let hashed = match direction {
            Direction::Decrypt => Some(here.cast_const()),
            // SAFETY: g > 0, so group g - 1 is inside `data`.
            Direction::Encrypt => (g > 0).then(|| unsafe { here.sub(GROUP).cast_const() }),
        };
        let mut x: [__m128i; 8] = core::array::from_fn(|i| {
            let block = _mm_shuffle_epi8(_mm_add_epi32(count, lane3(i as i32)), swap32);
            _mm_xor_si128(block, k[0])
        });
        count = _mm_add_epi32(count, lane3(8));
        match hashed {
            Some(c) => {
                // SAFETY: block i < 8 of a whole group; power 7 - i < AGGREGATE.
                let block = |i: usize| unsafe {
                    _mm_shuffle_epi8(_mm_loadu_si128(c.add(16 * i).cast()), reverse)
                };
                // SAFETY: as above.
                let power =
                    |i: usize| unsafe { _mm_loadu_si128(powers.as_ptr().add(7 - i).cast()) };
                let (mut lo, mut mid, mut hi) = (
                    _mm_setzero_si128(),
                    _mm_setzero_si128(),
                    _mm_setzero_si128(),
                );
                // Blocks 1..7 beside rounds 1..7; block 0 carries the running hash, so
                // its product comes last and only it and the reduction wait for the
                // previous group's. Each round's barrier also passes the block the next
                // round multiplies, so no multiply can move ahead of the round before it.
                let mut next = block(1);
                #[allow(clippy::needless_range_loop)] // `r` indexes the keys and the blocks
                for r in 1..8 {
                    x = x.map(|v| _mm_aesenc_si128(v, k[r]));
                    let this = next;
                    next = if r < 7 {
                        block(r + 1)
                    } else {
                        _mm_xor_si128(block(0), acc)
                    };
                    product_into(this, power(r), &mut lo, &mut mid, &mut hi);
                    in_order_with(&mut x, &mut next);
                }
                x = x.map(|v| _mm_aesenc_si128(v, k[8]));
                product_into(next, power(0), &mut lo, &mut mid, &mut hi);
                in_order(&mut x);
                acc = reduce(lo, karatsuba_mid(lo, mid, hi), hi);
            }
            None => {
                for kr in &k[1..9] {
                    x = x.map(|v| _mm_aesenc_si128(v, *kr));
                }
            }
        }
        for kr in &k[9..rounds] {
            x = x.map(|v| _mm_aesenc_si128(v, *kr));
        }
        for (i, v) in x.iter().enumerate() {
            // SAFETY: block i < 8 of group g, inside `data`.
            unsafe {
                let at = here.add(16 * i);
                let d = _mm_loadu_si128(at.cast());
                // The data folded into the last round key: AESENCLAST XORs it in.
                let out = _mm_aesenclast_si128(*v, _mm_xor_si128(k[rounds], d));
                _mm_storeu_si128(at.cast(), out);
            }
        }
    }
    if direction == Direction::Encrypt {
        // The last group's ciphertext, which no later group hashed.
        let last = &data[data.len() - GROUP..];
        acc = fold_group(acc, last, AGGREGATE, powers, reverse);
    }
    // SAFETY: as the loads above.
    unsafe {
        _mm_storeu_si128(counter.as_mut_ptr().cast(), _mm_shuffle_epi8(count, swap32));
        _mm_storeu_si128((y as *mut u128).cast(), acc);
    }
}

/// [`in_order`] on the eight AES states and one more register: the block the next
/// round's multiplies take, so that they cannot move above this round (with the states
/// alone LLVM hoisted all 24 multiplies of a group above the rounds; figures at
/// [`in_order`]).
#[inline(always)]
fn in_order_with(x: &mut [__m128i; 8], next: &mut __m128i) {
    crate::cipher::in_order_8!(xmm_reg, x, next);
}
