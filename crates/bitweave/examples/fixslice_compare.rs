//! Bitsliced AES-128 vs RustCrypto's `aes` crate, measured alternately in one process.
//!
//! Run through `scripts/bench-fixslice.sh`, which builds this with
//! `--cfg aes_backend="soft"` so that the `aes` crate uses its constant-time fixsliced
//! software backend (the comparison point) instead of AES-NI. Prints cycles/byte
//! (TSC) for ECB and CTR on 16 KiB buffers and the ratio fixslice / bitweave.

use std::time::{Duration, Instant};

use aes::cipher::{BlockCipherEncrypt, KeyInit, KeyIvInit, StreamCipher};
use bitweave::{BlockCipher, Cipher, CipherKind, Suite};

const SIZE: usize = 16 << 10;

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

/// Best (over `rounds`) average cycles per byte of `f` on SIZE bytes.
fn cpb(f: &mut dyn FnMut(), budget: Duration) -> f64 {
    f();
    let (start, c0) = (Instant::now(), tsc());
    let mut calls = 0u64;
    while calls < 2 || start.elapsed() < budget {
        f();
        calls += 1;
    }
    (tsc() - c0) as f64 / calls as f64 / SIZE as f64
}

fn main() {
    let soft = cfg!(aes_backend = "soft");
    println!(
        "RustCrypto aes {} backend vs bitweave bitsliced AES-128, {SIZE} B buffers, TSC cycles/byte, best of 5 alternating",
        if soft { "fixslice (soft)" } else { "AUTODETECTED (not forced soft!)" }
    );
    let key = [0x2bu8; 16];
    let iv = [0x01u8; 16];
    let input: Vec<u8> = (0..SIZE).map(|i| i as u8).collect();
    let budget = Duration::from_millis(40);
    println!(
        "{:<10} {:<5} {:>10} {:>10} {:>8}",
        "backend", "mode", "bitweave", "fixslice", "ratio"
    );
    let backends = ["sliced64", "sliced256", "sliced512"];
    for backend in backends {
        let ours = match Cipher::with_backend(CipherKind::Aes128, &key, Some(backend)) {
            Ok(c) => c.with_threads(1),
            Err(e) => {
                println!("{backend:<10} skipped: {e}");
                continue;
            }
        };
        let rc = aes::Aes128::new(&key.into());
        for mode in ["ecb", "ctr"] {
            let mut a = input.clone();
            let mut b = input.clone();
            let suite: Suite = format!("aes-128-{mode}").parse().unwrap();
            // One thread, in place: as the `aes` crate runs.
            let params = suite.params().padding(false);
            let mut ours_call = || {
                a.copy_from_slice(&input);
                if mode == "ecb" {
                    ours.encrypt_blocks(&mut a);
                } else {
                    let mut c = params
                        .crypter(&ours, bitweave::Direction::Encrypt, &iv)
                        .unwrap();
                    c.update_in_place(&mut a).unwrap();
                }
            };
            let mut rc_call = || {
                b.copy_from_slice(&input);
                if mode == "ecb" {
                    let (blocks, _) = aes::Block::slice_as_chunks_mut(&mut b);
                    rc.encrypt_blocks(blocks);
                } else {
                    let mut c = ctr::Ctr128BE::<aes::Aes128>::new(&key.into(), &iv.into());
                    c.apply_keystream(&mut b);
                }
            };
            let (mut best_ours, mut best_rc) = (f64::MAX, f64::MAX);
            for _ in 0..5 {
                best_ours = best_ours.min(cpb(&mut ours_call, budget));
                best_rc = best_rc.min(cpb(&mut rc_call, budget));
            }
            assert_eq!(a, b, "{backend} {mode}: bitweave and RustCrypto disagree");
            println!(
                "{backend:<10} {mode:<5} {best_ours:>10.2} {best_rc:>10.2} {:>7.2}x",
                best_rc / best_ours
            );
        }
    }
}
