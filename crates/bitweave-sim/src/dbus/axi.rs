//! AXI transactions as the paper's A-DMA sees them (section III.C, Fig. 5(a); AXI
//! specification, the paper's ref. \[2\]).
//!
//! Five channels: write address (AW), write data (W), write response (B), read address (AR)
//! and read data (R). Every burst needs its own address handshake; a burst is a run of
//! contiguous, incrementing addresses of at most `max_burst_len` beats that does not cross
//! a `boundary_bytes` boundary, so a new address command is needed at every non-contiguous
//! boundary (four per 4×4-byte state, Fig. 5(a)). AW and AR are separate channels: a write
//! and a read address can be accepted in the same cycle. A master may have up to
//! `max_outstanding` bursts in flight per direction.
//!
//! A state on AXI travels in memory layout: one beat per state row (4 bytes); on a 64-bit bus
//! a beat carries row r of two side-by-side states. The A-DMA must therefore buffer every row
//! of a state before the engine can start ([`super::dma`]).

use super::address::{block_addr, linear_addr, state_byte_map};
use super::bus::BusRun;
use super::dma::{CipherPlan, Dma, Job, Lane, Unit};
use super::{Dir, Width};

/// AXI cycle costs and burst rules.
#[derive(Debug, Clone)]
pub struct AxiConfig {
    /// Cycles before the first address handshake of a master (the A-DMA's priority arbiter,
    /// Fig. 6; the same one-cycle grant as DBUS's REQ/GNT).
    pub arbitration_cycles: u64,
    /// Cycles per address handshake; later addresses are pipelined back to back
    /// (Fig. 5(a): A0–A3 in consecutive cycles).
    pub address_cycles: u64,
    /// Cycles from a burst's AW handshake to its first W beat (the address is registered).
    pub address_to_write_data: u64,
    /// Cycles from a burst's last W beat to its B response.
    pub write_response_cycles: u64,
    /// Longest burst in beats (AXI3, the paper's ref. \[2\]: 16).
    pub max_burst_len: usize,
    /// A burst must not cross this boundary (AXI: 4 KiB).
    pub boundary_bytes: u64,
    /// Bursts a master may have in flight per direction. Not given by the paper; Fig. 5(a)
    /// issues addresses back to back, so the default (64) never limits the paper's tests.
    /// With encryption on the read path an AXI read burst returns only after the state is
    /// buffered and encrypted (~55 cycles), so a small limit starves the engine: the report
    /// shows 4 and 16.
    pub max_outstanding: usize,
}

impl Default for AxiConfig {
    fn default() -> Self {
        AxiConfig {
            arbitration_cycles: 1,
            address_cycles: 1,
            address_to_write_data: 1,
            write_response_cycles: 1,
            max_burst_len: 16,
            boundary_bytes: 4096,
            max_outstanding: 64,
        }
    }
}

/// One AXI burst: its start address and the transfer beats it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Burst {
    pub addr: u64,
    pub beats: std::ops::Range<usize>,
}

/// Splits a beat address sequence into INCR bursts: a new burst at every non-contiguous
/// address, every `max_len` beats, and at every `boundary` crossing.
pub fn bursts(addrs: &[u64], bus_bytes: u64, max_len: usize, boundary: u64) -> Vec<Burst> {
    let mut out: Vec<Burst> = Vec::new();
    for (j, &a) in addrs.iter().enumerate() {
        if let Some(last) = out.last_mut() {
            let n = last.beats.len();
            let contiguous = addrs[j - 1] + bus_bytes == a;
            let same_page = last.addr / boundary == (a + bus_bytes - 1) / boundary;
            if contiguous && n < max_len && same_page {
                last.beats.end = j + 1;
                continue;
            }
        }
        out.push(Burst {
            addr: a,
            beats: j..j + 1,
        });
    }
    out
}

/// A transfer on AXI: the job and the AXI address of each beat.
#[derive(Debug, Clone)]
pub struct AxiTransfer {
    pub dir: Dir,
    pub job: Job,
    pub beat_addrs: Vec<u64>,
    pub payload: Vec<u8>,
}

fn plain_beat(base: u64, e: usize, bb: usize) -> Vec<Option<Lane>> {
    (0..bb)
        .map(|l| {
            Some(Lane {
                mem: base + l as u64,
                payload: e * bb + l,
            })
        })
        .collect()
}

/// `count` contiguous beats from `addr`.
pub fn axi_linear(dir: Dir, addr: u64, count: usize, width: Width) -> (Job, Vec<u64>) {
    let bb = width.bytes();
    let addrs: Vec<u64> = (0..count as u64)
        .map(|m| linear_addr(addr, m, width.ds()))
        .collect();
    let beats = addrs
        .iter()
        .enumerate()
        .map(|(e, &a)| plain_beat(a, e, bb))
        .collect();
    (
        Job {
            dir,
            beats,
            cipher: None,
        },
        addrs,
    )
}

/// `height` rows of `width_beats` beats, rows `gap` bytes apart.
pub fn axi_block(
    dir: Dir,
    addr: u64,
    height: usize,
    width_beats: usize,
    gap: u64,
    width: Width,
) -> (Job, Vec<u64>) {
    let bb = width.bytes();
    let mut addrs = Vec::new();
    for m in 0..height as u64 {
        for n in 0..width_beats as u64 {
            addrs.push(block_addr(addr, m, n, gap, width.ds()));
        }
    }
    let beats = addrs
        .iter()
        .enumerate()
        .map(|(e, &a)| plain_beat(a, e, bb))
        .collect();
    (
        Job {
            dir,
            beats,
            cipher: None,
        },
        addrs,
    )
}

/// `states` AES states in the eq. (4) layout, moved row by row; on a 64-bit bus two states
/// that share an aligned double word are moved together (a unit), otherwise a state goes
/// alone with half-empty (WSTRB-masked) beats.
pub fn axi_states(
    dir: Dir,
    addr: u64,
    states: usize,
    gap: u64,
    width: Width,
    cipher: bool,
) -> (Job, Vec<u64>) {
    let bb = width.bytes() as u64;
    let state_mem = state_byte_map(addr, states, gap);
    let mut units: Vec<Vec<usize>> = Vec::new();
    let mut k = 0;
    while k < states {
        let pairable = bb == 8
            && k + 1 < states
            && state_mem[k][0].is_multiple_of(8)
            && state_mem[k + 1][0] == state_mem[k][0] + 4;
        if pairable {
            units.push(vec![k, k + 1]);
            k += 2;
        } else {
            units.push(vec![k]);
            k += 1;
        }
    }
    let mut beats = Vec::new();
    let mut addrs = Vec::new();
    let mut plan_units = Vec::new();
    for unit in units {
        let first = beats.len();
        for r in 0..4 {
            let base = state_mem[unit[0]][r] / bb * bb;
            let mut lanes = vec![None; bb as usize];
            for &s in &unit {
                for c in 0..4 {
                    let i = r + 4 * c;
                    let a = state_mem[s][i];
                    lanes[(a - base) as usize] = Some(Lane {
                        mem: a,
                        payload: 16 * s + i,
                    });
                }
            }
            beats.push(lanes);
            addrs.push(base);
        }
        plan_units.push(Unit {
            beats: first..beats.len(),
            states: unit,
        });
    }
    (
        Job {
            dir,
            beats,
            cipher: cipher.then_some(CipherPlan {
                prescheduled: false,
                state_mem,
                units: plan_units,
            }),
        },
        addrs,
    )
}

struct Master {
    id: usize,
    bursts: Vec<Burst>,
    next_addr: usize,
    addr_done: Vec<Option<u64>>,
    /// Bursts whose response (B, or the last R beat) is back.
    closed: Vec<bool>,
    b_due: Vec<(u64, usize)>,
    next_beat: usize,
    received: usize,
}

impl Master {
    fn outstanding(&self) -> usize {
        self.addr_done
            .iter()
            .zip(&self.closed)
            .filter(|(a, c)| a.is_some() && !**c)
            .count()
    }
    fn burst_of(&self, beat: usize) -> usize {
        self.bursts
            .iter()
            .position(|b| b.beats.contains(&beat))
            .unwrap()
    }
}

/// Runs AXI transfers of masters 0, 1, … (writes on AW/W/B, reads on AR/R), all starting in
/// cycle 0, to completion against `dma`.
pub fn run_axi(
    cfg: &AxiConfig,
    dma: &mut Dma,
    width: Width,
    transfers: Vec<AxiTransfer>,
) -> BusRun {
    let bb = width.bytes() as u64;
    let mut run = BusRun {
        received: transfers
            .iter()
            .map(|x| vec![0; x.job.payload_len()])
            .collect(),
        rdata: vec![Vec::new(); transfers.len()],
        ..BusRun::default()
    };
    let mut masters: Vec<Master> = transfers
        .iter()
        .map(|x| {
            let bursts = bursts(&x.beat_addrs, bb, cfg.max_burst_len, cfg.boundary_bytes);
            let n = bursts.len();
            Master {
                id: dma.open(x.job.clone()),
                bursts,
                next_addr: 0,
                addr_done: vec![None; n],
                closed: vec![false; n],
                b_due: Vec::new(),
                next_beat: 0,
                received: 0,
            }
        })
        .collect();
    let mut channel_free_at = [cfg.arbitration_cycles; 2]; // [AW, AR]
    for t in 0..1_000_000u64 {
        dma.tick(t);
        // Address channels, in priority order (a write before a read in the same cycle).
        for (m, x) in masters.iter_mut().zip(&transfers) {
            let ch = usize::from(x.dir == Dir::Read);
            if x.job.beats.is_empty() || t < channel_free_at[ch] {
                continue;
            }
            if x_has_addr(m) && m.outstanding() < cfg.max_outstanding {
                let b = m.next_addr;
                let end = t + cfg.address_cycles - 1;
                m.addr_done[b] = Some(end);
                dma.command(m.id, m.bursts[b].beats.clone(), end);
                m.next_addr += 1;
                channel_free_at[ch] = end + 1;
                run.commands += 1;
                run.command_cycles += cfg.address_cycles;
            }
        }
        // B responses.
        for m in masters.iter_mut() {
            let due: Vec<usize> = m
                .b_due
                .iter()
                .filter(|(at, _)| *at <= t)
                .map(|(_, b)| *b)
                .collect();
            m.b_due.retain(|(at, _)| *at > t);
            for b in due {
                m.closed[b] = true;
            }
        }
        // W channel: the write master drives its next beat once its burst's address is in.
        for (mi, x) in transfers.iter().enumerate() {
            if x.dir != Dir::Write {
                continue;
            }
            let m = &mut masters[mi];
            if m.next_beat >= x.job.beats.len() {
                continue;
            }
            let b = m.burst_of(m.next_beat);
            let Some(at) = m.addr_done[b] else { continue };
            if t < at + cfg.address_to_write_data {
                continue;
            }
            if dma.write_ready(t) {
                let bytes = x.job.beats[m.next_beat]
                    .iter()
                    .map(|l| l.map_or(0, |l| x.payload[l.payload]))
                    .collect();
                dma.push_write(m.id, m.next_beat, bytes, t);
                if m.next_beat + 1 == m.bursts[b].beats.end {
                    m.b_due.push((t + cfg.write_response_cycles, b));
                }
                m.next_beat += 1;
            } else {
                run.write_wait_cycles += 1;
            }
            break; // one W channel
        }
        // R channel.
        if let Some((job, _)) = dma.read_valid(t) {
            let (_, beat, bytes) = dma.take_read(t);
            let mi = masters.iter().position(|m| m.id == job).unwrap();
            run.rdata[mi].push(bytes.clone());
            for (l, lane) in transfers[mi].job.beats[beat].iter().enumerate() {
                if let Some(lane) = lane {
                    run.received[mi][lane.payload] = bytes[l];
                }
            }
            let m = &mut masters[mi];
            m.received += 1;
            let b = m.burst_of(beat);
            if beat + 1 == m.bursts[b].beats.end {
                m.closed[b] = true;
            }
        } else if masters.iter().zip(&transfers).any(|(m, x)| {
            x.dir == Dir::Read && m.addr_done[0].is_some() && !m.closed.iter().all(|&c| c)
        }) {
            run.read_wait_cycles += 1;
        }
        if masters.iter().all(|m| m.closed.iter().all(|&c| c)) && dma.idle() {
            run.cycles = t + 1;
            return run;
        }
    }
    panic!("AXI model did not finish within the cycle limit");
}

fn x_has_addr(m: &Master) -> bool {
    m.next_addr < m.bursts.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_split_at_gaps_length_and_4k() {
        let a: Vec<u64> = (0..40).map(|i| 0x1000 + 4 * i).collect();
        let b = bursts(&a, 4, 16, 4096);
        assert_eq!(b.len(), 3);
        assert_eq!(b[2].beats, 32..40);
        let rows: Vec<u64> = (0..4).map(|r| 0x3000 + 32 * r).collect();
        assert_eq!(bursts(&rows, 4, 16, 4096).len(), 4);
        let cross: Vec<u64> = (0..4).map(|i| 0xff8 + 4 * i).collect();
        assert_eq!(bursts(&cross, 4, 16, 4096).len(), 2);
    }
}
