//! DBUS, the pre-scheduled data bus for AES-encrypted SoCs (paper
//! `dbus-aes-state-transfer-bus.txt`, Yang and Wen), as an executable cycle-level model.
//!
//! One module per hardware unit, joined by the DMA's buffers:
//! - [`address`]: the transfer types (LEN\[11:10\]) and the address formulas, eqs. (1)–(4),
//!   with the shifted byte orders of the state transfer (Fig. 4);
//! - [`bus`]: DBUS — REQ/GNT arbitration, the command phase (ADDR, WR, LEN\[11:0\]) and the
//!   data phase (WDATA with WD_VLD, RDATA, the RESP\[1\]/RESP\[0\] ready signals), section II;
//! - [`axi`]: AXI — separate address/data channels, one address command per burst and per
//!   non-contiguous boundary, AXI3 burst rules, write responses;
//! - [`dma`]: the AES-encrypted DMA of section IV.A (Fig. 6): command controller, address
//!   mapping, write data path (decrypt) and read data path (encrypt), the memory, and the
//!   AXI side's state buffer and re-ordering;
//! - [`aes_engine`]: the AES engine of section IV.B, which really encrypts, with its round
//!   timing;
//! - [`scenario`]: the test cases of section IV.C and the report beside Table III.
//!
//! Every cycle cost is a field of [`bus::DbusConfig`], [`axi::AxiConfig`],
//! [`dma::DmaConfig`] or [`aes_engine::AesTiming`], whose defaults cite the paper.

pub mod address;
pub mod aes_engine;
pub mod axi;
pub mod bus;
pub mod dma;
pub mod scenario;

pub use scenario::report;

/// Data-bus width (the paper builds both, section IV).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    W32,
    W64,
}

impl Width {
    /// Bytes per data beat.
    pub fn bytes(self) -> usize {
        match self {
            Width::W32 => 4,
            Width::W64 => 8,
        }
    }

    /// The DS code of one beat (section III.A).
    pub fn ds(self) -> address::DataSize {
        match self {
            Width::W32 => address::DS_WORD,
            Width::W64 => address::DS_DWORD,
        }
    }

    /// Bits, for names.
    pub fn bits(self) -> u32 {
        8 * self.bytes() as u32
    }

    /// Bus beats per AES state.
    pub fn beats_per_state(self) -> usize {
        16 / self.bytes()
    }
}

/// Direction of a transfer (the WR signal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Write,
    Read,
}
