//! `pmull`: GHASH on ARM64's 64-bit carry-less multiply (PMULL, which comes with the
//! crypto extension's AES feature), eight blocks per reduction as `clmul128` does on x86:
//! blocks multiplied by H^8..H^1, Karatsuba's three products each, their 256-bit sum
//! reduced once. The powers are kept divided by x (`field::X_INVERSE`), so the sum needs
//! no shift before [`reduce`]. The sums and the reduction are plain `u128` arithmetic:
//! the multiplies are the work.
//!
//! **Constant-time**: PMULL runs in data-independent time, and the rest is XORs and shifts
//! by constants; no branch or address depends on H or the data.
#![allow(unsafe_code)]

use core::arch::aarch64::vmull_p64;

use super::field::{reduce, AGGREGATE};
use crate::cpu::Feature;

/// Folds the whole blocks of `blocks` into `y`: y = (…((y ⊕ X_1)·H ⊕ X_2)·H …)·H
/// (`powers` = H^1..H^8 divided by x). Panics if this CPU lacks PMULL (a
/// [`super::GhashKey`] on this backend is only made after checking, so this never fires).
pub fn update(powers: &[u128; AGGREGATE], y: &mut u128, blocks: &[u8]) {
    assert!(crate::cpu::has(Feature::ArmAes));
    // SAFETY: the feature was just checked.
    unsafe { update_blocks(powers, y, blocks) }
}

/// [`update`]'s kernel: whole groups of eight, then the rest (fewer than eight) as one
/// shorter group with H^n..H^1, one reduction either way (a trailing partial block, which
/// `GhashKey` never passes, is ignored).
///
/// # Safety
/// The CPU must have PMULL (the `aes` feature).
#[target_feature(enable = "neon,aes")]
unsafe fn update_blocks(powers: &[u128; AGGREGATE], y: &mut u128, blocks: &[u8]) {
    let mut groups = blocks.chunks_exact(16 * AGGREGATE);
    for group in &mut groups {
        *y = fold_group(*y, group, AGGREGATE, powers);
    }
    let n = groups.remainder().len() / 16;
    if n > 0 {
        *y = fold_group(*y, groups.remainder(), n, powers);
    }
}

/// (acc ⊕ X_1)·H^n ⊕ X_2·H^(n-1) ⊕ … ⊕ X_n·H, reduced: the first `n` blocks of `group`.
#[target_feature(enable = "neon,aes")]
#[inline]
fn fold_group(acc: u128, group: &[u8], n: usize, powers: &[u128; AGGREGATE]) -> u128 {
    assert!(n <= AGGREGATE && group.len() >= 16 * n);
    let (mut lo, mut mid, mut hi) = (0u128, 0u128, 0u128);
    for (i, block) in group.chunks_exact(16).take(n).enumerate() {
        let mut x = u128::from_be_bytes(block.try_into().expect("16 bytes"));
        if i == 0 {
            // The running hash belongs with the group's first block.
            x ^= acc;
        }
        let h = powers[n - 1 - i];
        let (x0, x1) = (x as u64, (x >> 64) as u64);
        let (h0, h1) = (h as u64, (h >> 64) as u64);
        lo ^= vmull_p64(x0, h0);
        hi ^= vmull_p64(x1, h1);
        mid ^= vmull_p64(x0 ^ x1, h0 ^ h1);
    }
    // Karatsuba: the middle product less the outer ones is the cross terms.
    mid ^= lo ^ hi;
    reduce(hi ^ (mid >> 64), lo ^ (mid << 64))
}
