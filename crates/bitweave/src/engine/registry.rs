//! The one backend registry: (cipher, backend, CPU features, priorities, width).
//!
//! The table is built once; an entry is available when [`crate::cpu`] reports every
//! feature it needs (so the `BITWEAVE_CPU` tier cap lowers every cipher alike), and the
//! default choice per (cipher, shape) is made once and cached. Selection takes the shape of the work ([`Shape`]): the best available
//! backend for batches of independent blocks, and the best for serial work (one chain,
//! CFB8/CFB1, a few blocks), which may differ — a bitsliced backend is fast on batches of
//! 64-512 blocks and slow on one. A backend named by the caller (`--backend`) or by the
//! `BITWEAVE_BACKEND` environment variable (when it implements the cipher) serves both
//! shapes. A named backend that cannot run here is an error, never a silent fallback.

use std::sync::{Arc, OnceLock};

use crate::cipher::{aes, des, seed, CipherKind, ModeKernels};
use crate::cpu::{self, Feature};
use crate::error::{Error, Result};

/// Environment variable that overrides the default backend choice.
pub const BACKEND_ENV: &str = "BITWEAVE_BACKEND";

/// Keys a backend.
/// Keys a backend. An `Arc`, the front type's own handle: building a `Box` and turning
/// it into one copied the whole keyed backend (1.4 KiB for AES-NI's round keys) and freed
/// the first allocation, a sixth of a `Cipher::new`.
type Build = fn(&[u8]) -> Arc<dyn ModeKernels>;
/// One registered backend of one cipher.
#[derive(Clone, Copy)]
pub struct BackendInfo {
    /// The cipher it implements.
    pub cipher: CipherKind,
    /// Registry name (the technique, with lane width where there are several).
    pub name: &'static str,
    /// CPU features it needs.
    pub features: &'static [Feature],
    /// Higher wins when choosing the default for batches of independent blocks.
    pub priority: u32,
    /// Higher wins when choosing the default for serial work (0: never chosen for it).
    pub serial_priority: u32,
    /// As the serial choice beside another batch backend, it also takes calls of at most
    /// this many independent blocks: up to where it beats the batch backend (measured or
    /// argued where it is registered). 0 where it only ever serves both shapes or none.
    pub serial_blocks: usize,
    /// Blocks processed together.
    pub width: usize,
    /// Whether it runs without secret-dependent branches or memory indices.
    pub constant_time: bool,
    build: Build,
}

impl BackendInfo {
    /// Whether this CPU can run the backend (under the tier cap).
    pub fn available(&self) -> bool {
        cpu::has_all(self.features)
    }

    /// The features it needs, as `a+b` (`-` for none).
    pub fn needs(&self) -> String {
        cpu::describe(self.features)
    }

    /// Keys the backend; `key` has the cipher's length (checked by the caller).
    pub fn build(&self, key: &[u8]) -> Arc<dyn ModeKernels> {
        (self.build)(key)
    }
}

fn soft(cipher: CipherKind, build: Build) -> BackendInfo {
    BackendInfo {
        cipher,
        name: "soft",
        features: &[],
        priority: 10,
        serial_priority: 0,
        serial_blocks: 0,
        width: 1,
        constant_time: false,
        build,
    }
}

/// Every backend of every cipher, whether or not this CPU can run it.
pub fn all() -> &'static [BackendInfo] {
    static TABLE: OnceLock<Vec<BackendInfo>> = OnceLock::new();
    TABLE.get_or_init(table)
}

fn table() -> Vec<BackendInfo> {
    let aes_soft: Build = |k| Arc::new(aes::soft::AesSoft::new(k));
    let des_soft: Build = |k| Arc::new(des::soft::DesSoft::new(k));
    let seed_soft: Build = |k| Arc::new(seed::soft::SeedSoft::new(k));
    let mut v = Vec::new();
    for kind in CipherKind::ALL {
        let build = match kind {
            CipherKind::Aes128 | CipherKind::Aes192 | CipherKind::Aes256 => aes_soft,
            CipherKind::Des | CipherKind::DesEde | CipherKind::DesEde3 => des_soft,
            CipherKind::Seed => seed_soft,
        };
        v.push(soft(kind, build));
    }
    #[cfg(target_arch = "x86_64")]
    x86_aes(&mut v);
    #[cfg(target_arch = "aarch64")]
    arm_aes(&mut v);
    sliced(&mut v);
    aes_serial(&mut v);
    des_serial(&mut v);
    seed_simd(&mut v);
    v
}

/// What a piece of work looks like to the backend that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Many independent blocks: ECB, CTR, CBC/CFB decryption, interleaved chains.
    Batch,
    /// One block at a time: a single CBC/CFB/OFB encryption chain, CFB8, CFB1, a message
    /// of a few blocks. Latency, not throughput, is the limit.
    Serial,
}

/// `packed64`: AES on one to four blocks at a time, byte-sliced in `u64` planes
/// (constant-time): the default for serial work where the AES instructions are missing —
/// above every bitsliced batch backend's serial priority (one block costs a whole batch
/// there), below AES-NI, VAES and ARMv8 — and never for batches.
fn aes_serial(v: &mut Vec<BackendInfo>) {
    let build: Build = |k| Arc::new(aes::packed::AesPacked::new(k));
    for kind in [CipherKind::Aes128, CipherKind::Aes192, CipherKind::Aes256] {
        v.push(BackendInfo {
            cipher: kind,
            name: "packed64",
            features: &[],
            priority: 15,
            serial_priority: 35,
            serial_blocks: packed_serial_blocks(),
            width: 4,
            constant_time: true,
            build,
        });
    }
}

/// Independent blocks (or interleaved chains) `packed64` keeps before the bitsliced batch
/// takes them: where the two cross under `BITWEAVE_CPU=portable` (ECB, TSC c/B,
/// `sliced128` second). AMD Zen 4: 44 blocks. Intel Xeon family 6 model 167
/// (2026-12-06): AES-128 576 B 14.28 vs 14.13, 640 B 14.28 vs 12.97; AES-256 576 B 18.72
/// vs 19.94, 640 B 17.77 vs 17.53; so 36.
fn packed_serial_blocks() -> usize {
    if crate::cpu::intel_tuning() {
        36
    } else {
        44
    }
}

/// The single-block DES backends (`shift64`, `shift256`, `rotate256`, constant-time): the default for
/// serial work, never for batches, where the bitsliced backends are 10-50x faster.
fn des_serial(v: &mut Vec<BackendInfo>) {
    use des::shift::{DesShift, Level};
    fn build<const L: u8>(key: &[u8]) -> Arc<dyn ModeKernels> {
        #[cfg(target_arch = "x86_64")]
        let level = [Level::Portable, Level::Avx2, Level::Avx512][L as usize];
        #[cfg(not(target_arch = "x86_64"))]
        let level = Level::Portable;
        Arc::new(DesShift::new(key, level).expect("registry checked availability"))
    }
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut levels: Vec<(Level, u32, Build)> = vec![(Level::Portable, 50, build::<0>)];
    #[cfg(target_arch = "x86_64")]
    levels.push((Level::Avx2, 60, build::<1>));
    #[cfg(target_arch = "x86_64")]
    levels.push((Level::Avx512, 70, build::<2>));
    for kind in [CipherKind::Des, CipherKind::DesEde, CipherKind::DesEde3] {
        for &(level, serial_priority, build) in &levels {
            v.push(BackendInfo {
                cipher: kind,
                name: level.name(),
                features: level.features(),
                priority: 15,
                serial_priority,
                serial_blocks: level.serial_blocks(kind),
                width: 1,
                constant_time: true,
                build,
            });
        }
    }
}

/// The bitsliced backends (`sliced64/128/256/512`, constant-time): for the DES family above
/// `soft` so they are the default; for AES above `soft` but below AES-NI/VAES/ARMv8, so
/// they are the constant-time default where the AES instructions are missing.
/// `sliced128` is SSE2 on x86-64 and NEON on ARM64; the other x86 widths are on x86 only in
/// effect (their features never appear elsewhere).
fn sliced(v: &mut Vec<BackendInfo>) {
    use crate::slice::Width;
    const WIDTHS: [Width; 4] = [Width::W64, Width::W128, Width::W256, Width::W512];
    fn des_build<const W: u8>(key: &[u8]) -> Arc<dyn ModeKernels> {
        let w = WIDTHS[W as usize];
        Arc::new(des::sliced::DesSliced::new(key, w).expect("registry checked availability"))
    }
    fn aes_build<const W: u8>(key: &[u8]) -> Arc<dyn ModeKernels> {
        let w = WIDTHS[W as usize];
        Arc::new(aes::sliced::AesSliced::new(key, w).expect("registry checked availability"))
    }
    let widths: [(Width, u32, Build); 4] = [
        (Width::W64, 30, des_build::<0>),
        (Width::W128, 33, des_build::<1>),
        (Width::W256, 35, des_build::<2>),
        (Width::W512, 40, des_build::<3>),
    ];
    let aes_widths: [(Width, u32, Build); 4] = [
        (Width::W64, 20, aes_build::<0>),
        (Width::W128, 23, aes_build::<1>),
        (Width::W256, 25, aes_build::<2>),
        (Width::W512, 30, aes_build::<3>),
    ];
    let kinds = [
        (CipherKind::Des, &widths),
        (CipherKind::DesEde, &widths),
        (CipherKind::DesEde3, &widths),
        (CipherKind::Aes128, &aes_widths),
        (CipherKind::Aes192, &aes_widths),
        (CipherKind::Aes256, &aes_widths),
    ];
    for (kind, ws) in kinds {
        for &(w, priority, build) in ws {
            // For DES the single-block `shift` backends serve serial work; for AES the
            // bitsliced backends are the constant-time choice without AES instructions.
            // Serial AES goes to `packed64` (below) wherever these are the AES
            // backends; among the widths, one serial block costs a whole batch, and a
            // batch of 128 costs more than one of 64: SSE2's 128 lanes measured 1.72x
            // `sliced64`'s speed per byte (a batch 11,200 against 9,600 TSC cycles;
            // AES-128-CTR 16 KiB, AMD Zen 4 under `BITWEAVE_CPU=portable`, 2026-12-05),
            // NEON's are predicted at 1.4-2.1x (README, ARM64); so `sliced64` ranks
            // above `sliced128` for serial work.
            let serial_priority = match kind {
                CipherKind::Des | CipherKind::DesEde | CipherKind::DesEde3 => 1,
                _ if w == Width::W128 => priority - 4,
                _ => priority,
            };
            v.push(BackendInfo {
                cipher: kind,
                name: w.backend_name(),
                features: w.features(),
                priority,
                serial_priority,
                // As the serial choice (named with `--backend`, or `sliced64` beside
                // `sliced128` were `packed64` missing): a call that fits one 64-lane pass
                // costs less there than a 128-lane one (above).
                serial_blocks: w.lanes(),
                width: w.lanes(),
                constant_time: true,
                build,
            });
        }
    }
}

/// The AES-NI / VAES backends for the three AES key sizes.
#[cfg(target_arch = "x86_64")]
fn x86_aes(v: &mut Vec<BackendInfo>) {
    use aes::x86::{AesX86, Level};
    fn build<const L: u8>(key: &[u8]) -> Arc<dyn ModeKernels> {
        let level = [Level::AesNi, Level::Vaes256, Level::Vaes512][L as usize];
        AesX86::new_shared(key, level).expect("registry checked availability")
    }
    let levels: [(Level, u32, Build); 3] = [
        (Level::AesNi, 50, build::<0>),
        (Level::Vaes256, 60, build::<1>),
        (Level::Vaes512, 70, build::<2>),
    ];
    for kind in [CipherKind::Aes128, CipherKind::Aes192, CipherKind::Aes256] {
        for (level, priority, build) in levels {
            v.push(BackendInfo {
                cipher: kind,
                name: level.name(),
                features: level.features(),
                priority,
                serial_priority: priority,
                serial_blocks: 0,
                width: level.width(),
                constant_time: true,
                build,
            });
        }
    }
}

/// The ARMv8 crypto extension backend for the three AES key sizes: the default for both
/// shapes where the AES instructions exist (the bitsliced backends are the constant-time
/// choice without them).
#[cfg(target_arch = "aarch64")]
fn arm_aes(v: &mut Vec<BackendInfo>) {
    use aes::arm::{AesArm, FEATURES, WIDTH};
    for kind in [CipherKind::Aes128, CipherKind::Aes192, CipherKind::Aes256] {
        v.push(BackendInfo {
            cipher: kind,
            name: "armv8",
            features: FEATURES,
            priority: 50,
            serial_priority: 50,
            serial_blocks: 0,
            width: WIDTH,
            constant_time: true,
            build: |k| Arc::new(AesArm::new(k).expect("registry checked availability")),
        });
    }
}

/// SEED calls of more than one block go from the single-block kernels to the batch
/// backend: its kernels fill their registers' lanes with whatever blocks there are.
/// Measured on AMD Zen 4 (SEED ECB decryption, 2026-11-27), serial `gfni128` (four blocks
/// in step) against the batch kernels: 1 block 35 c/B vs `gfni256` 40 and `gfni512` 49;
/// 4 blocks 18.2 vs 10.4 and 12.3; 16 blocks 15.8 vs 3.0 and 2.7. At the AVX2 tier,
/// `aesni` against `vaes256`: 1 block 55 vs 68, 4 blocks 38 vs 16.7, 16 blocks 39 vs 5.2.
/// At the `aesni` tier, `aesni` against `aesni128` (Intel Xeon family 6 model 207, SEED
/// ECB encryption, 2026-11-30): 1 block 58 vs 66, 2 blocks 38 vs 34, 4 blocks 38 vs 15.5.
#[cfg(target_arch = "x86_64")]
const SEED_SERIAL_BLOCKS: usize = 1;

/// The constant-time SEED backends: GFNI on AVX-512 / AVX2, the AES instructions on AVX2
/// where GFNI is missing (`vaes256`), and the portable `ct64`.
fn seed_simd(v: &mut Vec<BackendInfo>) {
    v.push(BackendInfo {
        cipher: CipherKind::Seed,
        name: "ct64",
        features: &[],
        priority: 20,
        serial_priority: 20,
        serial_blocks: 0,
        width: seed::ct::WIDTH,
        constant_time: true,
        build: |k| Arc::new(seed::ct::SeedCt64::new(k)),
    });
    // ARM64: the `AESE` kernel serves both shapes (four blocks in the lanes for batches).
    // For batches it is chosen over `ct64` without a measurement on ARM hardware (none
    // here): llvm-mca predicts it (scripts/predict-arm.sh), where `ct64`'s table-free
    // inversion measured ~190 c/B even on x86's wide cores (Zen 3).
    #[cfg(target_arch = "aarch64")]
    {
        use seed::single::SeedOneBlock;
        v.push(BackendInfo {
            cipher: CipherKind::Seed,
            name: seed::arm::KERNEL.name,
            features: seed::arm::KERNEL.features,
            priority: 30,
            serial_priority: 30,
            serial_blocks: 0,
            width: seed::arm::KERNEL.width,
            constant_time: true,
            build: |k| {
                Arc::new(SeedOneBlock::new(k, &seed::arm::KERNEL).expect("registry checked"))
            },
        });
    }
    #[cfg(target_arch = "x86_64")]
    {
        use seed::x86::{Level, SeedX86};
        fn build<const L: u8>(key: &[u8]) -> Arc<dyn ModeKernels> {
            let level = [
                Level::Gfni256,
                Level::Gfni512,
                Level::Vaes256,
                Level::Aesni128,
                Level::Aesni256,
            ][L as usize];
            Arc::new(SeedX86::new(key, level).expect("registry checked availability"))
        }
        let levels: [(Level, u32, Build); 5] = [
            (Level::Aesni128, 27, build::<3>),
            (Level::Aesni256, 28, build::<4>),
            (Level::Vaes256, 30, build::<2>),
            (Level::Gfni256, 35, build::<0>),
            (Level::Gfni512, 40, build::<1>),
        ];
        // The single-block kernels: the serial default. Serial order measured (CBC
        // encryption, 16 KiB): on Zen 4 `gfni128` 33 c/B, `gfni256`'s batch kernel on one
        // block 39, `gfni512`'s 46, `aesni` 55; on Zen 3 (no GFNI) `aesni` 56 against
        // `vaes256`'s 64. For batches they run blocks in step, but neither is a batch
        // default: where neither VAES nor GFNI exists (the `aesni` tier) `aesni128` runs
        // four blocks per register (Intel Xeon family 6 model 207 under
        // BITWEAVE_CPU=aesni, SEED ECB 16 KiB: `aesni128` 7.1 c/B, `aesni` two in step
        // 35.4, `ct64` ~137 on Zen 4), `aesni256` eight where AVX2 exists without VAES
        // (same Xeon, `--backend`: 4.4 c/B against `aesni128`'s 6.6), and `gfni512`
        // exists wherever `gfni128` does. Where GFNI comes without AVX-512
        // (`avx2-gfni`), `gfni128-avx2` takes serial work: Xeon family 6 model 167, CBC
        // encryption 16 KiB, 30.7-32.5 TSC c/B against `gfni256`'s one-block 41.5 and
        // `aesni`'s 48.6 (`gfni128` 27.9 where AVX-512VL exists).
        use seed::single::{Kernel, SeedOneBlock};
        fn one_block(
            kernel: &'static Kernel,
            priority: u32,
            serial_priority: u32,
            build: Build,
        ) -> BackendInfo {
            BackendInfo {
                cipher: CipherKind::Seed,
                name: kernel.name,
                features: kernel.features,
                priority,
                serial_priority,
                serial_blocks: SEED_SERIAL_BLOCKS,
                width: kernel.width,
                constant_time: true,
                build,
            }
        }
        v.push(one_block(&seed::aesni::KERNEL, 25, 32, |k| {
            Arc::new(SeedOneBlock::new(k, &seed::aesni::KERNEL).expect("registry checked"))
        }));
        v.push(one_block(&seed::gfni::KERNEL, 15, 45, |k| {
            Arc::new(SeedOneBlock::new(k, &seed::gfni::KERNEL).expect("registry checked"))
        }));
        v.push(one_block(&seed::gfni_avx2::KERNEL, 14, 44, |k| {
            Arc::new(SeedOneBlock::new(k, &seed::gfni_avx2::KERNEL).expect("registry checked"))
        }));
        for (level, priority, build) in levels {
            v.push(BackendInfo {
                cipher: CipherKind::Seed,
                name: level.name(),
                features: level.features(),
                priority,
                serial_priority: priority,
                serial_blocks: 0,
                width: level.width(),
                constant_time: true,
                build,
            });
        }
    }
}

/// Every backend name known to the registry, in listing order, without repeats.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for b in all() {
        if !names.contains(&b.name) {
            names.push(b.name);
        }
    }
    names
}

/// The backends of `cipher` this CPU can run, best for batches first.
pub fn usable(cipher: CipherKind) -> Vec<BackendInfo> {
    usable_for(cipher, Shape::Batch)
}

/// The backends of `cipher` this CPU can run, best for `shape` first.
pub fn usable_for(cipher: CipherKind, shape: Shape) -> Vec<BackendInfo> {
    let mut v: Vec<BackendInfo> = all()
        .iter()
        .copied()
        .filter(|b| b.cipher == cipher && b.available())
        .collect();
    match shape {
        Shape::Batch => v.sort_by_key(|b| std::cmp::Reverse(b.priority)),
        Shape::Serial => v.sort_by_key(|b| std::cmp::Reverse(b.serial_priority)),
    }
    v
}

/// Picks the batch backend for `cipher`; see [`select_for`].
pub fn select(cipher: CipherKind, name: Option<&str>) -> Result<BackendInfo> {
    select_for(cipher, name, Shape::Batch)
}

/// Picks the backend for `cipher` and work of `shape`: the named one (an error if it is
/// unknown, lacks the cipher or cannot run here), else the `BITWEAVE_BACKEND` one when it
/// implements the cipher and can run, else the best available for the shape.
pub fn select_for(cipher: CipherKind, name: Option<&str>, shape: Shape) -> Result<BackendInfo> {
    cpu::check().map_err(|e| Error::CpuCap(e.to_string()))?;
    match name {
        Some(name) => named(cipher, name),
        None => default_for(cipher, shape),
    }
}

/// The default for (cipher, shape), chosen once: `BITWEAVE_BACKEND` is read when the
/// process first selects, like the tier cap.
fn default_for(cipher: CipherKind, shape: Shape) -> Result<BackendInfo> {
    /// Per cipher (in `CipherKind::ALL`'s order, its declaration order), the batch and
    /// the serial choice: indexed, since every `Cipher::new` asks twice.
    type Defaults = [[Option<BackendInfo>; 2]; CipherKind::ALL.len()];
    static DEFAULTS: OnceLock<Defaults> = OnceLock::new();
    let defaults = DEFAULTS.get_or_init(|| {
        let env = std::env::var(BACKEND_ENV).ok();
        CipherKind::ALL.map(|kind| {
            [Shape::Batch, Shape::Serial].map(|shape| {
                env.as_deref()
                    .and_then(|e| named(kind, e).ok())
                    .or_else(|| usable_for(kind, shape).into_iter().next())
            })
        })
    });
    const _: () = {
        let mut i = 0;
        while i < CipherKind::ALL.len() {
            assert!(CipherKind::ALL[i] as usize == i, "ALL in declaration order");
            i += 1;
        }
    };
    defaults[cipher as usize][shape as usize]
        .ok_or_else(|| Error::UnknownBackend("(none available)".into()))
}

fn named(cipher: CipherKind, name: &str) -> Result<BackendInfo> {
    if !names().contains(&name) {
        return Err(Error::UnknownBackend(name.to_string()));
    }
    let b = *all()
        .iter()
        .find(|b| b.cipher == cipher && b.name == name)
        .ok_or_else(|| Error::BackendNotForCipher {
            backend: name.to_string(),
            cipher: cipher.name(),
        })?;
    if b.available() {
        Ok(b)
    } else {
        Err(Error::BackendUnavailable {
            backend: name.to_string(),
            needs: cpu::missing(b.features),
        })
    }
}
