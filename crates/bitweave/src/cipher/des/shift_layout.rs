//! The data layout of the shift method ([`super::shift`]), shared by its portable round and
//! its SIMD rounds (`shift_x86`): the S-boxes as truth tables and P as placement masks,
//! the spread form of a 32-bit half (and `rotate256`'s one-copy key fold), and IP/FP as
//! delta swaps.

use super::{P, SBOXES};
use crate::slice::transpose8;

// ---- Tables (public constants of the standard, computed at compile time) ---------------

/// `TRUTH[s][j]`: bit x is output bit j (0 = most significant) of S-box s+1 on the
/// six-bit input x (b1..b6, b1 most significant; row b1b6, column b2..b5).
pub(crate) const TRUTH: [[u64; 4]; 8] = {
    let mut t = [[0u64; 4]; 8];
    let mut s = 0;
    while s < 8 {
        let mut x = 0;
        while x < 64 {
            let row = ((x >> 4) & 2) | (x & 1);
            let col = (x >> 1) & 0xf;
            let v = SBOXES[s][row * 16 + col] as u64;
            let mut j = 0;
            while j < 4 {
                t[s][j] |= ((v >> (3 - j)) & 1) << x;
                j += 1;
            }
            x += 1;
        }
        s += 1;
    }
    t
};

/// `PLACE[s][j]`: where output bit j of S-box s+1 lands after P, in spread form (both
/// copies): the mask a looked-up bit selects (`shift256`), or in its low copy the
/// position a pre-rotated table lands it on (`rotate256`, `shift64`).
pub(crate) const PLACE: [[u64; 4]; 8] = {
    let mut m = [[0u64; 4]; 8];
    let mut s = 0;
    while s < 8 {
        let mut j = 0;
        while j < 4 {
            // The bit's number before P (1 = MSB of the 32-bit f output)...
            let before = (4 * s + j + 1) as u8;
            // ...and after: P's output bit i takes input bit P[i-1].
            let mut i = 0;
            while P[i] != before {
                i += 1;
            }
            let shift = 31 - i as u32; // bit position in the standard 32-bit half
            let spread = (shift + 1) % 32; // rotl by 1
            m[s][j] = (1u64 << spread) | (1u64 << (spread + 32));
            j += 1;
        }
        s += 1;
    }
    m
};

/// Where output bit j of S-box s+1 lands after P in the one-copy form (the low copy of
/// [`PLACE`]): the position `rotate256`'s and `shift64`'s pre-rotated tables land it on.
pub(crate) const fn position(s: usize, j: usize) -> u32 {
    (PLACE[s][j] as u32).trailing_zeros()
}

/// Where S-box s+1's six input bits start in a spread half.
pub(crate) const WINDOW: [u32; 8] = [28, 24, 20, 16, 12, 8, 4, 0];

/// The S-box (0-based) whose key chunk a round key holds at each position.
pub(crate) const KEY_ORDER: [usize; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// A 32-bit half in spread form: `rotl(x, 1)` in both halves.
#[inline(always)]
pub(crate) fn spread(x: u32) -> u64 {
    let q = x.rotate_left(1) as u64;
    (q << 32) | q
}

/// A round key's spread chunks (at their windows, up to bit 33) for the one-copy form of
/// `rotate256`, which keeps only the low 32 bits of a half: the bits above 31 wrap around
/// to the bottom, as the spread form's second copy does.
#[cfg(target_arch = "x86_64")]
pub(crate) fn fold_key(k: u64) -> u64 {
    (k | (k >> 32)) & 0xFFFF_FFFF
}

/// The 32-bit half a spread word holds.
#[inline(always)]
pub(crate) fn gather(d: u64) -> u32 {
    (d as u32).rotate_right(1)
}

// ---- IP and FP as delta swaps --------------------------------------------------------

/// Swaps the bits of `x` selected by `mask` with those `shift` places above them.
#[inline(always)]
const fn delta_swap(x: u64, mask: u64, shift: u32) -> u64 {
    let t = ((x >> shift) ^ x) & mask;
    x ^ t ^ (t << shift)
}

const BYTES: u64 = 0x0101_0101_0101_0101;

/// In every byte, the odd bits to the low nibble and the even bits to the high one.
#[inline(always)]
const fn unzip_bytes(x: u64) -> u64 {
    let x = delta_swap(x, 0x22 * BYTES, 1);
    let x = delta_swap(x, 0x0C * BYTES, 2);
    ((x >> 4) & (0x0F * BYTES)) | ((x << 4) & (0xF0 * BYTES))
}

/// The inverse of [`unzip_bytes`].
#[inline(always)]
const fn zip_bytes(x: u64) -> u64 {
    let x = ((x >> 4) & (0x0F * BYTES)) | ((x << 4) & (0xF0 * BYTES));
    let x = delta_swap(x, 0x0C * BYTES, 2);
    delta_swap(x, 0x22 * BYTES, 1)
}

/// IP of a block, as spread halves (L, R). The block's bytes read little-endian are the
/// standard's big-endian value byte-reversed; IP is then a per-byte bit unzip and an 8×8
/// transpose (checked against the table in the tests).
#[inline(always)]
pub(crate) fn ip(block: &[u8]) -> (u64, u64) {
    let y = ip_word(block);
    (spread((y >> 32) as u32), spread(y as u32))
}

/// IP of a block as one word: L in the high 32 bits, R in the low (bit 63: L's bit 1).
#[inline(always)]
pub(crate) fn ip_word(block: &[u8]) -> u64 {
    let x = u64::from_le_bytes(block.try_into().expect("an 8-byte block"));
    transpose8(unzip_bytes(x))
}

/// FP of spread halves (L, R), written to `block`.
#[inline(always)]
pub(crate) fn fp(l: u64, r: u64, block: &mut [u8]) {
    let y = ((gather(l) as u64) << 32) | gather(r) as u64;
    block.copy_from_slice(&fp_word(y));
}

/// FP of a word in [`ip_word`]'s form: the block.
#[inline(always)]
pub(crate) fn fp_word(y: u64) -> [u8; 8] {
    zip_bytes(transpose8(y)).to_le_bytes()
}

// ---- CFB8's shift register in the IP domain ---------------------------------------------

/// CFB8 encryption's shift register held as IP of its block (the 64-bit word [`ip`]
/// spreads into halves), so that shifting a byte in is a few word operations instead of
/// a whole IP, and only the keystream's first byte leaves FP: both were on the chain from
/// one byte to the next.
///
/// IP is a per-byte bit unzip and an 8×8 transpose, and the register drops its first byte
/// and appends the new one. Before the transpose that is a shift by a byte; after it,
/// every byte of the word moves down one bit and the new byte's unzipped bits enter at
/// bit 7 of each byte.
#[derive(Clone, Copy)]
pub(crate) struct IpRegister(u64);

/// Per byte c, the bit of a plaintext byte that the unzip puts at bit c (the one that
/// enters byte c of the IP word).
const ENTERING: u64 = {
    let mut m = 0u64;
    let mut k = 0;
    while k < 8 {
        let c = unzip_bytes(1 << k).trailing_zeros() as u64;
        m |= 1 << (8 * c + k);
        k += 1;
    }
    m
};

/// Moves bit 0 of byte c of FP's input word (before the transpose) to bit 56 + j, where j
/// is where zip puts bit c of the transposed word's byte 0: the keystream's first byte in
/// the top byte of a product. The eight wanted terms land on distinct bits 56-63; every
/// other term of the product lands on a distinct bit below 56 or beyond 63, so nothing
/// carries into the top byte.
const FIRST_BYTE: u64 = {
    let mut m = 0u64;
    let mut c = 0;
    while c < 8 {
        let j = zip_bytes(1 << c).trailing_zeros() as u64;
        m |= 1 << (56 + j - 8 * c);
        c += 1;
    }
    m
};

impl IpRegister {
    /// The register holding `block` (8 bytes).
    #[inline(always)]
    pub(crate) fn new(block: &[u8]) -> Self {
        let x = u64::from_le_bytes(block.try_into().expect("an 8-byte block"));
        IpRegister(transpose8(unzip_bytes(x)))
    }

    /// The spread halves (L, R) of IP of the register, as [`ip`] gives them.
    #[inline(always)]
    pub(crate) fn halves(self) -> (u64, u64) {
        (spread((self.0 >> 32) as u32), spread(self.0 as u32))
    }

    /// The register with its first byte dropped and `b` appended: each byte's bit c of
    /// `ENTERING` picked from `b` copied into every byte, and raised to bit 7 by adding
    /// 0x7F (a non-zero byte reaches bit 7, no byte carries into the next).
    #[inline(always)]
    pub(crate) fn shift_in(self, b: u8) -> Self {
        let picked = (b as u64 * BYTES) & ENTERING;
        let entering = (picked + 0x7F * BYTES) & (0x80 * BYTES);
        IpRegister(((self.0 >> 1) & (0x7F * BYTES)) | entering)
    }

    /// The register's block (the inverse of [`new`](Self::new)).
    #[inline(always)]
    pub(crate) fn block(self) -> [u8; 8] {
        zip_bytes(transpose8(self.0)).to_le_bytes()
    }
}

/// The first byte of FP of spread halves (L, R): what [`fp`] writes to `block[0]`.
#[inline(always)]
pub(crate) fn fp_first_byte(l: u64, r: u64) -> u8 {
    let y = ((gather(l) as u64) << 32) | gather(r) as u64;
    ((y & BYTES).wrapping_mul(FIRST_BYTE) >> 56) as u8
}

#[cfg(test)]
mod tests {
    use super::super::{permute, FP, IP};
    use super::*;

    #[test]
    fn ip_and_fp_match_the_tables() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let block = x.to_be_bytes();
            let (l, r) = ip(&block);
            let want = permute(x, 64, &IP);
            assert_eq!(((gather(l) as u64) << 32) | gather(r) as u64, want);
            let mut back = [0u8; 8];
            fp(spread((want >> 32) as u32), spread(want as u32), &mut back);
            assert_eq!(u64::from_be_bytes(back), permute(want, 64, &FP));
        }
    }

    /// The IP-domain register shifts bytes in as IP of the shifted block would be, gives
    /// IP's halves and its block back, and FP's first byte matches [`fp`].
    #[test]
    fn ip_register_shifts_as_the_block_does() {
        let mut x = 0x0f1e_2d3c_4b5a_6978u64;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let block = x.to_le_bytes();
            let reg = IpRegister::new(&block);
            assert_eq!(reg.halves(), ip(&block));
            assert_eq!(reg.block(), block);
            let b = (x >> 29) as u8;
            let mut shifted = [0u8; 8];
            shifted[..7].copy_from_slice(&block[1..]);
            shifted[7] = b;
            assert_eq!(reg.shift_in(b).block(), shifted, "{x:#x} + {b:#x}");
            let (l, r) = (spread((x >> 32) as u32), spread(x.rotate_left(7) as u32));
            let mut out = [0u8; 8];
            fp(l, r, &mut out);
            assert_eq!(fp_first_byte(l, r), out[0], "{x:#x}");
        }
        // Every pattern of the eight bits the first byte is gathered from, the other bits
        // all ones (the most that could carry).
        for p in 0..256u64 {
            let mut y = !BYTES;
            for c in 0..8 {
                y |= ((p >> c) & 1) << (8 * c);
            }
            let (l, r) = (spread((y >> 32) as u32), spread(y as u32));
            let mut out = [0u8; 8];
            fp(l, r, &mut out);
            assert_eq!(fp_first_byte(l, r), out[0], "pattern {p:#04x}");
        }
    }

    #[test]
    fn spread_puts_each_sbox_input_in_its_window() {
        // S-box s reads R's bits 4s..4s+5 of E (1-based, cyclic: bit 0 is bit 32).
        for (s, &window) in WINDOW.iter().enumerate() {
            for bit in 0..6u32 {
                let des_bit = (4 * s as u32 + bit + 31) % 32 + 1; // 1..=32
                let r = 1u32 << (32 - des_bit);
                let got = (spread(r) >> window) & 63;
                assert_eq!(got, 1 << (5 - bit), "S-box {} input bit {bit}", s + 1);
            }
        }
    }
}
