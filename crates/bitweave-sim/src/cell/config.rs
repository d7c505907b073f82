//! Every cost of the Cell BE model in one place. Defaults cite the SEED-on-Cell paper
//! (`seed-on-cell-be.txt`, sections 2.1 and 3) where it states a number; where it does not,
//! the public Cell BE documentation named on the field, and a field no source pins down is
//! marked **assumption** (the report notes list them). The paper's results (2.59 Gbps,
//! ratio 0.38, ...) are never used here.

/// SPU instruction latencies by class, in SPU cycles (the SPU issues in order, one even-pipe
/// and one odd-pipe instruction per cycle from an aligned fetch pair).
#[derive(Debug, Clone, PartialEq)]
pub struct SpuTiming {
    /// Simple fixed point (`a`, `ai`, `and`, `xor`, `il`), even pipe. Paper §2.1: "two
    /// cycles for simple fixed point operation".
    pub fixed: u32,
    /// Loads and stores (`lqd`, `lqx`, `stqd`), odd pipe. Paper §2.1: "six cycles for ...
    /// load instructions".
    pub load_store: u32,
    /// Word shifts and rotates (`shli`, `rotmi`), even pipe. The paper is silent: 4 cycles,
    /// class WS of the SPU latency table (IBM Cell BE SDK 3.0 programmer's guide,
    /// "Pipelines and dual-issue rules").
    pub word_shift: u32,
    /// Shuffles and quadword rotates (`shufb`, `rotqby`, `rotqbyi`), odd pipe: 4 cycles,
    /// class SH of the same SDK table (paper silent).
    pub shuffle: u32,
    /// Branch resolution (`brnz`), odd pipe: 4 cycles, class BR of the SDK table; a
    /// correctly hinted branch costs no further cycle (note 1 of that table).
    pub branch: u32,
}

impl Default for SpuTiming {
    fn default() -> Self {
        SpuTiming {
            fixed: 2,
            load_store: 6,
            word_shift: 4,
            shuffle: 4,
            branch: 4,
        }
    }
}

/// PPU timing (the PPE's core), in core cycles. The paper (§2.1) states the PPE is
/// "dual-threaded, dual-issue (in-order issue)" and that VMX works on 128-bit registers; the
/// latencies below come from GCC's Cell PPU scheduling description
/// (`gcc/config/rs6000/cell.md`, written from IBM's PPU Book IV).
#[derive(Debug, Clone, PartialEq)]
pub struct PpuTiming {
    /// Instructions dispatched per cycle from one thread, in program order (paper §2.1:
    /// dual-issue).
    pub issue_width: usize,
    /// Fixed-point result to a dependent arithmetic instruction (`cell-integer`: 2).
    pub integer: u32,
    /// Fixed-point result used as a load/store address (cell.md bypass: 5).
    pub integer_to_address: u32,
    /// L1-hit load to a dependent arithmetic instruction (`cell-load`: 2).
    pub load: u32,
    /// Load result used as the address of another load (cell.md bypass: 5).
    pub load_to_address: u32,
    /// VMX simple integer/logical (`vxor`, `vadduwm`; `cell-vecsimple`: 4).
    pub vector_simple: u32,
    /// VMX permute (`vperm`; `cell-vecperm`: 4).
    pub vector_permute: u32,
    /// VMX load to use (`cell-vecload`: 2).
    pub vector_load: u32,
    /// Load-hit-store: a load of bytes an in-flight store is still writing waits this many
    /// cycles after the store issued. **Assumption**: the paper is silent and cell.md does
    /// not model it; 40 cycles is the figure published for the same PPU core in the Xbox
    /// 360 (Heineman, "Common Performance Issues in Game Programming", Gamasutra 2008: "as
    /// many as 40 cycles"). VMX has no direct path to the fixed-point registers, so every
    /// S-box lookup of the VMX path moves lanes through memory and pays this.
    pub load_hit_store: u32,
}

impl Default for PpuTiming {
    fn default() -> Self {
        PpuTiming {
            issue_width: 2,
            integer: 2,
            integer_to_address: 5,
            load: 2,
            load_to_address: 5,
            vector_simple: 4,
            vector_permute: 4,
            vector_load: 2,
            load_hit_store: 40,
        }
    }
}

/// The MFC DMA engines and the path to main memory (EIB and XDR).
#[derive(Debug, Clone, PartialEq)]
pub struct DmaConfig {
    /// Largest transfer of one DMA command. Paper §2.1: "maximum transfer size of 16 KB per
    /// transfer with DMA command".
    pub max_transfer: usize,
    /// Main-memory bandwidth shared by every transfer, bytes per core cycle. Paper §2.1:
    /// 2 × 12.8 GB/s = 25.6 GB/s of XDR at 3.2 GHz = 8 bytes/cycle.
    pub memory_bytes_per_cycle: f64,
    /// One SPE's EIB port, bytes per core cycle: 16 bytes per bus cycle at half the core
    /// clock = 25.6 GB/s (IBM, "Cell Broadband Engine Architecture and its first
    /// implementation", developerWorks 2005; the paper gives only the EIB total).
    pub port_bytes_per_cycle: f64,
    /// Cycles from issuing a DMA command to its first data (command bus, coherence, XDR
    /// access). **Assumption**: not in the paper; the order of the published Cell DMA
    /// latencies (a few hundred cycles). It moves the results by well under 1 %.
    pub command_latency: u64,
    /// Fetch the next chunk while computing this one. The paper's SPE "waits for data
    /// transfer" and then runs the 16 rounds (§3, Fig. 4(a)): off.
    pub double_buffer: bool,
}

impl Default for DmaConfig {
    fn default() -> Self {
        DmaConfig {
            max_transfer: 16 * 1024,
            memory_bytes_per_cycle: 25.6e9 / 3.2e9,
            port_bytes_per_cycle: 25.6e9 / 3.2e9,
            command_latency: 500,
            double_buffer: false,
        }
    }
}

/// The whole machine and workload.
#[derive(Debug, Clone, PartialEq)]
pub struct CellConfig {
    /// Core clock. Paper §2.1: 3.2 GHz.
    pub clock_hz: f64,
    /// SPEs available to programs. Paper §2.1/§3: six on the PlayStation 3.
    pub spes: usize,
    /// PPE hardware threads running SEED. Paper §3: "the PPE runs two threads".
    pub ppe_threads: usize,
    /// Local store per SPE. Paper §2.1: 256 KB.
    pub local_store_bytes: usize,
    /// SPU register file: 128 × 128 bits (paper §2.1).
    pub spu_registers: usize,
    /// VMX register file: 32 × 128 bits (paper §2.1).
    pub vmx_registers: usize,
    /// PowerPC general-purpose registers: 32 (architecture; four are reserved by the ABI).
    pub gprs: usize,
    pub spu: SpuTiming,
    pub ppu: PpuTiming,
    pub dma: DmaConfig,
    /// Bytes encrypted per run. The paper does not say how much it encrypted; 1.5 MiB is
    /// 96 full 16 KB DMA chunks, enough that start-up is a fraction of a percent.
    pub workload_bytes: usize,
}

impl Default for CellConfig {
    fn default() -> Self {
        CellConfig {
            clock_hz: 3.2e9,
            spes: 6,
            ppe_threads: 2,
            local_store_bytes: 256 * 1024,
            spu_registers: 128,
            vmx_registers: 32,
            gprs: 32,
            spu: SpuTiming::default(),
            ppu: PpuTiming::default(),
            dma: DmaConfig::default(),
            workload_bytes: 1536 * 1024,
        }
    }
}
