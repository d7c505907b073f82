//! What this CPU runs (`backends`, `suites`) and how fast (`bench`), as plain Python data.

use std::time::{Duration, Instant};

use bitweave::aead::PiBackend;
use bitweave::engine::{parallel, registry};
use bitweave::{Cipher, CipherKind, Direction, Mode, Suite};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::error::{msg, to_py};

/// Every suite name (`aes-128-ecb` ... `seed-ctr`), in listing order.
#[pyfunction]
pub fn suites() -> Vec<String> {
    Suite::all().iter().map(|s| s.to_string()).collect()
}

/// Every backend of every cipher, as dicts: `kind` ("block" or "aead"), `cipher`,
/// `backend`, `width` (blocks or lanes per step), `priority`, `constant_time`,
/// `features` (CPU features needed), `available` (this CPU runs it) and `default` (what
/// a call without `backend=` uses here).
#[pyfunction]
pub fn backends(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for b in registry::all() {
        let d = PyDict::new(py);
        d.set_item("kind", "block")?;
        d.set_item("cipher", b.cipher.name())?;
        d.set_item("backend", b.name)?;
        d.set_item("width", b.width)?;
        d.set_item("priority", b.priority)?;
        d.set_item("constant_time", b.constant_time)?;
        let needs: Vec<&str> = b.features.iter().map(|f| f.name()).collect();
        d.set_item("features", needs)?;
        d.set_item("available", b.available())?;
        let default = registry::select(b.cipher, None).is_ok_and(|s| s.name == b.name);
        d.set_item("default", default)?;
        list.append(d)?;
    }
    let best = PiBackend::best();
    for b in PiBackend::ALL {
        let d = PyDict::new(py);
        d.set_item("kind", "aead")?;
        d.set_item("cipher", "pi-cipher")?;
        d.set_item("backend", b.name())?;
        d.set_item("width", b.lanes(64))?;
        d.set_item("priority", PiBackend::ALL.iter().position(|&x| x == b))?;
        d.set_item("constant_time", true)?;
        let needs: Vec<&str> = b.features().iter().map(|f| f.name()).collect();
        d.set_item("features", needs)?;
        d.set_item("available", b.available())?;
        d.set_item("default", b == best)?;
        list.append(d)?;
    }
    Ok(list)
}

/// One measured row.
struct Row {
    suite: Suite,
    direction: Direction,
    backend: &'static str,
    threads: usize,
    interleave: usize,
    bytes: usize,
    seconds_per_call: f64,
    cycles_per_byte: f64,
    constant_time: bool,
}

fn suites_for(names: &[String]) -> PyResult<Vec<Suite>> {
    if names.is_empty() {
        return Ok(Suite::all());
    }
    let mut out = Vec::new();
    for n in names {
        if let Ok(kind) = n.parse::<CipherKind>() {
            out.extend(Mode::ALL.iter().map(|&mode| Suite { cipher: kind, mode }));
        } else {
            out.push(n.parse::<Suite>().map_err(to_py)?);
        }
    }
    Ok(out)
}

/// Measures throughput the way `bitweave bench` measures bitweave's side (no OpenSSL
/// peer here: use the CLI for ratios). Returns a list of dicts with `cipher` (the suite),
/// `direction` ("enc"/"dec"), `backend`, `threads`, `interleave`, `bytes`, `gbps`,
/// `cycles_per_byte` (TSC cycles on x86-64, nanoseconds elsewhere) and `constant_time`.
///
/// `ciphers`: None (all), a cipher (`aes-128`: every mode) or a suite, or a list of them.
/// `backend`: None (each cipher's default), a name, or "all". `threads`: thread counts
/// to measure (0 = all cores; rows with several threads use at least 1 MiB per thread).
/// Releases the GIL while it measures.
#[pyfunction]
#[pyo3(signature = (ciphers=None, *, backend=None, size=16384, interleave=1, threads=vec![1], direction=None, time_ms=25))]
#[allow(clippy::too_many_arguments)]
pub fn bench<'py>(
    py: Python<'py>,
    ciphers: Option<&Bound<'py, PyAny>>,
    backend: Option<&str>,
    size: usize,
    interleave: usize,
    threads: Vec<usize>,
    direction: Option<&str>,
    time_ms: u64,
) -> PyResult<Bound<'py, PyList>> {
    if size == 0 {
        return Err(msg("size must be at least 1 byte"));
    }
    let names: Vec<String> = match ciphers {
        None => vec![],
        Some(c) => match c.extract::<String>() {
            Ok(s) => vec![s],
            Err(_) => c.extract::<Vec<String>>()?,
        },
    };
    let directions = match direction {
        None => vec![Direction::Encrypt, Direction::Decrypt],
        Some("enc") => vec![Direction::Encrypt],
        Some("dec") => vec![Direction::Decrypt],
        Some(d) => return Err(msg(format!("unknown direction '{d}' (enc or dec)"))),
    };
    let suites = suites_for(&names)?;
    let mut plan = Vec::new();
    for suite in &suites {
        let infos = match backend {
            Some("all") => registry::usable(suite.cipher),
            name => vec![registry::select(suite.cipher, name).map_err(to_py)?],
        };
        for info in infos {
            for &t in &threads {
                for &dir in &directions {
                    plan.push((*suite, dir, info.name, info.constant_time, t));
                }
            }
        }
    }
    let budget = Duration::from_millis(time_ms.max(1));
    let rows = py.detach(move || -> bitweave::Result<Vec<Row>> {
        plan.into_iter()
            .map(|(suite, dir, name, ct, t)| {
                measure(suite, dir, name, ct, t, size, interleave, budget)
            })
            .collect()
    });
    let rows = rows.map_err(to_py)?;
    let list = PyList::empty(py);
    for r in rows {
        let d = PyDict::new(py);
        d.set_item("cipher", r.suite.to_string())?;
        d.set_item("direction", r.direction.name())?;
        d.set_item("backend", r.backend)?;
        d.set_item("threads", r.threads)?;
        d.set_item("interleave", r.interleave)?;
        d.set_item("bytes", r.bytes)?;
        d.set_item("gbps", r.bytes as f64 / r.seconds_per_call / 1e9)?;
        d.set_item("cycles_per_byte", r.cycles_per_byte)?;
        d.set_item("constant_time", r.constant_time)?;
        list.append(d)?;
    }
    Ok(list)
}

#[allow(clippy::too_many_arguments)]
fn measure(
    suite: Suite,
    dir: Direction,
    backend: &'static str,
    constant_time: bool,
    threads: usize,
    size: usize,
    interleave: usize,
    budget: Duration,
) -> bitweave::Result<Row> {
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
        size.max(threads << 20)
    } else {
        size
    };
    let size = if suite.mode.whole_blocks() {
        size.div_ceil(bs) * bs
    } else {
        size
    };
    let key: Vec<u8> = (0..kind.key_len()).map(|i| (i as u8) ^ 0x5a).collect();
    let params = suite.params().padding(false).interleave(n).threads(threads);
    let iv: Vec<u8> = (0..params.iv_len(bs)).map(|i| i as u8).collect();
    let input: Vec<u8> = (0..size).map(|i| (i as u8).wrapping_mul(13)).collect();
    let cipher = Cipher::with_backend(kind, &key, Some(backend))?;
    let mut crypter = params.crypter(&cipher, dir, &iv)?;
    // Pre-touched output: no measurement pays first-touch page faults.
    let mut out = vec![1u8; size + bs];
    let mut call = || {
        out.clear();
        crypter.update(&input, &mut out);
    };
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let (secs, ticks) = clock::per_call(&mut call, budget);
        if secs < best.0 {
            best = (secs, ticks);
        }
        if secs > budget.as_secs_f64() * 4.0 {
            break; // a slow row: one measurement is enough
        }
    }
    Ok(Row {
        suite,
        direction: dir,
        backend,
        threads,
        interleave: n,
        bytes: size,
        seconds_per_call: best.0,
        cycles_per_byte: best.1 / size as f64,
        constant_time,
    })
}

/// Time and cycle counting: the TSC on x86-64, nanoseconds elsewhere.
mod clock {
    use super::{Duration, Instant};

    #[cfg(target_arch = "x86_64")]
    fn ticks() -> u64 {
        // SAFETY: rdtsc exists on every x86-64 CPU and touches no memory.
        unsafe { core::arch::x86_64::_rdtsc() }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn ticks() -> u64 {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }

    /// Seconds and ticks per call of `f`, called for at least `budget` (a first call that
    /// outlasts the budget is the measurement).
    pub fn per_call(f: &mut dyn FnMut(), budget: Duration) -> (f64, f64) {
        let (t0, c0) = (Instant::now(), ticks());
        f();
        if t0.elapsed() >= budget {
            return (t0.elapsed().as_secs_f64(), (ticks() - c0) as f64);
        }
        let (t0, c0) = (Instant::now(), ticks());
        let mut calls = 0u32;
        while calls < 2 || t0.elapsed() < budget {
            f();
            calls += 1;
        }
        let (secs, t) = (t0.elapsed().as_secs_f64(), (ticks() - c0) as f64);
        (secs / calls as f64, t / calls as f64)
    }
}
