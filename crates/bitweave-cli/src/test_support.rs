//! Helpers for the CLI's unit tests.

use std::io::{self, Read};

/// Gives `good` bytes, then fails as a dying disk or a dropped network mount would.
pub struct FailingReader {
    pub good: usize,
}

impl Read for FailingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.good == 0 {
            return Err(io::Error::other("input/output error"));
        }
        let n = buf.len().min(self.good);
        buf[..n].fill(0x5a);
        self.good -= n;
        Ok(n)
    }
}
