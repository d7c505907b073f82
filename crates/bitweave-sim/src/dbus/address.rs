//! DBUS transfer types and their address formulas (paper, section III.A–B).
//!
//! A DBUS command carries one initial address and a 12-bit LEN field: LEN\[11:10\] selects
//! the transfer type (2'b00 linear, 2'b01 block, 2'b10 state) and LEN\[9:0\] its size. Every
//! further address is computed by hardware from eqs. (1)–(4); this module is that hardware.
//!
//! State layout (interpretation of eq. (4), see [`state_addr`]): memory is a 2-D array of
//! bytes with a row pitch of GAP bytes. An AES state is a 4×4-byte tile: state row r, column
//! c (FIPS-197 `s[r][c]`, input byte `in[r + 4c]`) lives at `base + r·GAP + c`. So one
//! memory row holds one *row* of the state, and an AES column is vertical in memory — which
//! is why AXI needs four addresses per state (Fig. 5(a)) while DBUS needs one.

/// Data-size code DS (section III.A): 0 byte, 1 half word, 2 word, 3 double word, 4 quad word.
pub type DataSize = u32;
/// DS of a 32-bit word.
pub const DS_WORD: DataSize = 2;
/// DS of a 64-bit double word.
pub const DS_DWORD: DataSize = 3;

/// The DBUS transfer type, LEN\[11:10\].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferType {
    /// 2'b00: LEN\[9:0\] data in row-major order (eq. 2).
    Linear,
    /// 2'b01: LEN\[5:0\] rows (height) of LEN\[9:6\] data (width) (eq. 3).
    Block,
    /// 2'b10: LEN\[9:0\] AES states (eq. 4), data in shifted/inverse-shifted column order.
    State,
}

impl TransferType {
    /// The two-bit code driven on LEN\[11:10\].
    pub fn code(self) -> u16 {
        match self {
            TransferType::Linear => 0b00,
            TransferType::Block => 0b01,
            TransferType::State => 0b10,
        }
    }
}

/// The 12-bit LEN field of a DBUS command (section II and III).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Len(u16);

impl Len {
    /// A linear transfer of `count` data (1..=1023).
    pub fn linear(count: u16) -> Option<Len> {
        (1..1024).contains(&count).then_some(Len(count))
    }

    /// A block transfer of `height` rows (LEN\[5:0\], 1..=63) of `width` data (LEN\[9:6\], 1..=15).
    pub fn block(height: u16, width: u16) -> Option<Len> {
        ((1..64).contains(&height) && (1..16).contains(&width))
            .then_some(Len((0b01 << 10) | (width << 6) | height))
    }

    /// A state transfer of `states` AES states (LEN\[9:0\], 1..=1023).
    pub fn state(states: u16) -> Option<Len> {
        (1..1024)
            .contains(&states)
            .then_some(Len((0b10 << 10) | states))
    }

    /// Decodes a LEN value as driven on the bus; `None` for the reserved type 2'b11, for
    /// bits above bit 11, or for a zero size.
    pub fn from_bits(bits: u16) -> Option<Len> {
        if bits >> 12 != 0 {
            return None;
        }
        let len = Len(bits);
        match bits >> 10 {
            0b00 => Len::linear(len.count()),
            0b01 => Len::block(len.height(), len.width()),
            0b10 => Len::state(len.count()),
            _ => None,
        }
    }

    /// The 12 bits driven on LEN\[11:0\].
    pub fn bits(self) -> u16 {
        self.0
    }

    /// LEN\[11:10\].
    pub fn transfer_type(self) -> TransferType {
        match self.0 >> 10 {
            0b00 => TransferType::Linear,
            0b01 => TransferType::Block,
            _ => TransferType::State,
        }
    }

    /// LEN\[9:0\]: data count (linear) or state count (state).
    pub fn count(self) -> u16 {
        self.0 & 0x3ff
    }

    /// LEN\[5:0\]: block height (rows).
    pub fn height(self) -> u16 {
        self.0 & 0x3f
    }

    /// LEN\[9:6\]: block width (data per row).
    pub fn width(self) -> u16 {
        (self.0 >> 6) & 0xf
    }
}

/// Eq. (1), the aligned initial address. The paper prints `(INI_ADDR << DS) >> DS`, which on
/// an unbounded integer is the identity; the stated intent ("aligned initial address") is
/// clearing the DS low bits, so this computes `(INI_ADDR >> DS) << DS` (interpretation).
pub fn aligned_base(ini_addr: u64, ds: DataSize) -> u64 {
    (ini_addr >> ds) << ds
}

/// Eq. (2): address of the M-th datum of a linear transfer.
pub fn linear_addr(addr0: u64, m: u64, ds: DataSize) -> u64 {
    addr0 + (m << ds)
}

/// Eq. (3): address of the datum in row M, column N of a block transfer.
pub fn block_addr(addr0: u64, m: u64, n: u64, gap: u64, ds: DataSize) -> u64 {
    addr0 + m * gap + (n << ds)
}

/// Eq. (4): base address of state N of state-row M: `ADDR_0 + 4M·GAP + (N << 2)`.
///
/// Interpretation: states are 4-byte-wide, 4-row-tall tiles side by side (hence `N << 2`),
/// and a state-row is four memory rows tall (hence `4M·GAP`); row r of the state is at
/// `state_addr + r·GAP`.
pub fn state_addr(addr0: u64, m: u64, n: u64, gap: u64) -> u64 {
    addr0 + 4 * m * gap + (n << 2)
}

/// Which (state-row M, state N) the k-th state of a transfer occupies: states fill a memory
/// row of GAP bytes (GAP / 4 states) before the next state-row starts (interpretation: the
/// paper gives the address of state (M, N) but not the order in which LEN\[9:0\] states are
/// walked; row-major, like the block transfer, is assumed).
pub fn state_position(k: u64, gap: u64) -> (u64, u64) {
    assert!(
        gap >= 4 && gap.is_multiple_of(4),
        "state GAP must be a multiple of 4 bytes"
    );
    let per_row = gap / 4;
    (k / per_row, k % per_row)
}

/// Address of byte `s[r][c]` of the k-th state of a state transfer.
pub fn state_byte_addr(addr0: u64, k: u64, gap: u64, r: usize, c: usize) -> u64 {
    let (m, n) = state_position(k, gap);
    state_addr(addr0, m, n, gap) + r as u64 * gap + c as u64
}

/// The memory address of every byte of each state (indexed in FIPS-197 input order,
/// `in[r + 4c] = s[r][c]`).
pub fn state_byte_map(addr0: u64, states: usize, gap: u64) -> Vec<[u64; 16]> {
    (0..states as u64)
        .map(|k| {
            let mut a = [0u64; 16];
            for (i, slot) in a.iter_mut().enumerate() {
                *slot = state_byte_addr(addr0, k, gap, i % 4, i / 4);
            }
            a
        })
        .collect()
}

/// Order of the bytes of a state on the data bus, word by word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordOrder {
    /// Word c is column c (FIPS-197 byte order).
    Column,
    /// Word c is column c of ShiftRows(state): `{s[0][c], s[1][c+1], s[2][c+2], s[3][c+3]}`
    /// — the state read order of Fig. 4.
    ShiftRows,
    /// Word c is column c of InvShiftRows(state): `{s[0][c], s[1][c-1], s[2][c-2], s[3][c-3]}`
    /// — the state write order of Fig. 4.
    InvShiftRows,
}

/// FIPS index (`r + 4c'`) of the byte carried in lane r of word c, for the given order.
pub fn word_source(order: WordOrder, c: usize, r: usize) -> usize {
    let col = match order {
        WordOrder::Column => c,
        WordOrder::ShiftRows => (c + r) % 4,
        WordOrder::InvShiftRows => (c + 4 - r) % 4,
    };
    r + 4 * col
}

/// The four words of `state` in the given order.
pub fn state_words(state: &[u8; 16], order: WordOrder) -> [[u8; 4]; 4] {
    let mut w = [[0u8; 4]; 4];
    for (c, word) in w.iter_mut().enumerate() {
        for (r, b) in word.iter_mut().enumerate() {
            *b = state[word_source(order, c, r)];
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn len_fields_round_trip() {
        let l = Len::block(10, 4).unwrap();
        assert_eq!(l.transfer_type(), TransferType::Block);
        assert_eq!((l.height(), l.width()), (10, 4));
        assert_eq!(Len::from_bits(l.bits()), Some(l));
        let s = Len::state(10).unwrap();
        assert_eq!(s.bits() >> 10, 0b10);
        assert_eq!(Len::from_bits(0b11 << 10 | 5), None);
        assert_eq!(Len::linear(0), None);
        assert_eq!(Len::block(64, 1), None);
    }

    #[test]
    fn fig4_orders() {
        let s: [u8; 16] = core::array::from_fn(|i| i as u8);
        let rd = state_words(&s, WordOrder::ShiftRows);
        assert_eq!(rd[0], [0x0, 0x5, 0xa, 0xf]);
        assert_eq!(rd[2], [0x8, 0xd, 0x2, 0x7]);
        assert_eq!(rd[3], [0xc, 0x1, 0x6, 0xb]);
        let wr = state_words(&s, WordOrder::InvShiftRows);
        assert_eq!(wr[2], [0x8, 0x5, 0x2, 0xf]);
        assert_eq!(wr[3], [0xc, 0x9, 0x6, 0x3]);
    }
}
