//! Contexts, the context memory and the parser (section 2.2).
//!
//! A context is 128 32-bit words (section 2.2): it specifies each RC's operation, the
//! interconnection, the input sources and output locations, and control parameters. The
//! paper gives the length but not the field layout; this model's layout is:
//!
//! | words   | content |
//! |---------|---------|
//! | 0–63    | one [`CellConfig`] word per RC, row-major |
//! | 64–79   | GRF initial values, 32 × 16 bits (global constants, section 2.1) |
//! | 80–111  | LOR initial values, 64 × 16 bits |
//! | 112–119 | output map: 32 output bytes per iteration, each a cell index or 0xFF |
//! | 120     | mask of the GRF registers the context initialises |
//! | 121     | input bytes / output bytes per iteration, GRF-iteration period and stride |
//! | 122     | default iteration count (the CPU overrides it per task) |
//! | 123     | magic `0x4D55_5300` ("MUS") ‖ context id |
//! | 124–126 | reserved, zero |
//! | 127     | XOR checksum of words 0–126 |
//!
//! The parser decodes a context from the context memory into a layer of every cell, behind
//! the execution of the other layer ([`ParserConfig`]); the context DMA (CDMAC) copies
//! contexts from the instruction memory into the context memory (section 4.2, step ①).

use super::cell::{CellConfig, Src, FIFO_BYTES, GRF_REGS};

/// Words per context (section 2.2).
pub const CONTEXT_WORDS: usize = 128;
/// Output bytes an iteration can name in the output map.
pub const MAX_OUT_BYTES: usize = 32;
/// Rows and columns of the array (section 2.1: 8 × 8 RCs).
pub const ROWS: usize = 8;
pub const COLS: usize = 8;
const MAGIC: u32 = 0x4d55_5300;

/// Everything one context configures: a layer of every cell plus the constants and control
/// parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// Context id (for the context memory and the report).
    pub id: u8,
    pub cells: [[CellConfig; COLS]; ROWS],
    /// GRF registers this context initialises, and their values.
    pub grf_mask: u32,
    pub grf_init: [u16; GRF_REGS],
    /// LOR values; the model keeps them with the layer so the two layers' contexts never
    /// clobber each other's constants (interpretation: section 2.1 loads LORs "while
    /// configuring").
    pub lor: [[u16; COLS]; ROWS],
    /// Output byte m of an iteration comes from cell `out_map[m]` (row * 8 + col).
    pub out_map: Vec<u8>,
    /// Input bytes per iteration (≤ 64: one FIFO entry).
    pub in_bytes: u8,
    /// `Src::GrfIter(base)` reads GRF `base + key_stride * (iteration mod key_period)`.
    pub key_period: u8,
    pub key_stride: u8,
    /// Default iteration count.
    pub iterations: u32,
}

impl Layer {
    /// An empty layer.
    pub fn empty(id: u8) -> Self {
        Layer {
            id,
            cells: [[CellConfig::default(); COLS]; ROWS],
            grf_mask: 0,
            grf_init: [0; GRF_REGS],
            lor: [[0; COLS]; ROWS],
            out_map: Vec::new(),
            in_bytes: 0,
            key_period: 1,
            key_stride: 0,
            iterations: 0,
        }
    }

    /// Active cells.
    pub fn ops(&self) -> usize {
        self.cells.iter().flatten().filter(|c| c.active()).count()
    }

    /// The deepest row with an active cell, plus one.
    pub fn rows_used(&self) -> usize {
        (0..ROWS)
            .rev()
            .find(|&r| self.cells[r].iter().any(|c| c.active()))
            .map_or(0, |r| r + 1)
    }

    /// The deepest row an output byte is taken from.
    pub fn last_out_row(&self) -> usize {
        self.out_map
            .iter()
            .map(|&c| c as usize / COLS)
            .max()
            .unwrap_or(0)
    }

    /// The 128-word context.
    pub fn encode(&self) -> [u32; CONTEXT_WORDS] {
        let mut w = [0u32; CONTEXT_WORDS];
        for r in 0..ROWS {
            for c in 0..COLS {
                w[r * COLS + c] = self.cells[r][c].encode();
            }
        }
        for i in 0..GRF_REGS / 2 {
            w[64 + i] =
                u32::from(self.grf_init[2 * i]) | (u32::from(self.grf_init[2 * i + 1]) << 16);
        }
        let lor: Vec<u16> = self.lor.iter().flatten().copied().collect();
        for i in 0..32 {
            w[80 + i] = u32::from(lor[2 * i]) | (u32::from(lor[2 * i + 1]) << 16);
        }
        let mut out = [0xffu8; MAX_OUT_BYTES];
        out[..self.out_map.len()].copy_from_slice(&self.out_map);
        for i in 0..8 {
            w[112 + i] = u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
        }
        w[120] = self.grf_mask;
        w[121] = u32::from(self.in_bytes)
            | ((self.out_map.len() as u32) << 8)
            | (u32::from(self.key_period) << 16)
            | (u32::from(self.key_stride) << 24);
        w[122] = self.iterations;
        w[123] = MAGIC | u32::from(self.id);
        w[127] = w[..127].iter().fold(0, |a, b| a ^ b);
        w
    }
}

/// Why a context was rejected by the parser.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContextError {
    #[error("bad magic word {0:#010x}")]
    Magic(u32),
    #[error("checksum mismatch")]
    Checksum,
    #[error("cell ({0},{1}): invalid configuration word {2:#010x}")]
    Cell(usize, usize, u32),
    #[error("cell (0,{0}) reads the crossbar but row 0 has no row above")]
    RowZeroCrossbar(usize),
    #[error("cell ({0},{1}) reads cell {2} of the row above, which is unconfigured")]
    DeadSource(usize, usize, u8),
    #[error("control word: {0}")]
    Control(&'static str),
}

/// The parser's timing (section 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParserConfig {
    /// Cycles to read and decode one context word into a layer. The paper says only that
    /// decoding happens behind execution (section 2.2); assumption: one word per cycle
    /// from the context memory.
    pub cycles_per_word: u64,
    /// Cycles to switch the active layer (ping-pong, section 2.1): assumption 1.
    pub layer_switch_cycles: u64,
}

impl Default for ParserConfig {
    fn default() -> Self {
        ParserConfig {
            cycles_per_word: 1,
            layer_switch_cycles: 1,
        }
    }
}

impl ParserConfig {
    /// Cycles to decode a whole context.
    pub fn decode_cycles(&self) -> u64 {
        self.cycles_per_word * CONTEXT_WORDS as u64
    }
}

/// Decodes and checks a context (the parser's function).
pub fn decode(w: &[u32; CONTEXT_WORDS]) -> Result<Layer, ContextError> {
    if w[123] & 0xffff_ff00 != MAGIC {
        return Err(ContextError::Magic(w[123]));
    }
    if w[..127].iter().fold(0, |a, b| a ^ b) != w[127] {
        return Err(ContextError::Checksum);
    }
    let mut layer = Layer::empty((w[123] & 0xff) as u8);
    for r in 0..ROWS {
        for c in 0..COLS {
            let word = w[r * COLS + c];
            let cfg = CellConfig::decode(word).ok_or(ContextError::Cell(r, c, word))?;
            layer.cells[r][c] = cfg;
        }
    }
    for r in 0..ROWS {
        for c in 0..COLS {
            let cfg = layer.cells[r][c];
            for s in &cfg.src[..cfg.op.arity()] {
                if let Src::Above(k) = *s {
                    if r == 0 {
                        return Err(ContextError::RowZeroCrossbar(c));
                    }
                    if !layer.cells[r - 1][k as usize].active() {
                        return Err(ContextError::DeadSource(r, c, k));
                    }
                }
            }
        }
    }
    for i in 0..GRF_REGS / 2 {
        layer.grf_init[2 * i] = w[64 + i] as u16;
        layer.grf_init[2 * i + 1] = (w[64 + i] >> 16) as u16;
    }
    for i in 0..32 {
        for h in 0..2 {
            let k = 2 * i + h;
            layer.lor[k / COLS][k % COLS] = (w[80 + i] >> (16 * h)) as u16;
        }
    }
    layer.grf_mask = w[120];
    layer.in_bytes = w[121] as u8;
    let out_len = ((w[121] >> 8) & 0xff) as usize;
    layer.key_period = (w[121] >> 16) as u8;
    layer.key_stride = (w[121] >> 24) as u8;
    layer.iterations = w[122];
    if out_len > MAX_OUT_BYTES {
        return Err(ContextError::Control("more than 32 output bytes"));
    }
    if layer.in_bytes as usize > FIFO_BYTES {
        return Err(ContextError::Control("more than 64 input bytes"));
    }
    if layer.key_period == 0 {
        return Err(ContextError::Control("GRF-iteration period 0"));
    }
    let out: Vec<u8> = w[112..120].iter().flat_map(|x| x.to_le_bytes()).collect();
    layer.out_map = out[..out_len].to_vec();
    for &cell in &layer.out_map {
        let (r, c) = (cell as usize / COLS, cell as usize % COLS);
        if r >= ROWS || !layer.cells[r][c].active() {
            return Err(ContextError::Control("output from an unconfigured cell"));
        }
    }
    Ok(layer)
}

/// The context memory: contexts by id, as the CDMAC wrote them.
#[derive(Debug, Clone, Default)]
pub struct ContextMemory {
    pub contexts: Vec<(u8, [u32; CONTEXT_WORDS])>,
}

impl ContextMemory {
    pub fn store(&mut self, words: [u32; CONTEXT_WORDS]) {
        let id = (words[123] & 0xff) as u8;
        self.contexts.retain(|(i, _)| *i != id);
        self.contexts.push((id, words));
    }

    pub fn get(&self, id: u8) -> Option<&[u32; CONTEXT_WORDS]> {
        self.contexts.iter().find(|(i, _)| *i == id).map(|(_, w)| w)
    }
}

#[cfg(test)]
mod tests {
    use super::super::cell::Op;
    use super::*;

    fn sample() -> Layer {
        let mut l = Layer::empty(7);
        l.cells[0][0] = CellConfig::new(Op::Xor, &[Src::Fifo(0), Src::Grf(3)]);
        l.cells[1][2] = CellConfig::new(Op::Mul, &[Src::Above(0), Src::Lor]);
        l.lor[1][2] = 0x36;
        l.grf_mask = 1 << 3;
        l.grf_init[3] = 0x1b;
        l.out_map = vec![10];
        l.in_bytes = 4;
        l.key_period = 4;
        l.key_stride = 4;
        l.iterations = 99;
        l
    }

    #[test]
    fn context_round_trips_through_the_parser() {
        let l = sample();
        let w = l.encode();
        assert_eq!(w.len(), 128);
        assert_eq!(decode(&w), Ok(l));
    }

    #[test]
    fn parser_rejects_bad_contexts() {
        let mut w = sample().encode();
        w[5] ^= 1;
        assert_eq!(decode(&w), Err(ContextError::Checksum));
        let mut l = sample();
        l.cells[0][1] = CellConfig::new(Op::Pass, &[Src::Above(0)]);
        assert_eq!(decode(&l.encode()), Err(ContextError::RowZeroCrossbar(1)));
        let mut l = sample();
        l.cells[1][3] = CellConfig::new(Op::Pass, &[Src::Above(5)]);
        assert_eq!(decode(&l.encode()), Err(ContextError::DeadSource(1, 3, 5)));
    }
}
