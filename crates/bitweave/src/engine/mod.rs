//! The engine: which backend runs a cipher (the registry) and how work spreads across
//! cores (parallel).

pub mod parallel;
pub mod registry;
