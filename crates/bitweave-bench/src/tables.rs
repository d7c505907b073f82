//! `--tables`: the MX-1 paper's Table I (AES) and Table VI (DES, 3DES) layout, measured.

use std::time::Duration;

use anyhow::Result;
use bitweave::hazmat::registry;
use bitweave::{CipherKind, Direction, Suite};

use crate::args::BenchArgs;
use crate::block::{measure, Case, Row, Setup, TABLE_MODES};
use crate::clock;

/// `--tables`: the MX-1 paper's Table I / VI layout (see [`BenchArgs::tables`]).
pub fn paper_tables(args: &BenchArgs) -> Result<Vec<Row>> {
    let kinds: Vec<CipherKind> = if args.ciphers.is_empty() {
        vec![CipherKind::Aes128, CipherKind::Des, CipherKind::DesEde3]
    } else {
        args.ciphers
            .iter()
            .map(|n| n.parse::<CipherKind>().map_err(Into::into))
            .collect::<Result<_>>()?
    };
    let tsc_hz = clock::tsc_hz();
    let setup = Setup {
        budget: Duration::from_millis(args.time_ms.max(1)),
        tsc_hz,
        peers: true,
        memory: false,
        key_setup: false,
    };
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
                    per_dir[d].push(measure(
                        &Case {
                            suite,
                            dir,
                            backend: info,
                            named: true,
                            size: args.size(),
                            interleave: n,
                            threads: 1,
                        },
                        &setup,
                    )?);
                }
            }
            grid.push(per_dir);
        }
        if !args.json {
            print_paper_table(kind, &grid, args.size(), tsc_hz);
        }
        rows.extend(grid.into_iter().flat_map(|[e, d]| e.into_iter().chain(d)));
    }
    Ok(rows)
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
