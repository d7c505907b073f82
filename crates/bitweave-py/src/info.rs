//! What this CPU runs (`backends`, `suites`) and how fast (`bench`), as plain Python data.

use std::time::Duration;

use bitweave::aead::PiBackend;
use bitweave::hazmat::registry;
use bitweave::{CipherKind, Direction, Mode, Suite};
use bitweave_bench::{clock, measure, Case, Row, Setup};
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

/// Measures throughput with `bitweave bench`'s own routine (the `bitweave-bench` crate),
/// bitweave's side only (no OpenSSL or libgcrypt peer linked here: use the CLI for
/// ratios). Returns a list of dicts with `cipher` (the suite),
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
                    plan.push((*suite, dir, info, t));
                }
            }
        }
    }
    let named = backend.is_some();
    let rows = py.detach(move || -> anyhow::Result<Vec<Row>> {
        let setup = Setup {
            budget: Duration::from_millis(time_ms.max(1)),
            tsc_hz: clock::tsc_hz(),
            peers: false,
            memory: false,
            key_setup: false,
        };
        plan.into_iter()
            .map(|(suite, dir, info, threads)| {
                let case = Case {
                    suite,
                    dir,
                    backend: &info,
                    named,
                    size,
                    interleave,
                    threads,
                };
                measure(&case, &setup)
            })
            .collect()
    });
    let rows = rows.map_err(|e| msg(format!("{e:#}")))?;
    let list = PyList::empty(py);
    for r in rows {
        let d = PyDict::new(py);
        d.set_item("cipher", r.cipher)?;
        d.set_item("direction", r.direction)?;
        d.set_item("backend", r.backend)?;
        d.set_item("threads", r.threads)?;
        d.set_item("interleave", r.interleave)?;
        d.set_item("bytes", r.bytes)?;
        d.set_item("gbps", r.gbps)?;
        d.set_item("cycles_per_byte", r.cycles_per_byte)?;
        d.set_item("constant_time", r.constant_time)?;
        list.append(d)?;
    }
    Ok(list)
}
