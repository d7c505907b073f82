//! `aesni` (SEED): one block at a time with the S-boxes on AESENCLAST, for serial work —
//! one CBC/CFB/OFB encryption chain, CFB8, CFB1, a message of a few blocks.
//!
//! The batch kernels ([`super::x86`]) spread 8 or 16 blocks over a register's 32-bit
//! lanes; a chain has one block, and its 48 G functions run strictly one after another,
//! so here latency is everything. Each of the four Feistel words is held **broadcast** to
//! the four 32-bit lanes of an xmm register. Every step of G keeps that form (the byte
//! shuffles and masks are the same in every lane), and it saves a step: AESENCLAST's
//! ShiftRows moves byte r of column c to column c − r, which on four equal columns
//! changes nothing, so the inverse-ShiftRows shuffle of the batch kernel goes away.
//!
//! G, per word: the two nibble lookups of SEED's field → AES's field (`pshufb`),
//! AESENCLAST with a zero round key (inversion and AES's affine map), each S-box kind's
//! map back (two nibble lookups), a byte blend (even bytes S1, odd bytes S2) and the masked
//! mixing as three byte rotations ([`super::field::MIX`]): 17 instructions in a row, and
//! measured at about 18 cycles per G with the additions between them (AMD Zen 3, CBC
//! 55 c/B = 880 cycles per block of 48 G).
//!
//! **Constant-time**: no table is indexed by data (`pshufb` takes its index from a
//! register, in every lane at once); the key schedule runs the same G.
//!
//! Needs AES-NI, SSSE3 and SSE4.1 only, so it also serves CPUs without AVX2.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::field::{NibbleMap, AES_IN, AES_OUT_S1, AES_OUT_S2, MIX};
use super::x86::{ROTL16, ROTL24, ROTL8};
use super::SeedKeySchedule;
use crate::cipher::{shift_left_one_bit, BlockCipher, Feedback};
use crate::cpu::Feature;

/// The CPU features the backend needs.
pub const FEATURES: &[Feature] = &[Feature::Aes, Feature::Ssse3, Feature::Sse41];

/// SEED on AES-NI, one block at a time, round keys in both orders (wiped on drop).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SeedAesNi {
    enc: [[u32; 2]; 16],
    dec: [[u32; 2]; 16],
}

impl SeedAesNi {
    /// Keys the backend with a 16-byte key, or `None` when this CPU lacks [`FEATURES`].
    pub fn new(key: &[u8]) -> Option<Self> {
        if !crate::cpu::has_all(FEATURES) {
            return None;
        }
        // SAFETY: the features were confirmed just above.
        let ks = SeedKeySchedule::new(key, |w| unsafe { g_word(w) });
        let enc = ks.round_keys;
        let mut dec = enc;
        dec.reverse();
        Some(SeedAesNi { enc, dec })
    }

    /// G on one word (for tests against the table G), or `None` without [`FEATURES`].
    pub fn g(w: u32) -> Option<u32> {
        // SAFETY: the features are checked before the call.
        crate::cpu::has_all(FEATURES).then(|| unsafe { g_word(w) })
    }
}

impl BlockCipher for SeedAesNi {
    fn block_size(&self) -> usize {
        16
    }
    fn width(&self) -> usize {
        1
    }
    fn backend(&self) -> &'static str {
        "aesni"
    }
    fn encrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        // SAFETY: a SeedAesNi exists only where `new` confirmed the features.
        unsafe { crypt_blocks(blocks, &self.enc) }
    }
    fn decrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "whole blocks only");
        // SAFETY: as above.
        unsafe { crypt_blocks(blocks, &self.dec) }
    }
    /// One chain keeps its feedback block in registers; several chains run one after
    /// another (each is serial anyway).
    fn encrypt_chains(&self, feedback: Feedback, state: &mut [u8], data: &mut [u8]) {
        crate::cipher::chains_one_by_one(16, state, data, |st, d| {
            // SAFETY: a SeedAesNi exists only where `new` confirmed the features.
            unsafe { chain(feedback, st, d, &self.enc) }
        })
    }
    fn cfb8_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        let mut r = u128::from_be_bytes(reg.try_into().expect("one block"));
        for b in data.iter_mut() {
            // SAFETY: as above.
            let ks = unsafe { encrypt_u128(r, &self.enc) };
            *b ^= (ks >> 120) as u8;
            r = (r << 8) | *b as u128;
        }
        reg.copy_from_slice(&r.to_be_bytes());
        r.zeroize();
    }
    fn cfb1_encrypt(&self, reg: &mut [u8], data: &mut [u8]) {
        for b in data.iter_mut() {
            let mut out = 0u8;
            for bit in (0..8).rev() {
                let r = u128::from_be_bytes((&*reg).try_into().expect("one block"));
                // SAFETY: as above.
                let ks = unsafe { encrypt_u128(r, &self.enc) };
                let c = ((*b >> bit) & 1) ^ (ks >> 127) as u8;
                out |= c << bit;
                shift_left_one_bit(reg, c);
            }
            *b = out;
        }
    }
}

/// A word broadcast to the four 32-bit lanes.
type V = __m128i;

/// G's vector constants, built once per call (public constants, not secrets).
struct Consts {
    low: V,
    to_aes: [V; 2],
    s1: [V; 2],
    s2: [V; 2],
    odd: V,
    mix: [V; 4],
    rotl: [V; 3],
}

impl Consts {
    #[inline]
    #[target_feature(enable = "aes,ssse3,sse4.1")]
    fn new() -> Self {
        let bytes = |b: &[u8; 16]| {
            // SAFETY: 16 readable bytes; loadu has no alignment requirement.
            unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
        };
        let tables = |m: &NibbleMap| [bytes(&m.lo), bytes(&m.hi)];
        Consts {
            low: _mm_set1_epi8(0x0f),
            to_aes: tables(&AES_IN),
            s1: tables(&AES_OUT_S1),
            s2: tables(&AES_OUT_S2),
            odd: _mm_set1_epi16(0xff00u16 as i16),
            mix: MIX.map(|m| _mm_set1_epi32(m as i32)),
            rotl: [bytes(&ROTL8), bytes(&ROTL16), bytes(&ROTL24)],
        }
    }
}

/// A byte map as two nibble lookups, on bytes already split into nibbles.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn map(lo: V, hi: V, t: &[V; 2]) -> V {
    _mm_xor_si128(_mm_shuffle_epi8(t[0], lo), _mm_shuffle_epi8(t[1], hi))
}

/// Bytes as low and high nibbles.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn nibbles(x: V, low: V) -> (V, V) {
    (
        _mm_and_si128(x, low),
        _mm_and_si128(_mm_srli_epi16::<4>(x), low),
    )
}

/// G on a broadcast word (see the module doc).
///
/// Tried and slower on Zen 3 (64 against 55 c/B in CBC): folding the mixing's masks into
/// the S-boxes' output maps, one instruction shorter on the critical path but eight
/// nibble lookups and four blends instead of four and one; the extra shuffles compete
/// with the critical ones for the two shuffle ports.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn g(x: V, c: &Consts) -> V {
    let (lo, hi) = nibbles(x, c.low);
    let s = _mm_aesenclast_si128(map(lo, hi, &c.to_aes), _mm_setzero_si128());
    let (lo, hi) = nibbles(s, c.low);
    let y = _mm_blendv_epi8(map(lo, hi, &c.s1), map(lo, hi, &c.s2), c.odd);
    let masked = |r: V, m: V| _mm_and_si128(r, m);
    let rot = |i: usize| _mm_shuffle_epi8(y, c.rotl[i]);
    let z0 = _mm_xor_si128(masked(y, c.mix[0]), masked(rot(0), c.mix[1]));
    let z1 = _mm_xor_si128(masked(rot(1), c.mix[2]), masked(rot(2), c.mix[3]));
    _mm_xor_si128(z0, z1)
}

/// G on one word, for the key schedule.
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn g_word(w: u32) -> u32 {
    _mm_cvtsi128_si32(g(_mm_set1_epi32(w as i32), &Consts::new())) as u32
}

/// A block as its four big-endian words, each broadcast: [L0, L1, R0, R1].
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn load(x: u128) -> [V; 4] {
    core::array::from_fn(|i| _mm_set1_epi32((x >> (96 - 32 * i)) as u32 as i32))
}

/// The block of four broadcast words [W0, W1, W2, W3].
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn store(w: [V; 4]) -> u128 {
    w.iter().fold(0u128, |acc, &v| {
        (acc << 32) | _mm_cvtsi128_si32(v) as u32 as u128
    })
}

/// The 16 rounds on a block [L0, L1, R0, R1]; returns the output block [R0, R1, L0, L1].
///
/// Per round, with (C, D) the half that feeds F and (L0, L1) the half it updates:
/// t1 = G(C ⊕ D ⊕ K0 ⊕ K1); t0 = G((C ⊕ K0) + t1); t1 = G(t1 + t0); L0 ^= t0 + t1;
/// L1 ^= t1; then the halves swap. Only the G chain is on the critical path: the next
/// round's first input, L0' ⊕ L1' ⊕ K' = (t0 + t1) ⊕ (t1 ⊕ (L0 ⊕ L1 ⊕ K')), takes two
/// instructions after the last G because the bracket is computed while G runs.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn rounds(b: [V; 4], rk: &[[u32; 2]; 16], cs: &Consts) -> [V; 4] {
    let set1 = |w: u32| _mm_set1_epi32(w as i32);
    let k01 = |k: &[u32; 2]| set1(k[0] ^ k[1]);
    let [mut l0, mut l1, mut c, mut d] = b;
    let mut x = _mm_xor_si128(_mm_xor_si128(c, d), k01(&rk[0]));
    for (i, k) in rk.iter().enumerate() {
        let ck0 = _mm_xor_si128(c, set1(k[0]));
        let ahead = match rk.get(i + 1) {
            Some(next) => _mm_xor_si128(_mm_xor_si128(l0, l1), k01(next)),
            None => _mm_setzero_si128(),
        };
        let t1 = g(x, cs);
        let t0 = g(_mm_add_epi32(ck0, t1), cs);
        let t1 = g(_mm_add_epi32(t1, t0), cs);
        let s = _mm_add_epi32(t0, t1);
        x = _mm_xor_si128(s, _mm_xor_si128(t1, ahead));
        (l0, l1, c, d) = (c, d, _mm_xor_si128(l0, s), _mm_xor_si128(l1, t1));
    }
    // After the last swap (C, D) is the half updated last: the output is R ‖ L.
    [c, d, l0, l1]
}

/// Encrypts one block held as an integer (big-endian bytes).
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn encrypt_u128(x: u128, rk: &[[u32; 2]; 16]) -> u128 {
    store(rounds(load(x), rk, &Consts::new()))
}

/// Every block through the rounds of `rk`, one after another.
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn crypt_blocks(blocks: &mut [u8], rk: &[[u32; 2]; 16]) {
    let c = Consts::new();
    for b in blocks.chunks_exact_mut(16) {
        let x = u128::from_be_bytes(b.try_into().expect("16 bytes"));
        b.copy_from_slice(&store(rounds(load(x), rk, &c)).to_be_bytes());
    }
}

/// One chain over whole blocks, its feedback held as four broadcast words.
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn chain(feedback: Feedback, state: &mut [u8], data: &mut [u8], rk: &[[u32; 2]; 16]) {
    let c = Consts::new();
    let xor4 =
        |a: [V; 4], b: [V; 4]| -> [V; 4] { core::array::from_fn(|i| _mm_xor_si128(a[i], b[i])) };
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
