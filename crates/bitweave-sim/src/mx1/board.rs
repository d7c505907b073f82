//! The evaluation board around the SIMD matrix (section 4.1, Fig. 8(b)): the host CPU
//! (M32R), the DMA controller moving plaintext from SDRAM into the matrix and ciphertext
//! back over the system bus, and the clocks.
//!
//! Cycles are counted in MX-core cycles; host and bus cycles are converted with the clock
//! ratio. The DMA of batch k+1 (in) and k-1 (out) runs while the matrix computes batch k
//! (double buffering in the two SRAM parts): section 4.1 states that "MX-1 can execute all
//! transformations ... within two SRAMs and PEs. Thus, 2048 parallelism results can become
//! one-half of the 1024 parallelism results", which holds only if the transfers are hidden.

/// Clock frequencies in MHz.
#[derive(Debug, Clone, PartialEq)]
pub struct Clocks {
    /// The MX core's clock. Tables III and VII measure the board at 81 MHz.
    pub core_mhz: f64,
    /// The core's maximum: "162" MHz (section 4.1).
    pub core_max_mhz: f64,
    /// Host CPU (M32R): "81" MHz (section 4.1).
    pub host_mhz: f64,
    /// SDRAM: "81" MHz (section 4.1).
    pub sdram_mhz: f64,
    /// The other operating points of Fig. 12: the HEW simulator's 200 MHz (Table III, \[5\])
    /// and the projected 1 GHz.
    pub other_mhz: [f64; 2],
}

impl Default for Clocks {
    fn default() -> Self {
        Clocks {
            core_mhz: 81.0,
            core_max_mhz: 162.0,
            host_mhz: 81.0,
            sdram_mhz: 81.0,
            other_mhz: [200.0, 1000.0],
        }
    }
}

/// The DMA controller and system bus. The paper gives no bus width or DMA set-up cost:
/// both are assumptions, named here (they stay hidden behind computation at the defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct DmaConfig {
    /// Bytes per host-bus cycle. ASSUMPTION: the M32R's 32-bit system bus.
    pub bus_bytes_per_cycle: usize,
    /// Host cycles to program one transfer. ASSUMPTION: four register writes (source,
    /// destination, length, start) by the host CPU.
    pub setup_host_cycles: u64,
    /// Whether transfers overlap computation (double buffering; see the module docs).
    pub overlapped: bool,
}

impl Default for DmaConfig {
    fn default() -> Self {
        DmaConfig {
            bus_bytes_per_cycle: 4,
            setup_host_cycles: 4,
            overlapped: true,
        }
    }
}

/// Host CPU, DMA and clocks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Board {
    pub clocks: Clocks,
    pub dma: DmaConfig,
}

impl Board {
    /// MX-core cycles per host cycle.
    pub fn core_per_host(&self) -> f64 {
        self.clocks.core_mhz / self.clocks.host_mhz
    }

    /// MX-core cycles of one DMA transfer of `bytes` between SDRAM and the matrix.
    pub fn dma_cycles(&self, bytes: usize) -> u64 {
        let host = self.dma.setup_host_cycles + bytes.div_ceil(self.dma.bus_bytes_per_cycle) as u64;
        (host as f64 * self.core_per_host()).ceil() as u64
    }

    /// Cycles of one batch in steady state: computation, and the transfers (plaintext of
    /// the next batch in, ciphertext of the previous one out) either hidden behind it or
    /// added.
    pub fn batch_cycles(&self, compute: u64, batch_bytes: usize) -> u64 {
        let dma = 2 * self.dma_cycles(batch_bytes);
        if self.dma.overlapped {
            compute.max(dma)
        } else {
            compute + dma
        }
    }

    /// Throughput in Mbit/s at `mhz` for `cycles_per_byte`.
    pub fn mbps(mhz: f64, cycles_per_byte: f64) -> f64 {
        8.0 * mhz / cycles_per_byte
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dma_hidden_or_added() {
        let mut b = Board::default();
        assert_eq!(b.dma_cycles(8192), 4 + 2048);
        assert_eq!(b.batch_cycles(10_000, 8192), 10_000);
        b.dma.overlapped = false;
        assert_eq!(b.batch_cycles(10_000, 8192), 10_000 + 2 * 2052);
        b.clocks.core_mhz = 162.0;
        assert_eq!(b.dma_cycles(8192), 2 * 2052);
    }
}
