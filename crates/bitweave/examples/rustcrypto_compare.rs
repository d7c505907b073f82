//! bitweave's AES against RustCrypto's `aes` crate (with `ctr` and `cbc`), measured
//! alternately in one process, as `bitweave bench` measures OpenSSL and libgcrypt: each
//! side keyed once, its context reused across calls (CBC chains on from the last call's
//! block, CTR's counter runs on), one thread, in place.
//!
//! The `aes` crate picks its backend at run time (AES-NI, VAES-256 or VAES-512 by
//! `cpufeatures`), which `BITWEAVE_CPU` does not cap: the comparison is only fair on the
//! default tier, and this refuses to run under a cap. Prints TSC cycles/byte, best of
//! five alternating rounds, and RustCrypto's time over bitweave's (above 1: bitweave
//! leads). Run: `cargo run --release -p bitweave --example rustcrypto_compare`.

use std::time::{Duration, Instant};

use aes::cipher::{
    BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit,
    StreamCipher,
};
use bitweave::{Cipher, CipherKind, Direction, Suite};

fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: rdtsc exists on every x86-64 CPU and has no memory effects.
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Instant::now().elapsed().as_nanos() as u64
    }
}

/// TSC cycles per call of `f`, called in doubling batches until one batch takes `budget`
/// (the clock read once per batch, so small calls are not measured with the clock's cost).
fn cycles_per_call(f: &mut dyn FnMut(), budget: Duration) -> f64 {
    f();
    let mut calls = 1u64;
    loop {
        let (start, c0) = (Instant::now(), tsc());
        for _ in 0..calls {
            f();
        }
        let c = tsc() - c0;
        if start.elapsed() >= budget {
            return c as f64 / calls as f64;
        }
        calls *= 2;
    }
}

/// One side's call on the buffer: the mode's work on all of it, state kept.
type Call = Box<dyn FnMut(&mut [u8])>;

/// RustCrypto's side for AES with key type `$aes` (a macro: the mode crates' bounds on a
/// generic block cipher are long to spell out).
macro_rules! rustcrypto {
    ($aes:ty, $mode:expr, $dir:expr, $key:expr, $iv:expr) => {{
        let (key, iv): (&[u8], &[u8; 16]) = ($key, $iv);
        let aes = <$aes>::new_from_slice(key).expect("key length");
        let call: Call = match ($mode, $dir) {
            ("ecb", Direction::Encrypt) => Box::new(move |b| aes.encrypt_blocks(blocks(b))),
            ("ecb", _) => Box::new(move |b| aes.decrypt_blocks(blocks(b))),
            ("ctr", _) => {
                let mut c = ctr::Ctr128BE::<$aes>::new_from_slices(key, iv).expect("key, iv");
                Box::new(move |b| c.apply_keystream(b))
            }
            ("cbc", Direction::Encrypt) => {
                let mut c = cbc::Encryptor::<$aes>::new_from_slices(key, iv).expect("key, iv");
                Box::new(move |b| c.encrypt_blocks(blocks(b)))
            }
            _ => {
                let mut c = cbc::Decryptor::<$aes>::new_from_slices(key, iv).expect("key, iv");
                Box::new(move |b| c.decrypt_blocks(blocks(b)))
            }
        };
        call
    }};
}

/// `len` bytes of `store` starting on a 64-byte line, as the bench's buffers do (a call
/// of a few blocks is not split across two lines on one side only).
fn line_aligned(store: &mut [u8], len: usize) -> &mut [u8] {
    let skip = store.as_ptr().align_offset(64);
    &mut store[skip..skip + len]
}

/// A buffer of whole blocks as the `aes` crate's blocks.
fn blocks(b: &mut [u8]) -> &mut [aes::Block] {
    aes::Block::slice_as_chunks_mut(b).0
}

fn main() {
    if std::env::var_os("BITWEAVE_CPU").is_some() {
        eprintln!(
            "rustcrypto_compare: BITWEAVE_CPU is set, but the `aes` crate cannot be capped; \
             run it on the default tier"
        );
        std::process::exit(2);
    }
    let sizes = [16usize, 64, 256, 1024, 16384];
    let budget = Duration::from_millis(20);
    println!(
        "bitweave (default backend) vs RustCrypto aes 0.9 (run-time detected backend) + \
         ctr 0.10 + cbc 0.2, one thread, in place, TSC cycles/byte, best of 5 alternating"
    );
    println!(
        "{:<12} {:<4} {:>6} {:>10} {:>11} {:>7}",
        "suite", "dir", "bytes", "bitweave", "RustCrypto", "ratio"
    );
    for (kind, bits) in [(CipherKind::Aes128, 128), (CipherKind::Aes256, 256)] {
        let key: Vec<u8> = (0..kind.key_len())
            .map(|i| (i as u8).wrapping_mul(37) ^ 0x5a)
            .collect();
        let iv: [u8; 16] = core::array::from_fn(|i| i as u8);
        let cipher = Cipher::new(kind, &key).expect("key").with_threads(1);
        for mode in ["ecb", "cbc", "ctr"] {
            let dirs: &[Direction] = if mode == "ctr" {
                &[Direction::Encrypt]
            } else {
                &[Direction::Encrypt, Direction::Decrypt]
            };
            for &dir in dirs {
                let suite: Suite = format!("aes-{bits}-{mode}").parse().expect("suite");
                let params = suite.params().padding(false);
                for size in sizes {
                    let (mut a_store, mut b_store) = (vec![0u8; size + 64], vec![0u8; size + 64]);
                    let (a, b) = (
                        line_aligned(&mut a_store, size),
                        line_aligned(&mut b_store, size),
                    );
                    for (i, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
                        (*x, *y) = ((i as u8).wrapping_mul(13), (i as u8).wrapping_mul(13));
                    }
                    let iv_len = params.iv_len(16);
                    let mut crypter = params.crypter(&cipher, dir, &iv[..iv_len]).expect("iv");
                    let mut theirs = if bits == 128 {
                        rustcrypto!(aes::Aes128, mode, dir, &key, &iv)
                    } else {
                        rustcrypto!(aes::Aes256, mode, dir, &key, &iv)
                    };
                    // Both sides' first call on the same input agree.
                    crypter.update_in_place(a).expect("whole blocks");
                    theirs(b);
                    assert_eq!(a, b, "aes-{bits}-{mode} {}: {size} B differ", dir.name());
                    let (mut ours_best, mut theirs_best) = (f64::MAX, f64::MAX);
                    for _ in 0..5 {
                        ours_best = ours_best.min(cycles_per_call(
                            &mut || {
                                crypter.update_in_place(a).expect("whole blocks");
                            },
                            budget,
                        ));
                        theirs_best = theirs_best.min(cycles_per_call(&mut || theirs(b), budget));
                    }
                    let (o, t) = (ours_best / size as f64, theirs_best / size as f64);
                    println!(
                        "aes-{bits}-{mode:<4} {:<4} {size:>6} {o:>10.3} {t:>11.3} {:>6.2}x",
                        dir.name(),
                        t / o
                    );
                }
            }
        }
    }
}
