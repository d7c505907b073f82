//! DES and triple DES on the SIMD matrix in interleaved-bitslice mode (sections 3.2 and 5),
//! in the five confidentiality modes.
//!
//! PE `j` owns chain `j`: in batch `k` it processes block `k·N + j` (N = PEs), exactly the
//! library's `ModeParams::interleave(N)` layout for CBC/CFB/OFB; ECB and CTR need no
//! interleaving (CTR: PE `j`'s counter starts at IV + j and steps by N). The cipher is the
//! library's own bitsliced data path ([`crypt_planes_for_key`]: its round structure, with
//! IP/FP/E/P as plane renamings, and its S-box circuits `s1..s8`) run on the matrix's
//! [`Bit`] lanes, so every gate computes all PEs' bits and is charged by the library in
//! use. The per-mode XORs, the chaining and the CTR counter step (a bit-serial add in the
//! PEs) run on the same lanes. Plaintext reaches each PE's SRAM row by DMA (section 4.1),
//! one bit per bit address — the bitslice line format needs no transposition on MX-1.
//!
//! Phases: `mode-in` (work before the cipher), `cipher`, `mode-out` (after it).

use bitweave::cipher::des::sliced::crypt_planes_for_key;
use bitweave::slice::Logic;
use bitweave::{Cipher, CipherKind, Direction, Mode, ModeParams};

use super::library::Library;
use super::matrix::{self, Bit, Counters};
use super::Mx1Config;

/// The outcome of one run.
#[derive(Debug, Clone)]
pub struct DesRun {
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

impl DesRun {
    /// Steady-state cycles per byte.
    pub fn cycles_per_byte(&self) -> f64 {
        self.batch_cycles as f64 / self.batch_bytes as f64
    }
}

/// Whether `kind` is a DES-family cipher this module runs.
pub fn supports(kind: CipherKind) -> bool {
    matches!(
        kind,
        CipherKind::Des | CipherKind::DesEde | CipherKind::DesEde3
    )
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
pub fn iv_len(mode: Mode, pes: usize) -> usize {
    match mode {
        Mode::Ecb => 0,
        Mode::Ctr => 8,
        _ => 8 * pes,
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
) -> DesRun {
    assert!(supports(kind), "{} is not DES-family", kind.name());
    assert!(
        matches!(
            mode,
            Mode::Ecb | Mode::Cbc | Mode::Cfb | Mode::Ofb | Mode::Ctr
        ),
        "the paper's five modes"
    );
    let n = cfg.matrix.pes;
    let batch_bytes = 8 * n;
    assert!(!data.is_empty() && data.len().is_multiple_of(batch_bytes));
    assert_eq!(iv.len(), iv_len(mode, n));
    let enc = dir == Direction::Encrypt;
    // ECB and CBC decryption run the inverse cipher; every other case the forward one.
    let inverse = !enc && matches!(mode, Mode::Ecb | Mode::Cbc);

    let ((output, steady), _) = matrix::session(&cfg.matrix, lib, || {
        let mut chain: Option<[Bit; 64]> = match mode {
            Mode::Ecb => None,
            Mode::Ctr => {
                let mut ctrs = vec![0u8; batch_bytes];
                for (j, c) in ctrs.chunks_exact_mut(8).enumerate() {
                    let v = u64::from_be_bytes(iv.try_into().unwrap()).wrapping_add(j as u64);
                    c.copy_from_slice(&v.to_be_bytes());
                }
                Some(load(&ctrs, n))
            }
            _ => Some(load(iv, n)),
        };
        let mut output = Vec::with_capacity(data.len());
        let mut steady = Counters::default();
        for chunk in data.chunks_exact(batch_bytes) {
            let before = matrix::counters();
            let p = load(chunk, n);
            matrix::phase("mode-in");
            let x = match (mode, enc) {
                (Mode::Cbc, true) => xor_block(&p, chain.as_ref().unwrap()),
                (Mode::Ecb, _) | (Mode::Cbc, false) => p,
                _ => *chain.as_ref().unwrap(),
            };
            matrix::phase(matrix::CIPHER_PHASE);
            let y = crypt_planes_for_key(&x, key, inverse);
            matrix::phase("mode-out");
            let out = match (mode, enc) {
                (Mode::Ecb, _) => y,
                (Mode::Cbc, true) => {
                    chain = Some(y);
                    y
                }
                (Mode::Cbc, false) => {
                    let o = xor_block(&y, chain.as_ref().unwrap());
                    chain = Some(p);
                    o
                }
                (Mode::Cfb, _) => {
                    let o = xor_block(&p, &y);
                    chain = Some(if enc { o } else { p });
                    o
                }
                (Mode::Ofb, _) => {
                    chain = Some(y);
                    xor_block(&p, &y)
                }
                _ => {
                    let o = xor_block(&p, &y);
                    chain = Some(counter_step(chain.as_ref().unwrap(), n));
                    o
                }
            };
            output.extend_from_slice(&store(&out, n));
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
    DesRun {
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
/// `p` of the block read as a little-endian u64 (the library's plane order).
fn load(blocks: &[u8], pes: usize) -> [Bit; 64] {
    let mut rows = vec![vec![0u64; pes / 64]; 64];
    for (j, b) in blocks.chunks_exact(8).enumerate() {
        let v = u64::from_le_bytes(b.try_into().unwrap());
        for (p, row) in rows.iter_mut().enumerate() {
            row[j / 64] |= ((v >> p) & 1) << (j % 64);
        }
    }
    matrix::write_rows(&rows).try_into().unwrap()
}

/// DMA out of the matrix: the inverse of [`load`].
fn store(planes: &[Bit; 64], pes: usize) -> Vec<u8> {
    let rows: Vec<Vec<u64>> = planes.iter().map(|&b| matrix::read_row(b)).collect();
    let mut out = vec![0u8; 8 * pes];
    for (j, o) in out.chunks_exact_mut(8).enumerate() {
        let mut v = 0u64;
        for (p, row) in rows.iter().enumerate() {
            v |= ((row[j / 64] >> (j % 64)) & 1) << p;
        }
        o.copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// A block-wide XOR on the matrix (64 one-bit XORs; consecutive ones fuse under mx_xor_h).
fn xor_block(a: &[Bit; 64], b: &[Bit; 64]) -> [Bit; 64] {
    core::array::from_fn(|i| a[i].xor(b[i]))
}

/// The plane of bit `i` (LSB = 0) of a block read as a big-endian integer.
fn be_plane(i: usize) -> usize {
    8 * (7 - i / 8) + i % 8
}

/// Adds `step` (a power of two: the PE count) to every PE's big-endian counter, bit-serially
/// in the PEs: below the step's bit nothing changes; at it the bit flips and carries; above
/// it sum = x ^ carry, carry = x & carry.
fn counter_step(ctr: &[Bit; 64], step: usize) -> [Bit; 64] {
    assert!(step.is_power_of_two() && step < (1 << 63));
    let s = step.trailing_zeros() as usize;
    let mut out = *ctr;
    let mut carry: Option<Bit> = None;
    for i in s..64 {
        let pl = be_plane(i);
        let x = ctr[pl];
        match carry {
            None => {
                out[pl] = x.not();
                carry = Some(x);
            }
            Some(c) => {
                out[pl] = x.xor(c);
                if i < 63 {
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
