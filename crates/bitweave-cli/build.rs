//! Links libgcrypt, the second peer the benchmark measures (Debian: libgcrypt20-dev).
fn main() {
    println!("cargo:rustc-link-lib=gcrypt");
}
