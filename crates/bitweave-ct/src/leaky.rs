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
