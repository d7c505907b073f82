//! Gate lists from the generic circuits: [`Trace`] is a [`Logic`] type whose operations
//! record [`Gate`]s instead of computing, so running a circuit written over `Logic` (a DES
//! S-box, the AES S-box, MixColumns) on `Trace` inputs yields its netlist. [`Circuit`]
//! executes a netlist on any `Logic` type and counts its gates; it is the form an
//! architecture model (the MX-1 SIMD matrix's cycle model) consumes.
//!
//! The recorder is thread-local: [`Circuit::record`] clears it, runs the circuit, and takes
//! the gates, so independent recordings on different threads never mix.
#![deny(unsafe_code)]

use std::cell::RefCell;

use super::Logic;

/// One operation of a netlist. Operands are node numbers: the circuit's inputs are nodes
/// `0..inputs`, gate `k` is node `inputs + k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Gate {
    pub op: Op,
    pub a: u32,
    pub b: u32,
    pub c: u32,
}

/// The operation of a [`Gate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// A broadcast constant (each 64-bit word = the value); no operands.
    Const(u64),
    Xor,
    And,
    Or,
    /// `!a & b`.
    AndNot,
    /// `!a`.
    Not,
    /// 3-input function, truth table bit `4a + 2b + c` (one `vpternlogq`).
    Tern(u8),
}

thread_local! {
    static TAPE: RefCell<Vec<Gate>> = const { RefCell::new(Vec::new()) };
    static INPUTS: RefCell<u32> = const { RefCell::new(0) };
}

/// A traced value: the node number of the gate (or input) that produced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trace(pub u32);

fn push(op: Op, a: u32, b: u32, c: u32) -> Trace {
    let inputs = INPUTS.with(|i| *i.borrow());
    TAPE.with(|t| {
        let mut t = t.borrow_mut();
        t.push(Gate { op, a, b, c });
        Trace(inputs + t.len() as u32 - 1)
    })
}

impl Logic for Trace {
    fn splat(x: u64) -> Self {
        push(Op::Const(x), 0, 0, 0)
    }
    fn xor(self, o: Self) -> Self {
        push(Op::Xor, self.0, o.0, o.0)
    }
    fn and(self, o: Self) -> Self {
        push(Op::And, self.0, o.0, o.0)
    }
    fn or(self, o: Self) -> Self {
        push(Op::Or, self.0, o.0, o.0)
    }
    fn andnot(self, o: Self) -> Self {
        push(Op::AndNot, self.0, o.0, o.0)
    }
    fn not(self) -> Self {
        push(Op::Not, self.0, self.0, self.0)
    }
    fn tern<const IMM: i32>(a: Self, b: Self, c: Self) -> Self {
        push(Op::Tern(IMM as u8), a.0, b.0, c.0)
    }
}

/// A netlist: `inputs` input nodes, `gates` in evaluation order, `outputs` node numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circuit {
    pub inputs: u32,
    pub gates: Vec<Gate>,
    pub outputs: Vec<u32>,
}

/// Gate counts of a [`Circuit`] by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateCount {
    /// XOR, AND, OR, ANDNOT (2-input operations).
    pub two_input: usize,
    /// NOT.
    pub not: usize,
    /// 3-input operations (`vpternlogq`).
    pub ternary: usize,
    /// Broadcast constants.
    pub constants: usize,
}

impl GateCount {
    /// Logic operations (everything but constants).
    pub fn ops(&self) -> usize {
        self.two_input + self.not + self.ternary
    }
}

impl Circuit {
    /// Records the netlist of `f` applied to `inputs` fresh input nodes.
    pub fn record(inputs: u32, f: impl FnOnce(&[Trace]) -> Vec<Trace>) -> Circuit {
        INPUTS.with(|i| *i.borrow_mut() = inputs);
        TAPE.with(|t| t.borrow_mut().clear());
        let ins: Vec<Trace> = (0..inputs).map(Trace).collect();
        let outs = f(&ins);
        let gates = TAPE.with(|t| std::mem::take(&mut *t.borrow_mut()));
        Circuit {
            inputs,
            gates,
            outputs: outs.iter().map(|t| t.0).collect(),
        }
    }

    /// Counts the gates by kind.
    pub fn count(&self) -> GateCount {
        let mut c = GateCount::default();
        for g in &self.gates {
            match g.op {
                Op::Const(_) => c.constants += 1,
                Op::Not => c.not += 1,
                Op::Tern(_) => c.ternary += 1,
                _ => c.two_input += 1,
            }
        }
        c
    }

    /// Executes the netlist on any lane type.
    pub fn eval<L: Logic>(&self, inputs: &[L]) -> Vec<L> {
        assert_eq!(inputs.len(), self.inputs as usize);
        let mut v: Vec<L> = inputs.to_vec();
        v.reserve(self.gates.len());
        for g in &self.gates {
            let (a, b, c) = (g.a as usize, g.b as usize, g.c as usize);
            let r = match g.op {
                Op::Const(x) => L::splat(x),
                Op::Xor => v[a].xor(v[b]),
                Op::And => v[a].and(v[b]),
                Op::Or => v[a].or(v[b]),
                Op::AndNot => v[a].andnot(v[b]),
                Op::Not => v[a].not(),
                Op::Tern(imm) => tern_dyn(imm, v[a], v[b], v[c]),
            };
            v.push(r);
        }
        self.outputs.iter().map(|&o| v[o as usize]).collect()
    }
}

/// A 3-input operation with a run-time truth table (for the interpreter): the sum of the
/// table's minterms.
fn tern_dyn<L: Logic>(imm: u8, a: L, b: L, c: L) -> L {
    let mut acc = L::splat(0);
    for p in 0..8 {
        if (imm >> p) & 1 == 1 {
            let pick = |x: L, bit: u8| if (p >> bit) & 1 == 1 { x } else { x.not() };
            acc = acc.or(pick(a, 2).and(pick(b, 1)).and(pick(c, 0)));
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_replays() {
        let c = Circuit::record(3, |x| {
            let t = Trace::tern::<0xca>(x[0], x[1], x[2]);
            vec![t.xor(x[0]), t.not()]
        });
        assert_eq!(c.count().ops(), 3);
        let (a, b, cc) = (0xf0u64, 0xccu64, 0xaau64);
        let out = c.eval(&[a, b, cc]);
        let t = (a & b) | (!a & cc);
        assert_eq!(out, vec![t ^ a, !t]);
    }
}
