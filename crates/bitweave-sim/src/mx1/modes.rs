//! DES, triple DES and AES on the SIMD matrix in interleaved-bitslice mode (sections 3.2,
//! 4 and 5), in the five confidentiality modes.
//!
//! PE `j` owns chain `j`: in batch `k` it processes block `k·N + j` (N = PEs), exactly the
//! library's `ModeParams::interleave(N)` layout for CBC/CFB/OFB; ECB and CTR need no
//! interleaving (CTR: PE `j`'s counter starts at IV + j and steps by N). The cipher is the
//! library's own bitsliced data path (DES: `des::sliced::crypt_planes_for_key`, its round
//! structure with IP/FP/E/P as plane renamings and its S-box circuits `s1..s8`; AES:
//! `aes::sliced::crypt_planes_for_key`, its rounds with the tower-field S-box and
//! MixColumns circuits, ShiftRows as a renaming) run on the matrix's
//! [`Bit`] lanes, so every gate computes all PEs' bits and is charged by the library in
//! use. The per-mode XORs, the chaining and the CTR counter step (a bit-serial add in the
//! PEs) run on the same lanes. Plaintext reaches each PE's SRAM row by DMA (section 4.1),
//! one bit per bit address — the bitslice line format needs no transposition on MX-1.
//!
//! Phases: `mode-in` (work before the cipher), `cipher`, `mode-out` (after it).

use bitweave::hazmat::slice::Logic;
use bitweave::hazmat::{aes, des};
use bitweave::{Cipher, CipherKind, Direction, Mode, ModeParams};

use super::library::Library;
use super::matrix::{self, Bit, Counters};
use super::Mx1Config;

/// The outcome of one run.
#[derive(Debug, Clone)]
pub struct ModeRun {
    /// What the matrix computed.
    pub output: Vec<u8>,
    /// Whether it equals the library's result for the same cipher, mode and IV.
    pub verified: bool,
    /// Batches of N blocks.
    pub batches: usize,
    /// PE counters of the last batch (steady state: chaining state present).
    pub steady: Counters,
    /// Cycles of one steady-state batch, transfers included ([`super::board::Board`]).
    pub batch_cycles: u64,
    /// Bytes per batch.
    pub batch_bytes: usize,
    /// The whole run: first transfer in, every batch, last transfer out.
    pub total_cycles: u64,
}

impl ModeRun {
    /// Steady-state cycles per byte.
    pub fn cycles_per_byte(&self) -> f64 {
        self.batch_cycles as f64 / self.batch_bytes as f64
    }
}

/// Whether this module runs `kind` (every cipher with a bitsliced circuit in the library).
pub fn supports(kind: CipherKind) -> bool {
    kind != CipherKind::Seed
}

/// The library's bitsliced cipher on the matrix: `x` holds 8·block planes.
fn crypt(kind: CipherKind, key: &[u8], x: &[Bit], inverse: bool) -> Vec<Bit> {
    if kind.block_size() == 8 {
        let p: [Bit; 64] = x.try_into().unwrap();
        des::sliced::crypt_planes_for_key(&p, key, inverse).to_vec()
    } else {
        let mut s: [Bit; 128] = x.try_into().unwrap();
        aes::sliced::crypt_planes_for_key(&mut s, key, inverse);
        s.to_vec()
    }
}

/// The library's parameters for the same computation (interleave N for the chained modes).
pub fn library_params(mode: Mode, pes: usize) -> ModeParams {
    match mode {
        Mode::Ecb => ModeParams::new(Mode::Ecb).padding(false),
        Mode::Cbc | Mode::Cfb | Mode::Ofb => ModeParams::new(mode).interleave(pes).padding(false),
        _ => ModeParams::new(mode),
    }
}

/// IV length the run needs: N blocks for the chained modes, one counter block for CTR.
pub fn iv_len(kind: CipherKind, mode: Mode, pes: usize) -> usize {
    let bs = kind.block_size();
    match mode {
        Mode::Ecb => 0,
        Mode::Ctr => bs,
        _ => bs * pes,
    }
}

/// Runs `data` (a whole number of N-block batches) through the matrix.
#[allow(clippy::too_many_arguments)]
pub fn run(
    cfg: &Mx1Config,
    lib: Library,
    kind: CipherKind,
    key: &[u8],
    mode: Mode,
    dir: Direction,
    iv: &[u8],
    data: &[u8],
) -> ModeRun {
    assert!(supports(kind), "{} has no bitsliced circuit", kind.name());
    assert!(
        matches!(
            mode,
            Mode::Ecb | Mode::Cbc | Mode::Cfb | Mode::Ofb | Mode::Ctr
        ),
        "the paper's five modes"
    );
    let n = cfg.matrix.pes;
    let bs = kind.block_size();
    let batch_bytes = bs * n;
    assert!(!data.is_empty() && data.len().is_multiple_of(batch_bytes));
    assert_eq!(iv.len(), iv_len(kind, mode, n));
    let enc = dir == Direction::Encrypt;
    // ECB and CBC decryption run the inverse cipher; every other case the forward one.
    let inverse = !enc && matches!(mode, Mode::Ecb | Mode::Cbc);

    let ((output, steady), _) = matrix::session(&cfg.matrix, lib, || {
        let mut chain: Option<Vec<Bit>> = match mode {
            Mode::Ecb => None,
            Mode::Ctr => {
                let mut ctrs = vec![0u8; batch_bytes];
                for (j, c) in ctrs.chunks_exact_mut(bs).enumerate() {
                    c.copy_from_slice(iv);
                    bitweave::hazmat::add_be(c, j as u64);
                }
                Some(load(&ctrs, n, bs))
            }
            _ => Some(load(iv, n, bs)),
        };
        let mut output = Vec::with_capacity(data.len());
        let mut steady = Counters::default();
        for chunk in data.chunks_exact(batch_bytes) {
            let before = matrix::counters();
            let p = load(chunk, n, bs);
            matrix::phase("mode-in");
            let x = match (mode, enc) {
                (Mode::Cbc, true) => xor_block(&p, chain.as_ref().unwrap()),
                (Mode::Ecb, _) | (Mode::Cbc, false) => p.clone(),
                _ => chain.clone().unwrap(),
            };
            matrix::phase(matrix::CIPHER_PHASE);
            let y = crypt(kind, key, &x, inverse);
            matrix::phase("mode-out");
            let out = match (mode, enc) {
                (Mode::Ecb, _) => y,
                (Mode::Cbc, true) => {
                    chain = Some(y.clone());
                    y
                }
                (Mode::Cbc, false) => {
                    let o = xor_block(&y, chain.as_ref().unwrap());
                    chain = Some(p);
                    o
                }
                (Mode::Cfb, _) => {
                    let o = xor_block(&p, &y);
                    chain = Some(if enc { o.clone() } else { p });
                    o
                }
                (Mode::Ofb, _) => {
                    let o = xor_block(&p, &y);
                    chain = Some(y);
                    o
                }
                _ => {
                    let o = xor_block(&p, &y);
                    chain = Some(counter_step(chain.as_ref().unwrap(), n));
                    o
                }
            };
            output.extend_from_slice(&store(&out, n, bs));
            steady = delta(&matrix::counters(), &before);
        }
        (output, steady)
    });

    let cipher = Cipher::new(kind, key).expect("key length checked by the caller");
    let params = library_params(mode, n);
    let expect = if enc {
        params.encrypt_all(&cipher, iv, data)
    } else {
        params.decrypt_all(&cipher, iv, data)
    };
    let verified = expect.as_deref().is_ok_and(|e| e == output.as_slice());
    let batches = data.len() / batch_bytes;
    let batch_cycles = cfg.board.batch_cycles(steady.cycles, batch_bytes);
    let total_cycles = 2 * cfg.board.dma_cycles(batch_bytes) + batches as u64 * batch_cycles;
    ModeRun {
        output,
        verified,
        batches,
        steady,
        batch_cycles,
        batch_bytes,
        total_cycles,
    }
}

/// DMA into the matrix: block `j` of `blocks` into PE `j`'s row; bit address `p` holds bit
/// `p % 8` of byte `p / 8` of the block (the library's plane order).
fn load(blocks: &[u8], pes: usize, bs: usize) -> Vec<Bit> {
    let mut rows = vec![vec![0u64; pes / 64]; 8 * bs];
    for (j, b) in blocks.chunks_exact(bs).enumerate() {
        for (p, row) in rows.iter_mut().enumerate() {
            row[j / 64] |= (((b[p / 8] >> (p % 8)) & 1) as u64) << (j % 64);
        }
    }
    matrix::write_rows(&rows)
}

/// DMA out of the matrix: the inverse of [`load`].
fn store(planes: &[Bit], pes: usize, bs: usize) -> Vec<u8> {
    let rows: Vec<Vec<u64>> = planes.iter().map(|&b| matrix::read_row(b)).collect();
    let mut out = vec![0u8; bs * pes];
    for (j, o) in out.chunks_exact_mut(bs).enumerate() {
        for (p, row) in rows.iter().enumerate() {
            o[p / 8] |= (((row[j / 64] >> (j % 64)) & 1) as u8) << (p % 8);
        }
    }
    out
}

/// A block-wide XOR on the matrix (one-bit XORs; consecutive ones fuse under mx_xor_h).
fn xor_block(a: &[Bit], b: &[Bit]) -> Vec<Bit> {
    a.iter().zip(b).map(|(x, y)| x.xor(*y)).collect()
}

/// Adds `step` (a power of two: the PE count) to every PE's big-endian counter, bit-serially
/// in the PEs: below the step's bit nothing changes; at it the bit flips and carries; above
/// it sum = x ^ carry, carry = x & carry.
fn counter_step(ctr: &[Bit], step: usize) -> Vec<Bit> {
    let bits = ctr.len();
    assert!(step.is_power_of_two() && step.trailing_zeros() < bits as u32);
    // Bit `i` (LSB = 0) of the big-endian integer lives in byte `bs - 1 - i / 8`.
    let plane = |i: usize| 8 * (bits / 8 - 1 - i / 8) + i % 8;
    let mut out = ctr.to_vec();
    let mut carry: Option<Bit> = None;
    for i in step.trailing_zeros() as usize..bits {
        let pl = plane(i);
        let x = ctr[pl];
        match carry {
            None => {
                out[pl] = x.not();
                carry = Some(x);
            }
            Some(c) => {
                out[pl] = x.xor(c);
                if i + 1 < bits {
                    carry = Some(x.and(c));
                }
            }
        }
    }
    out
}

fn delta(now: &Counters, before: &Counters) -> Counters {
    Counters {
        cycles: now.cycles - before.cycles,
        calls: now.calls - before.calls,
        bit_ops: now.bit_ops - before.bit_ops,
        by_phase: now
            .by_phase
            .iter()
            .map(|&(p, c)| (p, c - before.phase(p)))
            .collect(),
    }
}
