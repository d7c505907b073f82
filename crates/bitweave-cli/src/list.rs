//! `bitweave list`: ciphers, modes and backends (with what this CPU can run).

use anyhow::Result;
use bitweave::hazmat::registry::{self, Shape};
use bitweave::{CipherKind, Mode, Suite};

pub fn run() -> Result<()> {
    println!("Ciphers (use as -c <cipher>-<mode>):");
    for kind in CipherKind::ALL {
        println!(
            "  {:<9} key {:>2} bytes, block {:>2} bytes",
            kind.name(),
            kind.key_len(),
            kind.block_size()
        );
    }
    let modes: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
    println!(
        "Modes: {} (interleave N>1: cbc, cfb, ofb)",
        modes.join(", ")
    );
    println!("Aliases: des = des-cbc, des3 = des-ede3-cbc, des-ede/des-ede3 = ECB, seed = seed-cbc, aes128/192/256 = CBC");
    println!(
        "Suites: {}",
        Suite::all()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    crate::aead::print_list();
    println!();
    print_cpu();
    println!("Backends:");
    println!(
        "  {:<9} {:<10} {:>5} {:>8} {:>6} {:>13}  needs",
        "cipher", "backend", "width", "priority", "serial", "constant-time"
    );
    for b in registry::all() {
        let status = if b.available() {
            ""
        } else if b.features.iter().all(|&f| bitweave::cpu::detected(f)) {
            "  (hidden by the CPU cap)"
        } else if let Some(f) = b.features.iter().find(|f| !f.native()) {
            if f.arch() == "ARM64" {
                "  (ARM64 only)"
            } else {
                "  (x86-64 only)"
            }
        } else {
            "  (not on this CPU)"
        };
        let needs = b.needs();
        println!(
            "  {:<9} {:<10} {:>5} {:>8} {:>6} {:>13}  {needs}{status}",
            b.cipher.name(),
            b.name,
            b.width,
            b.priority,
            b.serial_priority,
            if b.constant_time { "yes" } else { "no" },
        );
    }
    println!();
    print!("Default backend per cipher:");
    for kind in CipherKind::ALL {
        if let Ok(b) = registry::select(kind, None) {
            print!(" {}={}", kind.name(), b.name);
        }
    }
    println!();
    print!("Default for serial work (one chain, CFB8/CFB1, short calls):");
    for kind in CipherKind::ALL {
        if let Ok(b) = registry::select_for(kind, None, Shape::Serial) {
            print!(" {}={}", kind.name(), b.name);
        }
    }
    println!();
    Ok(())
}

/// The tier backends see here, the cap in force and the features they may use.
fn print_cpu() {
    use bitweave::cpu::{self, Tier, Tuning, CPU_ENV, TUNING_ENV};
    let tiers: Vec<_> = Tier::ALL.iter().map(|t| t.name()).collect();
    let cap = match cpu::cap() {
        Ok(Some(t)) => format!("capped by {CPU_ENV}={t}"),
        _ => format!("no cap; {CPU_ENV}={} lowers it", tiers.join("|")),
    };
    println!("CPU tier: {} ({cap})", cpu::tier());
    println!("CPU features in use: {}", cpu::reported_names());
    let tunings: Vec<_> = Tuning::ALL.iter().map(|t| t.name()).collect();
    let source = match cpu::tuning_setting() {
        Ok(Some(_)) => format!("set by {TUNING_ENV}"),
        _ => format!(
            "this CPU's vendor; {TUNING_ENV}={} overrides",
            tunings.join("|")
        ),
    };
    println!("Kernel tuning: {} ({source})", cpu::tuning());
    println!();
}
