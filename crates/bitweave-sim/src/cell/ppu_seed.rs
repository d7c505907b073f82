//! The PPE's two SEED programs, one per thread, as GCC `-O3` would emit them:
//! - scalar ("Hybrid", paper §3): one block at a time in four GPR words; each S-box lookup
//!   is one `rlwinm` (byte to table offset) and one `lwzx`;
//! - VMX ("ALL SIMD"): four blocks as four words in four VMX registers, like the SPEs;
//!   F's XORs and additions are vector operations, but G's lookups cannot be (§3), and VMX
//!   has no move to the fixed-point registers, so each G stores its input vector, loads the
//!   four lanes into GPRs, looks them up, stores the four results and loads them back as a
//!   vector — the "memory alignment overhead" of §3, paid as load-hit-stores.
//!
//! Both bodies are list-scheduled for the PPU's units and register-allocated onto 32 GPRs
//! (r0, r1, r2 and r13 reserved by the ABI) and 32 VMX registers.

use super::config::CellConfig;
use super::ppu::{MainMemory, PpuOp, Reg, Thread, VR};
use super::sched::{self, Node};
use super::CellError;

/// Pinned GPRs: data pointer, key base, SS table bases, the G scratch buffer.
pub const R_PTR: Reg = 14;
pub const R_KEYS: Reg = 15;
pub const R_T: [Reg; 4] = [16, 17, 18, 19];
pub const R_SCRATCH: Reg = 20;
/// Pinned VMX registers: the transpose permutations.
pub const V_PAT: [Reg; 4] = [VR, VR + 1, VR + 2, VR + 3];
const PINNED: Reg = 64;

const PATTERNS: [[u8; 16]; 4] = [
    [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23],
    [8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31],
    [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23],
    [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31],
];

/// Which PPE program a thread runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PpeCode {
    Scalar,
    Vmx,
}

impl PpeCode {
    /// Blocks per loop iteration.
    pub fn blocks(self) -> usize {
        match self {
            PpeCode::Scalar => 1,
            PpeCode::Vmx => 4,
        }
    }
}

struct Builder {
    ops: Vec<PpuOp>,
    vector: Vec<bool>,
}

impl Builder {
    fn v(&mut self, vector: bool) -> Reg {
        self.vector.push(vector);
        PINNED + self.vector.len() as Reg - 1
    }
    fn gpr(&mut self, f: impl FnOnce(Reg) -> PpuOp) -> Reg {
        let r = self.v(false);
        self.ops.push(f(r));
        r
    }
    fn vec(&mut self, f: impl FnOnce(Reg) -> PpuOp) -> Reg {
        let r = self.v(true);
        self.ops.push(f(r));
        r
    }
    fn xor(&mut self, ra: Reg, rb: Reg) -> Reg {
        self.gpr(|rt| PpuOp::Xor { rt, ra, rb })
    }

    /// Scalar G: byte k of x (k = 0 least significant) scaled by 4 and looked up in SS_k.
    fn g(&mut self, x: Reg) -> Reg {
        let v: Vec<Reg> = (0..4)
            .map(|k| {
                let off = self.gpr(|rt| PpuOp::Rlwinm {
                    rt,
                    rs: x,
                    sh: ((34 - 8 * k) % 32) as u8,
                    mask: 0x3fc,
                });
                self.gpr(|rt| PpuOp::Lwzx {
                    rt,
                    ra: R_T[k],
                    rb: off,
                })
            })
            .collect();
        let a = self.xor(v[0], v[1]);
        let b = self.xor(v[2], v[3]);
        self.xor(a, b)
    }

    /// VMX G: the vector goes through the scratch buffer to the GPRs and back.
    fn g_vmx(&mut self, x: Reg) -> Reg {
        self.ops.push(PpuOp::Stvx {
            vs: x,
            ra: R_SCRATCH,
            d: 0,
        });
        for j in 0..4 {
            let w = self.gpr(|rt| PpuOp::Lwz {
                rt,
                ra: R_SCRATCH,
                d: 4 * j,
            });
            let r = self.g(w);
            self.ops.push(PpuOp::Stw {
                rs: r,
                ra: R_SCRATCH,
                d: 16 + 4 * j,
            });
        }
        self.vec(|vt| PpuOp::Lvx {
            vt,
            ra: R_SCRATCH,
            d: 16,
        })
    }

    fn transpose(&mut self, q: [Reg; 4]) -> [Reg; 4] {
        let mut p = |va: Reg, vb: Reg, vc: Reg| self.vec(|vt| PpuOp::Vperm { vt, va, vb, vc });
        let a = p(q[0], q[1], V_PAT[0]);
        let b = p(q[2], q[3], V_PAT[0]);
        let c = p(q[0], q[1], V_PAT[1]);
        let d = p(q[2], q[3], V_PAT[1]);
        [
            p(a, b, V_PAT[2]),
            p(a, b, V_PAT[3]),
            p(c, d, V_PAT[2]),
            p(c, d, V_PAT[3]),
        ]
    }
}

fn scalar_body() -> Builder {
    let mut b = Builder {
        ops: Vec::new(),
        vector: Vec::new(),
    };
    let w: Vec<Reg> = (0..4)
        .map(|i| {
            b.gpr(|rt| PpuOp::Lwz {
                rt,
                ra: R_PTR,
                d: 4 * i,
            })
        })
        .collect();
    let (mut l0, mut l1, mut r0, mut r1) = (w[0], w[1], w[2], w[3]);
    for i in 0..16 {
        let k0 = b.gpr(|rt| PpuOp::Lwz {
            rt,
            ra: R_KEYS,
            d: 8 * i,
        });
        let k1 = b.gpr(|rt| PpuOp::Lwz {
            rt,
            ra: R_KEYS,
            d: 8 * i + 4,
        });
        let t0 = b.xor(r0, k0);
        let t1 = b.xor(r1, k1);
        let t1 = b.xor(t1, t0);
        let t1 = b.g(t1);
        let t0 = b.gpr(|rt| PpuOp::Add { rt, ra: t0, rb: t1 });
        let t0 = b.g(t0);
        let t1 = b.gpr(|rt| PpuOp::Add { rt, ra: t1, rb: t0 });
        let t1 = b.g(t1);
        let t0 = b.gpr(|rt| PpuOp::Add { rt, ra: t0, rb: t1 });
        let nl0 = b.xor(l0, t0);
        let nl1 = b.xor(l1, t1);
        (l0, l1, r0, r1) = (r0, r1, nl0, nl1);
    }
    for (i, &o) in [r0, r1, l0, l1].iter().enumerate() {
        b.ops.push(PpuOp::Stw {
            rs: o,
            ra: R_PTR,
            d: 4 * i as i32,
        });
    }
    b.ops.push(PpuOp::Addi {
        rt: R_PTR,
        ra: R_PTR,
        imm: 16,
    });
    b.ops.push(PpuOp::Bdnz);
    b
}

fn vmx_body() -> Builder {
    let mut b = Builder {
        ops: Vec::new(),
        vector: Vec::new(),
    };
    let q: [Reg; 4] = std::array::from_fn(|i| {
        b.vec(|vt| PpuOp::Lvx {
            vt,
            ra: R_PTR,
            d: 16 * i as i32,
        })
    });
    let [mut l0, mut l1, mut r0, mut r1] = b.transpose(q);
    for i in 0..16 {
        let k0 = b.vec(|vt| PpuOp::Lvx {
            vt,
            ra: R_KEYS,
            d: 32 * i,
        });
        let k1 = b.vec(|vt| PpuOp::Lvx {
            vt,
            ra: R_KEYS,
            d: 32 * i + 16,
        });
        let t0 = b.vec(|vt| PpuOp::Vxor { vt, va: r0, vb: k0 });
        let t1 = b.vec(|vt| PpuOp::Vxor { vt, va: r1, vb: k1 });
        let t1 = b.vec(|vt| PpuOp::Vxor { vt, va: t1, vb: t0 });
        let t1 = b.g_vmx(t1);
        let t0 = b.vec(|vt| PpuOp::Vadduwm { vt, va: t0, vb: t1 });
        let t0 = b.g_vmx(t0);
        let t1 = b.vec(|vt| PpuOp::Vadduwm { vt, va: t1, vb: t0 });
        let t1 = b.g_vmx(t1);
        let t0 = b.vec(|vt| PpuOp::Vadduwm { vt, va: t0, vb: t1 });
        let nl0 = b.vec(|vt| PpuOp::Vxor { vt, va: l0, vb: t0 });
        let nl1 = b.vec(|vt| PpuOp::Vxor { vt, va: l1, vb: t1 });
        (l0, l1, r0, r1) = (r0, r1, nl0, nl1);
    }
    let out = b.transpose([r0, r1, l0, l1]);
    for (i, &o) in out.iter().enumerate() {
        b.ops.push(PpuOp::Stvx {
            vs: o,
            ra: R_PTR,
            d: 16 * i as i32,
        });
    }
    b.ops.push(PpuOp::Addi {
        rt: R_PTR,
        ra: R_PTR,
        imm: 64,
    });
    b.ops.push(PpuOp::Bdnz);
    b
}

/// A compiled PPE program: the loop body on physical registers.
#[derive(Debug, Clone)]
pub struct PpuProgram {
    pub code: PpeCode,
    pub body: Vec<PpuOp>,
}

impl PpuProgram {
    /// Schedules (two slots, one instruction per unit) and allocates the body.
    pub fn build(cfg: &CellConfig, code: PpeCode) -> Result<PpuProgram, CellError> {
        let b = match code {
            PpeCode::Scalar => scalar_body(),
            PpeCode::Vmx => vmx_body(),
        };
        let ops = &b.ops;
        let nodes: Vec<Node> = ops
            .iter()
            .map(|o| Node {
                uses: o.uses(),
                defs: o.defs(),
                res: o.unit() as usize,
                mem: o.mem(),
                last: matches!(o, PpuOp::Bdnz),
            })
            .collect();
        let gpr_pool: Vec<Reg> = (3..cfg.gprs as Reg)
            .filter(|r| *r != 13 && !(R_PTR..=R_SCRATCH).contains(r))
            .collect();
        let vr_pool: Vec<Reg> = (V_PAT[3] + 1..VR + cfg.vmx_registers as Reg).collect();
        let vector = &b.vector;
        let class = |r: Reg| vector[(r - PINNED) as usize] as usize;
        let cycles = sched::schedule(
            &nodes,
            &[1, 1, 1, 1, 1],
            cfg.ppu.issue_width,
            PINNED,
            &[gpr_pool.len() - 2, vr_pool.len() - 2],
            class,
            |p, c| {
                let (lv, la) = ops[p].latency(&cfg.ppu);
                let d = ops[p].defs();
                if ops[c].address_uses().iter().any(|u| d.contains(u)) {
                    la
                } else {
                    lv
                }
            },
        );
        let order: Vec<usize> = cycles.into_iter().flatten().collect();
        let regs: Vec<(Vec<Reg>, Vec<Reg>)> = order
            .iter()
            .map(|&i| (ops[i].uses(), ops[i].defs()))
            .collect();
        let map = sched::allocate(
            &regs,
            PINNED,
            &[gpr_pool, vr_pool],
            class,
            PINNED as usize + vector.len(),
            "PPU",
        )?;
        let body = order
            .iter()
            .map(|&i| ops[i].map(|r| map[r as usize]))
            .collect();
        Ok(PpuProgram { code, body })
    }
}

/// Where the PPE's constant data live in main memory.
#[derive(Debug, Clone, Copy)]
pub struct PpeData {
    pub tables: u32,
    /// Round keys as 32 words (scalar program).
    pub keys: u32,
    /// Round keys splatted to quadwords (VMX program).
    pub keys_splat: u32,
    pub patterns: u32,
}

impl PpeData {
    /// Writes tables, keys and patterns into main memory.
    pub fn write(mem: &mut MainMemory, ss: &[[u32; 256]; 4], keys: &[[u32; 2]; 16]) -> PpeData {
        let tables = mem.alloc(4096);
        for (k, t) in ss.iter().enumerate() {
            for (x, e) in t.iter().enumerate() {
                let a = tables as usize + k * 1024 + 4 * x;
                mem.bytes[a..a + 4].copy_from_slice(&e.to_be_bytes());
            }
        }
        let kw = mem.alloc(128);
        let ks = mem.alloc(512);
        for (i, k) in keys.iter().enumerate() {
            for (h, &w) in k.iter().enumerate() {
                let a = kw as usize + 8 * i + 4 * h;
                mem.bytes[a..a + 4].copy_from_slice(&w.to_be_bytes());
                for l in 0..4 {
                    let a = ks as usize + 32 * i + 16 * h + 4 * l;
                    mem.bytes[a..a + 4].copy_from_slice(&w.to_be_bytes());
                }
            }
        }
        let patterns = mem.alloc(64);
        for (i, p) in PATTERNS.iter().enumerate() {
            let a = patterns as usize + 16 * i;
            mem.bytes[a..a + 16].copy_from_slice(p);
        }
        PpeData {
            tables,
            keys: kw,
            keys_splat: ks,
            patterns,
        }
    }
}

/// A thread running `program` over `blocks` blocks at `addr`, with its own `scratch`
/// (32 bytes, VMX only). The pinned registers are set as the prologue would.
pub fn thread(
    program: &PpuProgram,
    data: &PpeData,
    mem: &MainMemory,
    addr: u32,
    blocks: usize,
    scratch: u32,
) -> Thread {
    let iterations = (blocks / program.code.blocks()) as u64;
    assert_eq!(iterations as usize * program.code.blocks(), blocks);
    let mut t = Thread::new(program.body.clone(), iterations);
    t.gpr[R_PTR as usize] = addr;
    t.gpr[R_KEYS as usize] = match program.code {
        PpeCode::Scalar => data.keys,
        PpeCode::Vmx => data.keys_splat,
    };
    for (k, &r) in R_T.iter().enumerate() {
        t.gpr[r as usize] = data.tables + 1024 * k as u32;
    }
    t.gpr[R_SCRATCH as usize] = scratch;
    for (i, &v) in V_PAT.iter().enumerate() {
        let a = data.patterns as usize + 16 * i;
        t.vr[(v - VR) as usize] = mem.bytes[a..a + 16].try_into().unwrap();
    }
    t
}
