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
//! # Costs: where the paper leaves gaps (the one place they are argued)
//!
//! The paper names the terms of a library call — C1 "register setting", C2 "read from
//! SRAM", C3 "execution in PE and write to SRAM" — but prints no values. From section 2:
//! the H-channel reads two operands in one cycle (two simultaneously accessible SRAM parts)
//! and writes the result in the same read-modify-write, and the controller issues one
//! instruction per cycle. So C1 = 1 (one instruction loads the bit pointers), C2 = 1 (both
//! reads), C3 = 1 (execute and write back): a 1-bit call costs 3 cycles, an n-bit
//! `mx_xor_h` 3 + n (eq. 2's "+ n": one bit per cycle once the pipeline runs). Every other
//! PE function (AND, OR, INV) is costed like `mx_xor`; ANDNOT is INV + AND (section 4.3
//! lists XOR, AND, OR, INV); a 3-input gate of the library's circuits is lowered by the
//! library's own `Logic::tern` default to 2-input calls. Key bits are broadcast immediates
//! (one key for every PE). Plane renamings (IP, FP, E, P, ShiftRows) cost nothing: the
//! program addresses the bit where it lies. The V-channel costs C1 + 1 per bit. Transfers
//! are hidden behind computation (see [`board`]); the bus width and DMA set-up, which the
//! paper does not give, are named assumptions there. The paper's measured figures are never
//! inputs: they are printed beside the model's with the deviation.

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
