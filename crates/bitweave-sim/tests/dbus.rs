//! Tests of the DBUS model (paper `dbus-aes-state-transfer-bus.txt`).

use bitweave::{BlockCipher, Cipher, CipherKind};
use bitweave_sim::dbus::address::{
    block_addr, linear_addr, state_addr, state_byte_addr, Len, TransferType, WordOrder,
};
use bitweave_sim::dbus::aes_engine::AesCore;
use bitweave_sim::dbus::bus::{dbus_job, DbusCommand};
use bitweave_sim::dbus::scenario::{run_case, BusKind, ScenarioConfig, TestCase, STATES};
use bitweave_sim::dbus::{address, Width};

fn lane_addrs(job: &bitweave_sim::dbus::dma::Job) -> Vec<Vec<u64>> {
    job.beats
        .iter()
        .map(|b| b.iter().map(|l| l.unwrap().mem).collect())
        .collect()
}

#[test]
fn linear_addresses_follow_eqs_1_and_2() {
    // Unaligned initial address: eq. (1) aligns it to the data size.
    let cmd = DbusCommand {
        addr: 0x103,
        wr: true,
        len: Len::linear(5).unwrap(),
    };
    let job = dbus_job(&cmd, 0, Width::W32, false);
    let firsts: Vec<u64> = lane_addrs(&job).iter().map(|b| b[0]).collect();
    assert_eq!(firsts, vec![0x100, 0x104, 0x108, 0x10c, 0x110]);
    assert_eq!(lane_addrs(&job)[1], vec![0x104, 0x105, 0x106, 0x107]);
    assert_eq!(linear_addr(0x100, 3, 3), 0x118);
    let job64 = dbus_job(&cmd, 0, Width::W64, false);
    assert_eq!(lane_addrs(&job64)[2][0], 0x110);
}

#[test]
fn block_addresses_follow_eq_3() {
    let len = Len::block(3, 2).unwrap();
    assert_eq!(len.transfer_type(), TransferType::Block);
    let cmd = DbusCommand {
        addr: 0x2000,
        wr: false,
        len,
    };
    let job = dbus_job(&cmd, 0x40, Width::W32, false);
    let firsts: Vec<u64> = lane_addrs(&job).iter().map(|b| b[0]).collect();
    assert_eq!(
        firsts,
        vec![0x2000, 0x2004, 0x2040, 0x2044, 0x2080, 0x2084],
        "row-major: row M at M*GAP, column N at N<<DS"
    );
    assert_eq!(block_addr(0x2000, 2, 1, 0x40, 3), 0x2088);
}

#[test]
fn state_addresses_follow_eq_4() {
    // GAP 32: 8 states per state-row; state 9 is state N=1 of state-row M=1.
    assert_eq!(state_addr(0x3000, 1, 1, 32), 0x3000 + 4 * 32 + 4);
    assert_eq!(state_byte_addr(0x3000, 9, 32, 0, 0), 0x3084);
    assert_eq!(state_byte_addr(0x3000, 9, 32, 2, 3), 0x3084 + 2 * 32 + 3);
    let cmd = DbusCommand {
        addr: 0x3000,
        wr: false,
        len: Len::state(2).unwrap(),
    };
    let job = dbus_job(&cmd, 32, Width::W32, false);
    let a = lane_addrs(&job);
    assert_eq!(a.len(), 8, "two states, four words each, one command");
    // Word 0 of state 0 in ShiftRows order: s[0][0], s[1][1], s[2][2], s[3][3].
    assert_eq!(
        a[0],
        vec![0x3000, 0x3000 + 32 + 1, 0x3000 + 64 + 2, 0x3000 + 96 + 3]
    );
    // Word 1: s[0][1], s[1][2], s[2][3], s[3][0].
    assert_eq!(
        a[1],
        vec![0x3001, 0x3000 + 32 + 2, 0x3000 + 64 + 3, 0x3000 + 96]
    );
    // State 1 starts 4 bytes to the right (N << 2).
    assert_eq!(a[4][0], 0x3004);
}

/// FIPS-197 §5.1.2 ShiftRows, written independently: s'[r][c] = s[r][(c + r) mod 4], with
/// the state in column-major byte order.
fn shift_rows_reference(input: &[u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for c in 0..4 {
        for r in 0..4 {
            out[r + 4 * c] = input[r + 4 * ((c + r) % 4)];
        }
    }
    out
}

#[test]
fn state_read_delivers_shift_rows_order_on_rdata() {
    for width in [Width::W32, Width::W64] {
        let cfg = ScenarioConfig::paper(width);
        let out = run_case(&cfg, BusKind::Dbus, TestCase::StateRead);
        assert!(out.verified, "{:?}", out.mismatches);
        // Recover the preloaded states from the returned payload and compare RDATA words.
        let states: Vec<[u8; 16]> = out.run.received[0]
            .chunks(16)
            .map(|c| c.try_into().unwrap())
            .collect();
        assert_eq!(states.len(), STATES);
        let rdata: Vec<u8> = out.run.rdata[0].concat();
        for (k, st) in states.iter().enumerate() {
            assert_eq!(
                &rdata[16 * k..16 * k + 16],
                &shift_rows_reference(st),
                "state {k} at {width:?} on RDATA is ShiftRows(state)"
            );
        }
    }
}

#[test]
fn fig4_example_words() {
    let s: [u8; 16] = core::array::from_fn(|i| i as u8);
    let flat: Vec<u8> = address::state_words(&s, WordOrder::ShiftRows).concat();
    assert_eq!(flat, shift_rows_reference(&s));
    assert_eq!(&flat[..4], &[0x0, 0x5, 0xa, 0xf]);
    // The write order undoes the read order.
    let w = address::state_words(&s, WordOrder::InvShiftRows).concat();
    let w: [u8; 16] = w.try_into().unwrap();
    assert_eq!(shift_rows_reference(&w), s);
}

#[test]
fn state_write_carries_inverse_shifted_words() {
    let cmd = DbusCommand {
        addr: 0x3000,
        wr: true,
        len: Len::state(1).unwrap(),
    };
    let job = dbus_job(&cmd, 32, Width::W32, true);
    let idx: Vec<usize> = job
        .beats
        .iter()
        .flat_map(|b| b.iter().map(|l| l.unwrap().payload))
        .collect();
    // Word 3 = {s[0][3], s[1][2], s[2][1], s[3][0]} = bytes {c, 9, 6, 3} (Fig. 4).
    assert_eq!(&idx[12..], &[0xc, 0x9, 0x6, 0x3]);
}

#[test]
fn engine_matches_the_library_on_random_states() {
    let key: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5a);
    let lib = Cipher::new(CipherKind::Aes128, &key).unwrap();
    let core = AesCore::new(&key);
    let mut x = 0x1234_5678_9abc_def1u64;
    for _ in 0..200 {
        let pt: [u8; 16] = core::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        });
        let mut ct = pt;
        lib.encrypt_blocks(&mut ct);
        let words = address::state_words(&pt, WordOrder::ShiftRows);
        assert_eq!(core.encrypt_preshifted(&words), ct);
        let back = address::state_words(&ct, WordOrder::InvShiftRows);
        assert_eq!(core.decrypt_preselected(&back), pt);
    }
}

#[test]
fn dma_ciphertext_and_plaintext_match_the_library() {
    for width in [Width::W32, Width::W64] {
        let cfg = ScenarioConfig::paper(width);
        for bus in [BusKind::Axi, BusKind::Dbus] {
            for test in [TestCase::Cipher, TestCase::CipherReadBack] {
                let out = run_case(&cfg, bus, test);
                assert!(
                    out.verified,
                    "{width:?} {bus:?} {test:?}: {:?}",
                    out.mismatches
                );
                assert_eq!(out.states_encrypted, STATES as u64);
                assert_eq!(out.states_decrypted, STATES as u64);
            }
        }
        // A different key gives different ciphertext, and the check still holds.
        let mut other = cfg.clone();
        other.key[0] ^= 1;
        assert!(run_case(&other, BusKind::Dbus, TestCase::Cipher).verified);
    }
}

#[test]
fn dbus_never_needs_more_command_cycles_than_axi() {
    for width in [Width::W32, Width::W64] {
        let cfg = ScenarioConfig::paper(width);
        for test in [
            TestCase::Linear,
            TestCase::Block,
            TestCase::Cipher,
            TestCase::CipherReadBack,
        ] {
            let a = run_case(&cfg, BusKind::Axi, test);
            let d = run_case(&cfg, BusKind::Dbus, test);
            assert!(
                d.run.command_cycles <= a.run.command_cycles,
                "{width:?} {test:?}: DBUS {} > AXI {}",
                d.run.command_cycles,
                a.run.command_cycles
            );
            assert_eq!(d.run.commands, 2, "one command per transfer on DBUS");
        }
        // AXI needs a new address at every non-contiguous boundary: a block transfer of 10
        // rows needs at least 10 addresses per direction.
        let a = run_case(&cfg, BusKind::Axi, TestCase::Block);
        assert!(a.run.commands >= 20);
    }
}

#[test]
fn back_pressure_costs_cycles_but_loses_no_data() {
    for width in [Width::W32, Width::W64] {
        for bus in [BusKind::Axi, BusKind::Dbus] {
            for test in [TestCase::Linear, TestCase::Block, TestCase::Cipher] {
                let cfg = ScenarioConfig::paper(width);
                let base = run_case(&cfg, bus, test);
                let mut stalled_cfg = cfg.clone();
                stalled_cfg.stalls.write_ready_low = (3..60).step_by(3).collect();
                stalled_cfg.stalls.read_valid_low = (4..200).step_by(2).collect();
                let stalled = run_case(&stalled_cfg, bus, test);
                assert!(
                    stalled.verified,
                    "{width:?} {bus:?} {test:?}: {:?}",
                    stalled.mismatches
                );
                assert!(
                    stalled.run.cycles > base.run.cycles,
                    "{width:?} {bus:?} {test:?}: {} vs {}",
                    stalled.run.cycles,
                    base.run.cycles
                );
                assert!(stalled.run.write_wait_cycles > 0);
            }
        }
    }
}

#[test]
fn fig1_write_ready_low_for_two_cycles_holds_wd2_for_two_cycles() {
    let cfg = ScenarioConfig::paper(Width::W32);
    let base = run_case(&cfg, BusKind::Dbus, TestCase::Linear);
    let mut c = cfg.clone();
    c.stalls.write_ready_low = [5, 6].into();
    let out = run_case(&c, BusKind::Dbus, TestCase::Linear);
    assert!(out.verified);
    assert_eq!(base.run.write_wait_cycles, 0);
    assert_eq!(out.run.write_wait_cycles, 2);
}

#[test]
fn a_slow_engine_back_pressures_the_bus_without_losing_data() {
    let mut cfg = ScenarioConfig::paper(Width::W32);
    cfg.dma.decrypt_engine = bitweave_sim::dbus::aes_engine::AesTiming::paper_32_unpipelined();
    cfg.dma.encrypt_engine = cfg.dma.decrypt_engine;
    let fast = run_case(
        &ScenarioConfig::paper(Width::W32),
        BusKind::Dbus,
        TestCase::Cipher,
    );
    let slow = run_case(&cfg, BusKind::Dbus, TestCase::Cipher);
    assert!(slow.verified, "{:?}", slow.mismatches);
    assert!(
        slow.run.write_wait_cycles > 0,
        "RESP[1] went low: the FIFO filled"
    );
    // 10 states, 80 cycles each through one iterative round unit.
    assert!(slow.run.cycles >= 10 * 80);
    assert!(slow.run.cycles > 5 * fast.run.cycles);
}

#[test]
fn axi_waits_for_a_whole_state_dbus_does_not() {
    // Same engine, same data: the difference is the state buffering (DBUS starts a state on
    // its first word, AXI after its last row) and the clock.
    for width in [Width::W32, Width::W64] {
        let cfg = ScenarioConfig::paper(width);
        let a = run_case(&cfg, BusKind::Axi, TestCase::Cipher);
        let d = run_case(&cfg, BusKind::Dbus, TestCase::Cipher);
        assert!(d.run.cycles < a.run.cycles, "{width:?}");
        assert!(d.valid_bandwidth_gbps > a.valid_bandwidth_gbps);
    }
}

#[test]
fn report_json_has_the_contract_fields() {
    let report = bitweave_sim::run("dbus").unwrap();
    assert!(report.verified, "{:?}", report.notes);
    let v: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(v["model"], "dbus");
    assert_eq!(v["verified"], true);
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() >= 36);
    let mut with_paper = 0;
    for r in rows {
        assert!(r["metric"].is_string());
        assert!(r["unit"].is_string());
        assert!(r["model"].is_number());
        assert!(r["paper"].is_number() || r["paper"].is_null());
        assert!(r["deviation"].is_number() || r["deviation"].is_null());
        if let (Some(p), Some(m)) = (r["paper"].as_f64(), r["model"].as_f64()) {
            with_paper += 1;
            let d = r["deviation"].as_f64().unwrap();
            assert!((d - (m - p) / p).abs() < 1e-12);
        }
    }
    // Table III: 12 bandwidths and 6 ratios, and the 12 cycle counts they imply.
    assert_eq!(with_paper, 30);
    let derived_cycles = rows
        .iter()
        .filter(|r| r["kind"] == "derived" && r["paper"].is_number())
        .count();
    assert_eq!(derived_cycles, 12);
    let table = report.to_table();
    assert!(table.contains("32-bit cipher DBUS valid bandwidth"));
}
