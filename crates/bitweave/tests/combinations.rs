//! Every fast backend against `soft`, the portable reference, as one named test per
//! combination: `aes-128/vaes512/ctr` (every mode, random interleave factors 1-40 and
//! lengths that are not multiples of the batch width) and `aes-128/vaes512/blocks` (raw
//! batches of 0 to 3 widths + 1 blocks), each over 20 random keys. A failure names its
//! cipher, backend and mode; a backend this CPU cannot run is reported as ignored with the
//! features it needs; a coverage summary at the end lists what ran and what could not.
//!
//! A custom harness (`libtest-mimic`) because the combinations come from the registry at
//! run time; filters, `--list`, `--skip` and `--test-threads` work as with `#[test]`.

use bitweave::hazmat::registry::{self, BackendInfo};
use bitweave::{BlockCipher, Cipher, Mode, Suite};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use rand::{Rng, RngCore, SeedableRng};

/// Random keys per combination.
const KEYS: usize = 20;

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    let (mut ran, mut cannot) = (Vec::new(), Vec::new());
    for info in registry::all().iter().filter(|b| b.name != "soft") {
        let label = format!("{} on {}", info.cipher, info.name);
        if info.available() {
            ran.push(label);
        } else {
            cannot.push(format!(
                "{label} (needs {})",
                bitweave::cpu::missing(info.features)
            ));
        }
        trials.push(trial(*info, None));
        for mode in Mode::ALL {
            trials.push(trial(*info, Some(mode)));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let cap = std::env::var("BITWEAVE_CPU")
        .map(|c| format!(" (tier cap BITWEAVE_CPU={c})"))
        .unwrap_or_default();
    eprintln!(
        "\ncoverage{cap}: {} backends compared with soft in every mode: {}",
        ran.len(),
        ran.join(", ")
    );
    if cannot.is_empty() {
        eprintln!(
            "coverage: every backend built for {} ran (the other architecture's are not built)",
            std::env::consts::ARCH
        );
    } else {
        eprintln!(
            "coverage: not run here (this CPU or its tier cap), {}: {}",
            cannot.len(),
            cannot.join(", ")
        );
    }
    conclusion.exit();
}

/// The test of one backend in one mode (`None`: raw batches), ignored with a reason when
/// this CPU cannot run the backend.
fn trial(info: BackendInfo, mode: Option<Mode>) -> Trial {
    let what = mode.map_or("blocks".to_string(), |m| m.to_string());
    let name = format!("{}/{}/{what}", info.cipher, info.name);
    // A seed per combination: a failure reproduces when its test runs alone.
    let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    Trial::ignorable_test(name, move || {
        if !info.available() {
            return Ok(Completion::ignored_with(format!(
                "CPU lacks {}",
                info.needs()
            )));
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for k in 0..KEYS {
            let mut key = vec![0u8; info.cipher.key_len()];
            rng.fill_bytes(&mut key);
            let fast = Cipher::with_backend(info.cipher, &key, Some(info.name))
                .map_err(|e| Failed::from(format!("key {k}: {e}")))?
                .with_threads(1);
            let soft = Cipher::with_backend(info.cipher, &key, Some("soft")).expect("soft");
            match mode {
                None => blocks(&fast, &soft, info.width, &mut rng),
                Some(mode) => one_mode(&fast, &soft, mode, &mut rng),
            }
            .map_err(|e| Failed::from(format!("key {k}: {e}")))?;
        }
        Ok(Completion::Completed)
    })
}

/// Raw batches of 0 ..= 3 widths + 1 blocks, both directions.
fn blocks(
    fast: &Cipher,
    soft: &Cipher,
    width: usize,
    rng: &mut impl RngCore,
) -> Result<(), String> {
    let n = rng.gen_range(0..=3 * width + 1);
    let mut data = vec![0u8; n * fast.block_size()];
    rng.fill_bytes(&mut data);
    let (mut a, mut b) = (data.clone(), data.clone());
    fast.encrypt_blocks(&mut a);
    soft.encrypt_blocks(&mut b);
    same(&a, &b, &format!("encrypt {n} blocks"))?;
    fast.decrypt_blocks(&mut a);
    same(&a, &data, &format!("decrypt {n} blocks"))
}

/// One message in `mode`, a random interleave factor where the mode has one and a random
/// length, both directions.
fn one_mode(
    fast: &Cipher,
    soft: &Cipher,
    mode: Mode,
    rng: &mut impl RngCore,
) -> Result<(), String> {
    let n = if mode.interleavable() {
        rng.gen_range(1..=40)
    } else {
        1
    };
    let params = Suite {
        cipher: fast.kind(),
        mode,
    }
    .params()
    .interleave(n)
    .padding(mode.whole_blocks());
    let mut iv = vec![0u8; params.iv_len(fast.block_size())];
    rng.fill_bytes(&mut iv);
    let len = rng.gen_range(0..if mode == Mode::Cfb1 { 300 } else { 5000 });
    let mut pt = vec![0u8; len];
    rng.fill_bytes(&mut pt);
    let want = params
        .encrypt_all(soft, &iv, &pt)
        .map_err(|e| e.to_string())?;
    let got = params
        .encrypt_all(fast, &iv, &pt)
        .map_err(|e| e.to_string())?;
    same(&got, &want, &format!("encrypt x{n}, {len} bytes"))?;
    let back = params
        .decrypt_all(fast, &iv, &got)
        .map_err(|e| e.to_string())?;
    same(&back, &pt, &format!("decrypt x{n}, {len} bytes"))
}

/// `Ok` if equal, else where they first differ.
fn same(got: &[u8], want: &[u8], what: &str) -> Result<(), String> {
    if got == want {
        return Ok(());
    }
    let at = got.iter().zip(want).position(|(a, b)| a != b);
    Err(match at {
        Some(i) => format!("{what}: first differs from soft at byte {i}"),
        None => format!("{what}: {} bytes, soft gives {}", got.len(), want.len()),
    })
}
