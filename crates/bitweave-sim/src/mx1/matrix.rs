//! The massive-parallel SIMD matrix (section 2, Fig. 1): `pes` two-bit PEs, each attached to
//! its own row of SRAM; the H-channel (SRAM ↔ PE, a read-modify-write of 2 reads + 1 write
//! per cycle) and the V-channel (PE ↔ PE at power-of-two distances in one cycle).
//!
//! # Data
//!
//! The interleaved-bitslice format of section 3.2.2: PE `j` holds block `j` of a batch in
//! its SRAM row, one bit per bit address. A bit address therefore names one bit of *every*
//! PE at once — a plane of the library's bitslice engine — and [`Bit`], the model's lane
//! type, is exactly that: an SRAM bit pointer (the `ap`/`bp` of `mx_xor`, section 4.3).
//! [`Bit`] implements the library's [`Logic`], so the library's generic circuits run on the
//! matrix: every gate really computes all PEs' bits and is charged by the library of
//! [`super::library`].
//!
//! The matrix lives in a thread-local ([`session`] installs it, runs a closure, returns the
//! cycle counters), like the library's gate tracer, because `Logic` values must be `Copy`.
//! Results are written to fresh bit addresses (3-address H-channel operations); SRAM
//! capacity is not enforced (see the report notes).

use std::cell::RefCell;

use bitweave::hazmat::slice::Logic;

pub use super::config::{Fault, MatrixConfig};
use super::library::{Library, Op};

/// Cycle and call counters of a session, with cycles split by phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    /// MX-core cycles spent in PE operations (H- and V-channel).
    pub cycles: u64,
    /// Library calls issued (a fused multi-bit call counts once).
    pub calls: u64,
    /// 1-bit operations executed (a fused n-bit call counts n).
    pub bit_ops: u64,
    /// Cycles per phase name, in first-use order.
    pub by_phase: Vec<(&'static str, u64)>,
}

impl Counters {
    /// Cycles charged to `phase` (0 if none).
    pub fn phase(&self, phase: &str) -> u64 {
        self.by_phase
            .iter()
            .find(|(p, _)| *p == phase)
            .map_or(0, |(_, c)| *c)
    }

    fn add(&mut self, phase: &'static str, cycles: u64) {
        self.cycles += cycles;
        match self.by_phase.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, c)) => *c += cycles,
            None => self.by_phase.push((phase, cycles)),
        }
    }
}

/// An SRAM bit address (the same address in every PE's row): one plane of the batch.
/// Constants (broadcast key bits) live in a separate immediate area, marked by the top bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bit(pub u32);

const CONST_FLAG: u32 = 1 << 31;

/// The phase name of cipher work ([`phase`]).
pub const CIPHER_PHASE: &str = "cipher";
/// Where operations of [`CIPHER_PHASE`] with a constant (round-key bit) operand go.
pub const KEY_PHASE: &str = "cipher-key";

/// A pending multi-bit run: `len` XORs at consecutive addresses `a0.., b0.. -> d0..`.
#[derive(Debug, Clone, Copy)]
struct Run {
    a0: u32,
    b0: u32,
    d0: u32,
    len: u64,
    phase: &'static str,
}

struct State {
    cfg: MatrixConfig,
    lib: Library,
    words: usize,
    data: Vec<u64>,
    consts: Vec<u64>,
    phase: &'static str,
    pending: Option<Run>,
    counters: Counters,
    /// PE operations executed so far (for [`MatrixConfig::fault`]).
    executed: u64,
    /// Per data address: holds a gate's result not yet laid out elsewhere ([`Bit::settle`]).
    gate_made: Vec<bool>,
}

thread_local! {
    static MATRIX: RefCell<Option<State>> = const { RefCell::new(None) };
}

fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    MATRIX.with(|m| {
        let mut m = m.borrow_mut();
        f(m.as_mut().expect("no MX-1 matrix session on this thread"))
    })
}

/// Runs `f` on a fresh matrix of `cfg.pes` PEs whose operations are charged by `lib`;
/// returns `f`'s result and the counters.
pub fn session<R>(cfg: &MatrixConfig, lib: Library, f: impl FnOnce() -> R) -> (R, Counters) {
    assert!(
        cfg.pes > 0 && cfg.pes.is_multiple_of(64),
        "PEs in multiples of 64"
    );
    MATRIX.with(|m| {
        let mut m = m.borrow_mut();
        assert!(m.is_none(), "nested MX-1 sessions");
        *m = Some(State {
            cfg: cfg.clone(),
            lib,
            words: cfg.pes / 64,
            data: Vec::new(),
            consts: Vec::new(),
            phase: "other",
            pending: None,
            counters: Counters::default(),
            executed: 0,
            gate_made: Vec::new(),
        });
    });
    let r = f();
    let counters = MATRIX.with(|m| {
        let mut st = m.borrow_mut().take().expect("session state");
        st.flush();
        st.counters
    });
    (r, counters)
}

/// Names the phase subsequent operations are charged to (flushes a pending multi-bit run).
pub fn phase(name: &'static str) {
    with(|s| {
        s.flush();
        s.phase = name;
    })
}

/// A snapshot of the counters so far (flushes a pending run first).
pub fn counters() -> Counters {
    with(|s| {
        s.flush();
        s.counters.clone()
    })
}

/// Writes rows into fresh consecutive bit addresses (the DMA's work, charged by the system
/// model, not here). Each row has `pes / 64` words; bit `j` of the row is PE `j`'s bit.
pub fn write_rows(rows: &[Vec<u64>]) -> Vec<Bit> {
    with(|s| {
        rows.iter()
            .map(|r| {
                assert_eq!(r.len(), s.words);
                let a = s.alloc();
                let w = s.words;
                s.data[a as usize * w..(a as usize + 1) * w].copy_from_slice(r);
                Bit(a)
            })
            .collect()
    })
}

/// Reads the row at `b` (every PE's bit).
pub fn read_row(b: Bit) -> Vec<u64> {
    with(|s| s.row(b.0).to_vec())
}

/// PEs in the session.
pub fn pes() -> usize {
    with(|s| s.cfg.pes)
}

/// V-channel transfer: PE `j` receives PE `j - dist`'s bit (PEs below `dist` receive 0);
/// `dist` must be a power of two. One library call.
pub fn vshift(b: Bit, dist: usize) -> Bit {
    assert!(dist.is_power_of_two(), "the V-channel spans powers of two");
    with(|s| {
        s.flush();
        let src = s.row(b.0).to_vec();
        let mut out = vec![0u64; s.words];
        for j in dist..s.cfg.pes {
            let k = j - dist;
            out[j / 64] |= ((src[k / 64] >> (k % 64)) & 1) << (j % 64);
        }
        let d = s.alloc();
        let w = s.words;
        s.data[d as usize * w..(d as usize + 1) * w].copy_from_slice(&out);
        let c = s.cfg.call_cycles;
        let ph = s.phase;
        s.counters.add(ph, c);
        s.counters.calls += 1;
        s.counters.bit_ops += 1;
        Bit(d)
    })
}

impl State {
    fn alloc(&mut self) -> u32 {
        let a = self.data.len() / self.words;
        assert!(a < CONST_FLAG as usize, "SRAM address space exhausted");
        self.data.resize(self.data.len() + self.words, 0);
        self.gate_made.push(false);
        a as u32
    }

    fn row(&self, a: u32) -> &[u64] {
        let w = self.words;
        if a & CONST_FLAG != 0 {
            let i = (a & !CONST_FLAG) as usize;
            &self.consts[i * w..(i + 1) * w]
        } else {
            &self.data[a as usize * w..(a as usize + 1) * w]
        }
    }

    fn constant(&mut self, x: u64) -> Bit {
        let i = self.consts.len() / self.words;
        self.consts.extend(std::iter::repeat_n(x, self.words));
        Bit(CONST_FLAG | i as u32)
    }

    /// Executes `op` on every PE and charges it.
    fn exec(&mut self, op: Op, a: u32, b: u32) -> Bit {
        let mut out: Vec<u64> = {
            let (ra, rb) = (self.row(a), self.row(b));
            ra.iter()
                .zip(rb)
                .map(|(&x, &y)| match op {
                    Op::Xor => x ^ y,
                    Op::And => x & y,
                    Op::Or => x | y,
                    Op::AndNot => !x & y,
                    Op::Not => !x,
                })
                .collect()
        };
        if let Some(f) = self.cfg.fault.filter(|f| f.op == self.executed) {
            out[f.pe / 64] ^= 1 << (f.pe % 64);
        }
        self.executed += 1;
        let d = self.alloc();
        let w = self.words;
        self.data[d as usize * w..(d as usize + 1) * w].copy_from_slice(&out);
        self.gate_made[d as usize] = true;
        // Inside the cipher, an operation with a broadcast-constant operand is a round-key
        // addition: charged to its own phase so the report can split the transformations.
        let saved = self.phase;
        if self.phase == CIPHER_PHASE && (a | b) & CONST_FLAG != 0 {
            self.phase = KEY_PHASE;
        }
        self.charge(op, a, b, d);
        self.phase = saved;
        Bit(d)
    }

    fn charge(&mut self, op: Op, a: u32, b: u32, d: u32) {
        self.counters.bit_ops += 1;
        if self.lib.fuses(op) {
            // Commutative: keep a constant operand second so key runs line up.
            let (a, b) = if a & CONST_FLAG != 0 && b & CONST_FLAG == 0 {
                (b, a)
            } else {
                (a, b)
            };
            if let Some(r) = self.pending.as_mut() {
                let n = r.len as u32;
                if r.phase == self.phase
                    && a == r.a0.wrapping_add(n)
                    && b == r.b0.wrapping_add(n)
                    && d == r.d0.wrapping_add(n)
                {
                    r.len += 1;
                    return;
                }
            }
            self.flush();
            self.pending = Some(Run {
                a0: a,
                b0: b,
                d0: d,
                len: 1,
                phase: self.phase,
            });
        } else {
            self.flush();
            let c = self.lib.cycles(&self.cfg, op, 1);
            let ph = self.phase;
            self.counters.add(ph, c);
            self.counters.calls += 1;
        }
    }

    fn flush(&mut self) {
        if let Some(r) = self.pending.take() {
            let c = self.lib.cycles(&self.cfg, Op::Xor, r.len);
            self.counters.add(r.phase, c);
            // The cheaper of one n-bit call and n 1-bit calls (eq. 2 vs eq. 1).
            self.counters.calls += if c == self.cfg.call_cycles * r.len {
                r.len
            } else {
                1
            };
        }
    }
}

impl Logic for Bit {
    /// Lays `planes` out at consecutive fresh addresses, uncharged: the gates that made
    /// them write there (a program chooses every output pointer), so an XOR of the whole
    /// state with the round key is one `mx_xor_h` run, as the paper's library would issue
    /// it. Constants stay where they are.
    /// Panics (a model error) if a plane was not made by a gate, or comes twice: placing
    /// those would take a copy the model does not charge.
    fn settle(planes: &mut [Self]) {
        with(|s| {
            s.flush();
            for p in planes.iter_mut().filter(|p| p.0 & CONST_FLAG == 0) {
                let made = &mut s.gate_made[p.0 as usize];
                assert!(*made, "only a gate's fresh result can be laid out for free");
                *made = false;
                let row = s.row(p.0).to_vec();
                let d = s.alloc();
                let w = s.words;
                s.data[d as usize * w..(d as usize + 1) * w].copy_from_slice(&row);
                s.gate_made[d as usize] = true;
                *p = Bit(d);
            }
        })
    }
    fn splat(x: u64) -> Self {
        with(|s| s.constant(x))
    }
    fn xor(self, o: Self) -> Self {
        with(|s| s.exec(Op::Xor, self.0, o.0))
    }
    fn and(self, o: Self) -> Self {
        with(|s| s.exec(Op::And, self.0, o.0))
    }
    fn or(self, o: Self) -> Self {
        with(|s| s.exec(Op::Or, self.0, o.0))
    }
    fn andnot(self, o: Self) -> Self {
        if with(|s| s.cfg.andnot_native) {
            with(|s| s.exec(Op::AndNot, self.0, o.0))
        } else {
            self.not().and(o)
        }
    }
    fn not(self) -> Self {
        with(|s| s.exec(Op::Not, self.0, self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pes: usize, f: impl Fn(usize) -> bool) -> Vec<u64> {
        let mut r = vec![0u64; pes / 64];
        for j in 0..pes {
            r[j / 64] |= (f(j) as u64) << (j % 64);
        }
        r
    }

    #[test]
    fn ops_compute_per_pe_and_charge_eq1() {
        let cfg = MatrixConfig::default();
        let ((x, n), c) = session(&cfg, Library::OneBit, || {
            let v = write_rows(&[row(1024, |j| j % 3 == 0), row(1024, |j| j % 5 == 0)]);
            let x = v[0].xor(v[1]);
            let n = v[0].andnot(v[1]);
            (read_row(x), read_row(n))
        });
        assert_eq!(x, row(1024, |j| (j % 3 == 0) ^ (j % 5 == 0)));
        assert_eq!(n, row(1024, |j| j % 3 != 0 && j % 5 == 0));
        // XOR, then INV + AND: three 1-bit calls of C1 + C2 + C3.
        assert_eq!(c.cycles, 3 * cfg.call_cycles);
        assert_eq!(c.calls, 3);
    }

    #[test]
    fn vchannel_moves_bits_power_of_two_rows() {
        let cfg = MatrixConfig::default();
        let (r, c) = session(&cfg, Library::OneBit, || {
            let v = write_rows(&[row(1024, |j| j == 5)]);
            read_row(vshift(v[0], 256))
        });
        assert_eq!(r, row(1024, |j| j == 261));
        assert_eq!(c.cycles, cfg.call_cycles);
    }
}
