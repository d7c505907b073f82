//! The SEED program of an SPE, as GCC `-O3` would emit it for the paper's design (§3,
//! Fig. 4(b)): four blocks are loaded and transposed so that register L0 holds word 0 of
//! all four blocks, L1 word 1, R0 word 2, R1 word 3 ("the data is broken up into four parts
//! to go into four registers"); the 16 rounds then run on four blocks at once with word
//! SIMD, except the S-box lookups, which are scalar (§3: "we cannot exploit the SIMD unit for
//! the S-box operations"): every lane's word is rotated into the preferred slot, each of its
//! bytes becomes a table offset, is loaded with `lqx` and rotated into place with `rotqby`,
//! and the four lanes' G results are shuffled back into one register.
//!
//! The body (one group of four blocks) is list-scheduled onto the even/odd pipes, bundled
//! into fetch pairs with `nop`/`lnop` where a pipe has nothing, and register-allocated onto
//! the 128-entry file.

use super::config::CellConfig;
use super::local_store::LocalStore;
use super::sched::{self, Node};
use super::spu::{Pipe, Reg, SpuOp};
use super::CellError;

/// Pinned registers (set by the prologue, live through the loop).
pub const R_PTR: Reg = 3;
pub const R_CNT: Reg = 4;
pub const R_KEYS: Reg = 5;
/// Base addresses of SS0..SS3.
pub const R_T: [Reg; 4] = [6, 7, 8, 9];
/// 0x3fc in every word: a byte's table offset mask.
pub const R_MASK: Reg = 10;
/// shufb patterns: words (a0 b0 a1 b1), (a2 b2 a3 b3), (a0 a1 b0 b1), (a2 a3 b2 b3), (a0 b0 0 0).
pub const R_PAT: [Reg; 5] = [11, 12, 13, 14, 15];
const PINNED: Reg = 16;

const PATTERNS: [[u8; 16]; 5] = [
    [0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23],
    [8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31],
    [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23],
    [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31],
    [
        0, 1, 2, 3, 16, 17, 18, 19, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    ],
];

/// Writes SSA code on virtual registers.
struct Builder {
    ops: Vec<SpuOp>,
    next: Reg,
}

impl Builder {
    fn v(&mut self) -> Reg {
        self.next += 1;
        self.next - 1
    }
    fn op(&mut self, f: impl FnOnce(Reg) -> SpuOp) -> Reg {
        let rt = self.v();
        self.ops.push(f(rt));
        rt
    }
    fn shufb(&mut self, ra: Reg, rb: Reg, rc: Reg) -> Reg {
        self.op(|rt| SpuOp::Shufb { rt, ra, rb, rc })
    }
    fn xor(&mut self, ra: Reg, rb: Reg) -> Reg {
        self.op(|rt| SpuOp::Xor { rt, ra, rb })
    }
    fn add(&mut self, ra: Reg, rb: Reg) -> Reg {
        self.op(|rt| SpuOp::A { rt, ra, rb })
    }

    /// G on the four lanes of `x`: scalar table lookups per lane.
    fn g(&mut self, x: Reg) -> Reg {
        let mut acc = [0; 4];
        for (j, a) in acc.iter_mut().enumerate() {
            let w = if j == 0 {
                x
            } else {
                self.op(|rt| SpuOp::Rotqbyi {
                    rt,
                    ra: x,
                    imm: 4 * j as u8,
                })
            };
            let mut v = [0; 4];
            for (k, vk) in v.iter_mut().enumerate() {
                let t = if k == 0 {
                    self.op(|rt| SpuOp::Shli { rt, ra: w, n: 2 })
                } else {
                    self.op(|rt| SpuOp::Rotmi {
                        rt,
                        ra: w,
                        n: 8 * k as u8 - 2,
                    })
                };
                let off = self.op(|rt| SpuOp::And {
                    rt,
                    ra: t,
                    rb: R_MASK,
                });
                let q = self.op(|rt| SpuOp::Lqx {
                    rt,
                    ra: R_T[k],
                    rb: off,
                });
                *vk = self.op(|rt| SpuOp::Rotqby { rt, ra: q, rb: off });
            }
            let s01 = self.xor(v[0], v[1]);
            let s23 = self.xor(v[2], v[3]);
            *a = self.xor(s01, s23);
        }
        let r01 = self.shufb(acc[0], acc[1], R_PAT[4]);
        let r23 = self.shufb(acc[2], acc[3], R_PAT[4]);
        self.shufb(r01, r23, R_PAT[2])
    }

    /// The 4×4 word transpose (its own inverse).
    fn transpose(&mut self, q: [Reg; 4]) -> [Reg; 4] {
        let a = self.shufb(q[0], q[1], R_PAT[0]);
        let b = self.shufb(q[2], q[3], R_PAT[0]);
        let c = self.shufb(q[0], q[1], R_PAT[1]);
        let d = self.shufb(q[2], q[3], R_PAT[1]);
        [
            self.shufb(a, b, R_PAT[2]),
            self.shufb(a, b, R_PAT[3]),
            self.shufb(c, d, R_PAT[2]),
            self.shufb(c, d, R_PAT[3]),
        ]
    }
}

/// The loop body on virtual registers: one group of four blocks at `R_PTR`, in place.
fn body() -> (Vec<SpuOp>, usize) {
    let mut b = Builder {
        ops: Vec::new(),
        next: PINNED,
    };
    let q: [Reg; 4] = std::array::from_fn(|i| {
        b.op(|rt| SpuOp::Lqd {
            rt,
            ra: R_PTR,
            imm: 16 * i as i32,
        })
    });
    let [mut l0, mut l1, mut r0, mut r1] = b.transpose(q);
    for round in 0..16 {
        let k0 = b.op(|rt| SpuOp::Lqd {
            rt,
            ra: R_KEYS,
            imm: 32 * round,
        });
        let k1 = b.op(|rt| SpuOp::Lqd {
            rt,
            ra: R_KEYS,
            imm: 32 * round + 16,
        });
        // F (RFC 4269): t0 = C^K0, t1 = D^K1; t1 = G(t0^t1); t0 = G(t0+t1); t1 = G(t1+t0); t0 += t1.
        let t0 = b.xor(r0, k0);
        let t1 = b.xor(r1, k1);
        let t1 = b.xor(t1, t0);
        let t1 = b.g(t1);
        let t0 = b.add(t0, t1);
        let t0 = b.g(t0);
        let t1 = b.add(t1, t0);
        let t1 = b.g(t1);
        let t0 = b.add(t0, t1);
        let nl0 = b.xor(l0, t0);
        let nl1 = b.xor(l1, t1);
        (l0, l1, r0, r1) = (r0, r1, nl0, nl1);
    }
    // After the last round the halves are not swapped: output R ‖ L.
    let out = b.transpose([r0, r1, l0, l1]);
    for (i, &o) in out.iter().enumerate() {
        b.ops.push(SpuOp::Stqd {
            rt: o,
            ra: R_PTR,
            imm: 16 * i as i32,
        });
    }
    b.ops.push(SpuOp::Ai {
        rt: R_PTR,
        ra: R_PTR,
        imm: 64,
    });
    b.ops.push(SpuOp::Ai {
        rt: R_CNT,
        ra: R_CNT,
        imm: -1,
    });
    b.ops.push(SpuOp::Brnz { rt: R_CNT });
    let n = b.next as usize;
    (b.ops, n)
}

/// The compiled SPE program and where its data lives in the local store.
#[derive(Debug, Clone)]
pub struct SpuProgram {
    /// The loop body, in fetch pairs, on physical registers.
    pub body: Vec<SpuOp>,
    pub tables: u32,
    pub keys: u32,
    pub patterns: u32,
    /// The DMA buffer (16 KB).
    pub buffer: u32,
    pub buffer_bytes: usize,
}

impl SpuProgram {
    /// Schedules and allocates the body, lays out the local store (code, SS tables, round
    /// keys, shuffle patterns, one DMA buffer) and writes the constant data into it.
    pub fn build(
        cfg: &CellConfig,
        ls: &mut LocalStore,
        ss: &[[u32; 256]; 4],
        keys: &[[u32; 2]; 16],
    ) -> Result<SpuProgram, CellError> {
        let (ops, vregs) = body();
        let nodes: Vec<Node> = ops
            .iter()
            .map(|o| Node {
                uses: o.uses(),
                defs: o.defs(),
                res: (o.pipe() == Pipe::Odd) as usize,
                mem: o.mem(),
                last: matches!(o, SpuOp::Brnz { .. }),
            })
            .collect();
        let pool: Vec<Reg> = (PINNED..cfg.spu_registers as Reg).collect();
        let max_live = pool.len().saturating_sub(8);
        let cycles = sched::schedule(
            &nodes,
            &[1, 1],
            2,
            PINNED,
            &[max_live],
            |_| 0,
            |p, _| ops[p].latency(&cfg.spu),
        );
        let mut code: Vec<SpuOp> = Vec::new();
        for c in &cycles {
            let even = c.iter().find(|&&i| nodes[i].res == 0);
            let odd = c.iter().find(|&&i| nodes[i].res == 1);
            code.push(even.map_or(SpuOp::Nop, |&i| ops[i]));
            code.push(odd.map_or(SpuOp::Lnop, |&i| ops[i]));
        }
        let order: Vec<(Vec<Reg>, Vec<Reg>)> = code.iter().map(|o| (o.uses(), o.defs())).collect();
        let map = sched::allocate(&order, PINNED, &[pool], |_| 0, vregs, "SPU")?;
        let body: Vec<SpuOp> = code.iter().map(|o| o.map(|r| map[r as usize])).collect();

        ls.alloc("code", body.len() * 4, 16)?;
        let tables = ls.alloc("SS tables", 4 * 1024, 128)?;
        for (k, t) in ss.iter().enumerate() {
            for (x, e) in t.iter().enumerate() {
                ls.write(tables + (k * 1024 + 4 * x) as u32, &e.to_be_bytes());
            }
        }
        let key_addr = ls.alloc("round keys", 16 * 32, 16)?;
        for (i, k) in keys.iter().enumerate() {
            for (h, &w) in k.iter().enumerate() {
                let splat: Vec<u8> = (0..4).flat_map(|_| w.to_be_bytes()).collect();
                ls.write(key_addr + (32 * i + 16 * h) as u32, &splat);
            }
        }
        let patterns = ls.alloc("shuffle patterns", 16 * PATTERNS.len(), 16)?;
        for (i, p) in PATTERNS.iter().enumerate() {
            ls.write(patterns + 16 * i as u32, p);
        }
        let buffer_bytes = cfg.dma.max_transfer;
        let buffer = ls.alloc("DMA buffer", buffer_bytes, 128)?;
        Ok(SpuProgram {
            body,
            tables,
            keys: key_addr,
            patterns,
            buffer,
            buffer_bytes,
        })
    }

    /// The prologue that loads the pinned registers for `groups` groups at `addr`.
    pub fn prologue(&self, addr: u32, groups: u32) -> Vec<SpuOp> {
        // Patterns are addressed from the key base (they follow the keys in the store).
        let pat = |i: i32| (self.patterns - self.keys) as i32 + 16 * i;
        let mut p = vec![
            SpuOp::Il {
                rt: R_KEYS,
                imm: self.keys as i32,
            },
            SpuOp::Lnop,
            SpuOp::Il {
                rt: R_PTR,
                imm: addr as i32,
            },
            SpuOp::Lqd {
                rt: R_PAT[0],
                ra: R_KEYS,
                imm: pat(0),
            },
            SpuOp::Il {
                rt: R_CNT,
                imm: groups as i32,
            },
            SpuOp::Lqd {
                rt: R_PAT[1],
                ra: R_KEYS,
                imm: pat(1),
            },
            SpuOp::Il {
                rt: R_MASK,
                imm: 0x3fc,
            },
            SpuOp::Lqd {
                rt: R_PAT[2],
                ra: R_KEYS,
                imm: pat(2),
            },
        ];
        for (k, &rt) in R_T.iter().enumerate() {
            p.push(SpuOp::Il {
                rt,
                imm: (self.tables + 1024 * k as u32) as i32,
            });
            p.push(match k {
                0 => SpuOp::Lqd {
                    rt: R_PAT[3],
                    ra: R_KEYS,
                    imm: pat(3),
                },
                1 => SpuOp::Lqd {
                    rt: R_PAT[4],
                    ra: R_KEYS,
                    imm: pat(4),
                },
                _ => SpuOp::Lnop,
            });
        }
        p
    }
}
