//! `bitweave-ct`: the constant-time check harness (run `ctgrind` under valgrind).

use std::process::ExitCode;

use std::time::Duration;

use bitweave_ct::{ctgrind, probes, ttest, vg};
use clap::{Parser, Subcommand};
use rand::SeedableRng;

#[derive(Parser)]
#[command(about = "Constant-time checks for bitweave's backends")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Lists the targets and whether this CPU runs them.
    List,
    /// Runs targets with secrets marked undefined; must run under
    /// `valgrind --error-exitcode=N`. A target whose backend cannot run fails.
    Ctgrind {
        /// Target names (`aes-128/sliced64`, `pi32cipher128v2/avx2`, `leak/table`).
        targets: Vec<String>,
    },
    /// Times targets with fixed vs random secrets (dudect); exit 1 if any leaks or got
    /// too few samples to tell.
    Ttest {
        /// Target names (default: every timing target).
        targets: Vec<String>,
        /// Time budget per target.
        #[arg(long, default_value_t = 2000)]
        budget_ms: u64,
        /// Seed of the class order and of the fixed inputs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn main() -> ExitCode {
    match Cli::parse().cmd {
        Cmd::List => {
            for t in ctgrind::targets() {
                match ctgrind::runnable(&t) {
                    Ok(()) => println!("{:<28} runs here", t.name),
                    Err(needs) => println!("{:<28} skipped: CPU lacks {needs}", t.name),
                }
            }
            ExitCode::SUCCESS
        }
        Cmd::Ctgrind { targets } => run_ctgrind(&targets),
        Cmd::Ttest {
            targets,
            budget_ms,
            seed,
        } => run_ttest(targets, Duration::from_millis(budget_ms), seed),
    }
}

fn run_ttest(mut names: Vec<String>, budget: Duration, seed: u64) -> ExitCode {
    if names.is_empty() {
        names = probes::names();
    }
    // Which vendor's kernel choices run (`BITWEAVE_TUNING` picks the other's).
    println!("kernel tuning: {}", bitweave::cpu::tuning());
    let mut leaks = 0;
    for name in &names {
        match probes::run(name, budget, seed) {
            Ok(probes::Outcome::Ran(v)) => {
                let word = match (v.leaks(), v.conclusive()) {
                    (true, _) => "LEAK",
                    (false, true) => "ok",
                    (false, false) => "SHORT",
                };
                println!("{word:<5} {name:<26} {v}");
                leaks += usize::from(word != "ok");
            }
            Ok(probes::Outcome::Skipped(needs)) => {
                println!("skipped: CPU lacks {needs} ({name})")
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    println!(
        "a leak: |t| > {} and a difference of at least {} cycles and {} % of the mean",
        ttest::THRESHOLD,
        ttest::MIN_EFFECT_CYCLES,
        ttest::MIN_EFFECT_FRACTION * 100.0
    );
    if leaks > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn run_ctgrind(names: &[String]) -> ExitCode {
    if vg::running_on_valgrind() == 0 {
        eprintln!("error: ctgrind must run under valgrind memcheck");
        return ExitCode::from(2);
    }
    // Which vendor's kernel choices run (valgrind's CPU reports itself as Intel).
    println!("kernel tuning: {}", bitweave::cpu::tuning());
    let all = ctgrind::targets();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5ec2e7);
    let mut failed = 0;
    for name in names {
        let Some(t) = all.iter().find(|t| &t.name == name) else {
            eprintln!("error: unknown target {name} (see `bitweave-ct list`)");
            return ExitCode::from(2);
        };
        if let Err(needs) = ctgrind::runnable(t) {
            // Refuse to pass: a requested backend that does not run is not checked.
            println!("FAIL {name}: cannot run here (CPU lacks {needs})");
            failed += 1;
            continue;
        }
        let before = vg::count_errors();
        let r = ctgrind::run(t, &mut rng);
        let reports = vg::count_errors() - before;
        match r {
            Ok(()) => println!("ran {name}: {reports} new memcheck report(s)"),
            Err(e) => {
                println!("FAIL {name}: {e}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}
