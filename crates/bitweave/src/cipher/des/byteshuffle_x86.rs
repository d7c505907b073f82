//! The kernel `shift256` and `shift64` hand independent blocks to: sixteen blocks
//! byte-sliced by S-box, the S-boxes looked up by `vpshufb`. `byteshuffle256` on AVX2
//! (ymm registers), `byteshuffle128` on SSSE3 and SSE4.1 (each register a pair of xmm).
//!
//! **Layout.** A half (L or R) of sixteen blocks is four registers of two 16-byte lanes.
//! Lane l of register r holds S-box [`LANES`]`[r][l]`'s input byte of each of the sixteen
//! blocks: its six bits of E(R) before the key, b1 in bit 7, b6 in bit 6 and b2..b5 in the
//! bits [`COLUMNS`] gives. A half is held expanded (each bit on a nibble's edge in two
//! bytes), so E costs nothing.
//!
//! **A round.** XOR the round key, held in the same form. Per register, four `vpshufb`
//! look up the four rows of its two S-boxes (a lane's table is one row of its S-box,
//! indexed by the column bits; `vpshufb` zeroes a byte whose bit 7 is set, so b1 picks
//! between two ORed lookups) and a byte blend on b6 picks the row. A table's bytes hold the
//! S-box's output bits where P and E send them in the other half's input bytes, so P is
//! the distribution: per (source register, its lanes swapped or not, destination
//! register), an AND keeps the bits bound there, a shift moves the few that had to sit
//! elsewhere in the byte (two output bits of an S-box bound for the same bit position),
//! and an XOR adds them to the other half. [`LANES`] and [`COLUMNS`] were chosen by a
//! search for the fewest such operations: 59 a round (26 ANDs, 26 XORs, 3 shifts, 4 lane
//! swaps), against 68 with the standard column order. About 110 vector operations a round
//! for sixteen blocks on ymm, where `shift256` takes ~41 a block; on xmm pairs nearly
//! twice as many, but swapping a register's lanes is free there.
//!
//! **Constant-time.** The tables sit in registers and are indexed by register contents
//! (`vpshufb`); the blend, the masks and the shifts are fixed. Nothing secret reaches an
//! address or a branch.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::shift_layout::{fp_word, ip_word};
use super::{P, SBOXES};

/// Blocks per group.
const BLOCKS: usize = 16;
/// Bytes per group.
const GROUP: usize = 8 * BLOCKS;

/// The S-box (0-based) each register lane holds: register r, lane l.
const LANES: [[usize; 2]; 4] = [[7, 1], [5, 6], [4, 3], [0, 2]];

/// `COLUMNS[t][q]`: the bit of S-box t's input byte that holds its input bit b(2+q).
const COLUMNS: [[u32; 4]; 8] = [
    [3, 1, 0, 2],
    [3, 1, 0, 2],
    [0, 1, 3, 2],
    [0, 1, 2, 3],
    [1, 3, 0, 2],
    [0, 1, 3, 2],
    [3, 0, 1, 2],
    [1, 0, 2, 3],
];

/// Bit 7 of an input byte: b1 (the row's high bit, which `vpshufb` tests).
const B1: u32 = 7;
/// Bit 6: b6 (the row's low bit, which the blend tests).
const B6: u32 = 6;

/// 32 bytes aligned for a ymm load.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
pub(crate) struct Ymm([u8; 32]);

/// A register's pattern: `lo` in every byte of lane 0, `hi` in every byte of lane 1.
const fn lanes_of(lo: u8, hi: u8) -> Ymm {
    let mut b = [lo; 32];
    let mut i = 16;
    while i < 32 {
        b[i] = hi;
        i += 1;
    }
    Ymm(b)
}

/// A register of eight 32-bit shift counts: `lo` in lane 0, `hi` in lane 1.
const fn counts_of(lo: u32, hi: u32) -> Ymm {
    let mut b = [0u8; 32];
    let mut i = 0;
    while i < 8 {
        let c = if i < 4 { lo } else { hi };
        b[4 * i] = c as u8;
        i += 1;
    }
    Ymm(b)
}

// ---- Where P and E send each S-box output bit ---------------------------------------

/// A place in a half's input bytes: (S-box, bit of its byte).
type Place = (usize, u32);

/// The places of the DES bit i (1-based) of a half: its column bit, and the b1 of the next
/// S-box (last bit of a nibble) or the b6 of the previous one (first bit).
const fn places_of(i: usize) -> [Option<Place>; 2] {
    let (t, q) = ((i - 1) / 4, (i - 1) % 4);
    let edge = match q {
        3 => Some(((t + 1) % 8, B1)),
        0 => Some(((t + 7) % 8, B6)),
        _ => None,
    };
    [Some((t, COLUMNS[t][q])), edge]
}

/// `SENT[s][j]`: where output bit j (0: the most significant) of S-box s goes after P.
const SENT: [[[Option<Place>; 2]; 4]; 8] = {
    let mut sent = [[[None; 2]; 4]; 8];
    let mut i = 1;
    while i <= 32 {
        let src = P[i - 1] as usize - 1;
        sent[src / 4][src % 4] = places_of(i);
        i += 1;
    }
    sent
};

/// `HELD[s][j][d]`: the bit of S-box s's table byte that holds output bit j for its d-th
/// place: the place's own bit where no other output bit of the S-box wants it, else the
/// nearest bit left free (the distribution shifts it into place).
const HELD: [[[u32; 2]; 4]; 8] = {
    let mut held = [[[0u32; 2]; 4]; 8];
    let mut s = 0;
    while s < 8 {
        // owner[b]: 1 + the output bit that bit b holds, 0 while free.
        let mut owner = [0usize; 8];
        let mut placed = [[false; 2]; 4];
        // First every place on its own bit, where free or already holding this output bit.
        let mut j = 0;
        while j < 4 {
            let mut d = 0;
            while d < 2 {
                if let Some((_, b)) = SENT[s][j][d] {
                    let b = b as usize;
                    if owner[b] == 0 || owner[b] == j + 1 {
                        owner[b] = j + 1;
                        held[s][j][d] = b as u32;
                        placed[j][d] = true;
                    }
                }
                d += 1;
            }
            j += 1;
        }
        // Then the rest on the nearest bit that is free or holds the same output bit.
        j = 0;
        while j < 4 {
            let mut d = 0;
            while d < 2 {
                if let (Some((_, want)), false) = (SENT[s][j][d], placed[j][d]) {
                    let mut best = 8usize;
                    let mut b = 0;
                    while b < 8 {
                        let usable = owner[b] == 0 || owner[b] == j + 1;
                        if usable && (best == 8 || distance(b, want) < distance(best, want)) {
                            best = b;
                        }
                        b += 1;
                    }
                    owner[best] = j + 1;
                    held[s][j][d] = best as u32;
                }
                d += 1;
            }
            j += 1;
        }
        s += 1;
    }
    held
};

const fn distance(b: usize, want: u32) -> usize {
    (b as i32 - want as i32).unsigned_abs() as usize
}

/// The standard column (b2 the most significant bit) of S-box t's entry e, whose column
/// bits are in [`COLUMNS`]' order.
const fn standard_column(t: usize, e: usize) -> usize {
    let mut col = 0;
    let mut q = 0;
    while q < 4 {
        col |= ((e >> COLUMNS[t][q]) & 1) << (3 - q);
        q += 1;
    }
    col
}

/// The lookup tables: `TABLES[r][row]` holds, in lane l, row `row` (b1 b6) of S-box
/// `LANES[r][l]` indexed by its column bits in [`COLUMNS`]'s order, each entry the
/// S-box's output bits on the bits [`HELD`] gives.
static TABLES: [[Ymm; 4]; 4] = {
    let mut tables = [[Ymm([0; 32]); 4]; 4];
    let mut r = 0;
    while r < 4 {
        let mut row = 0;
        while row < 4 {
            let mut l = 0;
            while l < 2 {
                let s = LANES[r][l];
                let mut e = 0;
                while e < 16 {
                    let v = SBOXES[s][row * 16 + standard_column(s, e)];
                    let mut byte = 0u8;
                    let mut j = 0;
                    while j < 4 {
                        if (v >> (3 - j)) & 1 == 1 {
                            let mut d = 0;
                            while d < 2 {
                                if SENT[s][j][d].is_some() {
                                    byte |= 1 << HELD[s][j][d];
                                }
                                d += 1;
                            }
                        }
                        j += 1;
                    }
                    tables[r][row].0[16 * l + e] = byte;
                    e += 1;
                }
                l += 1;
            }
            row += 1;
        }
        r += 1;
    }
    tables
};

/// One step of the distribution: the bits of register `src` (its lanes swapped if
/// `swapped`) that `mask` keeps, shifted per lane (`left[l]` then `right[l]` places),
/// XORed into register `dst` of the other half.
#[derive(Clone, Copy)]
struct Send {
    src: usize,
    swapped: bool,
    dst: usize,
    mask: Ymm,
    left: [i32; 2],
    right: [i32; 2],
}

/// At most this many steps (every source, orientation and destination with four shifts
/// per lane; 59 are used).
const MAX_SENDS: usize = 72;

/// The distribution, and how many of its steps are used.
const SENDS: ([Send; MAX_SENDS], usize) = {
    let none = Send {
        src: 0,
        swapped: false,
        dst: 0,
        mask: Ymm([0; 32]),
        left: [0; 2],
        right: [0; 2],
    };
    let mut sends = [none; MAX_SENDS];
    let mut n = 0;
    let mut src = 0;
    while src < 4 {
        let mut sw = 0;
        while sw < 2 {
            let mut dst = 0;
            while dst < 4 {
                // Per destination lane: the shifts its bits need (-7..=7 as 0..15) and the
                // source bits for each.
                let mut masks = [[0u8; 15]; 2];
                let mut l = 0;
                while l < 2 {
                    let s = LANES[src][if sw == 1 { 1 - l } else { l }];
                    let t = LANES[dst][l];
                    let mut j = 0;
                    while j < 4 {
                        let mut d = 0;
                        while d < 2 {
                            if let Some((to, bit)) = SENT[s][j][d] {
                                if to == t {
                                    let from = HELD[s][j][d];
                                    let shift = (bit as i32 - from as i32 + 7) as usize;
                                    masks[l][shift] |= 1 << from;
                                }
                            }
                            d += 1;
                        }
                        j += 1;
                    }
                    l += 1;
                }
                // Each lane's shifts, no shift first; the g-th of lane 0 pairs with the
                // g-th of lane 1.
                let mut order = [[0usize; 15]; 2];
                let mut len = [0usize; 2];
                let mut l = 0;
                while l < 2 {
                    let mut k = 0;
                    while k < 15 {
                        let i = (k + 7) % 15;
                        if masks[l][i] != 0 {
                            order[l][len[l]] = i;
                            len[l] += 1;
                        }
                        k += 1;
                    }
                    l += 1;
                }
                let mut g = 0;
                while g < len[0] || g < len[1] {
                    let (a, b) = (order[0][g], order[1][g]);
                    let (ma, sa) = if g < len[0] {
                        (masks[0][a], a as i32 - 7)
                    } else {
                        (0, 0)
                    };
                    let (mb, sb) = if g < len[1] {
                        (masks[1][b], b as i32 - 7)
                    } else {
                        (0, 0)
                    };
                    sends[n] = Send {
                        src,
                        swapped: sw == 1,
                        dst,
                        mask: lanes_of(ma, mb),
                        left: [positive(sa), positive(sb)],
                        right: [positive(-sa), positive(-sb)],
                    };
                    n += 1;
                    g += 1;
                }
                dst += 1;
            }
            sw += 1;
        }
        src += 1;
    }
    (sends, n)
};

/// `x` if positive, else 0.
const fn positive(x: i32) -> i32 {
    if x > 0 {
        x
    } else {
        0
    }
}

// ---- Round keys ------------------------------------------------------------------------

/// A round key (48 bits, bit 47 the first) in the registers' form: per register, each
/// lane's S-box's six key bits where its input byte holds them.
pub(crate) fn round_key(k: u64) -> [Ymm; 4] {
    let byte = |t: usize| {
        let chunk = ((k >> (42 - 6 * t)) & 63) as u8;
        let mut b = ((chunk >> 5) & 1) << B1 | (chunk & 1) << B6;
        for (q, &bit) in COLUMNS[t].iter().enumerate() {
            b |= ((chunk >> (4 - q)) & 1) << bit;
        }
        b
    };
    std::array::from_fn(|r| lanes_of(byte(LANES[r][0]), byte(LANES[r][1])))
}

// ---- Into and out of the registers ----------------------------------------------------

/// A half's input bytes as a u64: byte t is S-box t's b2..b5 (bits 3..0, the nibble t
/// from the top), b1 in bit 7 (the last bit of nibble t-1) and b6 in bit 6 (the first of
/// nibble t+1), in the standard column order.
const fn input_bytes(h: u32) -> u64 {
    const BYTES: u64 = 0x0101_0101_0101_0101;
    let mut u = h as u64;
    u = (u | u << 16) & 0x0000_FFFF_0000_FFFF;
    u = (u | u << 8) & 0x00FF_00FF_00FF_00FF;
    u = (u | u << 4) & (0x0F * BYTES);
    let n = u.swap_bytes();
    let b1 = (n.rotate_left(8) & BYTES) << 7;
    let b6 = (n.rotate_right(8) & (8 * BYTES)) << 3;
    n | b1 | b6
}

/// The half whose nibbles are the low nibbles of `n`'s bytes (byte t: nibble t from the
/// top): the inverse of [`input_bytes`] on its column bits.
const fn half_of(n: u64) -> u32 {
    let mut u = (n & 0x0F0F_0F0F_0F0F_0F0F).swap_bytes();
    u = (u | u >> 4) & 0x00FF_00FF_00FF_00FF;
    u = (u | u >> 8) & 0x0000_FFFF_0000_FFFF;
    u = (u | u >> 16) & 0xFFFF_FFFF;
    u as u32
}

/// Per 128-bit lane (two blocks' input bytes): the bytes by S-box in [`LANES`]' order,
/// the two blocks' bytes of each side by side.
static BY_SBOX: Ymm = by_sbox();

const fn by_sbox() -> Ymm {
    let mut b = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        let (p, e) = ((i % 16) / 2, i % 2);
        b[i] = (8 * e + LANES[p / 2][p % 2]) as u8;
        i += 1;
    }
    Ymm(b)
}

/// The inverse of [`BY_SBOX`].
static BY_BLOCK: Ymm = {
    let by_sbox = by_sbox();
    let mut b = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        b[16 * (i / 16) + by_sbox.0[i] as usize] = (i % 16) as u8;
        i += 1;
    }
    Ymm(b)
};

/// Per 128-bit lane: the even 16-bit words, then the odd ones.
static WORDS_UNZIPPED: Ymm = {
    let mut b = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        let w = (i % 16) / 2;
        let from = if w < 4 { 2 * w } else { 2 * (w - 4) + 1 };
        b[i] = (2 * from + i % 2) as u8;
        i += 1;
    }
    Ymm(b)
};

/// Per lane, the standard column bits (b2 in bit 3) to [`COLUMNS`]' bits, and back.
static TO_COLUMNS: [Ymm; 4] = column_maps(false);
static FROM_COLUMNS: [Ymm; 4] = column_maps(true);

const fn column_maps(back: bool) -> [Ymm; 4] {
    let mut maps = [Ymm([0; 32]); 4];
    let mut r = 0;
    while r < 4 {
        let mut l = 0;
        while l < 2 {
            let t = LANES[r][l];
            let mut e = 0;
            while e < 16 {
                let c = standard_column(t, e);
                if back {
                    maps[r].0[16 * l + e] = c as u8;
                } else {
                    maps[r].0[16 * l + c] = e as u8;
                }
                e += 1;
            }
            l += 1;
        }
        r += 1;
    }
    maps
}

// ---- The two widths -------------------------------------------------------------------

/// A width's registers and operations. A register holds two lanes of sixteen bytes: one
/// ymm register (`Avx2`), or two xmm registers, lane l in the l-th (`Ssse3`), where
/// swapping the lanes is free and a lane's shift is one immediate shift.
trait Width {
    type V: Copy;
    unsafe fn zero() -> Self::V;
    unsafe fn load(y: &Ymm) -> Self::V;
    unsafe fn and(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn xor(a: Self::V, b: Self::V) -> Self::V;
    /// The two lanes swapped.
    unsafe fn swap(x: Self::V) -> Self::V;
    /// Each lane l shifted left by `L_l` then right by `R_l` bit places (within bytes).
    unsafe fn shift<const L0: i32, const R0: i32, const L1: i32, const R1: i32>(
        x: Self::V,
        left: &Ymm,
        right: &Ymm,
    ) -> Self::V;
    /// Two S-boxes per register on input bytes `x` (key already XORed): the table bytes.
    unsafe fn look_up(x: Self::V, t: &[Ymm; 4]) -> Self::V;
    /// Sixteen blocks' input bytes (`q[b]` block b's, byte t S-box t's) in the registers'
    /// layout, their column bits in [`COLUMNS`]' order.
    unsafe fn to_registers(q: &[u64; BLOCKS]) -> [Self::V; 4];
    /// The inverse of `to_registers` on the column bits: per block, the half's nibbles in
    /// the low nibbles of its bytes.
    unsafe fn from_registers(x: &[Self::V; 4], q: &mut [u64; BLOCKS]);
}

/// One ymm register per register.
struct Avx2;

/// Two xmm registers per register.
struct Ssse3;

#[inline(always)]
unsafe fn load256(y: &Ymm) -> __m256i {
    // SAFETY: 32 readable, aligned bytes; AVX is every caller's feature.
    unsafe { _mm256_load_si256(y.0.as_ptr().cast()) }
}

#[inline(always)]
unsafe fn load128(y: &Ymm, lane: usize) -> __m128i {
    // SAFETY: 16 readable, aligned bytes at a lane of `y`.
    unsafe { _mm_load_si128(y.0.as_ptr().add(16 * lane).cast()) }
}

// SAFETY (every method of both impls): the intrinsics are the width's features (AVX2;
// SSSE3 and SSE4.1), which every caller has; the loads read static tables, round keys and
// `q`, all of the sizes read.
impl Width for Avx2 {
    type V = __m256i;

    #[inline(always)]
    unsafe fn zero() -> __m256i {
        // SAFETY: see the impl.
        unsafe { _mm256_setzero_si256() }
    }

    #[inline(always)]
    unsafe fn load(y: &Ymm) -> __m256i {
        // SAFETY: see the impl.
        unsafe { load256(y) }
    }

    #[inline(always)]
    unsafe fn and(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: see the impl.
        unsafe { _mm256_and_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn xor(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: see the impl.
        unsafe { _mm256_xor_si256(a, b) }
    }

    #[inline(always)]
    unsafe fn swap(x: __m256i) -> __m256i {
        // SAFETY: see the impl.
        unsafe { _mm256_permute2x128_si256::<1>(x, x) }
    }

    #[inline(always)]
    unsafe fn shift<const L0: i32, const R0: i32, const L1: i32, const R1: i32>(
        mut x: __m256i,
        left: &Ymm,
        right: &Ymm,
    ) -> __m256i {
        // SAFETY: see the impl.
        unsafe {
            if L0 > 0 || L1 > 0 {
                x = _mm256_sllv_epi32(x, load256(left));
            }
            if R0 > 0 || R1 > 0 {
                x = _mm256_srlv_epi32(x, load256(right));
            }
        }
        x
    }

    #[inline(always)]
    unsafe fn look_up(x: __m256i, t: &[Ymm; 4]) -> __m256i {
        // SAFETY: see the impl.
        unsafe {
            let flipped = _mm256_xor_si256(x, _mm256_set1_epi8(0x80u8 as i8));
            let b6_clear = _mm256_or_si256(
                _mm256_shuffle_epi8(load256(&t[0]), x),
                _mm256_shuffle_epi8(load256(&t[2]), flipped),
            );
            let b6_set = _mm256_or_si256(
                _mm256_shuffle_epi8(load256(&t[1]), x),
                _mm256_shuffle_epi8(load256(&t[3]), flipped),
            );
            _mm256_blendv_epi8(b6_clear, b6_set, _mm256_add_epi8(x, x))
        }
    }

    #[inline(always)]
    unsafe fn to_registers(q: &[u64; BLOCKS]) -> [__m256i; 4] {
        // SAFETY: see the impl.
        unsafe {
            let by = load256(&BY_SBOX);
            let mut a = [_mm256_setzero_si256(); 4];
            for (i, a) in a.iter_mut().enumerate() {
                *a = _mm256_shuffle_epi8(_mm256_loadu_si256(q.as_ptr().add(4 * i).cast()), by);
            }
            // Dwords of four blocks' bytes of one S-box, then qwords of eight.
            let w = [
                _mm256_unpacklo_epi16(a[0], a[1]),
                _mm256_unpackhi_epi16(a[0], a[1]),
                _mm256_unpacklo_epi16(a[2], a[3]),
                _mm256_unpackhi_epi16(a[2], a[3]),
            ];
            let d = [
                _mm256_unpacklo_epi32(w[0], w[2]),
                _mm256_unpackhi_epi32(w[0], w[2]),
                _mm256_unpacklo_epi32(w[1], w[3]),
                _mm256_unpackhi_epi32(w[1], w[3]),
            ];
            let low = _mm256_set1_epi8(0x0F);
            let mut x = [_mm256_setzero_si256(); 4];
            for r in 0..4 {
                // Both lanes' qwords of an S-box into one lane, then the column bits
                // reordered.
                let v = _mm256_permute4x64_epi64::<0xD8>(d[r]);
                let cols = _mm256_shuffle_epi8(load256(&TO_COLUMNS[r]), _mm256_and_si256(v, low));
                x[r] = _mm256_or_si256(_mm256_andnot_si256(low, v), cols);
            }
            x
        }
    }

    #[inline(always)]
    unsafe fn from_registers(x: &[__m256i; 4], q: &mut [u64; BLOCKS]) {
        // SAFETY: see the impl.
        unsafe {
            let low = _mm256_set1_epi8(0x0F);
            let mut d = [_mm256_setzero_si256(); 4];
            for r in 0..4 {
                let n = _mm256_shuffle_epi8(load256(&FROM_COLUMNS[r]), _mm256_and_si256(x[r], low));
                d[r] = _mm256_shuffle_epi32::<0xD8>(_mm256_permute4x64_epi64::<0xD8>(n));
            }
            let w = [
                _mm256_unpacklo_epi64(d[0], d[1]),
                _mm256_unpacklo_epi64(d[2], d[3]),
                _mm256_unpackhi_epi64(d[0], d[1]),
                _mm256_unpackhi_epi64(d[2], d[3]),
            ];
            let (unzip, by) = (load256(&WORDS_UNZIPPED), load256(&BY_BLOCK));
            let mut u = [_mm256_setzero_si256(); 4];
            for i in 0..4 {
                u[i] = _mm256_shuffle_epi8(w[i], unzip);
            }
            let a = [
                _mm256_unpacklo_epi64(u[0], u[1]),
                _mm256_unpackhi_epi64(u[0], u[1]),
                _mm256_unpacklo_epi64(u[2], u[3]),
                _mm256_unpackhi_epi64(u[2], u[3]),
            ];
            for (i, a) in a.into_iter().enumerate() {
                _mm256_storeu_si256(q.as_mut_ptr().add(4 * i).cast(), _mm256_shuffle_epi8(a, by));
            }
        }
    }
}

impl Width for Ssse3 {
    type V = [__m128i; 2];

    #[inline(always)]
    unsafe fn zero() -> [__m128i; 2] {
        // SAFETY: see the impl.
        unsafe { [_mm_setzero_si128(); 2] }
    }

    #[inline(always)]
    unsafe fn load(y: &Ymm) -> [__m128i; 2] {
        // SAFETY: see the impl.
        unsafe { [load128(y, 0), load128(y, 1)] }
    }

    #[inline(always)]
    unsafe fn and(a: [__m128i; 2], b: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: see the impl.
        unsafe { [_mm_and_si128(a[0], b[0]), _mm_and_si128(a[1], b[1])] }
    }

    #[inline(always)]
    unsafe fn xor(a: [__m128i; 2], b: [__m128i; 2]) -> [__m128i; 2] {
        // SAFETY: see the impl.
        unsafe { [_mm_xor_si128(a[0], b[0]), _mm_xor_si128(a[1], b[1])] }
    }

    #[inline(always)]
    unsafe fn swap(x: [__m128i; 2]) -> [__m128i; 2] {
        [x[1], x[0]]
    }

    #[inline(always)]
    unsafe fn shift<const L0: i32, const R0: i32, const L1: i32, const R1: i32>(
        x: [__m128i; 2],
        _: &Ymm,
        _: &Ymm,
    ) -> [__m128i; 2] {
        // SAFETY: see the impl. (A shift by zero is dropped by the compiler.)
        unsafe {
            [
                _mm_srli_epi16::<R0>(_mm_slli_epi16::<L0>(x[0])),
                _mm_srli_epi16::<R1>(_mm_slli_epi16::<L1>(x[1])),
            ]
        }
    }

    #[inline(always)]
    unsafe fn look_up(x: [__m128i; 2], t: &[Ymm; 4]) -> [__m128i; 2] {
        // SAFETY: see the impl.
        unsafe {
            let mut out = x;
            for (l, out) in out.iter_mut().enumerate() {
                let x = x[l];
                let flipped = _mm_xor_si128(x, _mm_set1_epi8(0x80u8 as i8));
                let b6_clear = _mm_or_si128(
                    _mm_shuffle_epi8(load128(&t[0], l), x),
                    _mm_shuffle_epi8(load128(&t[2], l), flipped),
                );
                let b6_set = _mm_or_si128(
                    _mm_shuffle_epi8(load128(&t[1], l), x),
                    _mm_shuffle_epi8(load128(&t[3], l), flipped),
                );
                *out = _mm_blendv_epi8(b6_clear, b6_set, _mm_add_epi8(x, x));
            }
            out
        }
    }

    #[inline(always)]
    unsafe fn to_registers(q: &[u64; BLOCKS]) -> [[__m128i; 2]; 4] {
        // SAFETY: see the impl.
        unsafe {
            let by = load128(&BY_SBOX, 0);
            let mut a = [_mm_setzero_si128(); 8];
            for (i, a) in a.iter_mut().enumerate() {
                *a = _mm_shuffle_epi8(_mm_loadu_si128(q.as_ptr().add(2 * i).cast()), by);
            }
            // Dwords of four blocks' bytes of one S-box, qwords of eight, then all
            // sixteen: position p of `LANES`' order in `s[p]`.
            let mut w = [_mm_setzero_si128(); 8];
            for i in 0..4 {
                w[2 * i] = _mm_unpacklo_epi16(a[2 * i], a[2 * i + 1]);
                w[2 * i + 1] = _mm_unpackhi_epi16(a[2 * i], a[2 * i + 1]);
            }
            let mut d = [_mm_setzero_si128(); 8];
            for h in 0..2 {
                for i in 0..2 {
                    let (x, y) = (w[4 * i + h], w[4 * i + 2 + h]);
                    d[4 * i + 2 * h] = _mm_unpacklo_epi32(x, y);
                    d[4 * i + 2 * h + 1] = _mm_unpackhi_epi32(x, y);
                }
            }
            let low = _mm_set1_epi8(0x0F);
            let mut x = [[_mm_setzero_si128(); 2]; 4];
            for p in 0..8 {
                // d[k] (k < 4) holds positions 2k' and 2k'+1 of blocks 0-7; d[4 + k] of
                // blocks 8-15.
                let (k, hi) = (p / 2, p % 2 == 1);
                let v = if hi {
                    _mm_unpackhi_epi64(d[k], d[4 + k])
                } else {
                    _mm_unpacklo_epi64(d[k], d[4 + k])
                };
                let (r, l) = (p / 2, p % 2);
                let cols = _mm_shuffle_epi8(load128(&TO_COLUMNS[r], l), _mm_and_si128(v, low));
                x[r][l] = _mm_or_si128(_mm_andnot_si128(low, v), cols);
            }
            x
        }
    }

    #[inline(always)]
    unsafe fn from_registers(x: &[[__m128i; 2]; 4], q: &mut [u64; BLOCKS]) {
        // SAFETY: see the impl.
        unsafe {
            let low = _mm_set1_epi8(0x0F);
            let mut v = [_mm_setzero_si128(); 8];
            for (p, v) in v.iter_mut().enumerate() {
                let (r, l) = (p / 2, p % 2);
                *v = _mm_shuffle_epi8(load128(&FROM_COLUMNS[r], l), _mm_and_si128(x[r][l], low));
            }
            // The inverse of `to_registers`' unpacks, last first.
            let mut d = [_mm_setzero_si128(); 8];
            for k in 0..4 {
                d[k] = _mm_unpacklo_epi64(v[2 * k], v[2 * k + 1]);
                d[4 + k] = _mm_unpackhi_epi64(v[2 * k], v[2 * k + 1]);
            }
            let mut w = [_mm_setzero_si128(); 8];
            for h in 0..2 {
                for i in 0..2 {
                    let lo = _mm_shuffle_epi32::<0xD8>(d[4 * i + 2 * h]);
                    let hi = _mm_shuffle_epi32::<0xD8>(d[4 * i + 2 * h + 1]);
                    w[4 * i + h] = _mm_unpacklo_epi64(lo, hi);
                    w[4 * i + 2 + h] = _mm_unpackhi_epi64(lo, hi);
                }
            }
            let (unzip, by) = (load128(&WORDS_UNZIPPED, 0), load128(&BY_BLOCK, 0));
            for i in 0..4 {
                let lo = _mm_shuffle_epi8(w[2 * i], unzip);
                let hi = _mm_shuffle_epi8(w[2 * i + 1], unzip);
                let a0 = _mm_shuffle_epi8(_mm_unpacklo_epi64(lo, hi), by);
                let a1 = _mm_shuffle_epi8(_mm_unpackhi_epi64(lo, hi), by);
                _mm_storeu_si128(q.as_mut_ptr().add(4 * i).cast(), a0);
                _mm_storeu_si128(q.as_mut_ptr().add(4 * i + 2).cast(), a1);
            }
        }
    }
}

// ---- The rounds ---------------------------------------------------------------------------

/// `to ^= f(from)` for one round key.
#[inline(always)]
unsafe fn round<W: Width>(to: &mut [W::V; 4], from: &[W::V; 4], key: &[Ymm; 4]) {
    // SAFETY: the width's features are every caller's; the loads read static tables and
    // the round key.
    unsafe {
        // (Loops, not closures: a closure does not inherit the target features, and
        // the intrinsics inside it would not be inlined.)
        let mut out = [W::zero(); 4];
        let mut swapped = out;
        for r in 0..4 {
            out[r] = W::look_up(W::xor(from[r], W::load(&key[r])), &TABLES[r]);
            swapped[r] = W::swap(out[r]);
        }
        // Two sums per destination, so the XORs are two chains, not one.
        let mut sums = [[W::zero(); 2]; 4];
        macro_rules! send {
            ($($i:literal)*) => {$(
                if $i < SENDS.1 {
                    const S: Send = SENDS.0[$i];
                    const LEFT: Ymm = counts_of(S.left[0] as u32, S.left[1] as u32);
                    const RIGHT: Ymm = counts_of(S.right[0] as u32, S.right[1] as u32);
                    let src = if S.swapped { swapped[S.src] } else { out[S.src] };
                    let bits = W::shift::<{ S.left[0] }, { S.right[0] }, { S.left[1] }, { S.right[1] }>(
                        W::and(src, W::load(&S.mask)),
                        &LEFT,
                        &RIGHT,
                    );
                    sums[S.dst][$i % 2] = W::xor(sums[S.dst][$i % 2], bits);
                }
            )*};
        }
        send!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
              30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56
              57 58 59 60 61 62 63 64 65 66 67 68 69 70 71);
        for r in 0..4 {
            to[r] = W::xor(to[r], W::xor(sums[r][0], sums[r][1]));
        }
    }
}

/// One group of sixteen blocks at `p` through `keys` (16 or 48 rounds, in order).
#[inline(always)]
unsafe fn crypt_group<W: Width>(p: *mut u8, keys: &[[Ymm; 4]]) {
    let (mut lq, mut rq) = ([0u64; BLOCKS], [0u64; BLOCKS]);
    for b in 0..BLOCKS {
        // SAFETY: the group holds sixteen 8-byte blocks.
        let y = ip_word(unsafe { &*p.add(8 * b).cast::<[u8; 8]>() });
        lq[b] = input_bytes((y >> 32) as u32);
        rq[b] = input_bytes(y as u32);
    }
    // SAFETY: the width's features are every caller's.
    let (mut l, mut r) = unsafe { (W::to_registers(&lq), W::to_registers(&rq)) };
    // The stages alternate which half a pair of rounds starts on (see `shift::rounds64`).
    for (stage, ks) in keys.chunks_exact(16).enumerate() {
        for pair in ks.chunks_exact(2) {
            // SAFETY: as above.
            unsafe {
                if stage % 2 == 0 {
                    round::<W>(&mut l, &r, &pair[0]);
                    round::<W>(&mut r, &l, &pair[1]);
                } else {
                    round::<W>(&mut r, &l, &pair[0]);
                    round::<W>(&mut l, &r, &pair[1]);
                }
            }
        }
    }
    // The pre-output is (r, l).
    // SAFETY: as above.
    unsafe {
        (
            W::from_registers(&r, &mut lq),
            W::from_registers(&l, &mut rq),
        )
    };
    for b in 0..BLOCKS {
        let y = (half_of(lq[b]) as u64) << 32 | half_of(rq[b]) as u64;
        // SAFETY: as above.
        unsafe { *p.add(8 * b).cast::<[u8; 8]>() = fp_word(y) };
    }
    crate::bytes::wipe(&mut lq);
    crate::bytes::wipe(&mut rq);
}

#[target_feature(enable = "avx2")]
unsafe fn crypt_group_avx2(p: *mut u8, keys: &[[Ymm; 4]]) {
    // SAFETY: this fn's feature is the width's; the caller's contract covers `p`.
    unsafe { crypt_group::<Avx2>(p, keys) }
}

#[target_feature(enable = "ssse3,sse4.1")]
unsafe fn crypt_group_ssse3(p: *mut u8, keys: &[[Ymm; 4]]) {
    // SAFETY: as above.
    unsafe { crypt_group::<Ssse3>(p, keys) }
}

/// Which width a call runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// `byteshuffle256`: AVX2.
    Avx2,
    /// `byteshuffle128`: SSSE3 and SSE4.1.
    Ssse3,
}

impl Level {
    /// The name a call reports (`backend_for`, the bench's backend column).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Level::Avx2 => "byteshuffle256",
            Level::Ssse3 => "byteshuffle128",
        }
    }

    /// Whether this CPU (under the tier cap) runs it.
    pub(crate) fn available(self) -> bool {
        use crate::cpu::Feature::*;
        match self {
            Level::Avx2 => crate::cpu::has_all(&[Avx2]),
            Level::Ssse3 => crate::cpu::has_all(&[Ssse3, Sse41]),
        }
    }
}

/// Encrypts (or, with the reversed keys, decrypts) whole 8-byte blocks, sixteen at a
/// time; a last short group through a zero-padded copy.
///
/// # Safety
/// The CPU must have `level`'s features.
pub(crate) unsafe fn crypt(level: Level, blocks: &mut [u8], keys: &[[Ymm; 4]]) {
    let group = |p: *mut u8| match level {
        // SAFETY: the caller's contract; `p` holds one group.
        Level::Avx2 => unsafe { crypt_group_avx2(p, keys) },
        // SAFETY: as above.
        Level::Ssse3 => unsafe { crypt_group_ssse3(p, keys) },
    };
    let mut groups = blocks.chunks_exact_mut(GROUP);
    for g in &mut groups {
        group(g.as_mut_ptr());
    }
    let rest = groups.into_remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; GROUP];
        buf[..rest.len()].copy_from_slice(rest);
        group(buf.as_mut_ptr());
        rest.copy_from_slice(&buf[..rest.len()]);
        crate::bytes::wipe(&mut buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block count through two groups and a tail, DES and 3DES, both directions,
    /// against `soft`.
    #[test]
    fn matches_soft() {
        for level in [Level::Avx2, Level::Ssse3] {
            if !level.available() {
                eprintln!("SKIPPED: {} (this CPU lacks its features)", level.name());
                continue;
            }
            let counts = (0..=40usize).chain([47, 48, 49]);
            super::super::assert_matches_soft(level.name(), counts, |keys, data| {
                let keys: Vec<[Ymm; 4]> = keys.iter().copied().map(round_key).collect();
                // SAFETY: the features were checked above.
                unsafe { crypt(level, data, &keys) }
            });
            println!("ran {}", level.name());
        }
    }

    /// Every output bit of every S-box reaches each of its places, once.
    #[test]
    fn the_distribution_covers_p_and_e() {
        assert!(SENDS.1 <= MAX_SENDS);
        let mut reached = [[0u32; 8]; 8];
        for s in &SENDS.0[..SENDS.1] {
            for l in 0..2 {
                let from = LANES[s.src][if s.swapped { 1 - l } else { l }];
                let to = LANES[s.dst][l];
                let shift = s.left[l] - s.right[l];
                for bit in 0..8 {
                    if s.mask.0[16 * l] >> bit & 1 == 1 {
                        let at = (bit + shift) as u32;
                        assert!(at < 8, "S-box {from} bit {bit} shifted out");
                        reached[to][at as usize] += 1;
                    }
                }
            }
        }
        for (t, bits) in reached.iter().enumerate() {
            for q in 0..4 {
                assert_eq!(bits[COLUMNS[t][q] as usize], 1, "S-box {t} column bit {q}");
            }
            assert_eq!(bits[B1 as usize], 1, "S-box {t} b1");
            assert_eq!(bits[B6 as usize], 1, "S-box {t} b6");
        }
        let sends = &SENDS.0[..SENDS.1];
        let shifts: usize = sends
            .iter()
            .map(|s| {
                usize::from(s.left.iter().any(|&c| c > 0))
                    + usize::from(s.right.iter().any(|&c| c > 0))
            })
            .sum();
        println!(
            "distribution: {} steps a round, {shifts} with shifts",
            SENDS.1
        );
    }

    #[test]
    fn input_bytes_round_trip() {
        let mut x = 0x1234_5678u32;
        for _ in 0..1000 {
            x = x.wrapping_mul(2654435761).wrapping_add(12345);
            assert_eq!(half_of(input_bytes(x)), x);
        }
    }
}
