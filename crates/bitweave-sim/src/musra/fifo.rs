//! The input and output FIFOs (section 2.1): 512 bits wide and 8 rows deep, each loading or
//! storing one 64-byte entry per cycle. The input FIFO broadcasts: every cell configured to
//! read it sees the entry of the iteration its row is working on. Because row k of the
//! pipeline works on the iteration loaded k + 1 cycles earlier, an entry must stay in the
//! FIFO until the deepest row that reads it has done so; eight rows of depth are exactly
//! enough for the eight rows of the array (interpretation of "exploits the overlapping data
//! between two successive iterations", section 2.3).

use super::cell::FIFO_BYTES;

/// FIFO depth in entries (section 2.1).
pub const FIFO_DEPTH: usize = 8;

/// The input FIFO: a ring of eight 64-byte entries tagged with their iteration.
#[derive(Debug, Clone)]
pub struct InputFifo {
    entries: [[u8; FIFO_BYTES]; FIFO_DEPTH],
    tags: [Option<u64>; FIFO_DEPTH],
    /// Entries loaded.
    pub loads: u64,
}

impl Default for InputFifo {
    fn default() -> Self {
        InputFifo {
            entries: [[0; FIFO_BYTES]; FIFO_DEPTH],
            tags: [None; FIFO_DEPTH],
            loads: 0,
        }
    }
}

impl InputFifo {
    /// Loads iteration `iter`'s bytes (LOAD phase), overwriting the entry of `iter - 8`.
    pub fn load(&mut self, iter: u64, bytes: &[u8]) {
        assert!(bytes.len() <= FIFO_BYTES, "an entry is 512 bits");
        let slot = (iter % FIFO_DEPTH as u64) as usize;
        self.entries[slot][..bytes.len()].copy_from_slice(bytes);
        self.tags[slot] = Some(iter);
        self.loads += 1;
    }

    /// The entry of iteration `iter`, which must still be held.
    pub fn entry(&self, iter: u64) -> &[u8; FIFO_BYTES] {
        let slot = (iter % FIFO_DEPTH as u64) as usize;
        assert_eq!(
            self.tags[slot],
            Some(iter),
            "input FIFO no longer holds iteration {iter}"
        );
        &self.entries[slot]
    }
}

/// The output FIFO: completed iterations wait here until the STORE phase writes them to
/// the data memory, one 64-byte entry per cycle.
#[derive(Debug, Clone, Default)]
pub struct OutputFifo {
    queue: std::collections::VecDeque<(u64, Vec<u8>)>,
    /// Highest occupancy seen.
    pub max_occupancy: usize,
}

impl OutputFifo {
    /// Pushes a completed iteration; the FIFO must not overflow.
    pub fn push(&mut self, iter: u64, bytes: Vec<u8>) {
        assert!(bytes.len() <= FIFO_BYTES);
        self.queue.push_back((iter, bytes));
        assert!(self.queue.len() <= FIFO_DEPTH, "output FIFO overflow");
        self.max_occupancy = self.max_occupancy.max(self.queue.len());
    }

    /// STORE: pops one entry.
    pub fn pop(&mut self) -> Option<(u64, Vec<u8>)> {
        self.queue.pop_front()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_fifo_holds_eight_iterations() {
        let mut f = InputFifo::default();
        for i in 0..9u64 {
            f.load(i, &[i as u8; 4]);
        }
        assert_eq!(f.entry(8)[0], 8);
        assert_eq!(f.entry(1)[0], 1);
        let r = std::panic::catch_unwind(|| f.entry(0)[0]);
        assert!(r.is_err(), "iteration 0 was overwritten by iteration 8");
    }
}
