//! The MFC's DMA commands and the path they share to main memory. A command moves 1, 2, 4
//! or 8 bytes or a multiple of 16 up to 16 KB (paper §2.1); it takes the command latency,
//! then streams over the SPE's EIB port and the XDR memory, transfers queueing on the
//! memory in request order. This is the latency-parameterised channel between the SPEs and
//! main memory.

use super::config::DmaConfig;
use super::CellError;

/// Checks a DMA command's size against the MFC's rules.
pub fn check_size(bytes: usize, max: usize) -> Result<(), CellError> {
    let ok =
        matches!(bytes, 1 | 2 | 4 | 8) || (bytes.is_multiple_of(16) && bytes > 0 && bytes <= max);
    if ok {
        Ok(())
    } else {
        Err(CellError::DmaSize { bytes, max })
    }
}

/// The channel from main memory to the SPEs' local stores (both directions share it).
#[derive(Debug, Clone)]
pub struct MemoryChannel {
    latency: u64,
    bytes_per_cycle: f64,
    busy_until: f64,
    /// Bytes moved so far.
    pub bytes: u64,
    /// Commands served so far.
    pub commands: u64,
}

impl MemoryChannel {
    pub fn new(cfg: &DmaConfig) -> Self {
        MemoryChannel {
            latency: cfg.command_latency,
            bytes_per_cycle: cfg.memory_bytes_per_cycle.min(cfg.port_bytes_per_cycle),
            busy_until: 0.0,
            bytes: 0,
            commands: 0,
        }
    }

    /// A command of `bytes` issued at cycle `at`; returns the cycle its last byte lands.
    pub fn transfer(&mut self, at: u64, bytes: usize) -> u64 {
        let start = ((at + self.latency) as f64).max(self.busy_until);
        self.busy_until = start + bytes as f64 / self.bytes_per_cycle;
        self.bytes += bytes as u64;
        self.commands += 1;
        self.busy_until.ceil() as u64
    }
}
