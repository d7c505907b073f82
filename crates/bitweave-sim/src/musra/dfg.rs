//! Data-flow graphs and their mapping onto the RCA (section 2.3, Fig. 4): nodes are bound to
//! cells and edges to the crossbars, and the graph becomes a context. Then the AES kernels
//! of section 4.1: `AddRoundKey()`, the combined `MixColumns()` + `AddRoundKey()` of Fig. 9
//! built on the transformed `MixColumns()` of Table 1 and eq. (2), and, for decryption, the
//! pre-multiplication that turns `InvMixColumns()` into `MixColumns()`.
//!
//! Mapping: nodes are taken in order; a node goes to the first row at or below
//! `1 + max(row of its node operands)` that has a free cell (operands from the FIFO, the GRF
//! or the LOR do not constrain it, since every row sees the FIFO entry of its own iteration).
//! A node operand from more than one row above is routed through PASS cells, one per row in
//! between, shared by all consumers. Every node gets its own cell, so no cell is used twice
//! in a cycle; [`map`] fails if a row or the array overflows.

use super::cell::{CellConfig, Op, Src, GRF_REGS};
use super::context::{Layer, COLS, ROWS};

/// A node operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    Node(usize),
    Fifo(u8),
    Grf(u8),
    GrfIter(u8),
    Lor,
}

/// One operation of the graph.
#[derive(Debug, Clone)]
pub struct Node {
    pub op: Op,
    pub args: Vec<Operand>,
    /// LOR value of the node's cell (when an operand is `Lor`).
    pub lor: u16,
}

/// A data-flow graph of one loop body (one iteration).
#[derive(Debug, Clone)]
pub struct Dfg {
    pub name: &'static str,
    /// Context id.
    pub id: u8,
    pub nodes: Vec<Node>,
    /// Output byte m of an iteration is node `outputs[m]`.
    pub outputs: Vec<usize>,
    /// Input bytes per iteration.
    pub in_bytes: u8,
    /// Global constants: GRF register and value.
    pub grf_consts: Vec<(usize, u16)>,
    pub key_period: u8,
    pub key_stride: u8,
}

impl Dfg {
    fn new(name: &'static str, id: u8, in_bytes: u8) -> Self {
        Dfg {
            name,
            id,
            nodes: Vec::new(),
            outputs: Vec::new(),
            in_bytes,
            grf_consts: Vec::new(),
            key_period: 1,
            key_stride: 0,
        }
    }

    /// Adds a node; operands must be earlier nodes.
    pub fn add(&mut self, op: Op, args: &[Operand]) -> usize {
        assert_eq!(args.len(), op.arity(), "{op:?}");
        for a in args {
            if let Operand::Node(n) = a {
                assert!(*n < self.nodes.len(), "operands precede their node");
            }
        }
        self.nodes.push(Node {
            op,
            args: args.to_vec(),
            lor: 0,
        });
        self.nodes.len() - 1
    }

    /// Evaluates the graph directly (the reference for the mapped array), 8-bit ops.
    pub fn eval(&self, input: &[u8], grf: &[u16; GRF_REGS], iter: u64) -> Vec<u8> {
        let mut v = vec![0u16; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            let get = |a: &Operand| -> u16 {
                match *a {
                    Operand::Node(k) => v[k],
                    Operand::Fifo(b) => u16::from(input[b as usize]),
                    Operand::Grf(r) => grf[r as usize],
                    Operand::GrfIter(b) => {
                        grf[(b as u64 + self.key_stride as u64 * (iter % self.key_period as u64))
                            as usize
                            % GRF_REGS]
                    }
                    Operand::Lor => n.lor,
                }
            };
            let a: Vec<u16> = n.args.iter().map(get).collect();
            let x = |k: usize| a.get(k).copied().unwrap_or(0);
            v[i] = n.op.eval(super::cell::OpWidth::W8, x(0), x(1), x(2));
        }
        self.outputs.iter().map(|&o| v[o] as u8).collect()
    }
}

/// Why a graph does not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("{0}: more than {ROWS} pipeline stages")]
    TooDeep(&'static str),
    #[error("{0}: row {1} has no free cell for a routing PASS")]
    NoRoute(&'static str, usize),
}

/// A graph bound to the array.
#[derive(Debug, Clone)]
pub struct Mapping {
    pub layer: Layer,
    /// Cell (row, col) of each graph node.
    pub place: Vec<(usize, usize)>,
    /// PASS cells inserted for routing.
    pub passes: usize,
}

/// Binds nodes to cells and edges to crossbar connections (see the module notes).
pub fn map(dfg: &Dfg) -> Result<Mapping, MapError> {
    let mut used = [0usize; ROWS];
    let mut cells = [[CellConfig::default(); COLS]; ROWS];
    let mut lor = [[0u16; COLS]; ROWS];
    let mut place: Vec<(usize, usize)> = Vec::with_capacity(dfg.nodes.len());
    // (source node, row) -> column of the PASS carrying it in that row.
    let mut routes: Vec<((usize, usize), usize)> = Vec::new();
    let mut passes = 0;
    for n in &dfg.nodes {
        let earliest = n
            .args
            .iter()
            .filter_map(|a| match a {
                Operand::Node(k) => Some(place[*k].0 + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let row = (earliest..ROWS)
            .find(|&r| used[r] < COLS)
            .ok_or(MapError::TooDeep(dfg.name))?;
        let col = used[row];
        used[row] += 1;
        let mut src = [Src::None; 3];
        for (k, a) in n.args.iter().enumerate() {
            src[k] = match *a {
                Operand::Fifo(b) => Src::Fifo(b),
                Operand::Grf(r) => Src::Grf(r),
                Operand::GrfIter(r) => Src::GrfIter(r),
                Operand::Lor => Src::Lor,
                Operand::Node(s) => {
                    let (mut r, mut c) = place[s];
                    while r + 1 < row {
                        r += 1;
                        c = match routes.iter().find(|(key, _)| *key == (s, r)) {
                            Some(&(_, pc)) => pc,
                            None => {
                                if used[r] >= COLS {
                                    return Err(MapError::NoRoute(dfg.name, r));
                                }
                                let pc = used[r];
                                used[r] += 1;
                                cells[r][pc] = CellConfig::new(Op::Pass, &[Src::Above(c as u8)]);
                                routes.push(((s, r), pc));
                                passes += 1;
                                pc
                            }
                        };
                    }
                    Src::Above(c as u8)
                }
            };
        }
        cells[row][col] = CellConfig {
            op: n.op,
            width: super::cell::OpWidth::W8,
            src,
        };
        lor[row][col] = n.lor;
        place.push((row, col));
    }
    let mut layer = Layer::empty(dfg.id);
    layer.cells = cells;
    layer.lor = lor;
    for &(r, v) in &dfg.grf_consts {
        layer.grf_mask |= 1 << r;
        layer.grf_init[r] = v;
    }
    layer.out_map = dfg
        .outputs
        .iter()
        .map(|&o| (place[o].0 * COLS + place[o].1) as u8)
        .collect();
    layer.in_bytes = dfg.in_bytes;
    layer.key_period = dfg.key_period;
    layer.key_stride = dfg.key_stride;
    Ok(Mapping {
        layer,
        place,
        passes,
    })
}

/// GRF registers 0–15: the current round key, byte 4c + r = row r of column c (loaded by
/// configuration words each round).
pub const GRF_KEY: usize = 0;
/// GRF constants of eq. (2) and of the decryption pre-multiplication (section 4.1: "constants
/// (in Eq. (2)) ... are pre-loaded into the GRF").
pub const GRF_7: u8 = 16;
pub const GRF_1: u8 = 17;
pub const GRF_1B: u8 = 18;
pub const GRF_2: u8 = 19;
pub const GRF_6: u8 = 20;

/// Context ids.
pub const ID_ADD_ROUND_KEY: u8 = 1;
pub const ID_MIX_ADD: u8 = 2;
pub const ID_INV_PRE: u8 = 3;

/// `AddRoundKey()`: one iteration is one 16-byte state, XORed byte by byte with the round key
/// in the GRF (section 4.1: "simple to XOR each byte ... with a corresponding round key
/// byte"). Sixteen XOR cells fill rows 0 and 1.
pub fn add_round_key() -> Dfg {
    let mut g = Dfg::new("AddRoundKey", ID_ADD_ROUND_KEY, 16);
    for m in 0..16u8 {
        let n = g.add(
            Op::Xor,
            &[Operand::Fifo(m), Operand::Grf(GRF_KEY as u8 + m)],
        );
        g.outputs.push(n);
    }
    g
}

/// `Mix_Add()` (Fig. 9): `MixColumns()` in the transformed form of Table 1 followed by
/// `AddRoundKey()`, one state column x0..x3 per iteration from the input FIFO:
///
/// y_i = 2*(x_i ^ x_{i+1}) ^ x_{i+1} ^ x_{i+2} ^ x_{i+3} ^ k_i (indices mod 4),
///
/// with 2*a = (a << 1) ^ ((a >> 7) & 0x01) * 0x1b (eq. 2) built from SHL, SHR, AND, MUL and
/// XOR cells. Stages: 4 pair XORs; 4 SHR + 4 SHL; 4 AND + 4 XOR (with x_{i+1}); 4 MUL + 4
/// XOR3 (with x_{i+2}, x_{i+3}); 4 XOR; 4 XOR with the round-key byte — 36 operations in a
/// 6-stage pipeline (section 4.1). The key byte of column c is GRF[4c + i], column c being
/// the iteration number mod 4.
pub fn mix_add() -> Dfg {
    use Operand::{Fifo, Grf, GrfIter, Node};
    let mut g = Dfg::new("Mix_Add", ID_MIX_ADD, 4);
    g.key_period = 4;
    g.key_stride = 4;
    g.grf_consts = vec![
        (GRF_7 as usize, 7),
        (GRF_1 as usize, 1),
        (GRF_1B as usize, 0x1b),
    ];
    let x = |i: usize| Fifo((i % 4) as u8);
    let a: Vec<usize> = (0..4).map(|i| g.add(Op::Xor, &[x(i), x(i + 1)])).collect();
    let mut hl = Vec::new();
    for &ai in &a {
        let h = g.add(Op::Shr, &[Node(ai), Grf(GRF_7)]);
        let l = g.add(Op::Shl, &[Node(ai), Grf(GRF_1)]);
        hl.push((h, l));
    }
    let mut mn = Vec::new();
    for (i, &(h, l)) in hl.iter().enumerate() {
        let m = g.add(Op::And, &[Node(h), Grf(GRF_1)]);
        let n = g.add(Op::Xor, &[Node(l), x(i + 1)]);
        mn.push((m, n));
    }
    let mut rn = Vec::new();
    for (i, &(m, n)) in mn.iter().enumerate() {
        let r = g.add(Op::Mul, &[Node(m), Grf(GRF_1B)]);
        let n2 = g.add(Op::Xor3, &[Node(n), x(i + 2), x(i + 3)]);
        rn.push((r, n2));
    }
    let y: Vec<usize> = rn
        .iter()
        .map(|&(r, n2)| g.add(Op::Xor, &[Node(r), Node(n2)]))
        .collect();
    for (i, &yi) in y.iter().enumerate() {
        let z = g.add(Op::Xor, &[Node(yi), GrfIter(GRF_KEY as u8 + i as u8)]);
        g.outputs.push(z);
    }
    g
}

/// `InvPre` (decryption): x'_i = x_i ^ 4*(x_i ^ x_{i+2}), the factor with
/// InvMixColumns = MixColumns ∘ InvPre (circ(0e,0b,0d,09) = circ(02,03,01,01)·circ(05,00,04,00)),
/// so that decryption reuses `Mix_Add()` (with the equivalent inverse cipher's round keys,
/// FIPS-197 §5.3.5). The paper maps decryption too (section 5) but does not show its DFG:
/// this graph is the model's. 4*u = (u << 2) ^ ((u >> 7) & 1) * 0x36 ^ ((u >> 6) & 1) * 0x1b,
/// eq. (2) applied twice; 0x36 sits in the MUL cells' LORs (array constants, section 2.1).
pub fn inv_pre() -> Dfg {
    use Operand::{Fifo, Grf, Lor, Node};
    let mut g = Dfg::new("InvPre", ID_INV_PRE, 4);
    g.grf_consts = vec![
        (GRF_7 as usize, 7),
        (GRF_1 as usize, 1),
        (GRF_1B as usize, 0x1b),
        (GRF_2 as usize, 2),
        (GRF_6 as usize, 6),
    ];
    let u = g.add(Op::Xor, &[Fifo(0), Fifo(2)]);
    let v = g.add(Op::Xor, &[Fifo(1), Fifo(3)]);
    let mut parts = Vec::new();
    for w in [u, v] {
        let s = g.add(Op::Shl, &[Node(w), Grf(GRF_2)]);
        let h7 = g.add(Op::Shr, &[Node(w), Grf(GRF_7)]);
        let h6 = g.add(Op::Shr, &[Node(w), Grf(GRF_6)]);
        parts.push((s, h7, h6));
    }
    let mut ands = Vec::new();
    for &(s, h7, h6) in &parts {
        let a7 = g.add(Op::And, &[Node(h7), Grf(GRF_1)]);
        let a6 = g.add(Op::And, &[Node(h6), Grf(GRF_1)]);
        ands.push((s, a7, a6));
    }
    let mut prods = Vec::new();
    for &(s, a7, a6) in &ands {
        let m7 = g.add(Op::Mul, &[Node(a7), Lor]);
        g.nodes[m7].lor = 0x36;
        let m6 = g.add(Op::Mul, &[Node(a6), Grf(GRF_1B)]);
        prods.push((s, m7, m6));
    }
    let quad: Vec<usize> = prods
        .iter()
        .map(|&(s, m7, m6)| g.add(Op::Xor3, &[Node(s), Node(m7), Node(m6)]))
        .collect();
    for i in 0..4u8 {
        let o = g.add(Op::Xor, &[Fifo(i), Node(quad[(i % 2) as usize])]);
        g.outputs.push(o);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig9_shape_36_ops_6_stages_no_routing() {
        let m = map(&mix_add()).unwrap();
        assert_eq!(m.layer.ops(), 36);
        assert_eq!(m.layer.rows_used(), 6);
        assert_eq!(m.passes, 0);
        let per_row: Vec<usize> = (0..6)
            .map(|r| m.layer.cells[r].iter().filter(|c| c.active()).count())
            .collect();
        assert_eq!(per_row, vec![4, 8, 8, 8, 4, 4]);
        // Outputs from cells 0..3 of row 5 (Fig. 14: pe_out(5)(0) .. pe_out(5)(3)).
        assert_eq!(m.layer.out_map, vec![40, 41, 42, 43]);
    }

    #[test]
    fn mapper_routes_long_edges_and_spills_full_rows() {
        let m = map(&add_round_key()).unwrap();
        assert_eq!(
            m.layer.rows_used(),
            2,
            "16 XORs spill from row 0 into row 1"
        );
        let p = map(&inv_pre()).unwrap();
        assert_eq!(p.passes, 4, "the two SHL results are carried over two rows");
        assert_eq!(p.layer.ops(), 26);
        assert_eq!(p.layer.rows_used(), 6);
    }

    #[test]
    fn every_node_has_its_own_cell() {
        for g in [add_round_key(), mix_add(), inv_pre()] {
            let m = map(&g).unwrap();
            let mut seen = std::collections::HashSet::new();
            for p in &m.place {
                assert!(seen.insert(*p), "{}: cell {p:?} bound twice", g.name);
            }
            assert_eq!(m.layer.ops(), g.nodes.len() + m.passes);
        }
    }
}
