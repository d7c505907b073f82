//! The MX-1 model: its ciphertext against the library for every cipher, mode and direction
//! it runs; the scaling laws of sections 4.1 and 5; the mx_xor_h reduction; the report's
//! JSON contract.

use bitweave::{CipherKind, Direction, Mode};
use bitweave_sim::mx1::library::Library;
use bitweave_sim::mx1::matrix::{Fault, CIPHER_PHASE, KEY_PHASE};
use bitweave_sim::mx1::modes;
use bitweave_sim::mx1::scenario::{add_round_key, aes_transformations, bytes, run_sample, MODES};
use bitweave_sim::mx1::Mx1Config;

const KINDS: [CipherKind; 5] = [
    CipherKind::Aes128,
    CipherKind::Aes256,
    CipherKind::Des,
    CipherKind::DesEde,
    CipherKind::DesEde3,
];
const DIRS: [Direction; 2] = [Direction::Encrypt, Direction::Decrypt];

#[test]
fn ciphertext_matches_library_every_cipher_mode_direction() {
    for pes in [1024, 2048] {
        let cfg = Mx1Config::with_pes(pes);
        for kind in KINDS {
            for mode in MODES {
                for dir in DIRS {
                    for lib in [Library::OneBit, Library::MultiBit] {
                        let r = run_sample(&cfg, lib, kind, mode, dir, 2);
                        assert!(
                            r.verified,
                            "{} {} {} {pes} PEs {}",
                            kind.name(),
                            mode.name(),
                            dir.name(),
                            lib.name()
                        );
                        assert_eq!(r.output.len(), 2 * kind.block_size() * pes);
                    }
                }
            }
        }
    }
}

/// One misfiring gate in one PE — a planted fault the model never sets itself — makes the
/// check against the library fail, and corrupts exactly that PE's block: the check is not
/// vacuous, and PE `j` really computes block `j` (the interleaved-bitslice layout).
#[test]
fn a_corrupted_model_is_caught() {
    let key = bytes(1, 8);
    let data = bytes(3, 3 * 8 * 1024);
    let run = |cfg: &Mx1Config, mode: Mode| {
        let iv = bytes(2, modes::iv_len(CipherKind::Des, mode, 1024));
        let r = modes::run(
            cfg,
            Library::OneBit,
            CipherKind::Des,
            &key,
            mode,
            Direction::Encrypt,
            &iv,
            &data,
        );
        (r.verified, r.output)
    };
    let clean = Mx1Config::with_pes(1024);
    let (pe, op) = (37, 500);
    let mut faulty = clean.clone();
    faulty.matrix.fault = Some(Fault { op, pe });
    for mode in [Mode::Ecb, Mode::Cbc] {
        let (ok, good) = run(&clean, mode);
        assert!(ok, "{}: the clean model verifies", mode.name());
        let (ok, bad) = run(&faulty, mode);
        assert!(
            !ok,
            "{}: a flipped gate in PE {pe} went unnoticed",
            mode.name()
        );
        // Which blocks differ: block `pe` of the first batch (op 500 is inside its first
        // DES), and in CBC the same chain's block of every later batch; nothing else.
        let differs: Vec<usize> = (0..data.len() / 8)
            .filter(|&b| good[8 * b..8 * b + 8] != bad[8 * b..8 * b + 8])
            .collect();
        let expect: Vec<usize> = match mode {
            Mode::Ecb => vec![pe],
            _ => vec![pe, 1024 + pe, 2048 + pe],
        };
        assert_eq!(differs, expect, "{}", mode.name());
    }
}

/// Three batches: the chained modes carry their state from one batch to the next.
#[test]
fn batches_chain_through() {
    let cfg = Mx1Config::with_pes(1024);
    let key = bytes(1, 8);
    let long = bytes(4, 3 * 8 * 1024);
    for mode in MODES {
        let iv = bytes(5, modes::iv_len(CipherKind::Des, mode, 1024));
        let t = modes::run(
            &cfg,
            Library::OneBit,
            CipherKind::Des,
            &key,
            mode,
            Direction::Encrypt,
            &iv,
            &long,
        );
        assert!(t.verified, "{}", mode.name());
        assert_eq!(t.batches, 3);
    }
}

fn cpb(pes: usize, kind: CipherKind, mode: Mode, dir: Direction) -> f64 {
    run_sample(
        &Mx1Config::with_pes(pes),
        Library::OneBit,
        kind,
        mode,
        dir,
        2,
    )
    .cycles_per_byte()
}

#[test]
fn doubling_pes_halves_cycles_per_byte() {
    for kind in [CipherKind::Aes128, CipherKind::Des, CipherKind::DesEde3] {
        for mode in MODES {
            let r = cpb(2048, kind, mode, Direction::Encrypt)
                / cpb(1024, kind, mode, Direction::Encrypt);
            assert!(
                (r - 0.5).abs() < 0.005,
                "{} {}: {r}",
                kind.name(),
                mode.name()
            );
        }
    }
}

#[test]
fn triple_des_is_three_des() {
    for dir in DIRS {
        let r = cpb(1024, CipherKind::DesEde3, Mode::Ecb, dir)
            / cpb(1024, CipherKind::Des, Mode::Ecb, dir);
        assert!((r - 3.0).abs() < 0.03, "{}: {r}", dir.name());
    }
}

#[test]
fn modes_within_one_percent_of_ecb() {
    for kind in [CipherKind::Aes128, CipherKind::Des, CipherKind::DesEde3] {
        for dir in DIRS {
            for mode in MODES {
                // CFB, OFB and CTR run the forward cipher in both directions.
                let forward = matches!(mode, Mode::Cfb | Mode::Ofb | Mode::Ctr);
                let ecb_dir = if forward { Direction::Encrypt } else { dir };
                let ecb = cpb(1024, kind, Mode::Ecb, ecb_dir);
                let m = cpb(1024, kind, mode, dir);
                assert!(
                    m > ecb || mode == Mode::Ecb,
                    "{} {}: mode work is not free",
                    kind.name(),
                    mode.name()
                );
                // CTR also steps every PE's counter bit-serially (2 calls per bit above
                // the step's bit): 1.2% for DES against the paper's 0.7% — a reported
                // deviation, so its bound is 1.5%.
                let bound = if mode == Mode::Ctr { 0.015 } else { 0.01 };
                assert!(
                    (m - ecb) / ecb < bound,
                    "{} {}: {m} vs {ecb}",
                    kind.name(),
                    mode.name()
                );
            }
        }
    }
}

#[test]
fn mx_xor_h_fuses_consecutive_xors_per_eq2() {
    // AddRoundKey's shape: 128 consecutive planes XOR key bits = one mx_xor_h call.
    let cfg = Mx1Config::with_pes(1024);
    let c = cfg.matrix.call_cycles;
    let (one, ok1) = add_round_key(&cfg, Library::OneBit);
    let (multi, ok2) = add_round_key(&cfg, Library::MultiBit);
    assert!(ok1 && ok2);
    assert_eq!(one, 128 * c);
    assert_eq!(multi, c + 128);
    assert!(multi < one);
}

#[test]
fn mx_xor_h_never_costs_more_per_des_transformation() {
    let cfg = Mx1Config::with_pes(1024);
    for mode in MODES {
        let one = run_sample(
            &cfg,
            Library::OneBit,
            CipherKind::Des,
            mode,
            Direction::Encrypt,
            2,
        );
        let multi = run_sample(
            &cfg,
            Library::MultiBit,
            CipherKind::Des,
            mode,
            Direction::Encrypt,
            2,
        );
        assert!(one.verified && multi.verified);
        // The same operations run; only their grouping into calls may differ.
        assert_eq!(one.steady.bit_ops, multi.steady.bit_ops);
        assert!(multi.steady.calls <= one.steady.calls);
        for ph in [KEY_PHASE, CIPHER_PHASE, "mode-in", "mode-out"] {
            assert!(
                multi.steady.phase(ph) <= one.steady.phase(ph),
                "{} {ph}",
                mode.name()
            );
        }
        assert!(one.steady.phase(KEY_PHASE) > 0 && one.steady.phase(CIPHER_PHASE) > 0);
    }
}

#[test]
fn aes_transformations_add_up_to_the_cipher_and_mx_xor_h_never_costs_more() {
    let cfg = Mx1Config::with_pes(1024);
    let (ark, sb, mc, ok) = aes_transformations(&cfg, Library::OneBit);
    assert!(ok);
    // With 1-bit calls the per-round parts add up exactly to the whole AES-128 run:
    // 11 AddRoundKeys, 10 SubBytes, 9 MixColumns.
    let full = run_sample(
        &cfg,
        Library::OneBit,
        CipherKind::Aes128,
        Mode::Ecb,
        Direction::Encrypt,
        1,
    );
    assert_eq!(
        11 * ark + 10 * sb + 9 * mc,
        full.steady.phase(KEY_PHASE) + full.steady.phase(CIPHER_PHASE)
    );
    let (ark_h, sb_h, mc_h, ok_h) = aes_transformations(&cfg, Library::MultiBit);
    assert!(ok_h);
    assert!(ark_h <= ark && sb_h <= sb && mc_h <= mc);
}

#[test]
fn report_json_contract() {
    let rep = bitweave_sim::run("mx1").expect("mx1 is registered");
    assert!(rep.verified);
    let v: serde_json::Value = serde_json::from_str(&rep.to_json()).unwrap();
    assert_eq!(v["model"], "mx1");
    assert_eq!(v["verified"], true);
    let rows = v["rows"].as_array().unwrap();
    // 2 ciphers x 2 directions x 2 widths x 5 modes against Table VI.
    let table_vi = rows
        .iter()
        .filter(|r| r["metric"].as_str().unwrap().contains("(Table VI)"))
        .count();
    assert_eq!(table_vi, 40);
    for r in rows {
        for k in ["metric", "unit", "paper", "model", "deviation"] {
            assert!(r.get(k).is_some(), "row lacks {k}: {r}");
        }
        let model = r["model"].as_f64().unwrap();
        assert!(model.is_finite() && model > 0.0, "{r}");
        match r["paper"].as_f64() {
            Some(p) => {
                let d = r["deviation"].as_f64().unwrap();
                assert!((d - (model - p) / p).abs() < 1e-9, "{r}");
            }
            None => assert!(r["deviation"].is_null()),
        }
    }
    let table_i = rows
        .iter()
        .filter(|r| r["metric"].as_str().unwrap().contains("(Table I)"))
        .count();
    assert_eq!(table_i, 20);
    for t in ["Table III", "Table IV", "Table V", "Table VII"] {
        assert!(
            rows.iter()
                .any(|r| r["metric"].as_str().unwrap().contains(t)),
            "{t}"
        );
    }
    assert!(rows
        .iter()
        .any(|r| r["metric"] == "DES enc ECB, 1024 PEs (Table VI)" && r["paper"] == 23.11));
    println!("{}", rep.to_table());
}

/// The per-call cost is the one fitted parameter: fitted on Table IV's SubBytes row, that
/// row is the only one labelled `fitted`, every Table I/VI prediction scales with it, the
/// 2048-PE rows are labelled `derived`, and the JSON carries each row's kind and the
/// headline.
#[test]
fn the_call_cost_is_fitted_on_one_row_and_drives_the_predictions() {
    use bitweave_sim::mx1::scenario::{fit_call_cycles, FIT_ROW_SUBBYTES};
    let fit = fit_call_cycles(&Mx1Config::default());
    assert!(fit.calls > 0);
    assert_eq!(
        fit.call_cycles,
        (FIT_ROW_SUBBYTES / fit.calls as f64).round() as u64
    );
    // Table VI's DES rows have no multi-bit calls: cycles are calls × C exactly.
    let mut one = Mx1Config::with_pes(1024);
    one.matrix.call_cycles = 1;
    let mut fitted = one.clone();
    fitted.matrix.call_cycles = fit.call_cycles;
    let run = |cfg: &Mx1Config| {
        run_sample(
            cfg,
            Library::OneBit,
            CipherKind::Des,
            Mode::Ecb,
            Direction::Encrypt,
            2,
        )
        .cycles_per_byte()
    };
    let ratio = run(&fitted) / run(&one);
    assert!((ratio - fit.call_cycles as f64).abs() < 1e-9, "{ratio}");

    let rep = bitweave_sim::run("mx1").unwrap();
    let v: serde_json::Value = serde_json::from_str(&rep.to_json()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let kind = |r: &serde_json::Value| r["kind"].as_str().unwrap().to_string();
    let fits: Vec<_> = rows.iter().filter(|r| kind(r) == "fitted").collect();
    assert_eq!(fits.len(), 1);
    assert_eq!(fits[0]["paper"], FIT_ROW_SUBBYTES);
    for r in rows {
        let k = kind(r);
        assert!(
            ["derived", "fitted", "predicted"].contains(&k.as_str()),
            "{r}"
        );
        let m = r["metric"].as_str().unwrap();
        if m.contains("2048 PEs (Table I)") || m.contains("2048 PEs (Table VI)") {
            assert_eq!(k, "derived", "{r}");
        }
    }
    let predicted = rows
        .iter()
        .filter(|r| kind(r) == "predicted" && r["deviation"].is_number())
        .count();
    let within = rows
        .iter()
        .filter(|r| kind(r) == "predicted")
        .filter_map(|r| r["deviation"].as_f64())
        .filter(|d| d.abs() <= 0.15)
        .count();
    assert_eq!(v["summary"]["predicted"], predicted);
    assert_eq!(v["summary"]["within_15_percent"], within);
    assert_eq!(v["summary"]["fitted"], 1);
}
