//! Criterion benches for library users: bytes per second of the public API on the default
//! backend (in place, one thread, 64 KiB), per cipher and mode, and of π-Cipher.
//!
//!     cargo bench -p bitweave --bench throughput [-- FILTER]
//!
//! The CLI's `bitweave bench` is the project's benchmark (OpenSSL and libgcrypt in the same
//! run, cycles/byte, paper tables); these measure the library calls as a user makes them.

use bitweave::aead::{PiCipher, PiVariant};
use bitweave::{BlockCipher, Cipher, CipherKind, Direction, Mode, ModeParams};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const SIZE: usize = 64 * 1024;

/// (cipher, mode, interleave factor, direction)
const CASES: &[(CipherKind, Mode, usize, Direction)] = &[
    (CipherKind::Aes128, Mode::Ecb, 1, Direction::Encrypt),
    (CipherKind::Aes128, Mode::Ctr, 1, Direction::Encrypt),
    (CipherKind::Aes128, Mode::Cbc, 1, Direction::Encrypt),
    (CipherKind::Aes128, Mode::Cbc, 32, Direction::Encrypt),
    (CipherKind::Aes128, Mode::Cbc, 1, Direction::Decrypt),
    (CipherKind::Aes256, Mode::Ctr, 1, Direction::Encrypt),
    (CipherKind::Des, Mode::Ecb, 1, Direction::Encrypt),
    (CipherKind::DesEde3, Mode::Ctr, 1, Direction::Encrypt),
    (CipherKind::DesEde3, Mode::Cbc, 512, Direction::Encrypt),
    (CipherKind::Seed, Mode::Ctr, 1, Direction::Encrypt),
    (CipherKind::Seed, Mode::Cbc, 128, Direction::Encrypt),
];

fn block_modes(c: &mut Criterion) {
    let mut group = c.benchmark_group("block");
    group.throughput(Throughput::Bytes(SIZE as u64));
    for &(kind, mode, n, dir) in CASES {
        let cipher = Cipher::new(kind, &vec![0x2b; kind.key_len()])
            .unwrap()
            .with_threads(1);
        let params = ModeParams::new(mode).padding(false).interleave(n);
        let iv = vec![0x17; params.iv_len(kind.block_size())];
        let d = match dir {
            Direction::Encrypt => "enc",
            Direction::Decrypt => "dec",
        };
        let name = format!("{kind}-{mode}-x{n}-{d}/{}", cipher.backend());
        let mut buf = vec![0x5au8; SIZE];
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let mut crypter = params.crypter(&cipher, dir, &iv).unwrap();
                crypter.update_in_place(&mut buf).unwrap();
            })
        });
    }
    group.finish();
}

fn pi_cipher(c: &mut Criterion) {
    let mut group = c.benchmark_group("pi-cipher");
    group.throughput(Throughput::Bytes(SIZE as u64));
    for var in [
        PiVariant::Pi16Cipher128V2,
        PiVariant::Pi32Cipher128V2,
        PiVariant::Pi64Cipher256V2,
    ] {
        let pi = PiCipher::new(var, &vec![1; var.key_len()]).unwrap();
        let (npub, nsec) = (vec![2; var.npub_len()], vec![3; var.nsec_len()]);
        let msg = vec![0x5au8; SIZE];
        group.bench_function(BenchmarkId::from_parameter(var.name()), |b| {
            b.iter(|| pi.encrypt(&npub, &nsec, &[], &msg).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, block_modes, pi_cipher);
criterion_main!(benches);
