//! The compiler's back end, shared by the SPU and PPU programs: a list scheduler for one
//! straight-line loop body (the way GCC `-O3` schedules for an in-order machine) and a
//! linear-scan register allocator onto the unit's register file.
//!
//! Programs are written on virtual registers in SSA form, except *pinned* registers
//! (pointers, counters, constants set before the loop) which keep a fixed physical register.
//! The scheduler sees resource classes and latencies only through closures, so the SPU
//! (even/odd pipes) and the PPU (FXU, LSU, VMX units, two slots) share it.

use super::CellError;

/// Registers kept free for the most critical instruction of each cycle.
const RESERVE: isize = 6;

/// One instruction as the scheduler sees it.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// Registers read.
    pub uses: Vec<u16>,
    /// Registers written.
    pub defs: Vec<u16>,
    /// Resource class (index into the per-cycle capacities).
    pub res: usize,
    /// Memory access: loads may pass loads, nothing passes a store.
    pub mem: Mem,
    /// Must be the last instruction (the loop branch).
    pub last: bool,
}

/// Memory behaviour of a node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mem {
    #[default]
    None,
    Load,
    Store,
}

/// Orders `nodes` into issue cycles. `caps[r]` is how many class-`r` instructions may issue
/// in one cycle, `width` how many in all; `lat(p, c)` is the latency from producer `p` to a
/// consumer `c` reading one of its results. Registers below `pinned` are not SSA and get
/// write-after-read/write ordering; `max_live[class(v)]` bounds the SSA values of each
/// register class live at once (register pressure), relaxed only when nothing else can make
/// progress.
pub fn schedule(
    nodes: &[Node],
    caps: &[usize],
    width: usize,
    pinned: u16,
    max_live: &[usize],
    class: impl Fn(u16) -> usize,
    lat: impl Fn(usize, usize) -> u32,
) -> Vec<Vec<usize>> {
    let n = nodes.len();
    // Dependence edges (pred -> succ, latency).
    let mut preds: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    let mut last_def: std::collections::HashMap<u16, usize> = Default::default();
    let mut uses_since_def: std::collections::HashMap<u16, Vec<usize>> = Default::default();
    let mut mem_ops: Vec<usize> = Vec::new();
    let mut stores: Vec<usize> = Vec::new();
    for (i, nd) in nodes.iter().enumerate() {
        for &u in &nd.uses {
            if let Some(&p) = last_def.get(&u) {
                preds[i].push((p, lat(p, i)));
            }
            uses_since_def.entry(u).or_default().push(i);
        }
        for &d in &nd.defs {
            if d < pinned {
                for &r in uses_since_def.get(&d).map(|v| v.as_slice()).unwrap_or(&[]) {
                    if r != i {
                        preds[i].push((r, 1));
                    }
                }
                if let Some(&p) = last_def.get(&d) {
                    preds[i].push((p, 1));
                }
            }
            last_def.insert(d, i);
            uses_since_def.insert(d, Vec::new());
        }
        match nd.mem {
            Mem::Store => {
                preds[i].extend(mem_ops.iter().map(|&p| (p, 1)));
                stores.push(i);
                mem_ops.push(i);
            }
            Mem::Load => {
                preds[i].extend(stores.iter().map(|&p| (p, 1)));
                mem_ops.push(i);
            }
            Mem::None => {}
        }
        if nd.last {
            preds[i].extend((0..i).map(|p| (p, 0)));
        }
    }
    let mut succs: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    for (i, ps) in preds.iter().enumerate() {
        for &(p, l) in ps {
            succs[p].push((i, l));
        }
    }
    // Priority: the longest latency path to the end.
    let mut prio = vec![0u64; n];
    for i in (0..n).rev() {
        prio[i] = succs[i]
            .iter()
            .map(|&(s, l)| prio[s] + l.max(1) as u64)
            .max()
            .unwrap_or(0);
    }
    // Last SSA use of every value, for the pressure count.
    let mut remaining_uses: std::collections::HashMap<u16, usize> = Default::default();
    for nd in nodes {
        for &u in &nd.uses {
            if u >= pinned {
                *remaining_uses.entry(u).or_default() += 1;
            }
        }
    }
    let mut npred: Vec<usize> = preds.iter().map(|p| p.len()).collect();
    let mut earliest = vec![0u64; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| npred[i] == 0).collect();
    let mut done = 0;
    let mut cycles: Vec<Vec<usize>> = Vec::new();
    let mut live = vec![0usize; max_live.len()];
    let mut stalled = 0u32;
    let mut t = 0u64;
    while done < n {
        ready.sort_by(|&a, &b| prio[b].cmp(&prio[a]).then(a.cmp(&b)));
        let mut used = vec![0usize; caps.len()];
        let mut picked: Vec<usize> = Vec::new();
        for (rank, &i) in ready.iter().enumerate() {
            if picked.len() == width {
                break;
            }
            let nd = &nodes[i];
            if earliest[i] > t || used[nd.res] >= caps[nd.res] {
                continue;
            }
            if nd.last && done + picked.len() + 1 != n {
                continue;
            }
            let mut delta = vec![0isize; max_live.len()];
            for (k, &u) in nd.uses.iter().enumerate() {
                let here = nd.uses.iter().filter(|&&v| v == u).count();
                if u >= pinned && !nd.uses[..k].contains(&u) && remaining_uses[&u] == here {
                    delta[class(u)] -= 1;
                }
            }
            for &d in &nd.defs {
                if d >= pinned {
                    delta[class(d)] += 1;
                }
            }
            // Values that are not on the most critical path keep a reserve free for it, so
            // early loads cannot fill the register file and starve the chain.
            let reserve = if rank == 0 { 0 } else { RESERVE };
            let over = (0..max_live.len()).any(|c| {
                delta[c] > 0 && live[c] as isize + delta[c] + reserve > max_live[c] as isize
            });
            if over && stalled < 8 {
                continue;
            }
            used[nd.res] += 1;
            picked.push(i);
            for c in 0..max_live.len() {
                live[c] = (live[c] as isize + delta[c]) as usize;
            }
            for &u in &nd.uses {
                if u >= pinned {
                    *remaining_uses.get_mut(&u).unwrap() -= 1;
                }
            }
        }
        stalled = if picked.is_empty() { stalled + 1 } else { 0 };
        ready.retain(|i| !picked.contains(i));
        for &i in &picked {
            done += 1;
            for &(s, l) in &succs[i] {
                earliest[s] = earliest[s].max(t + l as u64);
                npred[s] -= 1;
                if npred[s] == 0 {
                    ready.push(s);
                }
            }
        }
        picked.sort();
        cycles.push(picked);
        t += 1;
    }
    while cycles.last().is_some_and(|c| c.is_empty()) {
        cycles.pop();
    }
    cycles
}

/// Maps virtual registers to physical ones over a final instruction order. `order[i]` gives
/// the (uses, defs) of instruction i; registers below `pinned` map to themselves; an SSA
/// value takes a free register from `pools[class(v)]` at its definition and gives it back
/// after its last use (a value may be overwritten by the instruction that reads it last:
/// reads happen at issue, in order). Returns the map indexed by virtual register.
pub fn allocate(
    order: &[(Vec<u16>, Vec<u16>)],
    pinned: u16,
    pools: &[Vec<u16>],
    class: impl Fn(u16) -> usize,
    vregs: usize,
    unit: &'static str,
) -> Result<Vec<u16>, CellError> {
    let mut last_use = vec![usize::MAX; vregs];
    for (i, (uses, _)) in order.iter().enumerate() {
        for &u in uses {
            last_use[u as usize] = i;
        }
    }
    let mut map: Vec<u16> = (0..vregs as u16).collect();
    let mut free: Vec<Vec<u16>> = pools
        .iter()
        .map(|p| p.iter().rev().copied().collect())
        .collect();
    for (i, (uses, defs)) in order.iter().enumerate() {
        let mut seen = Vec::new();
        for &u in uses {
            if u >= pinned && last_use[u as usize] == i && !seen.contains(&u) {
                seen.push(u);
                free[class(u)].push(map[u as usize]);
            }
        }
        for &d in defs {
            if d >= pinned {
                let c = class(d);
                map[d as usize] = free[c].pop().ok_or(CellError::Registers {
                    unit,
                    available: pools[c].len(),
                })?;
                if last_use[d as usize] == usize::MAX {
                    // Dead value: its register is free again at once.
                    free[c].push(map[d as usize]);
                }
            }
        }
    }
    Ok(map)
}
