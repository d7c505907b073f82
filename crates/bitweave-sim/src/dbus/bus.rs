//! DBUS transactions (paper, section II, Fig. 1).
//!
//! A master asserts REQ; the arbiter answers with GNT; the granted master drives the command
//! (ADDR, WR, LEN\[11:0\]) for one command phase; then the data phase moves one beat per
//! cycle on WDATA (with WD_VLD per byte) or RDATA. The slave paces the data phase with
//! RESP\[1\] (write ready: while low the master holds the write beat) and RESP\[0\] (read data
//! valid: while low the master waits). Commands share one command bus and are serialised by
//! the arbiter; write and read data use separate wires, so a read's data phase can overlap
//! a write's (Fig. 1 shows write and read stalls in the same cycles 5–7).

use super::address::{
    aligned_base, block_addr, linear_addr, state_byte_map, word_source, Len, TransferType,
    WordOrder,
};
use super::dma::{CipherPlan, Dma, Job, Lane, Unit};
use super::{Dir, Width};

/// DBUS cycle costs (section II, Fig. 1; the timing diagram itself is not reproduced in the
/// text, so the one-cycle values are read from its description and stated as assumptions).
#[derive(Debug, Clone)]
pub struct DbusConfig {
    /// Cycles from REQ to GNT when the command bus is free (Fig. 1: REQ, then GNT).
    pub arbitration_cycles: u64,
    /// Cycles the granted master drives ADDR/WR/LEN (one command per transfer, section II).
    pub command_cycles: u64,
    /// Cycles from the end of the command phase to the first write beat.
    pub command_to_write_data: u64,
}

impl Default for DbusConfig {
    fn default() -> Self {
        DbusConfig {
            arbitration_cycles: 1,
            command_cycles: 1,
            command_to_write_data: 1,
        }
    }
}

/// The command a granted master drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbusCommand {
    /// ADDR: the initial address (the only address on the bus for the whole burst).
    pub addr: u64,
    /// WR.
    pub wr: bool,
    /// LEN\[11:0\].
    pub len: Len,
}

/// The D-DMA's address mapping: the job a DBUS command describes. `gap` is the memory row
/// pitch for block and state transfers (a DMA register, not a bus signal). For a cipher state
/// transfer the bus carries ciphertext: inverse-shifted words on write (Fig. 4), and the
/// engine's output columns on read (the plaintext is gathered from memory in ShiftRows order,
/// inside the DMA). Without cipher, a state read drives ShiftRows words on RDATA (Fig. 4).
pub fn dbus_job(cmd: &DbusCommand, gap: u64, width: Width, cipher: bool) -> Job {
    let bb = width.bytes();
    let ds = width.ds();
    let dir = if cmd.wr { Dir::Write } else { Dir::Read };
    let a0 = aligned_base(cmd.addr, ds);
    let beat = |base: u64, e: usize| -> Vec<Option<Lane>> {
        (0..bb)
            .map(|l| {
                Some(Lane {
                    mem: base + l as u64,
                    payload: e * bb + l,
                })
            })
            .collect()
    };
    match cmd.len.transfer_type() {
        TransferType::Linear => {
            assert!(!cipher, "cipher transfers use the state type");
            let beats = (0..cmd.len.count() as usize)
                .map(|m| beat(linear_addr(a0, m as u64, ds), m))
                .collect();
            Job {
                dir,
                beats,
                cipher: None,
            }
        }
        TransferType::Block => {
            assert!(!cipher, "cipher transfers use the state type");
            let (h, w) = (cmd.len.height() as usize, cmd.len.width() as usize);
            let mut beats = Vec::new();
            for m in 0..h {
                for n in 0..w {
                    beats.push(beat(block_addr(a0, m as u64, n as u64, gap, ds), m * w + n));
                }
            }
            Job {
                dir,
                beats,
                cipher: None,
            }
        }
        TransferType::State => {
            let states = cmd.len.count() as usize;
            let a0 = aligned_base(cmd.addr, 2);
            let state_mem = state_byte_map(a0, states, gap);
            let order = match (cmd.wr, cipher) {
                (true, _) => WordOrder::InvShiftRows,
                (false, false) => WordOrder::ShiftRows,
                (false, true) => WordOrder::Column,
            };
            let bps = width.beats_per_state();
            let mut beats = Vec::new();
            let mut units = Vec::new();
            for (k, sm) in state_mem.iter().enumerate() {
                let first = beats.len();
                for h in 0..bps {
                    let lanes = (0..bb)
                        .map(|l| {
                            let (c, r) = (h * (bb / 4) + l / 4, l % 4);
                            let i = word_source(order, c, r);
                            Some(Lane {
                                mem: sm[i],
                                payload: 16 * k + i,
                            })
                        })
                        .collect();
                    beats.push(lanes);
                }
                units.push(Unit {
                    beats: first..beats.len(),
                    states: vec![k],
                });
            }
            Job {
                dir,
                beats,
                cipher: cipher.then_some(CipherPlan {
                    prescheduled: true,
                    state_mem,
                    units,
                }),
            }
        }
    }
}

/// One master's transfer: its command, the job the D-DMA derives from it, and (for a
/// write) the payload the master drives.
#[derive(Debug, Clone)]
pub struct DbusTransfer {
    pub command: DbusCommand,
    pub job: Job,
    pub payload: Vec<u8>,
}

/// Per-run counters of a bus front-end (shared with [`super::axi`]).
#[derive(Debug, Clone, Default)]
pub struct BusRun {
    /// Cycles from the first request to the last cycle of the test, inclusive.
    pub cycles: u64,
    /// Address commands driven (DBUS commands, AXI AW + AR handshakes).
    pub commands: u64,
    /// Cycles spent in command phases / address handshakes.
    pub command_cycles: u64,
    /// Cycles a master held a write beat because the slave's ready was low.
    pub write_wait_cycles: u64,
    /// Cycles a master waited on read data after the read's command (no valid data).
    pub read_wait_cycles: u64,
    /// Payload bytes each master received (reads) — indexed like the transfers.
    pub received: Vec<Vec<u8>>,
    /// The read data beats each master saw on RDATA, in arrival order.
    pub rdata: Vec<Vec<Vec<u8>>>,
}

enum Phase {
    Request,
    Command { end: u64 },
    Data { next: usize, from: u64 },
    Done,
}

/// Runs DBUS transfers of masters 0, 1, … (0 has the highest priority), all requesting in
/// cycle 0, to completion, against `dma`. Cycle limit guards against a livelock.
pub fn run_dbus(cfg: &DbusConfig, dma: &mut Dma, transfers: Vec<DbusTransfer>) -> BusRun {
    let mut run = BusRun {
        received: transfers
            .iter()
            .map(|x| vec![0; x.job.payload_len()])
            .collect(),
        rdata: vec![Vec::new(); transfers.len()],
        ..BusRun::default()
    };
    let ids: Vec<usize> = transfers.iter().map(|x| dma.open(x.job.clone())).collect();
    let mut phase: Vec<Phase> = transfers.iter().map(|_| Phase::Request).collect();
    let mut bus_free_at = 0u64;
    let mut write_order: Vec<usize> = Vec::new();
    for t in 0..1_000_000u64 {
        dma.tick(t);
        // Arbiter: grant the highest-priority requester once the command bus is free.
        if t >= bus_free_at && t >= cfg.arbitration_cycles {
            if let Some(m) = phase.iter().position(|p| matches!(p, Phase::Request)) {
                let end = t + cfg.command_cycles;
                phase[m] = Phase::Command { end };
                bus_free_at = end + 1;
                run.commands += 1;
                run.command_cycles += cfg.command_cycles;
            }
        }
        // End of command phases: the D-DMA's command controller registers the command.
        for (m, p) in phase.iter_mut().enumerate() {
            if let Phase::Command { end } = *p {
                if end == t {
                    let n = transfers[m].job.beats.len();
                    dma.command(ids[m], 0..n, t);
                    *p = Phase::Data {
                        next: 0,
                        from: t + cfg.command_to_write_data,
                    };
                    if transfers[m].command.wr {
                        write_order.push(m);
                    }
                }
            }
        }
        // WDATA: the oldest write in its data phase drives its next beat.
        if let Some(&m) = write_order.first() {
            if let Phase::Data { next, from } = phase[m] {
                if t >= from {
                    if dma.write_ready(t) {
                        let bytes = transfers[m].job.beats[next]
                            .iter()
                            .map(|l| l.map_or(0, |l| transfers[m].payload[l.payload]))
                            .collect();
                        dma.push_write(ids[m], next, bytes, t);
                        let next = next + 1;
                        phase[m] = if next == transfers[m].job.beats.len() {
                            write_order.remove(0);
                            Phase::Done
                        } else {
                            Phase::Data { next, from }
                        };
                    } else {
                        run.write_wait_cycles += 1;
                    }
                }
            }
        }
        // RDATA: RESP[0] high means a valid read beat this cycle.
        if let Some((job, _)) = dma.read_valid(t) {
            let (_, b, bytes) = dma.take_read(t);
            let m = ids.iter().position(|&i| i == job).unwrap();
            run.rdata[m].push(bytes.clone());
            for (l, lane) in transfers[m].job.beats[b].iter().enumerate() {
                if let Some(lane) = lane {
                    run.received[m][lane.payload] = bytes[l];
                }
            }
            if let Phase::Data { next, from } = phase[m] {
                let next = next + 1;
                phase[m] = if next == transfers[m].job.beats.len() {
                    Phase::Done
                } else {
                    Phase::Data { next, from }
                };
            }
        } else if phase
            .iter()
            .zip(&transfers)
            .any(|(p, x)| !x.command.wr && matches!(p, Phase::Data { .. }))
        {
            run.read_wait_cycles += 1;
        }
        if phase.iter().all(|p| matches!(p, Phase::Done)) && dma.idle() {
            run.cycles = t + 1;
            return run;
        }
    }
    panic!("DBUS model did not finish within the cycle limit");
}
