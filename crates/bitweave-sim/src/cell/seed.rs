//! The SEED data the Cell programs use: the four SS tables (paper §2.2: G rebuilt as four
//! SS-boxes, "a lookup table is constructed for each box", §3), the round keys the PPE
//! creates (§3), and the library's result the model is checked against.

use bitweave::hazmat::seed::{SeedKeySchedule, M, S1, S2};
use bitweave::{BlockCipher, Cipher, CipherKind};

/// Encryption or decryption (decryption runs the same program on the reversed keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

/// SS_j\[x\] for j = 0..3 (paper §2.2's equations: S1 for even j, S2 for odd j, the byte
/// masked by m3..m0 rotated by j), built here from the library's S-boxes and masks.
pub fn ss_tables() -> [[u32; 256]; 4] {
    let mut ss = [[0u32; 256]; 4];
    for (j, table) in ss.iter_mut().enumerate() {
        for (x, e) in table.iter_mut().enumerate() {
            let s = if j % 2 == 0 { S1[x] } else { S2[x] };
            // Output byte 3 (most significant) uses mask m_{(3+j) mod 4}, then downwards.
            let b = |i: usize| s & M[(i + j) % 4];
            *e = u32::from_be_bytes([b(3), b(2), b(1), b(0)]);
        }
    }
    ss
}

/// G through the tables, byte 0 = least significant (the programs compute the same).
pub fn g(ss: &[[u32; 256]; 4], x: u32) -> u32 {
    let b = x.to_le_bytes();
    (0..4).fold(0, |acc, k| acc ^ ss[k][b[k] as usize])
}

/// The 16 round-key pairs in the order the programs consume them.
pub fn round_keys(key: &[u8; 16], direction: Direction) -> [[u32; 2]; 16] {
    let ss = ss_tables();
    let ks = SeedKeySchedule::new(key, |x| g(&ss, x));
    let mut k = ks.round_keys;
    if direction == Direction::Decrypt {
        k.reverse();
    }
    k
}

/// The library's ECB result, for the check.
pub fn library(direction: Direction, key: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let c = Cipher::new(CipherKind::Seed, key).expect("16-byte SEED key");
    let mut v = data.to_vec();
    match direction {
        Direction::Encrypt => c.encrypt_blocks(&mut v),
        Direction::Decrypt => c.decrypt_blocks(&mut v),
    }
    v
}

/// Deterministic test bytes (xorshift).
pub fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}
