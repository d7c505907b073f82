//! MUSRA, the coarse-grained reconfigurable array with a LEON3 host (paper
//! `musra-cgra-aes.txt`, Nguyen and Tran), as an executable cycle-level model running AES.
//!
//! One module per hardware unit:
//! - [`cell`]: the reconfigurable cell (RC) — 8/16-bit ops with two or three operands, the
//!   LOR, two configuration layers (section 2.1, Fig. 3);
//! - [`fifo`]: the 512-bit × 8-row input (broadcasting) and output FIFOs (section 2.1);
//! - [`array`](mod@array): the 8 × 8 RCA with the crossbars between neighbouring rows, the GRF and the
//!   pipelined execution model with overlapped LOAD/EXECUTION/STORE (sections 2.1, 2.3);
//! - [`context`]: 128-word contexts, the context memory and the parser that decodes a
//!   context into a layer behind execution (section 2.2);
//! - [`dfg`]: data-flow graphs, their mapping onto the array, and the AES kernels
//!   `AddRoundKey()` and `Mix_Add()` (Fig. 9, Table 1, eq. 2), plus `InvPre` for decryption;
//! - [`dma`]: the CDMAC and DDMAC timing;
//! - [`leon3`]: the LEON3 host as an instruction-counting executor with its cost table;
//! - [`software`]: the AES software (KeyExpansion, Sub_Shft, drivers, interrupt routine);
//! - [`system`]: the system of Fig. 10 and the schedule of Fig. 11 after the loop
//!   transformation of Fig. 7(b);
//! - [`scenario`]: the 300 KB runs and the report beside Table 2 and section 5.2.
//!
//! Every cycle cost is a field of [`leon3::Leon3Costs`], [`dma::DmaConfig`],
//! [`context::ParserConfig`] or [`system::SystemConfig`], documented with its source (the
//! paper where it states one, otherwise a stated assumption); the array's timing is not a
//! parameter but follows from the pipeline (one row per stage). Table 2 is only compared
//! with, never used.

pub mod array;
pub mod cell;
pub mod context;
pub mod dfg;
pub mod dma;
pub mod fifo;
pub mod leon3;
pub mod scenario;
pub mod software;
pub mod system;

pub use scenario::report;
