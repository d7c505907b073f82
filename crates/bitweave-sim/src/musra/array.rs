//! The reconfigurable computing array (RCA) of section 2: 8 × 8 RCs, a crossbar between
//! each pair of neighbouring rows (a cell reads any cell of the row above), the input and
//! output FIFOs, the global register file (GRF), and the pipelined MIMD execution model of
//! section 2.3.
//!
//! Execution (section 2.3): each row is a pipeline stage. In cycle t the input FIFO loads
//! iteration t (LOAD), row k computes iteration t − 1 − k (EXECUTION), and an iteration
//! whose last output row has computed is pushed into the output FIFO and written to the
//! data memory in the next cycle (STORE); the three phases of successive iterations overlap,
//! so a pass of N iterations whose outputs come from row L takes N + L + 2 cycles and then
//! delivers one iteration per cycle after a latency of L + 2 cycles.

use super::cell::{Cell, Src, GRF_REGS};
use super::context::{Layer, COLS, ROWS};
use super::fifo::{InputFifo, OutputFifo, FIFO_DEPTH};

/// What one pass (a context run over N iterations) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PassStats {
    pub iterations: u64,
    /// Cycles from the first LOAD to the last STORE, inclusive.
    pub cycles: u64,
    /// Cell operations executed.
    pub ops: u64,
    /// Most operations in one cycle.
    pub max_ops_per_cycle: u64,
    /// Cycle of the first STORE (the latency; Fig. 14 shows seven cycles for Mix_Add).
    pub first_store_cycle: u64,
    /// Most uses of any one cell in one cycle (must be 1).
    pub max_cell_uses_per_cycle: u32,
    /// Pipeline stages (rows with an active cell).
    pub stages: u64,
}

/// The array with its FIFOs and GRF.
#[derive(Debug, Clone)]
pub struct Rca {
    pub cells: [[Cell; COLS]; ROWS],
    /// The non-cell part of each layer's context (LOR, output map, control parameters).
    pub layers: [Option<Layer>; 2],
    /// The layer driving the data path.
    pub active: usize,
    pub grf: [u16; GRF_REGS],
    pub in_fifo: InputFifo,
    pub out_fifo: OutputFifo,
    /// Totals over all passes.
    pub total_ops: u64,
    pub total_cycles: u64,
}

impl Default for Rca {
    fn default() -> Self {
        Rca {
            cells: [[Cell::default(); COLS]; ROWS],
            layers: [None, None],
            active: 0,
            grf: [0; GRF_REGS],
            in_fifo: InputFifo::default(),
            out_fifo: OutputFifo::default(),
            total_ops: 0,
            total_cycles: 0,
        }
    }
}

struct Slot {
    row: usize,
    col: usize,
    cfg: super::cell::CellConfig,
}

impl Rca {
    /// The parser writes a decoded context into layer `k` (the inactive one while the other
    /// executes).
    pub fn configure(&mut self, k: usize, layer: &Layer) {
        for r in 0..ROWS {
            for c in 0..COLS {
                self.cells[r][c].layers[k] = layer.cells[r][c];
            }
        }
        self.layers[k] = Some(layer.clone());
    }

    /// Makes layer `k` drive the data path and loads its global constants into the GRF.
    pub fn activate(&mut self, k: usize) {
        let l = self.layers[k].as_ref().expect("layer configured");
        for i in 0..GRF_REGS {
            if l.grf_mask >> i & 1 == 1 {
                self.grf[i] = l.grf_init[i];
            }
        }
        self.active = k;
    }

    /// Which layer holds context `id`, if any.
    pub fn layer_of(&self, id: u8) -> Option<usize> {
        (0..2).find(|&k| self.layers[k].as_ref().is_some_and(|l| l.id == id))
    }

    /// Writes GRF registers at run time (local constants loaded by configuration words,
    /// section 2.1), e.g. a round key.
    pub fn write_grf(&mut self, first: usize, values: &[u16]) {
        self.grf[first..first + values.len()].copy_from_slice(values);
    }

    /// Runs the active layer over `iterations` iterations: iteration i reads
    /// `input[i*in .. (i+1)*in]` and writes `output[i*out .. (i+1)*out]`.
    pub fn run(&mut self, input: &[u8], output: &mut [u8], iterations: u64) -> PassStats {
        let layer = self.layers[self.active].clone().expect("active layer");
        let inb = layer.in_bytes as usize;
        let outb = layer.out_map.len();
        let n = iterations as usize;
        assert!(input.len() >= n * inb && output.len() >= n * outb);
        // Bottom row first, so that a row reads the row above's result of the previous cycle.
        let mut slots: Vec<Slot> = Vec::new();
        for row in (0..ROWS).rev() {
            for col in 0..COLS {
                let cfg = self.cells[row][col].layers[self.active];
                if cfg.active() {
                    slots.push(Slot { row, col, cfg });
                }
            }
        }
        let last = layer.last_out_row() as u64;
        let stages = layer.rows_used() as u64;
        // Output staging per iteration, indexed by iteration mod 16.
        const STAGE: usize = 2 * FIFO_DEPTH;
        let mut staging = vec![vec![0u8; outb]; STAGE];
        let out_cells: Vec<(usize, usize, usize)> = layer
            .out_map
            .iter()
            .enumerate()
            .map(|(m, &c)| (m, c as usize / COLS, c as usize % COLS))
            .collect();
        let mut stats = PassStats {
            iterations,
            stages,
            ..PassStats::default()
        };
        let mut first_store = None;
        let mut stored = 0u64;
        let mut cycle = 0u64;
        let mut uses = [[0u32; COLS]; ROWS];
        while stored < iterations {
            // STORE: one completed iteration from the output FIFO to the data memory.
            if let Some((i, bytes)) = self.out_fifo.pop() {
                let i = i as usize;
                output[i * outb..(i + 1) * outb].copy_from_slice(&bytes);
                stored += 1;
                first_store.get_or_insert(cycle);
            }
            // LOAD: iteration `cycle` into the input FIFO.
            if cycle < iterations {
                let i = cycle as usize;
                self.in_fifo.load(cycle, &input[i * inb..(i + 1) * inb]);
            }
            // EXECUTION: row k works on iteration cycle - 1 - k.
            let mut ops = 0u64;
            for s in &slots {
                let Some(iter) = cycle.checked_sub(1 + s.row as u64) else {
                    continue;
                };
                if iter >= iterations {
                    continue;
                }
                let read = |src: Src| -> u16 {
                    match src {
                        Src::None => 0,
                        Src::Above(k) => self.cells[s.row - 1][k as usize].out,
                        Src::Fifo(b) => {
                            let e = self.in_fifo.entry(iter);
                            let lo = u16::from(e[b as usize]);
                            match s.cfg.width {
                                super::cell::OpWidth::W8 => lo,
                                super::cell::OpWidth::W16 => {
                                    lo | u16::from(e[(b as usize + 1) % e.len()]) << 8
                                }
                            }
                        }
                        Src::Grf(r) => self.grf[r as usize],
                        Src::GrfIter(base) => {
                            let idx = base as u64
                                + layer.key_stride as u64 * (iter % layer.key_period as u64);
                            self.grf[idx as usize % GRF_REGS]
                        }
                        Src::Lor => layer.lor[s.row][s.col],
                    }
                };
                let v = s.cfg.op.eval(
                    s.cfg.width,
                    read(s.cfg.src[0]),
                    read(s.cfg.src[1]),
                    read(s.cfg.src[2]),
                );
                let cell = &mut self.cells[s.row][s.col];
                cell.out = v;
                cell.ops += 1;
                uses[s.row][s.col] += 1;
                ops += 1;
            }
            for &(m, r, c) in &out_cells {
                if let Some(iter) = cycle.checked_sub(1 + r as u64) {
                    if iter < iterations {
                        staging[iter as usize % STAGE][m] = self.cells[r][c].out as u8;
                    }
                }
            }
            if let Some(done) = cycle.checked_sub(1 + last) {
                if done < iterations {
                    let slot = &staging[done as usize % STAGE];
                    self.out_fifo.push(done, slot.clone());
                }
            }
            for row in uses.iter_mut() {
                for u in row.iter_mut() {
                    stats.max_cell_uses_per_cycle = stats.max_cell_uses_per_cycle.max(*u);
                    *u = 0;
                }
            }
            stats.ops += ops;
            stats.max_ops_per_cycle = stats.max_ops_per_cycle.max(ops);
            cycle += 1;
        }
        stats.cycles = cycle;
        stats.first_store_cycle = first_store.unwrap_or(0);
        self.total_ops += stats.ops;
        self.total_cycles += stats.cycles;
        stats
    }
}
