//! The PPE's ALU (paper, section 3.1): XOR, addition and subtraction modulo 2^n on one 64-bit
//! word, four 16-bit adder slices whose carries are linked or cut by the 3 mode bits, so one
//! datapath handles 4×16, 2×32 or 1×64-bit lanes ("the mode control bits have to be 111 ...
//! to add two 64 bit words").
//!
//! The slices are modelled as the hardware computes: each slice adds its 16 bits with the
//! carry of the slice below when the link between them is set, and with the lane's carry-in
//! (1 for subtraction, which adds the complement) when it is not. The paper's adder is a
//! carry look-ahead adder; only its function matters here (it closes in one cycle at
//! 250 MHz, section 5.1).

use super::isa::AluOp;

/// Whether slice `k` (0..3) takes the carry of slice `k - 1` in `mode`.
pub fn linked(mode: u8, k: usize) -> bool {
    k > 0 && (mode >> (k - 1)) & 1 == 1
}

/// One ALU operation.
pub fn alu(op: AluOp, mode: u8, a: u64, b: u64) -> u64 {
    match op {
        AluOp::Xor => a ^ b,
        AluOp::Add => slices(mode, a, b, false),
        AluOp::Sub => slices(mode, a, !b, true),
    }
}

fn slices(mode: u8, a: u64, b: u64, carry_in: bool) -> u64 {
    let mut out = 0u64;
    let mut carry = 0u32;
    for k in 0..4 {
        let sa = ((a >> (16 * k)) & 0xFFFF) as u32;
        let sb = ((b >> (16 * k)) & 0xFFFF) as u32;
        let cin = if linked(mode, k) {
            carry
        } else {
            carry_in as u32
        };
        let s = sa + sb + cin;
        carry = s >> 16;
        out |= ((s & 0xFFFF) as u64) << (16 * k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::isa::{MODE_16, MODE_32, MODE_64};
    use super::*;

    #[test]
    fn lanes_wrap_independently() {
        let a = 0xFFFF_0001_FFFF_FFFFu64;
        let b = 0x0001_0001_0000_0001u64;
        assert_eq!(alu(AluOp::Add, MODE_64, a, b), a.wrapping_add(b));
        let lo = (a as u32).wrapping_add(b as u32) as u64;
        let hi = ((a >> 32) as u32).wrapping_add((b >> 32) as u32) as u64;
        assert_eq!(alu(AluOp::Add, MODE_32, a, b), hi << 32 | lo);
        let w16: u64 = (0..4)
            .map(|k| ((a >> (16 * k)) as u16).wrapping_add((b >> (16 * k)) as u16) as u64)
            .enumerate()
            .map(|(k, v)| v << (16 * k))
            .sum();
        assert_eq!(alu(AluOp::Add, MODE_16, a, b), w16);
        assert_eq!(alu(AluOp::Sub, MODE_64, b, a), b.wrapping_sub(a));
        let lo = (b as u32).wrapping_sub(a as u32) as u64;
        let hi = ((b >> 32) as u32).wrapping_sub((a >> 32) as u32) as u64;
        assert_eq!(alu(AluOp::Sub, MODE_32, b, a), hi << 32 | lo);
        assert_eq!(alu(AluOp::Xor, MODE_16, a, b), a ^ b);
    }
}
