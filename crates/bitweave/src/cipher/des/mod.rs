//! DES and triple DES (FIPS 46-3, NIST SP 800-67): the standard's tables, the key
//! schedule, and the EDE composition shared by every DES backend.
//!
//! Bit numbering follows the standard: bit 1 is the most significant bit of a block. Keys
//! are 8 bytes per DES key; the low (parity) bit of each byte is ignored and not checked,
//! as OpenSSL does. The key schedule indexes nothing by key bits (only fixed permutations
//! and rotations), so it is constant-time.

use zeroize::{Zeroize, ZeroizeOnDrop};

#[cfg(target_arch = "x86_64")]
mod bitalg_x86;
#[cfg(target_arch = "x86_64")]
mod byteshuffle_x86;
pub mod circuit;
pub mod circuit2;
#[cfg(target_arch = "x86_64")]
mod schedule_x86;
pub mod shift;
mod shift_layout;
#[cfg(target_arch = "x86_64")]
mod shift_x86;
pub mod sliced;
pub mod soft;

/// Initial permutation IP (FIPS 46-3): output bit i is input bit `IP[i]`.
pub const IP: [u8; 64] = [
    58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6,
    64, 56, 48, 40, 32, 24, 16, 8, 57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3, 61,
    53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
];

/// Final permutation IP^-1, derived from [`IP`].
pub const FP: [u8; 64] = {
    let mut fp = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        fp[IP[i] as usize - 1] = i as u8 + 1;
        i += 1;
    }
    fp
};

/// Expansion E: 32 → 48 bits. Chunk j (six bits) is R's bits 4j..4j+5 (cyclic), which
/// backends implement as a rotation.
pub const E: [u8; 48] = [
    32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17, 16, 17, 18,
    19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1,
];

/// Permutation P applied to the S-box outputs.
pub const P: [u8; 32] = [
    16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9, 19,
    13, 30, 6, 22, 11, 4, 25,
];

/// S-boxes S1..S8, each 4 rows of 16: row = outer bits (b1 b6), column = inner bits b2..b5.
pub const SBOXES: [[u8; 64]; 8] = [
    [
        14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12,
        11, 9, 5, 3, 8, 4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9,
        1, 7, 5, 11, 3, 14, 10, 0, 6, 13,
    ],
    [
        15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1,
        10, 6, 9, 11, 5, 0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15,
        4, 2, 11, 6, 7, 12, 0, 5, 14, 9,
    ],
    [
        10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5,
        14, 12, 11, 15, 1, 13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6,
        9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12,
    ],
    [
        7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2,
        12, 1, 10, 14, 9, 10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1,
        13, 8, 9, 4, 5, 11, 12, 7, 2, 14,
    ],
    [
        2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15,
        10, 3, 9, 8, 6, 4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14,
        2, 13, 6, 15, 0, 9, 10, 4, 5, 3,
    ],
    [
        12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13,
        14, 0, 11, 3, 8, 9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5,
        15, 10, 11, 14, 1, 7, 6, 0, 8, 13,
    ],
    [
        4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5,
        12, 2, 15, 8, 6, 1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4,
        10, 7, 9, 5, 0, 15, 14, 2, 3, 12,
    ],
    [
        13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6,
        11, 0, 14, 9, 2, 7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10,
        8, 13, 15, 12, 9, 0, 3, 5, 6, 11,
    ],
];

/// Permuted choice 1: 64-bit key → 56 bits (C ‖ D).
const PC1: [u8; 56] = [
    57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60,
    52, 44, 36, 63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22, 14, 6, 61, 53, 45, 37, 29,
    21, 13, 5, 28, 20, 12, 4,
];

/// Permuted choice 2: 56 bits (C ‖ D) → 48-bit round key.
const PC2: [u8; 48] = [
    14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2, 41, 52,
    31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32,
];

/// Left rotations of C and D before each round.
const SHIFTS: [u32; 16] = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1];

/// Applies a standard permutation table: output bit i (1 = MSB of `table.len()` bits) is
/// input bit `table[i]` (1 = MSB of `in_bits` bits).
pub fn permute(input: u64, in_bits: u32, table: &[u8]) -> u64 {
    table.iter().fold(0u64, |out, &p| {
        (out << 1) | ((input >> (in_bits - p as u32)) & 1)
    })
}

/// A fixed bit permutation (a standard table, as [`permute`] reads it) as groups of bits
/// that move the same distance: one mask, shift and OR per group instead of per bit.
/// PC-2 moves its 48 bits in 29 groups, PC-1 its 56 in 42; 3DES's key set-up applies
/// them 51 times, and bit by bit that was most of a `Cipher::new`. The masks and shifts
/// are public constants, so the work is the same for every key.
struct Moves {
    /// (mask of source bits, distance up) and (mask, distance down).
    up: [(u64, u32); 64],
    down: [(u64, u32); 64],
    ups: usize,
    downs: usize,
}

impl Moves {
    const fn new(table: &[u8], in_bits: u32) -> Moves {
        let mut m = Moves {
            up: [(0, 0); 64],
            down: [(0, 0); 64],
            ups: 0,
            downs: 0,
        };
        let last = table.len() as i32 - 1;
        let mut i = 0;
        while i < table.len() {
            let from = in_bits as i32 - table[i] as i32;
            let to = last - i as i32;
            let (list, count, dist) = if to >= from {
                (&mut m.up, &mut m.ups, (to - from) as u32)
            } else {
                (&mut m.down, &mut m.downs, (from - to) as u32)
            };
            let mut g = 0;
            while g < *count && list[g].1 != dist {
                g += 1;
            }
            if g == *count {
                list[g] = (0, dist);
                *count += 1;
            }
            list[g].0 |= 1 << from;
            i += 1;
        }
        m
    }

    fn apply(&self, x: u64) -> u64 {
        let up = self.up[..self.ups]
            .iter()
            .fold(0, |out, &(mask, d)| out | (x & mask) << d);
        self.down[..self.downs]
            .iter()
            .fold(up, |out, &(mask, d)| out | (x & mask) >> d)
    }
}

const PC1_MOVES: Moves = Moves::new(&PC1, 64);
const PC2_MOVES: Moves = Moves::new(&PC2, 56);

/// The 16 round keys of one DES key, 48 bits each (bit 1 = bit 47 of the u64).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct DesKeySchedule {
    pub round_keys: [u64; 16],
}

impl DesKeySchedule {
    /// Expands one 8-byte DES key (FIPS 46-3 key schedule).
    pub fn new(key: &[u8; 8]) -> Self {
        let cd = PC1_MOVES.apply(u64::from_be_bytes(*key));
        let c = (cd >> 28) as u32 & 0x0fff_ffff;
        let d = cd as u32 & 0x0fff_ffff;
        #[cfg(target_arch = "x86_64")]
        if let Some(round_keys) = schedule_x86::round_keys(c, d) {
            return DesKeySchedule { round_keys };
        }
        Self::scalar(c, d)
    }

    /// The 16 PC-2 permutations one after another, from C0 and D0.
    fn scalar(mut c: u32, mut d: u32) -> Self {
        let mut round_keys = [0u64; 16];
        for (rk, &s) in round_keys.iter_mut().zip(SHIFTS.iter()) {
            c = ((c << s) | (c >> (28 - s))) & 0x0fff_ffff;
            d = ((d << s) | (d >> (28 - s))) & 0x0fff_ffff;
            *rk = PC2_MOVES.apply(((c as u64) << 28) | d as u64);
        }
        DesKeySchedule { round_keys }
    }
}

/// The bitsliced kernels' masks of `n` round keys, in order: each key's 48 bits as 0 or
/// all ones, its first bit (bit 47 of the u64) first.
pub(crate) fn bit_masks(round_keys: impl Iterator<Item = u64>, n: usize) -> Vec<[u64; 48]> {
    #[allow(unused_mut)] // borrowed mutably only by the x86 forms
    let mut round_keys = round_keys;
    #[cfg(target_arch = "x86_64")]
    if let Some(masks) = schedule_x86::masks(&mut round_keys, n) {
        return masks;
    }
    let mut out = Vec::with_capacity(n);
    out.extend(round_keys.map(|round_key| -> [u64; 48] {
        // mask = 0 - bit: no branch.
        core::array::from_fn(|i| 0u64.wrapping_sub((round_key >> (47 - i)) & 1))
    }));
    out
}

/// One, two or three DES key schedules: single DES, or triple DES in EDE order
/// (encrypt = E_K3(D_K2(E_K1(P))); two-key 3DES has K3 = K1).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct TdesKeys {
    /// Schedules for K1 (and K2, K3 for triple DES).
    pub stages: Vec<DesKeySchedule>,
}

impl TdesKeys {
    /// Splits an 8-, 16- or 24-byte key into its DES keys. The caller checked the length.
    pub fn new(key: &[u8]) -> Self {
        let mut keys: Vec<[u8; 8]> = key.chunks_exact(8).map(|c| c.try_into().unwrap()).collect();
        if keys.len() == 2 {
            keys.push(keys[0]);
        }
        let stages = keys.iter().map(DesKeySchedule::new).collect();
        keys.zeroize();
        TdesKeys { stages }
    }

    /// Every round key in the order encryption runs them: EDE's middle stage decrypts, so
    /// its keys run backwards. Decryption runs the same list from the last.
    pub fn encryption_order(&self) -> impl Iterator<Item = u64> + '_ {
        self.stages.iter().enumerate().flat_map(|(s, stage)| {
            (0..16).map(move |r| stage.round_keys[if s % 2 == 1 { 15 - r } else { r }])
        })
    }
}

/// Checks a kernel against `soft` on every block count in `counts`, for a DES, a two-key
/// and a three-key 3DES key, both directions: `run(round_keys, data)` runs the kernel in
/// place on the round keys in the order it runs them (encryption's order, or reversed).
/// (Its kernels are x86's.)
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) fn assert_matches_soft(
    kernel: &str,
    counts: impl Iterator<Item = usize> + Clone,
    run: impl Fn(&[u64], &mut [u8]),
) {
    use crate::cipher::BlockCipher;
    for key_len in [8usize, 16, 24] {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|b| b.wrapping_mul(77) ^ 0x35)
            .collect();
        let soft = soft::DesSoft::new(&key);
        let enc: Vec<u64> = TdesKeys::new(&key).encryption_order().collect();
        let dec: Vec<u64> = enc.iter().rev().copied().collect();
        for blocks in counts.clone() {
            let data: Vec<u8> = (0..8 * blocks).map(|i| (i * 29 + 7) as u8).collect();
            for (decrypt, keys) in [(false, &enc), (true, &dec)] {
                let mut want = data.clone();
                if decrypt {
                    soft.decrypt_blocks(&mut want);
                } else {
                    soft.encrypt_blocks(&mut want);
                }
                let mut got = data.clone();
                run(keys, &mut got);
                assert_eq!(
                    got, want,
                    "des key {key_len} B, {kernel}, {blocks} blocks, decrypt {decrypt}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp_inverts_ip() {
        let x = 0x0123_4567_89ab_cdefu64;
        assert_eq!(permute(permute(x, 64, &IP), 64, &FP), x);
    }

    /// The vector forms of the schedule this CPU has, and the names of those it lacks.
    #[cfg(target_arch = "x86_64")]
    fn forms() -> (Vec<schedule_x86::Form>, String) {
        let (ran, lacked): (Vec<_>, Vec<_>) = schedule_x86::Form::ALL
            .into_iter()
            .partition(|f| f.available());
        (ran, format!("{lacked:?}"))
    }

    /// Every vector form of the key schedule this CPU runs, and the one `new` picks,
    /// against the scalar one on random keys: every round key.
    #[test]
    fn schedule_equals_the_scalar_one() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let cd = PC1_MOVES.apply(x);
            let (c, d) = ((cd >> 28) as u32 & 0x0fff_ffff, cd as u32 & 0x0fff_ffff);
            let want = DesKeySchedule::scalar(c, d).round_keys;
            assert_eq!(
                DesKeySchedule::new(&x.to_be_bytes()).round_keys,
                want,
                "key {x:#x}"
            );
            #[cfg(target_arch = "x86_64")]
            for form in forms().0 {
                assert_eq!(form.round_keys(c, d), Some(want), "{form:?}, key {x:#x}");
            }
        }
        #[cfg(target_arch = "x86_64")]
        {
            let (ran, lacked) = forms();
            eprintln!("key schedule: {ran:?} checked against scalar; not on this CPU: {lacked}");
        }
    }

    #[test]
    fn bit_masks_equal_the_bits() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut keys = vec![0, (1 << 48) - 1, 1 << 47, 1, 0xAAAA_AAAA_AAAA];
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            keys.push(x >> 16);
        }
        for rk in keys {
            let want: [u64; 48] =
                core::array::from_fn(|i| if rk >> (47 - i) & 1 == 1 { u64::MAX } else { 0 });
            assert_eq!(bit_masks([rk].into_iter(), 1), [want], "round key {rk:#x}");
            #[cfg(target_arch = "x86_64")]
            for form in forms().0 {
                let got = form.masks([rk, !rk].into_iter(), 2);
                let not: [u64; 48] = core::array::from_fn(|i| !want[i]);
                assert_eq!(got, Some(vec![want, not]), "{form:?}, round key {rk:#x}");
            }
        }
        #[cfg(target_arch = "x86_64")]
        {
            let (ran, lacked) = forms();
            eprintln!(
                "round-key masks: {ran:?} checked against the bits; not on this CPU: {lacked}"
            );
        }
    }

    #[test]
    fn grouped_moves_equal_the_tables() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            assert_eq!(PC1_MOVES.apply(x), permute(x, 64, &PC1));
            let y = x >> 8;
            assert_eq!(PC2_MOVES.apply(y), permute(y, 56, &PC2));
        }
    }

    #[test]
    fn key_schedule_matches_grabbe_example() {
        // K = 133457799BBCDFF1: K1 = 000110 110000 001011 101111 111111 000111 000001 110010.
        let ks = DesKeySchedule::new(&0x1334_5779_9bbc_dff1u64.to_be_bytes());
        assert_eq!(
            ks.round_keys[0],
            0b000110_110000_001011_101111_111111_000111_000001_110010
        );
    }
}
