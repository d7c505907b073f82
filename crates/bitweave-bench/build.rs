//! Links libgcrypt, the second peer the benchmark measures (Debian: libgcrypt20-dev),
//! when the `gcrypt` feature is on; without it nothing is linked.
//!
//! A cross build (the aarch64 CI stage) links the runtime library by its soname: Debian's
//! libgcrypt20-dev is not multi-arch, so the target's `libgcrypt.so` link is absent while
//! `libgcrypt.so.20` (libgcrypt20:arm64) is there.
fn main() {
    if std::env::var_os("CARGO_FEATURE_GCRYPT").is_none() {
        return;
    }
    let cross = std::env::var("TARGET").ok() != std::env::var("HOST").ok();
    if cross {
        println!("cargo:rustc-link-lib=dylib:+verbatim=libgcrypt.so.20");
    } else {
        println!("cargo:rustc-link-lib=gcrypt");
    }
}
