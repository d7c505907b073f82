//! The engine: which backend runs a cipher (the registry) and, in later stages, batching
//! across cores.

pub mod registry;
