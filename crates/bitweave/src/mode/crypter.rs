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

/// A CTR call shorter than this that ends inside a block takes the keystream of all its
/// blocks in one kernel call, on the stack (see `process_stream`).
const STACK_CALL: usize = 128;

/// The most unused keystream a [`Tail`] keeps (CTR's look-ahead).
const KEEP: usize = 64;

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
    /// A stream mode's last keystream block, part-used (never used in the block modes).
    tail: Tail,
    /// Total input bytes so far (for error messages).
    total: u64,
}

impl Drop for Crypter {
    fn drop(&mut self) {
        crate::bytes::wipe_vec(&mut self.pending);
        self.tail.wipe();
    }
}

/// The stream modes (CTR; CFB and OFB on one chain) return as many bytes as they are
/// given, at every call, as OpenSSL's and pyca/cryptography's do: a call that ends inside
/// a block uses part of that block's keystream and keeps the rest here for the next
/// call's first bytes. (Held back as input instead, a 15-byte call's bytes came out only
/// with a later call: no use to a protocol that sends each message as it comes.)
///
/// CTR looks ahead: a call that needs a new block of keystream makes `ahead` bytes of it
/// (at least its own), and `ahead` doubles at each such call up to [`KEEP`]. A stream of
/// short calls then gets the keystream of several calls from one kernel call, where the
/// blocks run together (a serial block of 3DES or SEED costs a chain's latency, four or
/// eight together little more); a single short message still makes one block. The bytes
/// are those of the same counters either way.
struct Tail {
    /// Unused keystream, at the end (bytes `KEEP - left ..`): E(counter) in CTR,
    /// E(previous ciphertext) in CFB, the next output block in OFB.
    keystream: [u8; KEEP],
    /// CFB: the block's ciphertext so far; whole, it is the chain's next input.
    ciphertext: [u8; 16],
    /// Bytes of the keystream not yet used (0: none; at most a block but in CTR).
    left: usize,
    /// The block size less one in a stream mode (a call's length masked with it is the
    /// bytes past its whole blocks), 0 in the others, which never use the tail.
    mask: usize,
    /// CTR: keystream bytes the next call that needs a block makes (a multiple of the
    /// block size, at most [`KEEP`]).
    ahead: usize,
}

impl Tail {
    /// Keeps `rest` as the unused keystream, at the end of the buffer.
    fn keep(&mut self, rest: &[u8]) {
        self.keystream[KEEP - rest.len()..].copy_from_slice(rest);
        self.left = rest.len();
    }

    fn wipe(&mut self) {
        crate::bytes::wipe(&mut self.keystream);
        crate::bytes::wipe(&mut self.ciphertext);
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
            Mode::Cfb | Mode::Ofb if params.interleave == 1 => (Core::Chain(Chain::new(iv)), 1),
            Mode::Cbc | Mode::Cfb | Mode::Ofb => (Core::Chain(Chain::new(iv)), expected),
            Mode::Ctr => (Core::Ctr(Counter::new(iv)), 1),
            Mode::Cfb8 | Mode::Cfb1 => (Core::Bits(ShiftRegisters::new(iv, bs)), 1),
        };
        // A stream mode of whole blocks takes any length through its tail.
        let stream = unit == 1 && !matches!(params.mode, Mode::Cfb8 | Mode::Cfb1);
        let tail = Tail {
            keystream: [0; KEEP],
            ciphertext: [0; 16],
            left: 0,
            mask: if stream { bs - 1 } else { 0 },
            ahead: bs,
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
            tail,
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
    /// interleaved; one byte for CTR, CFB and OFB on one chain, CFB8 and CFB1).
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

    /// Transforms whole units in place (or, at the end, the final partial unit); a
    /// stream mode any length, through its [`Tail`].
    #[inline]
    fn process(&mut self, data: &mut [u8]) {
        // Whole blocks with no keystream left over (every call of the block modes):
        // straight to the kernels, after one test.
        if self.tail.left | (data.len() & self.tail.mask) == 0 {
            self.process_units(data)
        } else {
            self.process_stream(data)
        }
    }

    /// [`process`](Self::process) for a stream mode's call that starts or ends inside a
    /// block: the left-over keystream first, then whole blocks, then keystream for the
    /// bytes after them, its rest kept. A CTR call of a few blocks takes the keystream of
    /// all of them, and of its look-ahead, in one kernel call ([`ctr_ahead`](Self::ctr_ahead)).
    /// Out of line: the whole-block calls skip it.
    #[inline(never)]
    fn process_stream(&mut self, data: &mut [u8]) {
        let data = self.use_tail(data);
        let past = data.len() & self.tail.mask;
        if past == 0 {
            return self.process_units(data);
        }
        let ctr = self.params.mode == Mode::Ctr;
        if ctr && data.len() < STACK_CALL {
            return self.ctr_ahead(data);
        }
        let cfb_dec = self.params.mode == Mode::Cfb && self.direction == Direction::Decrypt;
        let few = data.len() > past && data.len() < STACK_CALL;
        if cfb_dec && few && self.cipher.has_serial_backend() {
            return self.cfb_decrypt_ahead(data, past);
        }
        let (blocks, end) = data.split_at_mut(data.len() - past);
        self.process_units(blocks);
        if ctr {
            return self.ctr_ahead(end);
        }
        // The next block's keystream is what the mode makes of a zero block (CFB's chain
        // then holds the keystream, not the ciphertext: `use_tail` sets it when the block
        // is whole), made where the tail keeps it.
        let t = &mut self.tail;
        let block = t.mask + 1;
        // (Sixteen bytes, a constant, zeroed in two stores: a block size's fill was a
        // `memset` call.)
        t.keystream[KEEP - 16..].fill(0);
        let keystream = &mut t.keystream[KEEP - block..];
        let dec = self.direction == Direction::Decrypt;
        Self::units(
            &mut self.core,
            &self.cipher,
            self.params.mode,
            dec,
            keystream,
        );
        t.left = block;
        _ = self.use_tail(end);
    }

    /// CTR on `data` (shorter than [`STACK_CALL`], the tail used up): the keystream of its
    /// blocks and of the look-ahead ([`Tail`]) from one kernel call, the rest kept.
    fn ctr_ahead(&mut self, data: &mut [u8]) {
        let t = &self.tail;
        let make = ((data.len() + t.mask) & !t.mask).max(t.ahead);
        let mut keystream = [0u8; STACK_CALL + 16];
        self.process_units(&mut keystream[..make]);
        let (used, rest) = keystream[..make].split_at(data.len());
        crate::bytes::xor(data, used);
        let t = &mut self.tail;
        t.keep(rest);
        t.ahead = (2 * t.ahead).min(KEEP);
        crate::bytes::wipe(&mut keystream[..make]);
    }

    /// CFB decryption of `data` (whole blocks, then `past` bytes; shorter than
    /// [`STACK_CALL`]; the tail used up): the next block's keystream is E(this call's last
    /// ciphertext block), known before the call, so it runs in the same kernel call as the
    /// whole blocks (a zero block after them, the chain then restarted by `use_tail` as
    /// after `process_stream`'s zero block), beside them instead of after them. Only where
    /// a block alone is slow ([`Cipher::has_serial_backend`]): Zen 4, by 15/33/65-byte
    /// calls, 3DES 88.1/49.7/25.8 → 57.5/32.5/16.6 TSC c/B (0.71× → 1.09× libgcrypt at
    /// 15 B), SEED 32.6/29.1/18.0 → 32.7/23.2/11.8; AES, a block's rounds costing about
    /// the two copies, lost (2.52/1.35 → 2.89/1.59 at 33/65 B).
    fn cfb_decrypt_ahead(&mut self, data: &mut [u8], past: usize) {
        let whole = data.len() - past;
        let block = self.tail.mask + 1;
        let mut buf = [0u8; STACK_CALL + 16];
        buf[..whole].copy_from_slice(&data[..whole]);
        self.process_units(&mut buf[..whole + block]);
        let (blocks, end) = data.split_at_mut(whole);
        blocks.copy_from_slice(&buf[..whole]);
        self.tail.keep(&buf[whole..whole + block]);
        crate::bytes::wipe(&mut buf);
        _ = self.use_tail(end);
    }

    /// XORs the tail's unused keystream into the start of `data`; returns the rest.
    fn use_tail<'a>(&mut self, data: &'a mut [u8]) -> &'a mut [u8] {
        let t = &mut self.tail;
        let n = t.left.min(data.len());
        if n == 0 {
            return data;
        }
        // (The used keystream stays until new keystream overwrites it or the drop wipes
        // it, as OpenSSL keeps its own.)
        let at = KEEP - t.left;
        let (head, rest) = data.split_at_mut(n);
        let keystream = &t.keystream[at..at + n];
        t.left -= n;
        if self.params.mode != Mode::Cfb {
            crate::bytes::xor(head, keystream);
            return rest;
        }
        // (CFB keeps a block at most: `at` is its position in the keystream's block.)
        let at = at - (KEEP - t.mask - 1);
        // CFB: the block's ciphertext is the chain's next input.
        let dec = self.direction == Direction::Decrypt;
        for ((b, k), c) in head
            .iter_mut()
            .zip(keystream)
            .zip(&mut t.ciphertext[at..at + n])
        {
            *c = if dec { *b } else { *b ^ k };
            *b ^= k;
        }
        if t.left == 0 {
            if let Core::Chain(ch) = &mut self.core {
                ch.restart(&t.ciphertext[..=t.mask]);
            }
        }
        rest
    }

    /// [`process`](Self::process) on whole units (or, at the end, the final partial
    /// unit), through the mode's kernels.
    #[inline]
    fn process_units(&mut self, data: &mut [u8]) {
        if data.is_empty() {
            return;
        }
        let dec = self.direction == Direction::Decrypt;
        Self::units(&mut self.core, &self.cipher, self.params.mode, dec, data);
    }

    /// [`process_units`](Self::process_units) on the fields it reads, so a caller can
    /// hand it another field's bytes (the tail's keystream).
    #[inline]
    fn units(core: &mut Core, c: &Cipher, mode: Mode, dec: bool, data: &mut [u8]) {
        let bs = c.block_size();
        let parts = parallel::chunks_for(data.len(), c.threads());
        match (core, mode) {
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
