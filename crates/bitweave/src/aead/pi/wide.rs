//! The whole-step kernel: many full triplex steps of one message (one common internal
//! state, consecutive counters) with the whole step — counter, both π, data, tag — in
//! vector registers, written once over a vector ISA ([`Kernel`]) and compiled for AVX-512
//! (`avx512`, zmm) and AVX2 (`avx2`, ymm). One register holds one state word of
//! `bits / w` blocks (π64: 8 blocks in a zmm, 4 in a ymm; π32: 16 and 8; π16: 32 and 16),
//! so no lane is wasted whatever the word size. On x86 the bulk of a message runs on
//! register pairs, two batches at once ([`blocks_paired`]). The same kernel on plain
//! words, two blocks per batch, is the `portable` backend's (`scalar`).
//!
//! Exact savings over the plain π, all algebra (PI-CIPHER.md §3):
//! - **ν reuse.** A state chunk is only ever read through ν (E1's `*` takes it as right
//!   operand), and E2 computes ν(I3), ν(I2), ν(I1) to chain its own `*`. So the next round,
//!   and the next π of the same block (whose capacity chunks I1, I3 pass unchanged), reuse
//!   them: 24 + 25 μ/ν halves per block instead of 66.
//! - **Constants folded into offsets.** μ adds a constant to a sum of three inputs; since 3
//!   is invertible mod 2^w there are offsets δ with δ_a + δ_b + δ_c equal to each constant.
//!   Where a `*` operand is itself a sum with a constant (J0 = μ(C)σ…, I3 = …σν(C')), the
//!   offsets ride in that constant for free and the next μ/ν skips its four constant adds.
//! - **Lane-invariant halves.** Every block of a message starts from the same state, so
//!   ν of chunks I1..I3 of the first π is computed once per call.
//!
//! Blocks enter and leave through an in-register transpose (no gathers): block `l` of a
//! batch sits in lane `IDX[l]`, which only the counters and the final tag sum need to know.
#![allow(unsafe_code)]

use super::engine::{ABSORB, DECRYPT};
use super::lanes::{mu_words, nu_words};
use super::layout::STATE_WORDS;
use super::word::{limbs, Word};

/// `[e(0), e(1), …, e(N-1)]` with `$i` bound to each index, written out. In the kernels'
/// generic code a closure (`core::array::from_fn`) is compiled without the kernel's target
/// features: with several codegen units (the default release profile of a crate that
/// depends on bitweave) its intrinsics stayed out-of-line calls, one per vector operation.
macro_rules! unroll {
    (3, $i:ident => $e:expr) => {
        [{ let $i = 0; $e }, { let $i = 1; $e }, { let $i = 2; $e }]
    };
    (4, $i:ident => $e:expr) => {
        [{ let $i = 0; $e }, { let $i = 1; $e }, { let $i = 2; $e }, { let $i = 3; $e }]
    };
    (8, $i:ident => $e:expr) => {{
        let [a, b, c, d] = unroll!(4, $i => $e);
        let [e, f, g, h] = unroll!(4, j => { let $i = j + 4; $e });
        [a, b, c, d, e, f, g, h]
    }};
    (16, $i:ident => $e:expr) => {{
        let [a, b, c, d, e, f, g, h] = unroll!(8, $i => $e);
        let [i, j, k, l, m, n, o, p] = unroll!(8, x => { let $i = x + 8; $e });
        [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p]
    }};
}
// The x86 ISAs (`avx2`, `avx512`) use it for their own register shuffles.
#[cfg(target_arch = "x86_64")]
pub(super) use unroll;

/// A vector register type and its word-size-independent operations.
///
/// # Safety
/// Every `unsafe fn` needs the ISA's target features (the implementor says which).
#[allow(clippy::missing_safety_doc)] // one contract for all methods, stated above
pub trait Isa {
    type V: Copy;
    /// Bytes per register.
    const BYTES: usize;
    unsafe fn zero() -> Self::V;
    unsafe fn xor(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn xor3(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    unsafe fn load(p: *const u8) -> Self::V;
    unsafe fn store(p: *mut u8, v: Self::V);
}

/// A word size on an ISA's registers.
///
/// # Safety
/// As [`Isa`].
#[allow(clippy::missing_safety_doc)]
pub trait Kernel<W: Word>: Isa {
    /// Blocks per batch: the lanes of one register.
    const L: usize;
    unsafe fn splat(w: W) -> Self::V;
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn rot_mu(s: [Self::V; 4]) -> [Self::V; 4];
    unsafe fn rot_nu(s: [Self::V; 4]) -> [Self::V; 4];
    /// 8 registers of memory order (batch blocks back to back) to word-sliced order.
    unsafe fn to_sliced(r: [Self::V; 8]) -> [Self::V; 8];
    /// The inverse of [`to_sliced`](Self::to_sliced).
    unsafe fn from_sliced(v: [Self::V; 8]) -> [Self::V; 8];
    /// The counter limbs of blocks `base + IDX[lane]`, lane-sliced; `idx` is the word-0
    /// register of [`to_sliced`](Self::to_sliced) applied to block numbers.
    unsafe fn counters(base: u64, idx: Self::V) -> [Self::V; 4];
}

/// Two registers of `I` as one: twice the blocks per batch, two independent dependency
/// chains through every π for the CPU to overlap. Where one register holds few lanes
/// (NEON: 2-8) a single batch leaves the vector units waiting on latency; the pair keeps
/// them busy. Memory order: the first `I::L` blocks of the batch, then the next `I::L`.
pub struct Twice<I>(core::marker::PhantomData<I>);

// SAFETY (for every method): each is `I`'s operation on both halves, under `I`'s contract;
// `load`/`store` touch `2 * I::BYTES` bytes, the `BYTES` the contract vouches for.
impl<I: Isa> Isa for Twice<I> {
    type V = [I::V; 2];
    const BYTES: usize = 2 * I::BYTES;
    #[inline(always)]
    unsafe fn zero() -> Self::V {
        // SAFETY: as above.
        unsafe { [I::zero(), I::zero()] }
    }
    #[inline(always)]
    unsafe fn xor(a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: as above.
        unsafe { [I::xor(a[0], b[0]), I::xor(a[1], b[1])] }
    }
    #[inline(always)]
    unsafe fn xor3(a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        // SAFETY: as above.
        unsafe { [I::xor3(a[0], b[0], c[0]), I::xor3(a[1], b[1], c[1])] }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self::V {
        // SAFETY: as above.
        unsafe { [I::load(p), I::load(p.add(I::BYTES))] }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self::V) {
        // SAFETY: as above.
        unsafe {
            I::store(p, v[0]);
            I::store(p.add(I::BYTES), v[1]);
        }
    }
}

impl<W: Word, I: Kernel<W>> Kernel<W> for Twice<I> {
    const L: usize = 2 * I::L;
    #[inline(always)]
    unsafe fn splat(w: W) -> Self::V {
        // SAFETY: as for `Isa` above.
        unsafe { [I::splat(w); 2] }
    }
    #[inline(always)]
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: as for `Isa` above.
        unsafe { [I::add(a[0], b[0]), I::add(a[1], b[1])] }
    }
    #[inline(always)]
    unsafe fn rot_mu(s: [Self::V; 4]) -> [Self::V; 4] {
        // SAFETY: as for `Isa` above.
        let (a, b) = unsafe {
            (
                I::rot_mu(unroll!(4, k => s[k][0])),
                I::rot_mu(unroll!(4, k => s[k][1])),
            )
        };
        unroll!(4, k => [a[k], b[k]])
    }
    #[inline(always)]
    unsafe fn rot_nu(s: [Self::V; 4]) -> [Self::V; 4] {
        // SAFETY: as for `Isa` above.
        let (a, b) = unsafe {
            (
                I::rot_nu(unroll!(4, k => s[k][0])),
                I::rot_nu(unroll!(4, k => s[k][1])),
            )
        };
        unroll!(4, k => [a[k], b[k]])
    }
    /// Registers 0-3 hold the first `I::L` blocks (as 8 registers of `I`), 4-7 the rest.
    #[inline(always)]
    unsafe fn to_sliced(r: [Self::V; 8]) -> [Self::V; 8] {
        // SAFETY: as for `Isa` above.
        unsafe {
            let a = I::to_sliced(unroll!(8, i => r[i / 2][i % 2]));
            let b = I::to_sliced(unroll!(8, i => r[4 + i / 2][i % 2]));
            unroll!(8, j => [a[j], b[j]])
        }
    }
    #[inline(always)]
    unsafe fn from_sliced(v: [Self::V; 8]) -> [Self::V; 8] {
        // SAFETY: as for `Isa` above.
        unsafe {
            let a = I::from_sliced(unroll!(8, j => v[j][0]));
            let b = I::from_sliced(unroll!(8, j => v[j][1]));
            let both = [a, b];
            unroll!(8, i => [both[i / 4][2 * (i % 4)], both[i / 4][2 * (i % 4) + 1]])
        }
    }
    /// Each half's lanes carry their own block numbers in `idx`.
    #[inline(always)]
    unsafe fn counters(base: u64, idx: Self::V) -> [Self::V; 4] {
        // SAFETY: as for `Isa` above.
        unsafe {
            let (a, b) = (I::counters(base, idx[0]), I::counters(base, idx[1]));
            unroll!(4, i => [a[i], b[i]])
        }
    }
}

/// The scalar arithmetic the constant offsets need.
pub trait Offsets: Word {
    /// Multiplicative inverse of 3 mod 2^w.
    const INV3: Self;
    fn mul(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
}

macro_rules! offsets {
    ($($t:ty = $inv3:expr),*) => {$(
        impl Offsets for $t {
            const INV3: $t = $inv3;
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
        }
    )*};
}
offsets!(u16 = 0xAAAB, u32 = 0xAAAA_AAAB, u64 = 0xAAAA_AAAA_AAAA_AAAB);

/// The shared tail of μ and ν: each output word is the XOR of three rotated sums.
#[inline(always)]
unsafe fn mix<I: Isa>(s: [I::V; 4], nu: bool) -> [I::V; 4] {
    // SAFETY: register-only work; the ISA's features are present (this fn's contract).
    unsafe {
        if nu {
            [
                I::xor3(s[1], s[2], s[3]),
                I::xor3(s[0], s[2], s[3]),
                I::xor3(s[0], s[1], s[3]),
                I::xor3(s[0], s[1], s[2]),
            ]
        } else {
            [
                I::xor3(s[0], s[1], s[3]),
                I::xor3(s[0], s[1], s[2]),
                I::xor3(s[1], s[2], s[3]),
                I::xor3(s[0], s[2], s[3]),
            ]
        }
    }
}

/// μ; `C == false` when the input already carries the offsets δ.
#[inline(always)]
unsafe fn mu<I: Kernel<W>, W: Word, const C: bool>(x: [I::V; 4]) -> [I::V; 4] {
    // SAFETY: register-only work; the ISA's features are present (this fn's contract).
    unsafe {
        let x01 = I::add(x[0], x[1]);
        let x23 = I::add(x[2], x[3]);
        let mut s = [
            I::add(x01, x[2]),
            I::add(x01, x[3]),
            I::add(x[0], x23),
            I::add(x[1], x23),
        ];
        if C {
            for (k, sk) in s.iter_mut().enumerate() {
                *sk = I::add(*sk, I::splat(W::C_MU[k]));
            }
        }
        mix::<I>(I::rot_mu(s), false)
    }
}

/// ν; `C == false` when the input already carries the offsets ε.
#[inline(always)]
unsafe fn nu<I: Kernel<W>, W: Word, const C: bool>(y: [I::V; 4]) -> [I::V; 4] {
    // SAFETY: register-only work; the ISA's features are present (this fn's contract).
    unsafe {
        let y01 = I::add(y[0], y[1]);
        let y23 = I::add(y[2], y[3]);
        let mut t = [
            I::add(y[0], y23),
            I::add(y[1], y23),
            I::add(y01, y[2]),
            I::add(y01, y[3]),
        ];
        if C {
            for (k, tk) in t.iter_mut().enumerate() {
                *tk = I::add(*tk, I::splat(W::C_NU[k]));
            }
        }
        mix::<I>(I::rot_nu(t), true)
    }
}

/// σ(a, b): word-wise sums, positions rotated left by one.
#[inline(always)]
unsafe fn sigma<I: Kernel<W>, W: Word>(a: [I::V; 4], b: [I::V; 4]) -> [I::V; 4] {
    // SAFETY: register-only work; the ISA's features are present (this fn's contract).
    unsafe {
        [
            I::add(a[1], b[1]),
            I::add(a[2], b[2]),
            I::add(a[3], b[3]),
            I::add(a[0], b[0]),
        ]
    }
}

/// σ(a, constant) with the constant's positions already rotated.
#[inline(always)]
unsafe fn sigma_k<I: Kernel<W>, W: Word>(a: [I::V; 4], k: &[W; 4]) -> [I::V; 4] {
    // SAFETY: register-only work; the ISA's features are present (this fn's contract).
    unsafe {
        [
            I::add(a[1], I::splat(k[0])),
            I::add(a[2], I::splat(k[1])),
            I::add(a[3], I::splat(k[2])),
            I::add(a[0], I::splat(k[3])),
        ]
    }
}

/// Per-round constants: `j0[r]` = σ(μ(C_r), ·)'s constant plus δ (so μ(J0) needs none),
/// `i3[r]` = σ(·, ν(C'_r))'s constant plus ε (so ν(I3) needs none), both position-rotated.
struct Keys<W> {
    j0: [[W; 4]; 3],
    i3: [[W; 4]; 3],
    /// ε itself, to take back out of a last round's I3 when the raw chunk is wanted.
    eps: [W; 4],
}

/// δ (for μ) or ε (for ν): offsets whose three-term sums are the half's constants.
fn offsets<W: Offsets>(c: [W; 4], nu: bool) -> [W; 4] {
    let s = c[0].add(c[1]).add(c[2]).add(c[3]).mul(W::INV3);
    // Word k of the offsets is the sum minus the constant of the term that leaves k out.
    if nu {
        // t0 omits y1, t1 omits y0, t2 omits y3, t3 omits y2.
        [s.sub(c[1]), s.sub(c[0]), s.sub(c[3]), s.sub(c[2])]
    } else {
        // s0 omits x3, s1 omits x2, s2 omits x1, s3 omits x0.
        [s.sub(c[3]), s.sub(c[2]), s.sub(c[1]), s.sub(c[0])]
    }
}

impl<W: Offsets> Keys<W> {
    fn new() -> Self {
        let delta = offsets::<W>(W::C_MU, false);
        let eps = offsets::<W>(W::C_NU, true);
        let rc = |r: usize, o: usize| -> [W; 4] { core::array::from_fn(|i| W::RC[8 * r + o + i]) };
        let rot = |v: [W; 4], off: [W; 4]| -> [W; 4] {
            core::array::from_fn(|i| v[(i + 1) % 4].add(off[i]))
        };
        Keys {
            j0: core::array::from_fn(|r| rot(mu_words(rc(r, 0)), delta)),
            i3: core::array::from_fn(|r| rot(nu_words(rc(r, 4)), eps)),
            eps,
        }
    }
}

/// What π returns: the rate chunks raw, the capacity chunks as ν images (all a later π
/// reads of them).
struct PiOut<V> {
    i0: [V; 4],
    i2: [V; 4],
    n1: [V; 4],
    n3: [V; 4],
    /// The raw capacity chunks too, for [`pi_states`] (I3 still carrying ε); a caller
    /// that does not read them does not pay for them once inlined.
    i1: [V; 4],
    i3e: [V; 4],
}

/// π from the ν images of its four input chunks.
#[inline(always)]
unsafe fn pi<I: Kernel<W>, W: Word>(k: &Keys<W>, mut nx: [[I::V; 4]; 4]) -> PiOut<I::V> {
    // SAFETY: register-only work; the ISA's features are present (this fn's contract).
    unsafe {
        let mut r = 0;
        loop {
            let j0 = sigma_k::<I, W>(nx[0], &k.j0[r]);
            let m0 = mu::<I, W, false>(j0);
            let m1 = mu::<I, W, true>(sigma::<I, W>(m0, nx[1]));
            let m2 = mu::<I, W, true>(sigma::<I, W>(m1, nx[2]));
            let m3 = mu::<I, W, true>(sigma::<I, W>(m2, nx[3]));
            let i3e = sigma_k::<I, W>(m3, &k.i3[r]);
            let n3 = nu::<I, W, false>(i3e);
            let i2 = sigma::<I, W>(m2, n3);
            let n2 = nu::<I, W, true>(i2);
            let i1 = sigma::<I, W>(m1, n2);
            let n1 = nu::<I, W, true>(i1);
            let i0 = sigma::<I, W>(m0, n1);
            r += 1;
            if r == 3 {
                return PiOut {
                    i0,
                    i2,
                    n1,
                    n3,
                    i1,
                    i3e,
                };
            }
            nx = [nu::<I, W, true>(i0), n1, n2, n3];
        }
    }
}

/// π on whole states, one register per state word (word `i` of every lane's state in
/// `x[i]`): the lane kernel, for what the whole-step kernel does not take — a message's
/// last few blocks, and the serial steps (initial π, AD fold, SMN) of many messages at
/// once. It is `pi` with ε taken back out of the last I3.
///
/// # Safety
/// The ISA's target features (see [`Isa`]).
#[inline(always)]
pub unsafe fn pi_states<I: Kernel<W>, W: Offsets>(x: [I::V; STATE_WORDS]) -> [I::V; STATE_WORDS] {
    // SAFETY: register-only work; the ISA's features are present (this fn's contract).
    unsafe {
        let keys = Keys::<W>::new();
        let nx =
            unroll!(4, c => nu::<I, W, true>([x[4 * c], x[4 * c + 1], x[4 * c + 2], x[4 * c + 3]]));
        let out = pi::<I, W>(&keys, nx);
        let i3: [I::V; 4] =
            unroll!(4, i => I::add(out.i3e[i], I::splat(W::default().sub(keys.eps[i]))));
        let chunks = [out.i0, out.i1, out.i2, i3];
        unroll!(16, i => chunks[i / 4][i % 4])
    }
}

/// ν of chunk `c` of a scalar state, as words.
fn nu_chunk<W: Word>(s: &[W; STATE_WORDS], c: usize) -> [W; 4] {
    nu_words([s[4 * c], s[4 * c + 1], s[4 * c + 2], s[4 * c + 3]])
}

/// The widest batch in bytes: eight registers of a zmm pair ([`Twice`]).
const MAX_BATCH: usize = 1024;

/// [`blocks`] on register pairs ([`Twice`]) for as many double batches as there are, then
/// on single registers for a last odd batch: two independent dependency chains through
/// every π (each of π's eight steps per round waits on the one before, so one chain
/// leaves the vector ports idle between steps), without making a message of one batch
/// wait for a second. Xeon family 6 model 207, 16 KiB, one message, encryption, TSC c/B:
/// `avx512` π64 1.25 → 1.16, π32 1.22 → 1.10 (π16 within the noise); `BITWEAVE_CPU=avx2`
/// π64 2.46 → 2.06, π32 2.51 → 2.10, π16 2.61 → 2.13. Pairs alone slowed one-batch
/// messages (π64 512 B 5.50 → 6.28) and 2-4 KiB multi-message calls.
///
/// # Safety
/// As [`blocks`].
#[inline(always)]
pub unsafe fn blocks_paired<I: Kernel<W>, W: Offsets, const MODE: u8>(
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) {
    let pair = 16 * I::BYTES;
    let paired = data.len() / pair * pair;
    let (head, tail) = data.split_at(paired);
    let split = paired.min(out.len());
    let (out_head, out_tail) = out.split_at_mut(split);
    // SAFETY: this fn's contract, passed on; `Twice<I>` runs `I`'s operations only.
    unsafe {
        blocks::<Twice<I>, W, MODE>(cis, ctr, head, out_head, tag);
        let done = (paired / (8 * I::BYTES) * I::L) as u64;
        blocks::<I, W, MODE>(cis, ctr.wrapping_add(done), tail, out_tail, tag);
    }
}

/// Runs `data.len() / (L × rate)` batches of full blocks of one message: block `b` uses
/// counter `ctr + b` on the common internal state `cis`. `MODE` is [`ABSORB`] (AD: no
/// output), `ENCRYPT` or [`DECRYPT`] (`out` as long as `data`). The rate words of every
/// block's second π are added into `tag`.
///
/// # Safety
/// The ISA's target features (see [`Isa`]).
#[inline(always)]
pub unsafe fn blocks<I: Kernel<W>, W: Offsets, const MODE: u8>(
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) {
    // SAFETY: the ISA's features are present (this fn's contract). Batch `b < n` is read at
    // `b * batch` of `data` (`n = data.len() / batch`) and written at the same offset of `out`,
    // which holds `n * batch` bytes (asserted above); `numbers` holds `MAX_BATCH` bytes, at
    // least what `load8` reads (asserted at compile time).
    unsafe {
        // Eight registers: one batch of L blocks of 8 rate words.
        const { assert!(8 * I::BYTES <= MAX_BATCH) };
        let batch = 8 * I::BYTES;
        let n = data.len() / batch;
        assert!(MODE == ABSORB || out.len() >= n * batch);
        let keys = Keys::<W>::new();
        // Lane-invariant: ν of chunks I1..I3 of the first π, chunk I0 before the counter.
        let nc: [[I::V; 4]; 3] = unroll!(3, c => {
            let words = nu_chunk(cis, c + 1);
            unroll!(4, i => I::splat(words[i]))
        });
        let c0: [I::V; 4] = unroll!(4, i => I::splat(cis[i]));
        // Block numbers through the same transpose: which lane holds which block.
        let mut numbers = [0u8; MAX_BATCH];
        for l in 0..I::L {
            numbers[l * 8 * W::BYTES] = l as u8;
        }
        let idx = I::to_sliced(load8::<I>(numbers.as_ptr()))[0];
        let mut acc = [I::zero(); 8];
        let lim = limbs::<W>();
        for b in 0..n {
            let base = ctr.wrapping_add((b * I::L) as u64);
            let limb = I::counters(base, idx);
            let x0: [I::V; 4] = unroll!(4, i => {
                if i < lim {
                    I::xor(c0[i], limb[i])
                } else {
                    c0[i]
                }
            });
            let p1 = pi::<I, W>(&keys, [nu::<I, W, true>(x0), nc[0], nc[1], nc[2]]);
            let d = I::to_sliced(load8::<I>(data.as_ptr().add(b * batch)));
            let ks = [p1.i0, p1.i2];
            let mut rate = [[I::zero(); 4]; 2];
            let mut o = [I::zero(); 8];
            for h in 0..2 {
                for i in 0..4 {
                    let x = I::xor(ks[h][i], d[4 * h + i]);
                    o[4 * h + i] = x;
                    rate[h][i] = if MODE == DECRYPT { d[4 * h + i] } else { x };
                }
            }
            if MODE != ABSORB {
                store8::<I>(out.as_mut_ptr().add(b * batch), I::from_sliced(o));
            }
            let p2 = pi::<I, W>(
                &keys,
                [
                    nu::<I, W, true>(rate[0]),
                    p1.n1,
                    nu::<I, W, true>(rate[1]),
                    p1.n3,
                ],
            );
            for i in 0..4 {
                acc[i] = I::add(acc[i], p2.i0[i]);
                acc[4 + i] = I::add(acc[4 + i], p2.i2[i]);
            }
        }
        for (t, a) in tag.iter_mut().zip(acc) {
            *t = t.add(hsum::<I, W>(a));
        }
    }
}

#[cfg(target_arch = "x86_64")]
/// An ISA's safe entry, `run_blocks`: [`blocks`] compiled with the ISA's target features
/// (one instance per word size and mode) behind the check that this CPU has them
/// (`available()` in the invoking module). Selection never hands out a kernel the CPU
/// lacks; the check turns a bug there into a panic instead of undefined behaviour.
macro_rules! entry {
    ($isa:ident, $features:literal) => {
        /// # Safety
        /// The CPU has the features named in `target_feature`.
        #[target_feature(enable = $features)]
        unsafe fn compiled<W: Offsets, const MODE: u8>(
            cis: &[W; STATE_WORDS],
            ctr: u64,
            data: &[u8],
            out: &mut [u8],
            tag: &mut [W; 8],
        ) where
            $isa: Kernel<W>,
        {
            // SAFETY: register-only work; the ISA's features are present (this fn's contract).
            unsafe { blocks_paired::<$isa, W, MODE>(cis, ctr, data, out, tag) }
        }

        /// Full batches of one message (`data.len()` a multiple of `L` blocks; see
        /// [`blocks_paired`]). Panics if the CPU lacks the features.
        pub fn run_blocks<W: Offsets>(
            mode: u8,
            cis: &[W; STATE_WORDS],
            ctr: u64,
            data: &[u8],
            out: &mut [u8],
            tag: &mut [W; 8],
        ) where
            $isa: Kernel<W>,
        {
            assert!(
                available(),
                "{} kernel called on a CPU without {}",
                stringify!($isa),
                $features
            );
            // SAFETY: available() (cpu::has/has_all for exactly these features, never more
            // than the CPU has) just returned true, the only requirement of `compiled`.
            unsafe {
                match mode {
                    ABSORB => compiled::<W, ABSORB>(cis, ctr, data, out, tag),
                    ENCRYPT => compiled::<W, ENCRYPT>(cis, ctr, data, out, tag),
                    _ => compiled::<W, DECRYPT>(cis, ctr, data, out, tag),
                }
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(super) use entry;

#[inline(always)]
unsafe fn load8<I: Isa>(p: *const u8) -> [I::V; 8] {
    // SAFETY: the ISA's features are present and `p` is valid for `8 * I::BYTES` bytes (the
    // caller's contract, kept by `blocks`).
    unsafe { unroll!(8, r => I::load(p.add(I::BYTES * r))) }
}

#[inline(always)]
unsafe fn store8<I: Isa>(p: *mut u8, v: [I::V; 8]) {
    // SAFETY: the ISA's features are present and `p` is valid for `8 * I::BYTES` bytes (the
    // caller's contract, kept by `blocks`).
    unsafe {
        for (r, x) in v.into_iter().enumerate() {
            I::store(p.add(I::BYTES * r), x);
        }
    }
}

/// The sum of all lanes, through memory (once per call, not per block).
#[inline(always)]
unsafe fn hsum<I: Kernel<W>, W: Word>(v: I::V) -> W {
    // SAFETY: the ISA's features are present (this fn's contract); `b` holds the widest
    // register, a zmm pair.
    unsafe {
        const { assert!(I::BYTES <= MAX_BATCH / 8) };
        let mut b = [0u8; MAX_BATCH / 8];
        I::store(b.as_mut_ptr(), v);
        (0..I::L).fold(W::default(), |a, l| a.add(W::load_le(&b[l * W::BYTES..])))
    }
}

/// Checks a whole-step kernel (`run`, batch width `width` blocks) against the same steps
/// one block at a time with the scalar π, on counters whose low limbs (and higher ones)
/// wrap inside a batch, in every mode.
#[cfg(test)]
pub(super) fn check_kernel<W: Word>(name: &str, (run, width): (super::engine::Blocks<W>, usize)) {
    tests::check(name, run, width)
}

#[cfg(test)]
mod tests {
    use super::super::engine::{Blocks, ABSORB, DECRYPT, ENCRYPT};
    use super::super::lanes::pi_single;
    use super::super::layout::{inject, rate_bytes, store_words, RATE_WORDS};
    use super::*;

    /// The same steps one block at a time with the scalar π.
    fn scalar<W: Word>(mode: u8, cis: &[W; 16], ctr: u64, data: &[u8], out: &mut [u8]) -> [W; 8] {
        let rb = rate_bytes::<W>();
        let mut tag = [W::default(); 8];
        for (b, blk) in data.chunks(rb).enumerate() {
            let mut s = *cis;
            inject(&mut s, ctr.wrapping_add(b as u64));
            pi_single(&mut s);
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                let d = W::load_le(&blk[k * W::BYTES..]);
                let o = s[i].xor(d);
                if mode != ABSORB {
                    o.store_le(&mut out[b * rb + k * W::BYTES..]);
                }
                s[i] = if mode == DECRYPT { d } else { o };
            }
            pi_single(&mut s);
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                tag[k] = tag[k].add(s[i]);
            }
        }
        tag
    }

    /// A kernel (`run`, batch width `width` blocks) against the scalar steps, on counters
    /// whose low limbs (and higher ones) wrap inside a batch.
    pub(super) fn check<W: Word>(name: &str, run: Blocks<W>, width: usize) {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let ctrs = [
            0,
            0xFFF0,
            0xFFFF_FFF5,
            0x0000_FFFF_FFFF_FFF9,
            0xFFFF_FFFF_FFFF_FFF0,
            next(),
        ];
        let batch = width * rate_bytes::<W>();
        for ctr in ctrs {
            for mode in [ABSORB, ENCRYPT, DECRYPT] {
                let cis: [W; 16] = core::array::from_fn(|_| W::limb(next(), 0));
                let data: Vec<u8> = (0..3 * batch).map(|_| next() as u8).collect();
                let (mut got, mut want) = (vec![0u8; data.len()], vec![0u8; data.len()]);
                let mut tag = [W::default(); 8];
                run(mode, &cis, ctr, &data, &mut got, &mut tag);
                let want_tag = scalar(mode, &cis, ctr, &data, &mut want);
                let what = format!("{name} w{} mode {mode} ctr {ctr:#x}", 8 * W::BYTES);
                assert_eq!(got, want, "{what}");
                let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
                store_words(&tag, &mut a[..rate_bytes::<W>()]);
                store_words(&want_tag, &mut b[..rate_bytes::<W>()]);
                assert_eq!(a, b, "tag {what}");
            }
        }
    }
}
