//! Heterogeneous work splitting (the SEED-on-Cell paper's "Hybrid" vs "ALL SIMD", §3–4):
//! different backends run side by side on different cores over one input of independent
//! blocks, either with a fixed workload ratio or by dynamic self-scheduling, and an
//! automatic mode measures each backend alone and picks the ratio that balances them.
//!
//! The output never depends on the split: every block is encrypted independently (ECB over
//! the batch), so any assignment of blocks to workers gives the same bytes.

use std::sync::Mutex;
use std::time::Instant;

use crate::cipher::BlockCipher;

/// How the blocks are shared between two workers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Schedule {
    /// The first worker takes `ratio` of the blocks (0.0..=1.0), the second the rest,
    /// each on its own thread: the paper's workload ratio.
    Static { ratio: f64 },
    /// Both workers repeatedly take the next `chunk` bytes until none are left
    /// (work sharing through one queue: whoever is faster does more).
    Dynamic { chunk: usize },
}

/// Encrypts (or decrypts) the whole blocks of `data` on two workers, each on its own
/// thread, shared as `schedule` says.
pub fn run(workers: [&dyn BlockCipher; 2], schedule: Schedule, data: &mut [u8], decrypt: bool) {
    let bs = workers[0].block_size();
    assert_eq!(bs, workers[1].block_size(), "workers run the same cipher");
    assert!(data.len().is_multiple_of(bs), "whole blocks only");
    let work = |c: &dyn BlockCipher, part: &mut [u8]| {
        if decrypt {
            c.decrypt_blocks(part)
        } else {
            c.encrypt_blocks(part)
        }
    };
    match schedule {
        Schedule::Static { ratio } => {
            let blocks = data.len() / bs;
            let first = ((blocks as f64 * ratio.clamp(0.0, 1.0)).round() as usize).min(blocks);
            let (a, b) = data.split_at_mut(first * bs);
            std::thread::scope(|s| {
                s.spawn(|| work(workers[0], a));
                work(workers[1], b);
            });
        }
        Schedule::Dynamic { chunk } => {
            let chunk = (chunk / bs).max(1) * bs;
            let queue = Mutex::new(data.chunks_mut(chunk));
            let worker = |c: &dyn BlockCipher| loop {
                // The lock is held only to take the next piece, never while working.
                let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                match next {
                    Some(piece) => work(c, piece),
                    None => break,
                }
            };
            std::thread::scope(|s| {
                s.spawn(|| worker(workers[0]));
                worker(workers[1]);
            });
        }
    }
}

/// The static ratio that balances the two workers: each is timed alone (one thread) on
/// `sample` bytes, and the first gets the share its speed earns, r = v0 / (v0 + v1).
pub fn auto_ratio(workers: [&dyn BlockCipher; 2], sample: usize) -> f64 {
    let bs = workers[0].block_size();
    let mut buf = vec![0u8; (sample / bs).max(1) * bs];
    let speed = |c: &dyn BlockCipher, buf: &mut [u8]| {
        c.encrypt_blocks(buf); // warm up
        let start = Instant::now();
        let mut rounds = 0u32;
        while rounds < 3 || start.elapsed().as_millis() < 20 {
            c.encrypt_blocks(buf);
            rounds += 1;
        }
        buf.len() as f64 * rounds as f64 / start.elapsed().as_secs_f64()
    };
    let v0 = speed(workers[0], &mut buf);
    let v1 = speed(workers[1], &mut buf);
    balance(v0, v1)
}

/// The first worker's share when the two run at `v0` and `v1` bytes per second: both
/// finish together when r / v0 = (1 − r) / v1.
fn balance(v0: f64, v1: f64) -> f64 {
    v0 / (v0 + v1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cipher::CipherKind;
    use crate::engine::Cipher;

    #[test]
    fn every_schedule_gives_the_one_thread_bytes() {
        let key = [5u8; 16];
        let soft = Cipher::with_backend(CipherKind::Aes128, &key, Some("soft")).unwrap();
        let best = Cipher::new(CipherKind::Aes128, &key).unwrap();
        let data: Vec<u8> = (0..16 * 1001).map(|i| (i * 31) as u8).collect();
        let mut want = data.clone();
        soft.encrypt_blocks(&mut want);
        let schedules = [
            Schedule::Static { ratio: 0.0 },
            Schedule::Static { ratio: 0.37 },
            Schedule::Static { ratio: 1.0 },
            Schedule::Dynamic { chunk: 16 },
            Schedule::Dynamic { chunk: 1000 },
        ];
        for schedule in schedules {
            let mut got = data.clone();
            run([&best, &soft], schedule, &mut got, false);
            assert!(got == want, "{schedule:?}");
            run([&soft, &best], schedule, &mut got, true);
            assert!(got == data, "{schedule:?} decrypt");
        }
    }

    /// The formula, on speeds we choose (a timed comparison would fail by chance on a
    /// CPU or emulator where the "fast" backend is not faster).
    #[test]
    fn the_faster_worker_gets_the_larger_share() {
        assert_eq!(balance(3.0, 1.0), 0.75);
        assert_eq!(balance(1.0, 1.0), 0.5);
        assert!(balance(1.0, 4.0) < 0.5);
    }

    #[test]
    fn auto_ratio_is_a_share() {
        let key = [5u8; 16];
        let soft = Cipher::with_backend(CipherKind::Aes128, &key, Some("soft")).unwrap();
        let best = Cipher::new(CipherKind::Aes128, &key).unwrap();
        let r = auto_ratio([&best, &soft], 4096);
        assert!(r > 0.0 && r < 1.0, "{r}");
    }
}
