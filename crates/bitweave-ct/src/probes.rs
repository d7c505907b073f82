//! The timing test's targets: what one timed call does and what its secret input is.
//!
//! Names follow ctgrind's (`aes-128/sliced512`, `pi32cipher128v2/avx512`, `leak/table`),
//! plus `tags_equal` and `pkcs7` for the two comparisons.
//!
//! Every probe copies its class input into one buffer it owns before working on it, so
//! the two classes run on the same addresses with the same alignment: only the values
//! differ.

use std::time::Duration;

use bitweave::aead::gcm::{AesGcm, GhashBackend};
use bitweave::aead::{tags_equal, PiBackend, PiCipher, PiVariant};
use bitweave::hazmat::registry::{self, BackendInfo};
use bitweave::mode::padding;
use bitweave::{BlockCipher, CipherKind};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};

use crate::leaky;
use crate::ttest::{measure, Probe, Verdict};

/// AES-GCM message bytes per call: two 512-byte groups for `clmul512`'s zmm kernel, a
/// 256-byte group for `clmul256`'s, then eight-block groups, single blocks and a partial
/// one.
const GCM_BYTES: usize = 1024 + 256 + 128 + 48 + 5;

/// The GHASH backends valgrind cannot run (VPCLMULQDQ), as timing targets.
pub const GCM_TARGETS: [&str; 2] = ["aes-256-gcm/ghash-clmul256", "aes-256-gcm/ghash-clmul512"];

/// AES-256-GCM encryption on a named GHASH backend (AES on the default backend); secret:
/// the key, so the hash key H and its powers, and the message. Key setup happens while
/// the input is prepared, untimed: its soft multiplies would bury the hash's time.
struct Gcm {
    ghash: GhashBackend,
    fixed: Vec<u8>,
    /// The one buffer both classes' messages are encrypted in.
    buf: Vec<u8>,
}

impl Probe for Gcm {
    type Input = (AesGcm, Vec<u8>);
    fn input_len(&self) -> usize {
        32 + GCM_BYTES
    }
    fn fixed(&self) -> Vec<u8> {
        self.fixed.clone()
    }
    fn prepare(&self, bytes: &[u8]) -> Self::Input {
        let gcm = AesGcm::with_ghash(&bytes[..32], self.ghash).expect("checked available");
        (gcm, bytes[32..].to_vec())
    }
    fn run(&mut self, (gcm, message): &Self::Input) {
        self.buf.copy_from_slice(message);
        let tag = gcm.encrypt_in_place(&[7; 12], &[], &mut self.buf);
        std::hint::black_box(&self.buf);
        std::hint::black_box(tag.expect("the length is in range"));
    }
}

/// Blocks per call: a few (a wide backend pads them to its width inside the call).
const BLOCKS: usize = 4;

/// Key setup, then encryption and decryption of a few blocks; secret: key and data.
struct Block {
    info: BackendInfo,
    fixed: Vec<u8>,
    /// The one buffer both classes' data is encrypted in.
    buf: Vec<u8>,
}

impl Probe for Block {
    type Input = Vec<u8>;
    fn input_len(&self) -> usize {
        self.info.cipher.key_len() + BLOCKS * self.info.cipher.block_size()
    }
    fn fixed(&self) -> Vec<u8> {
        self.fixed.clone()
    }
    fn prepare(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn run(&mut self, input: &Vec<u8>) {
        self.buf.copy_from_slice(input);
        let (key, data) = self.buf.split_at_mut(self.info.cipher.key_len());
        let c = self.info.build(key);
        c.encrypt_blocks(data);
        c.decrypt_blocks(data);
        std::hint::black_box(&self.buf);
    }
}

/// π-Cipher: key setup, encryption, and decryption of a forged ciphertext (the failure
/// path, tag check included); secret: key, nonce, SMN, data.
struct Pi {
    var: PiVariant,
    backend: &'static str,
    fixed: Vec<u8>,
    /// The one set of buffers both classes run from.
    buf: PiInput,
}

const PI_MSG: usize = 48;

#[derive(Default)]
struct PiInput {
    key: Vec<u8>,
    npub: Vec<u8>,
    nsec: Vec<u8>,
    msg: Vec<u8>,
    forged: Vec<u8>,
}

impl Probe for Pi {
    type Input = PiInput;
    fn input_len(&self) -> usize {
        self.var.key_len() + self.var.npub_len() + self.var.nsec_len() + PI_MSG
    }
    fn fixed(&self) -> Vec<u8> {
        self.fixed.clone()
    }
    fn prepare(&self, bytes: &[u8]) -> PiInput {
        let v = self.var;
        let (key, rest) = bytes.split_at(v.key_len());
        let (npub, rest) = rest.split_at(v.npub_len());
        let (nsec, msg) = rest.split_at(v.nsec_len());
        let pi = PiCipher::with_backend(v, key, Some(self.backend)).expect("checked available");
        let mut forged = pi
            .encrypt(npub, nsec, b"ad", msg)
            .expect("lengths are right");
        let last = forged.len() - 1;
        forged[last] ^= 1;
        PiInput {
            key: key.to_vec(),
            npub: npub.to_vec(),
            nsec: nsec.to_vec(),
            msg: msg.to_vec(),
            forged,
        }
    }
    fn run(&mut self, input: &PiInput) {
        let i = &mut self.buf;
        for (to, from) in [
            (&mut i.key, &input.key),
            (&mut i.npub, &input.npub),
            (&mut i.nsec, &input.nsec),
            (&mut i.msg, &input.msg),
            (&mut i.forged, &input.forged),
        ] {
            to.resize(from.len(), 0);
            to.copy_from_slice(from);
        }
        let pi = PiCipher::with_backend(self.var, &i.key, Some(self.backend)).expect("available");
        let c = pi.encrypt(&i.npub, &i.nsec, b"ad", &i.msg);
        let d = pi.decrypt(&i.npub, b"ad", &i.forged);
        std::hint::black_box((c.is_ok(), d.is_err()));
    }
}

/// A tag comparison against a secret tag: the fixed class differs only in the last
/// byte, the random class (almost always) in the first — an early exit shows.
struct Compare {
    secret: Vec<u8>,
    leaky: bool,
    buf: Vec<u8>,
}

impl Probe for Compare {
    type Input = Vec<u8>;
    fn input_len(&self) -> usize {
        self.secret.len()
    }
    fn fixed(&self) -> Vec<u8> {
        let mut f = self.secret.clone();
        *f.last_mut().unwrap() ^= 1;
        f
    }
    fn prepare(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn run(&mut self, b: &Vec<u8>) {
        self.buf.copy_from_slice(b);
        let r = if self.leaky {
            leaky::early_exit_eq(&self.secret, &self.buf)
        } else {
            tags_equal(&self.secret, &self.buf)
        };
        std::hint::black_box(r);
    }
}

/// The PKCS#7 check of a decrypted last block. Both classes are bad pads, so the
/// verdict (public by design) is the same and only *where* the pad goes wrong differs:
/// the fixed class has a 5-byte pad wrong in its first byte, the random class random
/// bytes (made invalid when they happen to be a valid pad).
struct Pkcs7 {
    buf: [u8; 16],
}

impl Probe for Pkcs7 {
    type Input = Vec<u8>;
    fn input_len(&self) -> usize {
        16
    }
    fn fixed(&self) -> Vec<u8> {
        let mut b = vec![0x3c; 16];
        b[11..].fill(5);
        b[11] = 4;
        b
    }
    fn prepare(&self, bytes: &[u8]) -> Vec<u8> {
        let mut b = bytes.to_vec();
        if padding::unpad_len(&b).is_ok() {
            b[15] = 0;
        }
        b
    }
    fn run(&mut self, b: &Vec<u8>) {
        self.buf.copy_from_slice(b);
        std::hint::black_box(padding::unpad_len(std::hint::black_box(&self.buf)).is_ok());
    }
}

/// A secret-indexed lookup (the planted leak): 16-bit secret indices into a 4 MiB
/// table, one cache line per entry. (A 16 KiB table indexed by bytes stays in L1 between
/// calls here and shows no timing difference without an attacker evicting it; ctgrind
/// flags both.)
struct Table {
    table: Vec<u8>,
    fixed: Vec<u8>,
    buf: Vec<u8>,
}

impl Probe for Table {
    type Input = Vec<u8>;
    fn input_len(&self) -> usize {
        16
    }
    fn fixed(&self) -> Vec<u8> {
        self.fixed.clone()
    }
    fn prepare(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn run(&mut self, s: &Vec<u8>) {
        self.buf.copy_from_slice(s);
        std::hint::black_box(leaky::table_lookup(&self.table, &self.buf));
    }
}

/// One secret branch (`leak/branch`): the smallest control-flow leak.
struct Branch {
    fixed: Vec<u8>,
    buf: [u8; 1],
}

impl Probe for Branch {
    type Input = Vec<u8>;
    fn input_len(&self) -> usize {
        1
    }
    fn fixed(&self) -> Vec<u8> {
        self.fixed.clone()
    }
    fn prepare(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn run(&mut self, s: &Vec<u8>) {
        self.buf.copy_from_slice(s);
        std::hint::black_box(leaky::one_secret_branch(self.buf[0], 7));
    }
}

/// One lookup at a secret nibble into a 256-byte, 16-entry table (`leak/table16`): the
/// smallest table leak. The attacker keeps the first two of its four lines cached and
/// flushes the other two between calls (as Flush+Reload and Prime+Probe attackers
/// arrange the cache), so the secret's row shows as a hit or a miss. Without that, the
/// table simply stays in L1 and no timer sees anything.
struct SmallTable {
    /// 256 bytes of table starting on a cache line.
    storage: Vec<u8>,
    start: usize,
    fixed: Vec<u8>,
    buf: [u8; 1],
}

impl SmallTable {
    fn new(fixed: Vec<u8>) -> Self {
        let (rows, row) = leaky::SMALL_TABLE;
        let storage = vec![1u8; rows * row + leaky::LINE];
        let start = storage.as_ptr().align_offset(leaky::LINE);
        SmallTable {
            storage,
            start,
            fixed,
            buf: [0],
        }
    }
    fn table(&self) -> &[u8] {
        let (rows, row) = leaky::SMALL_TABLE;
        &self.storage[self.start..self.start + rows * row]
    }
}

impl Probe for SmallTable {
    type Input = Vec<u8>;
    fn input_len(&self) -> usize {
        1
    }
    fn fixed(&self) -> Vec<u8> {
        self.fixed.clone()
    }
    fn prepare(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn run(&mut self, s: &Vec<u8>) {
        self.buf.copy_from_slice(s);
        std::hint::black_box(leaky::small_table_lookup(self.table(), self.buf[0]));
    }
    fn between_calls(&mut self) {
        let t = self.table();
        let half = t.len() / 2;
        for line in t[..half].chunks(leaky::LINE) {
            std::hint::black_box(line[0]);
        }
        for line in t[half..].chunks(leaky::LINE) {
            evict(&line[0]);
        }
    }
}

/// Bytes per mode-kernel call: 16 AES blocks (32 DES blocks), plus a partial block for
/// the stream modes so their tail paths run too; the `mode-16k/` targets run 16 KiB, which
/// reaches the kernels only large calls take on a CPU with VAES-512 (`vendor_tuning` in
/// the AES backend): AMD's counter-mode groups from 16 KiB and its VAES-512 decryption
/// from 1 KiB (256 bytes reach Intel's, from 128 B, and both vendors' counter-mode
/// register kernel).
const MODE_BYTES: usize = 256;
const MODE_BYTES_LARGE: usize = 16384;

/// A mode kernel of a cipher's default backend, through the `Crypter` users get
/// (`mode/aes-128-ctr-enc`, `mode/des-ede3-cbc-enc`, ...): fixed key, secret: the IV and
/// the data. One call runs the mode over [`MODE_BYTES`] (+ 5 for CTR, CFB, CFB8 and OFB).
struct ModeKernel {
    cipher: bitweave::Cipher,
    params: bitweave::ModeParams,
    dir: bitweave::Direction,
    iv_len: usize,
    len: usize,
    fixed: Vec<u8>,
    buf: Vec<u8>,
    out: Vec<u8>,
}

impl ModeKernel {
    fn new(
        suite: bitweave::Suite,
        dir: bitweave::Direction,
        key: &[u8],
        bytes: usize,
    ) -> ModeKernel {
        let kind = suite.cipher;
        let cipher = bitweave::Cipher::new(kind, &key[..kind.key_len()]).expect("key length");
        let params = suite.params().padding(false);
        let stream = !suite.mode.whole_blocks();
        let len = bytes + if stream { 5 } else { 0 };
        let iv_len = params.iv_len(kind.block_size());
        ModeKernel {
            cipher,
            params,
            dir,
            iv_len,
            len,
            fixed: Vec::new(),
            buf: vec![0; iv_len + len],
            out: Vec::with_capacity(len + 64),
        }
    }
}

impl Probe for ModeKernel {
    type Input = Vec<u8>;
    fn input_len(&self) -> usize {
        self.iv_len + self.len
    }
    fn fixed(&self) -> Vec<u8> {
        self.fixed.clone()
    }
    fn prepare(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn run(&mut self, input: &Vec<u8>) {
        self.buf.copy_from_slice(input);
        let (iv, data) = self.buf.split_at(self.iv_len);
        let mut c = self
            .params
            .crypter(&self.cipher, self.dir, iv)
            .expect("IV length");
        self.out.clear();
        c.update(data, &mut self.out);
        c.finish(&mut self.out).expect("unpadded");
        std::hint::black_box(&self.out);
    }
}

/// The mode-kernel targets: each mode's fused or serial kernel on the cipher's default
/// backend for this CPU (CTR, CBC/CFB decryption rows, the serial CBC/CFB8/OFB chains),
/// and the kernels that only large calls reach.
pub const MODE_KERNELS: [&str; 15] = [
    "mode-16k/aes-128-ctr-enc",
    "mode-16k/aes-128-cbc-dec",
    "mode-16k/aes-128-cfb-dec",
    "mode/aes-128-ctr-enc",
    "mode/aes-256-ctr-enc",
    "mode/aes-128-cbc-dec",
    "mode/aes-128-cfb-dec",
    "mode/aes-128-cbc-enc",
    "mode/aes-128-cfb8-enc",
    "mode/aes-128-ofb-enc",
    "mode/des-ede3-cbc-enc",
    "mode/des-ede3-ctr-enc",
    "mode/des-ede3-cfb8-enc",
    "mode/seed-cbc-enc",
    "mode/seed-ctr-enc",
];

/// `soft` AES, the table-based reference (`leak/aes-soft`), encrypting one block under a
/// fixed key, secret: the block. Between calls the attacker flushes its four encryption
/// T-tables (every line, as Flush+Reload does), so the lines the block's lookups touch come from memory
/// and their number depends on the secret. Without the flush the 4 KiB tables stay in L1
/// and no timer sees them (probes above). The check must flag it: a backend with a
/// table lookup at a secret index is what it exists to catch.
struct SoftAes {
    cipher: bitweave::Cipher,
    fixed: Vec<u8>,
    buf: [u8; 16],
}

impl Probe for SoftAes {
    type Input = Vec<u8>;
    fn input_len(&self) -> usize {
        16
    }
    fn fixed(&self) -> Vec<u8> {
        self.fixed.clone()
    }
    fn prepare(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn run(&mut self, s: &Vec<u8>) {
        self.buf.copy_from_slice(s);
        self.cipher.encrypt_blocks(&mut self.buf);
        std::hint::black_box(&self.buf);
    }
    fn between_calls(&mut self) {
        // Every line the encryption tables touch, whatever their alignment.
        let [te, _] = bitweave::hazmat::aes::soft::tables();
        let start = te.as_ptr() as usize & !(leaky::LINE - 1);
        let end = te.as_ptr() as usize + std::mem::size_of_val(te);
        for line in (start..end).step_by(leaky::LINE) {
            evict_line(line);
        }
    }
}

/// Flushes the cache line at address `line` from every level.
fn evict_line(line: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: clflush is in x86-64's baseline (SSE2); it does not fault on any address
    // and writes nothing, and `line` lies within (or on the line of) a live static table.
    unsafe {
        std::arch::x86_64::_mm_clflush(line as *const u8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::hint::black_box(line);
}

/// Flushes the cache line holding `byte` from every level.
fn evict(byte: &u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: clflush and mfence are in x86-64's baseline (SSE2); the address is a live
    // reference.
    unsafe {
        std::arch::x86_64::_mm_clflush(byte);
        std::arch::x86_64::_mm_mfence();
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::hint::black_box(byte);
}

/// Every timing target name: each constant-time backend, π-Cipher's vectorised
/// backends, the two comparisons, the VPCLMULQDQ GHASH backends, and the controls.
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = registry::all()
        .iter()
        .filter(|b| b.constant_time)
        .map(|b| format!("{}/{}", b.cipher.name(), b.name))
        .collect();
    for var in PiVariant::ALL {
        // Every vectorised backend, NEON's included: on a CPU without it the target is
        // reported as skipped.
        for b in PiBackend::ALL
            .into_iter()
            .filter(|&b| b != PiBackend::Reference)
        {
            v.push(format!("{}/{}", var.name(), b.name()));
        }
    }
    for n in ["tags_equal", "pkcs7"]
        .into_iter()
        .chain(GCM_TARGETS)
        .chain(MODE_KERNELS)
        .chain(CONTROLS)
    {
        v.push(n.into());
    }
    v
}

/// The planted leaks: a check that cannot flag each of them on every run has lost its
/// teeth. `leak/table` (4 MiB, many lines per call) and the 64- and 16-byte early-exit
/// compares are large; `leak/branch` and `leak/table16` are the smallest leaks of each
/// kind that we can construct; `leak/aes-soft` is a real cipher, the table-based `soft`
/// AES, under an attacker who flushes its T-tables between calls.
pub const CONTROLS: [&str; 6] = [
    "leak/table",
    "leak/compare",
    "leak/compare16",
    "leak/branch",
    "leak/table16",
    "leak/aes-soft",
];

/// The outcome of timing one target.
#[derive(Debug)]
pub enum Outcome {
    Ran(Verdict),
    /// The CPU cannot run the target's backend: what it lacks.
    Skipped(String),
}

/// Times target `name` for `budget`. `Err` for an unknown name.
pub fn run(name: &str, budget: Duration, seed: u64) -> Result<Outcome, String> {
    let mut rng = StdRng::seed_from_u64(seed);
    // The fixed class's values (and the secret tag) come from the seed too.
    let fixed = |n: usize| {
        let mut f = vec![0u8; n];
        StdRng::seed_from_u64(seed ^ n as u64).fill_bytes(&mut f);
        f
    };
    let secret = fixed(64);
    let table_fixed = fixed(16);
    let verdict = match name {
        "tags_equal" | "leak/compare" | "leak/compare16" => measure(
            &mut Compare {
                // 64 bytes (π64's tag), or 16 (an AES-GCM-sized tag: a smaller leak).
                secret: if name == "leak/compare16" {
                    secret[..16].to_vec()
                } else {
                    secret
                },
                leaky: name != "tags_equal",
                buf: vec![0; if name == "leak/compare16" { 16 } else { 64 }],
            },
            budget,
            &mut rng,
        ),
        "pkcs7" => measure(&mut Pkcs7 { buf: [0; 16] }, budget, &mut rng),
        "leak/table" => measure(
            &mut Table {
                table: vec![1u8; leaky::TABLE_BYTES],
                fixed: table_fixed,
                buf: vec![0; 16],
            },
            budget,
            &mut rng,
        ),
        "leak/branch" => measure(
            &mut Branch {
                fixed: fixed(1),
                buf: [0],
            },
            budget,
            &mut rng,
        ),
        "leak/table16" => measure(&mut SmallTable::new(fixed(1)), budget, &mut rng),
        _ if name.starts_with("mode/") || name.starts_with("mode-16k/") => {
            let (kind, rest) = name.split_once('/').expect("checked");
            let bytes = if kind == "mode" {
                MODE_BYTES
            } else {
                MODE_BYTES_LARGE
            };
            let (suite, dir) = rest
                .rsplit_once('-')
                .ok_or_else(|| format!("unknown target {name}"))?;
            let suite: bitweave::Suite = suite
                .parse()
                .map_err(|_| format!("unknown target {name}"))?;
            let dir = match dir {
                "enc" => bitweave::Direction::Encrypt,
                "dec" => bitweave::Direction::Decrypt,
                _ => return Err(format!("unknown target {name}")),
            };
            let mut p = ModeKernel::new(suite, dir, &fixed(32), bytes);
            p.fixed = fixed(p.input_len());
            measure(&mut p, budget, &mut rng)
        }
        _ if name.starts_with("aes-256-gcm/ghash-") => {
            let backend = &name["aes-256-gcm/ghash-".len()..];
            let ghash = GhashBackend::ALL
                .into_iter()
                .find(|b| b.name() == backend)
                .ok_or_else(|| format!("unknown target {name}"))?;
            if !ghash.available() {
                return Ok(Outcome::Skipped(ghash.needs().into()));
            }
            let mut p = Gcm {
                ghash,
                fixed: fixed(32 + GCM_BYTES),
                buf: vec![0; GCM_BYTES],
            };
            measure(&mut p, budget, &mut rng)
        }
        "leak/aes-soft" => measure(
            &mut SoftAes {
                cipher: bitweave::Cipher::with_backend(
                    CipherKind::Aes128,
                    &secret[..16],
                    Some("soft"),
                )
                .expect("soft runs everywhere"),
                fixed: fixed(16),
                buf: [0; 16],
            },
            budget,
            &mut rng,
        ),
        _ => {
            let (cipher, backend) = name
                .split_once('/')
                .ok_or_else(|| format!("unknown target {name}"))?;
            if let Ok(var) = cipher.parse::<PiVariant>() {
                let b = PiBackend::ALL
                    .into_iter()
                    .find(|b| b.name() == backend)
                    .ok_or_else(|| format!("unknown target {name}"))?;
                if !b.available() {
                    return Ok(Outcome::Skipped(b.needs()));
                }
                let mut p = Pi {
                    var,
                    backend: b.name(),
                    fixed: Vec::new(),
                    buf: PiInput::default(),
                };
                p.fixed = fixed(p.input_len());
                measure(&mut p, budget, &mut rng)
            } else {
                let kind: CipherKind = cipher
                    .parse()
                    .map_err(|_| format!("unknown target {name}"))?;
                let info = registry::all()
                    .iter()
                    .find(|b| b.cipher == kind && b.name == backend)
                    .ok_or_else(|| format!("unknown target {name}"))?;
                if !info.available() {
                    return Ok(Outcome::Skipped(info.needs()));
                }
                let len = kind.key_len() + BLOCKS * kind.block_size();
                let mut p = Block {
                    info: *info,
                    fixed: fixed(len),
                    buf: vec![0; len],
                };
                measure(&mut p, budget, &mut rng)
            }
        }
    };
    Ok(Outcome::Ran(verdict))
}
