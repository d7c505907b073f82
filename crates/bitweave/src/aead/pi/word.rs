//! The word sizes of π-Cipher: one trait, three implementations (u16, u32, u64), so the
//! permutation and the mode are written once. Constants are transcribed from PI-CIPHER.md §3.3
//! (the designers' `pi{16,32,64}_parameter.h` tables); a unit test re-derives them from the
//! byte stream they come from, which catches any transcription slip.
#![deny(unsafe_code)]

use zeroize::Zeroize;

/// A π-Cipher word: arithmetic mod 2^w, rotations, little-endian (de)serialisation.
pub trait Word: Copy + Default + Eq + core::fmt::Debug + Zeroize + Send + Sync + 'static {
    /// Bytes per word (w / 8).
    const BYTES: usize;
    /// μ constants cμ0..3.
    const C_MU: [Self; 4];
    /// ν constants cν0..3.
    const C_NU: [Self; 4];
    /// Round constants: round r uses `RC[8r..8r+4]` (E1) and `RC[8r+4..8r+8]` (E2).
    const RC: [Self; 24];
    /// μ rotation amounts rμ0..3.
    const R_MU: [u32; 4];
    /// ν rotation amounts rν0..3.
    const R_NU: [u32; 4];

    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn rotl(self, n: u32) -> Self;
    /// Reads one word from `b[..BYTES]`, little-endian.
    fn load_le(b: &[u8]) -> Self;
    /// Writes the word into `b[..BYTES]`, little-endian.
    fn store_le(self, b: &mut [u8]);
    /// Limb `i` (w bits, least significant first) of a 64-bit counter.
    fn limb(ctr: u64, i: usize) -> Self;
    /// The word as the `i`-th w-bit limb of a 64-bit value.
    fn to_limb(self, i: usize) -> u64;
}

/// Number of w-bit limbs in the 64-bit counter (4, 2 or 1).
pub const fn limbs<W: Word>() -> usize {
    8 / W::BYTES
}

macro_rules! word {
    ($t:ty, $mu:expr, $nu:expr, $rc:expr, $rmu:expr, $rnu:expr) => {
        impl Word for $t {
            const BYTES: usize = core::mem::size_of::<$t>();
            const C_MU: [Self; 4] = $mu;
            const C_NU: [Self; 4] = $nu;
            const RC: [Self; 24] = $rc;
            const R_MU: [u32; 4] = $rmu;
            const R_NU: [u32; 4] = $rnu;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                self ^ o
            }
            #[inline(always)]
            fn rotl(self, n: u32) -> Self {
                self.rotate_left(n)
            }
            #[inline(always)]
            fn load_le(b: &[u8]) -> Self {
                let mut a = [0u8; core::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..core::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
            #[inline(always)]
            fn store_le(self, b: &mut [u8]) {
                b[..core::mem::size_of::<$t>()].copy_from_slice(&self.to_le_bytes());
            }
            #[inline(always)]
            fn limb(ctr: u64, i: usize) -> Self {
                (ctr >> (8 * core::mem::size_of::<$t>() * i)) as $t
            }
            #[inline(always)]
            fn to_limb(self, i: usize) -> u64 {
                (self as u64) << (8 * core::mem::size_of::<$t>() * i)
            }
        }
    };
}

word!(
    u16,
    [0xF0E8, 0xE4E2, 0xE1D8, 0xD4D2],
    [0xD1CC, 0xCAC9, 0xC6C5, 0xC3B8],
    [
        0xB4B2, 0xB1AC, 0xAAA9, 0xA6A5, 0xA39C, 0x9A99, 0x9695, 0x938E, //
        0x8D8B, 0x8778, 0x7472, 0x716C, 0x6A69, 0x6665, 0x635C, 0x5A59, //
        0x5655, 0x534E, 0x4D4B, 0x473C, 0x3A39, 0x3635, 0x332E, 0x2D2B,
    ],
    [1, 4, 9, 11],
    [2, 5, 7, 13]
);

word!(
    u32,
    [0xF0E8E4E2, 0xE1D8D4D2, 0xD1CCCAC9, 0xC6C5C3B8],
    [0xB4B2B1AC, 0xAAA9A6A5, 0xA39C9A99, 0x9695938E],
    [
        0x8D8B8778, 0x7472716C, 0x6A696665, 0x635C5A59, 0x5655534E, 0x4D4B473C, 0x3A393635,
        0x332E2D2B, //
        0x271E1D1B, 0x170FF0E8, 0xE4E2E1D8, 0xD4D2D1CC, 0xCAC9C6C5, 0xC3B8B4B2, 0xB1ACAAA9,
        0xA6A5A39C, //
        0x9A999695, 0x938E8D8B, 0x87787472, 0x716C6A69, 0x6665635C, 0x5A595655, 0x534E4D4B,
        0x473C3A39,
    ],
    [5, 11, 17, 23],
    [3, 10, 19, 29]
);

word!(
    u64,
    [
        0xF0E8E4E2E1D8D4D2,
        0xD1CCCAC9C6C5C3B8,
        0xB4B2B1ACAAA9A6A5,
        0xA39C9A999695938E
    ],
    [
        0x8D8B87787472716C,
        0x6A696665635C5A59,
        0x5655534E4D4B473C,
        0x3A393635332E2D2B
    ],
    [
        0x271E1D1B170FF0E8,
        0xE4E2E1D8D4D2D1CC,
        0xCAC9C6C5C3B8B4B2,
        0xB1ACAAA9A6A5A39C,
        0x9A999695938E8D8B,
        0x87787472716C6A69,
        0x6665635C5A595655,
        0x534E4D4B473C3A39,
        0x3635332E2D2B271E,
        0x1D1B170FF0E8E4E2,
        0xE1D8D4D2D1CCCAC9,
        0xC6C5C3B8B4B2B1AC,
        0xAAA9A6A5A39C9A99,
        0x9695938E8D8B8778,
        0x7472716C6A696665,
        0x635C5A595655534E,
        0x4D4B473C3A393635,
        0x332E2D2B271E1D1B,
        0x170FF0E8E4E2E1D8,
        0xD4D2D1CCCAC9C6C5,
        0xC3B8B4B2B1ACAAA9,
        0xA6A5A39C9A999695,
        0x938E8D8B87787472,
        0x716C6A696665635C,
    ],
    [7, 19, 31, 53],
    [11, 23, 37, 59]
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The 70 bytes of Hamming weight 4 in decreasing order, repeated: the source of every
    /// constant (cμ, cν, then RC), each word read big-endian from consecutive bytes.
    fn stream() -> impl Iterator<Item = u8> {
        (0u8..=255)
            .rev()
            .filter(|b| b.count_ones() == 4)
            .collect::<Vec<_>>()
            .into_iter()
            .cycle()
    }

    fn derived<W: Word>() -> Vec<u64> {
        let mut s = stream();
        (0..32)
            .map(|_| (0..W::BYTES).fold(0u64, |a, _| (a << 8) | s.next().unwrap() as u64))
            .collect()
    }

    fn table<W: Word>() -> Vec<u64> {
        W::C_MU
            .iter()
            .chain(&W::C_NU)
            .chain(&W::RC)
            .map(|w| w.to_limb(0))
            .collect()
    }

    #[test]
    fn constants_are_the_weight_4_byte_stream() {
        assert_eq!(stream().take(70).count(), 70);
        assert_eq!(table::<u16>(), derived::<u16>());
        assert_eq!(table::<u32>(), derived::<u32>());
        assert_eq!(table::<u64>(), derived::<u64>());
    }

    #[test]
    fn counter_limbs_round_trip() {
        let t = 0x0123_4567_89AB_CDEFu64;
        let back = |n: usize, f: &dyn Fn(usize) -> u64| (0..n).fold(0u64, |a, i| a | f(i));
        assert_eq!(back(4, &|i| u16::limb(t, i).to_limb(i)), t);
        assert_eq!(back(2, &|i| u32::limb(t, i).to_limb(i)), t);
        assert_eq!(back(1, &|i| u64::limb(t, i).to_limb(i)), t);
        assert_eq!(u16::limb(t, 0), 0xCDEF);
    }
}
