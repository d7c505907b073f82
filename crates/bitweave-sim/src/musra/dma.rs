//! The DMA controllers of Fig. 2 / Fig. 10: the CDMAC (instruction memory → context memory)
//! and the DDMAC (external data memory ↔ the MUSRA's internal data memory). Both move words
//! over the system's AMBA AHB. The paper gives no DMA timing; every cost below is an
//! assumption and a named field.

/// Timing of one DMA controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaConfig {
    /// Bytes per data beat: 4 (the 32-bit AHB of a GRLIB LEON3 system, ref. \[16\]).
    pub bytes_per_beat: u64,
    /// Beats per burst: 16 (an INCR16 burst; assumption).
    pub burst_beats: u64,
    /// Cycles per burst for arbitration and the first address phase: 2 (assumption).
    pub burst_overhead: u64,
    /// Cycles from the start command to the first request: 2 (assumption).
    pub setup: u64,
}

impl Default for DmaConfig {
    fn default() -> Self {
        DmaConfig {
            bytes_per_beat: 4,
            burst_beats: 16,
            burst_overhead: 2,
            setup: 2,
        }
    }
}

impl DmaConfig {
    /// Cycles to move `bytes`.
    pub fn transfer_cycles(&self, bytes: u64) -> u64 {
        if bytes == 0 {
            return 0;
        }
        let beats = bytes.div_ceil(self.bytes_per_beat);
        self.setup + beats + beats.div_ceil(self.burst_beats) * self.burst_overhead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_cycles() {
        let d = DmaConfig::default();
        assert_eq!(d.transfer_cycles(0), 0);
        assert_eq!(d.transfer_cycles(16), 2 + 4 + 2);
        assert_eq!(d.transfer_cycles(4096), 2 + 1024 + 64 * 2);
        assert_eq!(
            d.transfer_cycles(512),
            2 + 128 + 8 * 2,
            "one context of 128 words"
        );
    }
}
