//! `sliced64`, `sliced128` (SSE2 on x86-64, NEON on ARM64), `sliced256`, `sliced512`:
//! DES and triple DES, bitsliced — one block per bit lane (64, 128, 256 or 512 blocks per
//! batch), the interleaved-bitslice method of the MX-1 paper.
//!
//! **Constant-time**: the data path is a fixed sequence of Boolean operations on bit
//! planes; no branch or memory index depends on key or data. Round keys are stored as
//! all-zeros/all-ones masks per key bit (built with arithmetic, not branches) and XORed in
//! as broadcast constants.
//!
//! # Layout
//!
//! A batch is transposed into 64 planes ([`planes_from_blocks8`]): plane `8k + j` holds bit
//! `j` (LSB = 0) of byte `k` of every block. The standard numbers bits from the MSB, so DES
//! bit `n` (1..=64) lives in plane [`plane_of`]`(n)`. The initial and final permutations,
//! the expansion E and the permutation P are plane renamings: index tables computed at
//! compile time from [`IP`], [`FP`], [`E`] and [`P`], free at run time.
//!
//! # Circuit
//!
//! The S-boxes are the generated functions of [`super::circuit`]: 3-input gates
//! ([`Logic::tern`], one `vpternlogq` on AVX-512) synthesised from [`SBOXES`] by
//! [`crate::slice::synth`]; see that module for the method and [`circuit_source`] for the
//! generator. Because they are generic over [`Logic`], the same functions run on real lanes
//! and on `slice::trace::Trace`, which extracts their gate lists for counting and
//! for the MX-1 model ([`sbox_circuits`]). Lane types with 2-input gates only (AVX2,
//! `u64`) run [`super::circuit2`] instead ([`crate::slice::synth2`], [`circuit2_source`]),
//! whose complemented outputs are folded into the round keys (`FOLD`).
//!
//! # Sections
//! 1. plane bookkeeping (tables), 2. round function and stages, 3. backend glue.
#![deny(unsafe_code)]

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::circuit::{s1, s2, s3, s4, s5, s6, s7, s8};
use super::{TdesKeys, E, FP, IP, P, SBOXES};
use crate::cipher::planes::{KeyMasks, PlaneCipher, PlaneKeys, Sliced};
use crate::slice::trace::{Circuit, Trace};
use crate::slice::{
    blocks8_from_planes, blocks8_from_planes_xor, planes_from_blocks8, planes_from_blocks8_xor,
    Lanes, Logic, Width,
};

// ---- 1. Plane bookkeeping -------------------------------------------------------------

/// The plane holding DES bit `n` (1 = MSB of byte 0, as the standard numbers them).
pub const fn plane_of(n: u8) -> usize {
    let i = n as usize - 1;
    8 * (i / 8) + 7 - i % 8
}

/// `E_IDX[6j + m]`: index into R (0-based, DES order) of S-box `j`'s input `m`.
const E_IDX: [usize; 48] = {
    let mut t = [0usize; 48];
    let mut i = 0;
    while i < 48 {
        t[i] = E[i] as usize - 1;
        i += 1;
    }
    t
};

/// `P_INV[q]`: where pre-P bit `q` (0-based; S-box `j`'s output `m` is `q = 4j + m`) lands
/// in the f-function output.
const P_INV: [usize; 32] = {
    let mut t = [0usize; 32];
    let mut i = 0;
    while i < 32 {
        t[P[i] as usize - 1] = i;
        i += 1;
    }
    t
};

/// `IN_PLANE[i]`: the plane feeding bit `i` (0-based) of IP(block) = L ‖ R.
const IN_PLANE: [usize; 64] = {
    let mut t = [0usize; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = plane_of(IP[i]);
        i += 1;
    }
    t
};

/// `OUT_SRC[p]`: the pre-output bit (0-based, R16 ‖ L16) that plane `p` of the result
/// takes, after FP.
const OUT_SRC: [usize; 64] = {
    let mut t = [0usize; 64];
    let mut n = 1;
    while n <= 64 {
        t[plane_of(n as u8)] = FP[n - 1] as usize - 1;
        n += 1;
    }
    t
};

// ---- 2. Round function and stages ------------------------------------------------------

/// One S-box of the f-function: input bits from `src` through E, XOR the round key, the
/// circuit, outputs through P XORed into `dst` (complemented where `$not` says).
macro_rules! sbox_step {
    ($L:ty, $dst:ident, $src:ident, $k:ident, $j:expr, $f:path, $not:expr) => {{
        // Written out rather than `array::from_fn` or a closure: those become separate
        // functions, which may stay outside the SIMD `#[target_feature]` context.
        macro_rules! e {
            ($m:expr) => {
                $src[E_IDX[6 * $j + $m]].xor(<$L>::splat($k[6 * $j + $m]))
            };
        }
        let o = $f([e!(0), e!(1), e!(2), e!(3), e!(4), e!(5)]);
        for (m, om) in o.into_iter().enumerate() {
            let i = P_INV[4 * $j + m];
            $dst[i] = $dst[i].xor(if $not[m] { om.not() } else { om });
        }
    }};
}

/// One Feistel round: `dst ^= f(src, k)` (k: 48 key-bit masks).
///
/// Lane types without a 3-input instruction ([`Logic::TWO_INPUT_GATES`]) take the
/// S-boxes of [`super::circuit2`]: 437 two-input operations against 733 for
/// [`super::circuit`]'s 241 gates lowered. Some of their outputs come out complemented
/// ([`COMPLEMENTED`](super::circuit2::COMPLEMENTED)); with `FOLDED` they are XORed in as
/// they are and the round keys absorb the complements (see [`FOLD`]), else each gets its
/// NOT here.
#[inline(always)]
fn feistel<L: Logic, const FOLDED: bool>(dst: &mut [L], src: &[L], k: &[u64; 48]) {
    use super::circuit2 as two;
    if L::TWO_INPUT_GATES {
        sbox_step!(L, dst, src, k, 0, two::s1, nots(0, FOLDED));
        sbox_step!(L, dst, src, k, 1, two::s2, nots(1, FOLDED));
        sbox_step!(L, dst, src, k, 2, two::s3, nots(2, FOLDED));
        sbox_step!(L, dst, src, k, 3, two::s4, nots(3, FOLDED));
        sbox_step!(L, dst, src, k, 4, two::s5, nots(4, FOLDED));
        sbox_step!(L, dst, src, k, 5, two::s6, nots(5, FOLDED));
        sbox_step!(L, dst, src, k, 6, two::s7, nots(6, FOLDED));
        sbox_step!(L, dst, src, k, 7, two::s8, nots(7, FOLDED));
    } else {
        debug_assert!(
            !FOLDED,
            "3-input circuits have no complemented outputs to fold"
        );
        const NONE: [bool; 4] = [false; 4];
        sbox_step!(L, dst, src, k, 0, s1, NONE);
        sbox_step!(L, dst, src, k, 1, s2, NONE);
        sbox_step!(L, dst, src, k, 2, s3, NONE);
        sbox_step!(L, dst, src, k, 3, s4, NONE);
        sbox_step!(L, dst, src, k, 4, s5, NONE);
        sbox_step!(L, dst, src, k, 5, s6, NONE);
        sbox_step!(L, dst, src, k, 6, s7, NONE);
        sbox_step!(L, dst, src, k, 7, s8, NONE);
    }
}

/// The outputs of 2-input S-box `j` that [`feistel`] complements (none when `folded`).
#[inline(always)]
fn nots(j: usize, folded: bool) -> [bool; 4] {
    super::circuit2::COMPLEMENTED[j].map(|c| c && !folded)
}

/// The round-key masks' correction for [`feistel`]'s complemented outputs, when folded.
///
/// With the complemented outputs XORed in as they are, the half a round writes holds the
/// complement of the planes in `c` (the P positions of those outputs) relative to the
/// true value. Rounds alternate halves, so the half a round reads is off by `0, c, c, 0`
/// in rounds `4q .. 4q + 3` and both halves are true again after every fourth round: at
/// the end of each 16-round stage, so the output needs no correction. A round that reads
/// a half off by `c` gets it right by XORing the complement of its key bit wherever E
/// reads a plane of `c`: `FOLD` is that pattern, applied to rounds `4q + 1` and `4q + 2`.
/// The pattern is a palindrome (16 and 48 are multiples of 4), so decryption, which reads
/// the masks from the last, finds the same correction at each of its rounds.
const FOLD: [u64; 48] = {
    let mut off = [false; 32];
    let mut q = 0;
    while q < 32 {
        off[P_INV[q]] = super::circuit2::COMPLEMENTED[q / 4][q % 4];
        q += 1;
    }
    let mut t = [0u64; 48];
    let mut i = 0;
    while i < 48 {
        t[i] = if off[E_IDX[i]] { u64::MAX } else { 0 };
        i += 1;
    }
    t
};

/// Folds [`FOLD`] into round-key masks in execution order (see there).
fn fold(masks: &mut [[u64; 48]]) {
    for (r, m) in masks.iter_mut().enumerate() {
        if matches!(r % 4, 1 | 2) {
            m.iter_mut().zip(FOLD).for_each(|(x, f)| *x ^= f);
        }
    }
}

/// Runs the stages on L ‖ R = `st` (each stage 16 rounds with 16 round-key sets from
/// `keys`, last to first when `backwards`) and returns the pre-output R ‖ L in DES
/// order. Consecutive stages chain without FP/IP (they cancel), as in triple DES.
#[inline(always)]
fn stages<L: Logic, const FOLDED: bool>(st: &mut [L; 64], keys: &[[u64; 48]], backwards: bool) {
    debug_assert!(keys.len().is_multiple_of(16) && (keys.len() / 16) % 2 == 1);
    let n = keys.len();
    // Which way the keys run is the direction, not a secret.
    let key = |i: usize| &keys[if backwards { n - 1 - i } else { i }];
    let (lo, hi) = st.split_at_mut(32);
    for s in 0..n / 16 {
        // Stage s starts with L in `a`, R in `b`; its output R16 ‖ L16 = (b, a) is the next
        // stage's L ‖ R, so the halves swap roles every stage.
        let (a, b): (&mut [L], &mut [L]) = if s % 2 == 0 {
            (&mut *lo, &mut *hi)
        } else {
            (&mut *hi, &mut *lo)
        };
        for r in (16 * s..16 * s + 16).step_by(2) {
            feistel::<L, FOLDED>(a, b, key(r));
            feistel::<L, FOLDED>(b, a, key(r + 1));
        }
    }
}

/// Encrypts one batch in plane form with the round-key masks of `keys` in execution
/// order, or from last to first when `backwards` (decryption with encryption's masks);
/// `FOLDED`: the masks have [`FOLD`] folded in (2-input lane types only).
#[inline(always)]
fn crypt_planes<L: Logic, const FOLDED: bool>(
    planes: &[L; 64],
    keys: &[[u64; 48]],
    backwards: bool,
) -> [L; 64] {
    // Built by gathering, not zeroed then filled: on a short message (one batch) the
    // zeroing and copying were a visible part of the call.
    let mut st: [L; 64] = core::array::from_fn(|i| planes[IN_PLANE[i]]);
    stages::<L, FOLDED>(&mut st, keys, backwards);
    // An odd number of stages leaves R16 in the high half and L16 in the low one.
    core::array::from_fn(|i| st[(OUT_SRC[i] + 32) % 64])
}

/// The whole bitsliced DES / triple-DES data path on 64 planes (the layout of
/// [`planes_from_blocks8`]) for an 8-, 16- or 24-byte key, over any [`Logic`] type: the
/// entry point an architecture model (the MX-1 SIMD matrix) uses to run the backends' own
/// round structure and S-box circuits on its lane type.
pub fn crypt_planes_for_key<L: Logic>(planes: &[L; 64], key: &[u8], decrypt: bool) -> [L; 64] {
    let mut masks = round_key_masks(&TdesKeys::new(key));
    let out = crypt_planes::<L, false>(planes, &masks, decrypt);
    masks.zeroize();
    out
}

/// Encryption's round-key masks and the direction they run in, in the shape the chain
/// and ECB kernel ([`crate::cipher::planes`]) takes.
pub(crate) struct DesPlanes<'a> {
    masks: &'a [[u64; 48]],
    backwards: bool,
    folded: bool,
}

impl PlaneCipher for DesPlanes<'_> {
    const BLOCK: usize = 8;
    type Planes<L: Lanes> = [L; 64];
    #[inline(always)]
    fn load<L: Lanes>(src: &[u8]) -> [L; 64] {
        planes_from_blocks8(src)
    }
    #[inline(always)]
    fn load_xor<L: Lanes>(src: &[u8], other: &[u8]) -> [L; 64] {
        planes_from_blocks8_xor(src, other)
    }
    #[inline(always)]
    fn crypt<L: Lanes>(&self, p: &mut [L; 64]) {
        *p = if self.folded {
            // A folded key is only built for widths whose lane types all have 2-input gates.
            assert!(L::TWO_INPUT_GATES, "folded DES masks on 3-input lanes");
            crypt_planes::<L, true>(p, self.masks, self.backwards)
        } else {
            crypt_planes::<L, false>(p, self.masks, self.backwards)
        };
    }
    #[inline(always)]
    fn store<L: Lanes>(p: &[L; 64], dst: &mut [u8]) {
        blocks8_from_planes(*p, dst)
    }
    #[inline(always)]
    fn store_xor<L: Lanes>(p: &[L; 64], dst: &mut [u8]) {
        blocks8_from_planes_xor(*p, dst)
    }
}

// ---- 3. Backend glue -------------------------------------------------------------------

/// Encryption's round-key masks: 16 sets of 48 masks per stage, in execution order.
/// Decryption's are the same sets in reverse order (EDE's stages run backwards with their
/// directions swapped, each stage's rounds reversed), so decryption reads these from the
/// last: a second copy was a third of a new 3DES key's set-up (with its wipe).
fn round_key_masks(keys: &TdesKeys) -> Vec<[u64; 48]> {
    super::bit_masks(keys.encryption_order(), 16 * keys.stages.len())
}

/// DES's round-key masks (encryption's; decryption reads them backwards), with [`FOLD`]
/// folded in when `folded`: what the `sliced` backends hold.
#[derive(Clone, Zeroize)]
pub(crate) struct DesKeys {
    masks: KeyMasks<48>,
    #[zeroize(skip)]
    folded: bool,
}

/// Wiped on drop by its [`KeyMasks`] themselves (a derived drop would wipe them twice).
impl ZeroizeOnDrop for DesKeys {}

impl PlaneKeys for DesKeys {
    type Cipher<'a> = DesPlanes<'a>;
    fn cipher(&self, decrypt: bool) -> DesPlanes<'_> {
        DesPlanes {
            masks: &self.masks,
            backwards: decrypt,
            folded: self.folded,
        }
    }

    /// Unlike AES's, DES's batch costs less on SSE2's 128 lanes than on the portable 64
    /// (AMD Zen 4 under `BITWEAVE_CPU=portable`, 2026-12-05, TSC cycles per batch: 3DES
    /// 7,000 against 8,350, DES 2,850 against 3,130), so its tails stay at 128: under the
    /// `aesni` cap 3DES-CBC decryption of 256 B ran 34.4 → 29.2 c/B, 128 B 68.4 → 58.1.
    fn tail(width: Width) -> Width {
        match width {
            #[cfg(target_arch = "x86_64")]
            Width::W128 => Width::W128,
            w => w.tail(),
        }
    }
}

/// DES or triple DES (EDE), bitsliced at a given lane width.
pub(crate) type DesSliced = Sliced<DesKeys>;

impl DesSliced {
    /// Keys the backend with an 8-, 16- or 24-byte key, or `None` if this CPU cannot run
    /// `width`.
    pub fn new(key: &[u8], width: Width) -> Option<Self> {
        if !width.available() {
            return None;
        }
        let mut masks = round_key_masks(&TdesKeys::new(key));
        // Every width the backend runs (its own and its tails') on 2-input lanes: fold.
        let folded = width.two_input_gates() && DesKeys::tail(width).two_input_gates();
        if folded {
            fold(&mut masks);
        }
        let masks = KeyMasks::new(masks);
        Some(Sliced::with_keys(DesKeys { masks, folded }, width))
    }
}

/// The truth tables of S-box `i` (0-based): output `m` (0 = MSB) as a 64-bit table indexed
/// by the 6-bit input (b1 = MSB), straight from [`SBOXES`].
pub fn sbox_tables(i: usize) -> [u64; 4] {
    let mut t = [0u64; 4];
    for v in 0..64usize {
        let row = ((v >> 4) & 2) | (v & 1);
        let col = (v >> 1) & 0xf;
        let s = SBOXES[i][row * 16 + col];
        for (m, tm) in t.iter_mut().enumerate() {
            *tm |= (((s >> (3 - m)) & 1) as u64) << v;
        }
    }
    t
}

/// The gate lists of S1..S8, traced from the generic circuit functions the backends run.
pub fn sbox_circuits() -> [Circuit; 8] {
    type SboxFn = fn([Trace; 6]) -> [Trace; 4];
    let fns: [SboxFn; 8] = [s1, s2, s3, s4, s5, s6, s7, s8];
    fns.map(|f| Circuit::record(6, |x| f(x.try_into().unwrap()).to_vec()))
}

/// The Rust source of `circuit.rs`: synthesises all eight S-boxes (searching every split
/// and build order; about a minute in release mode) and emits them.
pub fn circuit_source() -> String {
    use crate::slice::synth;
    let nets: Vec<synth::Netlist> = (0..8).map(|i| synth::best(&sbox_tables(i))).collect();
    let total: usize = nets.iter().map(|n| n.gates.len()).sum();
    let mut s = String::new();
    s += "//! DES S-boxes S1..S8 as circuits of 3-input gates. GENERATED by\n";
    s += "//! [`super::sliced::circuit_source`] (the synthesiser of [`crate::slice::synth`] run on\n";
    s += "//! the truth tables of [`super::SBOXES`]); do not edit. The test\n";
    s += "//! `circuit_file_is_current` re-synthesises with the recorded orders and compares;\n";
    s += "//! `BITWEAVE_REGEN_CIRCUITS=1 cargo test --release -p bitweave --lib circuit_file`\n";
    s += "//! rewrites this file.\n//!\n";
    s += "//! Input `x[0]` is the S-box input's first bit b1 (the row's high bit), `x[5]` is b6;\n";
    s += "//! output `[0]` is the most significant bit of the 4-bit result.\n";
    s += &format!("//! Total: {total} gates for the eight S-boxes.\n");
    s += "#![deny(unsafe_code)]\n\nuse crate::slice::Logic;\n\n";
    s += &orders_source(nets.iter().map(|n| (n.order, &n.build[..])));
    for (i, n) in nets.iter().enumerate() {
        s += "\n";
        s += &synth::emit(&format!("s{}", i + 1), &format!("S{}.", i + 1), n);
    }
    s
}

/// The recorded split and build orders of a generated circuit file, as its constants.
fn orders_source<'a>(nets: impl Iterator<Item = ([usize; 6], &'a [usize])>) -> String {
    let (orders, builds): (Vec<String>, Vec<String>) = nets
        .map(|(order, build)| (format!("{order:?}"), format!("{build:?}")))
        .unzip();
    format!(
        "/// The synthesiser's split order per S-box.\npub const SPLIT_ORDERS: [[usize; 6]; 8] = [\n    {},\n];\n\n\
         /// The order each S-box's outputs were built in.\npub const BUILD_ORDERS: [[usize; 4]; 8] = [\n    {},\n];\n",
        orders.join(",\n    "),
        builds.join(",\n    ")
    )
}

/// The Rust source of `circuit2.rs`: the eight S-boxes synthesised for 2-input gates
/// ([`crate::slice::synth2`], every split and build order; about three minutes in release
/// mode) and emitted.
pub fn circuit2_source() -> String {
    let nets: Vec<_> = (0..8)
        .map(|i| crate::slice::synth2::best(&sbox_tables(i)))
        .collect();
    circuit2_source_of(&nets)
}

/// `circuit2.rs` for the given netlists.
fn circuit2_source_of(nets: &[crate::slice::synth2::Netlist2]) -> String {
    use crate::slice::synth2;
    let complemented: Vec<Vec<bool>> = nets.iter().map(synth2::complemented).collect();
    let nots = complemented.iter().flatten().filter(|&&c| c).count();
    let total = nets.iter().map(|n| n.gates.len()).sum::<usize>() - nots;
    let mut s = String::new();
    s += "//! DES S-boxes S1..S8 as circuits of 2-input gates (AND, AND-NOT, OR, XOR), for lane\n";
    s += "//! types without a 3-input instruction. GENERATED by\n";
    s +=
        "//! [`super::sliced::circuit2_source`] (the synthesiser of [`crate::slice::synth2`] run\n";
    s += "//! on the truth tables of [`super::SBOXES`]); do not edit. The test\n";
    s += "//! `circuit2_file_is_current` re-synthesises with the recorded orders and compares;\n";
    s += "//! `BITWEAVE_REGEN_CIRCUITS=1 cargo test --release -p bitweave --lib circuit2_file`\n";
    s += "//! rewrites this file.\n//!\n";
    s += "//! Inputs and outputs as in [`super::circuit`], except that the outputs marked in\n";
    s += "//! [`COMPLEMENTED`] come out complemented: the bitsliced rounds fold those NOTs into\n";
    s += "//! the round keys ([`super::sliced`]).\n";
    s += &format!("//! Total: {total} gates for the eight S-boxes, and {nots} NOTs so folded.\n");
    s += "#![deny(unsafe_code)]\n\nuse crate::slice::Logic;\n\n";
    s += &orders_source(nets.iter().map(|n| (n.order, &n.build[..])));
    let rows: Vec<String> = complemented.iter().map(|c| format!("{c:?}")).collect();
    s += &format!(
        "\n/// Which outputs each S-box function returns complemented.\n\
         pub const COMPLEMENTED: [[bool; 4]; 8] = [\n    {},\n];\n",
        rows.join(",\n    ")
    );
    for (i, n) in nets.iter().enumerate() {
        s += "\n";
        s += &synth2::emit(&format!("s{}", i + 1), &format!("S{}.", i + 1), n);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::circuit::{BUILD_ORDERS, SPLIT_ORDERS};
    use super::*;
    use crate::slice::synth;
    use crate::slice::trace::Op;

    #[test]
    fn sbox_circuits_equal_the_tables_on_all_64_inputs() {
        // Lane v of input plane k is bit k of the S-box input v: one call covers all 64.
        let x: [u64; 6] = core::array::from_fn(synth::var);
        type SboxFn = fn([u64; 6]) -> [u64; 4];
        let fns: [SboxFn; 8] = [s1, s2, s3, s4, s5, s6, s7, s8];
        for (i, f) in fns.iter().enumerate() {
            assert_eq!(f(x), sbox_tables(i), "S{}", i + 1);
        }
        // The traced gate lists compute the same.
        for (i, c) in sbox_circuits().iter().enumerate() {
            assert_eq!(c.eval(&x), sbox_tables(i).to_vec(), "traced S{}", i + 1);
        }
    }

    #[test]
    fn circuit_file_is_current() {
        if std::env::var_os("BITWEAVE_REGEN_CIRCUITS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cipher/des/circuit.rs");
            std::fs::write(path, circuit_source()).unwrap();
            return;
        }
        let traced = sbox_circuits();
        for i in 0..8 {
            let net = synth::synthesize(&sbox_tables(i), SPLIT_ORDERS[i], &BUILD_ORDERS[i]);
            let gates: Vec<(u8, [u32; 3])> = traced[i]
                .gates
                .iter()
                .map(|g| match g.op {
                    Op::Tern(imm) => (imm, [g.a, g.b, g.c]),
                    other => panic!("unexpected {other:?}"),
                })
                .collect();
            let want: Vec<(u8, [u32; 3])> = net
                .gates
                .iter()
                .map(|g| (g.imm, g.ops.map(|o| o as u32)))
                .collect();
            assert_eq!(gates, want, "S{} differs from the synthesiser", i + 1);
        }
    }

    #[test]
    fn circuit2_file_is_current() {
        use super::super::circuit2;
        if std::env::var_os("BITWEAVE_REGEN_CIRCUITS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cipher/des/circuit2.rs");
            std::fs::write(path, circuit2_source()).unwrap();
            return;
        }
        let nets: Vec<_> = (0..8)
            .map(|i| {
                let (order, build) = (circuit2::SPLIT_ORDERS[i], circuit2::BUILD_ORDERS[i]);
                crate::slice::synth2::synthesize(&sbox_tables(i), order, &build)
            })
            .collect();
        assert!(
            circuit2_source_of(&nets) == include_str!("circuit2.rs"),
            "circuit2.rs differs from the synthesiser's output for its recorded orders"
        );
    }

    #[test]
    fn two_input_circuits_equal_the_tables_on_all_64_inputs() {
        use super::super::circuit2;
        let x: [u64; 6] = core::array::from_fn(synth::var);
        type SboxFn = fn([u64; 6]) -> [u64; 4];
        let fns: [SboxFn; 8] = [
            circuit2::s1,
            circuit2::s2,
            circuit2::s3,
            circuit2::s4,
            circuit2::s5,
            circuit2::s6,
            circuit2::s7,
            circuit2::s8,
        ];
        for (i, f) in fns.iter().enumerate() {
            let got = f(x);
            let fixed: [u64; 4] = core::array::from_fn(|m| {
                got[m] ^ u64::from(circuit2::COMPLEMENTED[i][m]).wrapping_neg()
            });
            assert_eq!(fixed, sbox_tables(i), "S{}", i + 1);
        }
    }

    #[test]
    fn folded_masks_give_the_same_cipher_on_2_input_lanes() {
        // 64 random blocks (one u64 batch) through DES and 3DES, both directions: the
        // folded masks with the complemented outputs as they are, and the plain masks with
        // each of those outputs fixed by a NOT, against `soft`.
        use crate::cipher::des::soft::DesSoft;
        use crate::cipher::BlockCipher;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for key_len in [8, 16, 24] {
            let key: Vec<u8> = (0..key_len).map(|_| next() as u8).collect();
            let blocks: Vec<u8> = (0..64 * 8).map(|_| next() as u8).collect();
            let planes = planes_from_blocks8::<u64>(&blocks);
            let plain = round_key_masks(&TdesKeys::new(&key));
            let mut folded = plain.clone();
            fold(&mut folded);
            assert_ne!(folded, plain, "the fold changes some masks");
            for backwards in [false, true] {
                let mut want = blocks.clone();
                let soft = DesSoft::new(&key);
                if backwards {
                    soft.decrypt_blocks(&mut want);
                } else {
                    soft.encrypt_blocks(&mut want);
                }
                for (name, out) in [
                    (
                        "plain",
                        crypt_planes::<u64, false>(&planes, &plain, backwards),
                    ),
                    (
                        "folded",
                        crypt_planes::<u64, true>(&planes, &folded, backwards),
                    ),
                ] {
                    let mut got = vec![0u8; blocks.len()];
                    blocks8_from_planes(out, &mut got);
                    assert_eq!(
                        got, want,
                        "{name}, {key_len}-byte key, backwards {backwards}"
                    );
                }
            }
        }
    }

    #[test]
    fn plane_tables_are_permutations() {
        for t in [IN_PLANE, OUT_SRC] {
            let mut seen = [false; 64];
            t.iter().for_each(|&p| seen[p] = true);
            assert!(seen.iter().all(|&s| s));
        }
    }
}
