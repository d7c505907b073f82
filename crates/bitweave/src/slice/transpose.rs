//! The transposition of blocks into bit planes ("bitslice line format") and back: rows of
//! blocks loaded into lanes, 64×64 bit-matrix transposes within each word, and the
//! XOR-fused variants the modes use.

use super::Lanes;

/// Swaps bit field `S` between `g[k]` and `g[k + d]` (`k & d == 0`): one SWAPMOVE stage
/// on a group of eight rows, the masked XOR as one 3-input operation.
#[inline(always)]
fn swap_stage<L: Lanes, const S: u32>(g: &mut [L; 8], d: usize, mask: u64) {
    let mask = L::splat(mask);
    for k in 0..8 {
        if k & d == 0 {
            let (a, b) = (g[k], g[k + d]);
            // t = ((a >> S) ^ b) & mask; b ^= t; a ^= t << S.
            let t = L::tern::<0x28>(a.shr::<S>(), b, mask);
            g[k + d] = b.xor(t);
            g[k] = a.xor(t.shl::<S>());
        }
    }
}

/// The 8×8 bit transpose inside one `u64` (byte `r` bit `c` ↔ byte `c` bit `r`), the
/// single-word form of the stages below; its own inverse. The byte-sliced AES and the
/// shift-layout DES use it to turn eight bytes into eight bit planes.
#[inline(always)]
pub fn transpose8(mut x: u64) -> u64 {
    let mut swap = |shift: u32, mask: u64| {
        let t = (x ^ (x >> shift)) & mask;
        x ^= t ^ (t << shift);
    };
    swap(7, 0x00AA_00AA_00AA_00AA);
    swap(14, 0x0000_CCCC_0000_CCCC);
    swap(28, 0x0000_0000_F0F0_F0F0);
    x
}

/// The stages 32, 16, 8 on one group of eight rows.
#[inline(always)]
fn byte_stages<L: Lanes>(g: &mut [L; 8]) {
    swap_stage::<L, 32>(g, 4, 0x0000_0000_ffff_ffff);
    swap_stage::<L, 16>(g, 2, 0x0000_ffff_0000_ffff);
    swap_stage::<L, 8>(g, 1, 0x00ff_00ff_00ff_00ff);
}

/// The stages 4, 2, 1 of [`transpose64`]: they only pair rows that differ in index bits
/// 2..0, so each group of eight consecutive rows is done in registers, in place.
#[inline(always)]
fn transpose_bits<L: Lanes>(m: &mut [L]) {
    for h in 0..8 {
        let g: &mut [L; 8] = (&mut m[8 * h..8 * h + 8]).try_into().unwrap();
        swap_stage::<L, 4>(g, 4, 0x0f0f_0f0f_0f0f_0f0f);
        swap_stage::<L, 2>(g, 2, 0x3333_3333_3333_3333);
        swap_stage::<L, 1>(g, 1, 0x5555_5555_5555_5555);
    }
}

/// Rows (or row pairs: the two halves of 16-byte blocks) that a transposition reads,
/// from memory or from planes. A trait with `#[inline(always)]` methods rather than
/// closures: closures may stay out-of-line, outside the SIMD entry point's features.
trait RowSource<L: Lanes, const K: usize> {
    fn get(&self, i: usize) -> [L; K];
}

/// Where a transposition writes its rows (or row pairs).
trait RowSink<L: Lanes, const K: usize> {
    fn put(&mut self, i: usize, r: [L; K]);
}

/// The stages 32, 16, 8 of [`transpose64`] on `K` row sets at once: they only pair rows
/// whose indices differ in bits 5..3, so each group of the eight rows `8h + l` (one `l`)
/// is done in registers, read from `src` and written to `dst` (memory in or out directly,
/// no pass of its own).
#[inline(always)]
fn transpose_bytes<L: Lanes, const K: usize>(
    src: &impl RowSource<L, K>,
    dst: &mut impl RowSink<L, K>,
) {
    for l in 0..8 {
        let mut g = [[L::splat(0); 8]; K];
        for h in 0..8 {
            for (gk, rk) in g.iter_mut().zip(src.get(8 * h + l)) {
                gk[h] = rk;
            }
        }
        for gk in g.iter_mut() {
            byte_stages(gk);
        }
        for h in 0..8 {
            let mut r = [L::splat(0); K];
            for (rk, gk) in r.iter_mut().zip(&g) {
                *rk = gk[h];
            }
            dst.put(8 * h + l, r);
        }
    }
}

/// `K` sets of 64 planes, set `k` at `64k..64k + 64` (128 planes of 16-byte blocks are
/// two sets: the low and the high block halves).
struct PlaneSets<L, const N: usize>([L; N]);

impl<L: Lanes, const N: usize, const K: usize> RowSource<L, K> for PlaneSets<L, N> {
    #[inline(always)]
    fn get(&self, i: usize) -> [L; K] {
        let mut r = [L::splat(0); K];
        for (k, rk) in r.iter_mut().enumerate() {
            *rk = self.0[64 * k + i];
        }
        r
    }
}

impl<L: Lanes, const N: usize, const K: usize> RowSink<L, K> for PlaneSets<L, N> {
    #[inline(always)]
    fn put(&mut self, i: usize, r: [L; K]) {
        for (k, rk) in r.into_iter().enumerate() {
            self.0[64 * k + i] = rk;
        }
    }
}

/// Blocks in memory read as rows, `row` bytes each, as `src ⊕ other` when `other` is given.
struct BlocksIn<'a> {
    src: &'a [u8],
    other: Option<&'a [u8]>,
    row: usize,
}

/// Blocks in memory written as rows, `row` bytes each, XORed into `dst` when `xor`.
struct BlocksOut<'a> {
    dst: &'a mut [u8],
    xor: bool,
    row: usize,
}

/// One row of `K` sets from memory: 8-byte blocks (`K = 1`) or 16-byte blocks (`K = 2`).
#[inline(always)]
fn load_rows<L: Lanes, const K: usize>(b: &[u8]) -> [L; K] {
    let mut r = [L::splat(0); K];
    if K == 1 {
        r[0] = L::load8(b);
    } else {
        (r[0], r[1]) = L::load16(b);
    }
    r
}

/// Inverse of [`load_rows`].
#[inline(always)]
fn store_rows<L: Lanes, const K: usize>(r: [L; K], b: &mut [u8]) {
    if K == 1 {
        r[0].store8(b);
    } else {
        L::store16(r[0], r[1], b);
    }
}

impl<L: Lanes, const K: usize> RowSource<L, K> for BlocksIn<'_> {
    #[inline(always)]
    fn get(&self, i: usize) -> [L; K] {
        let at = i * self.row;
        let mut r = load_rows::<L, K>(&self.src[at..]);
        if let Some(o) = self.other {
            let t = load_rows::<L, K>(&o[at..]);
            for k in 0..K {
                r[k] = r[k].xor(t[k]);
            }
        }
        r
    }
}

impl<L: Lanes, const K: usize> RowSink<L, K> for BlocksOut<'_> {
    #[inline(always)]
    fn put(&mut self, i: usize, mut r: [L; K]) {
        let d = &mut self.dst[i * self.row..];
        if self.xor {
            let t = load_rows::<L, K>(d);
            for k in 0..K {
                r[k] = r[k].xor(t[k]);
            }
        }
        store_rows(r, d);
    }
}

/// Transposes 64 rows into 64 planes inside every 64-bit word: afterwards bit `i` of word
/// `g` of `m[p]` is bit `p` of word `g` of the old `m[i]`. Six SWAPMOVE stages of 32 swaps
/// each; the transposition is its own inverse.
///
/// The stages run in two passes over groups of eight rows (`transpose_bytes`,
/// `transpose_bits`; the passes commute), each group in registers: stage by stage over
/// all 64 rows spilled the whole array six times. The block loaders and storers below
/// run the byte pass straight from and to memory.
#[inline(always)]
#[cfg_attr(not(test), allow(dead_code))]
pub fn transpose64<L: Lanes>(m: &mut [L; 64]) {
    *m = planes_from_rows::<L, 1, 64>(&PlaneSets(*m));
}

/// Planes from the `64·K` rows of `src`: the byte pass from memory, then the bit pass.
#[inline(always)]
fn planes_from_rows<L: Lanes, const K: usize, const N: usize>(
    src: &impl RowSource<L, K>,
) -> [L; N] {
    debug_assert_eq!(N, 64 * K);
    let mut m = PlaneSets([L::splat(0); N]);
    transpose_bytes(src, &mut m);
    for k in 0..K {
        transpose_bits(&mut m.0[64 * k..64 * k + 64]);
    }
    m.0
}

/// Rows into `dst` from `N = 64·K` planes: the bit pass, then the byte pass to memory.
#[inline(always)]
fn rows_from_planes<L: Lanes, const K: usize, const N: usize>(
    m: &[L; N],
    dst: &mut impl RowSink<L, K>,
) {
    debug_assert_eq!(N, 64 * K);
    let mut m = PlaneSets(*m);
    for k in 0..K {
        transpose_bits(&mut m.0[64 * k..64 * k + 64]);
    }
    transpose_bytes(&m, dst);
}

#[inline(always)]
fn rows_in<'a>(src: &'a [u8], other: Option<&'a [u8]>, block: usize, w: usize) -> BlocksIn<'a> {
    let row = block * w;
    assert!(src.len() == 64 * row && other.is_none_or(|o| o.len() == 64 * row));
    BlocksIn { src, other, row }
}

#[inline(always)]
fn rows_out(dst: &mut [u8], xor: bool, block: usize, w: usize) -> BlocksOut<'_> {
    let row = block * w;
    assert_eq!(dst.len(), 64 * row);
    BlocksOut { dst, xor, row }
}

/// Loads `64·WORDS` 8-byte blocks into 64 planes: plane `p` holds bit `p` of each block read
/// as a little-endian u64 (so plane `8k + j` is bit `j`, LSB = 0, of byte `k`).
#[inline(always)]
pub fn planes_from_blocks8<L: Lanes>(src: &[u8]) -> [L; 64] {
    planes_from_rows::<L, 1, 64>(&rows_in(src, None, 8, L::WORDS))
}

/// Inverse of [`planes_from_blocks8`].
#[inline(always)]
pub fn blocks8_from_planes<L: Lanes>(m: [L; 64], dst: &mut [u8]) {
    rows_from_planes::<L, 1, 64>(&m, &mut rows_out(dst, false, 8, L::WORDS));
}

/// [`planes_from_blocks8`] of `src ⊕ other`, the XOR done on the loaded rows (a CBC
/// chain's plaintext and previous ciphertext), with no pass over memory of its own.
#[inline(always)]
pub fn planes_from_blocks8_xor<L: Lanes>(src: &[u8], other: &[u8]) -> [L; 64] {
    planes_from_rows::<L, 1, 64>(&rows_in(src, Some(other), 8, L::WORDS))
}

/// [`blocks8_from_planes`] XORed into `dst` (a keystream applied as it is stored).
#[inline(always)]
pub fn blocks8_from_planes_xor<L: Lanes>(m: [L; 64], dst: &mut [u8]) {
    rows_from_planes::<L, 1, 64>(&m, &mut rows_out(dst, true, 8, L::WORDS));
}

/// Loads `64·WORDS` 16-byte blocks into 128 planes: plane `8k + j` is bit `j` (LSB = 0) of
/// byte `k` of each block.
#[inline(always)]
pub fn planes_from_blocks16<L: Lanes>(src: &[u8]) -> [L; 128] {
    planes_from_rows::<L, 2, 128>(&rows_in(src, None, 16, L::WORDS))
}

/// Inverse of [`planes_from_blocks16`].
#[inline(always)]
pub fn blocks16_from_planes<L: Lanes>(m: &[L; 128], dst: &mut [u8]) {
    rows_from_planes::<L, 2, 128>(m, &mut rows_out(dst, false, 16, L::WORDS));
}

/// [`planes_from_blocks16`] of `src ⊕ other`, the XOR done on the loaded rows.
#[inline(always)]
pub fn planes_from_blocks16_xor<L: Lanes>(src: &[u8], other: &[u8]) -> [L; 128] {
    planes_from_rows::<L, 2, 128>(&rows_in(src, Some(other), 16, L::WORDS))
}

/// [`blocks16_from_planes`] XORed into `dst`.
#[inline(always)]
pub fn blocks16_from_planes_xor<L: Lanes>(m: &[L; 128], dst: &mut [u8]) {
    rows_from_planes::<L, 2, 128>(m, &mut rows_out(dst, true, 16, L::WORDS));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_moves_bit_i_of_row_p_to_bit_p_of_row_i() {
        let mut m = [0u64; 64];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for r in m.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *r = x;
        }
        let orig = m;
        transpose64(&mut m);
        for (p, plane) in m.iter().enumerate() {
            for (i, row) in orig.iter().enumerate() {
                assert_eq!((plane >> i) & 1, (row >> p) & 1);
            }
        }
        transpose64(&mut m);
        assert_eq!(m, orig);
    }
}
