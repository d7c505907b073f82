//! A small circuit synthesiser for 6-input Boolean functions (the DES S-boxes), targeting
//! 3-input gates ([`Logic::tern`](super::Logic::tern): one `vpternlogq` each).
//!
//! Method (decomposition with sharing, constant folding and free complements):
//! 1. Functions are 64-bit truth tables; a node is kept once per complement pair, since a
//!    3-input gate can read any operand inverted by permuting its truth table.
//! 2. To build a function `f`: reuse an existing node (or its complement); otherwise, if `f`
//!    is a function of any three existing nodes (inputs or gates), emit one gate over them;
//!    otherwise split on the next variable of a chosen order and build two children, with
//!    the best of three expansions — Shannon `f = v ? f1 : f0`, positive Davio
//!    `f = f0 ^ (v & (f0 ^ f1))` and negative Davio `f = f1 ^ (!v & (f0 ^ f1))` — scored
//!    by how many children already exist or are one gate away. Constant cofactors fold into
//!    the parent gate's truth table.
//! 3. An output that came out complemented is fixed by inverting its gate's table and
//!    adjusting its readers (free), else by a NOT.
//! 4. [`best`] tries every choice of the three top split variables and their order (120)
//!    and keeps the smallest netlist.
//!
//! The tables come straight from the cipher's S-box definition; nothing is typed in.
#![deny(unsafe_code)]

use std::collections::HashMap;

/// Number of inputs the synthesiser handles.
pub const INPUTS: usize = 6;

/// Truth table of input `k` (input 0 is the most significant bit of the 6-bit index).
pub const fn var(k: usize) -> u64 {
    let mut t = 0u64;
    let mut v = 0;
    while v < 64 {
        if (v >> (INPUTS - 1 - k)) & 1 == 1 {
            t |= 1 << v;
        }
        v += 1;
    }
    t
}

/// A gate of a synthesised netlist: truth table `imm` (bit `4a + 2b + c`) over three nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SGate {
    pub imm: u8,
    pub ops: [usize; 3],
}

/// A gate of a netlist, evaluated on the truth tables of the nodes before it.
pub trait Gate {
    fn apply(&self, nodes: &[u64]) -> u64;
}

impl Gate for SGate {
    fn apply(&self, nodes: &[u64]) -> u64 {
        apply(
            self.imm,
            nodes[self.ops[0]],
            nodes[self.ops[1]],
            nodes[self.ops[2]],
        )
    }
}

/// A synthesised netlist: nodes `0..INPUTS` are the inputs, gate `k` is node `INPUTS + k`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Netlist<G = SGate> {
    pub gates: Vec<G>,
    pub outputs: Vec<usize>,
    /// The split-variable order it was built with.
    pub order: [usize; INPUTS],
    /// The order the outputs were built in (output indices).
    pub build: Vec<usize>,
}

impl<G: Gate> Netlist<G> {
    /// Evaluates the netlist on truth tables of the inputs (for checking).
    pub fn eval_tables(&self) -> Vec<u64> {
        let mut v: Vec<u64> = (0..INPUTS).map(var).collect();
        for g in &self.gates {
            v.push(g.apply(&v));
        }
        self.outputs.iter().map(|&o| v[o]).collect()
    }
}

/// Applies a 3-input truth table bitwise.
pub fn apply(imm: u8, a: u64, b: u64, c: u64) -> u64 {
    let mut r = 0;
    for p in 0..8 {
        if (imm >> p) & 1 == 1 {
            let pick = |x: u64, bit: u32| if (p >> bit) & 1 == 1 { x } else { !x };
            r |= pick(a, 2) & pick(b, 1) & pick(c, 0);
        }
    }
    r
}

/// `f` or its complement, whichever is 0 on input 0: one key for both.
pub(super) fn canon(f: u64) -> u64 {
    if f & 1 == 1 {
        !f
    } else {
        f
    }
}

/// `f` as a function of `nodes` (two or three), if it is one: its truth table (entry
/// index bits are the nodes' values, the first node most significant) and the mask of
/// entries some input reaches; the others are don't-cares.
pub(super) fn restrict(f: u64, nodes: &[u64]) -> Option<(u8, u8)> {
    let k = nodes.len();
    let (mut table, mut care) = (0u8, 0u8);
    for p in 0..1u8 << k {
        let m = nodes.iter().enumerate().fold(!0u64, |m, (i, &x)| {
            m & if (p >> (k - 1 - i)) & 1 == 1 { x } else { !x }
        });
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

/// The truth table of `f` as a function of three nodes, if it is one; don't-care entries
/// copy a neighbour so the gate depends on as few operands as possible.
fn fit(f: u64, a: u64, b: u64, c: u64) -> Option<u8> {
    let (mut imm, care) = restrict(f, &[a, b, c])?;
    let empty = !care;
    for p in 0..8u8 {
        if (empty >> p) & 1 == 1 {
            for flip in [1u8, 2, 4, 3, 5, 6, 7] {
                let q = p ^ flip;
                if (empty >> q) & 1 == 0 {
                    imm |= ((imm >> q) & 1) << p;
                    break;
                }
            }
        }
    }
    Some(imm)
}

struct State {
    order: [usize; INPUTS],
    nodes: Nodes,
    gates: Vec<SGate>,
}

/// A built function: a node, possibly read inverted, or a constant.
#[derive(Clone, Copy)]
enum Built {
    Node(usize),
    Const,
}

impl State {
    fn new(order: [usize; INPUTS]) -> Self {
        State {
            order,
            nodes: Nodes::inputs(),
            gates: Vec::new(),
        }
    }

    fn find(&self, f: u64) -> Option<usize> {
        self.nodes.find(f)
    }

    fn triple(&self, f: u64) -> Option<(u8, [usize; 3])> {
        let n = self.nodes.len();
        // Newest nodes first: they are the likeliest to share structure with f.
        for i in (0..n).rev() {
            for j in (0..i).rev() {
                for k in (0..j).rev() {
                    let (a, b, c) = (
                        self.nodes.funcs[i],
                        self.nodes.funcs[j],
                        self.nodes.funcs[k],
                    );
                    if let Some(imm) = fit(f, a, b, c) {
                        return Some((imm, [i, j, k]));
                    }
                }
            }
        }
        None
    }

    fn add(&mut self, imm: u8, ops: [usize; 3]) -> usize {
        let f = apply(
            imm,
            self.nodes.funcs[ops[0]],
            self.nodes.funcs[ops[1]],
            self.nodes.funcs[ops[2]],
        );
        self.gates.push(SGate { imm, ops });
        self.nodes.push(f)
    }

    fn score(&self, f: u64) -> u32 {
        if f == 0 || f == !0 || self.find(f).is_some() {
            0
        } else if self.triple(f).is_some() {
            1
        } else {
            3
        }
    }

    fn build(&mut self, f: u64) -> Built {
        if f == 0 || f == !0 {
            return Built::Const;
        }
        if let Some(n) = self.find(f) {
            return Built::Node(n);
        }
        if let Some((imm, ops)) = self.triple(f) {
            return Built::Node(self.add(imm, ops));
        }
        let v = *self
            .order
            .iter()
            .find(|&&v| cofactor(f, v, false) != cofactor(f, v, true))
            .expect("a function of more than three inputs depends on one");
        let (f0, f1) = (cofactor(f, v, false), cofactor(f, v, true));
        let h = f0 ^ f1;
        let options = [(f0, f1), (f0, h), (f1, h)];
        let (mut best, mut best_score) = (0, u32::MAX);
        for (i, &(x, y)) in options.iter().enumerate() {
            let s = if canon(x) == canon(y) {
                self.score(x)
            } else {
                self.score(x) + self.score(y)
            };
            if s < best_score {
                best = i;
                best_score = s;
            }
        }
        let (x, y) = options[best];
        let bx = self.build(x);
        let by = self.build(y);
        let node = |b: Built| match b {
            Built::Node(n) => n,
            Built::Const => v,
        };
        let ops = [v, node(bx), node(by)];
        let imm = fit(
            f,
            self.nodes.funcs[ops[0]],
            self.nodes.funcs[ops[1]],
            self.nodes.funcs[ops[2]],
        )
        .expect("f is a function of its split variable and cofactors");
        Built::Node(self.add(imm, ops))
    }

    /// Makes node `n` compute the complement of what it computes now, adjusting readers.
    fn invert(&mut self, n: usize) {
        let g = n - INPUTS;
        self.gates[g].imm = !self.gates[g].imm;
        self.nodes.funcs[n] = !self.nodes.funcs[n];
        for k in g + 1..self.gates.len() {
            let gate = &mut self.gates[k];
            let mut flip = 0u8;
            for (pos, &o) in gate.ops.iter().enumerate() {
                if o == n {
                    flip |= 4 >> pos;
                }
            }
            if flip != 0 {
                let old = gate.imm;
                gate.imm = (0..8u8).fold(0, |acc, p| acc | (((old >> (p ^ flip)) & 1) << p));
            }
        }
    }
}

/// The truth tables of the nodes built so far (the inputs first), and the first node
/// computing each function up to complement: what both synthesisers search and extend.
pub(super) struct Nodes {
    pub(super) funcs: Vec<u64>,
    known: HashMap<u64, usize>,
}

impl Nodes {
    /// The input nodes alone.
    pub(super) fn inputs() -> Self {
        let funcs: Vec<u64> = (0..INPUTS).map(var).collect();
        let known = funcs
            .iter()
            .enumerate()
            .map(|(i, &f)| (canon(f), i))
            .collect();
        Nodes { funcs, known }
    }

    /// The first node computing `f` or its complement.
    pub(super) fn find(&self, f: u64) -> Option<usize> {
        self.known.get(&canon(f)).copied()
    }

    /// Appends a node computing `f`; returns it.
    pub(super) fn push(&mut self, f: u64) -> usize {
        self.funcs.push(f);
        let id = self.funcs.len() - 1;
        self.known.entry(canon(f)).or_insert(id);
        id
    }

    pub(super) fn len(&self) -> usize {
        self.funcs.len()
    }
}

/// `f` with variable `v` fixed to `b`, as a function of all inputs (independent of `v`).
pub fn cofactor(f: u64, v: usize, b: bool) -> u64 {
    let m = var(v);
    let s = 1u32 << (INPUTS - 1 - v);
    if b {
        let hi = f & m;
        hi | (hi >> s)
    } else {
        let lo = f & !m;
        lo | (lo << s)
    }
}

/// Synthesises `tables` (one 64-bit truth table per output) with a given split order,
/// building the outputs in the order `build` (a permutation of the output indices).
pub fn synthesize(tables: &[u64], order: [usize; INPUTS], build: &[usize]) -> Netlist {
    let mut st = State::new(order);
    let mut outs = vec![0; tables.len()];
    for &i in build {
        let f = tables[i];
        outs[i] = match st.build(f) {
            Built::Node(n) => n,
            Built::Const => st.add(if f == 0 { 0x00 } else { 0xff }, [0, 0, 0]),
        };
    }
    for (i, &f) in tables.iter().enumerate() {
        let n = outs[i];
        if st.nodes.funcs[n] != f {
            let shared = outs.iter().enumerate().any(|(j, &o)| j != i && o == n);
            if n >= INPUTS && !shared {
                st.invert(n);
            } else {
                outs[i] = st.add(0x0f, [n, n, n]);
            }
        }
    }
    let net = Netlist {
        gates: st.gates,
        outputs: outs,
        order,
        build: build.to_vec(),
    };
    debug_assert_eq!(net.eval_tables(), tables);
    net
}

/// Every split order that differs in its three top variables (and their order).
pub fn orders() -> Vec<[usize; INPUTS]> {
    let mut v = Vec::new();
    for a in 0..INPUTS {
        for b in 0..INPUTS {
            for c in 0..INPUTS {
                if a != b && b != c && a != c {
                    let mut o = [a, b, c, 0, 0, 0];
                    let rest: Vec<usize> = (0..INPUTS).filter(|x| ![a, b, c].contains(x)).collect();
                    o[3..].copy_from_slice(&rest);
                    v.push(o);
                }
            }
        }
    }
    v
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for pos in 0..=p.len() {
            let mut q = p.clone();
            q.insert(pos, n - 1);
            out.push(q);
        }
    }
    out
}

/// The smallest netlist over all [`orders`] and all output build orders (the first found
/// among equals, so the result is deterministic).
pub fn best(tables: &[u64]) -> Netlist {
    smallest(
        tables.len(),
        |o, b| synthesize(tables, o, b),
        |n| n.gates.len(),
    )
}

/// The netlist `make` builds with the fewest `gates` over all split [`orders`] and all
/// orders of building `outputs` outputs (the first found among equals).
pub(super) fn smallest<N>(
    outputs: usize,
    make: impl Fn([usize; INPUTS], &[usize]) -> N,
    gates: impl Fn(&N) -> usize,
) -> N {
    let mut best: Option<N> = None;
    for build in permutations(outputs) {
        for o in orders() {
            let n = make(o, &build);
            if best.as_ref().is_none_or(|b| gates(&n) < gates(b)) {
                best = Some(n);
            }
        }
    }
    best.expect("at least one order")
}

/// Rust source of a netlist as a function generic over [`Logic`](super::Logic): inputs
/// `x[0..6]`, one `L::tern` per gate, outputs in order.
pub fn emit(name: &str, doc: &str, net: &Netlist) -> String {
    let mut s = emit_head(name, doc, net.gates.len(), &net.order, &net.build);
    for (k, g) in net.gates.iter().enumerate() {
        s += &format!(
            "    let n{} = L::tern::<0x{:02x}>(n{}, n{}, n{});\n",
            INPUTS + k,
            g.imm,
            g.ops[0],
            g.ops[1],
            g.ops[2]
        );
    }
    let outs: Vec<String> = net.outputs.iter().map(|o| format!("n{o}")).collect();
    s += &format!("    [{}]\n}}\n", outs.join(", "));
    s
}

/// The doc comment, signature and input binding of an emitted S-box function.
pub(super) fn emit_head(
    name: &str,
    doc: &str,
    gates: usize,
    order: &[usize; INPUTS],
    build: &[usize],
) -> String {
    let join = |v: &[usize]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = format!(
        "/// {doc}\n///\n/// {gates} gates; synthesised with split order [{}], outputs built in order [{}].\n",
        join(order),
        join(build)
    );
    s += "#[inline(always)]\n";
    s += &format!("pub fn {name}<L: Logic>(x: [L; 6]) -> [L; 4] {{\n");
    s += "    let [n0, n1, n2, n3, n4, n5] = x;\n";
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
        let net = synthesize(&tables, [0, 1, 2, 3, 4, 5], &[0, 1, 2, 3]);
        assert_eq!(net.eval_tables(), tables);
    }

    #[test]
    fn cofactors_drop_the_variable() {
        let f = var(2) & var(4);
        assert_eq!(cofactor(f, 2, true), var(4));
        assert_eq!(cofactor(f, 2, false), 0);
    }
}
