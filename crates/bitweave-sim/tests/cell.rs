//! Tests of the Cell BE model (paper `seed-on-cell-be.txt`): each unit's SEED program
//! against the library, the whole machine on real data (encryption and decryption), the
//! executed run against the cost-based one, the ratio sweep's rise and fall, the direction
//! configuration changes move the results, the machine's limits, and the report contract.

use bitweave_sim::cell::config::CellConfig;
use bitweave_sim::cell::dma::check_size;
use bitweave_sim::cell::ppu::{MainMemory, Ppu};
use bitweave_sim::cell::ppu_seed::{thread, PpeCode, PpeData, PpuProgram};
use bitweave_sim::cell::scenario::{check, report_for, MethodResult};
use bitweave_sim::cell::seed::{self, Direction};
use bitweave_sim::cell::spe::Spe;
use bitweave_sim::cell::system::{simulate, Costs, Executed, Method, Split};
use bitweave_sim::cell::CellError;

fn key() -> [u8; 16] {
    seed::bytes(7, 16).try_into().unwrap()
}

#[test]
fn spe_program_matches_the_library() {
    let cfg = CellConfig::default();
    let data = seed::bytes(9, 64 * 8);
    let ss = seed::ss_tables();
    for dir in [Direction::Encrypt, Direction::Decrypt] {
        let mut spe = Spe::new(&cfg, &ss, &seed::round_keys(&key(), dir)).unwrap();
        let mut d = data.clone();
        let cycles = spe.compute(&mut d);
        assert_eq!(d, seed::library(dir, &key(), &data), "{dir:?}");
        assert!(cycles > 0);
    }
}

#[test]
fn rfc4269_vector_through_the_spe() {
    // RFC 4269 Appendix B.1: key 0, plaintext 00..0f.
    let cfg = CellConfig::default();
    let k = [0u8; 16];
    let pt: Vec<u8> = (0..16u8).collect();
    let ct = [
        0x5e, 0xba, 0xc6, 0xe0, 0x05, 0x4e, 0x16, 0x68, 0x19, 0xaf, 0xf1, 0xcc, 0x6d, 0x34, 0x6c,
        0xdb,
    ];
    let mut spe = Spe::new(
        &cfg,
        &seed::ss_tables(),
        &seed::round_keys(&k, Direction::Encrypt),
    )
    .unwrap();
    let mut group = pt.repeat(4);
    spe.compute(&mut group);
    for b in group.chunks(16) {
        assert_eq!(b, ct);
    }
}

#[test]
fn ppe_programs_match_the_library() {
    let cfg = CellConfig::default();
    let data = seed::bytes(9, 64 * 4);
    let ss = seed::ss_tables();
    for code in [PpeCode::Scalar, PpeCode::Vmx] {
        for threads in [1usize, 2] {
            let keys = seed::round_keys(&key(), Direction::Encrypt);
            let mut mem = MainMemory::default();
            let pd = PpeData::write(&mut mem, &ss, &keys);
            let prog = PpuProgram::build(&cfg, code).unwrap();
            let base = mem.alloc(data.len());
            mem.bytes[base as usize..base as usize + data.len()].copy_from_slice(&data);
            let per = data.len() / 16 / threads;
            let ths = (0..threads)
                .map(|t| {
                    let s = mem.alloc(32);
                    thread(&prog, &pd, &mem, base + (t * per * 16) as u32, per, s)
                })
                .collect();
            let mut ppu = Ppu::new(ths, cfg.ppu.clone());
            ppu.run(&mut mem);
            assert_eq!(
                &mem.bytes[base as usize..base as usize + data.len()],
                &seed::library(Direction::Encrypt, &key(), &data)[..],
                "{code:?} x{threads}"
            );
            // Only the VMX program moves lanes through memory.
            assert_eq!(ppu.load_hit_store_stalls > 0, code == PpeCode::Vmx);
        }
    }
}

#[test]
fn whole_machine_on_real_data_and_costs_agree() {
    let cfg = CellConfig::default();
    for method in [Method::AllSimd, Method::Hybrid] {
        let (costs, ok) = Costs::measure(&cfg, method).unwrap();
        assert!(ok);
        // 16 KB + a bit: two chunks on the first SPE, PPE threads busy.
        let c = check(&cfg, method, &costs, 0.5, 6 * 16 * 1024 + 4096).unwrap();
        assert!(c.verified, "{method:?}");
        let dev = (c.executed_cycles as f64 / c.costed_cycles as f64 - 1.0).abs();
        assert!(
            dev < 1e-3,
            "{method:?}: executed {} vs costed {}",
            c.executed_cycles,
            c.costed_cycles
        );
    }
}

#[test]
fn executed_split_puts_every_block_somewhere() {
    let cfg = CellConfig::default();
    let data = seed::bytes(3, 64 * 40);
    let split = Split::new(&cfg, Method::Hybrid, 0.7, data.len() / 16);
    assert!(split.ppe_blocks[0] > 0);
    let mut ex = Executed::new(
        &cfg,
        Method::Hybrid,
        &split,
        &key(),
        Direction::Encrypt,
        &data,
    )
    .unwrap();
    let t = simulate(&cfg, &split, &mut ex).unwrap();
    assert_eq!(
        ex.output(data.len()),
        &seed::library(Direction::Encrypt, &key(), &data)[..]
    );
    assert!(t.ppe > 0 && t.total >= t.ppe);
}

/// Throughput rises (non-strictly) up to the best ratio and falls after it, strictly
/// overall on both sides.
fn rises_then_falls(m: &MethodResult) {
    let g: Vec<f64> = m.points.iter().map(|p| p.gbps).collect();
    let b = g
        .iter()
        .enumerate()
        .fold(0, |b, (i, &x)| if x > g[b] { i } else { b });
    assert!(
        b > 0 && b < g.len() - 1,
        "{:?}: peak inside the sweep",
        m.method
    );
    assert!(g[0] < g[b] && g[g.len() - 1] < g[b]);
    for i in 1..=b {
        assert!(g[i] >= g[i - 1] * 0.999, "{:?} rises at {i}", m.method);
    }
    for i in b + 1..g.len() {
        assert!(g[i] <= g[i - 1] * 1.001, "{:?} falls at {i}", m.method);
    }
}

#[test]
fn sweep_rises_then_falls_and_hybrid_balances_later() {
    let cfg = CellConfig::default();
    let all = MethodResult::run(&cfg, Method::AllSimd).unwrap();
    let hyb = MethodResult::run(&cfg, Method::Hybrid).unwrap();
    rises_then_falls(&all);
    rises_then_falls(&hyb);
    // The paper's finding: Hybrid reaches a higher ratio and a higher peak.
    assert!(hyb.best().ratio > all.best().ratio);
    assert!(hyb.best().gbps > all.best().gbps);
    // Without the PPE (ratio 0) both are the same six SPEs.
    assert_eq!(all.points[0].gbps, hyb.points[0].gbps);
}

#[test]
fn config_changes_move_results_the_expected_way() {
    let base = CellConfig::default();
    let best = |cfg: &CellConfig, m| {
        let r = MethodResult::run(cfg, m).unwrap();
        (r.best().ratio, r.best().gbps)
    };
    let (hr, hg) = best(&base, Method::Hybrid);
    let (ar, _) = best(&base, Method::AllSimd);
    // Slower SPU shifts and shuffles (on G's critical path; load latency is hidden by the
    // schedule): SPEs slower, the PPE takes more, the peak drops.
    let mut slow_spu = base.clone();
    slow_spu.spu.shuffle = 8;
    slow_spu.spu.word_shift = 8;
    let (r, g) = best(&slow_spu, Method::Hybrid);
    assert!(r > hr && g < hg);
    // A dearer load-hit-store hurts only the VMX program.
    let mut lhs = base.clone();
    lhs.ppu.load_hit_store = 80;
    assert!(best(&lhs, Method::AllSimd).0 < ar);
    assert_eq!(best(&lhs, Method::Hybrid).0, hr);
    // Fewer SPEs: less throughput, and each PPE thread carries a larger share (its ratio
    // to one SPE stays about the same).
    let mut four = base.clone();
    four.spes = 4;
    let (r4, g4) = best(&four, Method::Hybrid);
    assert!(g4 < hg && (r4 - hr).abs() <= 0.03);
    // A single PPE issue slot slows the PPE threads.
    let mut single = base.clone();
    single.ppu.issue_width = 1;
    assert!(best(&single, Method::Hybrid).0 < hr);
}

#[test]
fn machine_limits_are_errors() {
    assert!(check_size(16 * 1024, 16 * 1024).is_ok());
    assert!(check_size(8, 16 * 1024).is_ok());
    assert!(matches!(
        check_size(16 * 1024 + 16, 16 * 1024),
        Err(CellError::DmaSize { .. })
    ));
    assert!(check_size(24, 16 * 1024).is_err());
    let small = CellConfig {
        local_store_bytes: 32 * 1024,
        ..Default::default()
    };
    let r = Spe::new(
        &small,
        &seed::ss_tables(),
        &seed::round_keys(&key(), Direction::Encrypt),
    );
    assert!(matches!(r, Err(CellError::LocalStore { .. })));
    let few = CellConfig {
        spu_registers: 20,
        ..Default::default()
    };
    assert!(matches!(
        Spe::new(
            &few,
            &seed::ss_tables(),
            &seed::round_keys(&key(), Direction::Encrypt)
        ),
        Err(CellError::Registers { .. })
    ));
}

#[test]
fn report_contract() {
    let r = report_for(&CellConfig::default(), 8 * 1024);
    assert!(r.verified);
    let j: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(j["model"], "cell");
    let rows = j["rows"].as_array().unwrap();
    for name in [
        "Hybrid peak throughput",
        "Hybrid best workload ratio",
        "ALL SIMD best workload ratio",
        "ALL SIMD unbalanced (ratio 1)",
        "Hybrid unbalanced (ratio 1)",
        "speed-up of Hybrid over the PPE alone",
    ] {
        let row = rows.iter().find(|x| x["metric"] == name).expect(name);
        assert!(row["paper"].is_number() && row["deviation"].is_number());
        // The two fit rows (the open parameters are fitted on them); the rest predicted.
        let fit = name.starts_with("Hybrid peak") || name.starts_with("Hybrid best");
        assert_eq!(
            row["kind"],
            if fit { "fitted" } else { "predicted" },
            "{name}"
        );
        if fit {
            assert!(row["deviation"].as_f64().unwrap().abs() < 0.02, "{row}");
        }
    }
    assert_eq!(j["summary"]["fitted"], 2);
    assert!(
        rows.iter()
            .filter(|x| x["metric"].as_str().unwrap().starts_with("sweep:"))
            .count()
            == 42
    );
    assert!(r.to_table().contains("verified against the library"));
}
