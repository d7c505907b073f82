//! The pre-scheduled AES state layout of the DBUS paper (§III.B, Fig. 4): a state transfer
//! delivers the 16 bytes of a state already in ShiftRows order, so the engine's first
//! round needs no byte shuffle.
//!
//! In bitweave the layout is a load/store pair ([`to_shift_rows_order`],
//! [`from_shift_rows_order`]) and a reference consumer ([`super::soft::AesSoft::
//! encrypt_prescheduled_blocks`]). On this CPU it saves nothing, and the backends do not
//! use it: AES-NI/VAES perform ShiftRows inside `AESENC` at no separate cost, and the
//! T-table reference folds ShiftRows into which column each lookup reads — a choice of
//! index fixed at compile time, so a pre-shuffled state changes the indices, not the work.
//! `tests/state_order.rs` measures both (an ignored test prints the figures).
#![deny(unsafe_code)]

/// `SHIFT_ROWS[i]` is the input byte that lands at position i after ShiftRows (state
/// byte i is row i % 4 of column i / 4; row r moves left by r columns).
pub const SHIFT_ROWS: [usize; 16] = {
    let mut t = [0usize; 16];
    let mut i = 0;
    while i < 16 {
        let (r, c) = (i % 4, i / 4);
        t[i] = r + 4 * ((c + r) % 4);
        i += 1;
    }
    t
};

/// Puts each 16-byte block of `blocks` into ShiftRows order (what a DBUS state read
/// delivers). The permutation is fixed, so it is constant-time.
pub fn to_shift_rows_order(blocks: &mut [u8]) {
    for b in blocks.chunks_exact_mut(16) {
        let src: [u8; 16] = b.try_into().unwrap();
        for (i, &from) in SHIFT_ROWS.iter().enumerate() {
            b[i] = src[from];
        }
    }
}

/// Undoes [`to_shift_rows_order`] (InvShiftRows: what a DBUS state write carries).
pub fn from_shift_rows_order(blocks: &mut [u8]) {
    for b in blocks.chunks_exact_mut(16) {
        let src: [u8; 16] = b.try_into().unwrap();
        for (i, &to) in SHIFT_ROWS.iter().enumerate() {
            b[to] = src[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_fips197_shift_rows() {
        // FIPS-197 §5.1.2: s'[r][c] = s[r][(c + r) mod 4].
        let mut block: Vec<u8> = (0..16).collect();
        to_shift_rows_order(&mut block);
        assert_eq!(
            block,
            [0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11]
        );
        from_shift_rows_order(&mut block);
        assert_eq!(block, (0..16).collect::<Vec<u8>>());
    }
}
