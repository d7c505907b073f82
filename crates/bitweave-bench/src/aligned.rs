//! Cache-line-aligned buffers for the measured calls.

/// A buffer that starts on a cache line, as `openssl speed` aligns its buffers. Threads
/// that split data in place then never write into the same line; with the 16-byte
/// alignment `malloc` gives large buffers, every row of interleaved chains split across
/// two threads would have one line that both threads write.
///
/// Two such buffers are also a multiple of 64 bytes apart, never the few bytes (4-28
/// measured) past each other modulo 4 KiB where glibc's `rep movsb` copy (used from 4 KiB)
/// runs ~35× slower on Zen 3: a 16 KiB copy took 0.79 TSC c/B against 0.024 (glibc 2.36,
/// AMD EPYC Zen 3). Two 16 KiB `Vec`s allocated one after the other are 16,400 bytes
/// apart, which is exactly that case.
pub struct LineAligned {
    backing: Vec<u8>,
    start: usize,
    len: usize,
}

impl LineAligned {
    const LINE: usize = 64;

    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        let backing = vec![0u8; len + Self::LINE];
        let start = backing.as_ptr().align_offset(Self::LINE);
        Self {
            backing,
            start,
            len,
        }
    }

    /// The bytes, to write.
    pub fn bytes(&mut self) -> &mut [u8] {
        &mut self.backing[self.start..self.start + self.len]
    }

    /// The bytes, to read.
    pub fn view(&self) -> &[u8] {
        &self.backing[self.start..self.start + self.len]
    }

    /// A copy of `data` in a fresh aligned buffer.
    pub fn from_slice(data: &[u8]) -> Self {
        let mut b = Self::zeroed(data.len());
        b.bytes().copy_from_slice(data);
        b
    }
}
