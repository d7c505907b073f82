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
//!    nodes, emit one gate; else, if it is a function of three existing nodes with a
//!    circuit of at most three gates (every such circuit is enumerated once), emit the
//!    cheapest; else split on the next variable `v` of the order and take the cheapest of
//!    Shannon `f = v ? f1 : f0` (three gates; one when a cofactor is constant), positive
//!    Davio `f = f0 ^ (v & (f0 ^ f1))` and negative Davio `f = f1 ^ (!v & (f0 ^ f1))` (two
//!    gates each), scored by the gates the expansion costs plus what its children would
//!    cost by the rules before splitting (0, 1 or the small circuit's gates; 4 if none).
//! 3. An output that ends complemented gets a NOT.
//! 4. [`best`] tries every order of the three top split variables (120) and every order
//!    of building the outputs (24), and keeps the netlist with the fewest gates.
#![deny(unsafe_code)]

use std::sync::OnceLock;

use super::synth::{canon, cofactor, emit_head, restrict, smallest, Gate, Netlist, Nodes, INPUTS};

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

/// The most gates a circuit over three existing nodes may take before splitting is
/// preferred: a split costs two or three gates plus its children.
const SMALL_GATES: usize = 3;

/// A gate of a small circuit over three operands: `x & y` or `x ^ y`, each operand one of
/// the circuit's earlier nodes (0..3 are the operands), read complemented or not.
#[derive(Debug, Clone, Copy)]
struct Step {
    xor: bool,
    x: (usize, bool),
    y: (usize, bool),
}

impl Step {
    fn apply(&self, values: &[u8]) -> u8 {
        let read = |(i, inv): (usize, bool)| if inv { !values[i] } else { values[i] };
        if self.xor {
            read(self.x) ^ read(self.y)
        } else {
            read(self.x) & read(self.y)
        }
    }
}

/// The truth tables (index `4a + 2b + c`) of the three operands of a small circuit.
const OPERANDS: [u8; 3] = [0xf0, 0xcc, 0xaa];

/// For every 3-input function (by truth table), a fewest-gate circuit of at most
/// [`SMALL_GATES`] 2-input gates computing it or its complement, found by enumerating every
/// circuit of that size once.
fn small_circuits() -> &'static [Option<Vec<Step>>] {
    static TABLE: OnceLock<Vec<Option<Vec<Step>>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        fn extend(values: &mut Vec<u8>, steps: &mut Vec<Step>, best: &mut [Option<Vec<Step>>]) {
            if steps.len() == SMALL_GATES {
                return;
            }
            for a in 0..values.len() {
                for b in 0..a {
                    let ands = [(false, false), (true, false), (false, true), (true, true)]
                        .map(|(ia, ib)| (false, ia, ib));
                    for (xor, ia, ib) in ands.into_iter().chain([(true, false, false)]) {
                        let step = Step {
                            xor,
                            x: (a, ia),
                            y: (b, ib),
                        };
                        let v = step.apply(values);
                        if values.iter().any(|&u| u == v || u == !v) {
                            continue;
                        }
                        values.push(v);
                        steps.push(step);
                        for t in [v, !v] {
                            let slot = &mut best[t as usize];
                            if slot.as_ref().is_none_or(|s| s.len() > steps.len()) {
                                *slot = Some(steps.clone());
                            }
                        }
                        extend(values, steps, best);
                        values.pop();
                        steps.pop();
                    }
                }
            }
        }
        let mut best = vec![None; 256];
        // Constants and operands (or their complements) take no gate.
        for t in [0u8].into_iter().chain(OPERANDS) {
            best[t as usize] = Some(Vec::new());
            best[!t as usize] = Some(Vec::new());
        }
        extend(&mut OPERANDS.to_vec(), &mut Vec::new(), &mut best);
        best
    })
}

/// The cheapest small circuit for a 3-input table with don't-cares: (gates, the table
/// chosen for the don't-care entries).
fn cheapest_small(table: u8, care: u8) -> Option<(usize, u8)> {
    let circuits = small_circuits();
    let free = !care;
    let mut best: Option<(usize, u8)> = None;
    // Every filling of the don't-care entries: the subsets of `free`, largest first.
    let mut fill = free;
    loop {
        let t = (table & care) | fill;
        if let Some(c) = &circuits[t as usize] {
            if best.is_none_or(|(n, _)| c.len() < n) {
                best = Some((c.len(), t));
            }
        }
        if fill == 0 {
            return best;
        }
        fill = (fill - 1) & free;
    }
}

struct State {
    order: [usize; INPUTS],
    nodes: Nodes,
    gates: Vec<Gate2>,
}

/// A built function: a literal or a constant.
#[derive(Clone, Copy)]
enum Built {
    Lit(Lit),
    Const(bool),
}

impl State {
    fn new(order: [usize; INPUTS]) -> Self {
        State {
            order,
            nodes: Nodes::inputs(),
            gates: Vec::new(),
        }
    }

    fn find(&self, f: u64) -> Option<Lit> {
        let node = self.nodes.find(f)?;
        Some(Lit {
            node,
            inv: self.nodes.funcs[node] != f,
        })
    }

    /// Two nodes `f` is a 2-input function of, newest first, with the table.
    fn pair(&self, f: u64) -> Option<(u8, u8, usize, usize)> {
        let n = self.nodes.len();
        for i in (0..n).rev() {
            for j in (0..i).rev() {
                if let Some((t, care)) = restrict(f, &[self.nodes.funcs[i], self.nodes.funcs[j]]) {
                    return Some((t, care, i, j));
                }
            }
        }
        None
    }

    /// The cheapest small circuit over three existing nodes that builds `f`: (gates, its
    /// table, the nodes), newest nodes first among equals.
    fn triple(&self, f: u64) -> Option<(usize, u8, [usize; 3])> {
        let n = self.nodes.len();
        let mut best: Option<(usize, u8, [usize; 3])> = None;
        for i in (0..n).rev() {
            for j in (0..i).rev() {
                for k in (0..j).rev() {
                    let nodes = [
                        self.nodes.funcs[i],
                        self.nodes.funcs[j],
                        self.nodes.funcs[k],
                    ];
                    let Some((table, care)) = restrict(f, &nodes) else {
                        continue;
                    };
                    if let Some((gates, table)) = cheapest_small(table, care) {
                        if best.is_none_or(|(g, ..)| gates < g) {
                            best = Some((gates, table, [i, j, k]));
                        }
                    }
                }
            }
        }
        best
    }

    /// Emits the small circuit of `table` over `nodes` (two gates or more: one-gate
    /// functions are [`Self::pair`]'s).
    fn small(&mut self, table: u8, nodes: [usize; 3]) -> Lit {
        let steps = small_circuits()[table as usize]
            .as_ref()
            .expect("chosen among the tables that have one");
        let mut lits: Vec<Lit> = nodes.map(|node| Lit { node, inv: false }).to_vec();
        let mut values = OPERANDS.to_vec();
        for step in steps {
            let read = |(i, inv): (usize, bool)| if inv { lits[i].not() } else { lits[i] };
            let (x, y) = (read(step.x), read(step.y));
            lits.push(if step.xor {
                self.xor(x, y)
            } else {
                self.and(x, y)
            });
            values.push(step.apply(&values));
        }
        let last = lits[lits.len() - 1];
        if values[values.len() - 1] == table {
            last
        } else {
            last.not()
        }
    }

    fn add(&mut self, op: Op, a: usize, b: usize) -> usize {
        let f = apply(op, self.nodes.funcs[a], self.nodes.funcs[b]);
        self.gates.push(Gate2 { op, a, b });
        self.nodes.push(f)
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
            self.triple(f)
                .map_or(SMALL_GATES as u32 + 1, |(gates, ..)| gates as u32)
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
        if let Some((_, table, nodes)) = self.triple(f) {
            return Built::Lit(self.small(table, nodes));
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

/// Which outputs end in a NOT (the synthesiser adds one only where an output came out
/// complemented).
pub fn complemented(net: &Netlist2) -> Vec<bool> {
    net.outputs
        .iter()
        .map(|&o| o >= INPUTS && net.gates[o - INPUTS].op == Op::Not)
        .collect()
}

/// Rust source of a netlist as a function generic over [`Logic`](super::Logic): inputs
/// `x[0..6]`, one 2-input operation per gate, outputs in order, without the outputs'
/// NOTs ([`complemented`]): the bitsliced rounds fold those into the round keys.
pub fn emit(name: &str, doc: &str, net: &Netlist2) -> String {
    let nots = complemented(net).iter().filter(|&&c| c).count();
    let gates = net.gates.len() - nots;
    let mut s = emit_head(name, doc, gates, &net.order, &net.build);
    for (k, g) in net.gates.iter().enumerate() {
        let n = INPUTS + k;
        s += &match g.op {
            Op::And => format!("    let n{n} = n{}.and(n{});\n", g.a, g.b),
            Op::AndNot => format!("    let n{n} = n{}.andnot(n{});\n", g.a, g.b),
            Op::Or => format!("    let n{n} = n{}.or(n{});\n", g.a, g.b),
            Op::Xor => format!("    let n{n} = n{}.xor(n{});\n", g.a, g.b),
            // Only outputs get a NOT; the output is its operand, complemented.
            Op::Not => String::new(),
        };
    }
    let outs: Vec<String> = net
        .outputs
        .iter()
        .map(|&o| match o.checked_sub(INPUTS).map(|k| net.gates[k]) {
            Some(Gate2 { op: Op::Not, a, .. }) => format!("n{a}"),
            _ => format!("n{o}"),
        })
        .collect();
    s += &format!("    [{}]\n}}\n", outs.join(", "));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_circuits_compute_their_tables_in_the_fewest_gates() {
        let circuits = small_circuits();
        for (t, c) in circuits.iter().enumerate() {
            let Some(steps) = c else { continue };
            let mut values = OPERANDS.to_vec();
            for step in steps {
                values.push(step.apply(&values));
            }
            let last = values[values.len() - 1];
            let t = t as u8;
            assert!(
                steps.is_empty() || last == t || last == !t,
                "table {t:#04x}"
            );
        }
        let gates = |t: u8| circuits[t as usize].as_ref().map(Vec::len);
        // a ^ b ^ c, a & b & c, the mux a ? b : c (c ^ (a & (b ^ c))); majority takes four.
        assert_eq!(gates(0xf0 ^ 0xcc ^ 0xaa), Some(2));
        assert_eq!(gates(0xf0 & 0xcc & 0xaa), Some(2));
        assert_eq!(gates((0xf0 & 0xcc) | (!0xf0 & 0xaa)), Some(3));
        assert_eq!(gates((0xf0 & 0xcc) | (0xf0 & 0xaa) | (0xcc & 0xaa)), None);
        assert_eq!(gates(0xf0), Some(0));
    }

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
