//! The ARM64 lane type: `Neon` (128 lanes, `uint64x2_t`), and the `#[target_feature]`
//! entry point that runs a [`Kernel`] on it.
//!
//! Twice the portable `u64`'s lanes per operation: ARM64 cores have as many or more
//! 128-bit vector pipes as 64-bit integer ALUs for logic (Neoverse N1 two and three, V1
//! four and four, V2 four and six), and 32 vector registers hold more of a circuit's
//! planes than 31 general ones. Every operation is one instruction (`eor`, `and`, `orr`,
//! `bic`, `mvn`, `ushl`); there is no three-input one (`eor3`/`bcax` need SHA-3), so
//! [`Logic::tern`] keeps its lowering to two-input operations.
//!
//! Soundness as in `slice::x86`: the lane type is crate-private and only ever created
//! inside a [`Kernel`] run through [`run_neon`], which checks the feature first (NEON is
//! part of every ARM64 CPU, but the `BITWEAVE_CPU=portable` tier cap hides it, and then
//! this width is not offered).
#![allow(unsafe_code)]

use core::arch::aarch64::*;

use super::{Kernel, Lanes, Logic};

/// Whether this CPU runs the 128-lane kernels (under the tier cap).
pub fn has_neon() -> bool {
    crate::cpu::has(crate::cpu::Feature::Neon)
}

/// # Safety
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
unsafe fn neon_inner<K: Kernel>(k: &mut K) {
    k.run::<Neon>()
}

/// Runs `k` on 128-bit lanes. Panics if NEON is not reported (the registry never selects
/// the 128-lane backends then).
pub fn run_neon<K: Kernel>(k: &mut K) {
    assert!(has_neon(), "128-lane kernel where NEON is not available");
    // SAFETY: has_neon() (cpu::has(Neon), which never reports a feature the CPU lacks) just
    // returned true, the only requirement of neon_inner.
    unsafe { neon_inner(k) }
}

/// 128 lanes in a NEON register: two 64-bit words, word `g` from block `g` of a pair.
#[derive(Clone, Copy)]
pub(crate) struct Neon(uint64x2_t);

// Safety of every `unsafe` block below: values of this type exist only inside
// `neon_inner`, entered after the check in `run_neon`, so the NEON instructions are
// available; loads and stores go through unaligned intrinsics on slices whose length is
// asserted first.

impl Logic for Neon {
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Neon(unsafe { vdupq_n_u64(x) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Neon(unsafe { veorq_u64(self.0, o.0) })
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Neon(unsafe { vandq_u64(self.0, o.0) })
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Neon(unsafe { vorrq_u64(self.0, o.0) })
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        // `bic o, self` is o & !self.
        // SAFETY: register-only; see the note above the impls.
        Neon(unsafe { vbicq_u64(o.0, self.0) })
    }
    #[inline(always)]
    fn not(self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Neon(unsafe { vreinterpretq_u64_u8(vmvnq_u8(vreinterpretq_u8_u64(self.0))) })
    }
}

impl Lanes for Neon {
    const WORDS: usize = 2;
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        // `ushl` by a register: the count is a constant, so this is one instruction (the
        // immediate form would need N as an `i32` const generic).
        // SAFETY: register-only; see the note above the impls.
        Neon(unsafe { vshlq_u64(self.0, vdupq_n_s64(N as i64)) })
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        // A negative `ushl` count shifts right, filling with zeros.
        // SAFETY: register-only; see the note above the impls.
        Neon(unsafe { vshlq_u64(self.0, vdupq_n_s64(-(N as i64))) })
    }
    #[inline(always)]
    fn load8(src: &[u8]) -> Self {
        assert!(src.len() >= 16);
        // SAFETY: the length is asserted just above; see the note above the impls. ARM64
        // Linux is little-endian, so each word is its block read little-endian.
        Neon(unsafe { vreinterpretq_u64_u8(vld1q_u8(src.as_ptr())) })
    }
    #[inline(always)]
    fn store8(self, dst: &mut [u8]) {
        assert!(dst.len() >= 16);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe { vst1q_u8(dst.as_mut_ptr(), vreinterpretq_u8_u64(self.0)) }
    }
    #[inline(always)]
    fn load16(src: &[u8]) -> (Self, Self) {
        assert!(src.len() >= 32);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe {
            let a = vreinterpretq_u64_u8(vld1q_u8(src.as_ptr()));
            let b = vreinterpretq_u64_u8(vld1q_u8(src.as_ptr().add(16)));
            (Neon(vzip1q_u64(a, b)), Neon(vzip2q_u64(a, b)))
        }
    }
    #[inline(always)]
    fn store16(lo: Self, hi: Self, dst: &mut [u8]) {
        assert!(dst.len() >= 32);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe {
            let a = vzip1q_u64(lo.0, hi.0);
            let b = vzip2q_u64(lo.0, hi.0);
            vst1q_u8(dst.as_mut_ptr(), vreinterpretq_u8_u64(a));
            vst1q_u8(dst.as_mut_ptr().add(16), vreinterpretq_u8_u64(b));
        }
    }
}
