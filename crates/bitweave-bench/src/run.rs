//! A bench run from its arguments: which rows, the table or JSON they print as, the plot.

use std::time::Duration;

use anyhow::{bail, Result};
use bitweave::aead::gcm::GhashBackend;
use bitweave::aead::{PiBackend, PiVariant};
use bitweave::hazmat::registry;
use bitweave::{CipherKind, Direction, Mode, Suite};

use crate::aead::measure_aead;
use crate::args::BenchArgs;
use crate::block::{measure, Case, Row, Setup};
use crate::gcm::{measure_gcm, NAMES as GCM_NAMES};
#[cfg(feature = "plot")]
use crate::plot;
use crate::split_sweep::{split_sweep, SplitRow};
use crate::tables::paper_tables;
use crate::{clock, peers};

/// What `--cipher` names: block-cipher suites, π-Cipher variants and AES-GCM key
/// lengths (all of them when none is named).
struct Selection {
    suites: Vec<Suite>,
    variants: Vec<PiVariant>,
    gcm_keys: Vec<usize>,
}

fn selected(names: &[String]) -> Result<Selection> {
    if names.is_empty() {
        return Ok(Selection {
            suites: Suite::all(),
            variants: PiVariant::ALL.to_vec(),
            gcm_keys: GCM_NAMES.iter().map(|&(_, k)| k).collect(),
        });
    }
    let (mut suites, mut variants, mut gcm_keys) = (Vec::new(), Vec::new(), Vec::new());
    for n in names {
        if let Some(&(_, key_len)) = GCM_NAMES.iter().find(|(g, _)| g == n) {
            gcm_keys.push(key_len);
        } else if let Ok(kind) = n.parse::<CipherKind>() {
            suites.extend(Mode::ALL.iter().map(|&mode| Suite { cipher: kind, mode }));
        } else if let Ok(v) = n.parse::<PiVariant>() {
            variants.push(v);
        } else {
            suites.push(n.parse::<Suite>()?);
        }
    }
    Ok(Selection {
        suites,
        variants,
        gcm_keys,
    })
}

/// Measures what `args` asks for and prints it (a table, or JSON), drawing the plot if
/// asked.
pub fn run(args: BenchArgs) -> Result<()> {
    if args.sizes.contains(&0) {
        bail!("--size must be at least 1 byte");
    }
    let several = args.sizes.len() > 1;
    if several && (args.split_sweep || args.tables) {
        bail!("--split-sweep and --tables take one --size");
    }
    if let Some(path) = &args.plot {
        #[cfg(feature = "plot")]
        plot::check_path(path)?;
        #[cfg(not(feature = "plot"))]
        bail!(
            "--plot {}: this build has no charts (bitweave-bench's `plot` feature is off)",
            path.display()
        );
    }
    if args.split_sweep {
        let points = split_sweep(&args)?;
        return finish(&args, &[], &points);
    }
    if args.tables {
        let rows = paper_tables(&args)?;
        return finish(&args, &rows, &[]);
    }
    let directions: Vec<Direction> = match args.direction.as_deref() {
        None => vec![Direction::Encrypt, Direction::Decrypt],
        Some("enc") => vec![Direction::Encrypt],
        Some("dec") => vec![Direction::Decrypt],
        Some(d) => bail!("unknown direction '{d}' (enc or dec)"),
    };
    let Selection {
        suites,
        variants,
        gcm_keys,
    } = selected(&args.ciphers)?;
    let tsc_hz = clock::tsc_hz();
    let budget = Duration::from_millis(args.time_ms.max(1));
    let sweep = is_thread_sweep(&args);
    let setup = Setup {
        budget,
        tsc_hz,
        peers: true,
        memory: sweep,
        key_setup: args.key_setup,
    };
    if !args.json {
        println!(
            "bitweave bench: {} B buffers, cycles = TSC at {:.2} GHz, fastest batch of calls, best of 3 alternating runs; peers on 1 thread: {}",
            args.sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join("/"),
            tsc_hz / 1e9,
            peers::versions()
        );
        println!("{}", cpu_line());
        println!(
            "N = interleaved chains (1: the standard mode); vs ossl, vs gcry = the peer's c/B \
             / bitweave's (above 1: bitweave is faster); peers run the standard mode, one \
             thread, in place on a buffer as large as bitweave's; - = the peer lacks the mode"
        );
        // A thread sweep also measures the memory system's own limit (`memory_pass`).
        let memory = if sweep { "  memory MB/s  of it" } else { "" };
        println!(
            "{:<16} {:<3} {:<9}{} {:>3} {:>3} {:>9} {:>8} {:>8} {:>7} {:>8} {:>7}{memory}",
            "suite",
            "dir",
            "backend",
            bytes_column(several, "bytes"),
            "thr",
            "N",
            "MB/s",
            "c/B",
            "ossl c/B",
            "vs ossl",
            "gcry c/B",
            "vs gcry"
        );
    }
    let mut rows = Vec::new();
    for suite in suites {
        let backends: Vec<_> = match args.backend.as_deref() {
            Some("all") => registry::usable(suite.cipher),
            name => vec![registry::select(suite.cipher, name)?],
        };
        for info in backends {
            for &threads in &args.threads {
                for &dir in &directions {
                    for &size in &args.sizes {
                        let case = Case {
                            suite,
                            dir,
                            backend: &info,
                            named: args.backend.is_some(),
                            size,
                            interleave: args.interleave,
                            threads,
                        };
                        let row = measure(&case, &setup)?;
                        if !args.json {
                            print_row(&row, several);
                        }
                        rows.push(row);
                    }
                }
            }
        }
    }
    if !variants.is_empty() && !args.json {
        println!(
            "\nπ-Cipher: goptv* = the designers' fastest code (SUPERCOP goptv), QUOTED, not \
             measured here; msgs = messages per call"
        );
        println!(
            "{:<16} {:<3} {:<9}{} {:>5} {:>9} {:>8} {:>9} {:>7}",
            "π-Cipher v2",
            "dir",
            "backend",
            bytes_column(several, "bytes"),
            "msgs",
            "MB/s",
            "c/B",
            "goptv* c/B",
            "vs goptv*"
        );
    }
    for v in variants {
        let backends: Vec<PiBackend> = match args.backend.as_deref() {
            Some("all") => PiBackend::ALL
                .into_iter()
                .filter(|b| b.available())
                .collect(),
            Some(name) if PiBackend::ALL.iter().any(|b| b.name() == name) => {
                vec![PiBackend::select(Some(name))?]
            }
            _ => vec![PiBackend::best()],
        };
        for backend in backends {
            let mut counts = vec![1, backend.lanes(v.word_bits())];
            counts.dedup();
            for messages in counts {
                for &dir in &directions {
                    for &size in &args.sizes {
                        let row = measure_aead(v, backend, dir, messages, size, budget, tsc_hz)?;
                        if !args.json {
                            print_aead_row(&row, several);
                        }
                        rows.push(row);
                    }
                }
            }
        }
    }
    if !gcm_keys.is_empty() && !args.json {
        println!(
            "\nAES-GCM (one message per call, 12-byte nonce, no AAD, tag out / checked; \
             every side out of place from one input, bitweave copying it in first): backend = \
             GHASH's, AES on the default backend"
        );
    }
    for key_len in gcm_keys {
        let backends: Vec<GhashBackend> = match args.backend.as_deref() {
            Some("all") => GhashBackend::ALL
                .into_iter()
                .filter(|b| b.available())
                .collect(),
            Some("soft") | Some("ghash-soft") => vec![GhashBackend::Soft],
            Some("clmul128") => vec![GhashBackend::Clmul128],
            Some("clmul256") => vec![GhashBackend::Clmul256],
            Some("clmul512") => vec![GhashBackend::Clmul512],
            Some("pmull") => vec![GhashBackend::Pmull],
            _ => vec![GhashBackend::best()],
        };
        for ghash in backends {
            for &dir in &directions {
                for &size in &args.sizes {
                    let row = measure_gcm(key_len, ghash, dir, size, budget, tsc_hz)?;
                    if !args.json {
                        print_row(&row, several);
                    }
                    rows.push(row);
                }
            }
        }
    }
    finish(&args, &rows, &[])
}

/// Whether the run compares thread counts (and so also times the memory pass).
fn is_thread_sweep(args: &BenchArgs) -> bool {
    args.threads.iter().any(|&t| t != 1)
}

/// The end of every bench run: the JSON (measurement rows, or the sweep's points) if
/// asked, and the plot file if asked.
fn finish(args: &BenchArgs, rows: &[Row], split: &[SplitRow]) -> Result<()> {
    if args.json {
        let json = if split.is_empty() {
            serde_json::to_string_pretty(rows)?
        } else {
            serde_json::to_string_pretty(split)?
        };
        println!("{json}");
    }
    #[cfg(feature = "plot")]
    if let Some(path) = &args.plot {
        plot::write(path, rows, split)?;
        if !args.json {
            println!("plot written to {}", path.display());
        }
    }
    Ok(())
}

/// MB/s with enough digits that a slow row does not print as 0.0.
fn rate(mbps: f64) -> String {
    if mbps >= 1.0 {
        format!("{mbps:.1}")
    } else {
        format!("{mbps:.3}")
    }
}

/// The bytes-per-call column, present when several sizes are measured.
fn bytes_column(several: bool, value: impl std::fmt::Display) -> String {
    if several {
        format!(" {value:>8}")
    } else {
        String::new()
    }
}

fn print_aead_row(r: &Row, several: bool) {
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.2}"));
    println!(
        "{:<16} {:<3} {:<9}{} {:>5} {:>9} {:>8.2} {:>10} {:>9}",
        r.cipher,
        r.direction,
        r.backend,
        bytes_column(several, r.bytes),
        r.interleave,
        rate(r.gbps * 1e3),
        r.cycles_per_byte,
        opt(r.anchor_cycles_per_byte),
        opt(r.ratio_vs_anchor),
    );
}

fn print_row(r: &Row, several: bool) {
    let opt = |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |x| format!("{x:.prec$}"));
    let memory = r.memory_gbps.map_or(String::new(), |m| {
        format!(" {:>9.1} {:>6.0}%", m * 1e3, 100.0 * r.gbps / m)
    });
    println!(
        "{:<16} {:<3} {:<9}{} {:>3} {:>3} {:>9} {:>8.2} {:>8} {:>7} {:>8} {:>7}{memory}",
        r.cipher,
        r.direction,
        r.backend,
        bytes_column(several, r.bytes),
        r.threads,
        r.interleave,
        rate(r.gbps * 1e3),
        r.cycles_per_byte,
        opt(r.openssl_cycles_per_byte, 2),
        opt(r.ratio_vs_openssl, 2),
        opt(r.gcrypt_cycles_per_byte, 2),
        opt(r.ratio_vs_gcrypt, 2)
    );
}

/// The CPU the figures come from: its model name and the tier backends see (with the
/// `BITWEAVE_CPU` cap when one is in force).
fn cpu_line() -> String {
    use bitweave::cpu;
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cap = match cpu::cap() {
        Ok(Some(t)) => format!(", capped by {}={t}; {}", cpu::CPU_ENV, peers::cap_note()),
        _ => String::new(),
    };
    let openssl = peers::openssl_cap()
        .map(|note| format!("\n{note}"))
        .unwrap_or_default();
    format!(
        "CPU: {model}; tier {}{cap}; {} kernel tuning (features in use: {}){openssl}",
        cpu::tier(),
        cpu::tuning(),
        cpu::reported_names()
    )
}
