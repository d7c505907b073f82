//! `rotate256`'s kernel for a few independent blocks on CPUs with AVX-512 BITALG, VBMI
//! and GFNI (AMD Zen 4 and 5, Intel Ice Lake and later): eight blocks **byte-sliced**,
//! the S-boxes looked up by `vpshufbitqmb`.
//!
//! **Layout.** Eight blocks are held as 64 bytes, one byte per bit position of a block,
//! block b in bit 7 - b of every byte (`gf2p8affineqb` transposes each 8×8 bit matrix:
//! eight bytes of eight blocks become eight bit positions of eight blocks). A half is 32
//! such bytes, byte i its DES bit i + 1, so every bit permutation (IP, E, P, FP) is a
//! byte permutation (`vpermb`).
//!
//! **A round.** E gathers each S-box's six input bytes into its qword (`vpermb`), a
//! transpose turns them into one index byte per block (`gf2p8affineqb`), XORed with the
//! round key's six-bit chunk (`vpmultishiftqb` of the 48-bit key picks each chunk into its
//! S-box's qword). `vpshufbitqmb` then looks up 64 bits at once — in each qword one
//! S-box's 64-bit truth table of one output bit, indexed by that qword's eight bytes (its
//! eight blocks) — so four of them give every S-box output bit of the eight blocks as a
//! mask register. The four masks become bits of one byte per (S-box, block) and a second
//! transpose gives one byte per (S-box, output bit); P is a `vpermb`, and the XOR into
//! the other half ends the round. About 15 instructions a round for eight blocks, where
//! the one-block-per-ymm rounds (`shift_x86`) take ~36 per block.
//!
//! **Constant-time.** The truth tables sit in registers and are indexed by register
//! contents (a bit select inside each qword); nothing secret reaches an address or a
//! branch.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::shift_layout::TRUTH;
use super::{E, FP, IP, P};

/// Bytes per group: eight blocks.
const GROUP: usize = 64;

/// Eight blocks' byte q at qword q: byte 8q + b takes block b's byte q (an 8×8 byte
/// transpose, its own inverse).
static BYTES_BY_POSITION: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        idx[i] = ((i % 8) * 8 + i / 8) as u8;
        i += 1;
    }
    idx
};

/// IP on byte-sliced blocks: the left half (bytes 0-31), then the right (32-63).
static IP_INDEX: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        idx[i] = IP[i] - 1;
        i += 1;
    }
    idx
};

/// FP on the pre-output (R16 in bytes 0-31 of the first table, L16 in bytes 0-31 of the
/// second, `vpermi2b` indices 64 and up).
static FP_INDEX: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let m = FP[i] as usize - 1;
        idx[i] = if m < 32 { m as u8 } else { (64 + m - 32) as u8 };
        i += 1;
    }
    idx
};

/// E: S-box s's qword holds its inputs b1..b6 in bytes 2..7 (so that the transpose puts
/// b1 in bit 5 of the index and b6 in bit 0); bytes 0 and 1 are never read.
static E_INDEX: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut s = 0;
    while s < 8 {
        let mut i = 1;
        while i <= 6 {
            idx[8 * s + 1 + i] = E[6 * s + i - 1] - 1;
            i += 1;
        }
        s += 1;
    }
    idx
};

/// P: f's byte i takes S-box output bit P\[i\] (1-based, 4s + j + 1), which the second
/// transpose leaves at byte 8s + j.
static P_INDEX: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 32 {
        let o = P[i] as usize - 1;
        idx[i] = (8 * (o / 4) + o % 4) as u8;
        i += 1;
    }
    idx
};

/// E after P: E's bytes taken straight from the S-box outputs (see [`P_INDEX`]).
static EP_INDEX: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        idx[i] = P_INDEX[E_INDEX[i] as usize];
        i += 1;
    }
    idx
};

/// The shift method's truth tables ([`TRUTH`]) by output bit: `BY_OUTPUT_BIT[j]` holds in
/// qword s the table of output bit j of S-box s + 1.
static BY_OUTPUT_BIT: [[u64; 8]; 4] = {
    let mut t = [[0u64; 8]; 4];
    let mut j = 0;
    while j < 4 {
        let mut s = 0;
        while s < 8 {
            t[j][s] = TRUTH[s][j];
            s += 1;
        }
        j += 1;
    }
    t
};

/// `vpmultishiftqb` controls: qword s's bytes take the round key's chunk s (bits
/// 47 - 6s .. 42 - 6s of the 48-bit key, b1 first) into their low six bits.
static KEY_CHUNKS: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        idx[i] = (42 - 6 * (i / 8)) as u8;
        i += 1;
    }
    idx
};

/// The transposes' data bytes: byte b of a qword selects bit 7 - b (block b).
const BLOCK_BITS: i64 = 0x0102_0408_1020_4080;

/// Output bit j of the S-box bits (the second transpose): bytes 0..3 of a qword select
/// bits 0..3.
const OUTPUT_BITS: i64 = 0x0000_0000_0804_0201;

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
fn load(v: &[u8; 64]) -> __m512i {
    // SAFETY: 64 readable bytes; loadu has no alignment requirement.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
fn load_words(v: &[u64; 8]) -> __m512i {
    // SAFETY: 64 readable bytes; loadu has no alignment requirement.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

/// The constants of a round, in registers.
struct Consts {
    e: __m512i,
    p: __m512i,
    ep: __m512i,
    chunks: __m512i,
    truth: [__m512i; 4],
    block_bits: __m512i,
    output_bits: __m512i,
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
    fn new() -> Self {
        Consts {
            e: load(&E_INDEX),
            p: load(&P_INDEX),
            ep: load(&EP_INDEX),
            chunks: load(&KEY_CHUNKS),
            truth: [
                load_words(&BY_OUTPUT_BIT[0]),
                load_words(&BY_OUTPUT_BIT[1]),
                load_words(&BY_OUTPUT_BIT[2]),
                load_words(&BY_OUTPUT_BIT[3]),
            ],
            block_bits: _mm512_set1_epi64(BLOCK_BITS),
            output_bits: _mm512_set1_epi64(OUTPUT_BITS),
        }
    }
}

/// The round key's six-bit chunks, each in every byte of its S-box's qword (the high two
/// bits of a byte are junk, which `vpshufbitqmb` ignores).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
fn key_chunks(key: u64, c: &Consts) -> __m512i {
    _mm512_multishift_epi64_epi8(c.chunks, _mm512_set1_epi64(key as i64))
}

/// A byte-sliced half's S-box indices: E, then the transpose to one index byte per (S-box,
/// block), without the key.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
fn indices(r: __m512i, c: &Consts) -> __m512i {
    _mm512_gf2p8affine_epi64_epi8::<0>(c.block_bits, _mm512_permutexvar_epi8(c.e, r))
}

/// The S-boxes on keyed index bytes: every output bit byte-sliced, output bit j of S-box s
/// in byte 8s + j (P not yet applied).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
fn outputs(x: __m512i, c: &Consts) -> __m512i {
    // Written out, not `array::from_fn` and closures: a closure is compiled without this
    // fn's target features, and in a crate with several codegen units each such
    // intrinsic may stay an out-of-line call (see `shift_x86::lanes4`).
    let k = [
        _mm512_bitshuffle_epi64_mask(c.truth[0], x),
        _mm512_bitshuffle_epi64_mask(c.truth[1], x),
        _mm512_bitshuffle_epi64_mask(c.truth[2], x),
        _mm512_bitshuffle_epi64_mask(c.truth[3], x),
    ];
    // Bit j of byte 8s + b: output bit j of S-box s for block b.
    let bits = _mm512_or_si512(pair(k[0], k[1], 1), pair(k[2], k[3], 4));
    _mm512_gf2p8affine_epi64_epi8::<0>(c.output_bits, bits)
}

/// `low` in the bytes where `k0` is set plus `2 low` where `k1` is: two output bits of
/// the S-boxes as bits of one byte per (S-box, block).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
fn pair(k0: __mmask64, k1: __mmask64, low: i8) -> __m512i {
    let first = _mm512_maskz_mov_epi8(k0, _mm512_set1_epi8(low));
    _mm512_mask_add_epi8(first, k1, first, _mm512_set1_epi8(2 * low))
}

/// f of a byte-sliced half (bytes 0-31) under a round key's [`key_chunks`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
fn f(r: __m512i, chunks: __m512i, c: &Consts) -> __m512i {
    let x = _mm512_xor_si512(indices(r, c), chunks);
    _mm512_permutexvar_epi8(c.p, outputs(x, c))
}

/// `G` groups of eight blocks at `p` through the rounds of `keys` (48-bit round keys in
/// order, 16 per DES stage), in place, their rounds interleaved: one group's round is a
/// chain of ~30 core cycles that leaves most of the vector pipes idle (AMD Zen 4, 3DES:
/// one group 16.7 TSC c/B, four in step 6.8, ~12.6 core cycles a group's round).
/// Balanced passes (see [`crypt`]) keep every group of a pass on one chain's time.
///
/// # Safety
/// `64 G` bytes at `p` must be readable and writable; the CPU must have this module's
/// features.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
unsafe fn crypt_groups<const G: usize>(p: *mut u8, keys: &[u64], c: &Consts) {
    let (by_position, block_bits) = (load(&BYTES_BY_POSITION), c.block_bits);
    let (ip, fp) = (load(&IP_INDEX), load(&FP_INDEX));
    let mut l = [_mm512_setzero_si512(); G];
    let mut r = [_mm512_setzero_si512(); G];
    for g in 0..G {
        // SAFETY: group g's 64 bytes lie within the caller's `64 G`.
        let x = unsafe { _mm512_loadu_si512(p.add(GROUP * g).cast()) };
        let sliced =
            _mm512_gf2p8affine_epi64_epi8::<0>(block_bits, _mm512_permutexvar_epi8(by_position, x));
        l[g] = _mm512_permutexvar_epi8(ip, sliced);
        r[g] = _mm512_shuffle_i64x2::<0b00_00_11_10>(l[g], l[g]);
    }
    // One or two groups wait on one round's chain: there the next round's indices come
    // from this round's outputs through E∘P in one `vpermb` (E, P and the transpose are
    // linear, so the indices of l ⊕ P(y) are those of l, kept from the round before, ⊕
    // those of P(y)), and the half itself is updated beside that chain: one `vpermb`
    // fewer on it, one operation more a round (AMD Zen 4, 2026-12-03, TSC c/B, best of
    // three alternating runs: 3DES ECB 32 B 34.3 → 30.4, 64 B 16.7 → 15.0, 128 B 10.1 →
    // 9.6; three and four groups, whose pipes are full, unchanged, so they keep f).
    let fused = G <= 2;
    let (mut xl, mut xr) = ([_mm512_setzero_si512(); G], [_mm512_setzero_si512(); G]);
    if fused {
        for g in 0..G {
            (xl[g], xr[g]) = (indices(l[g], c), indices(r[g], c));
        }
    }
    for stage in keys.chunks_exact(16) {
        for &k in stage {
            let chunks = key_chunks(k, c);
            for g in 0..G {
                if fused {
                    let y = outputs(_mm512_xor_si512(xr[g], chunks), c);
                    let next = _mm512_gf2p8affine_epi64_epi8::<0>(
                        block_bits,
                        _mm512_permutexvar_epi8(c.ep, y),
                    );
                    let half = _mm512_xor_si512(l[g], _mm512_permutexvar_epi8(c.p, y));
                    (l[g], r[g]) = (r[g], half);
                    (xl[g], xr[g]) = (xr[g], _mm512_xor_si512(xl[g], next));
                } else {
                    (l[g], r[g]) = (r[g], _mm512_xor_si512(l[g], f(r[g], chunks, c)));
                }
            }
        }
        // The stage's final swap: (l, r) is its pre-output (R16, L16), the next stage's
        // input (FP and IP cancel between stages).
        (l, r) = (r, l);
        (xl, xr) = (xr, xl);
    }
    for g in 0..G {
        let pre = _mm512_permutex2var_epi8(l[g], fp, r[g]);
        let out = _mm512_permutexvar_epi8(
            by_position,
            _mm512_gf2p8affine_epi64_epi8::<0>(block_bits, pre),
        );
        // SAFETY: as above.
        unsafe { _mm512_storeu_si512(p.add(GROUP * g).cast(), out) };
    }
}

/// Groups of eight blocks interleaved in one pass, at most.
const IN_STEP: usize = 4;

/// [`crypt_groups`] for a run-time count of 1 to [`IN_STEP`] groups.
///
/// # Safety
/// As [`crypt_groups`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
unsafe fn crypt_some(groups: usize, p: *mut u8, keys: &[u64], c: &Consts) {
    // SAFETY: (every arm) the caller's contract.
    unsafe {
        match groups {
            1 => crypt_groups::<1>(p, keys, c),
            2 => crypt_groups::<2>(p, keys, c),
            3 => crypt_groups::<3>(p, keys, c),
            _ => crypt_groups::<4>(p, keys, c),
        }
    }
}

/// Every block of `blocks` (whole 8-byte blocks) through `keys`, up to [`IN_STEP`] groups
/// of eight at a time; a last, partial group goes with the groups of its pass through a
/// zero-padded copy, wiped after.
///
/// # Safety
/// The CPU must have this module's features ([`available`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni,avx512bitalg")]
pub(crate) unsafe fn crypt(blocks: &mut [u8], keys: &[u64]) {
    let c = Consts::new();
    let mut rest = blocks;
    while !rest.is_empty() {
        // The passes' sizes balanced (five groups as three and two, not four and one): a
        // pass costs about its slowest group's chain until the pipes fill.
        let left = rest.len().div_ceil(GROUP);
        let groups = left.div_ceil(left.div_ceil(IN_STEP));
        let (now, later) = rest.split_at_mut((GROUP * groups).min(rest.len()));
        if now.len() == GROUP * groups {
            // SAFETY: `now` holds `groups` groups; the features are this fn's contract.
            unsafe { crypt_some(groups, now.as_mut_ptr(), keys, &c) };
        } else {
            let mut buf = [0u8; GROUP * IN_STEP];
            buf[..now.len()].copy_from_slice(now);
            // SAFETY: as above, on the copy.
            unsafe { crypt_some(groups, buf.as_mut_ptr(), keys, &c) };
            now.copy_from_slice(&buf[..now.len()]);
            crate::bytes::wipe(&mut buf);
        }
        rest = later;
    }
}

/// Whether this CPU (under the tier cap) runs [`crypt`].
pub(crate) fn available() -> bool {
    use crate::cpu::Feature::*;
    crate::cpu::has_all(&[Avx512f, Avx512bw, Avx512vbmi, Gfni, Avx512bitalg])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block count through two groups and a tail, DES and 3DES, both directions,
    /// against `soft`.
    #[test]
    fn matches_soft() {
        if !available() {
            eprintln!("SKIPPED: no AVX-512 BITALG/VBMI/GFNI on this CPU; the byte-sliced DES kernel did not run");
            return;
        }
        let counts = (0..=40usize).chain([63, 64, 65]);
        super::super::assert_matches_soft("bitalg", counts, |keys, data| {
            // SAFETY: the features were checked above.
            unsafe { crypt(data, keys) }
        });
    }
}
