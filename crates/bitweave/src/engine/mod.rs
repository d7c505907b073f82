//! The engine: which backend runs a cipher (the registry), how work spreads across
//! cores (parallel), and heterogeneous backends side by side (split).

pub mod parallel;
pub mod registry;
pub mod split;
