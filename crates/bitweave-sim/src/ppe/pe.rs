//! The processing element itself (paper, section 3, Fig. 1): the 512-byte two-read-port
//! coefficient memory, the accumulator, the ALU and rotator, the I/O ports, the 448-byte
//! dual-ported instruction memory, and the cycle counter.
//!
//! Timing. One VLIW instruction issues per cycle, no branches (section 3). An instruction is
//! fetched from the instruction memory `fetch_latency_cycles` before it executes; in its
//! execute cycle it reads ports A and B, passes B through the rotator, computes in the ALU,
//! latches the accumulator, and its memory write becomes visible to reads
//! `write_visible_after_cycles` later. The instruction memory is a ring of 64 slots with a
//! separate write port (section 3.4): a loader writes the next programs while the current one
//! runs; an instruction can be fetched the cycle after it is written, and a slot can be
//! rewritten the cycle after its old instruction was fetched.

use std::collections::VecDeque;

use super::alu::alu;
use super::asm::Program;
use super::isa::Instruction;
use super::rotator::rotate;

/// Cycle costs and sizes of the PPE. Defaults cite the paper.
#[derive(Debug, Clone, PartialEq)]
pub struct PpeConfig {
    /// Clock, MHz (section 5.1: "can be clocked at 250 MHz").
    pub clock_mhz: f64,
    /// Cycles from fetching an instruction to executing it. Interpretation of section 5.2:
    /// the 371-byte 64-bit program (53 instructions of 7 bytes) runs in 54 cycles, one more
    /// than its length: a synchronous instruction-memory read.
    pub fetch_latency_cycles: u64,
    /// Instructions issued per cycle (section 3: one VLIW word per clock, no branches).
    pub issue_per_cycle: u64,
    /// Cycles after an instruction's execute cycle at which its coefficient-memory write can
    /// be read. Interpretation: distributed RAM (written at the clock edge, read
    /// asynchronously), so the next instruction sees it.
    pub write_visible_after_cycles: u64,
    /// Instruction-memory slots (section 3.4: 448 bytes of 7-byte instructions, 6-bit
    /// fetch and write addresses).
    pub imem_slots: usize,
    /// Cycles the write port needs per instruction (section 3.4: one write address port, so
    /// one instruction per cycle).
    pub imem_write_cycles_per_instruction: u64,
    /// Whether a new program is written while the current one runs (section 3.4: "a new
    /// cipher program \[is\] streamed in while the current program progresses"; section 5.2:
    /// "the reconfiguration time is overlapped with the processing time"). When false, each
    /// program is written only after the previous one has finished and runs only once it is
    /// completely written.
    pub overlap_reload: bool,
    /// Coefficient-memory words (section 3.3: 512 bytes of 64-bit words).
    pub coef_words: usize,
    /// Which π64 ARX block program runs (section 5.2 gives its length, not its text).
    pub arx64: Arx64,
}

/// The π64 ARX block program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arx64 {
    /// Each μ and ν word its own chain of three rotated terms (`arx64.s` as written): 52
    /// instructions, within one of the paper's 53. The report's predicted rows run it.
    Plain,
    /// s0^s1, s2^s3 (t0^t1, t2^t3) shared between the μ (ν) words (`arx64.s` with
    /// `SHARED`): 44 instructions, shown beside as an improvement on the paper's program.
    Shared,
}

impl Default for PpeConfig {
    fn default() -> Self {
        PpeConfig {
            clock_mhz: 250.0,
            fetch_latency_cycles: 1,
            issue_per_cycle: 1,
            write_visible_after_cycles: 1,
            imem_slots: 448 / super::isa::INSTRUCTION_BYTES,
            imem_write_cycles_per_instruction: 1,
            overlap_reload: true,
            coef_words: 512 / 8,
            arx64: Arx64::Plain,
        }
    }
}

/// A run-time fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    #[error("instruction {0} reads xin but the input stream is empty")]
    InputEmpty(usize),
    #[error("coefficient data conflict at word {0}")]
    DataConflict(u8),
    #[error("a program of {0} instructions does not fit the {1}-slot instruction memory without overlapped reload")]
    TooLong(usize, usize),
    #[error("the configuration issues {0} instructions per cycle; the model executes one")]
    Issue(u64),
}

/// What a run of a program stream cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    /// Cycles from cycle 0 to the last execute cycle, inclusive.
    pub cycles: u64,
    /// Instructions executed.
    pub instructions: u64,
    /// Cycles in which no instruction executed after the first one did (waiting for the
    /// loader).
    pub stall_cycles: u64,
    /// Cycle in which each program's last instruction executed.
    pub program_end: Vec<u64>,
}

/// The processing element.
#[derive(Debug, Clone)]
pub struct Ppe {
    pub config: PpeConfig,
    mem: Vec<u64>,
    preloaded: Vec<Option<u64>>,
    acc: u64,
    /// (visible from cycle, address, half mask, value)
    pending: Vec<(u64, u8, u8, u64)>,
    cycle: u64,
    pub input: VecDeque<u64>,
    pub output: Vec<u64>,
}

impl Ppe {
    pub fn new(config: PpeConfig) -> Self {
        let n = config.coef_words;
        Ppe {
            config,
            mem: vec![0; n],
            preloaded: vec![None; n],
            acc: 0,
            pending: Vec::new(),
            cycle: 0,
            input: VecDeque::new(),
            output: Vec::new(),
        }
    }

    /// Writes a program's coefficient data (configuration time, before cycle 0). Two
    /// programs that want different values in one word are an error.
    pub fn preload(&mut self, p: &Program) -> Result<(), ExecError> {
        for &(a, v) in &p.data {
            match self.preloaded[a as usize] {
                Some(old) if old != v => return Err(ExecError::DataConflict(a)),
                _ => {}
            }
            self.preloaded[a as usize] = Some(v);
            self.mem[a as usize] = v;
        }
        Ok(())
    }

    /// A coefficient-memory word as reads see it now.
    pub fn word(&self, a: u8) -> u64 {
        self.mem[a as usize]
    }

    /// Sets a word directly (test set-up, outside the cycle count).
    pub fn set_word(&mut self, a: u8, v: u64) {
        self.mem[a as usize] = v;
    }

    fn retire_writes(&mut self, upto: u64) {
        let mem = &mut self.mem;
        self.pending.retain(|&(t, a, we, v)| {
            if t <= upto {
                let mut mask = 0u64;
                if we & 1 != 0 {
                    mask |= 0xFFFF_FFFF;
                }
                if we & 2 != 0 {
                    mask |= 0xFFFF_FFFF << 32;
                }
                let w = &mut mem[a as usize];
                *w = (*w & !mask) | (v & mask);
                false
            } else {
                true
            }
        });
    }

    /// Executes one instruction in cycle `t`.
    fn execute(&mut self, ins: &Instruction, t: u64, index: usize) -> Result<(), ExecError> {
        self.retire_writes(t);
        let xin = if ins.input {
            Some(self.input.pop_front().ok_or(ExecError::InputEmpty(index))?)
        } else {
            None
        };
        let a = if ins.a_xin {
            xin.ok_or(ExecError::InputEmpty(index))?
        } else {
            self.mem[ins.addr_a as usize]
        };
        let b_raw = if ins.b_acc {
            self.acc
        } else {
            self.mem[ins.addr_b as usize]
        };
        let b = rotate(&ins.rot, b_raw);
        let r = alu(ins.op, ins.alu_mode, a, b);
        self.acc = r;
        if ins.output {
            self.output.push(r);
        }
        if ins.we != 0 {
            let v = xin.unwrap_or(r);
            self.pending.push((
                t + self.config.write_visible_after_cycles,
                ins.addr_w,
                ins.we,
                v,
            ));
        }
        Ok(())
    }

    /// Runs one program already resident in the instruction memory, from cycle 0.
    pub fn run_preloaded(&mut self, p: &Program) -> Result<RunStats, ExecError> {
        self.run(&[p], true)
    }

    /// Runs programs one after the other as the loader streams them into the instruction
    /// memory from cycle 0 (`preloaded`: the first program is already resident; used for a
    /// single program).
    pub fn run(&mut self, programs: &[&Program], preloaded: bool) -> Result<RunStats, ExecError> {
        if self.config.issue_per_cycle != 1 {
            return Err(ExecError::Issue(self.config.issue_per_cycle));
        }
        let c = self.config.clone();
        let slots = c.imem_slots;
        // Write and fetch cycles of every instruction of the stream.
        let mut w: Vec<i64> = Vec::new();
        let mut f: Vec<i64> = Vec::new();
        let mut stats = RunStats::default();
        let mut g = 0usize;
        let mut last_exec: i64 = -1;
        for (pi, p) in programs.iter().enumerate() {
            let first = g;
            let resident = preloaded && pi == 0;
            if !c.overlap_reload && p.code.len() > slots {
                return Err(ExecError::TooLong(p.code.len(), slots));
            }
            for i in 0..p.code.len() {
                let wg = if resident {
                    -1
                } else {
                    let mut t = w
                        .last()
                        .map_or(0, |x| x + c.imem_write_cycles_per_instruction as i64);
                    if g >= slots {
                        t = t.max(f[g - slots] + 1);
                    }
                    if !c.overlap_reload && i == 0 && g > 0 {
                        t = t.max(last_exec + 1);
                    }
                    t
                };
                w.push(wg);
                if c.overlap_reload || resident {
                    f.push(f.last().map_or(0, |x| x + 1).max(wg + 1));
                }
                g += 1;
            }
            if !(c.overlap_reload || resident) {
                // Fetch only once the whole program is written.
                let done = w[g - 1];
                for _ in first..g {
                    f.push(f.last().map_or(0, |x| x + 1).max(done + 1));
                }
            }
            for (i, ins) in p.code.iter().enumerate() {
                let e = f[first + i] + c.fetch_latency_cycles as i64;
                if last_exec >= 0 && e > last_exec + 1 {
                    stats.stall_cycles += (e - last_exec - 1) as u64;
                }
                self.cycle = e as u64;
                self.execute(ins, self.cycle, first + i)?;
                last_exec = e;
                stats.instructions += 1;
            }
            stats.program_end.push(last_exec.max(0) as u64);
        }
        stats.cycles = (last_exec + 1).max(0) as u64;
        // Let the last writes land.
        self.retire_writes(u64::MAX);
        Ok(stats)
    }
}
