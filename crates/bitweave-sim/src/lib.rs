//! Executable models of the papers' hardware. Each model takes its parameters from what
//! its paper states (every cost a named, documented field of a config whose defaults cite
//! the paper), computes real data that is checked against the bitweave library, counts
//! cycles, and reports its figures beside the paper's ([`report::Report`]). The paper's
//! tables are only ever compared with, never used as inputs.

pub mod cell;
pub mod dbus;
pub mod musra;
pub mod mx1;
pub mod ppe;
pub mod report;

pub use report::{Report, Row};

/// A model that can be run by name (`bitweave sim NAME`).
pub struct ModelEntry {
    /// The name on the command line.
    pub name: &'static str,
    /// One line: which paper and machine.
    pub about: &'static str,
    /// Runs the model with its paper defaults.
    pub run: fn() -> Report,
}

/// Every model, in listing order.
pub fn models() -> Vec<ModelEntry> {
    vec![
        ModelEntry {
            name: "cell",
            about: "Cell BE (PPE + six SPEs) running SEED, ALL SIMD vs Hybrid workload split (Kim, Yi & Ro)",
            run: cell::report,
        },
        ModelEntry {
            name: "dbus",
            about: "DBUS pre-scheduled AES state bus vs AXI, AES-encrypted DMA (Yang & Wen)",
            run: dbus::report,
        },
        ModelEntry {
            name: "musra",
            about: "MUSRA 8x8 CGRA with a LEON3 host running AES (Nguyen & Tran)",
            run: musra::report,
        },
        ModelEntry {
            name: "mx1",
            about: "MX-1 massive-parallel SIMD matrix, interleaved-bitslice AES/DES/3DES in five modes (Kumaki et al.)",
            run: mx1::report,
        },
        ModelEntry {
            name: "ppe",
            about: "programmable VLIW ARX processing element vs custom ARX engines, pi-Cipher (El-Hadedy & Skadron)",
            run: ppe::report,
        },
    ]
}

/// Errors of the model runner.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("unknown model '{0}' (models: {1})")]
    UnknownModel(String, String),
}

/// Runs the named model.
pub fn run(name: &str) -> Result<Report, SimError> {
    let all = models();
    match all.iter().find(|m| m.name == name) {
        Some(m) => Ok((m.run)()),
        None => Err(SimError::UnknownModel(
            name.to_string(),
            all.iter().map(|m| m.name).collect::<Vec<_>>().join(", "),
        )),
    }
}
