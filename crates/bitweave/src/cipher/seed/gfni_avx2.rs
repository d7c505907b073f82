//! `gfni128-avx2` (SEED): [`super::gfni`]'s one-block kernel for CPUs with GFNI and AVX2
//! but no AVX-512 (Intel's client cores from Alder Lake on, its Sierra Forest E-core
//! Xeons). The same G, with the four terms and the constant XORed by three `vpxor`
//! instead of two `vpternlogd`: the early pair with the constant while the late pair
//! arrives, so the late terms are two steps from G's output (one with `vpternlogd`).
//!
//! Without it these CPUs ran a serial SEED chain on `gfni256`'s batch kernel with one
//! block in its lanes. Xeon family 6 model 167 under `BITWEAVE_CPU=avx2-gfni`
//! (2026-12-05), CBC encryption 16 KiB: 41.5 → 29.9 TSC c/B, 0.66× → 0.90× OpenSSL
//! (`gfni128` 25.8-27.9 on the same core with AVX-512VL).
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::gfni::{g_term, to_aes, Consts, V};
use super::single::one_block_kernel;
use crate::cpu::Feature;

one_block_kernel!(
    KERNEL,
    "gfni128-avx2",
    "gfni,avx2",
    &[Feature::Gfni, Feature::Avx2],
    Consts,
    g,
    in_step = 4
);

/// G on a broadcast word ([`super::gfni`]'s terms, XORed with plain XORs).
#[inline]
#[target_feature(enable = "gfni,avx2")]
fn g(x: V, c: &Consts) -> V {
    let t = to_aes(x, c);
    let early = _mm_xor_si128(_mm_xor_si128(g_term(t, c, 0), g_term(t, c, 1)), c.fix);
    _mm_xor_si128(early, _mm_xor_si128(g_term(t, c, 2), g_term(t, c, 3)))
}
