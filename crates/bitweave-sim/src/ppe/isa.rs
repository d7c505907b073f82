//! The PPE's VLIW instruction (paper, section 3.4): 56 bits = 2 bits of I/O control, 20 bits
//! of coefficient-memory control, 27 bits of rotator control and 7 bits of ALU control.
//! 448 bytes of instruction memory at 7 bytes an instruction is 64 instructions, which is
//! what the 6-bit fetch and write addresses of section 3.4 address.
//!
//! The paper gives the field widths only; the split inside each field is this model's
//! interpretation, chosen so every field width is used exactly:
//!
//! | bits | field | meaning |
//! |---|---|---|
//! | 0 | `IN` | consume one 64-bit word from the input port (xin); when set, the memory write port writes xin (not the result) |
//! | 1 | `OUT` | drive the ALU result onto the output port (xout) |
//! | 2..8 | `ADDRA` | coefficient memory read address, port A (6 bits: 64 words = 512 bytes) |
//! | 8..14 | `ADDRB` | read address, port B |
//! | 14..20 | `ADDRW` | write address (`ram_inf`) |
//! | 20..22 | `WE` | write enables of the low and high 32-bit halves (lane-masked SIMD writes) |
//! | 22..25 | rotator mode | links between the four 16-bit sub-rotators (see [`crate::ppe::rotator`]) |
//! | 25..41 | rotator amounts | four 4-bit right-rotation amounts, one per 16-bit sub-rotator |
//! | 41..49 | rotator selects | four 2-bit crossbar selects, the source sub-word of each sub-rotator |
//! | 49..52 | ALU mode | carry links between the four 16-bit adder slices; 111 = 1×64 (section 3.1's example), 101 = 2×32, 000 = 4×16 |
//! | 52..54 | ALU op | 00 XOR, 01 add (section 3.1: "operation 01 ... add"), 10 subtract, 11 reserved |
//! | 54 | A source | 0: port A, 1: xin (section 3.1: "from both coefficient memory ports ... or from xin port and the accumulator") |
//! | 55 | B source | 0: port B, 1: the accumulator |
//!
//! The rotator sits on the ALU's B operand (interpretation: the paper's Fig. 1 is not in the
//! text); the ALU result is latched in the accumulator every cycle.

use std::fmt;

/// Bits in one instruction (section 3.4: 2 + 20 + 27 + 7).
pub const INSTRUCTION_BITS: u32 = 56;
/// Bytes in one instruction.
pub const INSTRUCTION_BYTES: usize = 7;
/// Widths of the four fields of section 3.4.
pub const IO_BITS: u32 = 2;
pub const COEF_BITS: u32 = 20;
pub const ROT_BITS: u32 = 27;
pub const ALU_BITS: u32 = 7;

/// Lane mode: carry/merge links between the four 16-bit slices (bit k links slice k to k+1).
pub const MODE_16: u8 = 0b000;
pub const MODE_32: u8 = 0b101;
pub const MODE_64: u8 = 0b111;

/// ALU operation (2 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AluOp {
    Xor,
    Add,
    Sub,
}

impl AluOp {
    pub fn code(self) -> u8 {
        match self {
            AluOp::Xor => 0b00,
            AluOp::Add => 0b01,
            AluOp::Sub => 0b10,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            AluOp::Xor => "xor",
            AluOp::Add => "add",
            AluOp::Sub => "sub",
        }
    }
}

/// The rotator's 27 control bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RotCtl {
    /// Merge links between sub-rotators (same meaning as the ALU mode).
    pub mode: u8,
    /// Right-rotation amount of each 16-bit sub-rotator.
    pub amt: [u8; 4],
    /// Source sub-word (0..3) of each sub-rotator.
    pub sel: [u8; 4],
}

impl RotCtl {
    /// The identity in a lane mode.
    pub fn identity(mode: u8) -> Self {
        RotCtl {
            mode,
            amt: [0; 4],
            sel: [0, 1, 2, 3],
        }
    }
}

/// One decoded VLIW instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction {
    /// IO bit 0: consume a word from xin; the memory write port then writes xin.
    pub input: bool,
    /// IO bit 1: emit the ALU result on xout.
    pub output: bool,
    pub addr_a: u8,
    pub addr_b: u8,
    pub addr_w: u8,
    /// Write enables: bit 0 low 32-bit half, bit 1 high half.
    pub we: u8,
    pub rot: RotCtl,
    pub alu_mode: u8,
    pub op: AluOp,
    /// A operand is xin (else port A).
    pub a_xin: bool,
    /// B operand is the accumulator (else port B).
    pub b_acc: bool,
}

/// A word that is not a valid instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("bits above bit 55 are set")]
    TooWide,
    #[error("reserved ALU operation code 11")]
    ReservedOp,
}

fn put(w: &mut u64, shift: u32, bits: u32, v: u64) {
    debug_assert!(v < (1 << bits));
    *w |= (v & ((1 << bits) - 1)) << shift;
}

fn get(w: u64, shift: u32, bits: u32) -> u64 {
    (w >> shift) & ((1 << bits) - 1)
}

impl Instruction {
    /// The 56-bit encoding (in the low bits of a u64).
    pub fn encode(&self) -> u64 {
        let mut w = 0u64;
        put(&mut w, 0, 1, self.input as u64);
        put(&mut w, 1, 1, self.output as u64);
        put(&mut w, 2, 6, self.addr_a as u64);
        put(&mut w, 8, 6, self.addr_b as u64);
        put(&mut w, 14, 6, self.addr_w as u64);
        put(&mut w, 20, 2, self.we as u64);
        put(&mut w, 22, 3, self.rot.mode as u64);
        for i in 0..4 {
            put(&mut w, 25 + 4 * i as u32, 4, self.rot.amt[i] as u64);
            put(&mut w, 41 + 2 * i as u32, 2, self.rot.sel[i] as u64);
        }
        put(&mut w, 49, 3, self.alu_mode as u64);
        put(&mut w, 52, 2, self.op.code() as u64);
        put(&mut w, 54, 1, self.a_xin as u64);
        put(&mut w, 55, 1, self.b_acc as u64);
        w
    }

    /// Decodes a 56-bit word.
    pub fn decode(w: u64) -> Result<Instruction, DecodeError> {
        if w >> INSTRUCTION_BITS != 0 {
            return Err(DecodeError::TooWide);
        }
        let op = match get(w, 52, 2) {
            0b00 => AluOp::Xor,
            0b01 => AluOp::Add,
            0b10 => AluOp::Sub,
            _ => return Err(DecodeError::ReservedOp),
        };
        Ok(Instruction {
            input: get(w, 0, 1) == 1,
            output: get(w, 1, 1) == 1,
            addr_a: get(w, 2, 6) as u8,
            addr_b: get(w, 8, 6) as u8,
            addr_w: get(w, 14, 6) as u8,
            we: get(w, 20, 2) as u8,
            rot: RotCtl {
                mode: get(w, 22, 3) as u8,
                amt: core::array::from_fn(|i| get(w, 25 + 4 * i as u32, 4) as u8),
                sel: core::array::from_fn(|i| get(w, 41 + 2 * i as u32, 2) as u8),
            },
            alu_mode: get(w, 49, 3) as u8,
            op,
            a_xin: get(w, 54, 1) == 1,
            b_acc: get(w, 55, 1) == 1,
        })
    }

    /// The 7 bytes of the instruction memory image, least significant byte first.
    pub fn to_bytes(&self) -> [u8; INSTRUCTION_BYTES] {
        let b = self.encode().to_le_bytes();
        core::array::from_fn(|i| b[i])
    }
}

/// Lanes of a lane mode whose links are one of the three word sizes, as (bits, lanes).
pub fn word_bits(mode: u8) -> Option<u32> {
    match mode {
        MODE_16 => Some(16),
        MODE_32 => Some(32),
        MODE_64 => Some(64),
        _ => None,
    }
}

/// For a canonical rotator setting in a word-size mode: per output lane, the source lane and
/// the right-rotation amount. `None` when the setting is not a lane shuffle plus rotation.
pub fn canonical_rot(rot: &RotCtl) -> Option<Vec<(u8, u32)>> {
    let bits = word_bits(rot.mode)?;
    let k = (bits / 16) as usize;
    let mut out = Vec::new();
    for lane in 0..4 / k {
        let j0 = lane * k;
        let r = rot.amt[j0];
        let q = (rot.sel[j0] as usize) % k;
        let base = rot.sel[j0] as usize - q;
        for i in 0..k {
            if rot.amt[j0 + i] != r || rot.sel[j0 + i] as usize != base + (i + q) % k {
                return None;
            }
        }
        out.push(((base / k) as u8, (16 * q as u32 + r as u32) % bits));
    }
    Some(out)
}

fn fmt_addr(a: u8) -> String {
    format!("[{a}]")
}

impl fmt::Display for Instruction {
    /// The instruction as assembly text that assembles back to the same bits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match word_bits(self.alu_mode) {
            Some(b) => format!("{b}"),
            None => format!("m{}", self.alu_mode),
        };
        let dest = if self.input || self.we == 0 {
            "acc".to_string()
        } else {
            let half = match self.we {
                0b01 => ".lo",
                0b10 => ".hi",
                _ => "",
            };
            format!("{}{half}", fmt_addr(self.addr_w))
        };
        let a = if self.a_xin {
            "xin".to_string()
        } else {
            fmt_addr(self.addr_a)
        };
        let mut b = if self.b_acc {
            "acc".to_string()
        } else {
            fmt_addr(self.addr_b)
        };
        let canon = if self.rot.mode == self.alu_mode {
            canonical_rot(&self.rot)
        } else {
            None
        };
        match canon {
            Some(lanes) => {
                let n = lanes.len();
                if lanes.iter().enumerate().any(|(i, l)| l.0 as usize != i) {
                    let s: Vec<String> = lanes.iter().map(|l| l.0.to_string()).collect();
                    b += &format!("@({})", s.join(","));
                }
                if lanes.iter().any(|l| l.1 != 0) {
                    let s: Vec<String> = lanes.iter().map(|l| l.1.to_string()).collect();
                    if n == 1 {
                        b += &format!(">>>{}", s[0]);
                    } else {
                        b += &format!(">>>({})", s.join(","));
                    }
                }
            }
            None => {
                let sel: Vec<String> = self.rot.sel.iter().map(|v| v.to_string()).collect();
                let amt: Vec<String> = self.rot.amt.iter().map(|v| v.to_string()).collect();
                b += &format!(
                    "!rot({};{};{})",
                    self.rot.mode,
                    sel.join(","),
                    amt.join(",")
                );
            }
        }
        write!(f, "{}.{suffix} {dest}, {a}, {b}", self.op.name())?;
        if self.input {
            if self.we == 0 {
                write!(f, ", in")?;
            } else {
                let half = match self.we {
                    0b01 => ".lo",
                    0b10 => ".hi",
                    _ => "",
                };
                write!(f, ", in {}{half}", fmt_addr(self.addr_w))?;
            }
        }
        if self.output {
            write!(f, ", out")?;
        }
        Ok(())
    }
}
