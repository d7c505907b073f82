//! The DBUS pre-scheduled (ShiftRows-ordered) state layout: the reference consumer gives
//! the same ciphertext, and an ignored test measures what the layout saves on this CPU:
//! `cargo test --release -p bitweave --test state_order -- --ignored --nocapture`.

use std::time::Instant;

use bitweave::hazmat::aes::soft::AesSoft;
use bitweave::hazmat::aes::state::to_shift_rows_order;
use bitweave::{BlockCipher, Cipher, CipherKind};
use rand::{RngCore, SeedableRng};

#[test]
fn prescheduled_input_gives_the_same_ciphertext() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for len in [16, 24, 32] {
        let mut key = vec![0u8; len];
        rng.fill_bytes(&mut key);
        let aes = AesSoft::new(&key);
        let mut data = vec![0u8; 16 * 100];
        rng.fill_bytes(&mut data);
        let mut want = data.clone();
        aes.encrypt_blocks(&mut want);
        let mut got = data.clone();
        to_shift_rows_order(&mut got);
        aes.encrypt_prescheduled_blocks(&mut got);
        assert_eq!(got, want, "AES-{}", len * 8);
    }
}

fn ns_per_byte(data: &mut [u8], mut f: impl FnMut(&mut [u8])) -> f64 {
    f(data);
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f(data);
            t.elapsed().as_nanos() as f64 / data.len() as f64
        })
        .fold(f64::MAX, f64::min)
}

#[test]
#[ignore = "a measurement, not a check: run with --ignored --nocapture"]
fn measure_what_the_state_layout_saves() {
    let key = [1u8; 16];
    let soft = AesSoft::new(&key);
    let mut data = vec![7u8; 1 << 20];
    let plain = ns_per_byte(&mut data, |d| soft.encrypt_blocks(d));
    let pre = ns_per_byte(&mut data, |d| soft.encrypt_prescheduled_blocks(d));
    let reorder = ns_per_byte(&mut data, to_shift_rows_order);
    println!("soft T-table, ordinary input:        {plain:.3} ns/B");
    println!(
        "soft T-table, ShiftRows-ordered input: {pre:.3} ns/B ({:+.1}%)",
        (pre / plain - 1.0) * 100.0
    );
    println!("the reordering itself (a CPU 'bus'):   {reorder:.3} ns/B");
    let best = Cipher::new(CipherKind::Aes128, &key).unwrap();
    let fast = ns_per_byte(&mut data, |d| best.encrypt_blocks(d));
    println!(
        "{} ECB (ShiftRows inside AESENC):   {fast:.3} ns/B",
        best.backend()
    );
}
