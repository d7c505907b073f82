//! Which π-Cipher engine runs a call, and the dispatch to it: the reference, the portable
//! whole-step kernel on plain words, and the AVX2/AVX-512 and NEON whole-step and lane
//! kernels, by message shape.

use super::pi::engine::{self, Job, Out, WholeSteps};
use super::pi::word::Word;
use super::pi::{self, Sealed};
use super::PiVariant;
use crate::cpu::Feature;
use crate::error::{Error, Result};

/// How π-Cipher is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PiBackend {
    /// The plain reference, one block at a time.
    Reference,
    /// The whole-step kernel on plain words for a message's full blocks, the scalar π for
    /// the rest: no SIMD.
    Portable,
    /// The lane engine with AVX2 (4×64, 8×32 or 16×16-bit lanes).
    Avx2,
    /// The AVX-512 F/BW/VL/VBMI2 whole-step kernel for runs of one message's blocks, and
    /// AVX2's for the rest. Its lane engine is AVX2's: an AVX-512 lane kernel (the portable
    /// one compiled for AVX-512) ran 256-768 B messages 1.5-2.5× slower than AVX2's and
    /// many messages no faster (AMD Zen 4, 2026-11-26).
    Avx512,
    /// ARM64's NEON (2×64, 4×32 or 8×16-bit lanes): the whole-step and lane kernels of
    /// AVX2 on 128-bit registers.
    Neon,
}

impl PiBackend {
    pub const ALL: [PiBackend; 5] = [
        PiBackend::Reference,
        PiBackend::Portable,
        PiBackend::Avx2,
        PiBackend::Avx512,
        PiBackend::Neon,
    ];

    /// The name for `--backend` and `bitweave list`.
    pub fn name(self) -> &'static str {
        match self {
            PiBackend::Reference => "ref",
            PiBackend::Portable => "portable",
            PiBackend::Avx2 => "avx2",
            PiBackend::Avx512 => "avx512",
            PiBackend::Neon => "neon",
        }
    }

    /// CPU features the backend needs.
    pub fn features(self) -> &'static [Feature] {
        match self {
            PiBackend::Reference | PiBackend::Portable => &[],
            PiBackend::Avx2 => &[Feature::Avx2],
            PiBackend::Avx512 => &[
                Feature::Avx512f,
                Feature::Avx512bw,
                Feature::Avx512vl,
                Feature::Avx512vbmi2,
            ],
            PiBackend::Neon => &[Feature::Neon],
        }
    }

    /// What the backend runs and the measurement that places it (shown by `bitweave
    /// list`; the figures are the README's, TSC c/B, encrypt, one message unless said).
    pub fn why(self) -> &'static str {
        match self {
            PiBackend::Reference => {
                "the designers' reference structure, block by block: the cross-check, never a default"
            }
            PiBackend::Portable => {
                "the whole-step kernel on plain words, two blocks per batch, and the scalar π for \
                 serial steps: 4.8-6.7 / 9.8-11.9 / 22-26 c/B for π64 / π32 / π16 at 16 KiB \
                 (Zen 3; block by block 8.0 / 16.0 / 28.3 in the same runs); default without AVX2"
            }
            PiBackend::Avx2 => {
                "whole-step kernel (4 / 8 / 16 blocks per ymm batch) on a message's runs, ymm \
                 lane kernel on tails and many short messages: 2.4-2.7 c/B at 16 KiB (Zen 3), \
                 against portable's 5.9-24.5; default with AVX2 and no AVX-512"
            }
            PiBackend::Avx512 => {
                "zmm whole-step kernel on 512-byte batches, AVX2's kernels on the rest: π64 \
                 16 KiB 1.40-1.58 c/B against 1.97-2.11 on avx2 (Zen 4, 2026-11-27); a zmm lane \
                 kernel measured no faster on short messages; default with AVX-512"
            }
            PiBackend::Neon => {
                "the whole-step kernel on NEON register pairs (4 / 8 / 16 blocks per batch), \
                 the lane kernel on single registers: predicted (llvm-mca, Neoverse N1 / V1 / \
                 V2) 4.6 / 2.5 / 2.5 core c/B for every variant's blocks against portable's \
                 4.5 / 3.4 / 2.2 (π64) and 9.0 / 6.7 / 4.5 (π32); tested under qemu, never \
                 measured; default on ARM64"
            }
        }
    }

    /// CPU features the backend needs, as `a+b` (`-` for none).
    pub fn needs(self) -> String {
        crate::cpu::describe(self.features())
    }

    /// Whether this CPU runs it (under the tier cap, see [`crate::cpu`]).
    pub fn available(self) -> bool {
        match self {
            PiBackend::Reference | PiBackend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            PiBackend::Avx2 => pi::x86::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            PiBackend::Avx512 => pi::x86::has_avx512(),
            #[cfg(target_arch = "aarch64")]
            PiBackend::Neon => pi::neon::available(),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// Lanes (blocks processed together) for a word size.
    pub fn lanes(self, word_bits: usize) -> usize {
        match (self, word_bits) {
            (PiBackend::Reference, _) => 1,
            (PiBackend::Portable, _) => 1,
            (PiBackend::Avx512, w @ (32 | 64)) => 512 / w,
            (PiBackend::Avx2 | PiBackend::Avx512, w) => 256 / w,
            (PiBackend::Neon, w) => 128 / w,
        }
    }

    /// The fastest backend this CPU runs.
    pub fn best() -> PiBackend {
        [PiBackend::Avx512, PiBackend::Avx2, PiBackend::Neon]
            .into_iter()
            .find(|b| b.available())
            .unwrap_or(PiBackend::Portable)
    }

    /// The backend named `name`, or [`best`](Self::best) for `None`; an unknown name or one
    /// this CPU cannot run is an error, never a silent fallback.
    pub fn select(name: Option<&str>) -> Result<PiBackend> {
        crate::cpu::check().map_err(|e| Error::CpuCap(e.to_string()))?;
        let Some(name) = name else {
            return Ok(PiBackend::best());
        };
        let b = PiBackend::ALL
            .into_iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| Error::UnknownBackend(name.to_string()))?;
        if !b.available() {
            return Err(Error::BackendUnavailable {
                backend: name.to_string(),
                needs: crate::cpu::missing(b.features()),
            });
        }
        Ok(b)
    }
}

pub(super) fn dispatch_ref_enc(
    v: PiVariant,
    key: &[u8],
    npub: &[u8],
    nsec: Option<&[u8]>,
    ad: &[u8],
    msg: &[u8],
) -> Vec<u8> {
    use pi::reference::encrypt;
    match v.word_bits() {
        16 => encrypt::<u16>(key, npub, nsec, ad, msg),
        32 => encrypt::<u32>(key, npub, nsec, ad, msg),
        _ => encrypt::<u64>(key, npub, nsec, ad, msg),
    }
}

pub(super) fn dispatch_ref_dec(
    v: PiVariant,
    key: &[u8],
    npub: &[u8],
    with_nsec: bool,
    ad: &[u8],
    c: &[u8],
) -> Sealed {
    use pi::reference::decrypt;
    match v.word_bits() {
        16 => decrypt::<u16>(key, npub, with_nsec, ad, c),
        32 => decrypt::<u32>(key, npub, with_nsec, ad, c),
        _ => decrypt::<u64>(key, npub, with_nsec, ad, c),
    }
}

/// Runs the lane engine with the backend's kernels for the variant's word size.
pub(super) fn run_fast(
    v: PiVariant,
    b: PiBackend,
    decrypt: bool,
    jobs: &[Job<'_>],
    outs: &mut [Out<'_>],
) {
    // The AVX-512 backend's lane kernel takes π64 and π32 on register pairs (twice the
    // lanes, two chains through π: see `pi::avx2::pi_lanes`).
    let pairs = b == PiBackend::Avx512;
    match (v.word_bits(), pairs) {
        (16, _) => run_word::<u16, { LANE_BITS / 16 }>(b, blocks_for(b), decrypt, jobs, outs),
        (32, false) => run_word::<u32, { LANE_BITS / 32 }>(b, blocks_for(b), decrypt, jobs, outs),
        (32, true) => run_word::<u32, { LANE_BITS / 16 }>(b, blocks_for(b), decrypt, jobs, outs),
        (_, false) => run_word::<u64, { LANE_BITS / 64 }>(b, blocks_for(b), decrypt, jobs, outs),
        (_, true) => run_word::<u64, { LANE_BITS / 32 }>(b, blocks_for(b), decrypt, jobs, outs),
    }
}

/// Bits of one lane-kernel register: a ymm on x86-64, a NEON register on ARM64.
const LANE_BITS: usize = if cfg!(target_arch = "aarch64") {
    128
} else {
    256
};

/// The whole-step kernels for runs of one message's blocks, widest first: AVX-512's and
/// AVX2's, or for `portable` the same kernel on plain words, one block at a time.
#[cfg(target_arch = "x86_64")]
fn blocks_for<W: pi::x86::WideWord>(b: PiBackend) -> WholeSteps<W> {
    match b {
        PiBackend::Avx512 => [Some(W::AVX512), Some(W::AVX2)],
        PiBackend::Avx2 => [Some(W::AVX2), None],
        PiBackend::Portable => pi::scalar::portable::<W>(),
        PiBackend::Reference | PiBackend::Neon => [None, None],
    }
}

#[cfg(target_arch = "aarch64")]
fn blocks_for<W: pi::neon::NeonWord>(b: PiBackend) -> WholeSteps<W> {
    match b {
        PiBackend::Neon => [Some(W::NEON), None],
        PiBackend::Portable => pi::scalar::portable::<W>(),
        _ => [None, None],
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn blocks_for<W: pi::wide::Offsets>(b: PiBackend) -> WholeSteps<W> {
    match b {
        PiBackend::Portable => pi::scalar::portable::<W>(),
        _ => [None, None],
    }
}

/// Lanes per kernel call: `L2` for AVX2, AVX-512 and NEON (one lane-kernel register per
/// word, [`LANE_BITS`], or on AVX-512 for π64 and π32 a register pair); the portable
/// backend runs one state at a time (see [`steps_portable`]). A zmm lane kernel (twice
/// the lanes in one chain) was built and measured for AVX-512 and dropped: on Zen 4,
/// 64-byte messages, it was no faster than the ymm one with 4-16 messages per call (π16
/// 16 messages 189-193 MB/s against 184-197; π32 8 messages 157-160 against 171-173) and
/// slower for a single message (its wider batches leave more steps on the scalar π).
/// The ymm pair compiled with AVX-512VL (two chains, 32 registers) did pay on Intel
/// (Xeon family 6 model 207, 2026-11-30, TSC c/B, 64-byte messages, before → now): π64
/// 16 messages 18.7 → 14.4, 8 messages 20.3 → 15.1, π32 16 messages 14.0 → 11.1; π16
/// (one register, now the VL form) 16 messages 12.4 → 11.6, 4 messages 21.5 → 19.3. On
/// AVX2 the pair spilled to 16 registers and lost at 4-8 messages (π32 4 messages 20.1
/// against 25.3), so AVX2 keeps one register. `blocks` are the backend's whole-step
/// kernels ([`blocks_for`]).
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_variables)
)]
fn run_word<W: Word, const L2: usize>(
    b: PiBackend,
    blocks: WholeSteps<W>,
    decrypt: bool,
    jobs: &[Job<'_>],
    outs: &mut [Out<'_>],
) {
    #[cfg(target_arch = "x86_64")]
    if matches!(b, PiBackend::Avx2 | PiBackend::Avx512) {
        let kernel = if b == PiBackend::Avx512 {
            pi::x86::pi_avx512vl::<W, L2>
        } else {
            pi::x86::pi_avx2::<W, L2>
        };
        return engine::run::<W, L2>(kernel, blocks, decrypt, jobs, outs);
    }
    #[cfg(target_arch = "aarch64")]
    if b == PiBackend::Neon {
        return engine::run::<W, L2>(pi::neon::pi_neon::<W, L2>, blocks, decrypt, jobs, outs);
    }
    // One lane: a message's full blocks on the scalar whole-step kernel, every other π (the
    // initial one, AD and SMN folds, a partial last block) below the wide threshold, so on
    // the scalar `pi_single`.
    engine::run::<W, 1>(pi::lanes::pi_portable::<W, 1>, blocks, decrypt, jobs, outs)
}

/// The incremental API's π for serial steps and its bulk path, for a backend.
#[cfg(target_arch = "x86_64")]
pub(super) fn stream_fns<W: pi::x86::WideWord>(
    b: PiBackend,
) -> (fn(&mut [W; 16]), pi::stream::Steps<W>) {
    match b {
        PiBackend::Reference => (pi::reference::pi::<W>, steps_ref::<W>),
        PiBackend::Portable => (pi::lanes::pi_single::<W>, steps_portable::<W>),
        PiBackend::Avx2 => (pi::lanes::pi_single::<W>, steps_vector::<W, false>),
        PiBackend::Avx512 => (pi::lanes::pi_single::<W>, steps_vector::<W, true>),
        // Never selected on x86-64 (`available` is false there).
        PiBackend::Neon => (pi::lanes::pi_single::<W>, steps_portable::<W>),
    }
}

#[cfg(target_arch = "aarch64")]
pub(super) fn stream_fns<W: pi::neon::NeonWord>(
    b: PiBackend,
) -> (fn(&mut [W; 16]), pi::stream::Steps<W>) {
    match b {
        PiBackend::Reference => (pi::reference::pi::<W>, steps_ref::<W>),
        PiBackend::Neon => (pi::lanes::pi_single::<W>, steps_neon::<W>),
        _ => (pi::lanes::pi_single::<W>, steps_portable::<W>),
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) fn stream_fns<W: pi::wide::Offsets>(
    b: PiBackend,
) -> (fn(&mut [W; 16]), pi::stream::Steps<W>) {
    match b {
        PiBackend::Reference => (pi::reference::pi::<W>, steps_ref::<W>),
        _ => (pi::lanes::pi_single::<W>, steps_portable::<W>),
    }
}

/// Lanes of a lane kernel: one register of `bits` per word.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const fn lanes_of<W: Word>(bits: usize) -> usize {
    bits / (8 * W::BYTES)
}

fn steps_ref<W: Word>(m: u8, c: &[W; 16], ctr: u64, d: &[u8], o: &mut [u8], t: &mut [W; 8]) {
    // One lane, always below the lane threshold: every block on the reference π.
    engine::steps::<W, 1>(
        pi::lanes::pi_portable::<W, 1>,
        [None, None],
        pi::reference::pi::<W>,
        m,
        c,
        ctr,
        d,
        o,
        t,
    )
}

/// The portable bulk path: a message's full blocks on the whole-step kernel on plain
/// words ([`pi::scalar`], two blocks per batch), the rest on the scalar π. Before it, the
/// scalar π ran block by block; and before that the word-sliced lane kernel,
/// compiled for the baseline (SSE2 on x86-64), came out as scalar code with most words
/// spilled: measured on AMD Zen 3 (2026-11-26, 16 KiB, one message) 13.4 / 31 / 86 c/B for
/// π64 / π32 / π16 against 8.0 / 16.8 / 35 for the scalar π (5.9 / 11.9 / 24.5 since its
/// rounds are written out, [`pi::lanes`]); two plain scalar π states interleaved (more ILP,
/// more spills) measured no better, while two blocks on the whole-step kernel, which does
/// a third fewer μ/ν halves, measured at least as fast as one (figures in [`pi::scalar`]).
fn steps_portable<W: pi::wide::Offsets>(
    m: u8,
    c: &[W; 16],
    ctr: u64,
    d: &[u8],
    o: &mut [u8],
    t: &mut [W; 8],
) {
    lanes_steps::<W, 1>(
        pi::lanes::pi_portable::<W, 1>,
        pi::scalar::portable::<W>(),
        m,
        c,
        ctr,
        d,
        o,
        t,
    )
}

/// The AVX2 and AVX-512 bulk paths: the backend's whole-step kernels (widest first) do
/// the batches, and the tail under one batch goes through the AVX2 lane kernel.
#[cfg(target_arch = "x86_64")]
fn steps_vector<W: pi::x86::WideWord, const AVX512: bool>(
    m: u8,
    c: &[W; 16],
    ctr: u64,
    d: &[u8],
    o: &mut [u8],
    t: &mut [W; 8],
) {
    let backend = if AVX512 {
        PiBackend::Avx512
    } else {
        PiBackend::Avx2
    };
    let blocks = blocks_for::<W>(backend);
    use pi::x86::{pi_avx2, pi_avx512vl};
    match (lanes_of::<W>(256), AVX512) {
        (16, false) => lanes_steps::<W, 16>(pi_avx2::<W, 16>, blocks, m, c, ctr, d, o, t),
        (16, true) => lanes_steps::<W, 16>(pi_avx512vl::<W, 16>, blocks, m, c, ctr, d, o, t),
        (8, false) => lanes_steps::<W, 8>(pi_avx2::<W, 8>, blocks, m, c, ctr, d, o, t),
        (8, true) => lanes_steps::<W, 8>(pi_avx512vl::<W, 8>, blocks, m, c, ctr, d, o, t),
        (_, false) => lanes_steps::<W, 4>(pi_avx2::<W, 4>, blocks, m, c, ctr, d, o, t),
        (_, true) => lanes_steps::<W, 4>(pi_avx512vl::<W, 4>, blocks, m, c, ctr, d, o, t),
    }
}

/// The NEON bulk path: the whole-step kernel does the batches, the tail under one batch
/// goes through the NEON lane kernel.
#[cfg(target_arch = "aarch64")]
fn steps_neon<W: pi::neon::NeonWord>(
    m: u8,
    c: &[W; 16],
    ctr: u64,
    d: &[u8],
    o: &mut [u8],
    t: &mut [W; 8],
) {
    let blocks = blocks_for::<W>(PiBackend::Neon);
    use pi::neon::pi_neon;
    match lanes_of::<W>(128) {
        8 => lanes_steps::<W, 8>(pi_neon::<W, 8>, blocks, m, c, ctr, d, o, t),
        4 => lanes_steps::<W, 4>(pi_neon::<W, 4>, blocks, m, c, ctr, d, o, t),
        _ => lanes_steps::<W, 2>(pi_neon::<W, 2>, blocks, m, c, ctr, d, o, t),
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lanes_steps<W: Word, const L: usize>(
    kernel: engine::Kernel<W, L>,
    blocks: WholeSteps<W>,
    m: u8,
    c: &[W; 16],
    ctr: u64,
    d: &[u8],
    o: &mut [u8],
    t: &mut [W; 8],
) {
    engine::steps::<W, L>(
        kernel,
        blocks,
        pi::lanes::pi_single::<W>,
        m,
        c,
        ctr,
        d,
        o,
        t,
    )
}
