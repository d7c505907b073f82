//! The LEON3 software (section 4.1, Fig. 7(b)): `KeyExpansion()`, `SubBytes()`,
//! `ShiftRows()` (and the inverses) — the `Sub_Shft()` task of Fig. 11 — plus, for the
//! LEON3-only run of Table 2, `AddRoundKey()` and `MixColumns()` in software, and the driver
//! code that programs the DMAs and the parser and serves interrupts.
//!
//! The paper's C code follows the structure of its Fig. 7 (the function names and call
//! counts of the Fig. 8 profile are those of the widespread byte-oriented "tiny AES" C code);
//! its compiled form is not given. Each routine here is the instruction sequence assumed
//! for it: a SPARC V8 leaf function with its 4×4 byte loops fully unrolled and scheduled so
//! that no load result is used by the next instruction, the state pointer in a register,
//! one `call` (+ delay slot) per call and a `retl` (+ `nop`) per return — a lean reading that
//! favours short run times. Every instruction is issued through [`Leon3`], which does the
//! data work and charges its cost.

use super::leon3::{map, Class, Leon3, Mem};

/// `KeyExpansion()` (FIPS-197 §5.2, tiny-AES structure): expands the key at
/// [`map::KEY`] into [`map::ROUND_KEYS`]; returns the number of rounds. `i % Nk` and
/// `i / Nk` are an AND and a shift for Nk = 4, 8 and a UDIV (+ UMUL, SUB) for Nk = 6.
pub fn key_expansion(cpu: &mut Leon3, mem: &mut Mem, nk: usize) -> usize {
    let nr = nk + 6;
    let rk = map::ROUND_KEYS;
    cpu.alu(5); // save; sethi/or of the sbox, rcon and round-key bases
    for i in 0..nk as u32 {
        for j in 0..4 {
            let b = cpu.ldub(mem, map::KEY + 4 * i + j);
            cpu.stb(mem, rk + 4 * i + j, b);
        }
        cpu.loop_step();
    }
    let pow2 = nk.is_power_of_two();
    for i in nk..4 * (nr + 1) {
        let i32_ = i as u32;
        cpu.alu(2); // address of w[i-1]
        let mut t = [0u8; 4];
        for (j, tj) in t.iter_mut().enumerate() {
            *tj = cpu.ldub(mem, rk + 4 * (i32_ - 1) + j as u32);
        }
        if pow2 {
            cpu.alu(1);
        } else {
            cpu.op(Class::Div, 1);
            cpu.op(Class::Mul, 1);
            cpu.alu(1);
        }
        cpu.alu(1);
        cpu.op(Class::Branch, 1);
        cpu.alu(1);
        if i % nk == 0 {
            cpu.alu(5); // RotWord through a temporary
            t.rotate_left(1);
            for tj in t.iter_mut() {
                *tj = cpu.ldub(mem, map::SBOX + u32::from(*tj));
            }
            if pow2 {
                cpu.alu(1);
            } else {
                cpu.op(Class::Div, 1);
            }
            let rc = cpu.ldub(mem, map::RCON + (i / nk) as u32);
            cpu.alu(1);
            t[0] ^= rc;
        } else if nk > 6 {
            cpu.alu(1);
            cpu.op(Class::Branch, 1);
            cpu.alu(1);
            if i % nk == 4 {
                for tj in t.iter_mut() {
                    *tj = cpu.ldub(mem, map::SBOX + u32::from(*tj));
                }
            }
        }
        cpu.alu(2); // address of w[i-Nk]
        for (j, tj) in t.iter().enumerate() {
            let w = cpu.ldub(mem, rk + 4 * (i32_ - nk as u32) + j as u32);
            cpu.alu(1);
            cpu.stb(mem, rk + 4 * i32_ + j as u32, w ^ tj);
        }
        cpu.loop_step();
    }
    cpu.alu(1); // restore
    cpu.op(Class::Jmpl, 1);
    cpu.alu(1);
    nr
}

/// The decryption keys of the equivalent inverse cipher (FIPS-197 §5.3.5): a copy of the
/// round keys at [`map::DEC_KEYS`], with `InvMixColumns()` applied to rounds 1..Nr-1.
pub fn decryption_keys(cpu: &mut Leon3, mem: &mut Mem, nr: usize) {
    cpu.alu(3);
    for i in 0..(16 * (nr + 1)) as u32 {
        let b = cpu.ldub(mem, map::ROUND_KEYS + i);
        cpu.stb(mem, map::DEC_KEYS + i, b);
        if i % 4 == 3 {
            cpu.loop_step();
        }
    }
    for r in 1..nr as u32 {
        cpu.call();
        inv_mix_columns(cpu, mem, map::DEC_KEYS + 16 * r);
        cpu.loop_step();
    }
    cpu.op(Class::Jmpl, 1);
    cpu.alu(1);
}

/// `SubBytes()` (or `InvSubBytes()` with `inverse`) on the state at `s`: table base
/// (sethi/or), 16 × (ldub, ldub table, stb), retl.
pub fn sub_bytes(cpu: &mut Leon3, mem: &mut Mem, s: u32, inverse: bool) {
    let table = if inverse { map::INV_SBOX } else { map::SBOX };
    cpu.alu(2);
    for i in 0..16 {
        let x = cpu.ldub(mem, s + i);
        let y = cpu.ldub(mem, table + u32::from(x));
        cpu.stb(mem, s + i, y);
    }
    cpu.retl();
}

/// `ShiftRows()` (or `InvShiftRows()`): the 12 bytes of rows 1–3 loaded into registers and
/// stored rotated, retl. Byte r + 4c is row r of column c.
pub fn shift_rows(cpu: &mut Leon3, mem: &mut Mem, s: u32, inverse: bool) {
    let mut v = [0u8; 16];
    for r in 1..4 {
        for c in 0..4 {
            v[r + 4 * c] = cpu.ldub(mem, s + (r + 4 * c) as u32);
        }
    }
    for r in 1..4 {
        for c in 0..4 {
            let from = if inverse {
                (c + 4 - r) % 4
            } else {
                (c + r) % 4
            };
            cpu.stb(mem, s + (r + 4 * c) as u32, v[r + 4 * from]);
        }
    }
    cpu.retl();
}

/// `AddRoundKey()`: key address from the round (sll, add), 16 × (ldub, ldub, xor, stb), retl.
pub fn add_round_key(cpu: &mut Leon3, mem: &mut Mem, s: u32, key: u32) {
    cpu.alu(2);
    for i in 0..16 {
        let x = cpu.ldub(mem, s + i);
        let k = cpu.ldub(mem, key + i);
        cpu.alu(1);
        cpu.stb(mem, s + i, x ^ k);
    }
    cpu.retl();
}

/// xtime as compiled: sll, srl 7, neg, and 0x1b, xor (5 instructions).
fn xtime(cpu: &mut Leon3, a: u8) -> u8 {
    cpu.alu(5);
    (a << 1) ^ ((a >> 7) * 0x1b)
}

/// `MixColumns()` (tiny-AES form): per column 4 ldub, Tmp = s0^s1^s2^s3 (3 xor), and per
/// byte xor, xtime, xor Tmp, xor, stb; the 4-column loop is kept (4 loop instructions per
/// column); retl.
pub fn mix_columns(cpu: &mut Leon3, mem: &mut Mem, s: u32) {
    for c in 0..4u32 {
        let b = s + 4 * c;
        let x: Vec<u8> = (0..4).map(|i| cpu.ldub(mem, b + i)).collect();
        cpu.alu(3);
        let tmp = x[0] ^ x[1] ^ x[2] ^ x[3];
        for i in 0..4 {
            cpu.alu(1);
            let tm = xtime(cpu, x[i] ^ x[(i + 1) % 4]);
            cpu.alu(2);
            cpu.stb(mem, b + i as u32, x[i] ^ tm ^ tmp);
        }
        cpu.loop_step();
    }
    cpu.retl();
}

/// `InvMixColumns()` as the pre-multiplication x_i ^= 4*(x_i ^ x_{i+2}) (4*u: 10
/// instructions) followed by a call of [`mix_columns`] — used for the decryption keys and the
/// LEON3-only decryption.
pub fn inv_mix_columns(cpu: &mut Leon3, mem: &mut Mem, s: u32) {
    cpu.alu(1); // save
    for c in 0..4u32 {
        let b = s + 4 * c;
        let x: Vec<u8> = (0..4).map(|i| cpu.ldub(mem, b + i)).collect();
        cpu.alu(2);
        let uv = [x[0] ^ x[2], x[1] ^ x[3]];
        let mut q = [0u8; 2];
        for (k, &w) in uv.iter().enumerate() {
            cpu.alu(10);
            q[k] = (w << 2) ^ ((w >> 7) * 0x36) ^ (((w >> 6) & 1) * 0x1b);
        }
        for i in 0..4 {
            cpu.alu(1);
            cpu.stb(mem, b + i as u32, x[i] ^ q[i % 2]);
        }
        cpu.loop_step();
    }
    cpu.call();
    mix_columns(cpu, mem, s);
    cpu.alu(1); // restore
    cpu.op(Class::Jmpl, 1);
    cpu.alu(1);
}

/// The `Sub_Shft()` software task of Fig. 11 over `n` blocks from `first` (the block loop
/// of Fig. 7(b) calling `SubBytes()` and `ShiftRows()`, or `InvShiftRows()` and
/// `InvSubBytes()` when decrypting).
pub fn sub_shift_blocks(cpu: &mut Leon3, mem: &mut Mem, first: u32, n: usize, inverse: bool) {
    for b in 0..n as u32 {
        let s = first + 16 * b;
        cpu.call();
        sub_bytes(cpu, mem, s, inverse);
        cpu.call();
        shift_rows(cpu, mem, s, inverse);
        cpu.loop_step();
    }
}

/// The hardware part of a round done in software (LEON3-only run): per block
/// `MixColumns()` (or `InvMixColumns()`) when `mix`, then `AddRoundKey()`.
pub fn mix_add_blocks(
    cpu: &mut Leon3,
    mem: &mut Mem,
    first: u32,
    n: usize,
    key: u32,
    mix: Option<bool>,
) {
    for b in 0..n as u32 {
        let s = first + 16 * b;
        match mix {
            Some(false) => {
                cpu.call();
                mix_columns(cpu, mem, s);
            }
            Some(true) => {
                cpu.call();
                inv_mix_columns(cpu, mem, s);
            }
            None => {}
        }
        cpu.call();
        cpu.alu(1); // second argument
        add_round_key(cpu, mem, s, key);
        cpu.loop_step();
    }
}

/// Writes `n` device registers (sethi/or of the value, st) after loading the device base.
pub fn write_device_registers(cpu: &mut Leon3, n: u64) {
    cpu.alu(2);
    for _ in 0..n {
        cpu.alu(2);
        cpu.io_store();
    }
}

/// Issues one hardware task (section 4.2 ③–④): a driver call that programs the DDMAC's
/// input and output transfers (source, destination, length, control: 4 registers each) and
/// gives the parser the context, the iteration count and the start command (3 words).
pub fn issue_task(cpu: &mut Leon3) {
    cpu.call();
    cpu.alu(1); // save
    write_device_registers(cpu, 4 + 4 + 3);
    cpu.alu(1); // restore
    cpu.op(Class::Jmpl, 1);
    cpu.alu(1);
}

/// Loads a round key into the GRF as 8 configuration words (2 bytes each: ldub, ldub, sll,
/// or, st) — "local constants ... loaded dynamically into GRF by configuration words"
/// (section 2.1).
pub fn grf_key_words(cpu: &mut Leon3, mem: &Mem, key: u32) -> [u16; 16] {
    cpu.alu(2);
    let mut k = [0u16; 16];
    for w in 0..8u32 {
        let a = cpu.ldub(mem, key + 2 * w);
        let b = cpu.ldub(mem, key + 2 * w + 1);
        cpu.alu(2);
        cpu.io_store();
        k[2 * w as usize] = u16::from(a);
        k[2 * w as usize + 1] = u16::from(b);
    }
    k
}

/// Puts a task into the software queue when the MUSRA is busy (index arithmetic, two
/// stores).
pub fn enqueue_task(cpu: &mut Leon3) {
    cpu.alu(4);
    cpu.op(Class::Store, 2);
}

/// The interrupt service routine for the MUSRA's completion interrupt (IRQC, section 4.2):
/// trap entry, read and clear the pending interrupt, mark the task done, return (jmpl, rett).
pub fn isr(cpu: &mut Leon3) {
    cpu.op(Class::Trap, 1);
    cpu.alu(3);
    cpu.io_load();
    cpu.io_store();
    cpu.alu(2);
    cpu.op(Class::Store, 1);
    cpu.alu(1);
    cpu.op(Class::Jmpl, 1);
    cpu.op(Class::Rett, 1);
}

#[cfg(test)]
mod tests {
    use super::super::leon3::Leon3Costs;
    use super::*;
    use bitweave::hazmat::aes::KeySchedule;

    #[test]
    fn key_expansion_matches_the_library_for_every_key_size() {
        for nk in [4usize, 6, 8] {
            let key: Vec<u8> = (0..4 * nk as u8)
                .map(|i| i.wrapping_mul(29) ^ 0x5a)
                .collect();
            let mut mem = Mem::new(&key, 0);
            let mut cpu = Leon3::new(Leon3Costs::default());
            let nr = key_expansion(&mut cpu, &mut mem, nk);
            let ks = KeySchedule::new(&key);
            assert_eq!(nr, ks.rounds());
            for r in 0..=nr {
                assert_eq!(
                    mem.slice(map::ROUND_KEYS + 16 * r as u32, 16),
                    &ks.round_key_bytes(r)
                );
            }
            assert_eq!(
                cpu.instructions[Class::Div as usize] > 0,
                nk == 6,
                "a UDIV only for Nk = 6"
            );
        }
    }

    #[test]
    fn routine_instruction_counts() {
        let mut mem = Mem::new(&[0u8; 16], 16);
        let mut cpu = Leon3::new(Leon3Costs::default());
        sub_bytes(&mut cpu, &mut mem, map::DATA, false);
        assert_eq!(cpu.total_instructions(), 2 + 48 + 2);
        let mut cpu = Leon3::new(Leon3Costs::default());
        shift_rows(&mut cpu, &mut mem, map::DATA, false);
        assert_eq!(cpu.total_instructions(), 24 + 2);
        let mut cpu = Leon3::new(Leon3Costs::default());
        mix_columns(&mut cpu, &mut mem, map::DATA);
        assert_eq!(cpu.total_instructions(), 4 * (4 + 3 + 4 * 9 + 4) + 2);
    }
}
