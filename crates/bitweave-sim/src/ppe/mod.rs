//! The programmable ARX processing element (PPE) of El-Hadedy and Skadron, "Hardware Overhead
//! Analysis of Programmability in ARX Crypto Processing" (paper `arx-ppe-pi-cipher.txt`), as
//! an executable cycle-level model, and the custom single-, double- and quad-width ARX
//! engines it is compared with.
//!
//! One module per hardware unit:
//! - [`isa`]: the 56-bit VLIW instruction (section 3.4's 2 + 20 + 27 + 7 bits);
//! - [`alu`]: XOR/add/sub over 4×16, 2×32 or 1×64-bit lanes (section 3.1);
//! - [`rotator`]: four 16-bit sub-rotators with a crossbar (section 3.2);
//! - [`pe`]: coefficient memory (section 3.3), instruction memory with overlapped reload
//!   (section 3.4), the accumulator and I/O ports, the cycle counter;
//! - [`asm`]: an assembler for the programs in `programs/*.s`;
//! - [`pi`]: π's ARX blocks and rounds on the PPE (section 5.2);
//! - [`aead`]: π-Cipher encryption driven by the PPE's π, checked against the library;
//! - [`custom`]: the custom ARX engines of section 4 (adders, rotators, XOR banks, memory
//!   ports per width) with their own data path and schedule;
//! - [`scenario`]: the report beside section 5.2 and Tables 1 and 2.
//!
//! Every cycle cost is a field of [`pe::PpeConfig`] or [`custom::CustomConfig`], whose
//! defaults cite the paper; cycle counts come from executing the assembled programs and the
//! engines' schedules.

pub mod aead;
pub mod alu;
pub mod asm;
pub mod custom;
pub mod isa;
pub mod pe;
pub mod pi;
pub mod rotator;
pub mod scenario;

pub use scenario::report;

/// π-Cipher word size, which is also the PPE's lane size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WordSize {
    W16,
    W32,
    W64,
}

impl WordSize {
    pub const ALL: [WordSize; 3] = [WordSize::W16, WordSize::W32, WordSize::W64];

    pub fn bits(self) -> u32 {
        match self {
            WordSize::W16 => 16,
            WordSize::W32 => 32,
            WordSize::W64 => 64,
        }
    }

    /// Mask of one word.
    pub fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    /// 64-bit memory words per chunk of 4 words.
    pub fn chunk_words(self) -> usize {
        self.bits() as usize / 16
    }

    /// Bits in a chunk: the input bits of one ARX block (section 5.2: 64 × 4 at 64 bits).
    pub fn chunk_bits(self) -> u32 {
        4 * self.bits()
    }

    /// The ALU/rotator mode bits.
    pub fn mode(self) -> u8 {
        match self {
            WordSize::W16 => isa::MODE_16,
            WordSize::W32 => isa::MODE_32,
            WordSize::W64 => isa::MODE_64,
        }
    }
}
