//! The AES-encrypted DMA (paper, section IV.A, Fig. 6), shared by A-DMA (behind AXI) and
//! D-DMA (behind DBUS): command controller, address mapping, the write data path (decrypts
//! ciphertext from the bus, writes plaintext to memory), the read data path (reads
//! plaintext, encrypts, drives ciphertext), one AES engine per data path, and the memory.
//!
//! The bus front-ends ([`super::bus`], [`super::axi`]) hand the DMA a [`Job`] per transfer
//! (what the address mapping computed: memory address and payload position of every byte
//! lane of every beat, and for cipher transfers the state layout) and then tell it, per
//! beat, when the command covering it was accepted. The DMA is stepped once per cycle
//! ([`Dma::tick`]); the front-end asks [`Dma::write_ready`] (RESP\[1\] / WREADY) and takes
//! read data with [`Dma::take_read`] (RESP\[0\] / RVALID).
//!
//! Cipher data paths. A *pre-scheduled* job (DBUS state transfer) feeds bus words straight
//! into the engine: a state starts as soon as its first word is there (Fig. 5(b)), and its
//! plaintext columns are scattered to memory byte lanes as they leave the engine. A
//! *buffered* job (AXI) carries state rows; the DMA must collect every row of the unit (one
//! state on a 32-bit bus, two side-by-side states on a 64-bit bus) in its re-order buffer
//! before the engine can start (Fig. 5(a)), and the output rows need the whole result state.
//!
//! Ordering between masters: the pending-write scoreboard is armed with every byte of a
//! write job when its first command is accepted, and a read beat is not issued to memory
//! while any byte it needs is still pending. This stands for the paper's "sequential"
//! write-then-read commands (section IV.C); it makes a read-back return the written data.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ops::Range;

use super::address::{state_words, word_source, WordOrder};
use super::aes_engine::{AesCore, AesTiming, EnginePipe, Words};
use super::Dir;

/// One byte lane of a bus beat: where its byte lives in memory (for non-cipher transfers)
/// and which byte of the master's payload it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lane {
    pub mem: u64,
    pub payload: usize,
}

/// A bus beat: one entry per byte lane; `None` is a lane whose WD_VLD/WSTRB bit is low.
pub type Beat = Vec<Option<Lane>>;

/// The states of a cipher transfer and how they ride on the bus.
#[derive(Debug, Clone)]
pub struct CipherPlan {
    /// DBUS state transfer: the bus words are already (inverse-)shifted columns.
    pub prescheduled: bool,
    /// Memory address of every plaintext byte of every state (FIPS-197 order).
    pub state_mem: Vec<[u64; 16]>,
    /// Groups of beats the engine needs together, with the states they carry.
    pub units: Vec<Unit>,
}

/// Beats that together carry whole states.
#[derive(Debug, Clone)]
pub struct Unit {
    pub beats: Range<usize>,
    pub states: Vec<usize>,
}

/// One transfer as the DMA's address mapping sees it. In a cipher job, a lane's payload
/// index `16k + i` names byte i of ciphertext state k.
#[derive(Debug, Clone)]
pub struct Job {
    pub dir: Dir,
    pub beats: Vec<Beat>,
    pub cipher: Option<CipherPlan>,
}

impl Job {
    /// Bytes of payload the job moves (the highest payload index + 1).
    pub fn payload_len(&self) -> usize {
        self.beats
            .iter()
            .flatten()
            .flatten()
            .map(|l| l.payload + 1)
            .max()
            .unwrap_or(0)
    }
}

/// The DMA's cycle costs and buffer sizes.
#[derive(Debug, Clone)]
pub struct DmaConfig {
    /// Cycles from a memory read issue to its data (on-chip SRAM, one cycle; Fig. 5(a) shows
    /// data two cycles after the address: one to register the command, one to read).
    pub mem_read_latency: u64,
    /// Cycles from a memory write issue until a read can see it (one cycle, SRAM).
    pub mem_write_latency: u64,
    /// Depth of the write data path's input FIFO, in beats (not given by the paper; a small
    /// FIFO is assumed — it only matters under back-pressure).
    pub write_fifo_beats: usize,
    /// Depth of the read data path's output FIFO, in beats (assumed, as above).
    pub read_fifo_beats: usize,
    /// Units (states, or state pairs at 64 bits) the A-DMA's re-order buffer holds; 2 = one
    /// filling while the engine reads the other (assumed; the paper says only that AXI must
    /// buffer each state, section III.C).
    pub reorder_buffer_units: usize,
    /// Cycles the re-order step adds once a unit is complete. Fig. 5(a): the last word D3 is
    /// on the bus at T6 and encryption starts at T7, the same one-cycle step after the data
    /// that Fig. 5(b) shows for DBUS (D0, then encryption at T3) — so 0 extra.
    pub reorder_cycles: u64,
    /// The encrypting engine (read data path).
    pub encrypt_engine: AesTiming,
    /// The decrypting engine (write data path).
    pub decrypt_engine: AesTiming,
}

impl DmaConfig {
    /// Defaults for a bus width, engines per section IV.B.
    pub fn paper(width: super::Width) -> Self {
        let engine = match width {
            super::Width::W32 => AesTiming::paper_32(),
            super::Width::W64 => AesTiming::paper_64(),
        };
        DmaConfig {
            mem_read_latency: 1,
            mem_write_latency: 1,
            write_fifo_beats: 4,
            read_fifo_beats: 4,
            reorder_buffer_units: 2,
            reorder_cycles: 0,
            encrypt_engine: engine,
            decrypt_engine: engine,
        }
    }
}

/// Cycles in which the slave de-asserts its ready signals (Fig. 1: RESP\[1\] low in cycles 5
/// and 6, RESP\[0\] low in 5 and 7), on top of the back-pressure from full buffers.
#[derive(Debug, Clone, Default)]
pub struct Stalls {
    /// Cycles with RESP\[1\] / WREADY low.
    pub write_ready_low: BTreeSet<u64>,
    /// Cycles with RESP\[0\] / RVALID low although data is waiting.
    pub read_valid_low: BTreeSet<u64>,
}

struct InBeat {
    job: usize,
    beat: usize,
    bytes: Vec<u8>,
    avail: u64,
}

struct OutBeat {
    ready: u64,
    job: usize,
    beat: usize,
    bytes: Vec<u8>,
}

struct JobState {
    job: Job,
    commanded: Vec<Option<u64>>,
    /// For cipher jobs: beat -> (unit, index within unit).
    beat_unit: Vec<(usize, usize)>,
    armed: bool,
}

/// A pre-scheduled state being fed into an engine, word by word.
struct Feeding {
    job: usize,
    unit: usize,
    got: usize,
    earliest_start: u64,
    words: Words,
}

/// A buffered unit being collected in the re-order buffer.
struct Collecting {
    job: usize,
    unit: usize,
    got: usize,
    beats: Vec<Vec<u8>>,
}

/// Counters of the DMA.
#[derive(Debug, Clone, Default)]
pub struct DmaStats {
    pub states_encrypted: u64,
    pub states_decrypted: u64,
    /// Cycles a read beat waited for a pending write (the RAW interlock).
    pub raw_wait_cycles: u64,
}

/// The DMA and its memory.
pub struct Dma {
    cfg: DmaConfig,
    bus_bytes: usize,
    /// The memory behind the DMA.
    pub mem: Vec<u8>,
    core: AesCore,
    enc: EnginePipe,
    dec: EnginePipe,
    stalls: Stalls,
    jobs: Vec<JobState>,
    read_order: VecDeque<usize>,
    pending: HashMap<u64, u32>,
    commits: BTreeMap<u64, Vec<(u64, u8)>>,
    wfifo: VecDeque<InBeat>,
    wfeed: Option<Feeding>,
    wcollect: Option<Collecting>,
    wreorder_release: Vec<u64>,
    rnext: usize,
    rfeed: Option<Feeding>,
    rcollect: Option<Collecting>,
    rreorder_release: Vec<u64>,
    rout: VecDeque<OutBeat>,
    rcredits_used: usize,
    /// Counters.
    pub stats: DmaStats,
}

impl Dma {
    /// A DMA with `mem_bytes` of memory, keyed with `key`, for a bus of `bus_bytes` lanes.
    pub fn new(
        cfg: DmaConfig,
        bus_bytes: usize,
        mem: Vec<u8>,
        key: &[u8; 16],
        stalls: Stalls,
    ) -> Self {
        let bps = (16 / bus_bytes) as u64;
        Dma {
            enc: EnginePipe::new(cfg.encrypt_engine, bps),
            dec: EnginePipe::new(cfg.decrypt_engine, bps),
            cfg,
            bus_bytes,
            mem,
            core: AesCore::new(key),
            stalls,
            jobs: Vec::new(),
            read_order: VecDeque::new(),
            pending: HashMap::new(),
            commits: BTreeMap::new(),
            wfifo: VecDeque::new(),
            wfeed: None,
            wcollect: None,
            wreorder_release: Vec::new(),
            rnext: 0,
            rfeed: None,
            rcollect: None,
            rreorder_release: Vec::new(),
            rout: VecDeque::new(),
            rcredits_used: 0,
            stats: DmaStats::default(),
        }
    }

    /// Registers a transfer (the command controller's queue entry); returns its id.
    pub fn open(&mut self, job: Job) -> usize {
        let mut beat_unit = vec![(0, 0); job.beats.len()];
        if let Some(plan) = &job.cipher {
            for (u, unit) in plan.units.iter().enumerate() {
                for (k, b) in unit.beats.clone().enumerate() {
                    beat_unit[b] = (u, k);
                }
            }
        }
        let id = self.jobs.len();
        if job.dir == Dir::Read {
            self.read_order.push_back(id);
        }
        self.jobs.push(JobState {
            commanded: vec![None; job.beats.len()],
            beat_unit,
            armed: false,
            job,
        });
        id
    }

    /// The command covering `beats` of job `id` was accepted at cycle `t`.
    pub fn command(&mut self, id: usize, beats: Range<usize>, t: u64) {
        let js = &mut self.jobs[id];
        for b in beats {
            js.commanded[b] = Some(t);
        }
        if js.job.dir == Dir::Write && !js.armed {
            js.armed = true;
            let addrs: Vec<u64> = match &js.job.cipher {
                Some(plan) => plan.state_mem.iter().flatten().copied().collect(),
                None => js
                    .job
                    .beats
                    .iter()
                    .flatten()
                    .flatten()
                    .map(|l| l.mem)
                    .collect(),
            };
            for a in addrs {
                *self.pending.entry(a).or_default() += 1;
            }
        }
    }

    /// RESP\[1\] (DBUS) / WREADY (AXI) in cycle `t`.
    pub fn write_ready(&self, t: u64) -> bool {
        !self.stalls.write_ready_low.contains(&t) && self.wfifo.len() < self.cfg.write_fifo_beats
    }

    /// The master's write beat is accepted in cycle `t` (the caller checked `write_ready`).
    pub fn push_write(&mut self, id: usize, beat: usize, bytes: Vec<u8>, t: u64) {
        debug_assert!(self.write_ready(t));
        self.wfifo.push_back(InBeat {
            job: id,
            beat,
            bytes,
            avail: t + 1,
        });
    }

    /// RESP\[0\] (DBUS) / RVALID (AXI) in cycle `t`: the (job, beat) that would be delivered.
    pub fn read_valid(&self, t: u64) -> Option<(usize, usize)> {
        if self.stalls.read_valid_low.contains(&t) {
            return None;
        }
        self.rout
            .front()
            .filter(|o| o.ready <= t)
            .map(|o| (o.job, o.beat))
    }

    /// Delivers the read beat that [`read_valid`](Self::read_valid) announced.
    pub fn take_read(&mut self, t: u64) -> (usize, usize, Vec<u8>) {
        assert!(self.read_valid(t).is_some());
        let o = self.rout.pop_front().unwrap();
        self.rcredits_used -= 1;
        (o.job, o.beat, o.bytes)
    }

    /// Nothing left in flight (buffers empty, every memory write committed).
    pub fn idle(&self) -> bool {
        self.commits.is_empty()
            && self.wfifo.is_empty()
            && self.wfeed.is_none()
            && self.wcollect.is_none()
            && self.rout.is_empty()
            && self.rfeed.is_none()
            && self.rcollect.is_none()
    }

    /// One clock cycle of the DMA's internals.
    pub fn tick(&mut self, t: u64) {
        self.apply_commits(t);
        self.write_path(t);
        self.read_path(t);
    }

    fn apply_commits(&mut self, t: u64) {
        while let Some(entry) = self.commits.first_entry() {
            if *entry.key() > t {
                break;
            }
            for (a, v) in entry.remove() {
                self.mem[a as usize] = v;
                if let Some(n) = self.pending.get_mut(&a) {
                    *n -= 1;
                    if *n == 0 {
                        self.pending.remove(&a);
                    }
                }
            }
        }
    }

    fn commit(&mut self, at: u64, a: u64, v: u8) {
        self.commits.entry(at).or_default().push((a, v));
    }

    fn raw_free(&self, addrs: impl IntoIterator<Item = u64>) -> bool {
        addrs.into_iter().all(|a| !self.pending.contains_key(&a))
    }

    // ---- write data path -------------------------------------------------------------

    fn write_path(&mut self, t: u64) {
        let Some(head) = self.wfifo.front() else {
            return;
        };
        if head.avail > t {
            return;
        }
        let (id, beat) = (head.job, head.beat);
        let wl = self.cfg.mem_write_latency;
        match self.jobs[id].job.cipher.as_ref().map(|p| p.prescheduled) {
            None => {
                let ib = self.wfifo.pop_front().unwrap();
                let lanes = self.jobs[id].job.beats[beat].clone();
                for (l, lane) in lanes.iter().enumerate() {
                    if let Some(lane) = lane {
                        self.commit(t + wl, lane.mem, ib.bytes[l]);
                    }
                }
            }
            Some(true) => {
                let (unit, k) = self.jobs[id].beat_unit[beat];
                if k == 0 && t < self.dec.next_issue() {
                    return;
                }
                let ib = self.wfifo.pop_front().unwrap();
                let feed = self.wfeed.get_or_insert(Feeding {
                    job: id,
                    unit,
                    got: 0,
                    earliest_start: t,
                    words: [[0; 4]; 4],
                });
                let cols = self.bus_bytes / 4;
                for h in 0..cols {
                    let c = k * cols + h;
                    feed.words[c].copy_from_slice(&ib.bytes[4 * h..4 * h + 4]);
                }
                // The first round is elastic: a late word delays the whole state.
                feed.earliest_start = feed.earliest_start.max(t - k as u64);
                feed.got += 1;
                if feed.got == 16 / self.bus_bytes {
                    let feed = self.wfeed.take().unwrap();
                    self.finish_prescheduled_write(feed, t);
                }
            }
            Some(false) => {
                let (unit, k) = self.jobs[id].beat_unit[beat];
                if k == 0 {
                    let in_use = self.wreorder_release.iter().filter(|&&r| r > t).count();
                    if in_use >= self.cfg.reorder_buffer_units {
                        return;
                    }
                }
                let ib = self.wfifo.pop_front().unwrap();
                let col = self.wcollect.get_or_insert(Collecting {
                    job: id,
                    unit,
                    got: 0,
                    beats: Vec::new(),
                });
                col.beats.push(ib.bytes);
                col.got += 1;
                let n = self.jobs[id].job.cipher.as_ref().unwrap().units[unit]
                    .beats
                    .len();
                if col.got == n {
                    let col = self.wcollect.take().unwrap();
                    self.finish_buffered_write(col, t);
                }
            }
        }
    }

    fn finish_prescheduled_write(&mut self, feed: Feeding, _t: u64) {
        let s = self.dec.start(feed.earliest_start);
        let pt = self.core.decrypt_preselected(&feed.words);
        self.stats.states_decrypted += 1;
        let plan = self.jobs[feed.job].job.cipher.as_ref().unwrap();
        let k = plan.units[feed.unit].states[0];
        let addrs = plan.state_mem[k];
        let cols = self.bus_bytes / 4;
        let wl = self.cfg.mem_write_latency;
        for j in 0..(16 / self.bus_bytes) {
            let at = self.dec.output_ready(s, j as u64) + wl;
            // The output column goes straight to memory: byte s[r][c] to its own lane.
            for h in 0..cols {
                let c = j * cols + h;
                for r in 0..4 {
                    self.commit(at, addrs[r + 4 * c], pt[r + 4 * c]);
                }
            }
        }
    }

    fn finish_buffered_write(&mut self, col: Collecting, t: u64) {
        let plan = self.jobs[col.job].job.cipher.clone().unwrap();
        let unit = &plan.units[col.unit];
        // The re-order buffer assembles each ciphertext state from the rows.
        let mut cts = vec![[0u8; 16]; unit.states.len()];
        for (bi, b) in unit.beats.clone().enumerate() {
            for (l, lane) in self.jobs[col.job].job.beats[b].iter().enumerate() {
                if let Some(lane) = lane {
                    let (k, i) = (lane.payload / 16, lane.payload % 16);
                    let si = unit.states.iter().position(|&x| x == k).unwrap();
                    cts[si][i] = col.beats[bi][l];
                }
            }
        }
        let earliest = t + self.cfg.reorder_cycles;
        let mut last_start = earliest;
        let mut pts = Vec::new();
        for ct in &cts {
            last_start = self.dec.start(earliest);
            pts.push(
                self.core
                    .decrypt_preselected(&state_words(ct, WordOrder::InvShiftRows)),
            );
            self.stats.states_decrypted += 1;
        }
        self.wreorder_release.retain(|&r| r > t);
        self.wreorder_release.push(last_start);
        // Memory rows need the whole result state: they leave after the last state.
        let done = last_start + self.cfg.decrypt_engine.latency() + self.cfg.reorder_cycles;
        let wl = self.cfg.mem_write_latency;
        for (bi, b) in unit.beats.clone().enumerate() {
            let at = done + bi as u64 + wl;
            let lanes = self.jobs[col.job].job.beats[b].clone();
            for lane in lanes.into_iter().flatten() {
                let (k, i) = (lane.payload / 16, lane.payload % 16);
                let si = unit.states.iter().position(|&x| x == k).unwrap();
                self.commit(at, plan.state_mem[k][i], pts[si][i]);
            }
        }
    }

    // ---- read data path --------------------------------------------------------------

    fn read_credits(&self, cipher: bool) -> usize {
        if cipher {
            let t = self.cfg.encrypt_engine;
            self.cfg.read_fifo_beats + (t.capacity_states() as usize) * (16 / self.bus_bytes)
        } else {
            self.cfg.read_fifo_beats
        }
    }

    fn read_path(&mut self, t: u64) {
        let Some(&id) = self.read_order.front() else {
            return;
        };
        let beat = self.rnext;
        let Some(cmd_t) = self.jobs[id].commanded[beat] else {
            return;
        };
        if cmd_t >= t {
            return; // the command is registered first
        }
        let rl = self.cfg.mem_read_latency;
        let prescheduled = self.jobs[id].job.cipher.as_ref().map(|p| p.prescheduled);
        let issued = match prescheduled {
            None => self.read_bypass(id, beat, t, rl),
            Some(true) => self.read_prescheduled(id, beat, t, rl),
            Some(false) => self.read_buffered(id, beat, t, rl),
        };
        if issued {
            self.rnext += 1;
            if self.rnext == self.jobs[id].job.beats.len() {
                self.read_order.pop_front();
                self.rnext = 0;
            }
        }
    }

    fn read_bypass(&mut self, id: usize, beat: usize, t: u64, rl: u64) -> bool {
        if self.rcredits_used >= self.read_credits(false) {
            return false;
        }
        let lanes = &self.jobs[id].job.beats[beat];
        if !self.raw_free(lanes.iter().flatten().map(|l| l.mem)) {
            self.stats.raw_wait_cycles += 1;
            return false;
        }
        let bytes = lanes
            .iter()
            .map(|l| l.map_or(0, |l| self.mem[l.mem as usize]))
            .collect();
        self.rcredits_used += 1;
        self.rout.push_back(OutBeat {
            ready: t + rl,
            job: id,
            beat,
            bytes,
        });
        true
    }

    fn read_prescheduled(&mut self, id: usize, beat: usize, t: u64, rl: u64) -> bool {
        let (unit, k) = self.jobs[id].beat_unit[beat];
        let bps = 16 / self.bus_bytes;
        let consume = t + rl + 1;
        if k == 0 {
            // One state of input registers: do not run ahead of the engine.
            if consume < self.enc.next_issue() {
                return false;
            }
            if self.rcredits_used + bps > self.read_credits(true) {
                return false;
            }
        }
        let plan = self.jobs[id].job.cipher.as_ref().unwrap();
        let st = plan.units[unit].states[0];
        let addrs = plan.state_mem[st];
        let cols = self.bus_bytes / 4;
        // The address mapping gathers ShiftRows words: lane r of word c from s[r][c+r].
        let gather: Vec<u64> = (0..cols)
            .flat_map(|h| {
                let c = k * cols + h;
                (0..4).map(move |r| addrs[word_source(WordOrder::ShiftRows, c, r)])
            })
            .collect();
        if !self.raw_free(gather.iter().copied()) {
            self.stats.raw_wait_cycles += 1;
            return false;
        }
        if k == 0 {
            self.rcredits_used += bps;
        }
        let bytes: Vec<u8> = gather.iter().map(|&a| self.mem[a as usize]).collect();
        let feed = self.rfeed.get_or_insert(Feeding {
            job: id,
            unit,
            got: 0,
            earliest_start: consume,
            words: [[0; 4]; 4],
        });
        for h in 0..cols {
            feed.words[k * cols + h].copy_from_slice(&bytes[4 * h..4 * h + 4]);
        }
        feed.earliest_start = feed.earliest_start.max(consume - k as u64);
        feed.got += 1;
        if feed.got == bps {
            let feed = self.rfeed.take().unwrap();
            let s = self.enc.start(feed.earliest_start);
            let ct = self.core.encrypt_preshifted(&feed.words);
            self.stats.states_encrypted += 1;
            let ubeats = self.jobs[id].job.cipher.as_ref().unwrap().units[unit]
                .beats
                .clone();
            for (j, b) in ubeats.enumerate() {
                let bytes = self.bus_bytes_of(id, b, &[(st, ct)]);
                self.rout.push_back(OutBeat {
                    ready: self.enc.output_ready(s, j as u64),
                    job: id,
                    beat: b,
                    bytes,
                });
            }
        }
        true
    }

    fn read_buffered(&mut self, id: usize, beat: usize, t: u64, rl: u64) -> bool {
        let (unit, k) = self.jobs[id].beat_unit[beat];
        let plan = self.jobs[id].job.cipher.as_ref().unwrap();
        let n = plan.units[unit].beats.len();
        if k == 0 {
            let in_use = self.rreorder_release.iter().filter(|&&r| r > t).count();
            if in_use >= self.cfg.reorder_buffer_units
                || self.rcredits_used + n > self.read_credits(true)
            {
                return false;
            }
        }
        let lanes = self.jobs[id].job.beats[beat].clone();
        if !self.raw_free(lanes.iter().flatten().map(|l| l.mem)) {
            self.stats.raw_wait_cycles += 1;
            return false;
        }
        if k == 0 {
            self.rcredits_used += n;
        }
        // The A-DMA reads the memory row the AXI address names.
        let bytes = lanes
            .iter()
            .map(|l| l.map_or(0, |l| self.mem[l.mem as usize]))
            .collect();
        let col = self.rcollect.get_or_insert(Collecting {
            job: id,
            unit,
            got: 0,
            beats: Vec::new(),
        });
        col.beats.push(bytes);
        col.got += 1;
        if col.got == n {
            let col = self.rcollect.take().unwrap();
            let unit = self.jobs[id].job.cipher.as_ref().unwrap().units[unit].clone();
            // Plaintext states from the buffered rows (byte i of state k sits where the
            // lane's payload index 16k + i says).
            let mut pts = vec![[0u8; 16]; unit.states.len()];
            for (bi, b) in unit.beats.clone().enumerate() {
                for (l, lane) in self.jobs[id].job.beats[b].iter().enumerate() {
                    if let Some(lane) = lane {
                        let (k, i) = (lane.payload / 16, lane.payload % 16);
                        let si = unit.states.iter().position(|&x| x == k).unwrap();
                        pts[si][i] = col.beats[bi][l];
                    }
                }
            }
            // Last row arrives at t + rl; the engine starts the cycle after (Fig. 5(a)).
            let earliest = t + rl + 1 + self.cfg.reorder_cycles;
            let mut last_start = earliest;
            let mut results = Vec::new();
            for (si, pt) in pts.iter().enumerate() {
                last_start = self.enc.start(earliest);
                let ct = self
                    .core
                    .encrypt_preshifted(&state_words(pt, WordOrder::ShiftRows));
                results.push((unit.states[si], ct));
                self.stats.states_encrypted += 1;
            }
            self.rreorder_release.retain(|&r| r > t);
            self.rreorder_release.push(last_start);
            let done = last_start + self.cfg.encrypt_engine.latency() + self.cfg.reorder_cycles;
            for (j, b) in unit.beats.clone().enumerate() {
                let bytes = self.bus_bytes_of(id, b, &results);
                self.rout.push_back(OutBeat {
                    ready: done + j as u64,
                    job: id,
                    beat: b,
                    bytes,
                });
            }
        }
        true
    }

    /// The bytes of bus beat `b` of job `id` from computed ciphertext states.
    fn bus_bytes_of(&self, id: usize, b: usize, states: &[(usize, [u8; 16])]) -> Vec<u8> {
        self.jobs[id].job.beats[b]
            .iter()
            .map(|lane| {
                lane.map_or(0, |lane| {
                    let (k, i) = (lane.payload / 16, lane.payload % 16);
                    states.iter().find(|(s, _)| *s == k).unwrap().1[i]
                })
            })
            .collect()
    }
}
