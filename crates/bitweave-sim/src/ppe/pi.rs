//! π-Cipher's permutation on the PPE: the memory map, the programs (assembly files in
//! `programs/`, included with `include_str!`), and the driver that streams one round as the
//! paper describes (section 5.2: eight ARX operation blocks per round, the instruction memory
//! reprogrammed for each block while the previous one runs).
//!
//! A round r runs the programs `rc` (streams C = RC[8r..8r+4] and C' = RC[8r+4..8r+8] from
//! xin), then E1: `J0 = C*I0, J1 = J0*I1, J2 = J1*I2, J3 = J2*I3`, then E2: `I3' = J3*C',
//! I2' = J2*I3', I1' = J1*I2', I0' = J0*I1'`, each an `arxW.s` block assembled with its own
//! operand addresses (so each block is a different program, as in the paper). The state
//! enters on xin in round 0 (the E1 blocks store their new chunk as it arrives), stays in the
//! coefficient memory between rounds (I'_k overwrites J_k), and leaves on xout in the last
//! round's E2 blocks.
//!
//! Constants. cμ, cν and the round constants are generated here from PI-CIPHER.md §3.3's
//! source, the byte stream of the 70 bytes of Hamming weight 4 in decreasing order, repeated
//! (the test checks them against the library's tables). That also gives round constants for
//! more than 3 rounds (RC[24..32] for the paper's 4-round v1 π is the stream's continuation,
//! an interpretation: the v1 tables are not in the repository).

use std::collections::HashMap;

use super::asm::{assemble, AsmError, Env, Program};
use super::pe::{Arx64, ExecError, Ppe, PpeConfig, RunStats};
use super::WordSize;

pub const ARX16: &str = include_str!("programs/arx16.s");
pub const ARX32: &str = include_str!("programs/arx32.s");
pub const ARX64: &str = include_str!("programs/arx64.s");
pub const RC16: &str = include_str!("programs/rc16.s");
pub const RC32: &str = include_str!("programs/rc32.s");
pub const RC64: &str = include_str!("programs/rc64.s");

/// The program texts of a word size: (ARX block, round-constant loader).
pub fn sources(ws: WordSize) -> (&'static str, &'static str) {
    match ws {
        WordSize::W16 => (ARX16, RC16),
        WordSize::W32 => (ARX32, RC32),
        WordSize::W64 => (ARX64, RC64),
    }
}

/// The constant words of π for `rounds` rounds: (cμ, cν, RC), each word in the low w bits.
pub fn constants(ws: WordSize, rounds: usize) -> ([u64; 4], [u64; 4], Vec<u64>) {
    let bytes: Vec<u8> = (0u8..=255).rev().filter(|b| b.count_ones() == 4).collect();
    let mut it = bytes.iter().cycle();
    let nb = ws.bits() as usize / 8;
    let mut word = || (0..nb).fold(0u64, |a, _| (a << 8) | *it.next().unwrap() as u64);
    let mu = core::array::from_fn(|_| word());
    let nu = core::array::from_fn(|_| word());
    let rc = (0..8 * rounds).map(|_| word()).collect();
    (mu, nu, rc)
}

/// The coefficient-memory map shared by all programs of a word size (64-bit word addresses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryMap {
    pub zero: u8,
    pub cmu: u8,
    pub cnu: u8,
    /// C of the current round.
    pub rc: u8,
    /// C' of the current round.
    pub rc2: u8,
    /// J_k, then I'_k, k = 0..3.
    pub j: [u8; 4],
    /// First scratch word of the block programs.
    pub scratch: u8,
}

impl MemoryMap {
    pub fn new(ws: WordSize) -> Self {
        let cw = ws.chunk_words() as u8;
        MemoryMap {
            zero: 0,
            cmu: 1,
            cnu: 1 + cw,
            rc: 1 + 2 * cw,
            rc2: 1 + 3 * cw,
            j: core::array::from_fn(|k| 1 + (4 + k as u8) * cw),
            scratch: 1 + 8 * cw,
        }
    }

    fn env(&self, ws: WordSize) -> Env {
        let (mu, nu, _) = constants(ws, 0);
        let mut constants = HashMap::new();
        for i in 0..4 {
            constants.insert(format!("mu{i}"), mu[i]);
            constants.insert(format!("nu{i}"), nu[i]);
        }
        Env {
            symbols: HashMap::new(),
            constants,
        }
        .with("ZERO", self.zero as i64)
        .with("CMU", self.cmu as i64)
        .with("CNU", self.cnu as i64)
        .with("RC", self.rc as i64)
        .with("RC2", self.rc2 as i64)
        .with("T", self.scratch as i64)
    }
}

/// Where a block's operands live and what it does with the ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockBinding {
    pub x: u8,
    pub y: u8,
    pub out: u8,
    /// Y arrives on xin (and is stored at `y`).
    pub y_in: bool,
    /// The result also goes to xout.
    pub emit: bool,
}

/// Assembles the ARX block program of a word size for one binding.
pub fn block_program(ws: WordSize, b: BlockBinding, arx64: Arx64) -> Result<Program, AsmError> {
    let map = MemoryMap::new(ws);
    let env = map
        .env(ws)
        .with("X", b.x as i64)
        .with("Y", b.y as i64)
        .with("OUT", b.out as i64)
        .with("YIN", b.y_in as i64)
        .with("EMIT", b.emit as i64)
        .with("SHARED", (arx64 == Arx64::Shared) as i64);
    let name = format!(
        "arx{}{}.s[X={},Y={},OUT={}{}{}]",
        ws.bits(),
        if ws == WordSize::W64 && arx64 == Arx64::Shared {
            ",shared"
        } else {
            ""
        },
        b.x,
        b.y,
        b.out,
        if b.y_in { ",in" } else { "" },
        if b.emit { ",out" } else { "" }
    );
    assemble(&name, sources(ws).0, &env)
}

/// Assembles the round-constant loader of a word size.
pub fn rc_program(ws: WordSize) -> Result<Program, AsmError> {
    let map = MemoryMap::new(ws);
    assemble(&format!("rc{}.s", ws.bits()), sources(ws).1, &map.env(ws))
}

/// The program stream of π with `rounds` rounds: per round the loader and 8 blocks.
pub fn pi_programs(ws: WordSize, rounds: usize, arx64: Arx64) -> Result<Vec<Program>, AsmError> {
    let m = MemoryMap::new(ws);
    let mut progs = Vec::new();
    for r in 0..rounds {
        progs.push(rc_program(ws)?);
        for k in 0..4 {
            progs.push(block_program(
                ws,
                BlockBinding {
                    x: if k == 0 { m.rc } else { m.j[k - 1] },
                    y: m.j[k],
                    out: m.j[k],
                    y_in: r == 0,
                    emit: false,
                },
                arx64,
            )?);
        }
        for k in (0..4).rev() {
            progs.push(block_program(
                ws,
                BlockBinding {
                    x: m.j[k],
                    y: if k == 3 { m.rc2 } else { m.j[k + 1] },
                    out: m.j[k],
                    y_in: false,
                    emit: r + 1 == rounds,
                },
                arx64,
            )?);
        }
    }
    Ok(progs)
}

/// Packs 4 w-bit words (a chunk) into the chunk's 64-bit memory words.
pub fn pack_chunk(ws: WordSize, words: &[u64]) -> Vec<u64> {
    let bits = ws.bits() as usize;
    let lanes = 64 / bits;
    let mask = ws.mask();
    (0..ws.chunk_words())
        .map(|m| (0..lanes).fold(0u64, |a, l| a | (words[m * lanes + l] & mask) << (bits * l)))
        .collect()
}

/// Unpacks a chunk's memory words into its 4 w-bit words.
pub fn unpack_chunk(ws: WordSize, mem: &[u64]) -> [u64; 4] {
    let bits = ws.bits() as usize;
    let lanes = 64 / bits;
    core::array::from_fn(|i| (mem[i / lanes] >> (bits * (i % lanes))) & ws.mask())
}

/// What running π on the PPE produced.
#[derive(Debug, Clone)]
pub struct PiRun {
    /// The output state (16 w-bit words).
    pub state: [u64; 16],
    pub stats: RunStats,
    /// Instructions per program of the stream.
    pub program_lengths: Vec<usize>,
}

/// Runs π (`rounds` rounds) on `state` (16 w-bit words) with the PPE configuration `cfg`.
pub fn run_pi(
    ws: WordSize,
    rounds: usize,
    state: &[u64; 16],
    cfg: &PpeConfig,
) -> Result<PiRun, PiError> {
    let progs = pi_programs(ws, rounds, cfg.arx64)?;
    let (_, _, rc) = constants(ws, rounds);
    let mut pe = Ppe::new(cfg.clone());
    for p in &progs {
        pe.preload(p)?;
    }
    for r in 0..rounds {
        pe.input.extend(pack_chunk(ws, &rc[8 * r..8 * r + 4]));
        pe.input.extend(pack_chunk(ws, &rc[8 * r + 4..8 * r + 8]));
        if r == 0 {
            for k in 0..4 {
                pe.input.extend(pack_chunk(ws, &state[4 * k..4 * k + 4]));
            }
        }
    }
    let refs: Vec<&Program> = progs.iter().collect();
    let stats = pe.run(&refs, false)?;
    let cw = ws.chunk_words();
    if pe.output.len() != 4 * cw || !pe.input.is_empty() {
        return Err(PiError::Stream(pe.output.len(), pe.input.len()));
    }
    // The last round's E2 emits I3', I2', I1', I0'.
    let mut out = [0u64; 16];
    for (n, k) in (0..4).rev().enumerate() {
        let w = unpack_chunk(ws, &pe.output[n * cw..(n + 1) * cw]);
        out[4 * k..4 * k + 4].copy_from_slice(&w);
    }
    Ok(PiRun {
        state: out,
        stats,
        program_lengths: progs.iter().map(|p| p.code.len()).collect(),
    })
}

/// Runs one ARX block `X * Y` (chunks of 4 w-bit words) from reset with the program
/// resident; returns the result, read from xout, and the run's statistics.
pub fn run_block(
    ws: WordSize,
    x: &[u64; 4],
    y: &[u64; 4],
    y_in: bool,
    cfg: &PpeConfig,
) -> Result<([u64; 4], RunStats, Program), PiError> {
    let m = MemoryMap::new(ws);
    let b = BlockBinding {
        x: m.j[0],
        y: m.j[1],
        out: m.j[2],
        y_in,
        emit: true,
    };
    let p = block_program(ws, b, cfg.arx64)?;
    let mut pe = Ppe::new(cfg.clone());
    pe.preload(&p)?;
    for (i, w) in pack_chunk(ws, x).into_iter().enumerate() {
        pe.set_word(b.x + i as u8, w);
    }
    let yw = pack_chunk(ws, y);
    if y_in {
        pe.input.extend(yw);
    } else {
        for (i, w) in yw.into_iter().enumerate() {
            pe.set_word(b.y + i as u8, w);
        }
    }
    let stats = pe.run_preloaded(&p)?;
    let r = unpack_chunk(ws, &pe.output);
    let stored: Vec<u64> = (0..ws.chunk_words())
        .map(|i| pe.word(b.out + i as u8))
        .collect();
    if unpack_chunk(ws, &stored) != r {
        return Err(PiError::Stream(pe.output.len(), 0));
    }
    Ok((r, stats, p))
}

/// Errors of the π driver.
#[derive(Debug, thiserror::Error)]
pub enum PiError {
    #[error(transparent)]
    Asm(#[from] AsmError),
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("unexpected port traffic: {0} output words, {1} input words left")]
    Stream(usize, usize),
}
