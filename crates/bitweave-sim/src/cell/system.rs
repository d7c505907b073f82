//! The whole machine on one workload: the split by the paper's workload ratio, the PPE's two
//! threads and the six SPEs working at once, the SPEs' DMA through the shared memory
//! channel, and the ratio sweep.
//!
//! The ratio is the paper's (§3): "the amount on a PPE thread over the amount on a SPE
//! thread". With T PPE threads and S SPEs, each PPE thread gets r/(S + T·r) of the blocks.
//!
//! Timing comes from running the programs. [`Executed`] runs every block through the unit
//! it is assigned to; [`Costed`] uses per-unit costs measured by running the same programs
//! (the SPU and PPU timings do not depend on the data: fixed-latency local store, L1-hit
//! loads, no data-dependent branches), so a sweep of a hundred ratios costs no more than a
//! few runs. A test checks the two agree.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::config::CellConfig;
use super::dma::{check_size, MemoryChannel};
use super::ppu::{MainMemory, Ppu};
use super::ppu_seed::{thread, PpeCode, PpeData, PpuProgram};
use super::seed::{self, Direction};
use super::spe::{Spe, GROUP_BYTES};
use super::CellError;

/// The paper's two ways of using the PPE (§3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// SIMD on both: VMX on the PPE, SPU SIMD on the SPEs.
    AllSimd,
    /// Scalar on the PPE, SIMD on the SPEs.
    Hybrid,
}

impl Method {
    pub fn ppe_code(self) -> PpeCode {
        match self {
            Method::AllSimd => PpeCode::Vmx,
            Method::Hybrid => PpeCode::Scalar,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Method::AllSimd => "ALL SIMD",
            Method::Hybrid => "Hybrid",
        }
    }
}

/// Who encrypts which blocks: PPE threads first, then the SPEs, contiguously.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// Blocks of each PPE thread (equal).
    pub ppe_blocks: Vec<usize>,
    /// Groups of four blocks of each SPE.
    pub spe_groups: Vec<usize>,
}

impl Split {
    /// The split for `ratio` over `blocks` (a multiple of 4). A PPE thread's share is
    /// rounded to its program's granularity (1 block scalar, 4 VMX) and so that the SPEs
    /// keep whole groups.
    pub fn new(cfg: &CellConfig, method: Method, ratio: f64, blocks: usize) -> Split {
        assert!(blocks.is_multiple_of(4));
        let t = cfg.ppe_threads;
        let gran = method.ppe_code().blocks();
        let ideal = ratio * blocks as f64 / (cfg.spes as f64 + t as f64 * ratio);
        let mut p = ((ideal / gran as f64).round() as usize * gran).min(blocks / t.max(1));
        while p > 0 && !(t * p).is_multiple_of(4) {
            p -= gran;
        }
        let groups = (blocks - t * p) / 4;
        let s = cfg.spes;
        Split {
            ppe_blocks: vec![p; t],
            spe_groups: (0..s)
                .map(|i| groups / s + (i < groups % s) as usize)
                .collect(),
        }
    }

    /// The effective ratio after rounding (PPE-thread blocks over mean SPE blocks).
    pub fn ratio(&self) -> f64 {
        let spe = 4.0 * self.spe_groups.iter().sum::<usize>() as f64 / self.spe_groups.len() as f64;
        if spe == 0.0 {
            f64::INFINITY
        } else {
            self.ppe_blocks[0] as f64 / spe
        }
    }
}

/// Where the compute time comes from.
pub trait Work {
    /// SPU cycles to encrypt `groups` groups starting at group `first` of SPE `spe`'s
    /// data (the chunk is already in its local store).
    fn spe_compute(&mut self, spe: usize, first: usize, groups: usize) -> u64;
    /// Cycles for the PPE threads to encrypt their shares (block offset, blocks), together.
    fn ppe_run(&mut self, shares: &[(usize, usize)]) -> u64;
}

/// The result of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Cycles until the last unit finishes.
    pub total: u64,
    pub ppe: u64,
    /// Each SPE's finishing cycle (its last put landed).
    pub spe: Vec<u64>,
    /// Each SPE's compute cycles.
    pub spe_compute: Vec<u64>,
    pub dma_bytes: u64,
    pub dma_commands: u64,
}

impl Timing {
    pub fn gbps(&self, cfg: &CellConfig, bytes: usize) -> f64 {
        bytes as f64 * 8.0 / (self.total as f64 / cfg.clock_hz) / 1e9
    }
}

/// Runs a split: the PPE threads from cycle 0, each SPE getting, encrypting and putting
/// back its chunks (at most one DMA command each way, one buffer: §3's "after waiting data
/// transfer, SPE processes 16 round operations"), all DMA through one memory channel served
/// in request order.
pub fn simulate(cfg: &CellConfig, split: &Split, work: &mut dyn Work) -> Result<Timing, CellError> {
    let t = split.ppe_blocks.len();
    let shares: Vec<(usize, usize)> = (0..t)
        .map(|i| (i * split.ppe_blocks[i], split.ppe_blocks[i]))
        .filter(|s| s.1 > 0)
        .collect();
    let ppe = if shares.is_empty() {
        0
    } else {
        work.ppe_run(&shares)
    };
    let chunk_groups = cfg.dma.max_transfer / GROUP_BYTES;
    let mut chan = MemoryChannel::new(&cfg.dma);
    let n = split.spe_groups.len();
    // (next chunk's first group within the SPE, pending put?) per SPE.
    let mut next = vec![0usize; n];
    let mut pending_put = vec![0usize; n];
    let mut finish = vec![0u64; n];
    let mut compute = vec![0u64; n];
    let mut heap = BinaryHeap::new();
    for (i, &g) in split.spe_groups.iter().enumerate() {
        if g > 0 {
            heap.push(Reverse((0u64, i)));
        }
    }
    while let Some(Reverse((at, i))) = heap.pop() {
        if pending_put[i] > 0 {
            let bytes = pending_put[i] * GROUP_BYTES;
            check_size(bytes, cfg.dma.max_transfer)?;
            let done = chan.transfer(at, bytes);
            pending_put[i] = 0;
            if next[i] < split.spe_groups[i] {
                heap.push(Reverse((done, i)));
            } else {
                finish[i] = done;
            }
        } else {
            let g = chunk_groups.min(split.spe_groups[i] - next[i]);
            check_size(g * GROUP_BYTES, cfg.dma.max_transfer)?;
            let arrived = chan.transfer(at, g * GROUP_BYTES);
            let c = work.spe_compute(i, next[i], g);
            compute[i] += c;
            next[i] += g;
            pending_put[i] = g;
            heap.push(Reverse((arrived + c, i)));
        }
    }
    Ok(Timing {
        total: finish.iter().copied().fold(ppe, u64::max),
        ppe,
        spe: finish,
        spe_compute: compute,
        dma_bytes: chan.bytes,
        dma_commands: chan.commands,
    })
}

/// Every block really encrypted: the data in main memory, the SPEs' local stores, the
/// PPE threads' registers.
pub struct Executed {
    cfg: CellConfig,
    pub mem: MainMemory,
    base: u32,
    spe_base: Vec<usize>,
    spes: Vec<Spe>,
    ppe_program: PpuProgram,
    ppe_data: PpeData,
    scratch: Vec<u32>,
}

impl Executed {
    /// Main memory holding `data` and the PPE's tables and keys; SPEs loaded with theirs.
    pub fn new(
        cfg: &CellConfig,
        method: Method,
        split: &Split,
        key: &[u8; 16],
        direction: Direction,
        data: &[u8],
    ) -> Result<Executed, CellError> {
        let ss = seed::ss_tables();
        let keys = seed::round_keys(key, direction);
        let mut mem = MainMemory::default();
        let ppe_data = PpeData::write(&mut mem, &ss, &keys);
        let scratch = (0..cfg.ppe_threads).map(|_| mem.alloc(32)).collect();
        let base = mem.alloc(data.len());
        mem.bytes[base as usize..base as usize + data.len()].copy_from_slice(data);
        let ppe_bytes: usize = split.ppe_blocks.iter().sum::<usize>() * 16;
        let mut spe_base = Vec::new();
        let mut at = ppe_bytes;
        for &g in &split.spe_groups {
            spe_base.push(at);
            at += g * GROUP_BYTES;
        }
        assert_eq!(at, data.len(), "the split covers the data");
        let spes = (0..cfg.spes)
            .map(|_| Spe::new(cfg, &ss, &keys))
            .collect::<Result<_, _>>()?;
        Ok(Executed {
            cfg: cfg.clone(),
            mem,
            base,
            spe_base,
            spes,
            ppe_program: PpuProgram::build(cfg, method.ppe_code())?,
            ppe_data,
            scratch,
        })
    }

    /// The data as the run left it.
    pub fn output(&self, len: usize) -> &[u8] {
        &self.mem.bytes[self.base as usize..self.base as usize + len]
    }

    /// The SPEs (for their statistics).
    pub fn spes(&self) -> &[Spe] {
        &self.spes
    }
}

impl Work for Executed {
    fn spe_compute(&mut self, spe: usize, first: usize, groups: usize) -> u64 {
        let a = self.base as usize + self.spe_base[spe] + first * GROUP_BYTES;
        let mut chunk = self.mem.bytes[a..a + groups * GROUP_BYTES].to_vec();
        let c = self.spes[spe].compute(&mut chunk);
        self.mem.bytes[a..a + chunk.len()].copy_from_slice(&chunk);
        c
    }

    fn ppe_run(&mut self, shares: &[(usize, usize)]) -> u64 {
        let threads = shares
            .iter()
            .enumerate()
            .map(|(i, &(off, n))| {
                let a = self.base + 16 * off as u32;
                thread(
                    &self.ppe_program,
                    &self.ppe_data,
                    &self.mem,
                    a,
                    n,
                    self.scratch[i],
                )
            })
            .collect();
        let mut ppu = Ppu::new(threads, self.cfg.ppu.clone());
        ppu.run(&mut self.mem)
    }
}

/// Per-unit costs measured by running the programs, linear in the work (first + per unit).
#[derive(Debug, Clone, PartialEq)]
pub struct Costs {
    /// SPE: cycles for a chunk of g groups = spe.0 + g · spe.1.
    pub spe: (f64, f64),
    /// PPE with every thread busy on equal shares: cycles = ppe.0 + p · ppe.1 (p blocks per thread).
    pub ppe: (f64, f64),
    /// PPE with one thread only: the same form.
    pub ppe_alone_one_thread: (f64, f64),
}

fn line(x1: f64, y1: f64, x2: f64, y2: f64) -> (f64, f64) {
    let b = (y2 - y1) / (x2 - x1);
    (y1 - b * x1, b)
}

impl Costs {
    /// Runs the SPE program on 2 and 10 groups and the PPE program on two shares, with
    /// random data, and fits the lines. The runs are checked against the library.
    pub fn measure(cfg: &CellConfig, method: Method) -> Result<(Costs, bool), CellError> {
        let key: [u8; 16] = seed::bytes(0xce11, 16).try_into().unwrap();
        let ss = seed::ss_tables();
        let keys = seed::round_keys(&key, Direction::Encrypt);
        let mut ok = true;
        let mut spe_run = |g: usize| -> Result<f64, CellError> {
            let mut spe = Spe::new(cfg, &ss, &keys)?;
            let data = seed::bytes(g as u64, g * GROUP_BYTES);
            let mut d = data.clone();
            let c = spe.compute(&mut d);
            ok &= d == seed::library(Direction::Encrypt, &key, &data);
            Ok(c as f64)
        };
        let spe = line(2.0, spe_run(2)?, 10.0, spe_run(10)?);
        let gran = method.ppe_code().blocks();
        let mut ppe_run = |threads: usize, p: usize| -> Result<f64, CellError> {
            let one = CellConfig {
                ppe_threads: threads,
                spes: 1,
                ..cfg.clone()
            };
            let split = Split {
                ppe_blocks: vec![p; threads],
                spe_groups: vec![0],
            };
            let data = seed::bytes(p as u64 + 99, threads * p * 16);
            let mut ex = Executed::new(&one, method, &split, &key, Direction::Encrypt, &data)?;
            let shares: Vec<(usize, usize)> = (0..threads).map(|i| (i * p, p)).collect();
            let c = ex.ppe_run(&shares);
            ok &= ex.output(data.len()) == seed::library(Direction::Encrypt, &key, &data);
            Ok(c as f64)
        };
        let (p1, p2) = (4 * gran, 12 * gran);
        let t = cfg.ppe_threads;
        let ppe = line(p1 as f64, ppe_run(t, p1)?, p2 as f64, ppe_run(t, p2)?);
        let one = line(p1 as f64, ppe_run(1, p1)?, p2 as f64, ppe_run(1, p2)?);
        Ok((
            Costs {
                spe,
                ppe,
                ppe_alone_one_thread: one,
            },
            ok,
        ))
    }
}

/// Costs instead of execution.
pub struct Costed<'a>(pub &'a Costs);

impl Work for Costed<'_> {
    fn spe_compute(&mut self, _spe: usize, _first: usize, groups: usize) -> u64 {
        (self.0.spe.0 + groups as f64 * self.0.spe.1).round() as u64
    }
    fn ppe_run(&mut self, shares: &[(usize, usize)]) -> u64 {
        let p = shares[0].1;
        assert!(shares.iter().all(|s| s.1 == p), "equal PPE shares");
        let (a, b) = if shares.len() == 1 {
            self.0.ppe_alone_one_thread
        } else {
            self.0.ppe
        };
        (a + p as f64 * b).round() as u64
    }
}

/// One point of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The ratio asked for.
    pub ratio: f64,
    pub split: Split,
    pub timing: Timing,
    pub gbps: f64,
}

/// Throughput at every ratio, from measured costs.
pub fn sweep(
    cfg: &CellConfig,
    method: Method,
    costs: &Costs,
    ratios: &[f64],
) -> Result<Vec<Point>, CellError> {
    let bytes = cfg.workload_bytes / 64 * 64;
    ratios
        .iter()
        .map(|&r| {
            let split = Split::new(cfg, method, r, bytes / 16);
            let timing = simulate(cfg, &split, &mut Costed(costs))?;
            let gbps = timing.gbps(cfg, bytes);
            Ok(Point {
                ratio: r,
                split,
                timing,
                gbps,
            })
        })
        .collect()
}

/// The highest-throughput point (the first, on a tie).
pub fn best(points: &[Point]) -> &Point {
    points
        .iter()
        .fold(&points[0], |b, p| if p.gbps > b.gbps { p } else { b })
}
