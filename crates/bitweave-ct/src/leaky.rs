//! Deliberately leaky functions: the positive controls. Each check must flag them, so a
//! check that passes the library has shown it can fail.

/// Bytes per table entry in [`table_lookup`]: one cache line, so each index touches its
/// own line.
pub const LINE: usize = 64;

/// Size of [`table_lookup`]'s table: 65,536 lines, 4 MiB — larger than L2, so which
/// lines a secret touches shows in the time of the next call.
pub const TABLE_BYTES: usize = 65536 * LINE;

/// A secret-indexed table lookup (the T-table pattern): sums `table[i * LINE]` over the
/// secret's 16-bit little-endian words `i`. Memcheck sees an address computed from a
/// secret; a timer sees which lines were cached.
#[inline(never)]
pub fn table_lookup(table: &[u8], secret: &[u8]) -> u8 {
    secret.chunks_exact(2).fold(0u8, |acc, w| {
        let i = u16::from_le_bytes([w[0], w[1]]) as usize;
        acc.wrapping_add(table[i * LINE])
    })
}

/// A secret-dependent early-exit comparison (the naive tag check): returns at the first
/// differing byte, so its time tells how long the common prefix is.
#[inline(never)]
pub fn early_exit_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    for i in 0..a.len() {
        if std::hint::black_box(a[i]) != b[i] {
            return false;
        }
    }
    true
}

/// The smallest software leak we can construct: one early exit on one secret bit, skipping
/// a single addition. Its cost in time is the branch: when the bit is random, the
/// predictor is wrong about half the time.
#[inline(never)]
pub fn one_secret_branch(secret: u8, acc: u64) -> u64 {
    if std::hint::black_box(secret) & 1 == 0 {
        return acc;
    }
    std::hint::black_box(acc.wrapping_add(1))
}

/// Entries and bytes per entry of [`small_table_lookup`]'s table: the shape of GHASH's
/// 4-bit multiplication table (Shoup's method), 256 bytes on 4 cache lines, small enough
/// to stay in L1 between calls.
pub const SMALL_TABLE: (usize, usize) = (16, 16);

/// One lookup into a 16-entry table of 16-byte rows at a secret nibble (the smallest real
/// table leak). Between calls nothing evicts it by itself; an attacker on the same core
/// who evicts some of its lines sees which one the secret chose.
#[inline(never)]
pub fn small_table_lookup(table: &[u8], secret: u8) -> u8 {
    let row = (secret & 15) as usize * SMALL_TABLE.1;
    table[row..row + SMALL_TABLE.1]
        .iter()
        .fold(0u8, |a, &b| a ^ b)
}
