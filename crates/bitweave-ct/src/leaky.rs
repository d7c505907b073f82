//! Deliberately leaky functions: the positive controls. Each check must flag them, so a
//! check that passes the library has shown it can fail.

/// Bytes per table entry in [`table_lookup`]: one cache line, so each index touches its
/// own line.
pub const LINE: usize = 64;

/// A secret-indexed table lookup (the T-table AES pattern): sums `table[s * LINE]` over
/// the secret bytes `s`. `table` holds at least `256 * LINE` bytes. Memcheck sees an
/// address computed from a secret; a timer sees which lines were cached.
#[inline(never)]
pub fn table_lookup(table: &[u8], secret: &[u8]) -> u8 {
    secret
        .iter()
        .fold(0u8, |acc, &s| acc.wrapping_add(table[s as usize * LINE]))
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
