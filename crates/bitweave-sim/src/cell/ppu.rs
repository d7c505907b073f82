//! The PPU, the PPE's core: 32 general-purpose registers and 32 VMX registers per thread
//! (paper §2.1), the PowerPC and VMX instructions the SEED programs use, executed on real
//! data in main memory, and the issue model of a dual-threaded, dual-issue, in-order core
//! (paper §2.1): each cycle one thread dispatches up to two instructions in program order,
//! at most one per unit (FXU, LSU, VMX simple, VMX permute, branch; GCC's `cell.md` dual-issue
//! table); the threads take turns, and a thread whose next instruction is not ready leaves
//! the cycle to the other. A load of bytes a store is still writing waits for the
//! load-hit-store penalty. Data loads are assumed to hit the L1 cache (the 4 KB of tables
//! and the keys stay resident; the streamed data are prefetched into L2 and not modelled).

use super::config::PpuTiming;
use super::sched::Mem;

/// Registers: 0..32 are GPRs, 32..64 VMX registers (virtual ids above 64 before allocation).
pub type Reg = u16;
/// First VMX register number.
pub const VR: Reg = 32;

/// The PPU's execution units, one instruction each per cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Fxu = 0,
    Lsu = 1,
    VecSimple = 2,
    VecPerm = 3,
    Branch = 4,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PpuOp {
    Lwz {
        rt: Reg,
        ra: Reg,
        d: i32,
    },
    Lwzx {
        rt: Reg,
        ra: Reg,
        rb: Reg,
    },
    Stw {
        rs: Reg,
        ra: Reg,
        d: i32,
    },
    /// Rotate left by `sh`, AND with `mask`.
    Rlwinm {
        rt: Reg,
        rs: Reg,
        sh: u8,
        mask: u32,
    },
    Xor {
        rt: Reg,
        ra: Reg,
        rb: Reg,
    },
    Add {
        rt: Reg,
        ra: Reg,
        rb: Reg,
    },
    Addi {
        rt: Reg,
        ra: Reg,
        imm: i32,
    },
    /// `lvx vt, ra, rb` with rb a loop-invariant offset register (its value is `d`).
    Lvx {
        vt: Reg,
        ra: Reg,
        d: i32,
    },
    /// `stvx vs, ra, rb`, likewise.
    Stvx {
        vs: Reg,
        ra: Reg,
        d: i32,
    },
    Vxor {
        vt: Reg,
        va: Reg,
        vb: Reg,
    },
    Vadduwm {
        vt: Reg,
        va: Reg,
        vb: Reg,
    },
    Vperm {
        vt: Reg,
        va: Reg,
        vb: Reg,
        vc: Reg,
    },
    /// The loop branch (decrement CTR, branch if non-zero; predicted taken).
    Bdnz,
}

impl PpuOp {
    pub fn unit(&self) -> Unit {
        use PpuOp::*;
        match self {
            Lwz { .. } | Lwzx { .. } | Stw { .. } | Lvx { .. } | Stvx { .. } => Unit::Lsu,
            Vxor { .. } | Vadduwm { .. } => Unit::VecSimple,
            Vperm { .. } => Unit::VecPerm,
            Bdnz => Unit::Branch,
            _ => Unit::Fxu,
        }
    }

    /// Result latency: (to a value use, to an address use).
    pub fn latency(&self, t: &PpuTiming) -> (u32, u32) {
        use PpuOp::*;
        match self {
            Lwz { .. } | Lwzx { .. } => (t.load, t.load_to_address),
            Lvx { .. } => (t.vector_load, t.vector_load),
            Vxor { .. } | Vadduwm { .. } => (t.vector_simple, t.vector_simple),
            Vperm { .. } => (t.vector_permute, t.vector_permute),
            Stw { .. } | Stvx { .. } | Bdnz => (1, 1),
            _ => (t.integer, t.integer_to_address),
        }
    }

    pub fn mem(&self) -> Mem {
        use PpuOp::*;
        match self {
            Lwz { .. } | Lwzx { .. } | Lvx { .. } => Mem::Load,
            Stw { .. } | Stvx { .. } => Mem::Store,
            _ => Mem::None,
        }
    }

    /// Registers read as addresses.
    pub fn address_uses(&self) -> Vec<Reg> {
        use PpuOp::*;
        match *self {
            Lwz { ra, .. } | Stw { ra, .. } | Lvx { ra, .. } | Stvx { ra, .. } => vec![ra],
            Lwzx { ra, rb, .. } => vec![ra, rb],
            _ => vec![],
        }
    }

    pub fn uses(&self) -> Vec<Reg> {
        use PpuOp::*;
        match *self {
            Lwz { ra, .. } | Lvx { ra, .. } | Addi { ra, .. } => vec![ra],
            Rlwinm { rs, .. } => vec![rs],
            Lwzx { ra, rb, .. } | Xor { ra, rb, .. } | Add { ra, rb, .. } => vec![ra, rb],
            Stw { rs, ra, .. } => vec![rs, ra],
            Stvx { vs, ra, .. } => vec![vs, ra],
            Vxor { va, vb, .. } | Vadduwm { va, vb, .. } => vec![va, vb],
            Vperm { va, vb, vc, .. } => vec![va, vb, vc],
            Bdnz => vec![],
        }
    }

    pub fn defs(&self) -> Vec<Reg> {
        use PpuOp::*;
        match *self {
            Lwz { rt, .. }
            | Lwzx { rt, .. }
            | Rlwinm { rt, .. }
            | Xor { rt, .. }
            | Add { rt, .. }
            | Addi { rt, .. } => vec![rt],
            Lvx { vt, .. } | Vxor { vt, .. } | Vadduwm { vt, .. } | Vperm { vt, .. } => vec![vt],
            Stw { .. } | Stvx { .. } | Bdnz => vec![],
        }
    }

    pub fn map(&self, f: impl Fn(Reg) -> Reg) -> PpuOp {
        use PpuOp::*;
        match *self {
            Lwz { rt, ra, d } => Lwz {
                rt: f(rt),
                ra: f(ra),
                d,
            },
            Lwzx { rt, ra, rb } => Lwzx {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
            },
            Stw { rs, ra, d } => Stw {
                rs: f(rs),
                ra: f(ra),
                d,
            },
            Rlwinm { rt, rs, sh, mask } => Rlwinm {
                rt: f(rt),
                rs: f(rs),
                sh,
                mask,
            },
            Xor { rt, ra, rb } => Xor {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
            },
            Add { rt, ra, rb } => Add {
                rt: f(rt),
                ra: f(ra),
                rb: f(rb),
            },
            Addi { rt, ra, imm } => Addi {
                rt: f(rt),
                ra: f(ra),
                imm,
            },
            Lvx { vt, ra, d } => Lvx {
                vt: f(vt),
                ra: f(ra),
                d,
            },
            Stvx { vs, ra, d } => Stvx {
                vs: f(vs),
                ra: f(ra),
                d,
            },
            Vxor { vt, va, vb } => Vxor {
                vt: f(vt),
                va: f(va),
                vb: f(vb),
            },
            Vadduwm { vt, va, vb } => Vadduwm {
                vt: f(vt),
                va: f(va),
                vb: f(vb),
            },
            Vperm { vt, va, vb, vc } => Vperm {
                vt: f(vt),
                va: f(va),
                vb: f(vb),
                vc: f(vc),
            },
            Bdnz => Bdnz,
        }
    }
}

/// Main memory as the PPE sees it (big-endian, like the SPEs).
#[derive(Debug, Clone, Default)]
pub struct MainMemory {
    pub bytes: Vec<u8>,
}

impl MainMemory {
    /// Appends a region aligned to 128 bytes; returns its address.
    pub fn alloc(&mut self, len: usize) -> u32 {
        let start = self.bytes.len().div_ceil(128) * 128;
        self.bytes.resize(start + len, 0);
        start as u32
    }
    fn word(&self, a: u32) -> u32 {
        let a = a as usize;
        u32::from_be_bytes(self.bytes[a..a + 4].try_into().unwrap())
    }
    fn set_word(&mut self, a: u32, v: u32) {
        let a = a as usize;
        self.bytes[a..a + 4].copy_from_slice(&v.to_be_bytes());
    }
    fn qword(&self, a: u32) -> [u8; 16] {
        let a = a as usize & !15;
        self.bytes[a..a + 16].try_into().unwrap()
    }
    fn set_qword(&mut self, a: u32, v: [u8; 16]) {
        let a = a as usize & !15;
        self.bytes[a..a + 16].copy_from_slice(&v);
    }
}

/// One hardware thread: its registers, the cycles their values are ready, its program.
#[derive(Debug, Clone)]
pub struct Thread {
    pub gpr: [u32; 32],
    pub vr: [[u8; 16]; 32],
    ready_value: [u64; 64],
    ready_address: [u64; 64],
    code: Vec<PpuOp>,
    pc: usize,
    /// Loop iterations still to run (the body is one iteration).
    pub iterations: u64,
    /// Instructions issued.
    pub issued: u64,
    /// Cycle of the thread's last issue.
    pub finished_at: u64,
}

impl Thread {
    pub fn new(code: Vec<PpuOp>, iterations: u64) -> Self {
        Thread {
            gpr: [0; 32],
            vr: [[0; 16]; 32],
            ready_value: [0; 64],
            ready_address: [0; 64],
            code,
            pc: 0,
            iterations,
            issued: 0,
            finished_at: 0,
        }
    }

    fn active(&self) -> bool {
        self.iterations > 0
    }

    fn load_address(&self, op: &PpuOp) -> Option<(u32, u32)> {
        match *op {
            PpuOp::Lwz { ra, d, .. } => Some((self.gpr[ra as usize].wrapping_add(d as u32), 4)),
            PpuOp::Lwzx { ra, rb, .. } => {
                Some((self.gpr[ra as usize].wrapping_add(self.gpr[rb as usize]), 4))
            }
            PpuOp::Lvx { ra, d, .. } => {
                Some((self.gpr[ra as usize].wrapping_add(d as u32) & !15, 16))
            }
            _ => None,
        }
    }

    fn exec(&mut self, op: &PpuOp, mem: &mut MainMemory) -> Option<(u32, u32)> {
        use PpuOp::*;
        let g = |s: &Self, r: Reg| s.gpr[r as usize];
        let v = |s: &Self, r: Reg| s.vr[(r - VR) as usize];
        let vw = |a: [u8; 16], b: [u8; 16], f: fn(u32, u32) -> u32| -> [u8; 16] {
            let mut o = [0u8; 16];
            for i in 0..4 {
                let x = u32::from_be_bytes(a[4 * i..4 * i + 4].try_into().unwrap());
                let y = u32::from_be_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
                o[4 * i..4 * i + 4].copy_from_slice(&f(x, y).to_be_bytes());
            }
            o
        };
        match *op {
            Lwz { rt, ra, d } => {
                self.gpr[rt as usize] = mem.word(g(self, ra).wrapping_add(d as u32))
            }
            Lwzx { rt, ra, rb } => {
                self.gpr[rt as usize] = mem.word(g(self, ra).wrapping_add(g(self, rb)))
            }
            Stw { rs, ra, d } => {
                let a = g(self, ra).wrapping_add(d as u32);
                mem.set_word(a, g(self, rs));
                return Some((a, 4));
            }
            Rlwinm { rt, rs, sh, mask } => {
                self.gpr[rt as usize] = g(self, rs).rotate_left(sh as u32) & mask
            }
            Xor { rt, ra, rb } => self.gpr[rt as usize] = g(self, ra) ^ g(self, rb),
            Add { rt, ra, rb } => self.gpr[rt as usize] = g(self, ra).wrapping_add(g(self, rb)),
            Addi { rt, ra, imm } => self.gpr[rt as usize] = g(self, ra).wrapping_add(imm as u32),
            Lvx { vt, ra, d } => {
                self.vr[(vt - VR) as usize] = mem.qword(g(self, ra).wrapping_add(d as u32))
            }
            Stvx { vs, ra, d } => {
                let a = g(self, ra).wrapping_add(d as u32) & !15;
                mem.set_qword(a, v(self, vs));
                return Some((a, 16));
            }
            Vxor { vt, va, vb } => {
                self.vr[(vt - VR) as usize] = vw(v(self, va), v(self, vb), |x, y| x ^ y)
            }
            Vadduwm { vt, va, vb } => {
                self.vr[(vt - VR) as usize] = vw(v(self, va), v(self, vb), u32::wrapping_add)
            }
            Vperm { vt, va, vb, vc } => {
                let (a, b, c) = (v(self, va), v(self, vb), v(self, vc));
                self.vr[(vt - VR) as usize] = std::array::from_fn(|i| {
                    let s = (c[i] & 31) as usize;
                    if s < 16 {
                        a[s]
                    } else {
                        b[s - 16]
                    }
                });
            }
            Bdnz => {}
        }
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ready {
    Yes,
    No,
    LoadHitStore,
}

/// The PPU: two (or one) threads sharing the dispatch.
#[derive(Debug, Clone)]
pub struct Ppu {
    pub threads: Vec<Thread>,
    timing: PpuTiming,
    /// Stores not yet drained: (address, length, cycle a load may read them).
    stores: Vec<(u32, u32, u64)>,
    pub cycle: u64,
    /// Cycles in which some thread dispatched two instructions.
    pub dual_issues: u64,
    /// Thread-cycles a load waited on a load-hit-store.
    pub load_hit_store_stalls: u64,
}

impl Ppu {
    pub fn new(threads: Vec<Thread>, timing: PpuTiming) -> Self {
        Ppu {
            threads,
            timing,
            stores: Vec::new(),
            cycle: 0,
            dual_issues: 0,
            load_hit_store_stalls: 0,
        }
    }

    /// Can thread `th`'s next instruction issue at `t` (operands, load-hit-store)?
    fn ready(&self, th: usize, t: u64) -> Ready {
        let thr = &self.threads[th];
        let op = &thr.code[thr.pc];
        let addr = op.address_uses();
        for u in op.uses() {
            let r = if addr.contains(&u) {
                thr.ready_address[u as usize]
            } else {
                thr.ready_value[u as usize]
            };
            if r > t {
                return Ready::No;
            }
        }
        if let Some((a, len)) = thr.load_address(op) {
            let hit = self
                .stores
                .iter()
                .any(|&(sa, sl, drain)| drain > t && a < sa + sl && sa < a + len);
            if hit {
                return Ready::LoadHitStore;
            }
        }
        Ready::Yes
    }

    fn issue(&mut self, th: usize, t: u64, mem: &mut MainMemory) {
        let lhs = self.timing.load_hit_store as u64;
        let thr = &mut self.threads[th];
        let op = thr.code[thr.pc];
        if let Some((a, len)) = thr.exec(&op, mem) {
            self.stores.push((a, len, t + lhs));
        }
        let (lv, la) = op.latency(&self.timing);
        for d in op.defs() {
            thr.ready_value[d as usize] = t + lv as u64;
            thr.ready_address[d as usize] = t + la as u64;
        }
        thr.issued += 1;
        thr.finished_at = t;
        thr.pc += 1;
        if thr.pc == thr.code.len() {
            thr.pc = 0;
            thr.iterations -= 1;
        }
    }

    /// Runs every thread's loop to the end; returns the cycles taken.
    pub fn run(&mut self, mem: &mut MainMemory) -> u64 {
        let start = self.cycle;
        let mut prefer = 0;
        let n = self.threads.len();
        while self.threads.iter().any(Thread::active) {
            let t = self.cycle;
            self.stores.retain(|s| s.2 > t);
            for k in 0..n {
                let th = (prefer + k) % n;
                if !self.threads[th].active() {
                    continue;
                }
                match self.ready(th, t) {
                    Ready::Yes => {}
                    Ready::No => continue,
                    Ready::LoadHitStore => {
                        self.load_hit_store_stalls += 1;
                        continue;
                    }
                }
                let mut used = [false; 5];
                let mut count = 0;
                while count < self.timing.issue_width
                    && self.threads[th].active()
                    && (count == 0 || self.ready(th, t) == Ready::Yes)
                {
                    let u = self.threads[th].code[self.threads[th].pc].unit() as usize;
                    if used[u] {
                        break;
                    }
                    used[u] = true;
                    self.issue(th, t, mem);
                    count += 1;
                }
                if count == 2 {
                    self.dual_issues += 1;
                }
                prefer = (th + 1) % n;
                break;
            }
            self.cycle += 1;
        }
        self.cycle - start
    }
}
