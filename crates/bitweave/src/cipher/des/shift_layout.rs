//! The data layout of the shift method ([`super::shift`]), shared by its portable round and
//! its SIMD rounds (`shift_x86`): the S-boxes as truth tables and P as placement masks,
//! the spread form of a 32-bit half (and `rotate256`'s one-copy key fold), and IP/FP as
//! delta swaps.

use super::{P, SBOXES};

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
/// copies): the mask a looked-up bit selects (`shift64`, `shift256`), or in its low copy
/// the position a pre-rotated table lands it on (`rotate256`).
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
fn delta_swap(x: u64, mask: u64, shift: u32) -> u64 {
    let t = ((x >> shift) ^ x) & mask;
    x ^ t ^ (t << shift)
}

const BYTES: u64 = 0x0101_0101_0101_0101;

/// Transposes the 8×8 bit matrix of a u64 (bit 8r + c ↔ bit 8c + r); its own inverse.
#[inline(always)]
fn transpose8(x: u64) -> u64 {
    let x = delta_swap(x, 0x00AA_00AA_00AA_00AA, 7);
    let x = delta_swap(x, 0x0000_CCCC_0000_CCCC, 14);
    delta_swap(x, 0x0000_0000_F0F0_F0F0, 28)
}

/// In every byte, the odd bits to the low nibble and the even bits to the high one.
#[inline(always)]
fn unzip_bytes(x: u64) -> u64 {
    let x = delta_swap(x, 0x22 * BYTES, 1);
    let x = delta_swap(x, 0x0C * BYTES, 2);
    ((x >> 4) & (0x0F * BYTES)) | ((x << 4) & (0xF0 * BYTES))
}

/// The inverse of [`unzip_bytes`].
#[inline(always)]
fn zip_bytes(x: u64) -> u64 {
    let x = ((x >> 4) & (0x0F * BYTES)) | ((x << 4) & (0xF0 * BYTES));
    let x = delta_swap(x, 0x0C * BYTES, 2);
    delta_swap(x, 0x22 * BYTES, 1)
}

/// IP of a block, as spread halves (L, R). The block's bytes read little-endian are the
/// standard's big-endian value byte-reversed; IP is then a per-byte bit unzip and an 8×8
/// transpose (checked against the table in the tests).
#[inline(always)]
pub(crate) fn ip(block: &[u8]) -> (u64, u64) {
    let x = u64::from_le_bytes(block.try_into().expect("an 8-byte block"));
    let y = transpose8(unzip_bytes(x));
    (spread((y >> 32) as u32), spread(y as u32))
}

/// FP of spread halves (L, R), written to `block`.
#[inline(always)]
pub(crate) fn fp(l: u64, r: u64, block: &mut [u8]) {
    let y = ((gather(l) as u64) << 32) | gather(r) as u64;
    block.copy_from_slice(&zip_bytes(transpose8(y)).to_le_bytes());
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
