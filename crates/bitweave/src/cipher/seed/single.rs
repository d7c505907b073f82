//! SEED one block at a time, for serial work — one CBC/CFB/OFB encryption chain, CFB8,
//! CFB1, a message of a few blocks — with the S-boxes on a CPU instruction: AESENCLAST
//! (`aesni`, x86-64) or GF2P8AFFINEINVQB (`gfni`, x86-64).
//!
//! The batch kernels (`seed::x86`) spread 8 or 16 blocks over a register's 32-bit
//! lanes; a chain has one block, and its 48 G functions run strictly one after another,
//! so here latency is everything. Each of the four Feistel words is held **broadcast** to
//! the four 32-bit lanes of an xmm register, and every step of G keeps that form (the
//! byte shuffles and masks are the same in every lane). A kernel supplies G on such a
//! word; `one_block_kernel!` builds the rounds, the block loop and the chain around it,
//! so both kernels share the round structure that keeps the chain's critical path to the
//! G functions alone.
//!
//! **Constant-time**: no table is indexed by data (shuffles take their index from a
//! register, in every lane at once); the key schedule runs the same G.
#![allow(unsafe_code)] // the kernels' G is a SIMD function pointer, called in `unsafe`

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::SeedKeySchedule;
use crate::bytes::{wipe, xor};
use crate::cipher::{
    cbc_decrypt_by_slabs, cfb_decrypt_by_slabs, ctr_by_batches, BlockCipher, Feedback, ModeKernels,
};
use crate::cpu::Feature;

/// A word broadcast to the four 32-bit lanes of a 128-bit register, and the lane
/// operations the rounds need: baseline SIMD on each architecture (SSE2, NEON), so a
/// kernel's G is the only part written per instruction set.
#[cfg(target_arch = "x86_64")]
pub(crate) mod lanes {
    use core::arch::x86_64::*;

    pub type V = __m128i;

    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn splat(w: u32) -> V {
        _mm_set1_epi32(w as i32)
    }
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn xor(a: V, b: V) -> V {
        _mm_xor_si128(a, b)
    }
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn add(a: V, b: V) -> V {
        _mm_add_epi32(a, b)
    }
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn or(a: V, b: V) -> V {
        _mm_or_si128(a, b)
    }
    /// Each lane shifted left by N bits.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn shl<const N: i32>(a: V) -> V {
        _mm_slli_epi32::<N>(a)
    }
    /// Each lane shifted right by N bits (zeros in).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn shr<const N: i32>(a: V) -> V {
        _mm_srli_epi32::<N>(a)
    }
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn zero() -> V {
        _mm_setzero_si128()
    }
    /// The word (lane 0).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub fn word(v: V) -> u32 {
        _mm_cvtsi128_si32(v) as u32
    }
}

/// See the x86-64 version: the same operations on NEON, bytes as the register type (the
/// S-box steps work on bytes).
#[cfg(target_arch = "aarch64")]
pub(crate) mod lanes {
    use core::arch::aarch64::*;

    pub type V = uint8x16_t;

    #[inline]
    #[target_feature(enable = "neon")]
    pub fn splat(w: u32) -> V {
        vreinterpretq_u8_u32(vdupq_n_u32(w))
    }
    #[inline]
    #[target_feature(enable = "neon")]
    pub fn xor(a: V, b: V) -> V {
        veorq_u8(a, b)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    pub fn add(a: V, b: V) -> V {
        vreinterpretq_u8_u32(vaddq_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b)))
    }
    #[inline]
    #[target_feature(enable = "neon")]
    pub fn or(a: V, b: V) -> V {
        vorrq_u8(a, b)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    pub fn shl<const N: i32>(a: V) -> V {
        vreinterpretq_u8_u32(vshlq_n_u32::<N>(vreinterpretq_u32_u8(a)))
    }
    #[inline]
    #[target_feature(enable = "neon")]
    pub fn shr<const N: i32>(a: V) -> V {
        vreinterpretq_u8_u32(vshrq_n_u32::<N>(vreinterpretq_u32_u8(a)))
    }
    #[inline]
    #[target_feature(enable = "neon")]
    pub fn zero() -> V {
        vdupq_n_u8(0)
    }
    /// The word (lane 0).
    #[inline]
    #[target_feature(enable = "neon")]
    pub fn word(v: V) -> u32 {
        vgetq_lane_u32::<0>(vreinterpretq_u32_u8(v))
    }
}

/// Round keys in the order a direction uses them.
pub(crate) type RoundKeys = [[u32; 2]; 16];

/// A single-block kernel: its name, the CPU features it needs and its entry points, each
/// `unsafe` because it runs those features' instructions.
pub struct Kernel {
    /// The registry name.
    pub name: &'static str,
    /// The CPU features every entry point needs.
    pub features: &'static [Feature],
    pub(crate) g_word: unsafe fn(u32) -> u32,
    /// Blocks its batch entry runs together (1: one after another).
    pub width: usize,
    pub(crate) crypt_blocks: unsafe fn(&mut [u8], &RoundKeys),
    pub(crate) chain: unsafe fn(Feedback, &mut [u8], &mut [u8], &RoundKeys),
    /// CFB8 and CFB1 encryption: (shift register, data, round keys).
    pub(crate) cfb8: unsafe fn(&mut [u8], &mut [u8], &RoundKeys),
    pub(crate) cfb1: unsafe fn(&mut [u8], &mut [u8], &RoundKeys),
}

impl Kernel {
    /// Whether this CPU can run the kernel (under the tier cap).
    pub fn available(&self) -> bool {
        crate::cpu::has_all(self.features)
    }

    /// G on one word (for tests against the table G), or `None` without the features.
    pub fn g(&self, w: u32) -> Option<u32> {
        // SAFETY: the features are checked before the call.
        self.available().then(|| unsafe { (self.g_word)(w) })
    }
}

/// SEED one block at a time on a [`Kernel`], round keys in both orders (wiped on drop).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SeedOneBlock {
    enc: RoundKeys,
    dec: RoundKeys,
    #[zeroize(skip)]
    kernel: &'static Kernel,
}

impl SeedOneBlock {
    /// Keys the backend with a 16-byte key, or `None` when this CPU cannot run `kernel`.
    pub fn new(key: &[u8], kernel: &'static Kernel) -> Option<Self> {
        if !kernel.available() {
            return None;
        }
        // SAFETY: the kernel's features were confirmed just above.
        let ks = SeedKeySchedule::new(key, |w| unsafe { (kernel.g_word)(w) });
        let enc = ks.round_keys;
        let mut dec = enc;
        dec.reverse();
        Some(SeedOneBlock { enc, dec, kernel })
    }
}

impl BlockCipher for SeedOneBlock {
    fn block_size(&self) -> usize {
        16
    }
    fn width(&self) -> usize {
        self.kernel.width
    }
    fn backend(&self) -> &'static str {
        self.kernel.name
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        // SAFETY: a SeedOneBlock exists only where `new` confirmed the kernel's features.
        unsafe { (self.kernel.crypt_blocks)(blocks, &self.enc) }
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        // SAFETY: as above.
        unsafe { (self.kernel.crypt_blocks)(blocks, &self.dec) }
    }
}

impl ModeKernels for SeedOneBlock {
    /// One chain keeps its feedback block in registers; several chains run one after
    /// another (each is serial anyway).
    fn encrypt_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        crate::cipher::chains_one_by_one(16, state, data, |st, d| {
            // SAFETY: as above.
            unsafe { (self.kernel.chain)(feedback, st, d, &self.enc) }
        })
    }
    fn cfb8_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        // SAFETY: as above.
        unsafe { (self.kernel.cfb8)(reg, data, &self.enc) }
    }
    fn cfb1_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        // SAFETY: as above.
        unsafe { (self.kernel.cfb1)(reg, data, &self.enc) }
    }

    // The serial backend also serves one-block calls of the batch modes (the registry's
    // `serial_blocks`): those take the block on the stack, without the generic loops'
    // scratch buffer and slab bookkeeping (a tenth of a 16-byte SEED-CTR call on Zen 4).

    fn ctr_keystream_xor(&self, counter: &mut [u8], data: &mut [u8]) {
        if counter.len() != 16 || data.is_empty() || data.len() > 16 {
            return ctr_by_batches(self, counter, data);
        }
        // The counter in 64-bit halves, read and written alike: a 16-byte load of what
        // two 8-byte stores wrote in the previous call cannot take them from the store
        // buffer and waits for them to retire.
        let half = |i: usize| u64::from_be_bytes(counter[8 * i..8 * i + 8].try_into().unwrap());
        let (hi, lo) = (half(0), half(1));
        let mut ks = [0u8; 16];
        ks[..8].copy_from_slice(&hi.to_be_bytes());
        ks[8..].copy_from_slice(&lo.to_be_bytes());
        self.encrypt_blocks(&mut ks);
        xor(data, &ks);
        wipe(&mut ks);
        let (lo, carry) = lo.overflowing_add(1);
        counter[..8].copy_from_slice(&hi.wrapping_add(carry as u64).to_be_bytes());
        counter[8..].copy_from_slice(&lo.to_be_bytes());
    }

    fn cbc_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        if prev.len() != 16 || data.len() != 16 {
            return cbc_decrypt_by_slabs(self, prev, data);
        }
        let next: [u8; 16] = data.try_into().unwrap();
        self.decrypt_blocks(data);
        xor(data, prev);
        prev.copy_from_slice(&next);
    }

    fn cfb_decrypt_rows(&self, prev: &mut [u8], data: &mut [u8]) {
        match <[u8; 16]>::try_from(&*prev) {
            Ok(mut ks) if data.len() <= 16 => {
                self.encrypt_blocks(&mut ks);
                if data.len() == 16 {
                    prev.copy_from_slice(data);
                }
                xor(data, &ks);
                wipe(&mut ks);
            }
            _ => cfb_decrypt_by_slabs(self, prev, data),
        }
    }
}

/// Builds a [`Kernel`] named `$name` from a G on broadcast words: `$g(x, &consts)`, with
/// `$consts::new()` its constants, all compiled for `$features` (the rounds are inlined
/// into one function per entry point, so G's instructions are scheduled across rounds).
/// Independent blocks run `in_step` at a time (`crypt_in_step`: as many as the registers
/// hold) unless the kernel names its own batch entry, `batch = (function, width)`, which
/// may hand its tail to `crypt_in_step`.
macro_rules! one_block_kernel {
    (
        $kernel:ident, $name:literal, $features:literal, $needs:expr, $consts:ident, $g:ident,
        in_step = $in_step:expr
    ) => {
        super::single::one_block_kernel!(
            $kernel,
            $name,
            $features,
            $needs,
            $consts,
            $g,
            in_step = $in_step,
            batch = (crypt_in_step, $in_step)
        );
    };
    (
        $kernel:ident, $name:literal, $features:literal, $needs:expr, $consts:ident, $g:ident,
        in_step = $in_step:expr, batch = ($batch:ident, $width:expr)
    ) => {
        /// The kernel, for [`super::single::SeedOneBlock`].
        pub static $kernel: super::single::Kernel = super::single::Kernel {
            name: $name,
            features: $needs,
            g_word,
            width: $width,
            crypt_blocks: $batch,
            chain,
            cfb8,
            cfb1,
        };

        type RoundKeys = super::single::RoundKeys;
        use super::single::lanes;

        /// G on one word, for the key schedule.
        #[target_feature(enable = $features)]
        fn g_word(w: u32) -> u32 {
            lanes::word($g(lanes::splat(w), &$consts::new()))
        }

        /// A block as its four big-endian words, each broadcast: [L0, L1, R0, R1].
        #[inline]
        #[target_feature(enable = $features)]
        fn load(x: u128) -> [lanes::V; 4] {
            core::array::from_fn(|i| lanes::splat((x >> (96 - 32 * i)) as u32))
        }

        /// The block of four broadcast words [W0, W1, W2, W3].
        #[inline]
        #[target_feature(enable = $features)]
        fn store(w: [lanes::V; 4]) -> u128 {
            w.iter()
                .fold(0u128, |acc, &v| (acc << 32) | lanes::word(v) as u128)
        }

        /// The 16 rounds on a block [L0, L1, R0, R1]; returns the output block
        /// [R0, R1, L0, L1].
        ///
        /// Per round, with (C, D) the half that feeds F and (L0, L1) the half it updates:
        /// t1 = G(C ⊕ D ⊕ K0 ⊕ K1); t0 = G((C ⊕ K0) + t1); t1 = G(t1 + t0);
        /// L0 ^= t0 + t1; L1 ^= t1; then the halves swap. Only the G chain is on the
        /// critical path: the next round's first input, L0' ⊕ L1' ⊕ K' =
        /// (t0 + t1) ⊕ (t1 ⊕ (L0 ⊕ L1 ⊕ K')), takes two instructions after the last G
        /// because the bracket is computed while G runs.
        #[inline]
        #[target_feature(enable = $features)]
        fn rounds(b: [lanes::V; 4], rk: &RoundKeys, cs: &$consts) -> [lanes::V; 4] {
            let [out] = rounds_in_step([b], rk, cs);
            out
        }

        /// [`rounds`] on N independent blocks (or lane groups of blocks) in step, so their
        /// G chains interleave and fill the units one chain leaves idle.
        #[inline]
        #[target_feature(enable = $features)]
        fn rounds_in_step<const N: usize>(
            b: [[lanes::V; 4]; N],
            rk: &RoundKeys,
            cs: &$consts,
        ) -> [[lanes::V; 4]; N] {
            use lanes::{add, splat, xor};
            let k01 = |k: &[u32; 2]| splat(k[0] ^ k[1]);
            let mut w = b;
            let mut x: [lanes::V; N] =
                core::array::from_fn(|n| xor(xor(w[n][2], w[n][3]), k01(&rk[0])));
            for (i, k) in rk.iter().enumerate() {
                for n in 0..N {
                    let [l0, l1, c, d] = w[n];
                    let ck0 = xor(c, splat(k[0]));
                    let ahead = match rk.get(i + 1) {
                        Some(next) => xor(xor(l0, l1), k01(next)),
                        None => lanes::zero(),
                    };
                    let t1 = $g(x[n], cs);
                    let t0 = $g(add(ck0, t1), cs);
                    let t1 = $g(add(t1, t0), cs);
                    let s = add(t0, t1);
                    x[n] = xor(s, xor(t1, ahead));
                    w[n] = [c, d, xor(l0, s), xor(l1, t1)];
                }
            }
            // After the last swap (C, D) is the half updated last: the output is R ‖ L.
            w.map(|[l0, l1, c, d]| [c, d, l0, l1])
        }

        /// Every block through the rounds of `rk`, `$in_step` at a time in step (a lone
        /// block's G chain leaves most of the core idle), then two, then one.
        #[target_feature(enable = $features)]
        fn crypt_in_step(blocks: &mut [u8], rk: &RoundKeys) {
            let c = $consts::new();
            let rest = crypt_groups::<{ $in_step }>(blocks, rk, &c);
            let rest = crypt_groups::<2>(rest, rk, &c);
            crypt_groups::<1>(rest, rk, &c);
        }

        /// Groups of N blocks through the rounds in step; returns the blocks left over.
        #[inline]
        #[target_feature(enable = $features)]
        fn crypt_groups<'a, const N: usize>(
            blocks: &'a mut [u8],
            rk: &RoundKeys,
            c: &$consts,
        ) -> &'a mut [u8] {
            let block = |g: &[u8], i: usize| {
                load(u128::from_be_bytes(
                    g[16 * i..16 * i + 16].try_into().expect("16 bytes"),
                ))
            };
            let mut groups = blocks.chunks_exact_mut(16 * N);
            for g in &mut groups {
                let out = rounds_in_step::<N>(core::array::from_fn(|i| block(g, i)), rk, c);
                for (b, w) in g.chunks_exact_mut(16).zip(out) {
                    b.copy_from_slice(&store(w).to_be_bytes());
                }
            }
            groups.into_remainder()
        }

        /// One chain over whole blocks, its feedback held as four broadcast words.
        #[target_feature(enable = $features)]
        fn chain(
            feedback: crate::cipher::Feedback,
            state: &mut [u8],
            data: &mut [u8],
            rk: &RoundKeys,
        ) {
            use crate::cipher::Feedback;
            let c = $consts::new();
            let xor4 = |a: [lanes::V; 4], b: [lanes::V; 4]| -> [lanes::V; 4] {
                core::array::from_fn(|i| lanes::xor(a[i], b[i]))
            };
            let mut z = load(u128::from_be_bytes(
                (&*state).try_into().expect("one block"),
            ));
            for b in data.chunks_exact_mut(16) {
                let p = load(u128::from_be_bytes((&*b).try_into().expect("16 bytes")));
                let out = match feedback {
                    Feedback::Cbc => {
                        z = rounds(xor4(z, p), rk, &c);
                        z
                    }
                    Feedback::Cfb => {
                        z = xor4(rounds(z, rk, &c), p);
                        z
                    }
                    Feedback::Ofb => {
                        z = rounds(z, rk, &c);
                        xor4(z, p)
                    }
                };
                b.copy_from_slice(&store(out).to_be_bytes());
            }
            state.copy_from_slice(&store(z).to_be_bytes());
        }

        /// One step of CFB with an S-bit shift (S + REST = 32): the register `w` (four
        /// broadcast words) encrypted, `unit` (S plaintext bits, low in the word) XORed
        /// with the keystream's top S bits, and that ciphertext unit shifted in at the
        /// bottom; returns the unit. The register never leaves the vector registers, so
        /// the chain is the block's rounds plus a shift, an XOR and an OR.
        #[inline]
        #[target_feature(enable = $features)]
        fn cfb_step<const S: i32, const REST: i32>(
            w: &mut [lanes::V; 4],
            unit: u32,
            rk: &RoundKeys,
            cs: &$consts,
        ) -> u32 {
            const { assert!(S + REST == 32) };
            use lanes::{or, shl, shr};
            let out = rounds(*w, rk, cs);
            let c = lanes::xor(shr::<REST>(out[0]), lanes::splat(unit));
            let [w0, w1, w2, w3] = *w;
            let joined = |hi, lo| or(shl::<S>(hi), shr::<REST>(lo));
            *w = [
                joined(w0, w1),
                joined(w1, w2),
                joined(w2, w3),
                or(shl::<S>(w3), c),
            ];
            lanes::word(c)
        }

        /// CFB8 encryption of `data`, `reg` the shift register.
        #[target_feature(enable = $features)]
        fn cfb8(reg: &mut [u8], data: &mut [u8], rk: &RoundKeys) {
            let cs = $consts::new();
            let mut w = load(u128::from_be_bytes((&*reg).try_into().expect("one block")));
            for b in data.iter_mut() {
                *b = cfb_step::<8, 24>(&mut w, *b as u32, rk, &cs) as u8;
            }
            reg.copy_from_slice(&store(w).to_be_bytes());
        }

        /// CFB1 encryption of `data` (each byte's bits from the most significant),
        /// `reg` the shift register.
        #[target_feature(enable = $features)]
        fn cfb1(reg: &mut [u8], data: &mut [u8], rk: &RoundKeys) {
            let cs = $consts::new();
            let mut w = load(u128::from_be_bytes((&*reg).try_into().expect("one block")));
            for b in data.iter_mut() {
                let mut out = 0u8;
                for bit in (0..8).rev() {
                    let c = cfb_step::<1, 31>(&mut w, (*b >> bit) as u32 & 1, rk, &cs);
                    out |= (c as u8) << bit;
                }
                *b = out;
            }
            reg.copy_from_slice(&store(w).to_be_bytes());
        }
    };
}
pub(crate) use one_block_kernel;
