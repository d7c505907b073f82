//! The SIMD lane types: `Sse2` (128 lanes, `__m128i`), `Avx2` (256 lanes, `__m256i`),
//! `Avx512Vl` (the same 256 lanes with [`Logic::tern`] as one `vpternlogq`, on CPUs with
//! AVX-512VL) and `Avx512` (512 lanes, `__m512i`, `vpternlogq` too), and the
//! `#[target_feature]` entry points that run a [`Kernel`] on them. This is the only module
//! of the x86 bitsliced code with `unsafe`.
//!
//! `Sse2` is for CPUs without AVX2 (and the `aesni` and `portable` tiers): SSE2 is part
//! of every x86-64 CPU, and its 128-bit logic runs on the vector pipes, which are as many
//! as the integer ALUs that run the portable `u64` lanes, at twice the lanes per
//! operation.
//!
//! Soundness: the lane types are crate-private and only ever created inside a [`Kernel`]
//! run through [`run_128`] / [`run_256`] / [`run_avx512`], which check the CPU features
//! (standard library detection, cached) before entering the `#[target_feature]` function. The
//! operations are `#[inline(always)]`, so inside those functions every intrinsic compiles to
//! its single instruction.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::{Kernel, Lanes, Logic};

/// Whether this CPU runs the 128-lane kernels (every x86-64 CPU has SSE2).
pub fn has_sse2() -> bool {
    crate::cpu::has(crate::cpu::Feature::Sse2)
}

/// Whether this CPU runs the 256-lane kernels (under the tier cap).
pub fn has_avx2() -> bool {
    crate::cpu::has(crate::cpu::Feature::Avx2)
}

/// Whether this CPU runs the 512-lane kernels (under the tier cap).
pub fn has_avx512() -> bool {
    crate::cpu::has(crate::cpu::Feature::Avx512f)
}

/// Whether the 256-lane kernels run with `vpternlogq` (under the tier cap).
pub fn has_avx512vl() -> bool {
    has_avx512() && crate::cpu::has(crate::cpu::Feature::Avx512vl)
}

/// # Safety
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
unsafe fn sse2_inner<K: Kernel>(k: &mut K) {
    k.run::<Sse2>()
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn avx2_inner<K: Kernel>(k: &mut K) {
    k.run::<Avx2>()
}

/// # Safety
/// The CPU must support AVX2, AVX-512F and AVX-512VL.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn avx512vl_inner<K: Kernel>(k: &mut K) {
    k.run::<Avx512Vl>()
}

/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn avx512_inner<K: Kernel>(k: &mut K) {
    k.run::<Avx512>()
}

/// Runs `k` on 128-bit lanes. Panics if the CPU lacks SSE2 (never on x86-64).
pub fn run_128<K: Kernel>(k: &mut K) {
    assert!(has_sse2(), "128-lane kernel on a CPU without SSE2");
    // SAFETY: has_sse2() (cpu::has(Sse2), which never reports a feature the CPU lacks)
    // just returned true, the only requirement of sse2_inner.
    unsafe { sse2_inner(k) }
}

/// Runs `k` on 256-bit lanes: with `vpternlogq` where AVX-512VL is there (a 3-input gate
/// is one instruction instead of up to three), else on AVX2. Panics if the CPU lacks AVX2
/// (the registry never selects the 256-lane backends then).
///
/// On an AVX-512 CPU the 256-lane kernels also serve a message's short last batch
/// ([`Width::tail`](super::Width::tail)): a 512-lane batch costs as many instructions
/// for the lanes it leaves empty, and `vpternlogq` runs three ymm to two zmm per cycle on
/// Intel (AMD Zen 4 splits a zmm operation in two).
pub fn run_256<K: Kernel>(k: &mut K) {
    if has_avx512vl() {
        // SAFETY: has_avx512vl() (cpu::has of AVX-512F and VL, never reporting a feature
        // the CPU lacks; AVX-512F CPUs have AVX2) just returned true, the only requirement
        // of avx512vl_inner.
        unsafe { avx512vl_inner(k) }
    } else {
        run_avx2(k)
    }
}

/// Runs `k` on 256-bit lanes without AVX-512 (what [`run_256`] does on an AVX2 CPU).
fn run_avx2<K: Kernel>(k: &mut K) {
    assert!(has_avx2(), "256-lane kernel on a CPU without AVX2");
    // SAFETY: has_avx2() (cpu::has(Avx2), which never reports a feature the CPU lacks)
    // just returned true, the only requirement of avx2_inner.
    unsafe { avx2_inner(k) }
}

/// Runs `k` on 512-bit lanes. Panics if the CPU lacks AVX-512F.
pub fn run_avx512<K: Kernel>(k: &mut K) {
    assert!(has_avx512(), "512-lane kernel on a CPU without AVX-512F");
    // SAFETY: has_avx512() (cpu::has(Avx512f), which never reports a feature the CPU lacks) just returned true, the
    // only requirement of avx512_inner.
    unsafe { avx512_inner(k) }
}

/// 128 lanes in an SSE2 register.
#[derive(Clone, Copy)]
pub(crate) struct Sse2(__m128i);

/// 256 lanes in an AVX2 register.
#[derive(Clone, Copy)]
pub(crate) struct Avx2(__m256i);

/// 256 lanes in an AVX2 register, on a CPU with AVX-512VL: [`Avx2`] with
/// [`Logic::tern`] as `vpternlogq`.
#[derive(Clone, Copy)]
pub(crate) struct Avx512Vl(__m256i);

/// 512 lanes in an AVX-512 register.
#[derive(Clone, Copy)]
pub(crate) struct Avx512(__m512i);

// Safety of every `unsafe` block below: values of these types exist only inside
// `sse2_inner`/`avx2_inner`/`avx512vl_inner`/`avx512_inner`, entered after the detection
// in `run_128`/`run_256`/`run_avx512`, so the SSE2 (resp. AVX2, AVX-512VL, AVX-512F)
// instructions are available; loads and stores go through unaligned intrinsics on slices
// whose length is asserted first.

/// SSE2 has no 3-input operation: the DES S-boxes take the 2-input circuits.
impl Logic for Sse2 {
    const TWO_INPUT_GATES: bool = true;
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Sse2(unsafe { _mm_set1_epi64x(x as i64) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Sse2(unsafe { _mm_xor_si128(self.0, o.0) })
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Sse2(unsafe { _mm_and_si128(self.0, o.0) })
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Sse2(unsafe { _mm_or_si128(self.0, o.0) })
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Sse2(unsafe { _mm_andnot_si128(self.0, o.0) })
    }
    #[inline(always)]
    fn not(self) -> Self {
        self.xor(Self::splat(!0))
    }
}

impl Lanes for Sse2 {
    const WORDS: usize = 2;
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Sse2(unsafe { _mm_sll_epi64(self.0, _mm_cvtsi64_si128(N as i64)) })
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Sse2(unsafe { _mm_srl_epi64(self.0, _mm_cvtsi64_si128(N as i64)) })
    }
    #[inline(always)]
    fn load8(src: &[u8]) -> Self {
        assert!(src.len() >= 16);
        // SAFETY: the length is asserted just above; see the note above the impls.
        Sse2(unsafe { _mm_loadu_si128(src.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store8(self, dst: &mut [u8]) {
        assert!(dst.len() >= 16);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn load16(src: &[u8]) -> (Self, Self) {
        assert!(src.len() >= 32);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe {
            let a = _mm_loadu_si128(src.as_ptr().cast());
            let b = _mm_loadu_si128(src.as_ptr().add(16).cast());
            (
                Sse2(_mm_unpacklo_epi64(a, b)),
                Sse2(_mm_unpackhi_epi64(a, b)),
            )
        }
    }
    #[inline(always)]
    fn store16(lo: Self, hi: Self, dst: &mut [u8]) {
        assert!(dst.len() >= 32);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe {
            _mm_storeu_si128(dst.as_mut_ptr().cast(), _mm_unpacklo_epi64(lo.0, hi.0));
            _mm_storeu_si128(
                dst.as_mut_ptr().add(16).cast(),
                _mm_unpackhi_epi64(lo.0, hi.0),
            );
        }
    }
}

impl Logic for Avx2 {
    const TWO_INPUT_GATES: bool = true;
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx2(unsafe { _mm256_set1_epi64x(x as i64) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx2(unsafe { _mm256_xor_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx2(unsafe { _mm256_and_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx2(unsafe { _mm256_or_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx2(unsafe { _mm256_andnot_si256(self.0, o.0) })
    }
    #[inline(always)]
    fn not(self) -> Self {
        self.xor(Self::splat(!0))
    }
}

impl Lanes for Avx2 {
    const WORDS: usize = 4;
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx2(unsafe { _mm256_sll_epi64(self.0, _mm_cvtsi64_si128(N as i64)) })
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx2(unsafe { _mm256_srl_epi64(self.0, _mm_cvtsi64_si128(N as i64)) })
    }
    #[inline(always)]
    fn load8(src: &[u8]) -> Self {
        assert!(src.len() >= 32);
        // SAFETY: the length is asserted just above; see the note above the impls.
        Avx2(unsafe { _mm256_loadu_si256(src.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store8(self, dst: &mut [u8]) {
        assert!(dst.len() >= 32);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn load16(src: &[u8]) -> (Self, Self) {
        assert!(src.len() >= 64);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe {
            let a = _mm256_loadu_si256(src.as_ptr().cast());
            let b = _mm256_loadu_si256(src.as_ptr().add(32).cast());
            (
                Avx2(_mm256_unpacklo_epi64(a, b)),
                Avx2(_mm256_unpackhi_epi64(a, b)),
            )
        }
    }
    #[inline(always)]
    fn store16(lo: Self, hi: Self, dst: &mut [u8]) {
        assert!(dst.len() >= 64);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe {
            let a = _mm256_unpacklo_epi64(lo.0, hi.0);
            let b = _mm256_unpackhi_epi64(lo.0, hi.0);
            _mm256_storeu_si256(dst.as_mut_ptr().cast(), a);
            _mm256_storeu_si256(dst.as_mut_ptr().add(32).cast(), b);
        }
    }
}

/// Everything but the 3-input operation is [`Avx2`]'s.
impl Logic for Avx512Vl {
    #[inline(always)]
    fn splat(x: u64) -> Self {
        Avx512Vl(Avx2::splat(x).0)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        Avx512Vl(Avx2(self.0).xor(Avx2(o.0)).0)
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        Avx512Vl(Avx2(self.0).and(Avx2(o.0)).0)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        Avx512Vl(Avx2(self.0).or(Avx2(o.0)).0)
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        Avx512Vl(Avx2(self.0).andnot(Avx2(o.0)).0)
    }
    #[inline(always)]
    fn not(self) -> Self {
        Self::tern::<0x55>(self, self, self)
    }
    #[inline(always)]
    fn tern<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512Vl(unsafe { _mm256_ternarylogic_epi64::<IMM>(a.0, b.0, c.0) })
    }
}

impl Lanes for Avx512Vl {
    const WORDS: usize = Avx2::WORDS;
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        Avx512Vl(Avx2(self.0).shl::<N>().0)
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        Avx512Vl(Avx2(self.0).shr::<N>().0)
    }
    #[inline(always)]
    fn load8(src: &[u8]) -> Self {
        Avx512Vl(Avx2::load8(src).0)
    }
    #[inline(always)]
    fn store8(self, dst: &mut [u8]) {
        Avx2(self.0).store8(dst)
    }
    #[inline(always)]
    fn load16(src: &[u8]) -> (Self, Self) {
        let (lo, hi) = Avx2::load16(src);
        (Avx512Vl(lo.0), Avx512Vl(hi.0))
    }
    #[inline(always)]
    fn store16(lo: Self, hi: Self, dst: &mut [u8]) {
        Avx2::store16(Avx2(lo.0), Avx2(hi.0), dst)
    }
}

impl Logic for Avx512 {
    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512(unsafe { _mm512_set1_epi64(x as i64) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512(unsafe { _mm512_xor_si512(self.0, o.0) })
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512(unsafe { _mm512_and_si512(self.0, o.0) })
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512(unsafe { _mm512_or_si512(self.0, o.0) })
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512(unsafe { _mm512_andnot_si512(self.0, o.0) })
    }
    #[inline(always)]
    fn not(self) -> Self {
        Self::tern::<0x55>(self, self, self)
    }
    #[inline(always)]
    fn tern<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512(unsafe { _mm512_ternarylogic_epi64::<IMM>(a.0, b.0, c.0) })
    }
}

impl Lanes for Avx512 {
    const WORDS: usize = 8;
    #[inline(always)]
    fn shl<const N: u32>(self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512(unsafe { _mm512_slli_epi64::<N>(self.0) })
    }
    #[inline(always)]
    fn shr<const N: u32>(self) -> Self {
        // SAFETY: register-only; see the note above the impls.
        Avx512(unsafe { _mm512_srli_epi64::<N>(self.0) })
    }
    #[inline(always)]
    fn load8(src: &[u8]) -> Self {
        assert!(src.len() >= 64);
        // SAFETY: the length is asserted just above; see the note above the impls.
        Avx512(unsafe { _mm512_loadu_si512(src.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store8(self, dst: &mut [u8]) {
        assert!(dst.len() >= 64);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), self.0) }
    }
    #[inline(always)]
    fn load16(src: &[u8]) -> (Self, Self) {
        assert!(src.len() >= 128);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe {
            let a = _mm512_loadu_si512(src.as_ptr().cast());
            let b = _mm512_loadu_si512(src.as_ptr().add(64).cast());
            (
                Avx512(_mm512_unpacklo_epi64(a, b)),
                Avx512(_mm512_unpackhi_epi64(a, b)),
            )
        }
    }
    #[inline(always)]
    fn store16(lo: Self, hi: Self, dst: &mut [u8]) {
        assert!(dst.len() >= 128);
        // SAFETY: the length is asserted just above; see the note above the impls.
        unsafe {
            let a = _mm512_unpacklo_epi64(lo.0, hi.0);
            let b = _mm512_unpackhi_epi64(lo.0, hi.0);
            _mm512_storeu_si512(dst.as_mut_ptr().cast(), a);
            _mm512_storeu_si512(dst.as_mut_ptr().add(64).cast(), b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slice::{
        blocks16_from_planes, blocks8_from_planes, planes_from_blocks16, planes_from_blocks8,
    };

    /// Transposition round trip and plane contents on a lane type: plane p of block b's
    /// lane must be bit p of the block, checked through a single-lane probe.
    struct RoundTrip {
        ok: bool,
    }

    impl Kernel for RoundTrip {
        #[inline(always)]
        fn run<L: Lanes>(&mut self) {
            let n8 = 8 * L::LANES;
            let data: Vec<u8> = (0..2 * n8)
                .map(|i| (i * 131 + 7 * (i >> 8)) as u8)
                .collect();
            let p = planes_from_blocks8::<L>(&data[..n8]);
            let mut out = vec![0u8; n8];
            blocks8_from_planes(p, &mut out);
            self.ok &= out == data[..n8];
            let q = planes_from_blocks16::<L>(&data);
            let mut out = vec![0u8; 2 * n8];
            blocks16_from_planes(&q, &mut out);
            self.ok &= out == data;
            // Popcount of every plane equals the number of blocks with that bit set.
            let mut words = vec![0u8; 8 * L::WORDS];
            for (bit, plane) in p.iter().enumerate() {
                plane.store8(&mut words);
                let ones: u32 = words.iter().map(|b| b.count_ones()).sum();
                let want = data[..n8]
                    .chunks(8)
                    .filter(|b| (u64::from_le_bytes((*b).try_into().unwrap()) >> bit) & 1 == 1)
                    .count() as u32;
                self.ok &= ones == want;
            }
        }
    }

    /// The DES and AES circuits (both directions) on planes whose 64-bit words all hold
    /// the same random value: every word of the output must be what `u64` lanes give.
    struct Circuits {
        /// Per output plane, the words of the last run (all must be equal).
        out: Vec<Vec<u64>>,
    }

    fn random_words(n: usize) -> Vec<u64> {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect()
    }

    impl Kernel for Circuits {
        #[inline(always)]
        fn run<L: Lanes>(&mut self) {
            let words = random_words(64 + 128);
            let des: [L; 64] = core::array::from_fn(|i| L::splat(words[i]));
            let mut aes: [L; 128] = core::array::from_fn(|i| L::splat(words[64 + i]));
            let mut planes: Vec<L> = Vec::new();
            for decrypt in [false, true] {
                let key = [0x3Cu8; 24];
                planes.extend(crate::cipher::des::sliced::crypt_planes_for_key(
                    &des, &key, decrypt,
                ));
                crate::cipher::aes::sliced::crypt_planes_for_key(&mut aes, &key, decrypt);
                planes.extend(aes);
            }
            self.out = planes
                .iter()
                .map(|p| {
                    let mut bytes = vec![0u8; 8 * L::WORDS];
                    p.store8(&mut bytes);
                    bytes
                        .chunks(8)
                        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
                        .collect()
                })
                .collect();
        }
    }

    #[test]
    fn lane_types_compute_the_circuits() {
        let mut want = Circuits { out: Vec::new() };
        want.run::<u64>();
        for (name, avail, run) in [
            ("sse2", has_sse2(), run_128::<Circuits> as fn(&mut Circuits)),
            ("avx2", has_avx2(), run_avx2::<Circuits>),
            ("avx512vl", has_avx512vl(), run_256::<Circuits>),
            ("avx512", has_avx512(), run_avx512::<Circuits>),
        ] {
            if !avail {
                eprintln!("skipped: {name} lanes (CPU lacks it)");
                continue;
            }
            let mut k = Circuits { out: Vec::new() };
            run(&mut k);
            assert_eq!(k.out.len(), want.out.len(), "{name}");
            for (p, (got, w)) in k.out.iter().zip(&want.out).enumerate() {
                assert!(
                    got.iter().all(|g| *g == w[0]),
                    "{name} lanes, output plane {p}"
                );
            }
            eprintln!("ran: {name} lanes");
        }
    }

    #[test]
    fn simd_transposition_round_trips() {
        for (name, avail, run) in [
            (
                "sse2",
                has_sse2(),
                run_128::<RoundTrip> as fn(&mut RoundTrip),
            ),
            ("avx2", has_avx2(), run_avx2::<RoundTrip>),
            ("avx512vl", has_avx512vl(), run_256::<RoundTrip>),
            ("avx512", has_avx512(), run_avx512::<RoundTrip>),
        ] {
            if !avail {
                eprintln!("skipped: {name} (CPU lacks it)");
                continue;
            }
            let mut k = RoundTrip { ok: true };
            run(&mut k);
            assert!(k.ok, "{name}");
        }
    }
}
