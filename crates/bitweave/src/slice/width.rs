//! Register widths: which lane type a batch runs on, and running width-generic work at
//! one of them.

#[cfg(target_arch = "aarch64")]
use super::arm;
#[cfg(target_arch = "x86_64")]
use super::x86;
use super::Lanes;

/// Work generic over the lane type, so one body serves every width; [`run_kernel`] runs it
/// at a chosen [`Width`].
pub trait Kernel {
    /// Runs the work with lane type `L`. Implementations should be `#[inline(always)]` so
    /// the body is compiled inside the SIMD entry point's `#[target_feature]` context.
    fn run<L: Lanes>(&mut self);
}

/// Runs `k` at width `w`. Panics if this CPU cannot run `w` (see [`Width::available`]);
/// the registry never selects such a backend.
pub fn run_kernel<K: Kernel>(w: Width, k: &mut K) {
    match w {
        Width::W64 => k.run::<u64>(),
        #[cfg(target_arch = "aarch64")]
        Width::W128 => arm::run_neon(k),
        #[cfg(target_arch = "x86_64")]
        Width::W128 => x86::run_128(k),
        #[cfg(target_arch = "x86_64")]
        Width::W256 => x86::run_256(k),
        #[cfg(target_arch = "x86_64")]
        Width::W512 => x86::run_avx512(k),
        #[allow(unreachable_patterns)]
        _ => panic!("{} cannot run on this architecture", w.backend_name()),
    }
}

/// Splits `data` (whole `block`-byte blocks) into bitsliced batches and hands each to
/// `run` with the width to run it at: full batches at `width`; then, for a tail that
/// fits the narrower width `narrow` (the cipher's choice, usually [`Width::tail`]),
/// whole batches at that width; then one zero-padded batch at the narrowest width that
/// holds the rest, whose scratch copy is wiped afterwards. Shared by every bitsliced
/// cipher.
pub(crate) fn for_each_batch(
    width: Width,
    narrow: Width,
    block: usize,
    data: &mut [u8],
    mut run: impl FnMut(Width, &mut [u8]),
) {
    assert_eq!(data.len() % block, 0, "whole blocks only");
    let batch = block * width.lanes();
    let (body, tail) = data.split_at_mut(data.len() / batch * batch);
    if !body.is_empty() {
        run(width, body);
    }
    if tail.is_empty() {
        return;
    }
    let small = block * narrow.lanes();
    let (w, pad) = if tail.len() <= small || width == narrow {
        let (whole, rest) = tail.split_at_mut(tail.len() / small * small);
        if !whole.is_empty() {
            run(narrow, whole);
        }
        (narrow, rest)
    } else {
        (width, tail)
    };
    if pad.is_empty() {
        return;
    }
    // A padded batch of up to 2 KiB (DES's 256 lanes, the 64-lane batches) is scratch on
    // the stack: allocating, zeroing and freeing it was part of every short call.
    let need = block * w.lanes();
    let mut stack = [0u8; PAD_ON_STACK];
    let mut heap = Vec::new();
    let buf: &mut [u8] = if need <= PAD_ON_STACK {
        &mut stack[..need]
    } else {
        heap.resize(need, 0);
        &mut heap
    };
    buf[..pad.len()].copy_from_slice(pad);
    run(w, buf);
    pad.copy_from_slice(&buf[..pad.len()]);
    crate::bytes::wipe(buf);
}

/// The largest padded batch [`for_each_batch`] keeps on the stack.
const PAD_ON_STACK: usize = 2048;

/// The lane widths bitweave's bitsliced backends run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Portable `u64`: 64 lanes.
    W64,
    /// 128 lanes: SSE2 on x86-64, NEON on ARM64.
    W128,
    /// AVX2: 256 lanes.
    W256,
    /// AVX-512: 512 lanes.
    W512,
}

impl Width {
    /// Whether this CPU runs the width (under the tier cap, see [`crate::cpu`]).
    pub fn available(self) -> bool {
        match self {
            Width::W64 => true,
            #[cfg(target_arch = "aarch64")]
            Width::W128 => arm::has_neon(),
            #[cfg(target_arch = "x86_64")]
            Width::W128 => x86::has_sse2(),
            #[cfg(target_arch = "x86_64")]
            Width::W256 => x86::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            Width::W512 => x86::has_avx512(),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The width a short tail of a message at this width runs at when it holds the tail:
    /// the one with the cheapest batch. A batch costs the same instructions at every
    /// width, so a tail wants the narrowest lanes that run fast: where 256 lanes have
    /// `vpternlogq` (AVX-512VL) or an AMD core those, else the portable 64. TSC cycles per
    /// 3DES batch: Xeon family 6 model 207 (2026-11-30) 64 lanes 10,100; 256 lanes 5,900
    /// with `vpternlogq` and 11,000 without (AVX2: each 3-input gate up to three
    /// instructions); 512 lanes 7,900. AMD EPYC Zen 3 (2026-12-02, AVX2 only; DES in
    /// brackets) 64 lanes 15,500-16,500 (5,800-5,900), 256 lanes 10,700-11,200
    /// (4,800-5,000): its scalar units fall further behind its vector ones than Intel's.
    /// SSE2's 128 lanes take the portable 64 for AES's tails: on AMD Zen 4 (2026-12-05,
    /// `BITWEAVE_CPU=portable`, TSC cycles per batch, 64 lanes against 128) AES costs
    /// 9,600 against 11,200 (DES, the other way round, keeps 128: see its `tail`).
    pub fn tail(self) -> Width {
        match self {
            #[cfg(target_arch = "x86_64")]
            Width::W256 | Width::W512 if x86::has_avx512vl() => Width::W256,
            #[cfg(target_arch = "x86_64")]
            Width::W256 if !crate::cpu::intel_tuning() => Width::W256,
            _ => Width::W64,
        }
    }

    /// Whether the lane type this width runs on has only 2-input gates
    /// ([`Logic::TWO_INPUT_GATES`](super::Logic::TWO_INPUT_GATES)): `u64`, SSE2, and AVX2
    /// where AVX-512VL (`vpternlogq` on 256 lanes) is missing.
    pub fn two_input_gates(self) -> bool {
        match self {
            Width::W64 => true,
            Width::W128 => cfg!(target_arch = "x86_64"),
            #[cfg(target_arch = "x86_64")]
            Width::W256 => !x86::has_avx512vl(),
            _ => false,
        }
    }

    /// Lanes (blocks per batch).
    pub fn lanes(self) -> usize {
        match self {
            Width::W64 => 64,
            Width::W128 => 128,
            Width::W256 => 256,
            Width::W512 => 512,
        }
    }

    /// Registry name of the backend at this width.
    pub fn backend_name(self) -> &'static str {
        match self {
            Width::W64 => "sliced64",
            Width::W128 => "sliced128",
            Width::W256 => "sliced256",
            Width::W512 => "sliced512",
        }
    }

    /// CPU features the width needs.
    pub fn features(self) -> &'static [crate::cpu::Feature] {
        match self {
            Width::W64 => &[],
            #[cfg(target_arch = "x86_64")]
            Width::W128 => &[crate::cpu::Feature::Sse2],
            #[cfg(not(target_arch = "x86_64"))]
            Width::W128 => &[crate::cpu::Feature::Neon],
            Width::W256 => &[crate::cpu::Feature::Avx2],
            Width::W512 => &[crate::cpu::Feature::Avx512f],
        }
    }
}
