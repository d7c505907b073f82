//! The SPU: 128 registers of 128 bits shared by scalar and vector code (paper §2.1), the
//! subset of its instruction set the SEED program needs, executed on real data, and its
//! issue timing: in order, from doubleword-aligned fetch pairs; the pair issues in one cycle
//! when the first is an even-pipe and the second an odd-pipe instruction and both have their
//! operands (IBM Cell BE SDK 3.0 programmer's guide, "Pipelines and dual-issue rules").
//! Latencies by class come from [`SpuTiming`].

use super::config::SpuTiming;
use super::local_store::LocalStore;
use super::sched::Mem;

/// A register number (virtual before allocation, physical 0..128 after).
pub type Reg = u16;

/// The SPU's two pipelines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    Even,
    Odd,
}

/// The instructions used. Word operations act on the four 32-bit slots; scalars live in
/// the preferred slot (bytes 0..3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpuOp {
    /// Load quadword at (ra + imm) & !15.
    Lqd {
        rt: Reg,
        ra: Reg,
        imm: i32,
    },
    /// Load quadword at (ra + rb) & !15.
    Lqx {
        rt: Reg,
        ra: Reg,
        rb: Reg,
    },
    /// Store quadword at (ra + imm) & !15.
    Stqd {
        rt: Reg,
        ra: Reg,
        imm: i32,
    },
    /// Rotate the quadword left by (rb & 15) bytes.
    Rotqby {
        rt: Reg,
        ra: Reg,
        rb: Reg,
    },
    /// Rotate the quadword left by imm bytes.
    Rotqbyi {
        rt: Reg,
        ra: Reg,
        imm: u8,
    },
    /// Byte shuffle of ra ‖ rb by the selectors in rc.
    Shufb {
        rt: Reg,
        ra: Reg,
        rb: Reg,
        rc: Reg,
    },
    /// Shift each word left by n.
    Shli {
        rt: Reg,
        ra: Reg,
        n: u8,
    },
    /// Shift each word right (logical) by n (`rotmi` with count -n).
    Rotmi {
        rt: Reg,
        ra: Reg,
        n: u8,
    },
    And {
        rt: Reg,
        ra: Reg,
        rb: Reg,
    },
    Xor {
        rt: Reg,
        ra: Reg,
        rb: Reg,
    },
    /// Add words.
    A {
        rt: Reg,
        ra: Reg,
        rb: Reg,
    },
    /// Add immediate to words.
    Ai {
        rt: Reg,
        ra: Reg,
        imm: i32,
    },
    /// Immediate load into every word.
    Il {
        rt: Reg,
        imm: i32,
    },
    /// Branch if the preferred word is non-zero (the loop branch, hinted).
    Brnz {
        rt: Reg,
    },
    /// Even-pipe no-op (fills the even slot of a fetch pair).
    Nop,
    /// Odd-pipe no-op.
    Lnop,
}

impl SpuOp {
    pub fn pipe(&self) -> Pipe {
        use SpuOp::*;
        match self {
            Lqd { .. }
            | Lqx { .. }
            | Stqd { .. }
            | Rotqby { .. }
            | Rotqbyi { .. }
            | Shufb { .. }
            | Brnz { .. }
            | Lnop => Pipe::Odd,
            _ => Pipe::Even,
        }
    }

    pub fn latency(&self, t: &SpuTiming) -> u32 {
        use SpuOp::*;
        match self {
            Lqd { .. } | Lqx { .. } | Stqd { .. } => t.load_store,
            Rotqby { .. } | Rotqbyi { .. } | Shufb { .. } => t.shuffle,
            Shli { .. } | Rotmi { .. } => t.word_shift,
            Brnz { .. } => t.branch,
            Nop | Lnop => 0,
            _ => t.fixed,
        }
    }

    pub fn is_nop(&self) -> bool {
        matches!(self, SpuOp::Nop | SpuOp::Lnop)
    }

    pub fn mem(&self) -> Mem {
        match self {
            SpuOp::Lqd { .. } | SpuOp::Lqx { .. } => Mem::Load,
            SpuOp::Stqd { .. } => Mem::Store,
            _ => Mem::None,
        }
    }

    pub fn uses(&self) -> Vec<Reg> {
        use SpuOp::*;
        match *self {
            Lqd { ra, .. }
            | Rotqbyi { ra, .. }
            | Shli { ra, .. }
            | Rotmi { ra, .. }
            | Ai { ra, .. } => vec![ra],
            Lqx { ra, rb, .. }
            | Rotqby { ra, rb, .. }
            | And { ra, rb, .. }
            | Xor { ra, rb, .. }
            | A { ra, rb, .. } => vec![ra, rb],
            Stqd { rt, ra, .. } => vec![rt, ra],
            Shufb { ra, rb, rc, .. } => vec![ra, rb, rc],
            Brnz { rt } => vec![rt],
            Il { .. } | Nop | Lnop => vec![],
        }
    }

    pub fn defs(&self) -> Vec<Reg> {
        use SpuOp::*;
        match *self {
            Stqd { .. } | Brnz { .. } | Nop | Lnop => vec![],
            Lqd { rt, .. }
            | Lqx { rt, .. }
            | Rotqby { rt, .. }
            | Rotqbyi { rt, .. }
            | Shufb { rt, .. }
            | Shli { rt, .. }
            | Rotmi { rt, .. }
            | And { rt, .. }
            | Xor { rt, .. }
            | A { rt, .. }
            | Ai { rt, .. }
            | Il { rt, .. } => vec![rt],
        }
    }

    /// The same instruction with every register renamed by `f`.
    pub fn map(&self, f: impl Fn(Reg) -> Reg) -> SpuOp {
        use SpuOp::*;
        match *self {
            Lqd { rt, ra, imm } => Lqd {
                rt: f(rt),
                ra: f(ra),
                imm,
            },
            Lqx { rt, ra, rb } => Lqx {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
            },
            Stqd { rt, ra, imm } => Stqd {
                rt: f(rt),
                ra: f(ra),
                imm,
            },
            Rotqby { rt, ra, rb } => Rotqby {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
            },
            Rotqbyi { rt, ra, imm } => Rotqbyi {
                rt: f(rt),
                ra: f(ra),
                imm,
            },
            Shufb { rt, ra, rb, rc } => Shufb {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
                rc: f(rc),
            },
            Shli { rt, ra, n } => Shli {
                rt: f(rt),
                ra: f(ra),
                n,
            },
            Rotmi { rt, ra, n } => Rotmi {
                rt: f(rt),
                ra: f(ra),
                n,
            },
            And { rt, ra, rb } => And {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
            },
            Xor { rt, ra, rb } => Xor {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
            },
            A { rt, ra, rb } => A {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
            },
            Ai { rt, ra, imm } => Ai {
                rt: f(rt),
                ra: f(ra),
                imm,
            },
            Il { rt, imm } => Il { rt: f(rt), imm },
            Brnz { rt } => Brnz { rt: f(rt) },
            Nop => Nop,
            Lnop => Lnop,
        }
    }
}

fn words(q: &[u8; 16]) -> [u32; 4] {
    std::array::from_fn(|i| u32::from_be_bytes(q[4 * i..4 * i + 4].try_into().unwrap()))
}

fn from_words(w: [u32; 4]) -> [u8; 16] {
    let mut q = [0u8; 16];
    for i in 0..4 {
        q[4 * i..4 * i + 4].copy_from_slice(&w[i].to_be_bytes());
    }
    q
}

fn wordwise(a: &[u8; 16], b: &[u8; 16], f: impl Fn(u32, u32) -> u32) -> [u8; 16] {
    let (x, y) = (words(a), words(b));
    from_words(std::array::from_fn(|i| f(x[i], y[i])))
}

/// Issue statistics of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpuStats {
    /// Real instructions issued (no-ops excluded).
    pub instructions: u64,
    /// Cycles in which a fetch pair issued together.
    pub dual_issues: u64,
}

/// One SPU: registers, the time each register's value is ready, the next issue cycle.
#[derive(Debug, Clone)]
pub struct Spu {
    pub regs: Vec<[u8; 16]>,
    ready: Vec<u64>,
    /// The cycle the next fetch pair can issue in.
    pub cycle: u64,
    pub stats: SpuStats,
    timing: SpuTiming,
}

impl Spu {
    pub fn new(registers: usize, timing: SpuTiming) -> Self {
        Spu {
            regs: vec![[0; 16]; registers],
            ready: vec![0; registers],
            cycle: 0,
            stats: SpuStats::default(),
            timing,
        }
    }

    /// Executes one instruction on the registers and the local store.
    fn exec(&mut self, op: &SpuOp, ls: &mut LocalStore) {
        use SpuOp::*;
        let r = |s: &Self, x: Reg| s.regs[x as usize];
        let pref = |s: &Self, x: Reg| words(&s.regs[x as usize])[0];
        let v = match *op {
            Lqd { ra, imm, .. } => ls.qword(pref(self, ra).wrapping_add(imm as u32)),
            Lqx { ra, rb, .. } => ls.qword(pref(self, ra).wrapping_add(pref(self, rb))),
            Stqd { rt, ra, imm } => {
                ls.set_qword(pref(self, ra).wrapping_add(imm as u32), r(self, rt));
                return;
            }
            Rotqby { ra, rb, .. } => {
                let mut q = r(self, ra);
                q.rotate_left((pref(self, rb) & 15) as usize);
                q
            }
            Rotqbyi { ra, imm, .. } => {
                let mut q = r(self, ra);
                q.rotate_left((imm & 15) as usize);
                q
            }
            Shufb { ra, rb, rc, .. } => {
                let (a, b, c) = (r(self, ra), r(self, rb), r(self, rc));
                std::array::from_fn(|i| match c[i] {
                    s if s & 0xc0 == 0x80 => 0x00,
                    s if s & 0xe0 == 0xc0 => 0xff,
                    s if s & 0xe0 == 0xe0 => 0x80,
                    s if s & 0x10 == 0 => a[(s & 15) as usize],
                    s => b[(s & 15) as usize],
                })
            }
            Shli { ra, n, .. } => wordwise(&r(self, ra), &[0; 16], |x, _| x << n),
            Rotmi { ra, n, .. } => wordwise(&r(self, ra), &[0; 16], |x, _| x >> n),
            And { ra, rb, .. } => wordwise(&r(self, ra), &r(self, rb), |x, y| x & y),
            Xor { ra, rb, .. } => wordwise(&r(self, ra), &r(self, rb), |x, y| x ^ y),
            A { ra, rb, .. } => wordwise(&r(self, ra), &r(self, rb), u32::wrapping_add),
            Ai { ra, imm, .. } => {
                wordwise(&r(self, ra), &[0; 16], |x, _| x.wrapping_add(imm as u32))
            }
            Il { imm, .. } => from_words([imm as u32; 4]),
            Brnz { .. } | Nop | Lnop => return,
        };
        let rt = op.defs()[0];
        self.regs[rt as usize] = v;
    }

    fn operands_ready(&self, op: &SpuOp) -> u64 {
        op.uses()
            .iter()
            .map(|&u| self.ready[u as usize])
            .max()
            .unwrap_or(0)
    }

    fn issue(&mut self, op: &SpuOp, at: u64, ls: &mut LocalStore) {
        self.exec(op, ls);
        let lat = op.latency(&self.timing) as u64;
        for d in op.defs() {
            self.ready[d as usize] = at + lat;
        }
        if !op.is_nop() {
            self.stats.instructions += 1;
        }
    }

    /// Runs straight-line code (an even number of instructions, pairs at even/odd word
    /// addresses) once, on data, advancing the clock. Returns the cycles it took.
    pub fn run(&mut self, code: &[SpuOp], ls: &mut LocalStore) -> u64 {
        let start = self.cycle;
        for pair in code.chunks(2) {
            let a = &pair[0];
            let b = pair.get(1).unwrap_or(&SpuOp::Lnop);
            let ta = self.cycle.max(self.operands_ready(a));
            let rb = self.operands_ready(b);
            if a.pipe() == Pipe::Even && b.pipe() == Pipe::Odd && rb <= ta {
                self.issue(a, ta, ls);
                self.issue(b, ta, ls);
                if !a.is_nop() && !b.is_nop() {
                    self.stats.dual_issues += 1;
                }
                self.cycle = ta + 1;
            } else {
                self.issue(a, ta, ls);
                let tb = (ta + 1).max(rb);
                self.issue(b, tb, ls);
                self.cycle = tb + 1;
            }
        }
        self.cycle - start
    }

    /// Lets every result in flight land (the SPU idles while it waits for a DMA).
    pub fn drain(&mut self) {
        self.cycle = self.ready.iter().copied().fold(self.cycle, u64::max);
    }

    /// The preferred word of a register.
    pub fn preferred(&self, r: Reg) -> u32 {
        words(&self.regs[r as usize])[0]
    }
}
