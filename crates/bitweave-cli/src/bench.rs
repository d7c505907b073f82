//! `bitweave bench`: throughput and cycles/byte per cipher × mode × direction × backend,
//! with OpenSSL's libcrypto measured in the same run on the same buffer size, and the ratio.
//!
//! Cycles are TSC reference cycles (`rdtsc`), the same clock for bitweave and OpenSSL; the
//! TSC frequency is calibrated against the wall clock and printed. Each figure is the best
//! of several alternating measurements, which keeps a shared, noisy machine from favouring
//! either side.

use std::time::Duration;

use anyhow::{bail, Result};
use bitweave::aead::{Ciphertext, Message, PiBackend, PiCipher, PiVariant};
use bitweave::cipher::prefetch_ahead;
use bitweave::engine::split::{self, Schedule};
use bitweave::engine::{parallel, registry};
use bitweave::{BlockCipher, Cipher, CipherKind, Direction, Mode, Suite};
use clap::Args;
use serde::Serialize;

use crate::{gcrypt_peer, openssl_peer, plot};

#[derive(Args, Clone)]
pub struct BenchArgs {
    /// Cipher (aes-128, all modes) or suite (aes-128-cbc); repeatable. Default: all.
    #[arg(long = "cipher", short = 'c')]
    ciphers: Vec<String>,
    /// Backend to measure: a name, or `all` for every backend this CPU can run
    /// (default: the one each cipher uses by default).
    #[arg(long)]
    backend: Option<String>,
    /// Buffer sizes in bytes per call, e.g. `16,64,256,1024,8192,16384` (openssl speed's
    /// sizes; its headline figure uses 16 KiB): one row per size, the context reused
    /// across calls as `openssl speed` reuses it.
    #[arg(
        long = "size",
        alias = "sizes",
        value_delimiter = ',',
        default_value = "16384"
    )]
    sizes: Vec<usize>,
    /// The size of the row being measured (one of `sizes`).
    #[arg(skip)]
    size: usize,
    /// Interleave factor for cbc/cfb/ofb rows (other modes run standard).
    #[arg(long, default_value_t = 1)]
    interleave: usize,
    /// Thread counts to measure, e.g. `1,2` (0 = all cores). OpenSSL runs on one thread.
    /// Rows with several threads use buffers of at least 1 MiB per thread, so the input
    /// is large enough to split.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    threads: Vec<usize>,
    /// Only this direction (enc or dec); default both.
    #[arg(long)]
    direction: Option<String>,
    /// Milliseconds per measurement (each side is measured three times, alternating).
    #[arg(long, default_value_t = 25)]
    time_ms: u64,
    /// Print JSON (an array of rows) instead of a table.
    #[arg(long)]
    json: bool,
    /// Heterogeneous split sweep (the SEED-on-Cell paper's Fig. 5(b)): two backends side by
    /// side on two threads over one ECB input, throughput against the workload ratio, plus
    /// dynamic sharing and the automatic ratio. Uses the first --cipher (default seed).
    #[arg(long)]
    split_sweep: bool,
    /// Print like the MX-1 paper's Tables I (AES) and VI (DES, 3DES): cycles/byte per mode
    /// (ECB, CBC, CFB, OFB, CTR), (a) encryption and (b) decryption, one line per backend
    /// (lane width), chained modes interleaved as wide as the backend's batch (or
    /// --interleave), OpenSSL's standard modes in the same run. Default ciphers: aes-128,
    /// des, des-ede3; default backends: all this CPU runs.
    #[arg(long)]
    tables: bool,
    /// Also draw the measured figures as charts into this file (.svg or .png): cycles/byte
    /// per mode per cipher and backend (MX-1 Fig. 9), throughput against threads, and the
    /// split sweep when run (SEED-on-Cell Fig. 5(b)).
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
    /// The two backends of the sweep, e.g. `vaes512,soft` (default: the best with `soft`,
    /// and the best with itself).
    #[arg(long, value_delimiter = ',')]
    split: Vec<String>,
}

/// One benchmark row (the JSON contract of DESIGN.md, plus a few extras).
#[derive(Serialize)]
pub(crate) struct Row {
    pub cipher: String,
    pub direction: &'static str,
    pub backend: &'static str,
    pub threads: usize,
    pub interleave: usize,
    bytes: usize,
    pub gbps: f64,
    pub cycles_per_byte: f64,
    openssl_gbps: Option<f64>,
    pub openssl_cycles_per_byte: Option<f64>,
    ratio_vs_openssl: Option<f64>,
    /// libgcrypt, the second peer (null where it lacks the operation).
    gcrypt_gbps: Option<f64>,
    gcrypt_cycles_per_byte: Option<f64>,
    ratio_vs_gcrypt: Option<f64>,
    /// A reference figure that is not measured in this run (π-Cipher's goptv), named.
    #[serde(skip_serializing_if = "Option::is_none")]
    anchor: Option<&'static str>,
    /// `true` where `anchor_cycles_per_byte` is quoted from elsewhere, not measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    quoted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    anchor_cycles_per_byte: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ratio_vs_anchor: Option<f64>,
    /// In a thread sweep: the in-place memory pass on the same buffer and threads,
    /// measured alternately with this row ([`memory_pass`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_gbps: Option<f64>,
    constant_time: bool,
}

/// The block-cipher suites and π-Cipher variants named by `--cipher` (all of both when
/// none is named).
fn selected(names: &[String]) -> Result<(Vec<Suite>, Vec<PiVariant>)> {
    if names.is_empty() {
        return Ok((Suite::all(), PiVariant::ALL.to_vec()));
    }
    let (mut suites, mut variants) = (Vec::new(), Vec::new());
    for n in names {
        if let Ok(kind) = n.parse::<CipherKind>() {
            suites.extend(Mode::ALL.iter().map(|&mode| Suite { cipher: kind, mode }));
        } else if let Ok(v) = n.parse::<PiVariant>() {
            variants.push(v);
        } else {
            suites.push(n.parse::<Suite>()?);
        }
    }
    Ok((suites, variants))
}

pub fn run(args: BenchArgs) -> Result<()> {
    if args.sizes.contains(&0) {
        bail!("--size must be at least 1 byte");
    }
    let several = args.sizes.len() > 1;
    if several && (args.split_sweep || args.tables) {
        bail!("--split-sweep and --tables take one --size");
    }
    let args = BenchArgs {
        size: args.sizes[0],
        ..args
    };
    // The same arguments at each size.
    let at_sizes: Vec<BenchArgs> = args
        .sizes
        .iter()
        .map(|&size| BenchArgs {
            size,
            ..args.clone()
        })
        .collect();
    if let Some(path) = &args.plot {
        plot::check_path(path)?;
    }
    if args.split_sweep {
        return split_sweep(&args);
    }
    if args.tables {
        return paper_tables(&args);
    }
    let directions: Vec<Direction> = match args.direction.as_deref() {
        None => vec![Direction::Encrypt, Direction::Decrypt],
        Some("enc") => vec![Direction::Encrypt],
        Some("dec") => vec![Direction::Decrypt],
        Some(d) => bail!("unknown direction '{d}' (enc or dec)"),
    };
    let (suites, variants) = selected(&args.ciphers)?;
    let tsc_hz = clock::tsc_hz();
    let budget = Duration::from_millis(args.time_ms.max(1));
    let sweep = is_thread_sweep(&args);
    if !args.json {
        println!(
            "bitweave bench: {} B buffers, cycles = TSC at {:.2} GHz, best of 3 alternating runs; peers on 1 thread: {}, libgcrypt {}",
            args.sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join("/"),
            tsc_hz / 1e9,
            openssl::version::version(),
            gcrypt_peer::version()
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
                    for a in &at_sizes {
                        let row = measure(
                            &suite,
                            dir,
                            &info,
                            a,
                            args.interleave,
                            threads,
                            budget,
                            tsc_hz,
                        )?;
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
                    for a in &at_sizes {
                        let row = measure_aead(v, backend, dir, messages, a, budget, tsc_hz)?;
                        if !args.json {
                            print_aead_row(&row, several);
                        }
                        rows.push(row);
                    }
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

/// A buffer that starts on a cache line, as `openssl speed` aligns its buffers. Threads
/// that split data in place then never write into the same line; with the 16-byte
/// alignment `malloc` gives large buffers, every row of interleaved chains split across
/// two threads would have one line that both threads write.
struct LineAligned {
    backing: Vec<u8>,
    start: usize,
    len: usize,
}

impl LineAligned {
    const LINE: usize = 64;

    /// `len` zero bytes.
    fn zeroed(len: usize) -> Self {
        let backing = vec![0u8; len + Self::LINE];
        let start = backing.as_ptr().align_offset(Self::LINE);
        Self {
            backing,
            start,
            len,
        }
    }

    fn bytes(&mut self) -> &mut [u8] {
        &mut self.backing[self.start..self.start + self.len]
    }
}

/// An in-place pass that reads and writes every byte once and does nothing else, split
/// over threads as the cipher rows are: what the memory system allows. It prefetches
/// ahead as the streaming cipher kernels do (without that, one core's pass is held to a
/// fraction of the bandwidth by the lines it has in flight). On buffers larger than the
/// caches an in-place cipher cannot be faster, so its scaling with threads is bounded by
/// this pass's scaling, measured alternately with the cipher (the machine's memory
/// bandwidth is shared and changes from second to second).
fn memory_pass(data: &mut [u8], threads: usize) {
    let parts = parallel::chunks_for(data.len(), threads);
    parallel::for_each_chunk(data, 64, parts, |_, chunk| {
        let len = chunk.len();
        for (n, line) in chunk.chunks_mut(64).enumerate() {
            prefetch_ahead::<1>(line.as_ptr(), len - 64 * n);
            for w in line.chunks_exact_mut(8) {
                let v = u64::from_ne_bytes(w.try_into().expect("8 bytes"));
                w.copy_from_slice(&(v ^ 0x9e37_79b9_7f4a_7c15).to_ne_bytes());
            }
        }
    })
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
    if let Some(path) = &args.plot {
        plot::write(path, rows, split)?;
        if !args.json {
            println!("plot written to {}", path.display());
        }
    }
    Ok(())
}

/// The designers' fastest conforming π-Cipher code (SUPERCOP `goptv`, -O3 -march=native),
/// cycles/byte by word size: the figures issue 6 quotes for this machine. The anchor is
/// quoted, not measured in this process (its code is not part of bitweave).
const GOPTV_QUOTED: [(usize, f64); 3] = [(16, 17.0), (32, 5.1), (64, 2.8)];

/// One π-Cipher row: `messages` messages of `--size` bytes each (no AD) in one call —
/// one message through `encrypt`, several through the multi-stream `encrypt_many`.
fn measure_aead(
    v: PiVariant,
    backend: PiBackend,
    dir: Direction,
    messages: usize,
    args: &BenchArgs,
    budget: Duration,
    tsc_hz: f64,
) -> Result<Row> {
    let key: Vec<u8> = (0..v.key_len()).map(|i| i as u8 ^ 0x42).collect();
    let pi = PiCipher::with_backend(v, &key, Some(backend.name()))?;
    let npubs: Vec<Vec<u8>> = (0..messages)
        .map(|m| (0..v.npub_len()).map(|i| (i + m) as u8).collect())
        .collect();
    let nsec = vec![7u8; v.nsec_len()];
    let msgs: Vec<Vec<u8>> = (0..messages)
        .map(|m| (0..args.size).map(|i| (i * 13 + m) as u8).collect())
        .collect();
    let plain: Vec<Message> = (0..messages)
        .map(|m| Message {
            npub: &npubs[m],
            nsec: Some(&nsec),
            ad: &[],
            plaintext: &msgs[m],
        })
        .collect();
    let sealed = pi.encrypt_many(&plain)?;
    let cts: Vec<Ciphertext> = (0..messages)
        .map(|m| Ciphertext {
            npub: &npubs[m],
            ad: &[],
            ciphertext: &sealed[m],
            with_nsec: true,
        })
        .collect();
    let mut call: Box<dyn FnMut()> = match (dir, messages) {
        (Direction::Encrypt, 1) => Box::new(|| {
            std::hint::black_box(pi.encrypt(&npubs[0], &nsec, &[], &msgs[0]).unwrap());
        }),
        (Direction::Encrypt, _) => Box::new(|| {
            std::hint::black_box(pi.encrypt_many(&plain).unwrap());
        }),
        (Direction::Decrypt, 1) => Box::new(|| {
            std::hint::black_box(pi.decrypt(&npubs[0], &[], &sealed[0]).unwrap());
        }),
        (Direction::Decrypt, _) => Box::new(|| {
            for r in pi.decrypt_many(&cts).unwrap() {
                std::hint::black_box(r.unwrap());
            }
        }),
    };
    let best = (0..3)
        .map(|_| clock::cycles_per_call(&mut call, budget))
        .fold(f64::MAX, f64::min);
    let bytes = messages * args.size;
    let cpb = best / bytes as f64;
    let anchor = GOPTV_QUOTED
        .iter()
        .find(|(w, _)| *w == v.word_bits())
        .map(|&(_, c)| c);
    Ok(Row {
        cipher: v.name().to_string(),
        direction: dir.name(),
        backend: backend.name(),
        threads: 1,
        interleave: messages,
        bytes,
        gbps: tsc_hz / cpb / 1e9,
        cycles_per_byte: cpb,
        openssl_gbps: None,
        openssl_cycles_per_byte: None,
        ratio_vs_openssl: None,
        gcrypt_gbps: None,
        gcrypt_cycles_per_byte: None,
        ratio_vs_gcrypt: None,
        anchor: anchor.map(|_| "goptv (quoted)"),
        quoted: anchor.map(|_| true),
        anchor_cycles_per_byte: anchor,
        ratio_vs_anchor: anchor.map(|a| a / cpb),
        memory_gbps: None,
        constant_time: true,
    })
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

#[allow(clippy::too_many_arguments)]
fn measure(
    suite: &Suite,
    dir: Direction,
    info: &registry::BackendInfo,
    args: &BenchArgs,
    interleave: usize,
    threads: usize,
    budget: Duration,
    tsc_hz: f64,
) -> Result<Row> {
    let kind = suite.cipher;
    let bs = kind.block_size();
    let n = if suite.mode.interleavable() {
        interleave
    } else {
        1
    };
    let threads = if threads == 0 {
        parallel::available_threads()
    } else {
        threads
    };
    let size = if threads > 1 {
        args.size.max(threads << 20)
    } else {
        args.size
    };
    // Whole blocks for ECB/CBC; stream modes take the size as given.
    let size = if suite.mode.whole_blocks() {
        size.div_ceil(bs) * bs
    } else {
        size
    };
    let key: Vec<u8> = (0..kind.key_len())
        .map(|i| (i as u8).wrapping_mul(37) ^ 0x5a)
        .collect();
    let params = suite.params().padding(false).interleave(n).threads(threads);
    let iv: Vec<u8> = (0..params.iv_len(bs)).map(|i| i as u8).collect();
    let input: Vec<u8> = (0..size).map(|i| (i as u8).wrapping_mul(13)).collect();

    // Without --backend, the default cipher: it picks the serial backend for serial work.
    let cipher = match args.backend {
        None => Cipher::new(kind, &key)?,
        Some(_) => Cipher::with_backend(kind, &key, Some(info.name))?,
    };
    // The backend that runs the row: interleaved chains go to the batch backend, other
    // independent blocks by the call's size (a few blocks run on the serial one).
    let chains = n > 1 && (dir == Direction::Encrypt || suite.mode == Mode::Ofb);
    let backend = if suite.mode.is_serial(dir, n) {
        cipher.serial_backend()
    } else if chains {
        cipher.backend()
    } else {
        cipher.blocks_backend(size)
    };
    let mut crypter = params.crypter(&cipher, dir, &iv)?;
    // In place where the mode allows it (as `openssl speed` does): one pass over memory.
    // Otherwise through an output buffer whose pages are touched now, so no measurement
    // pays first-touch page faults.
    let mut buf = LineAligned::zeroed(size);
    buf.bytes().copy_from_slice(&input);
    let in_place = crypter.update_in_place(buf.bytes()).is_ok();
    let mut out = vec![1u8; size + bs];
    out.clear();
    let mut ours = move || {
        if in_place {
            crypter
                .update_in_place(buf.bytes())
                .expect("in place worked once");
        } else {
            out.clear();
            crypter.update(&input, &mut out);
        }
    };
    // The peers run one thread in the standard mode (they have no interleaving), keyed
    // alike, in place on a buffer as large as bitweave's (in a thread sweep too), as
    // bitweave runs.
    let peer_iv = &iv[..params.iv_len(bs).min(bs)];
    let peer_size = size.max(bs);
    let mut peer_buf = LineAligned::zeroed(peer_size + 32);
    for (i, b) in peer_buf.bytes().iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(13);
    }
    let mut ossl = openssl_peer::Peer::new(suite, dir, &key, peer_iv);
    let mut gcry = gcrypt_peer::Peer::new(suite, dir, &key, peer_iv);

    // In a thread sweep, the memory system's limit on the same buffer size and threads.
    let mut pass_data = is_thread_sweep(args).then(|| LineAligned::zeroed(size));
    let mut memory_best: Option<f64> = None;

    let (mut best_ours, mut best_ossl, mut best_gcry) = (f64::MAX, f64::MAX, f64::MAX);
    let row_start = std::time::Instant::now();
    for _ in 0..3 {
        if row_start.elapsed() > 8 * budget && best_ours < f64::MAX {
            break; // a slow row: one round of measurements is enough
        }
        best_ours = best_ours.min(clock::cycles_per_call(&mut ours, budget));
        if let Some(data) = pass_data.as_mut() {
            let c = clock::cycles_per_call(&mut || memory_pass(data.bytes(), threads), budget);
            memory_best = Some(memory_best.map_or(c, |b: f64| b.min(c)));
        }
        if let Some(p) = ossl.as_mut() {
            let mut call = || p.update_in_place(peer_buf.bytes(), peer_size);
            best_ossl = best_ossl.min(clock::cycles_per_call(&mut call, budget));
        }
        if let Some(p) = gcry.as_mut() {
            let mut call = || p.update_in_place(&mut peer_buf.bytes()[..peer_size]);
            best_gcry = best_gcry.min(clock::cycles_per_call(&mut call, budget));
        }
    }
    let cpb = best_ours / size as f64;
    let gbps = tsc_hz / cpb / 1e9;
    let peer_cpb = |present: bool, best: f64| present.then(|| best / peer_size as f64);
    let openssl_cpb = peer_cpb(ossl.is_some(), best_ossl);
    let gcrypt_cpb = peer_cpb(gcry.is_some(), best_gcry);
    let to_gbps = |c: f64| tsc_hz / c / 1e9;
    Ok(Row {
        cipher: suite.to_string(),
        direction: dir.name(),
        backend,
        threads,
        interleave: n,
        bytes: size,
        gbps,
        cycles_per_byte: cpb,
        openssl_gbps: openssl_cpb.map(to_gbps),
        openssl_cycles_per_byte: openssl_cpb,
        ratio_vs_openssl: openssl_cpb.map(|c| c / cpb),
        gcrypt_gbps: gcrypt_cpb.map(to_gbps),
        gcrypt_cycles_per_byte: gcrypt_cpb,
        ratio_vs_gcrypt: gcrypt_cpb.map(|c| c / cpb),
        anchor: None,
        quoted: None,
        anchor_cycles_per_byte: None,
        ratio_vs_anchor: None,
        memory_gbps: memory_best.map(|c| tsc_hz / (c / size as f64) / 1e9),
        constant_time: info.constant_time,
    })
}

/// The modes of the paper's tables, in its column order.
pub(crate) const TABLE_MODES: [Mode; 5] = [Mode::Ecb, Mode::Cbc, Mode::Cfb, Mode::Ofb, Mode::Ctr];

/// `--tables`: the MX-1 paper's Table I / VI layout (see [`BenchArgs::tables`]).
fn paper_tables(args: &BenchArgs) -> Result<()> {
    let kinds: Vec<CipherKind> = if args.ciphers.is_empty() {
        vec![CipherKind::Aes128, CipherKind::Des, CipherKind::DesEde3]
    } else {
        args.ciphers
            .iter()
            .map(|n| n.parse::<CipherKind>().map_err(Into::into))
            .collect::<Result<_>>()?
    };
    let tsc_hz = clock::tsc_hz();
    let budget = Duration::from_millis(args.time_ms.max(1));
    let dirs = [Direction::Encrypt, Direction::Decrypt];
    let mut rows = Vec::new();
    for kind in kinds {
        let backends: Vec<_> = match args.backend.as_deref() {
            None | Some("all") => registry::usable(kind),
            name => vec![registry::select(kind, name)?],
        };
        // grid[backend][dir][mode] = row
        let mut grid: Vec<[Vec<Row>; 2]> = Vec::new();
        for info in &backends {
            let n = if args.interleave > 1 {
                args.interleave
            } else {
                info.width
            };
            let mut per_dir: [Vec<Row>; 2] = [Vec::new(), Vec::new()];
            for (d, &dir) in dirs.iter().enumerate() {
                for mode in TABLE_MODES {
                    let suite = Suite { cipher: kind, mode };
                    per_dir[d].push(measure(&suite, dir, info, args, n, 1, budget, tsc_hz)?);
                }
            }
            grid.push(per_dir);
        }
        if !args.json {
            print_paper_table(kind, &grid, args.size, tsc_hz);
        }
        rows.extend(grid.into_iter().flat_map(|[e, d]| e.into_iter().chain(d)));
    }
    finish(args, &rows, &[])
}

/// One cipher's table: (a) encryption and (b) decryption, a line per backend, then the
/// OpenSSL line (the best of its measurements in those rows) and bitweave's best line's
/// ratio to it. The last column is the slowest chained mode over ECB: MX-1's point is
/// that interleaving keeps it near 1.
fn print_paper_table(kind: CipherKind, grid: &[[Vec<Row>; 2]], size: usize, tsc_hz: f64) {
    let table = if kind.block_size() == 16 { "I" } else { "VI" };
    println!(
        "Table {table}-style: {kind}, cycles/byte (TSC {:.2} GHz), {size} B per call, one thread; \
         CBC/CFB/OFB interleaved N ways (N = the backend's batch), OpenSSL standard modes",
        tsc_hz / 1e9
    );
    for (d, title) in ["(a) encryption", "(b) decryption"].iter().enumerate() {
        println!("  {title}");
        println!(
            "  {:<12} {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>11}",
            "backend", "N", "ECB", "CBC", "CFB", "OFB", "CTR", "chained/ECB"
        );
        for per_dir in grid {
            let r = &per_dir[d];
            let ecb = r[0].cycles_per_byte;
            let chained = r[1..4]
                .iter()
                .map(|x| x.cycles_per_byte)
                .fold(0.0, f64::max);
            print!("  {:<12} {:>5}", r[0].backend, r[1].interleave);
            for x in r {
                print!(" {:>8.2}", x.cycles_per_byte);
            }
            println!(" {:>11.3}", chained / ecb);
        }
        let ossl: Vec<Option<f64>> = (0..TABLE_MODES.len())
            .map(|m| {
                grid.iter()
                    .filter_map(|g| g[d][m].openssl_cycles_per_byte)
                    .reduce(f64::min)
            })
            .collect();
        print!("  {:<12} {:>5}", "OpenSSL", 1);
        for o in &ossl {
            print!(" {:>8}", o.map_or("-".into(), |c| format!("{c:.2}")));
        }
        println!();
        print!("  {:<12} {:>5}", "best/OpenSSL", "");
        for (m, o) in ossl.iter().enumerate() {
            let best = grid
                .iter()
                .map(|g| g[d][m].cycles_per_byte)
                .fold(f64::MAX, f64::min);
            let ratio = o.map_or("-".into(), |c| format!("{:.1}x", c / best));
            print!(" {ratio:>8}");
        }
        println!();
    }
    println!();
}

/// One point of the split sweep.
#[derive(Serialize)]
pub(crate) struct SplitRow {
    pub cipher: String,
    pub workers: [&'static str; 2],
    pub schedule: &'static str,
    /// Share of the blocks on the first worker (null for dynamic sharing).
    pub ratio: Option<f64>,
    threads: usize,
    bytes: usize,
    pub gbps: f64,
    cycles_per_byte: f64,
}

fn split_sweep(args: &BenchArgs) -> Result<()> {
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
    let size = args.size.max(8 << 20).div_ceil(kind.block_size()) * kind.block_size();
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
    finish(args, &[], &rows)
}

/// Cycle counting: the TSC on x86-64, nanoseconds elsewhere (then "cycles" are ns and the
/// reported frequency is 1 GHz).
mod clock {
    use std::time::{Duration, Instant};

    #[cfg(target_arch = "x86_64")]
    pub fn now() -> u64 {
        // SAFETY: rdtsc is available on every x86-64 CPU and has no memory effects.
        unsafe { core::arch::x86_64::_rdtsc() }
    }

    #[cfg(not(target_arch = "x86_64"))]
    pub fn now() -> u64 {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }

    /// Ticks of [`now`] per second, measured against the wall clock.
    pub fn tsc_hz() -> f64 {
        let (t0, c0) = (Instant::now(), now());
        while t0.elapsed() < Duration::from_millis(50) {}
        let (t1, c1) = (Instant::now(), now());
        (c1 - c0) as f64 / (t1 - t0).as_secs_f64()
    }

    /// Average ticks per call of `f`, calling it for at least `budget` (and at least twice).
    pub fn cycles_per_call(f: &mut dyn FnMut(), budget: Duration) -> f64 {
        // The warm-up call counts as the measurement when one call outlasts the budget
        // (a serial mode on a wide bitsliced backend), so slow rows stay quick.
        let (start, c0) = (Instant::now(), now());
        f();
        if start.elapsed() >= budget {
            return (now() - c0) as f64;
        }
        // Calls go in batches, the clock read once per batch: reading it costs ~40 ns
        // (measured on Zen 3), more than a 16-byte AES call, and would flatten every
        // small-message ratio towards 1. Batches double while one takes under 1 % of the
        // budget.
        let start = Instant::now();
        let c0 = now();
        let (mut calls, mut batch) = (0u64, 1u64);
        loop {
            let batch_start = Instant::now();
            for _ in 0..batch {
                f();
            }
            calls += batch;
            if calls >= 2 && start.elapsed() >= budget {
                break;
            }
            if batch_start.elapsed() < budget / 100 {
                batch *= 2;
            }
        }
        (now() - c0) as f64 / calls as f64
    }
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
        Ok(Some(t)) => format!(
            ", capped by {}={t}; libgcrypt capped alike (GCRYCTL_DISABLE_HWF); OpenSSL NOT \
             capped (it reads OPENSSL_ia32cap at load: set that too)",
            cpu::CPU_ENV
        ),
        _ => String::new(),
    };
    format!(
        "CPU: {model}; tier {}{cap} (features in use: {})",
        cpu::tier(),
        cpu::reported_names()
    )
}
