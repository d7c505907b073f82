//! The whole-step kernel ([`super::wide`]) on plain words, two blocks per batch: the
//! `portable` backend's path for a message's full blocks, on every architecture.
//!
//! What it brings over running the scalar π block by block ([`super::lanes::pi_single`]):
//! the kernel's exact savings — ν of the capacity chunks once per call, the second π of a
//! block reusing the first's capacity ν images, and μ/ν constants folded into offsets, so
//! most μ/ν halves skip their four constant additions (64-bit constants are two
//! instructions each on x86-64). The data path is the same plain ARX on words, so it is as
//! constant-time as the scalar π: no branch or address depends on a word's value.
//!
//! Measured (AMD EPYC Zen 3, 2026-11-28, 16 KiB, one message, encrypt, TSC c/B, best of
//! 4-10 alternating runs on a noisy shared VM): π64 / π32 / π16 7.96 / 15.99 / 28.3 block
//! by block, 6.08 / 11.70 / 26.98 on this kernel one block per batch, 4.84-6.69 / 9.82-11.87
//! / 21.98-25.57 two per batch (never worse than one in the same run, though within the
//! noise on π16).
#![allow(unsafe_code)]

use core::marker::PhantomData;

use super::engine::{Blocks, WholeSteps, ABSORB, DECRYPT, ENCRYPT};
use super::layout::STATE_WORDS;
use super::wide::{blocks, Isa, Kernel, Offsets};
use super::word::{limbs, Word};

/// `L` blocks side by side as plain words: a "register" is one word of each block, so a
/// batch is `L` blocks whose π chains the CPU overlaps (one block's π is a long dependency
/// chain; alone it leaves most of the integer units idle).
pub struct Scalar<W, const L: usize>(PhantomData<W>);

/// `f` on each lane, written out for the small `L` used here.
#[inline(always)]
fn map<W: Word, const L: usize>(f: impl Fn(usize) -> W) -> [W; L] {
    core::array::from_fn(f)
}

// Every method below is plain arithmetic on words: the `Isa` contract's CPU features are
// none, and `load`/`store` read and write `L * W::BYTES` bytes at a pointer the caller
// vouches for (`wide::blocks` hands only in-bounds ones).
impl<W: Word, const L: usize> Isa for Scalar<W, L> {
    type V = [W; L];
    const BYTES: usize = L * W::BYTES;
    #[inline(always)]
    unsafe fn zero() -> [W; L] {
        [W::default(); L]
    }
    #[inline(always)]
    unsafe fn xor(a: [W; L], b: [W; L]) -> [W; L] {
        map(|l| a[l].xor(b[l]))
    }
    #[inline(always)]
    unsafe fn xor3(a: [W; L], b: [W; L], c: [W; L]) -> [W; L] {
        map(|l| a[l].xor(b[l]).xor(c[l]))
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> [W; L] {
        // SAFETY: `p` is valid for `BYTES` = `L * W::BYTES` readable bytes (the `Isa`
        // contract).
        let b = unsafe { core::slice::from_raw_parts(p, Self::BYTES) };
        map(|l| W::load_le(&b[l * W::BYTES..]))
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: [W; L]) {
        // SAFETY: `p` is valid for `L * W::BYTES` writable bytes (the `Isa` contract).
        let b = unsafe { core::slice::from_raw_parts_mut(p, Self::BYTES) };
        for (l, w) in v.into_iter().enumerate() {
            w.store_le(&mut b[l * W::BYTES..]);
        }
    }
}

impl<W: Word, const L: usize> Kernel<W> for Scalar<W, L> {
    const L: usize = L;
    #[inline(always)]
    unsafe fn splat(w: W) -> [W; L] {
        [w; L]
    }
    #[inline(always)]
    unsafe fn add(a: [W; L], b: [W; L]) -> [W; L] {
        map(|l| a[l].add(b[l]))
    }
    #[inline(always)]
    unsafe fn rot_mu(s: [[W; L]; 4]) -> [[W; L]; 4] {
        let r = W::R_MU;
        core::array::from_fn(|k| map(|l| s[k][l].rotl(r[k])))
    }
    #[inline(always)]
    unsafe fn rot_nu(s: [[W; L]; 4]) -> [[W; L]; 4] {
        let r = W::R_NU;
        core::array::from_fn(|k| map(|l| s[k][l].rotl(r[k])))
    }
    /// Memory order is block after block, `L` words per register: word `j` of block `l` is
    /// flat word `8l + j`. Sliced, register `j` holds word `j` of every block.
    #[inline(always)]
    unsafe fn to_sliced(r: [[W; L]; 8]) -> [[W; L]; 8] {
        core::array::from_fn(|j| map(|l| r[(8 * l + j) / L][(8 * l + j) % L]))
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [[W; L]; 8]) -> [[W; L]; 8] {
        core::array::from_fn(|q| map(|p| v[(q * L + p) % 8][(q * L + p) / 8]))
    }
    /// Lane `l` holds block `base + l` (`idx` says so: the identity transpose of block
    /// numbers).
    #[inline(always)]
    unsafe fn counters(base: u64, _idx: [W; L]) -> [[W; L]; 4] {
        core::array::from_fn(|i| {
            map(|l| {
                if i < limbs::<W>() {
                    W::limb(base.wrapping_add(l as u64), i)
                } else {
                    W::default()
                }
            })
        })
    }
}

/// Full blocks of one message on the scalar whole-step kernel (see [`blocks`]).
pub fn run_blocks<W: Offsets, const L: usize>(
    mode: u8,
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) {
    // SAFETY: `Scalar` needs no CPU feature; `blocks` reads whole blocks inside `data` and
    // writes them inside `out`, whose length it asserts.
    unsafe {
        match mode {
            ABSORB => blocks::<Scalar<W, L>, W, ABSORB>(cis, ctr, data, out, tag),
            ENCRYPT => blocks::<Scalar<W, L>, W, ENCRYPT>(cis, ctr, data, out, tag),
            _ => blocks::<Scalar<W, L>, W, DECRYPT>(cis, ctr, data, out, tag),
        }
    }
}

/// Blocks interleaved per batch by the `portable` backend: two overlap their π chains
/// without spilling much more (measured above; on ARM64, with 31 registers, not measured).
const LANES: usize = 2;

/// The `portable` backend's whole-step kernels, widest first: `LANES` blocks at a time,
/// then one for an odd block.
pub fn portable<W: Offsets>() -> WholeSteps<W> {
    [Some(whole_steps::<W, LANES>()), Some(whole_steps::<W, 1>())]
}

/// The kernel and its batch width in blocks, as the engine takes them.
pub fn whole_steps<W: Offsets, const L: usize>() -> (Blocks<W>, usize) {
    (run_blocks::<W, L>, L)
}

#[cfg(test)]
mod tests {
    use super::super::wide::check_kernel;
    use super::*;

    #[test]
    fn blocks_equal_scalar_steps() {
        for width in [1, 2, 3, 4] {
            let name = format!("scalar x{width}");
            let (k16, k32, k64) = match width {
                1 => (
                    whole_steps::<u16, 1>(),
                    whole_steps::<u32, 1>(),
                    whole_steps::<u64, 1>(),
                ),
                2 => (
                    whole_steps::<u16, 2>(),
                    whole_steps::<u32, 2>(),
                    whole_steps::<u64, 2>(),
                ),
                3 => (
                    whole_steps::<u16, 3>(),
                    whole_steps::<u32, 3>(),
                    whole_steps::<u64, 3>(),
                ),
                _ => (
                    whole_steps::<u16, 4>(),
                    whole_steps::<u32, 4>(),
                    whole_steps::<u64, 4>(),
                ),
            };
            check_kernel::<u16>(&name, k16);
            check_kernel::<u32>(&name, k32);
            check_kernel::<u64>(&name, k64);
        }
    }
}
