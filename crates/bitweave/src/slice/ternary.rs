//! 3-input Boolean operations on lane types without one: each of the 256 truth tables
//! lowered, at compile time, to the cheapest sequence of 2-input operations.

use super::Logic;

/// How [`Logic::tern`] is lowered to 2-input operations: which input is split on (the
/// others keep their order) and the two 2-input cofactor functions.
#[derive(Clone, Copy, Debug)]
pub struct TernPlan {
    /// 0: split on `a`, 1: on `b`, 2: on `c`.
    split: u8,
    kind: u8,
    /// 2-input truth tables over (x, y) = the two remaining inputs, index `2x + y`.
    g: u8,
    h: u8,
}

const K_SAME: u8 = 0; // f = g
const K_XOR: u8 = 1; // f = s ^ g
const K_AND: u8 = 2; // f = s & g
const K_ANDN: u8 = 3; // f = !s & g
const K_OR: u8 = 4; // f = s | g
const K_ORN: u8 = 5; // f = !s | g
const K_DAVIO: u8 = 6; // f = g ^ (s & h)

/// Operations a 2-input truth table costs.
const fn cost2(t: u8) -> u32 {
    match t & 15 {
        0x0 | 0xf | 0xc | 0xa => 0,
        0x8 | 0xe | 0x6 | 0x2 | 0x4 | 0x3 | 0x5 => 1,
        _ => 2,
    }
}

/// The truth-table index of input values when input `split` is `s` and the other two, in
/// order, are `x` and `y`.
const fn tern_index(split: u8, s: u8, x: u8, y: u8) -> u8 {
    match split {
        0 => (s << 2) | (x << 1) | y,
        1 => (x << 2) | (s << 1) | y,
        _ => (x << 2) | (y << 1) | s,
    }
}

/// Chooses the cheapest lowering of a 3-input truth table (evaluated at compile time).
pub const fn plan(imm: u8) -> TernPlan {
    let mut best = TernPlan {
        split: 0,
        kind: K_DAVIO,
        g: 0,
        h: 0,
    };
    let mut best_cost = u32::MAX;
    let mut split = 0u8;
    while split < 3 {
        // Cofactors: f0 (split input 0) and f1, as 2-input tables over the other two.
        let (mut f0, mut f1) = (0u8, 0u8);
        let mut xy = 0u8;
        while xy < 4 {
            let (x, y) = ((xy >> 1) & 1, xy & 1);
            f0 |= ((imm >> tern_index(split, 0, x, y)) & 1) << xy;
            f1 |= ((imm >> tern_index(split, 1, x, y)) & 1) << xy;
            xy += 1;
        }
        let (kind, g, h, cost) = if f0 == f1 {
            (K_SAME, f0, 0, cost2(f0))
        } else if f0 ^ f1 == 15 {
            (K_XOR, f0, 0, 1 + cost2(f0))
        } else if f0 == 0 {
            (K_AND, f1, 0, 1 + cost2(f1))
        } else if f1 == 0 {
            (K_ANDN, f0, 0, 1 + cost2(f0))
        } else if f1 == 15 {
            (K_OR, f0, 0, 1 + cost2(f0))
        } else if f0 == 15 {
            (K_ORN, f1, 0, 2 + cost2(f1))
        } else {
            (K_DAVIO, f0, f0 ^ f1, 2 + cost2(f0) + cost2(f0 ^ f1))
        };
        if cost < best_cost {
            best_cost = cost;
            best = TernPlan { split, kind, g, h };
        }
        split += 1;
    }
    best
}

/// A 2-input function given by its truth table (index `2x + y`).
#[inline(always)]
fn two<L: Logic>(t: u8, x: L, y: L) -> L {
    match t & 15 {
        0x0 => L::splat(0),
        0xf => L::splat(!0),
        0xc => x,
        0xa => y,
        0x3 => x.not(),
        0x5 => y.not(),
        0x8 => x.and(y),
        0xe => x.or(y),
        0x6 => x.xor(y),
        0x2 => x.andnot(y),
        0x4 => y.andnot(x),
        0x7 => x.and(y).not(),
        0x1 => x.or(y).not(),
        0x9 => x.xor(y).not(),
        0xb => y.andnot(x).not(), // !x | y
        _ => x.andnot(y).not(),   // 0xd: x | !y
    }
}

/// Executes a [`TernPlan`]; with a constant plan every `match` folds away.
#[inline(always)]
pub fn tern_lowered<L: Logic>(p: TernPlan, a: L, b: L, c: L) -> L {
    let (s, x, y) = match p.split {
        0 => (a, b, c),
        1 => (b, a, c),
        _ => (c, a, b),
    };
    let g = two(p.g, x, y);
    match p.kind {
        K_SAME => g,
        K_XOR => s.xor(g),
        K_AND => s.and(g),
        K_ANDN => s.andnot(g),
        K_OR => s.or(g),
        K_ORN => g.andnot(s).not(),
        _ => g.xor(s.and(two(p.h, x, y))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 3-input truth table lowers correctly (checked on u64 lanes, all 8 input
    /// combinations at once).
    #[test]
    fn tern_lowering_matches_truth_table() {
        let (a, b, c) = (0xf0u64, 0xccu64, 0xaau64);
        for imm in 0..=255u8 {
            let got = tern_lowered::<u64>(plan(imm), a, b, c) & 0xff;
            assert_eq!(got, imm as u64, "imm {imm:#04x}");
        }
        assert_eq!(u64::tern::<0x96>(a, b, c) & 0xff, 0x96);
        assert_eq!(u64::tern::<0xca>(a, b, c) & 0xff, 0xca);
    }
}
