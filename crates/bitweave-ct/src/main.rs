//! `bitweave-ct`: the constant-time check harness.
fn main() {}
