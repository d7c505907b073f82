//! The MX-1 massive-parallel SIMD matrix of Kumaki, Koide and Fujino, "Secure Data
//! Processing with Massive-Parallel SIMD Matrix for Embedded SoC in Digital-Convergence
//! Mobile Devices" (paper `mx1-interleaved-bitslice-des-aes.txt`), as an executable cycle
//! model running the bitslice engine's own circuits in interleaved-bitslice mode.
//!
//! One module per hardware unit:
//! - [`matrix`]: the PE array with its SRAM rows, the H-channel (read-modify-write) and the
//!   V-channel, and [`matrix::Bit`], the lane type through which the library's generic
//!   circuits run on the PEs (section 2, section 3.2.2);
//! - [`library`]: the logical microcode library, `mx_xor` (eq. 1) and `mx_xor_h` (eq. 2),
//!   and the other 1-bit functions (section 4.3);
//! - [`board`]: host CPU, DMA, system bus and clocks of the evaluation board (section 4.1);
//! - [`modes`]: DES, triple DES and AES in the five modes, checked against the library;
//! - [`scenario`]: the report beside Tables I, III, IV, V, VI and VII.
//!
//! # Costs: what the paper states, what the architecture forces, and the one fit
//!
//! The paper names the terms of a library call — C1 "register setting", C2 "read from
//! SRAM", C3 "execution in PE and write to SRAM" — but prints no values. Section 2 gives
//! the architecture's floor: the H-channel reads two operands in one cycle (two
//! simultaneously accessible SRAM parts) and writes the result in the same
//! read-modify-write, and the controller issues one instruction per cycle, so a 1-bit call
//! cannot take fewer than 3 cycles. The paper's own Table IV shows its calls take far more
//! (SubBytes: ~12.7 cycles per call of the model's circuit), so C1 + C2 + C3 is the
//! model's one fitted parameter ([`config::MatrixConfig::call_cycles`]), fitted on Table
//! IV's SubBytes/`mx_xor` row ([`scenario::fit_call_cycles`]) and used for every other row,
//! which the report labels `predicted`. Derived, not fitted: an n-bit `mx_xor_h` costs
//! C1 + C2 + C3 + n (eq. 2's "+ n": one bit per cycle once the pipeline runs); every other
//! PE function (AND, OR, INV) is costed like `mx_xor`; ANDNOT is INV + AND (section 4.3
//! lists XOR, AND, OR, INV); a 3-input gate of the library's circuits is lowered by the
//! library's own `Logic::tern` default to 2-input calls. Key bits are broadcast immediates
//! (one key for every PE). Plane renamings (IP, FP, E, P, ShiftRows) cost nothing: the
//! program addresses the bit where it lies, and a transformation's results are laid out
//! at consecutive addresses where the library's AES rounds mark them (`Logic::settle`:
//! their gates write there), so `mx_xor_h` applies to AddRoundKey. Transfers are hidden behind computation (see
//! [`board`]); the bus width and DMA set-up, which the paper does not give, are named
//! assumptions there. No other paper figure is an input: each is printed beside the
//! model's with the deviation.

pub mod board;
pub mod config;
pub mod library;
pub mod matrix;
pub mod modes;
pub mod scenario;

pub use scenario::report;

/// The whole model's configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mx1Config {
    pub matrix: matrix::MatrixConfig,
    pub board: board::Board,
}

impl Mx1Config {
    /// The defaults with `pes` PEs (1024 on the evaluation board, 2048 in Tables I and VI).
    pub fn with_pes(pes: usize) -> Self {
        let mut c = Mx1Config::default();
        c.matrix.pes = pes;
        c
    }
}
