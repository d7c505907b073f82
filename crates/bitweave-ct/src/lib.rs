//! Constant-time checks for bitweave's constant-time backends.
