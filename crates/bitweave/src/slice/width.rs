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
        Width::W256 => x86::run_avx2(k),
        #[cfg(target_arch = "x86_64")]
        Width::W512 => x86::run_avx512(k),
        #[allow(unreachable_patterns)]
        _ => panic!("{} cannot run on this architecture", w.backend_name()),
    }
}

/// Splits `data` (whole `block`-byte blocks) into bitsliced batches and hands each to
/// `run` with the width to run it at: full batches at `width`; then, for the tail, whole
/// 64-block batches on the portable lanes when the tail is short (or `width` is W64);
/// then one zero-padded batch at the narrowest width that holds the rest, whose scratch
/// copy is wiped afterwards. Shared by every bitsliced cipher.
pub(crate) fn for_each_batch(
    width: Width,
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
    let small = block * Width::W64.lanes();
    let (w, pad) = if tail.len() <= small || width == Width::W64 {
        let (whole, rest) = tail.split_at_mut(tail.len() / small * small);
        if !whole.is_empty() {
            run(Width::W64, whole);
        }
        (Width::W64, rest)
    } else {
        (width, tail)
    };
    if pad.is_empty() {
        return;
    }
    let mut buf = vec![0u8; block * w.lanes()];
    buf[..pad.len()].copy_from_slice(pad);
    run(w, &mut buf);
    pad.copy_from_slice(&buf[..pad.len()]);
    crate::bytes::wipe(&mut buf);
}

/// The lane widths bitweave's bitsliced backends run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Portable `u64`: 64 lanes.
    W64,
    /// ARM64 NEON: 128 lanes.
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
            Width::W256 => x86::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            Width::W512 => x86::has_avx512(),
            #[allow(unreachable_patterns)]
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
            Width::W128 => &[crate::cpu::Feature::Neon],
            Width::W256 => &[crate::cpu::Feature::Avx2],
            Width::W512 => &[crate::cpu::Feature::Avx512f],
        }
    }
}
