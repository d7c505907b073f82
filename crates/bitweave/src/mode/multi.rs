//! Multi-stream processing: K independent messages under one key, each with its own IV,
//! processed together so that serial chains fill a wide backend (the standard-conformant
//! counterpart of interleaving, like OpenSSL's multi-buffer CBC).
//!
//! The result equals K separate standard-mode runs. Serial modes (CBC and CFB
//! encryption, OFB, CFB8, CFB1) advance all running messages one step per backend call:
//! messages are ordered longest first, so the running ones are always a prefix and step j
//! is a row of the interleaved layout. Parallel modes (ECB, CTR, CBC and CFB decryption)
//! are already batched within each message and run message by message.

use super::cfb_bits::ShiftRegisters;
use super::chain::Chain;
use super::{padding, Direction, Mode, ModeParams};
use crate::cipher::BlockCipher;
use crate::engine::parallel;
use crate::engine::Cipher;
use crate::error::{Error, Result};

/// Encrypts K messages, message k with `ivs[k]`. `params.interleave` must be 1.
pub fn encrypt(
    params: &ModeParams,
    cipher: &Cipher,
    ivs: &[&[u8]],
    messages: &[&[u8]],
) -> Result<Vec<Vec<u8>>> {
    run(params, cipher, Direction::Encrypt, ivs, messages)
}

/// Decrypts K messages, message k with `ivs[k]`. `params.interleave` must be 1.
pub fn decrypt(
    params: &ModeParams,
    cipher: &Cipher,
    ivs: &[&[u8]],
    messages: &[&[u8]],
) -> Result<Vec<Vec<u8>>> {
    run(params, cipher, Direction::Decrypt, ivs, messages)
}

fn run(
    params: &ModeParams,
    cipher: &Cipher,
    dir: Direction,
    ivs: &[&[u8]],
    messages: &[&[u8]],
) -> Result<Vec<Vec<u8>>> {
    if params.interleave != 1 {
        return Err(Error::InterleaveUnsupported("multi-stream"));
    }
    if ivs.len() != messages.len() {
        return Err(Error::StreamCount {
            ivs: ivs.len(),
            messages: messages.len(),
        });
    }
    let serial = match params.mode {
        Mode::Cbc | Mode::Cfb => dir == Direction::Encrypt,
        Mode::Ofb | Mode::Cfb8 | Mode::Cfb1 => true,
        Mode::Ecb | Mode::Ctr => false,
    };
    if !serial || messages.is_empty() {
        return messages
            .iter()
            .zip(ivs)
            .map(|(m, iv)| match dir {
                Direction::Encrypt => params.encrypt_all(cipher, iv, m),
                Direction::Decrypt => params.decrypt_all(cipher, iv, m),
            })
            .collect();
    }
    // Validate every IV and length up front (a Crypter reports the same errors as a
    // single-message run would), and apply padding.
    let bs = cipher.block_size();
    let mut jobs = Vec::with_capacity(messages.len());
    for (index, (m, iv)) in messages.iter().zip(ivs).enumerate() {
        params.crypter(cipher, dir, iv)?;
        let mut buf = m.to_vec();
        if params.padding {
            buf.extend_from_slice(&padding::pad(buf.len(), bs));
        } else if params.mode.whole_blocks() && !buf.len().is_multiple_of(bs) {
            return Err(Error::NotWholeBlocks {
                len: buf.len() as u64,
                block: bs,
            });
        }
        jobs.push(Job { index, iv, buf });
    }
    // Longest first, so the running messages are always a prefix; dealt round-robin to
    // the threads, which keeps every group sorted and the groups balanced.
    jobs.sort_by_key(|j| std::cmp::Reverse(j.buf.len()));
    let total = jobs.iter().map(|j| j.buf.len()).sum();
    let parts = parallel::chunks_for(total, cipher.threads()).min(jobs.len());
    let mut groups: Vec<Vec<Job>> = (0..parts).map(|_| Vec::new()).collect();
    for (i, job) in jobs.into_iter().enumerate() {
        groups[i % parts].push(job);
    }
    parallel::for_each_mut(&mut groups, |group| match params.mode {
        Mode::Cfb8 | Mode::Cfb1 => bit_streams(cipher, params.mode, dir, group),
        _ => block_streams(cipher, params.mode, group),
    });
    let mut out = vec![Vec::new(); messages.len()];
    for job in groups.into_iter().flatten() {
        out[job.index] = job.buf;
    }
    Ok(out)
}

/// One message of a multi-stream run: its position, its IV and its buffer (transformed
/// in place).
struct Job<'a> {
    index: usize,
    iv: &'a [u8],
    buf: Vec<u8>,
}

/// CBC/CFB encryption and OFB over `jobs` (longest first): step j gathers block j of
/// every running message into one row (a partial final block is zero-filled and only its
/// real bytes are kept).
fn block_streams(c: &Cipher, mode: Mode, jobs: &mut [Job]) {
    let bs = c.block_size();
    let ivs: Vec<u8> = jobs.iter().flat_map(|j| j.iv.iter().copied()).collect();
    let mut chain = Chain::new(&ivs);
    let steps = jobs[0].buf.len().div_ceil(bs);
    let mut row = Vec::with_capacity(chain.row_len());
    for j in 0..steps {
        let running = jobs.iter().take_while(|job| job.buf.len() > j * bs).count();
        row.clear();
        for job in &jobs[..running] {
            let m = &job.buf[j * bs..job.buf.len().min((j + 1) * bs)];
            row.extend_from_slice(m);
            row.resize(row.len() + bs - m.len(), 0);
        }
        match mode {
            Mode::Cbc => chain.cbc_encrypt(c, &mut row, 1),
            Mode::Cfb => chain.cfb_encrypt(c, &mut row, 1),
            _ => chain.ofb(c, &mut row, 1),
        }
        for (t, job) in jobs[..running].iter_mut().enumerate() {
            let end = job.buf.len().min((j + 1) * bs);
            let n = end - j * bs;
            job.buf[j * bs..end].copy_from_slice(&row[t * bs..t * bs + n]);
        }
    }
    crate::bytes::wipe_vec(&mut row);
}

/// CFB8/CFB1 over `jobs` (longest first): step j advances byte j (or its eight bits) of
/// every running message.
fn bit_streams(c: &Cipher, mode: Mode, dir: Direction, jobs: &mut [Job]) {
    let ivs: Vec<u8> = jobs.iter().flat_map(|j| j.iv.iter().copied()).collect();
    let mut regs = ShiftRegisters::new(&ivs, c.block_size());
    let decrypt = dir == Direction::Decrypt;
    let steps = jobs[0].buf.len();
    let mut column = Vec::with_capacity(jobs.len());
    for j in 0..steps {
        let running = jobs.iter().take_while(|job| job.buf.len() > j).count();
        column.clear();
        column.extend(jobs[..running].iter().map(|job| job.buf[j]));
        if mode == Mode::Cfb8 {
            regs.cfb8_step(c, &mut column, decrypt);
        } else {
            for bit in (0..8).rev() {
                regs.cfb1_step(c, &mut column, bit, decrypt);
            }
        }
        for (t, job) in jobs[..running].iter_mut().enumerate() {
            job.buf[j] = column[t];
        }
    }
    crate::bytes::wipe_vec(&mut column);
}
