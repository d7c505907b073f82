//! The incremental interface: feed any split of the input to [`Crypter::update`], then
//! [`Crypter::finish`]; the output equals the one-shot result, and memory stays bounded by
//! one row plus one block whatever the input size.

use super::cfb_bits::ShiftRegisters;
use super::chain::Chain;
use super::ctr::Counter;
use super::{padding, Direction, Mode, ModeParams};
use crate::cipher::BlockCipher;
use crate::engine::parallel;
use crate::engine::Cipher;
use crate::error::{Error, Result};

/// The running state of one mode.
enum Core {
    Ecb,
    Chain(Chain),
    Ctr(Counter),
    Bits(ShiftRegisters),
}

/// An encryption or decryption in progress.
pub struct Crypter {
    cipher: Cipher,
    params: ModeParams,
    direction: Direction,
    core: Core,
    /// Input not yet processed: less than one unit (plus the held-back block when
    /// decrypting with padding).
    pending: Vec<u8>,
    /// Bytes that must be whole before they can be processed (a row, a block or a byte).
    unit: usize,
    /// `unit - 1` when the unit is a power of two (every block size, and interleave
    /// factors of powers of two): whole units are then a mask away.
    unit_mask: Option<usize>,
    /// Bytes held back when decrypting with padding ([`held_back`](Self::held_back)).
    held: usize,
    /// Total input bytes so far (for error messages).
    total: u64,
}

impl Drop for Crypter {
    fn drop(&mut self) {
        crate::bytes::wipe_vec(&mut self.pending);
    }
}

impl Crypter {
    /// Starts a run of `params` on `cipher` with the given IV (N blocks; empty for ECB).
    pub fn new(
        cipher: Cipher,
        params: ModeParams,
        direction: Direction,
        iv: &[u8],
    ) -> Result<Self> {
        params.validate()?;
        let bs = cipher.block_size();
        let expected = params.iv_len(bs);
        let suite = || {
            let n = params.interleave;
            let base = format!("{}-{}", cipher.kind().name(), params.mode.name());
            if n > 1 {
                format!("{base} with interleave {n}")
            } else {
                base
            }
        };
        if iv.len() != expected {
            return Err(if iv.is_empty() {
                Error::MissingIv(suite())
            } else {
                Error::IvLength {
                    suite: suite(),
                    expected,
                    got: iv.len(),
                }
            });
        }
        let (core, unit) = match params.mode {
            Mode::Ecb => (Core::Ecb, bs),
            Mode::Cbc | Mode::Cfb | Mode::Ofb => (Core::Chain(Chain::new(iv)), expected),
            Mode::Ctr => (Core::Ctr(Counter::new(iv)), bs),
            Mode::Cfb8 | Mode::Cfb1 => (Core::Bits(ShiftRegisters::new(iv, bs)), 1),
        };
        let held = if params.padding && direction == Direction::Decrypt {
            bs
        } else {
            0
        };
        Ok(Crypter {
            cipher,
            params,
            direction,
            core,
            pending: Vec::new(),
            unit,
            unit_mask: unit.is_power_of_two().then(|| unit - 1),
            held,
            total: 0,
        })
    }

    /// Bytes held back when decrypting with padding: the last block, unpadded at finish.
    /// A caller working in place passes it on to [`update`](Self::update) with the end.
    pub fn held_back(&self) -> usize {
        self.held
    }

    /// Processes `input`, appending whatever output is ready to `out`.
    pub fn update(&mut self, input: &[u8], out: &mut Vec<u8>) {
        self.total += input.len() as u64;
        let start = out.len();
        out.extend_from_slice(&self.pending);
        crate::bytes::extend(out, input);
        let avail = out.len() - start;
        let ready = self.whole_units(avail.saturating_sub(self.held_back()));
        self.pending.clear();
        self.pending.extend_from_slice(&out[start + ready..]);
        out.truncate(start + ready);
        self.process(&mut out[start..]);
    }

    /// Processes `data` in place: the same bytes [`update`](Self::update) would append,
    /// without copying the input into an output buffer first, which halves the memory
    /// traffic on inputs larger than the caches (and lets every thread's share stream
    /// through memory once). Possible when nothing is pending from an earlier `update`,
    /// no block is held back (padded decryption keeps its last block for `finish`), and
    /// `data` is whole units (blocks; rows of N blocks when interleaved).
    #[inline]
    pub fn update_in_place(&mut self, data: &mut [u8]) -> Result<()> {
        if self.held > 0 {
            return Err(Error::InPlaceUnavailable { unit: self.unit });
        }
        self.update_in_place_before_end(data)
    }

    /// Like [`update_in_place`](Self::update_in_place) for a caller that knows more input
    /// follows `data`: then nothing needs holding back, so padded decryption can work in
    /// place too (the block it keeps for unpadding is in the input still to come). The
    /// end of the input goes through [`update`](Self::update) and [`finish`](Self::finish).
    pub fn update_in_place_before_end(&mut self, data: &mut [u8]) -> Result<()> {
        if !self.pending.is_empty() || self.whole_units(data.len()) != data.len() {
            return Err(Error::InPlaceUnavailable { unit: self.unit });
        }
        self.total += data.len() as u64;
        self.process(data);
        Ok(())
    }

    /// The thread setting (0 = all cores).
    pub fn threads(&self) -> usize {
        self.cipher.threads()
    }

    /// Threads for the calls that follow (0 = all cores, 1 = the calling thread only); the
    /// output does not depend on it. A streaming caller can follow what pays as it goes:
    /// while reading and writing set the pace, more threads only take cores from them.
    pub fn set_threads(&mut self, n: usize) {
        self.cipher = self.cipher.clone().with_threads(n);
    }

    /// The largest multiple of the unit in `n` bytes. A power-of-two unit takes a mask: a
    /// division costs a one-block call about a quarter of its time.
    fn whole_units(&self, n: usize) -> usize {
        match self.unit_mask {
            Some(mask) => n & !mask,
            None => n / self.unit * self.unit,
        }
    }

    /// Bytes that must be whole for in-place work (a block; a row of N blocks when
    /// interleaved; one byte for CFB8/CFB1).
    pub fn unit(&self) -> usize {
        self.unit
    }

    /// Processes the rest: pads or unpads, and checks the length rules of ECB/CBC.
    pub fn finish(mut self, out: &mut Vec<u8>) -> Result<()> {
        let bs = self.cipher.block_size();
        let whole = self.params.mode.whole_blocks();
        let mut last = std::mem::take(&mut self.pending);
        match self.direction {
            Direction::Encrypt if self.params.padding => {
                last.extend_from_slice(&padding::pad(last.len(), bs));
            }
            _ if whole && !last.len().is_multiple_of(bs) => {
                return Err(Error::NotWholeBlocks {
                    len: self.total,
                    block: bs,
                });
            }
            Direction::Decrypt if self.params.padding && last.is_empty() => {
                return Err(Error::NotWholeBlocks {
                    len: self.total,
                    block: bs,
                });
            }
            _ => {}
        }
        self.process(&mut last);
        if self.direction == Direction::Decrypt && self.params.padding {
            let n = padding::unpad_len(&last[last.len() - bs..])?;
            last.truncate(last.len() - n);
        }
        out.extend_from_slice(&last);
        crate::bytes::wipe_vec(&mut last);
        Ok(())
    }

    /// Transforms whole units in place (or, at the end, the final partial unit).
    fn process(&mut self, data: &mut [u8]) {
        if data.is_empty() {
            return;
        }
        let c: &Cipher = &self.cipher;
        let bs = c.block_size();
        let dec = self.direction == Direction::Decrypt;
        let parts = parallel::chunks_for(data.len(), self.cipher.threads());
        match (&mut self.core, self.params.mode) {
            (Core::Ecb, _) => parallel::for_each_chunk(data, bs, parts, |_, chunk| {
                if dec {
                    c.decrypt_blocks(chunk)
                } else {
                    c.encrypt_blocks(chunk)
                }
            }),
            (Core::Chain(ch), Mode::Cbc) if dec => ch.cbc_decrypt(c, data, parts),
            (Core::Chain(ch), Mode::Cbc) => ch.cbc_encrypt(c, data, parts),
            (Core::Chain(ch), Mode::Cfb) if dec => ch.cfb_decrypt(c, data, parts),
            (Core::Chain(ch), Mode::Cfb) => ch.cfb_encrypt(c, data, parts),
            (Core::Chain(ch), _) => ch.ofb(c, data, parts),
            (Core::Ctr(ctr), _) => ctr.apply(c, data, parts),
            (Core::Bits(regs), Mode::Cfb8) => regs.cfb8(c, data, dec),
            (Core::Bits(regs), _) => regs.cfb1(c, data, dec),
        }
    }
}
