//! The MX-1 logical microcode library of section 4.3: the 1-bit functions of the current
//! library (`mx_xor(ap, bp)` and its AND/OR/INV siblings), each costing C1 + C2 + C3 per
//! bit (eq. 1), and the proposed multi-bit `mx_xor_h`, costing C1 + C2 + C3 + n for n
//! consecutive bits (eq. 2).
//!
//! The matrix ([`super::matrix`]) issues one library call per gate of the circuit it runs.
//! Under [`Library::MultiBit`] consecutive XORs whose operands and result sit at consecutive
//! bit addresses (`a+i ^ b+i -> d+i`) are issued as one `mx_xor_h` call — what a
//! programmer writing `mx_xor_h(ap, bp, n)` does by hand; a run is charged the cheaper of
//! eq. (1) and eq. (2), so a 1-bit run costs an `mx_xor`. Only XOR has a multi-bit form:
//! it is the only one the paper proposes.

use super::config::MatrixConfig;

/// A PE function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Xor,
    And,
    Or,
    /// `!a & b` (only when [`MatrixConfig::andnot_native`]).
    AndNot,
    /// INV.
    Not,
}

/// Which library the program is built on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// The current library: 1-bit functions only (`mx_xor`).
    OneBit,
    /// The current library plus the proposed multi-bit `mx_xor_h`.
    MultiBit,
}

impl Library {
    pub fn name(self) -> &'static str {
        match self {
            Library::OneBit => "mx_xor",
            Library::MultiBit => "mx_xor_h",
        }
    }

    /// Whether consecutive calls of `op` are fused into one multi-bit call.
    pub fn fuses(self, op: Op) -> bool {
        self == Library::MultiBit && op == Op::Xor
    }

    /// Cycles of an `n`-bit operation `op` issued through this library.
    pub fn cycles(self, cfg: &MatrixConfig, op: Op, n: u64) -> u64 {
        if self.fuses(op) {
            mx_xor(cfg, n).min(mx_xor_h(cfg, n))
        } else {
            mx_xor(cfg, n)
        }
    }
}

/// Eq. (1): n 1-bit calls, `(C1 + C2 + C3) · n`.
pub fn mx_xor(cfg: &MatrixConfig, n: u64) -> u64 {
    cfg.call_cycles * n
}

/// Eq. (2): one multi-bit call, `C1 + C2 + C3 + n` (n times the per-bit cycles).
pub fn mx_xor_h(cfg: &MatrixConfig, n: u64) -> u64 {
    cfg.call_cycles + cfg.bit_cycles * n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equations_one_and_two() {
        let cfg = MatrixConfig {
            call_cycles: 10,
            ..MatrixConfig::default()
        };
        assert_eq!(mx_xor(&cfg, 128), 10 * 128);
        assert_eq!(mx_xor_h(&cfg, 128), 10 + 128);
        assert_eq!(Library::MultiBit.cycles(&cfg, Op::Xor, 1), 10);
        assert_eq!(Library::MultiBit.cycles(&cfg, Op::And, 4), 40);
        assert_eq!(Library::OneBit.cycles(&cfg, Op::Xor, 4), 40);
    }
}
