//! The Cell Broadband Engine running SEED (paper `seed-on-cell-be.txt`, Kim, Yi and Ro) as
//! an executable cycle-level model: a PPE with two hardware threads (scalar PowerPC or VMX
//! SIMD) and six SPEs (SPU, 256 KB local store, MFC DMA of at most 16 KB per command, no
//! cache) sharing one workload split by the paper's workload ratio, every block really
//! encrypted by the programs the units run and checked against the bitweave library.
//!
//! One module per hardware unit or concept:
//! - [`config`]: every cost, with its source (the paper, public Cell BE documentation, or a
//!   named assumption);
//! - [`seed`]: SS tables, round keys, the library check;
//! - [`sched`]: the compiler back end (list scheduling, register allocation);
//! - [`spu`], [`local_store`], [`spu_seed`]: the SPU core, its local store, its SEED program
//!   (four blocks as four words in four registers, §3 / Fig. 4(b));
//! - [`ppu`], [`ppu_seed`]: the PPE core (two threads sharing dual in-order issue) and its
//!   scalar ("Hybrid") and VMX ("ALL SIMD") SEED programs;
//! - [`dma`]: the MFC commands and the EIB/XDR channel they share;
//! - [`spe`]: an SPE (SPU + local store + MFC) working through its share chunk by chunk;
//! - [`system`]: the split by ratio, the PPE threads and SPEs together, the ratio sweep;
//! - [`scenario`]: the report beside the paper's figures.

pub mod config;
pub mod dma;
pub mod local_store;
pub mod ppu;
pub mod ppu_seed;
pub mod scenario;
pub mod sched;
pub mod seed;
pub mod spe;
pub mod spu;
pub mod spu_seed;
pub mod system;

pub use scenario::report;

/// What can stop the model: a program or buffer that does not fit the machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CellError {
    #[error("local store overflow: region '{region}' needs {needed} bytes of {size}")]
    LocalStore {
        region: &'static str,
        needed: usize,
        size: usize,
    },
    #[error("{unit} program needs more than the {available} allocatable registers")]
    Registers {
        unit: &'static str,
        available: usize,
    },
    #[error("DMA command of {bytes} bytes: must be 1, 2, 4, 8 or a multiple of 16 up to {max}")]
    DmaSize { bytes: usize, max: usize },
}
