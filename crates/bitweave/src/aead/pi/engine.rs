//! The multi-buffer scheduler: any number of messages, each split into the blocks the mode
//! makes independent, packed into batches of `L` lanes for a lane kernel.
//!
//! π-Cipher's structure decides what can share a batch. Given the common internal state
//! (CIS), every AD block is independent, and so is every message block; only four steps per
//! message are serial: the initial π, the fold of the AD tag into the CIS, the SMN block and
//! the tag. The scheduler therefore runs phase by phase across *all* messages: the initial π
//! of every message in lanes, then every AD block of every message, then every fold, every SMN
//! block, every message block. One long message fills the lanes with its own blocks; many
//! short messages fill them with each other's. Tails too small for a wide batch run on the
//! scalar π (DESIGN.md: full batches plus a tail that cascades down).
#![deny(unsafe_code)]
// Word-sliced code indexes state word i of lane l; index loops say that most plainly.
#![allow(clippy::needless_range_loop)]

use crate::bytes::wipe;

use super::lanes::{pi_single, States};
use super::layout::{
    block_of, block_words, blocks, counter, init_state, inject, rate_bytes, store_words,
    RATE_WORDS, STATE_WORDS,
};
use super::word::Word;

/// One message's inputs. For decryption `smn` is the encrypted SMN and `data` the ciphertext
/// body (without E(SMN) and tag).
pub struct Job<'a> {
    pub key: &'a [u8],
    pub npub: &'a [u8],
    pub smn: Option<&'a [u8]>,
    pub ad: &'a [u8],
    pub data: &'a [u8],
}

/// Where one message's results go (`smn` is empty when the job has no SMN).
pub struct Out<'a> {
    pub smn: &'a mut [u8],
    pub data: &'a mut [u8],
    pub tag: &'a mut [u8],
}

/// A lane kernel: π on `L` whole states.
pub type Kernel<W, const L: usize> = fn(&mut States<W, L>);

/// Batches smaller than this run lane by lane on the scalar π: two states already pay for
/// a kernel call on every backend's lanes (Intel 2026-11-30: π16, four 64-byte messages,
/// 21.5 → 19.3 TSC c/B with the threshold at two instead of four).
const MIN_WIDE: usize = 2;

/// What a block step does with its data: AD is absorbed (no output), plaintext encrypted,
/// ciphertext decrypted.
pub const ABSORB: u8 = 0;
pub const ENCRYPT: u8 = 1;
pub const DECRYPT: u8 = 2;

/// A whole-step kernel for long runs of one message's full blocks: `(mode, cis, first
/// counter, data, out, tag)` processes `data.len() / (width × rate)` batches of `width`
/// consecutive blocks (`out` as long, unless absorbing) and adds their tag words to `tag`.
pub type Blocks<W> = fn(u8, &[W; STATE_WORDS], u64, &[u8], &mut [u8], &mut [W; 8]);

/// A backend's whole-step kernels with their batch widths in blocks, widest first: a run
/// goes through the first for its whole batches, its rest through the next (AVX-512's
/// tail under one 512-byte batch through AVX2's, which was 2x faster there than lanes).
pub type WholeSteps<W> = [Option<(Blocks<W>, usize)>; 2];

/// Runs the longest prefix of `data` (full blocks from counter `ctr`) that the whole-step
/// kernels cover, each in turn on what the previous left; returns how many blocks they did.
fn run_whole<W: Word>(
    whole: &WholeSteps<W>,
    mode: u8,
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) -> usize {
    let rb = rate_bytes::<W>();
    let total = data.len() / rb;
    let mut done = 0;
    for &(f, width) in whole.iter().flatten() {
        let n = (total - done) / width * width;
        if n == 0 {
            continue;
        }
        let span = done * rb..(done + n) * rb;
        let o: &mut [u8] = if mode == ABSORB {
            &mut []
        } else {
            &mut out[span.clone()]
        };
        f(
            mode,
            cis,
            ctr.wrapping_add(done as u64),
            &data[span],
            o,
            tag,
        );
        done += n;
    }
    done
}

/// Per-message sponge state, wiped on drop.
struct Sponge<W: Word> {
    cis: [W; STATE_WORDS],
    ctr0: u64,
    tag: [W; 8],
}

impl<W: Word> Drop for Sponge<W> {
    fn drop(&mut self) {
        wipe(&mut self.cis);
        wipe(core::slice::from_mut(&mut self.ctr0));
        wipe(&mut self.tag);
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Ad,
    Smn,
    Msg,
}

/// One lane's work: a triplex step of message `m`, block `b` of `phase`, with counter `ctr`.
#[derive(Clone, Copy)]
struct Lane {
    m: usize,
    b: usize,
    ctr: u64,
    phase: Phase,
}

struct Scheduler<'j, 'o, 'a, 'b, W: Word, const L: usize> {
    kernel: Kernel<W, L>,
    /// The backend's whole-step kernels, if it has any.
    blocks: WholeSteps<W>,
    decrypt: bool,
    jobs: &'j [Job<'a>],
    outs: &'o mut [Out<'b>],
    sponges: Vec<Sponge<W>>,
    /// The batch the lane kernel runs on, allocated at the first wide batch: a single
    /// short message has none, and a register pair's 1 KiB buffer (zeroed, then wiped)
    /// showed in its time (π64 64 B, Intel, TSC c/B: 38.9 allocated up front, 36.6-37.8
    /// at first use, 35.0 with one register's 512 bytes).
    lanes: Option<Batch<W, L>>,
    pending: Vec<Lane>,
}

/// Runs every job: encryption (`decrypt == false`) or decryption. Tags are written, not
/// checked; the caller compares them.
pub fn run<W: Word, const L: usize>(
    kernel: Kernel<W, L>,
    blocks: WholeSteps<W>,
    decrypt: bool,
    jobs: &[Job<'_>],
    outs: &mut [Out<'_>],
) {
    assert_eq!(jobs.len(), outs.len());
    let mut s = Scheduler {
        kernel,
        blocks,
        decrypt,
        jobs,
        outs,
        sponges: Vec::with_capacity(jobs.len()),
        lanes: None,
        pending: Vec::with_capacity(L),
    };
    s.run();
}

impl<W: Word, const L: usize> Scheduler<'_, '_, '_, '_, W, L> {
    fn run(&mut self) {
        // 1. Initial π of every message.
        let mut states: Vec<[W; STATE_WORDS]> = self
            .jobs
            .iter()
            .map(|j| init_state::<W>(j.key, j.npub))
            .collect();
        self.permute_all(&mut states);
        for st in &states {
            self.sponges.push(Sponge {
                cis: *st,
                ctr0: counter(st),
                tag: [W::default(); 8],
            });
        }
        // 2. Every AD block of every message.
        for m in 0..self.jobs.len() {
            let ctr = self.sponges[m].ctr0.wrapping_add(1);
            let done = self.run_blocks(m, ABSORB, ctr, self.jobs[m].ad);
            for b in done..blocks::<W>(self.jobs[m].ad.len()) {
                let ctr = self.sponges[m].ctr0.wrapping_add(1 + b as u64);
                self.push(Lane {
                    m,
                    b,
                    ctr,
                    phase: Phase::Ad,
                });
            }
        }
        self.flush();
        // 3. Fold the AD tag into each CIS.
        for (st, sp) in states.iter_mut().zip(&self.sponges) {
            *st = sp.cis;
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                st[i] = st[i].xor(sp.tag[k]);
            }
        }
        self.permute_all(&mut states);
        for (st, sp) in states.iter().zip(&mut self.sponges) {
            sp.cis = *st;
        }
        wipe(&mut states);
        // 4. The SMN blocks; each result becomes its message's CIS.
        for m in 0..self.jobs.len() {
            if self.jobs[m].smn.is_some() {
                let nad = blocks::<W>(self.jobs[m].ad.len()) as u64;
                let ctr = self.sponges[m].ctr0.wrapping_add(1 + nad);
                self.push(Lane {
                    m,
                    b: 0,
                    ctr,
                    phase: Phase::Smn,
                });
            }
        }
        self.flush();
        // 5. Every message block of every message.
        for m in 0..self.jobs.len() {
            let jobs = self.jobs;
            let j = &jobs[m];
            let first = 1 + blocks::<W>(j.ad.len()) as u64 + j.smn.is_some() as u64;
            let ctr = self.sponges[m].ctr0.wrapping_add(first);
            let mode = if self.decrypt { DECRYPT } else { ENCRYPT };
            let done = self.run_blocks(m, mode, ctr, j.data);
            for b in done..blocks::<W>(j.data.len()) {
                let ctr = self.sponges[m].ctr0.wrapping_add(first + b as u64);
                self.push(Lane {
                    m,
                    b,
                    ctr,
                    phase: Phase::Msg,
                });
            }
        }
        self.flush();
        // 6. Tags.
        for (sp, out) in self.sponges.iter().zip(self.outs.iter_mut()) {
            store_words(&sp.tag, out.tag);
        }
    }

    /// The leading whole batches of `data` (message `m`'s AD or body) on the whole-step
    /// kernel, if there is one; returns how many blocks it did.
    fn run_blocks(&mut self, m: usize, mode: u8, ctr: u64, data: &[u8]) -> usize {
        let sp = &mut self.sponges[m];
        let out: &mut [u8] = if mode == ABSORB {
            &mut []
        } else {
            &mut self.outs[m].data[..]
        };
        run_whole(&self.blocks, mode, &sp.cis, ctr, data, out, &mut sp.tag)
    }

    /// π on each state, in lane batches (a full batch in place).
    fn permute_all(&mut self, states: &mut [[W; STATE_WORDS]]) {
        for chunk in states.chunks_mut(L) {
            if chunk.len() < MIN_WIDE {
                chunk.iter_mut().for_each(pi_single);
            } else if let Ok(batch) = <&mut States<W, L>>::try_from(&mut *chunk) {
                (self.kernel)(batch);
            } else {
                let mut batch = self.take_batch();
                batch[..chunk.len()].copy_from_slice(chunk);
                (self.kernel)(&mut batch);
                chunk.copy_from_slice(&batch[..chunk.len()]);
                self.lanes = Some(batch);
            }
        }
    }

    fn push(&mut self, lane: Lane) {
        self.pending.push(lane);
        if self.pending.len() == L {
            self.flush();
        }
    }

    /// Runs the pending triplex steps: wide when there are enough, else one by one.
    fn flush(&mut self) {
        let lanes = core::mem::take(&mut self.pending);
        if lanes.len() >= MIN_WIDE {
            self.wide(&lanes);
        } else {
            for lane in &lanes {
                self.scalar(lane);
            }
        }
        self.pending = lanes;
        self.pending.clear();
    }

    /// The steps of `lanes` on the lane kernel, each lane's state built and read in place
    /// in the batch (which is wiped when the scheduler drops): a 64-byte message's few
    /// steps are mostly this data movement, not π.
    fn wide(&mut self, lanes: &[Lane]) {
        let mut batch = self.take_batch();
        for (st, lane) in batch.iter_mut().zip(lanes) {
            *st = self.sponges[lane.m].cis;
            inject(st, lane.ctr);
        }
        (self.kernel)(&mut batch);
        let rb = rate_bytes::<W>();
        for (l, lane) in lanes.iter().enumerate() {
            let job = &self.jobs[lane.m];
            let mut r: [W; 8] = RATE_WORDS.map(|i| batch[l][i]);
            if lane.phase == Phase::Msg && (lane.b + 1) * rb <= job.data.len() {
                // A full message block: no padding to handle.
                let start = lane.b * rb;
                let mode = if self.decrypt { DECRYPT } else { ENCRYPT };
                let out = &mut self.outs[lane.m].data[start..start + rb];
                absorb_full(mode, &mut r, &job.data[start..start + rb], Some(out));
            } else {
                self.absorb(lane, &mut r);
            }
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                batch[l][i] = r[k];
            }
            wipe(&mut r);
        }
        (self.kernel)(&mut batch);
        for (st, lane) in batch.iter().zip(lanes) {
            let sp = &mut self.sponges[lane.m];
            for (k, &i) in RATE_WORDS.iter().enumerate() {
                sp.tag[k] = sp.tag[k].add(st[i]);
            }
            if lane.phase == Phase::Smn {
                sp.cis = *st;
            }
        }
        self.lanes = Some(batch);
    }

    /// The lane kernel's batch, allocated on first use; the caller puts it back.
    fn take_batch(&mut self) -> Batch<W, L> {
        self.lanes
            .take()
            .unwrap_or_else(|| Batch(Box::new([[W::default(); STATE_WORDS]; L])))
    }

    fn scalar(&mut self, lane: &Lane) {
        let mut st = self.sponges[lane.m].cis;
        inject(&mut st, lane.ctr);
        pi_single(&mut st);
        let mut r: [W; 8] = RATE_WORDS.map(|i| st[i]);
        self.absorb(lane, &mut r);
        for (k, &i) in RATE_WORDS.iter().enumerate() {
            st[i] = r[k];
        }
        wipe(&mut r);
        pi_single(&mut st);
        let sp = &mut self.sponges[lane.m];
        for (k, &i) in RATE_WORDS.iter().enumerate() {
            sp.tag[k] = sp.tag[k].add(st[i]);
        }
        if lane.phase == Phase::Smn {
            sp.cis = st;
        }
        wipe(&mut st);
    }

    /// The data half of a triplex step on the rate `r` (keystream on entry): writes the
    /// output bytes (keystream ^ data) and leaves in `r` what goes into the second π — the
    /// padded data XORed in when absorbing, the ciphertext bytes (and keystream ^ padding
    /// beyond them) when decrypting, exactly as the encryptor had it.
    fn absorb(&mut self, lane: &Lane, r: &mut [W; 8]) {
        let jobs = self.jobs;
        let job = &jobs[lane.m];
        let rb = rate_bytes::<W>();
        let decrypt = self.decrypt && lane.phase != Phase::Ad;
        let (data, mut out): (&[u8], Option<&mut [u8]>) = match lane.phase {
            Phase::Ad => (block_of::<W>(job.ad, lane.b), None),
            Phase::Smn => (job.smn.unwrap_or(&[]), Some(&mut *self.outs[lane.m].smn)),
            Phase::Msg => {
                let d = block_of::<W>(job.data, lane.b);
                let start = lane.b * rb;
                (d, Some(&mut self.outs[lane.m].data[start..start + d.len()]))
            }
        };
        if data.len() == rb {
            // A full block: no padding, word by word.
            for (k, rk) in r.iter_mut().enumerate() {
                let d = W::load_le(&data[k * W::BYTES..]);
                let v = rk.xor(d);
                if let Some(o) = out.as_deref_mut() {
                    v.store_le(&mut o[k * W::BYTES..]);
                }
                *rk = if decrypt { d } else { v };
            }
            return;
        }
        // The final, padded block (possibly empty).
        let pad = block_words::<W>(data);
        let v: [W; 8] = core::array::from_fn(|k| r[k].xor(pad[k]));
        match out {
            Some(o) if decrypt => {
                store_words(&v, o);
                let p = block_words::<W>(o);
                *r = core::array::from_fn(|k| r[k].xor(p[k]));
            }
            Some(o) => {
                store_words(&v, o);
                *r = v;
            }
            None => *r = v,
        }
    }
}

/// The lane kernel's batch of states, wiped on drop (also when a step is cut short while
/// the scheduler has it out).
struct Batch<W: Word, const L: usize>(Box<States<W, L>>);

impl<W: Word, const L: usize> core::ops::Deref for Batch<W, L> {
    type Target = States<W, L>;
    fn deref(&self) -> &States<W, L> {
        &self.0
    }
}

impl<W: Word, const L: usize> core::ops::DerefMut for Batch<W, L> {
    fn deref_mut(&mut self) -> &mut States<W, L> {
        &mut self.0
    }
}

impl<W: Word, const L: usize> Drop for Batch<W, L> {
    fn drop(&mut self) {
        wipe(self.0.as_flattened_mut());
    }
}

/// Full blocks of one message (`data.len()` a multiple of the rate) from counter `ctr` on:
/// the whole-step kernels for their batches ([`WholeSteps`]), the lane kernel for what
/// remains when that fills enough lanes, else `pi1` block by block. `out` is as long as `data` unless absorbing.
/// The incremental API's bulk path.
#[allow(clippy::too_many_arguments)]
pub fn steps<W: Word, const L: usize>(
    kernel: Kernel<W, L>,
    blocks: WholeSteps<W>,
    pi1: fn(&mut [W; STATE_WORDS]),
    mode: u8,
    cis: &[W; STATE_WORDS],
    ctr: u64,
    data: &[u8],
    out: &mut [u8],
    tag: &mut [W; 8],
) {
    let rb = rate_bytes::<W>();
    debug_assert_eq!(data.len() % rb, 0);
    let total = data.len() / rb;
    let mut b = run_whole(&blocks, mode, cis, ctr, data, out, tag);
    let min_wide = (L / 4).max(2);
    let mut lanes: Box<States<W, L>> = Box::new([[W::default(); STATE_WORDS]; L]);
    while b < total {
        let n = (total - b).min(L);
        if n < min_wide {
            for k in b..b + n {
                let mut s = *cis;
                inject(&mut s, ctr.wrapping_add(k as u64));
                pi1(&mut s);
                let mut r: [W; 8] = RATE_WORDS.map(|i| s[i]);
                let o = (mode != ABSORB).then(|| &mut out[k * rb..(k + 1) * rb]);
                absorb_full(mode, &mut r, &data[k * rb..(k + 1) * rb], o);
                for (j, &i) in RATE_WORDS.iter().enumerate() {
                    s[i] = r[j];
                }
                pi1(&mut s);
                for (j, &i) in RATE_WORDS.iter().enumerate() {
                    tag[j] = tag[j].add(s[i]);
                }
                wipe(&mut s);
            }
        } else {
            for (l, st) in lanes[..n].iter_mut().enumerate() {
                *st = *cis;
                inject(st, ctr.wrapping_add((b + l) as u64));
            }
            kernel(&mut lanes);
            for (l, st) in lanes[..n].iter_mut().enumerate() {
                let k = b + l;
                let mut r: [W; 8] = RATE_WORDS.map(|i| st[i]);
                let o = (mode != ABSORB).then(|| &mut out[k * rb..(k + 1) * rb]);
                absorb_full(mode, &mut r, &data[k * rb..(k + 1) * rb], o);
                for (j, &i) in RATE_WORDS.iter().enumerate() {
                    st[i] = r[j];
                }
            }
            kernel(&mut lanes);
            for st in &lanes[..n] {
                for (j, &i) in RATE_WORDS.iter().enumerate() {
                    tag[j] = tag[j].add(st[i]);
                }
            }
        }
        b += n;
    }
    wipe(lanes.as_flattened_mut());
}

/// The data half of a triplex step on a full block: `r` holds the keystream on entry,
/// `out` gets keystream ^ data, and `r` leaves with what the second π absorbs (the
/// ciphertext either way).
#[inline(always)]
fn absorb_full<W: Word>(mode: u8, r: &mut [W; 8], data: &[u8], mut out: Option<&mut [u8]>) {
    for (k, rk) in r.iter_mut().enumerate() {
        let d = W::load_le(&data[k * W::BYTES..]);
        let v = rk.xor(d);
        if let Some(o) = out.as_deref_mut() {
            v.store_le(&mut o[k * W::BYTES..]);
        }
        *rk = if mode == DECRYPT { d } else { v };
    }
}
