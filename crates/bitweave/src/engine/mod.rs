//! The engine: which backend runs a cipher (the registry), the [`Cipher`] front type that
//! holds the chosen backends and hands each call to the one that fits its shape, how work
//! spreads across cores (parallel), and heterogeneous backends side by side (split).

mod front;
pub mod parallel;
pub mod registry;
pub mod split;

pub use front::Cipher;
