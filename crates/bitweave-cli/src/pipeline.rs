//! Reading, transforming and writing at the same time: a reader thread fills pieces, the
//! calling thread transforms each in place, a writer thread writes them out, and the
//! buffers go round (no allocation per piece). Wall time approaches the slowest of the
//! three instead of their sum, which matters because a file or pipe costs the kernel about
//! as much time as a fast cipher costs the CPU.

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use bitweave::SecretVec;

use crate::output::reason;

/// Bytes per piece: large enough that per-piece costs (a channel hop, a system call, a
/// thread handoff) vanish, small enough that three pieces in flight stay in the caches'
/// neighbourhood and output starts soon.
pub const PIECE: usize = 1 << 20;

/// Pieces in flight: one being read, one transformed, one written.
const DEPTH: usize = 3;

/// A buffer and how many of its bytes are data. Buffers are wiped when dropped (once, at
/// the end: while the run goes they are reused), since they may hold plaintext; at memset
/// speed ([`SecretVec`]): `Zeroizing` cleared each 1 MiB buffer a byte a cycle, whatever
/// the input's size.
pub struct Piece {
    pub buf: SecretVec,
    pub len: usize,
}

impl Piece {
    /// The data, for transforming in place.
    pub fn data(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len]
    }

    /// Replaces the data with `out` (when a transform could not work in place); the old
    /// buffer is returned for reuse.
    pub fn replace(&mut self, out: SecretVec) -> SecretVec {
        self.len = out.len();
        std::mem::replace(&mut self.buf, out)
    }
}

/// Which stage has set the pace so far, as the calling thread sees it: a moving average of
/// the time it spent transforming a piece against the time it spent waiting for the
/// reader's next piece or for room at the writer.
#[derive(Default)]
pub struct Pace {
    working: Duration,
    waiting: Duration,
}

impl Pace {
    /// Whether reading or writing has been the slower side (true before anything is
    /// measured). Then spreading a piece over more threads gains nothing and takes cores
    /// from the reader and the writer: on a 2-vCPU Intel Xeon (2026-11-30), AES-256-CTR of
    /// 1 GiB file to file took 0.30-0.33 s on one thread and 0.36-1.61 s with each piece
    /// split over both cores, the system time swollen by the pool's idle spinning.
    pub fn io_bound(&self) -> bool {
        self.waiting >= self.working
    }

    /// Folds in one piece's times (weight 1/4: a few pieces settle it, one odd piece does
    /// not flip it).
    fn record(&mut self, working: Duration, waiting: Duration) {
        self.working = self.working * 3 / 4 + working / 4;
        self.waiting = self.waiting * 3 / 4 + waiting / 4;
    }
}

/// Runs `input` through `transform` into `write`, in pieces of `piece_len` bytes (every
/// piece full except the last, so a transform that needs whole blocks gets them when
/// `piece_len` is a multiple of the block). `transform(piece, last, pace)` is called once
/// per piece in order, and exactly once with `last = true` (with an empty piece for an
/// empty input) so it can append its final output; `pace` says which side has been the
/// slower so far. The first error (reading, transforming or writing) ends the run and is
/// returned; `in_name` names the input in read errors.
pub fn run(
    input: &mut (dyn Read + Send),
    in_name: &str,
    piece_len: usize,
    mut transform: impl FnMut(&mut Piece, bool, &Pace) -> Result<()>,
    write: &mut (dyn FnMut(&[u8]) -> Result<()> + Send),
) -> Result<()> {
    let (full_tx, full_rx) = sync_channel::<Result<Piece>>(DEPTH);
    let (done_tx, done_rx) = sync_channel::<Piece>(DEPTH);
    let (free_tx, free_rx) = sync_channel::<SecretVec>(DEPTH + 1);
    std::thread::scope(|s| {
        s.spawn(move || read_pieces(input, in_name, piece_len, full_tx, free_rx));
        let writer = s.spawn(move || write_pieces(write, done_rx, free_tx));
        let transformed = transform_pieces(&mut transform, full_rx, done_tx);
        // The writer ends once `done_tx` is dropped (on return above). A write error comes
        // first: after one, the transform may have seen a cut-short input and failed
        // only because of it.
        let written = writer.join().expect("the writer thread does not panic");
        written.and(transformed)
    })
}

/// The calling thread's part: holds each piece until the next arrives, so it knows which
/// is the last.
fn transform_pieces(
    transform: &mut impl FnMut(&mut Piece, bool, &Pace) -> Result<()>,
    full: Receiver<Result<Piece>>,
    done: SyncSender<Piece>,
) -> Result<()> {
    let mut pace = Pace::default();
    let mut held: Option<Piece> = None;
    let mut asked = Instant::now();
    while let Ok(next) = full.recv() {
        let next = next?;
        let arrived = Instant::now();
        if let Some(mut piece) = held.take() {
            transform(&mut piece, false, &pace)?;
            let transformed = Instant::now();
            if done.send(piece).is_err() {
                return Ok(()); // the writer failed: its error is reported
            }
            let sent = Instant::now();
            pace.record(
                transformed - arrived,
                (arrived - asked) + (sent - transformed),
            );
            asked = sent;
        } else {
            asked = arrived;
        }
        held = Some(next);
    }
    let mut last = held.unwrap_or(Piece {
        buf: SecretVec::default(),
        len: 0,
    });
    transform(&mut last, true, &pace)?;
    let _ = done.send(last);
    Ok(())
}

fn read_pieces(
    input: &mut (dyn Read + Send),
    name: &str,
    piece_len: usize,
    full: SyncSender<Result<Piece>>,
    free: Receiver<SecretVec>,
) {
    let mut made = 0;
    loop {
        let mut buf = if made < DEPTH {
            made += 1;
            SecretVec::zeroed(piece_len)
        } else {
            match free.recv() {
                Ok(b) => b,
                Err(_) => return, // the writer stopped
            }
        };
        if buf.len() < piece_len {
            buf.resize(piece_len, 0);
        }
        let mut len = 0;
        // Fill the whole piece: a pipe hands over at most its buffer (64 KiB) per read.
        while len < piece_len {
            match input.read(&mut buf[len..piece_len]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = full.send(Err(anyhow!("cannot read {name}: {}", reason(&e))));
                    return;
                }
            }
        }
        if len == 0 {
            return; // end of input: dropping `full` tells the transform
        }
        if full.send(Ok(Piece { buf, len })).is_err() || len < piece_len {
            return;
        }
    }
}

fn write_pieces(
    write: &mut (dyn FnMut(&[u8]) -> Result<()> + Send),
    done: Receiver<Piece>,
    free: SyncSender<SecretVec>,
) -> Result<()> {
    for piece in done {
        write(&piece.buf[..piece.len])?;
        // The reader may have finished; a buffer nobody takes back is simply dropped.
        let _ = free.try_send(piece.buf);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::FailingReader;

    fn copy_through(data: &[u8], piece_len: usize) -> (Vec<u8>, Vec<(usize, bool)>) {
        let mut out = Vec::new();
        let mut calls = Vec::new();
        let mut input: &[u8] = data;
        run(
            &mut input,
            "'in'",
            piece_len,
            |p, last, _| {
                calls.push((p.len, last));
                p.data().iter_mut().for_each(|b| *b ^= 0x5a);
                Ok(())
            },
            &mut |d| {
                out.extend_from_slice(d);
                Ok(())
            },
        )
        .unwrap();
        (out, calls)
    }

    #[test]
    fn every_byte_passes_once_in_order_and_last_is_called_once() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        for (len, piece) in [
            (0, 64),
            (1, 64),
            (64, 64),
            (65, 64),
            (10_000, 64),
            (10_000, 4096),
        ] {
            let (out, calls) = copy_through(&data[..len], piece);
            let want: Vec<u8> = data[..len].iter().map(|b| b ^ 0x5a).collect();
            assert_eq!(out, want, "{len} bytes in pieces of {piece}");
            assert_eq!(calls.iter().filter(|c| c.1).count(), 1, "{len}/{piece}");
            assert!(calls.last().unwrap().1, "{len}/{piece}: last call not last");
            assert!(
                calls[..calls.len() - 1].iter().all(|c| c.0 == piece),
                "{len}/{piece}: a piece before the last is not full: {calls:?}"
            );
        }
    }

    #[test]
    fn pace_follows_the_slower_side_and_one_odd_piece_does_not_flip_it() {
        let ms = Duration::from_millis;
        let mut pace = Pace::default();
        assert!(pace.io_bound(), "nothing measured: one thread");
        for _ in 0..4 {
            pace.record(ms(8), ms(1)); // a slow cipher: the transform is the bottleneck
        }
        assert!(!pace.io_bound());
        pace.record(ms(1), ms(9)); // one slow write
        assert!(!pace.io_bound(), "one odd piece flipped it");
        for _ in 0..4 {
            pace.record(ms(1), ms(4)); // a fast cipher: waiting on reads and writes
        }
        assert!(pace.io_bound());
    }

    #[test]
    fn a_read_error_is_reported_with_the_name() {
        let mut input = FailingReader { good: 5 * 4096 + 7 };
        let err = run(&mut input, "'x.bin'", 4096, |_, _, _| Ok(()), &mut |_| {
            Ok(())
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "cannot read 'x.bin': input/output error");
    }

    #[test]
    fn a_write_error_stops_the_run() {
        let data = vec![1u8; 100_000];
        let mut input: &[u8] = &data;
        let mut writes = 0;
        let err = run(&mut input, "'in'", 1000, |_, _, _| Ok(()), &mut |_| {
            writes += 1;
            if writes == 3 {
                Err(anyhow!("disk full"))
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(writes, 3);
    }

    #[test]
    fn a_transform_error_stops_the_run() {
        let data = vec![1u8; 100_000];
        let mut input: &[u8] = &data;
        let mut n = 0;
        let err = run(
            &mut input,
            "'in'",
            1000,
            |_, _, _| {
                n += 1;
                if n == 5 {
                    Err(anyhow!("bad padding"))
                } else {
                    Ok(())
                }
            },
            &mut |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "bad padding");
    }
}
