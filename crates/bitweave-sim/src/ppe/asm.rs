//! The PPE assembler: readable text to VLIW instructions and a coefficient-memory image.
//! (The paper writes its programs by hand in machine form and names a compiler as future
//! work, section 3; this is the small assembler such programs need.)
//!
//! One instruction per line, `;` or `#` starts a comment:
//! ```text
//! op.w  DEST, A, B [, in [ADDR]] [, out]
//! ```
//! - `op`: `xor`, `add`, `sub`; `.w` the ALU lane size `16`, `32` or `64` (or `m0`..`m7`,
//!   raw mode bits). The rotator uses the same lane size.
//! - `DEST`: `acc` (result only latched in the accumulator) or `[ADDR]`, `[ADDR].lo`,
//!   `[ADDR].hi` (also written to the coefficient memory, whole word or one 32-bit half).
//! - `A`: `[ADDR]` (port A) or `xin` (the input port; needs `in`).
//! - `B`: `[ADDR]` (port B) or `acc`, through the rotator: `@(l0,l1,..)` makes output lane i
//!   take input lane `li`; `<<<n` / `>>>n` rotate every lane left / right by n, `<<<(n0,..)`
//!   lane by lane (amounts are per *output* lane); `!rot(mode;s0,s1,s2,s3;a0,a1,a2,a3)` gives
//!   the raw rotator bits. The rotator rotates right, so `<<<n` is assembled as `>>>(w-n)`.
//! - `in [ADDR]`: consume one word from xin and write it to ADDR (the write port is then
//!   taken, so DEST must be `acc`); `in` alone consumes xin for the A operand only.
//! - `out`: put the ALU result on the output port.
//!
//! Addresses are 0..63 (64-bit words), written as sums of numbers and symbols: `[J+2]`.
//! Directives: `.width W` (lane size for `.data`), `.equ NAME, EXPR`, `.if NAME` / `.else` /
//! `.endif` (NAME defined and non-zero), `.data ADDR: v, v, ...` (lane values packed into
//! words from ADDR on; values are numbers or named constants such as `mu0`, `nu3`).

use std::collections::HashMap;

use super::isa::{AluOp, Instruction, RotCtl, MODE_16, MODE_32, MODE_64};
use super::rotator::lane_ctl;

/// An assembly error, with the 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}:{line}: {message}")]
pub struct AsmError {
    pub name: String,
    pub line: usize,
    pub message: String,
}

/// An assembled program.
#[derive(Debug, Clone)]
pub struct Program {
    pub name: String,
    pub code: Vec<Instruction>,
    /// Coefficient-memory words the program expects preloaded: (address, value).
    pub data: Vec<(u8, u64)>,
}

impl Program {
    /// Bytes of instruction memory the program occupies (7 per instruction).
    pub fn code_bytes(&self) -> usize {
        self.code.len() * super::isa::INSTRUCTION_BYTES
    }

    /// Coefficient-memory words the program touches (reads, writes and preloaded data).
    pub fn coef_words_used(&self) -> usize {
        let mut used = [false; 64];
        for i in &self.code {
            if !i.a_xin {
                used[i.addr_a as usize] = true;
            }
            if !i.b_acc {
                used[i.addr_b as usize] = true;
            }
            if i.we != 0 {
                used[i.addr_w as usize] = true;
            }
        }
        for (a, _) in &self.data {
            used[*a as usize] = true;
        }
        used.iter().filter(|u| **u).count()
    }

    /// The program as assembly text (one instruction per line), which assembles back to the
    /// same bits.
    pub fn disassemble(&self) -> String {
        self.code.iter().map(|i| format!("{i}\n")).collect()
    }
}

/// Symbols the program can use (addresses, flags) and named constants for `.data`.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub symbols: HashMap<String, i64>,
    pub constants: HashMap<String, u64>,
}

impl Env {
    pub fn with(mut self, name: &str, v: i64) -> Self {
        self.symbols.insert(name.to_string(), v);
        self
    }
}

struct Ctx<'a> {
    name: &'a str,
    line: usize,
}

impl Ctx<'_> {
    fn err(&self, m: impl Into<String>) -> AsmError {
        AsmError {
            name: self.name.to_string(),
            line: self.line,
            message: m.into(),
        }
    }
}

fn number(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(&h.replace('_', ""), 16).ok()
    } else {
        s.replace('_', "").parse().ok()
    }
}

fn expr(c: &Ctx, syms: &HashMap<String, i64>, s: &str) -> Result<i64, AsmError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(c.err("empty expression"));
    }
    let mut total = 0i64;
    for term in s.split('+') {
        let t = term.trim();
        total += match number(t) {
            Some(n) => n,
            None => *syms
                .get(t)
                .ok_or_else(|| c.err(format!("unknown symbol '{t}'")))?,
        };
    }
    Ok(total)
}

fn address(c: &Ctx, syms: &HashMap<String, i64>, s: &str) -> Result<u8, AsmError> {
    let s = s.trim();
    let inner = s
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| c.err(format!("expected [ADDRESS], found '{s}'")))?;
    let a = expr(c, syms, inner)?;
    if !(0..64).contains(&a) {
        return Err(c.err(format!(
            "address {a} outside the 64-word coefficient memory"
        )));
    }
    Ok(a as u8)
}

/// Splits at commas that are not inside brackets or parentheses.
fn split_top(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0i32;
    for ch in s.chars() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            out.push(String::new());
        } else {
            out.last_mut().unwrap().push(ch);
        }
    }
    out.into_iter().map(|x| x.trim().to_string()).collect()
}

fn list(c: &Ctx, s: &str) -> Result<Vec<u32>, AsmError> {
    let s = s.trim();
    let inner = match s.strip_prefix('(') {
        Some(r) => r
            .strip_suffix(')')
            .ok_or_else(|| c.err(format!("unclosed '(' in '{s}'")))?,
        None => s,
    };
    inner
        .split(',')
        .map(|t| {
            number(t)
                .filter(|v| *v >= 0)
                .map(|v| v as u32)
                .ok_or_else(|| c.err(format!("expected a number, found '{}'", t.trim())))
        })
        .collect()
}

/// Where the rotator part of a B operand starts.
fn split_rot(s: &str) -> (&str, &str) {
    let i = s.find(['@', '<', '>', '!']).unwrap_or(s.len());
    (s[..i].trim(), s[i..].trim())
}

fn parse_rot(c: &Ctx, spec: &str, mode: u8) -> Result<RotCtl, AsmError> {
    if let Some(raw) = spec.strip_prefix("!rot(") {
        let raw = raw
            .strip_suffix(')')
            .ok_or_else(|| c.err("unclosed !rot("))?;
        let parts: Vec<&str> = raw.split(';').collect();
        if parts.len() != 3 {
            return Err(c.err("!rot needs MODE;SEL0..3;AMT0..3"));
        }
        let m = number(parts[0]).filter(|m| (0..8).contains(m));
        let sel = list(c, parts[1])?;
        let amt = list(c, parts[2])?;
        let (Some(m), 4, 4) = (m, sel.len(), amt.len()) else {
            return Err(c.err("!rot needs a mode 0..7, four selects and four amounts"));
        };
        if sel.iter().any(|s| *s > 3) || amt.iter().any(|a| *a > 15) {
            return Err(c.err("!rot selects are 0..3 and amounts 0..15"));
        }
        return Ok(RotCtl {
            mode: m as u8,
            sel: core::array::from_fn(|i| sel[i] as u8),
            amt: core::array::from_fn(|i| amt[i] as u8),
        });
    }
    let bits = super::isa::word_bits(mode)
        .ok_or_else(|| c.err("lane shuffles and rotations need a .16, .32 or .64 op"))?;
    let lanes = (64 / bits) as usize;
    let mut src: Vec<u32> = (0..lanes as u32).collect();
    let mut amt = vec![0u32; lanes];
    let mut rest = spec;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('@') {
            let end = r.find(')').ok_or_else(|| c.err("unclosed '@('"))?;
            src = list(c, &r[..=end])?;
            if src.len() != lanes || src.iter().any(|s| *s as usize >= lanes) {
                return Err(c.err(format!(
                    "'@' needs {lanes} source lanes, each 0..{}",
                    lanes - 1
                )));
            }
            rest = r[end + 1..].trim();
        } else if let Some((left, r)) = rest
            .strip_prefix("<<<")
            .map(|r| (true, r))
            .or_else(|| rest.strip_prefix(">>>").map(|r| (false, r)))
        {
            let (body, tail) = if r.starts_with('(') {
                let end = r.find(')').ok_or_else(|| c.err("unclosed '('"))?;
                (&r[..=end], &r[end + 1..])
            } else {
                let end = r
                    .find(|ch: char| !ch.is_ascii_alphanumeric())
                    .unwrap_or(r.len());
                (&r[..end], &r[end..])
            };
            let mut v = list(c, body)?;
            if v.len() == 1 {
                v = vec![v[0]; lanes];
            }
            if v.len() != lanes || v.iter().any(|n| *n >= bits) {
                return Err(c.err(format!("rotation needs 1 or {lanes} amounts below {bits}")));
            }
            amt = v
                .iter()
                .map(|n| if left { (bits - n) % bits } else { *n })
                .collect();
            rest = tail.trim();
        } else {
            return Err(c.err(format!("cannot read rotator spec '{rest}'")));
        }
    }
    let src8: Vec<u8> = src.iter().map(|s| *s as u8).collect();
    Ok(lane_ctl(mode, bits, &src8, &amt))
}

fn dest_half(c: &Ctx, s: &str) -> Result<(String, u8), AsmError> {
    if let Some(a) = s.strip_suffix(".lo") {
        Ok((a.to_string(), 0b01))
    } else if let Some(a) = s.strip_suffix(".hi") {
        Ok((a.to_string(), 0b10))
    } else if s.ends_with(']') {
        Ok((s.to_string(), 0b11))
    } else {
        Err(c.err(format!("bad destination '{s}'")))
    }
}

fn instruction(
    c: &Ctx,
    syms: &HashMap<String, i64>,
    mnemonic: &str,
    operands: &str,
) -> Result<Instruction, AsmError> {
    let (op, size) = mnemonic
        .split_once('.')
        .ok_or_else(|| c.err(format!("'{mnemonic}' needs a lane size, e.g. add.16")))?;
    let op = match op {
        "xor" => AluOp::Xor,
        "add" => AluOp::Add,
        "sub" => AluOp::Sub,
        _ => return Err(c.err(format!("unknown operation '{op}'"))),
    };
    let mode = match size {
        "16" => MODE_16,
        "32" => MODE_32,
        "64" => MODE_64,
        m => match m.strip_prefix('m').and_then(number) {
            Some(v) if (0..8).contains(&v) => v as u8,
            _ => return Err(c.err(format!("unknown lane size '{m}'"))),
        },
    };
    let f = split_top(operands);
    if f.len() < 3 {
        return Err(c.err("expected DEST, A, B"));
    }
    let mut ins = Instruction {
        input: false,
        output: false,
        addr_a: 0,
        addr_b: 0,
        addr_w: 0,
        we: 0,
        rot: RotCtl::identity(mode),
        alu_mode: mode,
        op,
        a_xin: false,
        b_acc: false,
    };
    // Options first: `in` decides what the write port does.
    for opt in &f[3..] {
        if opt == "out" {
            if ins.output {
                return Err(c.err("'out' given twice"));
            }
            ins.output = true;
        } else if opt == "in" {
            if ins.input {
                return Err(c.err("'in' given twice"));
            }
            ins.input = true;
        } else if let Some(a) = opt.strip_prefix("in ") {
            if ins.input {
                return Err(c.err("'in' given twice"));
            }
            let (a, we) = dest_half(c, a.trim())?;
            ins.input = true;
            ins.addr_w = address(c, syms, &a)?;
            ins.we = we;
        } else {
            return Err(c.err(format!("unknown option '{opt}'")));
        }
    }
    if f[0] != "acc" {
        if ins.input {
            return Err(c.err("the write port is taken by 'in': the destination must be 'acc'"));
        }
        let (a, we) = dest_half(c, &f[0])?;
        ins.addr_w = address(c, syms, &a)?;
        ins.we = we;
    }
    if f[1] == "xin" {
        if !ins.input {
            return Err(c.err("reading xin needs the 'in' option"));
        }
        ins.a_xin = true;
    } else {
        ins.addr_a = address(c, syms, &f[1])?;
    }
    let (b, spec) = split_rot(&f[2]);
    if b == "acc" {
        ins.b_acc = true;
    } else {
        ins.addr_b = address(c, syms, b)?;
    }
    if !spec.is_empty() {
        ins.rot = parse_rot(c, spec, mode)?;
    }
    Ok(ins)
}

/// Assembles `text` with the symbols and constants of `env`.
pub fn assemble(name: &str, text: &str, env: &Env) -> Result<Program, AsmError> {
    let mut syms = env.symbols.clone();
    let mut code = Vec::new();
    let mut data = Vec::new();
    let mut width: Option<u32> = None;
    // Stack of (this branch active, an earlier branch was taken).
    let mut conds: Vec<(bool, bool)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let c = Ctx { name, line: n + 1 };
        let line = raw.split([';', '#']).next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        let (head, rest) = line
            .split_once(char::is_whitespace)
            .map(|(h, r)| (h, r.trim()))
            .unwrap_or((line, ""));
        let active = conds.iter().all(|(a, _)| *a);
        match head {
            ".if" => {
                let on = active && syms.get(rest).is_some_and(|v| *v != 0);
                conds.push((on, on));
                continue;
            }
            ".else" => {
                let Some((_, taken)) = conds.pop() else {
                    return Err(c.err(".else without .if"));
                };
                let parent = conds.iter().all(|(a, _)| *a);
                conds.push((parent && !taken, true));
                continue;
            }
            ".endif" => {
                if conds.pop().is_none() {
                    return Err(c.err(".endif without .if"));
                }
                continue;
            }
            _ => {}
        }
        if !active {
            continue;
        }
        match head {
            ".width" => {
                width = match number(rest) {
                    Some(w @ (16 | 32 | 64)) => Some(w as u32),
                    _ => return Err(c.err(format!("bad width '{rest}'"))),
                };
            }
            ".equ" => {
                let (k, v) = rest
                    .split_once(',')
                    .ok_or_else(|| c.err(".equ NAME, VALUE"))?;
                let v = expr(&c, &syms, v)?;
                syms.insert(k.trim().to_string(), v);
            }
            ".data" => {
                let w = width.ok_or_else(|| c.err(".data before .width"))?;
                let (a, vals) = rest
                    .split_once(':')
                    .ok_or_else(|| c.err(".data ADDR: values"))?;
                let base = address(&c, &syms, &format!("[{}]", a.trim()))?;
                let lanes = (64 / w) as usize;
                let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
                let vals: Vec<u64> = vals
                    .split(',')
                    .map(|v| {
                        let v = v.trim();
                        number(v)
                            .map(|x| x as u64)
                            .or_else(|| env.constants.get(v).copied())
                            .ok_or_else(|| c.err(format!("unknown constant '{v}'")))
                    })
                    .collect::<Result<_, _>>()?;
                if !vals.len().is_multiple_of(lanes) {
                    return Err(c.err(format!("{lanes} lane values per word")));
                }
                for (i, word) in vals.chunks(lanes).enumerate() {
                    let a = base as usize + i;
                    if a >= 64 {
                        return Err(c.err(".data runs past the coefficient memory"));
                    }
                    let v = word
                        .iter()
                        .enumerate()
                        .fold(0u64, |acc, (l, x)| acc | (x & mask) << (w as usize * l));
                    data.push((a as u8, v));
                }
            }
            h if h.starts_with('.') => return Err(c.err(format!("unknown directive '{h}'"))),
            _ => code.push(instruction(&c, &syms, head, rest)?),
        }
    }
    if !conds.is_empty() {
        return Err(AsmError {
            name: name.to_string(),
            line: text.lines().count(),
            message: ".if without .endif".into(),
        });
    }
    Ok(Program {
        name: name.to_string(),
        code,
        data,
    })
}
