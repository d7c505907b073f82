//! Reading, transforming and writing at the same time: a reader thread fills pieces, the
//! calling thread transforms each in place, a writer thread writes them out, and the
//! buffers go round (no allocation per piece). Wall time approaches the slowest of the
//! three instead of their sum, which matters because a file or pipe costs the kernel about
//! as much time as a fast cipher costs the CPU.

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use anyhow::{anyhow, Result};
use zeroize::Zeroizing;

use crate::output::reason;

/// Bytes per piece: large enough that per-piece costs (a channel hop, a system call, a
/// thread handoff) vanish, small enough that three pieces in flight stay in the caches'
/// neighbourhood and output starts soon.
pub const PIECE: usize = 1 << 20;

/// Pieces in flight: one being read, one transformed, one written.
const DEPTH: usize = 3;

/// A buffer and how many of its bytes are data. Buffers are wiped when dropped (once, at
/// the end: while the run goes they are reused), since they may hold plaintext.
pub struct Piece {
    pub buf: Zeroizing<Vec<u8>>,
    pub len: usize,
}

impl Piece {
    /// The data, for transforming in place.
    pub fn data(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len]
    }

    /// Replaces the data with `out` (when a transform could not work in place); the old
    /// buffer is returned for reuse.
    pub fn replace(&mut self, out: Zeroizing<Vec<u8>>) -> Zeroizing<Vec<u8>> {
        self.len = out.len();
        std::mem::replace(&mut self.buf, out)
    }
}

/// Runs `input` through `transform` into `write`, in pieces of `piece_len` bytes (every
/// piece full except the last, so a transform that needs whole blocks gets them when
/// `piece_len` is a multiple of the block). `transform(piece, last)` is called once per
/// piece in order, and exactly once with `last = true` (with an empty piece for an empty
/// input) so it can append its final output. The first error (reading, transforming or
/// writing) ends the run and is returned; `in_name` names the input in read errors.
pub fn run(
    input: &mut (dyn Read + Send),
    in_name: &str,
    piece_len: usize,
    mut transform: impl FnMut(&mut Piece, bool) -> Result<()>,
    write: &mut (dyn FnMut(&[u8]) -> Result<()> + Send),
) -> Result<()> {
    let (full_tx, full_rx) = sync_channel::<Result<Piece>>(DEPTH);
    let (done_tx, done_rx) = sync_channel::<Piece>(DEPTH);
    let (free_tx, free_rx) = sync_channel::<Zeroizing<Vec<u8>>>(DEPTH + 1);
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
    transform: &mut impl FnMut(&mut Piece, bool) -> Result<()>,
    full: Receiver<Result<Piece>>,
    done: SyncSender<Piece>,
) -> Result<()> {
    let mut held: Option<Piece> = None;
    for next in full {
        let next = next?;
        if let Some(mut piece) = held.take() {
            transform(&mut piece, false)?;
            if done.send(piece).is_err() {
                return Ok(()); // the writer failed: its error is reported
            }
        }
        held = Some(next);
    }
    let mut last = held.unwrap_or(Piece {
        buf: Zeroizing::new(Vec::new()),
        len: 0,
    });
    transform(&mut last, true)?;
    let _ = done.send(last);
    Ok(())
}

fn read_pieces(
    input: &mut (dyn Read + Send),
    name: &str,
    piece_len: usize,
    full: SyncSender<Result<Piece>>,
    free: Receiver<Zeroizing<Vec<u8>>>,
) {
    let mut made = 0;
    loop {
        let mut buf = if made < DEPTH {
            made += 1;
            Zeroizing::new(vec![0u8; piece_len])
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
    free: SyncSender<Zeroizing<Vec<u8>>>,
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
            |p, last| {
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
    fn a_read_error_is_reported_with_the_name() {
        let mut input = FailingReader { good: 5 * 4096 + 7 };
        let err = run(&mut input, "'x.bin'", 4096, |_, _| Ok(()), &mut |_| Ok(())).unwrap_err();
        assert_eq!(err.to_string(), "cannot read 'x.bin': input/output error");
    }

    #[test]
    fn a_write_error_stops_the_run() {
        let data = vec![1u8; 100_000];
        let mut input: &[u8] = &data;
        let mut writes = 0;
        let err = run(&mut input, "'in'", 1000, |_, _| Ok(()), &mut |_| {
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
            |_, _| {
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
