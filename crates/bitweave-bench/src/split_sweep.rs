//! `--split-sweep`: the SEED-on-Cell paper's Fig. 5(b), two backends side by side on two
//! threads over one input, throughput against the workload ratio.

use std::time::Duration;

use anyhow::{bail, Result};
use bitweave::hazmat::registry;
use bitweave::hazmat::split::{self, Schedule};
use bitweave::{BlockCipher, Cipher, CipherKind, Suite};
use serde::Serialize;

use crate::args::BenchArgs;
use crate::clock;

/// One point of the split sweep.
#[derive(Serialize)]
pub struct SplitRow {
    pub cipher: String,
    pub workers: [&'static str; 2],
    pub schedule: &'static str,
    /// Share of the blocks on the first worker (null for dynamic sharing).
    pub ratio: Option<f64>,
    pub threads: usize,
    pub bytes: usize,
    pub gbps: f64,
    pub cycles_per_byte: f64,
}

pub fn split_sweep(args: &BenchArgs) -> Result<Vec<SplitRow>> {
    let kind = match args.ciphers.first() {
        Some(name) => match name.parse::<CipherKind>() {
            Ok(kind) => kind,
            Err(_) => name.parse::<Suite>()?.cipher,
        },
        None => CipherKind::Seed,
    };
    let key: Vec<u8> = (0..kind.key_len()).map(|i| i as u8 ^ 0x3c).collect();
    let best = registry::select(kind, args.backend.as_deref())?.name;
    let pairs: Vec<[String; 2]> = match args.split.as_slice() {
        [] => {
            let mut p = vec![[best.to_string(), "soft".to_string()]];
            if best != "soft" {
                p.push([best.to_string(), best.to_string()]);
            }
            p
        }
        [a, b] => vec![[a.clone(), b.clone()]],
        other => bail!("--split takes two backends, got {}", other.len()),
    };
    let size = args.size().max(8 << 20).div_ceil(kind.block_size()) * kind.block_size();
    let tsc_hz = clock::tsc_hz();
    let budget = Duration::from_millis(args.time_ms.max(1) * 4);
    let mut rows = Vec::new();
    if !args.json {
        println!(
            "bitweave split sweep: {kind}-ecb, {} MiB, two threads, cycles = TSC at {:.2} GHz",
            size >> 20,
            tsc_hz / 1e9
        );
        println!(
            "{:<20} {:<8} {:>6} {:>9} {:>8}",
            "workers", "schedule", "ratio", "MB/s", "c/B"
        );
    }
    for [a, b] in &pairs {
        let ca = Cipher::with_backend(kind, &key, Some(a))?;
        let cb = Cipher::with_backend(kind, &key, Some(b))?;
        let workers: [&dyn BlockCipher; 2] = [&ca, &cb];
        let auto = split::auto_ratio(workers, 1 << 20);
        let mut schedules: Vec<(&'static str, Schedule)> = (0..=10)
            .map(|i| {
                (
                    "static",
                    Schedule::Static {
                        ratio: i as f64 / 10.0,
                    },
                )
            })
            .collect();
        schedules.push(("auto", Schedule::Static { ratio: auto }));
        schedules.push(("dynamic", Schedule::Dynamic { chunk: 64 << 10 }));
        let mut data: Vec<u8> = (0..size).map(|i| i as u8).collect();
        for (name, schedule) in schedules {
            let mut call = || split::run(workers, schedule, &mut data, false);
            let best = (0..3)
                .map(|_| clock::cycles_per_call(&mut call, budget))
                .fold(f64::MAX, f64::min);
            let cpb = best / size as f64;
            let row = SplitRow {
                cipher: format!("{kind}-ecb"),
                workers: [ca.backend(), cb.backend()],
                schedule: name,
                ratio: match schedule {
                    Schedule::Static { ratio } => Some(ratio),
                    Schedule::Dynamic { .. } => None,
                },
                threads: 2,
                bytes: size,
                gbps: tsc_hz / cpb / 1e9,
                cycles_per_byte: cpb,
            };
            if !args.json {
                let ratio = row.ratio.map_or("-".to_string(), |r| format!("{r:.2}"));
                println!(
                    "{:<20} {:<8} {:>6} {:>9.1} {:>8.3}",
                    format!("{}+{}", row.workers[0], row.workers[1]),
                    row.schedule,
                    ratio,
                    row.gbps * 1e3,
                    row.cycles_per_byte
                );
            }
            rows.push(row);
        }
    }
    Ok(rows)
}
