//! One block-cipher row: bitweave's call on a buffer, and the peers' calls on a buffer as
//! large, timed alternately on one clock. The routine behind `bitweave bench` and
//! Python's `bitweave.bench()`.

use std::time::Duration;

use anyhow::Result;
use bitweave::hazmat::prefetch_ahead;
use bitweave::hazmat::{parallel, registry};
use bitweave::{Cipher, Direction, Mode, Suite};
use serde::Serialize;

use crate::aligned::LineAligned;
use crate::clock;
use crate::peers;

/// One row to measure.
pub struct Case<'a> {
    pub suite: Suite,
    pub dir: Direction,
    /// The backend measured.
    pub backend: &'a registry::BackendInfo,
    /// `true` when the user named the backend: it then runs every shape of work.
    /// Otherwise the cipher's defaults choose per shape, as a user's calls get them (a
    /// serial chain or a call of a few blocks may run on the serial backend).
    pub named: bool,
    /// Bytes per call (rounded up to whole blocks where the mode needs them; at least
    /// 1 MiB per thread when several threads run).
    pub size: usize,
    /// Interleaved chains for CBC/CFB/OFB (other modes run standard).
    pub interleave: usize,
    /// Threads (0 = all cores).
    pub threads: usize,
}

/// How rows are measured.
#[derive(Clone, Copy)]
pub struct Setup {
    /// Time per measurement; each side is measured three times, alternating.
    pub budget: Duration,
    /// Ticks of [`clock::now`] per second.
    pub tsc_hz: f64,
    /// Measure the peers built in beside bitweave.
    pub peers: bool,
    /// Also time the in-place memory pass on the same buffer and threads (thread sweeps).
    pub memory: bool,
    /// Every call sets up a new context first — key schedule and backend choice for
    /// bitweave (`Cipher::new`), a new `EVP_CIPHER_CTX` keyed by `EVP_CipherInit_ex` for
    /// OpenSSL (the cipher fetched once), a new handle keyed by `gcry_cipher_setkey` for
    /// libgcrypt — as a one-shot call with a fresh key pays.
    pub key_setup: bool,
}

/// The modes of the paper's tables, in its column order.
pub const TABLE_MODES: [Mode; 5] = [Mode::Ecb, Mode::Cbc, Mode::Cfb, Mode::Ofb, Mode::Ctr];

/// One benchmark row (the JSON contract of DESIGN.md, plus a few extras).
#[derive(Serialize)]
pub struct Row {
    pub cipher: String,
    pub direction: &'static str,
    pub backend: &'static str,
    pub threads: usize,
    pub interleave: usize,
    pub bytes: usize,
    pub gbps: f64,
    pub cycles_per_byte: f64,
    pub openssl_gbps: Option<f64>,
    pub openssl_cycles_per_byte: Option<f64>,
    pub ratio_vs_openssl: Option<f64>,
    /// libgcrypt, the second peer (null where it lacks the operation).
    pub gcrypt_gbps: Option<f64>,
    pub gcrypt_cycles_per_byte: Option<f64>,
    pub ratio_vs_gcrypt: Option<f64>,
    /// A reference figure that is not measured in this run (π-Cipher's goptv), named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<&'static str>,
    /// `true` where `anchor_cycles_per_byte` is quoted from elsewhere, not measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quoted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor_cycles_per_byte: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_vs_anchor: Option<f64>,
    /// In a thread sweep: the in-place memory pass on the same buffer and threads,
    /// measured alternately with this row ([`memory_pass`](crate::block)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_gbps: Option<f64>,
    pub constant_time: bool,
    /// Each call included setting up a new keyed context (`--key-setup`), for every side.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub key_setup: bool,
}

/// Measures one row: bitweave and (when `setup.peers`) the peers, best of three
/// alternating runs each.
pub fn measure(case: &Case, setup: &Setup) -> Result<Row> {
    let Case {
        ref suite,
        dir,
        backend: info,
        named,
        size,
        interleave,
        threads,
    } = *case;
    let Setup {
        budget,
        tsc_hz,
        peers,
        memory,
        key_setup,
    } = *setup;
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
    // Whole blocks for ECB/CBC; stream modes take the size as given.
    let size = if suite.mode.whole_blocks() {
        size.div_ceil(bs) * bs
    } else {
        size
    };
    let key: Vec<u8> = (0..kind.key_len())
        .map(|i| (i as u8).wrapping_mul(37) ^ 0x5a)
        .collect();
    let params = suite.params().padding(false).interleave(n);
    let iv: Vec<u8> = (0..params.iv_len(bs)).map(|i| i as u8).collect();
    let input: Vec<u8> = (0..size).map(|i| (i as u8).wrapping_mul(13)).collect();

    // Unless the backend is named, the default cipher: it picks the serial backend for
    // serial work.
    let cipher = if named {
        Cipher::with_backend(kind, &key, Some(info.name))?
    } else {
        Cipher::new(kind, &key)?
    }
    .with_threads(threads);
    // The backend that runs the row: interleaved chains by their number, other
    // independent blocks by the call's size (a few blocks run on the serial one).
    let chains = n > 1 && (dir == Direction::Encrypt || suite.mode == Mode::Ofb);
    let backend = if suite.mode.is_serial(dir, n) {
        cipher.serial_backend()
    } else if chains {
        cipher.chains_backend(n)
    } else {
        cipher.blocks_backend(size)
    };
    let mut crypter = params.crypter(&cipher, dir, &iv)?;
    // In place where the mode allows it (as `openssl speed` does): one pass over memory.
    // Otherwise through an output buffer whose pages are touched now, so no measurement
    // pays first-touch page faults.
    let mut buf = LineAligned::from_slice(&input);
    let in_place = crypter.update_in_place(buf.bytes()).is_ok();
    let mut out = vec![1u8; size + bs];
    out.clear();
    let (ours_key, ours_iv) = (key.clone(), iv.clone());
    let mut ours = move || {
        if key_setup {
            // A fresh context: key schedule and backend choice, then the call.
            let c = if named {
                Cipher::with_backend(kind, &ours_key, Some(info.name))
            } else {
                Cipher::new(kind, &ours_key)
            }
            .expect("keyed once already")
            .with_threads(threads);
            crypter = params.crypter(&c, dir, &ours_iv).expect("IV checked");
        }
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
    // The same bytes per call as bitweave's: below a block that is a stream mode's call,
    // which both peers take as it is, keeping the unused keystream for the next call as
    // bitweave does (they once ran a whole block there, so a 5-byte row set bitweave's
    // 5-byte calls against their 16-byte ones).
    let peer_size = size;
    let mut peer_buf = LineAligned::zeroed(peer_size + 32);
    for (i, b) in peer_buf.bytes().iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(13);
    }
    let mut ossl = peers
        .then(|| peers::OpenSsl::new(suite, dir, &key, peer_iv))
        .flatten();
    let mut gcry = peers
        .then(|| peers::Gcrypt::new(suite, dir, &key, peer_iv))
        .flatten();

    // In a thread sweep, the memory system's limit on the same buffer size and threads.
    let mut pass_data = memory.then(|| LineAligned::zeroed(size));
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
            let mut call = || {
                if key_setup {
                    *p = peers::OpenSsl::new(suite, dir, &key, peer_iv).expect("keyed once");
                }
                p.update_in_place(peer_buf.bytes(), peer_size)
            };
            best_ossl = best_ossl.min(clock::cycles_per_call(&mut call, budget));
        }
        if let Some(p) = gcry.as_mut() {
            let mut call = || {
                if key_setup {
                    *p = peers::Gcrypt::new(suite, dir, &key, peer_iv).expect("keyed once");
                }
                p.update_in_place(peer_buf.bytes(), peer_size)
            };
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
        key_setup,
    })
}

/// An in-place pass that reads and writes every byte once and does nothing else, split
/// over threads as the cipher rows are: what the memory system allows. It prefetches
/// ahead as the streaming cipher kernels do (without that, one core's pass is held to a
/// fraction of the bandwidth by the lines it has in flight). On buffers larger than the
/// caches an in-place cipher cannot be faster, so its scaling with threads is bounded by
/// this pass's scaling, measured alternately with the cipher (the machine's memory
/// bandwidth is shared and changes from second to second).
pub fn memory_pass(data: &mut [u8], threads: usize) {
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
