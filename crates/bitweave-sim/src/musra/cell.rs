//! The reconfigurable cell (RC) of section 2.1 (Fig. 3): a data path for signed/unsigned
//! 8/16-bit operations with two or three source operands, a local register LOR, and two
//! configuration layers used ping-pong.
//!
//! The paper names the operation classes (arithmetic and logical operations, multiplier,
//! multimedia operations such as barrel shift and absolute difference) but prints no opcode
//! table; [`Op`] is this model's concrete set, each op with its operand count. An operand
//! comes from the crossbar (any cell of the row above), the input FIFO (broadcast), the GRF
//! (direct, or indexed by the iteration for per-column constants such as round-key bytes),
//! the cell's LOR, or is absent.

/// Data-path width of one operation (section 2.1: 8/16-bit operations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpWidth {
    W8,
    W16,
}

impl OpWidth {
    /// The result mask.
    pub fn mask(self) -> u16 {
        match self {
            OpWidth::W8 => 0x00ff,
            OpWidth::W16 => 0xffff,
        }
    }
}

/// One cell operation. Shifts take the shift amount from operand b.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Op {
    /// Unconfigured cell: no operation, no result.
    Nop = 0,
    /// a (routing through a cell: one row of pipeline delay).
    Pass = 1,
    Add = 2,
    Sub = 3,
    And = 4,
    Or = 5,
    Xor = 6,
    /// a ^ b ^ c (three operands).
    Xor3 = 7,
    /// a << b (barrel shift), truncated to the width.
    Shl = 8,
    /// a >> b (logical).
    Shr = 9,
    /// Low half of a * b.
    Mul = 10,
    /// a * b + c (three operands).
    Mac = 11,
    /// |a - b| (multimedia absolute difference).
    AbsDiff = 12,
}

impl Op {
    /// Every op, by code.
    pub const ALL: [Op; 13] = [
        Op::Nop,
        Op::Pass,
        Op::Add,
        Op::Sub,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Xor3,
        Op::Shl,
        Op::Shr,
        Op::Mul,
        Op::Mac,
        Op::AbsDiff,
    ];

    /// The op with this 5-bit code.
    pub fn from_code(code: u8) -> Option<Op> {
        Op::ALL.get(code as usize).copied()
    }

    /// Source operands the op reads.
    pub fn arity(self) -> usize {
        match self {
            Op::Nop => 0,
            Op::Pass => 1,
            Op::Xor3 | Op::Mac => 3,
            _ => 2,
        }
    }

    /// The result for operand values `a`, `b`, `c` at `width`.
    pub fn eval(self, width: OpWidth, a: u16, b: u16, c: u16) -> u16 {
        let m = width.mask();
        let (a, b, c) = (a & m, b & m, c & m);
        let r = match self {
            Op::Nop => 0,
            Op::Pass => a,
            Op::Add => a.wrapping_add(b),
            Op::Sub => a.wrapping_sub(b),
            Op::And => a & b,
            Op::Or => a | b,
            Op::Xor => a ^ b,
            Op::Xor3 => a ^ b ^ c,
            Op::Shl => a.checked_shl(u32::from(b & 15)).unwrap_or(0),
            Op::Shr => a >> (b & 15),
            Op::Mul => a.wrapping_mul(b),
            Op::Mac => a.wrapping_mul(b).wrapping_add(c),
            Op::AbsDiff => a.abs_diff(b),
        };
        r & m
    }
}

/// Where an operand comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Src {
    /// No operand (reads 0).
    None,
    /// Through the crossbar: the result of cell `col` of the row above (section 2.1).
    Above(u8),
    /// Byte `b` (and `b+1` at 16 bits) of the input-FIFO entry of this row's iteration:
    /// the FIFO broadcasts to every cell configured to receive (section 2.1).
    Fifo(u8),
    /// GRF register `r` (scalar constants, section 2.1).
    Grf(u8),
    /// GRF register `base + stride * (iteration mod period)`, stride and period being
    /// context control parameters: a per-column constant such as a round-key byte.
    GrfIter(u8),
    /// The cell's local register LOR (array constants, section 2.1).
    Lor,
}

/// Number of GRF registers (16-bit). Not given by the paper: assumption.
pub const GRF_REGS: usize = 32;
/// Bytes in one input/output FIFO entry (512 bits, section 2.1).
pub const FIFO_BYTES: usize = 64;

impl Src {
    /// 8-bit encoding in a configuration word: `00ccc` crossbar column, `01bbbbbb` FIFO
    /// byte, `100rrrrr` GRF, `101rrrrr` iteration-indexed GRF, `0xC0` LOR, `0xFF` none.
    pub fn encode(self) -> u8 {
        match self {
            Src::None => 0xff,
            Src::Above(c) => c & 7,
            Src::Fifo(b) => 0x40 | (b & 0x3f),
            Src::Grf(r) => 0x80 | (r & 0x1f),
            Src::GrfIter(r) => 0xa0 | (r & 0x1f),
            Src::Lor => 0xc0,
        }
    }

    /// Decodes an 8-bit operand field.
    pub fn decode(v: u8) -> Option<Src> {
        match v {
            0xff => Some(Src::None),
            0x00..=0x07 => Some(Src::Above(v)),
            0x40..=0x7f => Some(Src::Fifo(v & 0x3f)),
            0x80..=0x9f => Some(Src::Grf(v & 0x1f)),
            0xa0..=0xbf => Some(Src::GrfIter(v & 0x1f)),
            0xc0 => Some(Src::Lor),
            _ => None,
        }
    }
}

/// One layer's configuration of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellConfig {
    pub op: Op,
    pub width: OpWidth,
    pub src: [Src; 3],
}

impl Default for CellConfig {
    fn default() -> Self {
        CellConfig {
            op: Op::Nop,
            width: OpWidth::W8,
            src: [Src::None; 3],
        }
    }
}

impl CellConfig {
    pub fn new(op: Op, src: &[Src]) -> Self {
        let mut s = [Src::None; 3];
        s[..src.len()].copy_from_slice(src);
        CellConfig {
            op,
            width: OpWidth::W8,
            src: s,
        }
    }

    /// Whether the cell does anything.
    pub fn active(&self) -> bool {
        self.op != Op::Nop
    }

    /// The 32-bit configuration word: op in bits 0–4, width in bit 5 (1 = 16-bit), the
    /// three operand fields in bits 6–13, 14–21, 22–29.
    pub fn encode(&self) -> u32 {
        (self.op as u32)
            | (u32::from(self.width == OpWidth::W16) << 5)
            | (u32::from(self.src[0].encode()) << 6)
            | (u32::from(self.src[1].encode()) << 14)
            | (u32::from(self.src[2].encode()) << 22)
    }

    /// Decodes a configuration word.
    pub fn decode(w: u32) -> Option<CellConfig> {
        if w >> 30 != 0 {
            return None;
        }
        let op = Op::from_code((w & 0x1f) as u8)?;
        let width = if w & 0x20 != 0 {
            OpWidth::W16
        } else {
            OpWidth::W8
        };
        let f = |shift: u32| Src::decode(((w >> shift) & 0xff) as u8);
        Some(CellConfig {
            op,
            width,
            src: [f(6)?, f(14)?, f(22)?],
        })
    }
}

/// A cell: two configuration layers (ping-pong, section 2.1), one of which drives the
/// data path, and its output register.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cell {
    /// The two layers.
    pub layers: [CellConfig; 2],
    /// The output register, read by the row below through the crossbar.
    pub out: u16,
    /// Operations executed.
    pub ops: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_at_both_widths() {
        assert_eq!(Op::Shl.eval(OpWidth::W8, 0x81, 1, 0), 0x02);
        assert_eq!(Op::Shl.eval(OpWidth::W16, 0x81, 1, 0), 0x102);
        assert_eq!(Op::Mul.eval(OpWidth::W8, 1, 0x1b, 0), 0x1b);
        assert_eq!(Op::Mul.eval(OpWidth::W8, 0x20, 0x10, 0), 0x00);
        assert_eq!(Op::Mul.eval(OpWidth::W16, 0x20, 0x10, 0), 0x200);
        assert_eq!(Op::Mac.eval(OpWidth::W16, 3, 4, 5), 17);
        assert_eq!(Op::AbsDiff.eval(OpWidth::W8, 3, 10, 0), 7);
        assert_eq!(Op::Xor3.eval(OpWidth::W8, 1, 2, 4), 7);
        assert_eq!(Op::Sub.eval(OpWidth::W8, 0, 1, 0), 0xff);
    }

    #[test]
    fn config_words_round_trip() {
        for op in Op::ALL {
            for src in [
                [Src::Above(7), Src::Fifo(63), Src::Grf(31)],
                [Src::GrfIter(3), Src::Lor, Src::None],
            ] {
                let c = CellConfig {
                    op,
                    width: OpWidth::W16,
                    src,
                };
                assert_eq!(CellConfig::decode(c.encode()), Some(c));
            }
        }
        assert_eq!(CellConfig::decode(0x1f), None, "opcode 31 is not an op");
        assert_eq!(Src::decode(0x20), None);
    }
}
