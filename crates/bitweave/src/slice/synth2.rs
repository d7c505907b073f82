//! A circuit synthesiser for 6-input Boolean functions (the DES S-boxes) targeting 2-input
//! gates — AND, AND-NOT, OR, XOR — for lane types without a 3-input instruction (AVX2,
//! plain 64-bit words), where [`super::synth`]'s 3-input gates lower to one to six
//! operations each (its DES circuits: 241 gates, 733 operations on AVX2).
//!
//! Method: [`super::synth`]'s decomposition with sharing, with two changes for 2-input
//! gates.
//! 1. A node may be read complemented for free: AND-NOT absorbs one complemented operand,
//!    an AND of two complements is a complemented OR, and XOR passes complements to its
//!    output. So every 2-input function of two existing nodes is one gate, and a node
//!    stands for a function and its complement.
//! 2. To build `f`: reuse a node; else, if `f` is a 2-input function of two existing
//!    nodes, emit one gate; else split on the next variable `v` of the order and take the
//!    cheapest of Shannon `f = v ? f1 : f0` (three gates; one when a cofactor is
//!    constant), positive Davio `f = f0 ^ (v & (f0 ^ f1))` and negative Davio
//!    `f = f1 ^ (!v & (f0 ^ f1))` (two gates each), scored by the gates the expansion
//!    costs plus how far its children are from existing nodes.
//! 3. An output that ends complemented gets a NOT.
//! 4. [`best`] tries every order of the three top split variables (120) and every order
//!    of building the outputs (24), and keeps the netlist with the fewest gates.
#![deny(unsafe_code)]

use std::collections::HashMap;

use super::synth::{canon, cofactor, emit_head, input_nodes, smallest, Gate, Netlist, INPUTS};

/// A 2-input operation (`AndNot` is `!a & b`, the `vpandn` form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    And,
    AndNot,
    Or,
    Xor,
    /// `!a` (`b` unused).
    Not,
}

/// A gate: `op` over nodes `a` and `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate2 {
    pub op: Op,
    pub a: usize,
    pub b: usize,
}

/// A netlist of 2-input gates.
pub type Netlist2 = Netlist<Gate2>;

impl Gate for Gate2 {
    fn apply(&self, nodes: &[u64]) -> u64 {
        apply(self.op, nodes[self.a], nodes[self.b])
    }
}

/// Applies an operation bitwise.
fn apply(op: Op, a: u64, b: u64) -> u64 {
    match op {
        Op::And => a & b,
        Op::AndNot => !a & b,
        Op::Or => a | b,
        Op::Xor => a ^ b,
        Op::Not => !a,
    }
}

/// A node read plain or complemented.
#[derive(Debug, Clone, Copy)]
struct Lit {
    node: usize,
    inv: bool,
}

impl Lit {
    fn not(self) -> Lit {
        Lit {
            node: self.node,
            inv: !self.inv,
        }
    }
}

/// `f` as a 2-input function of `a` and `b`, if it is one: the 4-entry table (index
/// `2a + b`) with its don't-care entries (minterms no input reaches) as a mask.
fn fit2(f: u64, a: u64, b: u64) -> Option<(u8, u8)> {
    let (mut table, mut care) = (0u8, 0u8);
    for p in 0..4u8 {
        let m = (if p & 2 != 0 { a } else { !a }) & (if p & 1 != 0 { b } else { !b });
        if m == 0 {
            continue;
        }
        care |= 1 << p;
        let v = f & m;
        if v == m {
            table |= 1 << p;
        } else if v != 0 {
            return None;
        }
    }
    Some((table, care))
}

struct State {
    order: [usize; INPUTS],
    funcs: Vec<u64>,
    gates: Vec<Gate2>,
    known: HashMap<u64, usize>,
}

/// A built function: a literal or a constant.
#[derive(Clone, Copy)]
enum Built {
    Lit(Lit),
    Const(bool),
}

impl State {
    fn new(order: [usize; INPUTS]) -> Self {
        let (funcs, known) = input_nodes();
        State {
            order,
            funcs,
            gates: Vec::new(),
            known,
        }
    }

    fn find(&self, f: u64) -> Option<Lit> {
        let node = *self.known.get(&canon(f))?;
        Some(Lit {
            node,
            inv: self.funcs[node] != f,
        })
    }

    /// Two nodes `f` is a 2-input function of, newest first, with the table.
    fn pair(&self, f: u64) -> Option<(u8, u8, usize, usize)> {
        let n = self.funcs.len();
        for i in (0..n).rev() {
            for j in (0..i).rev() {
                if let Some((t, care)) = fit2(f, self.funcs[i], self.funcs[j]) {
                    return Some((t, care, i, j));
                }
            }
        }
        None
    }

    fn add(&mut self, op: Op, a: usize, b: usize) -> usize {
        let f = apply(op, self.funcs[a], self.funcs[b]);
        self.funcs.push(f);
        self.gates.push(Gate2 { op, a, b });
        let id = self.funcs.len() - 1;
        self.known.entry(canon(f)).or_insert(id);
        id
    }

    /// `x & y` in one gate.
    fn and(&mut self, x: Lit, y: Lit) -> Lit {
        let (node, inv) = match (x.inv, y.inv) {
            (false, false) => (self.add(Op::And, x.node, y.node), false),
            (true, false) => (self.add(Op::AndNot, x.node, y.node), false),
            (false, true) => (self.add(Op::AndNot, y.node, x.node), false),
            (true, true) => (self.add(Op::Or, x.node, y.node), true),
        };
        Lit { node, inv }
    }

    /// `x ^ y` in one gate.
    fn xor(&mut self, x: Lit, y: Lit) -> Lit {
        Lit {
            node: self.add(Op::Xor, x.node, y.node),
            inv: x.inv ^ y.inv,
        }
    }

    /// One gate realising a 2-input table over nodes `a`, `b` (don't-cares free).
    fn gate(&mut self, table: u8, care: u8, a: usize, b: usize) -> Lit {
        let fits = |t: u8| (t ^ table) & care == 0;
        for xor in [0b0110u8, 0b1001] {
            if fits(xor) {
                let l = self.xor(
                    Lit {
                        node: a,
                        inv: false,
                    },
                    Lit {
                        node: b,
                        inv: false,
                    },
                );
                return if xor == 0b1001 { l.not() } else { l };
            }
        }
        for p in 0..4u8 {
            for complement in [false, true] {
                let t = if complement { !(1u8 << p) & 15 } else { 1 << p };
                if fits(t) {
                    let x = Lit {
                        node: a,
                        inv: p & 2 == 0,
                    };
                    let y = Lit {
                        node: b,
                        inv: p & 1 == 0,
                    };
                    let l = self.and(x, y);
                    return if complement { l.not() } else { l };
                }
            }
        }
        unreachable!("only constants and single inputs are left, and those were found")
    }

    fn score(&self, f: u64) -> u32 {
        if f == 0 || f == !0 || self.find(f).is_some() {
            0
        } else if self.pair(f).is_some() {
            1
        } else {
            3
        }
    }

    fn build(&mut self, f: u64) -> Built {
        if f == 0 || f == !0 {
            return Built::Const(f != 0);
        }
        if let Some(l) = self.find(f) {
            return Built::Lit(l);
        }
        if let Some((t, care, a, b)) = self.pair(f) {
            return Built::Lit(self.gate(t, care, a, b));
        }
        let v = *self
            .order
            .iter()
            .find(|&&v| cofactor(f, v, false) != cofactor(f, v, true))
            .expect("a function of more than two inputs depends on one");
        let (f0, f1) = (cofactor(f, v, false), cofactor(f, v, true));
        let h = f0 ^ f1;
        let constant = |g: u64| g == 0 || g == !0;
        let shannon = if constant(f0) || constant(f1) { 1 } else { 3 };
        // (gates of the expansion, first child, second child)
        let options = [(shannon, f0, f1), (2, f0, h), (2, f1, h)];
        let (mut best, mut best_score) = (0, u32::MAX);
        for (i, &(cost, x, y)) in options.iter().enumerate() {
            let s = cost
                + self.score(x)
                + if canon(x) == canon(y) {
                    0
                } else {
                    self.score(y)
                };
            if s < best_score {
                best = i;
                best_score = s;
            }
        }
        let (_, x, y) = options[best];
        let (bx, by) = (self.build(x), self.build(y));
        let lv = Lit {
            node: v,
            inv: false,
        };
        let lit = |b: Built| match b {
            Built::Lit(l) => l,
            Built::Const(_) => unreachable!("constant children are handled apart"),
        };
        Built::Lit(match (best, bx, by) {
            // Shannon with a constant cofactor: one gate.
            (0, Built::Const(false), _) => self.and(lv, lit(by)),
            (0, Built::Const(true), _) => self.and(lv, lit(by).not()).not(),
            (0, _, Built::Const(false)) => self.and(lv.not(), lit(bx)),
            (0, _, Built::Const(true)) => self.and(lv.not(), lit(bx).not()).not(),
            (0, _, _) => {
                let hi = self.and(lv, lit(by));
                let lo = self.and(lv.not(), lit(bx));
                self.and(hi.not(), lo.not()).not()
            }
            // Davio: the difference `h` is never constant zero (f depends on v); all ones
            // makes the product `v` (or `!v`) itself, and a constant first child leaves
            // the product, complemented or not.
            (k, _, _) => {
                let select = if k == 1 { lv } else { lv.not() };
                let product = match by {
                    Built::Const(_) => select,
                    Built::Lit(h) => self.and(select, h),
                };
                match bx {
                    Built::Const(c) if c => product.not(),
                    Built::Const(_) => product,
                    Built::Lit(x) => self.xor(x, product),
                }
            }
        })
    }
}

/// Synthesises `tables` (one 64-bit truth table per output) with a given split order,
/// building the outputs in the order `build` (a permutation of the output indices).
pub fn synthesize(tables: &[u64], order: [usize; INPUTS], build: &[usize]) -> Netlist2 {
    let mut st = State::new(order);
    let mut lits = vec![
        Lit {
            node: 0,
            inv: false
        };
        tables.len()
    ];
    for &i in build {
        lits[i] = match st.build(tables[i]) {
            Built::Lit(l) => l,
            Built::Const(_) => panic!("a constant output"),
        };
    }
    let outputs = lits
        .iter()
        .map(|l| {
            if l.inv {
                st.add(Op::Not, l.node, l.node)
            } else {
                l.node
            }
        })
        .collect();
    let net = Netlist {
        gates: st.gates,
        outputs,
        order,
        build: build.to_vec(),
    };
    debug_assert_eq!(net.eval_tables(), tables);
    net
}

/// The smallest netlist over all split orders and output build orders (the first found
/// among equals, so the result is deterministic).
pub fn best(tables: &[u64]) -> Netlist2 {
    smallest(
        tables.len(),
        |o, b| synthesize(tables, o, b),
        |n| n.gates.len(),
    )
}

/// Rust source of a netlist as a function generic over [`Logic`](super::Logic): inputs
/// `x[0..6]`, one 2-input operation per gate, outputs in order.
pub fn emit(name: &str, doc: &str, net: &Netlist2) -> String {
    let mut s = emit_head(name, doc, net.gates.len(), &net.order, &net.build);
    for (k, g) in net.gates.iter().enumerate() {
        let n = INPUTS + k;
        s += &match g.op {
            Op::And => format!("    let n{n} = n{}.and(n{});\n", g.a, g.b),
            Op::AndNot => format!("    let n{n} = n{}.andnot(n{});\n", g.a, g.b),
            Op::Or => format!("    let n{n} = n{}.or(n{});\n", g.a, g.b),
            Op::Xor => format!("    let n{n} = n{}.xor(n{});\n", g.a, g.b),
            Op::Not => format!("    let n{n} = n{}.not();\n", g.a),
        };
    }
    let outs: Vec<String> = net.outputs.iter().map(|o| format!("n{o}")).collect();
    s += &format!("    [{}]\n}}\n", outs.join(", "));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesises_random_functions_exactly() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut tables = Vec::new();
        for _ in 0..4 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            tables.push(x);
        }
        for order in [[0, 1, 2, 3, 4, 5], [5, 3, 1, 0, 2, 4]] {
            let net = synthesize(&tables, order, &[0, 1, 2, 3]);
            assert_eq!(net.eval_tables(), tables, "order {order:?}");
        }
    }
}
