//! The MUSRA-based system of section 4.2 (Fig. 10) and its schedule (Fig. 11): the LEON3
//! host, the CDMAC, the parser, the DDMAC and the RCA, synchronised by the completion
//! interrupt, running AES after the loop transformation of Fig. 7(b).
//!
//! The schedule follows section 4.2: ① CM Init — the CPU programs the CDMAC, which copies the
//! contexts into the context memory while the CPU runs `KeyExpansion()`; ② PAR Init — the
//! CPU writes the parser's configuration words; ③ Conf / DM Init — the parser decodes a
//! context into a layer while the DDMAC copies data into the internal data memory; ④ RCA
//! execution, then the DDMAC writes the result back and the MUSRA interrupts the CPU.
//!
//! Round-major order (Fig. 7(b)): step 0 is `AddRoundKey(0)` over all blocks in hardware;
//! step s = 1..Nr is `Sub_Shft()` over all blocks in software, then the hardware part of round
//! s (`Mix_Add()`, or `AddRoundKey(Nr)` in the last round) over all blocks. The blocks go in
//! chunks that fit the internal data memory, one hardware task per chunk; with `overlap` the
//! CPU carries on with the next chunk's software while the MUSRA runs (task-level
//! parallelism, section 5.2), and the interrupt service routine issues the next queued task.
//! Block-major order (Fig. 7(a)) takes one block through all its rounds before the next.
//!
//! Decryption uses the equivalent inverse cipher (FIPS-197 §5.3.5) so it has the same shape:
//! `AddRoundKey(Nr)`; Nr−1 × (`InvShiftRows`+`InvSubBytes` in software, then
//! `InvPre` + `Mix_Add()` with the transformed round key in hardware); the last round's
//! software part and `AddRoundKey(0)`.

use std::collections::VecDeque;

use super::array::{PassStats, Rca};
use super::context::{decode, ContextMemory, ParserConfig};
use super::dfg;
use super::dma::DmaConfig;
use super::leon3::{map, Leon3, Leon3Costs, Mem};
use super::software as sw;

/// Encryption or decryption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

/// Loop order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Fig. 7(b): every block through one step before the next step.
    RoundMajor,
    /// Fig. 7(a): one chunk through every step before the next chunk.
    BlockMajor,
}

/// Everything the system's timing depends on.
#[derive(Debug, Clone)]
pub struct SystemConfig {
    pub leon3: Leon3Costs,
    pub parser: ParserConfig,
    pub ddmac: DmaConfig,
    pub cdmac: DmaConfig,
    /// Blocks per hardware task, i.e. the internal data memory's capacity. The paper gives no
    /// size: 256 blocks (4 KiB) assumed.
    pub chunk_blocks: usize,
    pub order: Order,
    /// The CPU runs the next chunk's software while the MUSRA works (Fig. 11); `false` makes
    /// every hardware task a blocking call.
    pub overlap: bool,
}

impl Default for SystemConfig {
    fn default() -> Self {
        SystemConfig {
            leon3: Leon3Costs::default(),
            parser: ParserConfig::default(),
            ddmac: DmaConfig::default(),
            cdmac: DmaConfig::default(),
            chunk_blocks: 256,
            order: Order::RoundMajor,
            overlap: true,
        }
    }
}

/// A unit that can be busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resource {
    Cpu,
    Cdmac,
    Parser,
    Ddmac,
    Rca,
}

/// One busy interval, [start, end).
#[derive(Debug, Clone, Copy)]
pub struct Interval {
    pub resource: Resource,
    pub start: u64,
    pub end: u64,
    pub what: &'static str,
}

/// Who did what when (the data of Fig. 11).
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    pub intervals: Vec<Interval>,
}

impl Timeline {
    fn add(&mut self, resource: Resource, start: u64, end: u64, what: &'static str) {
        if end > start {
            self.intervals.push(Interval {
                resource,
                start,
                end,
                what,
            });
        }
    }

    /// Busy cycles of a resource, optionally only for one activity.
    pub fn busy(&self, r: Resource, what: Option<&str>) -> u64 {
        self.intervals
            .iter()
            .filter(|i| i.resource == r && what.is_none_or(|w| w == i.what))
            .map(|i| i.end - i.start)
            .sum()
    }

    /// Checks that no resource does two things at once.
    pub fn check_exclusive(&self) -> Result<(), String> {
        for r in [
            Resource::Cpu,
            Resource::Cdmac,
            Resource::Parser,
            Resource::Ddmac,
            Resource::Rca,
        ] {
            let mut v: Vec<&Interval> = self.intervals.iter().filter(|i| i.resource == r).collect();
            v.sort_by_key(|i| (i.start, i.end));
            for w in v.windows(2) {
                if w[1].start < w[0].end {
                    return Err(format!(
                        "{r:?}: '{}' [{}, {}) overlaps '{}' [{}, {})",
                        w[0].what, w[0].start, w[0].end, w[1].what, w[1].start, w[1].end
                    ));
                }
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HwKind {
    AddRoundKey,
    MixAdd,
    InvPreMixAdd,
}

impl HwKind {
    fn contexts(self) -> &'static [u8] {
        match self {
            HwKind::AddRoundKey => &[dfg::ID_ADD_ROUND_KEY],
            HwKind::MixAdd => &[dfg::ID_MIX_ADD],
            HwKind::InvPreMixAdd => &[dfg::ID_INV_PRE, dfg::ID_MIX_ADD],
        }
    }
}

#[derive(Debug, Clone)]
struct HwTask {
    kind: HwKind,
    first_block: usize,
    blocks: usize,
    key_addr: u32,
    /// Round-key bytes for the GRF when they change with this task.
    key: Option<[u16; 16]>,
}

/// Configuration work done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConfigStats {
    /// Contexts decoded by the parser into a layer.
    pub decodes: u64,
    /// Round keys loaded into the GRF by configuration words.
    pub grf_updates: u64,
    /// Parser busy cycles (decoding and GRF words).
    pub parser_cycles: u64,
    /// CPU cycles writing configuration (parser init, GRF key words).
    pub cpu_cycles: u64,
    /// Active-layer switches.
    pub layer_switches: u64,
}

impl ConfigStats {
    /// Configuration time: parser plus CPU configuration cycles.
    pub fn total(&self) -> u64 {
        self.parser_cycles + self.cpu_cycles
    }
}

/// A run of the system.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub direction: Direction,
    pub blocks: usize,
    pub rounds: usize,
    /// Cycles from reset to the CPU's handling of the last completion interrupt.
    pub total_cycles: u64,
    /// The data file after the run.
    pub output: Vec<u8>,
    /// The host's counters.
    pub cpu: Leon3,
    /// CPU cycles idle, waiting for the MUSRA.
    pub cpu_idle: u64,
    pub hw_tasks: usize,
    /// Sum over hardware tasks of issue-to-completion cycles (DDMAC in, RCA, DDMAC out).
    pub hw_task_cycles: u64,
    pub rca_cycles: u64,
    pub rca_ops: u64,
    pub ddmac_cycles: u64,
    pub config: ConfigStats,
    /// The first pass of each context.
    pub passes: Vec<(&'static str, PassStats)>,
    /// Most uses of one cell in one cycle over all passes.
    pub max_cell_uses_per_cycle: u32,
    pub timeline: Timeline,
}

struct Musra {
    rca: Rca,
    cm: ContextMemory,
    parser: ParserConfig,
    ddmac: DmaConfig,
    cdmac_done: u64,
}

struct Sched {
    cfg: SystemConfig,
    cpu: Leon3,
    mem: Mem,
    musra: Musra,
    now: u64,
    idle: u64,
    tasks: Vec<HwTask>,
    handled: Vec<bool>,
    running: Option<(u64, usize)>,
    queue: VecDeque<usize>,
    last_key: Option<u32>,
    timeline: Timeline,
    config: ConfigStats,
    hw_task_cycles: u64,
    ddmac_cycles: u64,
    passes: Vec<(&'static str, PassStats)>,
    max_uses: u32,
}

impl Sched {
    /// Runs a CPU job whose cost the executor measures; completion interrupts that arrive
    /// meanwhile are served at once and delay the job.
    fn cpu_job(&mut self, what: &'static str, f: impl FnOnce(&mut Leon3, &mut Mem)) {
        let before = self.cpu.cycles;
        f(&mut self.cpu, &mut self.mem);
        let d = self.cpu.cycles - before;
        self.advance(d, what);
    }

    fn advance(&mut self, d: u64, what: &'static str) {
        let mut t = self.now;
        let mut rem = d;
        loop {
            match self.running {
                Some((done, _)) if done < t + rem => {
                    let done = done.max(t);
                    self.timeline.add(Resource::Cpu, t, done, what);
                    rem -= done - t;
                    t = self.isr(done);
                }
                _ => {
                    self.timeline.add(Resource::Cpu, t, t + rem, what);
                    t += rem;
                    break;
                }
            }
        }
        self.now = t;
    }

    /// The completion interrupt at `t`: the ISR marks the running task done and issues the
    /// next queued one. Returns when the ISR ends.
    fn isr(&mut self, t: u64) -> u64 {
        let (_, k) = self.running.take().expect("a task is running");
        let before = self.cpu.cycles;
        sw::isr(&mut self.cpu);
        self.handled[k] = true;
        let next = self.queue.pop_front();
        if let Some(n) = next {
            self.issue_cost(n);
        }
        let end = t + (self.cpu.cycles - before);
        self.timeline.add(Resource::Cpu, t, end, "ISR");
        if let Some(n) = next {
            self.start_task(n, end);
        }
        end
    }

    /// The driver's work to issue task `k`, including the round key when it changes.
    fn issue_cost(&mut self, k: usize) {
        sw::issue_task(&mut self.cpu);
        let addr = self.tasks[k].key_addr;
        if self.last_key != Some(addr) {
            let before = self.cpu.cycles;
            self.tasks[k].key = Some(sw::grf_key_words(&mut self.cpu, &self.mem, addr));
            self.config.cpu_cycles += self.cpu.cycles - before;
            self.last_key = Some(addr);
        }
    }

    /// Hands a task to the MUSRA, issuing it now if the MUSRA is idle.
    fn submit(&mut self, task: HwTask) -> usize {
        let k = self.tasks.len();
        self.tasks.push(task);
        self.handled.push(false);
        if self.running.is_none() && self.queue.is_empty() {
            let before = self.cpu.cycles;
            self.issue_cost(k);
            let d = self.cpu.cycles - before;
            self.advance(d, "issue");
            self.start_task(k, self.now);
        } else {
            self.queue.push_back(k);
            self.cpu_job("enqueue", |cpu, _| sw::enqueue_task(cpu));
        }
        if !self.cfg.overlap {
            self.wait_for(k);
        }
        k
    }

    /// The CPU waits (idle) until task `k` is done and its interrupt served.
    fn wait_for(&mut self, k: usize) {
        while !self.handled[k] {
            let (done, _) = self
                .running
                .expect("an unfinished task is running or queued");
            let t = done.max(self.now);
            self.idle += t - self.now;
            self.now = self.isr(t);
        }
    }

    /// Runs task `k` on the MUSRA from `t0`: DDMAC in, parser, RCA pass(es), DDMAC out.
    fn start_task(&mut self, k: usize, t0: u64) {
        let task = self.tasks[k].clone();
        let m = &mut self.musra;
        let bytes = task.blocks * 16;
        let addr = map::DATA + 16 * task.first_block as u32;
        // DDMAC: external data memory -> internal data memory.
        let din = m.ddmac.transfer_cycles(bytes as u64);
        self.timeline.add(Resource::Ddmac, t0, t0 + din, "DM in");
        let mut bank = self.mem.slice(addr, bytes).to_vec();
        // Parser: decode missing contexts into a free layer, load the round key.
        let needed = task.kind.contexts();
        let mut p = 0;
        for &id in needed {
            if m.rca.layer_of(id).is_none() {
                // Ping-pong: an empty layer, else the one not driving the data path,
                // never one holding a context this task needs.
                let free = |l: usize| {
                    m.rca.layers[l]
                        .as_ref()
                        .is_none_or(|x| !needed.contains(&x.id))
                };
                let k = [0, 1]
                    .into_iter()
                    .find(|&l| m.rca.layers[l].is_none())
                    .or_else(|| {
                        [1 - m.rca.active, m.rca.active]
                            .into_iter()
                            .find(|&l| free(l))
                    })
                    .expect("two layers hold at most two contexts");
                let words = m.cm.get(id).expect("context in the context memory");
                let layer = decode(words).expect("context decodes");
                m.rca.configure(k, &layer);
                p += m.parser.decode_cycles();
                self.config.decodes += 1;
            }
        }
        if let Some(key) = task.key {
            m.rca.write_grf(dfg::GRF_KEY, &key);
            p += 8 * m.parser.cycles_per_word;
            self.config.grf_updates += 1;
        }
        let p0 = t0.max(m.cdmac_done);
        self.timeline.add(Resource::Parser, p0, p0 + p, "Conf");
        self.config.parser_cycles += p;
        // RCA passes.
        let mut t = (t0 + din).max(p0 + p);
        for &id in needed {
            let l = m.rca.layer_of(id).expect("configured");
            if l != m.rca.active || m.rca.layers[l].as_ref().unwrap().id != id {
                t += m.parser.layer_switch_cycles;
                self.config.layer_switches += 1;
            }
            m.rca.activate(l);
            let cols = id != dfg::ID_ADD_ROUND_KEY;
            let iters = if cols { 4 * task.blocks } else { task.blocks } as u64;
            let mut out = vec![0u8; bytes];
            let st = m.rca.run(&bank, &mut out, iters);
            bank = out;
            self.timeline.add(Resource::Rca, t, t + st.cycles, "RCA");
            t += st.cycles;
            self.max_uses = self.max_uses.max(st.max_cell_uses_per_cycle);
            let name = match id {
                dfg::ID_ADD_ROUND_KEY => "AddRoundKey",
                dfg::ID_MIX_ADD => "Mix_Add",
                _ => "InvPre",
            };
            if !self.passes.iter().any(|(n, _)| *n == name) {
                self.passes.push((name, st));
            }
        }
        // DDMAC: internal -> external, the cache snoops the write.
        let dout = m.ddmac.transfer_cycles(bytes as u64);
        self.timeline.add(Resource::Ddmac, t, t + dout, "DM out");
        let done = t + dout;
        self.mem.slice_mut(addr, bytes).copy_from_slice(&bank);
        self.cpu.snoop_invalidate(addr, bytes);
        self.ddmac_cycles += din + dout;
        self.hw_task_cycles += done - t0;
        self.running = Some((done, k));
    }
}

/// The contexts a direction needs, encoded (what the CDMAC copies).
pub fn contexts(direction: Direction) -> Vec<[u32; 128]> {
    let mut g = vec![dfg::add_round_key(), dfg::mix_add()];
    if direction == Direction::Decrypt {
        g.push(dfg::inv_pre());
    }
    g.iter()
        .map(|d| dfg::map(d).expect("kernel fits the array").layer.encode())
        .collect()
}

/// Runs AES over `input` (whole blocks) on the LEON3 + MUSRA system.
pub fn run(cfg: &SystemConfig, direction: Direction, key: &[u8], input: &[u8]) -> RunResult {
    assert_eq!(input.len() % 16, 0);
    let nk = key.len() / 4;
    let blocks = input.len() / 16;
    let mut mem = Mem::new(key, input.len());
    mem.slice_mut(map::DATA, input.len()).copy_from_slice(input);
    let mut s = Sched {
        cfg: cfg.clone(),
        cpu: Leon3::new(cfg.leon3),
        mem,
        musra: Musra {
            rca: Rca::default(),
            cm: ContextMemory::default(),
            parser: cfg.parser,
            ddmac: cfg.ddmac,
            cdmac_done: 0,
        },
        now: 0,
        idle: 0,
        tasks: Vec::new(),
        handled: Vec::new(),
        running: None,
        queue: VecDeque::new(),
        last_key: None,
        timeline: Timeline::default(),
        config: ConfigStats::default(),
        hw_task_cycles: 0,
        ddmac_cycles: 0,
        passes: Vec::new(),
        max_uses: 0,
    };
    // ① CM Init: program the CDMAC; it copies the contexts while the CPU expands the key.
    let before = s.cpu.cycles;
    s.cpu_job("CM init", |cpu, _| sw::write_device_registers(cpu, 4));
    s.config.cpu_cycles += s.cpu.cycles - before;
    let ctx = contexts(direction);
    let c0 = s.now;
    let c1 = c0 + cfg.cdmac.transfer_cycles(512 * ctx.len() as u64);
    s.timeline.add(Resource::Cdmac, c0, c1, "CM init");
    for w in ctx {
        s.musra.cm.store(w);
    }
    s.musra.cdmac_done = c1;
    let mut nr = 0;
    s.cpu_job("Key Exp", |cpu, mem| {
        nr = sw::key_expansion(cpu, mem, nk);
        if direction == Direction::Decrypt {
            sw::decryption_keys(cpu, mem, nr);
        }
    });
    // ② PAR Init.
    let before = s.cpu.cycles;
    s.cpu_job("PAR init", |cpu, _| sw::write_device_registers(cpu, 4));
    s.config.cpu_cycles += s.cpu.cycles - before;

    let chunk = cfg.chunk_blocks.max(1);
    let chunks = blocks.div_ceil(chunk);
    let task = |step: usize, j: usize| -> HwTask {
        let first_block = j * chunk;
        let n = chunk.min(blocks - first_block);
        let (kind, key_addr) = match direction {
            Direction::Encrypt => (
                if step == 0 || step == nr {
                    HwKind::AddRoundKey
                } else {
                    HwKind::MixAdd
                },
                map::ROUND_KEYS + 16 * step as u32,
            ),
            Direction::Decrypt => (
                if step == 0 || step == nr {
                    HwKind::AddRoundKey
                } else {
                    HwKind::InvPreMixAdd
                },
                map::DEC_KEYS + 16 * (nr - step) as u32,
            ),
        };
        HwTask {
            kind,
            first_block,
            blocks: n,
            key_addr,
            key: None,
        }
    };
    let inverse = direction == Direction::Decrypt;
    let software = |s: &mut Sched, j: usize| {
        let first = map::DATA + 16 * (j * chunk) as u32;
        let n = chunk.min(blocks - j * chunk);
        s.cpu_job("Sub_Shft", |cpu, mem| {
            sw::sub_shift_blocks(cpu, mem, first, n, inverse)
        });
    };
    match cfg.order {
        Order::RoundMajor => {
            let mut prev: Vec<usize> = (0..chunks).map(|j| s.submit(task(0, j))).collect();
            for step in 1..=nr {
                prev = prev
                    .iter()
                    .enumerate()
                    .map(|(j, &p)| {
                        s.wait_for(p);
                        software(&mut s, j);
                        s.submit(task(step, j))
                    })
                    .collect();
            }
        }
        Order::BlockMajor => {
            for j in 0..chunks {
                let mut prev = s.submit(task(0, j));
                for step in 1..=nr {
                    s.wait_for(prev);
                    software(&mut s, j);
                    prev = s.submit(task(step, j));
                }
            }
        }
    }
    for k in 0..s.tasks.len() {
        s.wait_for(k);
    }
    let rca_cycles = s.timeline.busy(Resource::Rca, None);
    RunResult {
        direction,
        blocks,
        rounds: nr,
        total_cycles: s.now,
        output: s.mem.slice(map::DATA, input.len()).to_vec(),
        cpu_idle: s.idle,
        hw_tasks: s.tasks.len(),
        hw_task_cycles: s.hw_task_cycles,
        rca_cycles,
        rca_ops: s.musra.rca.total_ops,
        ddmac_cycles: s.ddmac_cycles,
        config: s.config,
        passes: s.passes,
        max_cell_uses_per_cycle: s.max_uses,
        timeline: s.timeline,
        cpu: s.cpu,
    }
}

/// A run of the same software on the LEON3 alone (Table 2's "LEON3" row): the code of
/// Fig. 7(b) with the hardware loops executed in software.
#[derive(Debug, Clone)]
pub struct SoftwareRun {
    pub blocks: usize,
    pub cycles: u64,
    pub instructions: u64,
    pub output: Vec<u8>,
    pub cpu: Leon3,
}

/// Runs AES over `input` on the LEON3 alone.
pub fn run_software_only(
    costs: Leon3Costs,
    direction: Direction,
    key: &[u8],
    input: &[u8],
) -> SoftwareRun {
    assert_eq!(input.len() % 16, 0);
    let blocks = input.len() / 16;
    let mut mem = Mem::new(key, input.len());
    mem.slice_mut(map::DATA, input.len()).copy_from_slice(input);
    let mut cpu = Leon3::new(costs);
    let nr = sw::key_expansion(&mut cpu, &mut mem, key.len() / 4);
    let dec = direction == Direction::Decrypt;
    if dec {
        sw::decryption_keys(&mut cpu, &mut mem, nr);
    }
    let key_addr = |step: usize| {
        if dec {
            map::DEC_KEYS + 16 * (nr - step) as u32
        } else {
            map::ROUND_KEYS + 16 * step as u32
        }
    };
    sw::mix_add_blocks(&mut cpu, &mut mem, map::DATA, blocks, key_addr(0), None);
    for step in 1..=nr {
        sw::sub_shift_blocks(&mut cpu, &mut mem, map::DATA, blocks, dec);
        let mix = (step < nr).then_some(dec);
        sw::mix_add_blocks(&mut cpu, &mut mem, map::DATA, blocks, key_addr(step), mix);
    }
    SoftwareRun {
        blocks,
        cycles: cpu.cycles,
        instructions: cpu.total_instructions(),
        output: mem.slice(map::DATA, input.len()).to_vec(),
        cpu,
    }
}
