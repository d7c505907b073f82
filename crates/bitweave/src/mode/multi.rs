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
use crate::cipher::{BlockCipher, Cipher};
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
    let mut bufs = Vec::with_capacity(messages.len());
    for (m, iv) in messages.iter().zip(ivs) {
        params.crypter(cipher, dir, iv)?;
        let mut b = m.to_vec();
        if params.padding {
            b.extend_from_slice(&padding::pad(b.len(), bs));
        } else if params.mode.whole_blocks() && b.len() % bs != 0 {
            return Err(Error::NotWholeBlocks {
                len: b.len() as u64,
                block: bs,
            });
        }
        bufs.push(b);
    }
    let mut order: Vec<usize> = (0..bufs.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(bufs[k].len()));
    let sorted_ivs: Vec<u8> = order.iter().flat_map(|&k| ivs[k].iter().copied()).collect();
    match params.mode {
        Mode::Cfb8 | Mode::Cfb1 => {
            bit_streams(cipher, params.mode, dir, &sorted_ivs, &order, &mut bufs)
        }
        _ => block_streams(cipher, params.mode, dir, &sorted_ivs, &order, &mut bufs),
    }
    Ok(bufs)
}

/// CBC/CFB encryption and OFB: step j gathers block j of every running message into one
/// row (a partial final block is zero-filled and only its real bytes are kept).
fn block_streams(
    c: &Cipher,
    mode: Mode,
    dir: Direction,
    ivs: &[u8],
    order: &[usize],
    bufs: &mut [Vec<u8>],
) {
    let bs = c.block_size();
    let mut chain = Chain::new(ivs);
    let steps = bufs[order[0]].len().div_ceil(bs);
    let mut row = Vec::with_capacity(chain.row_len());
    for j in 0..steps {
        let running = order
            .iter()
            .take_while(|&&k| bufs[k].len() > j * bs)
            .count();
        row.clear();
        for &k in &order[..running] {
            let m = &bufs[k][j * bs..bufs[k].len().min((j + 1) * bs)];
            row.extend_from_slice(m);
            row.resize(row.len() + bs - m.len(), 0);
        }
        match (mode, dir) {
            (Mode::Cbc, _) => chain.cbc_encrypt(c, &mut row, 1),
            (Mode::Cfb, _) => chain.cfb_encrypt(c, &mut row, 1),
            _ => chain.ofb(c, &mut row, 1),
        }
        for (t, &k) in order[..running].iter().enumerate() {
            let end = bufs[k].len().min((j + 1) * bs);
            let n = end - j * bs;
            bufs[k][j * bs..end].copy_from_slice(&row[t * bs..t * bs + n]);
        }
    }
    zeroize::Zeroize::zeroize(&mut row);
}

/// CFB8/CFB1: step j advances byte j (or its eight bits) of every running message.
fn bit_streams(
    c: &Cipher,
    mode: Mode,
    dir: Direction,
    ivs: &[u8],
    order: &[usize],
    bufs: &mut [Vec<u8>],
) {
    let mut regs = ShiftRegisters::new(ivs, c.block_size());
    let decrypt = dir == Direction::Decrypt;
    let steps = bufs[order[0]].len();
    let mut column = Vec::with_capacity(order.len());
    for j in 0..steps {
        let running = order.iter().take_while(|&&k| bufs[k].len() > j).count();
        column.clear();
        column.extend(order[..running].iter().map(|&k| bufs[k][j]));
        if mode == Mode::Cfb8 {
            regs.cfb8_step(c, &mut column, decrypt);
        } else {
            for bit in (0..8).rev() {
                regs.cfb1_step(c, &mut column, bit, decrypt);
            }
        }
        for (t, &k) in order[..running].iter().enumerate() {
            bufs[k][j] = column[t];
        }
    }
    zeroize::Zeroize::zeroize(&mut column);
}
