//! The peers measured beside bitweave in the same run: OpenSSL's libcrypto and libgcrypt,
//! each behind its cargo feature. A peer this build leaves out is [`Absent`]: its rows
//! show no figure, and the bench's header says it was not built in.

use bitweave::{Direction, Suite};

#[cfg(feature = "gcrypt")]
pub mod gcrypt;
#[cfg(feature = "openssl")]
mod openssl;

#[cfg(feature = "gcrypt")]
pub use self::gcrypt::GcmPeer as GcryptGcm;
#[cfg(feature = "gcrypt")]
pub use self::gcrypt::Peer as Gcrypt;
#[cfg(feature = "openssl")]
pub use self::openssl::GcmPeer as OpenSslGcm;
#[cfg(feature = "openssl")]
pub use self::openssl::Peer as OpenSsl;
#[cfg(not(feature = "gcrypt"))]
pub use Absent as Gcrypt;
#[cfg(not(feature = "gcrypt"))]
pub use Absent as GcryptGcm;
#[cfg(not(feature = "openssl"))]
pub use Absent as OpenSslGcm;
#[cfg(not(feature = "openssl"))]
pub use Absent as OpenSsl;

/// A peer this build left out (its feature is off): never constructed, so the
/// measurement loop's calls through it cost nothing and the row shows no figure. A
/// concrete type rather than a trait object: a virtual call would be charged to the
/// peers' 16-byte rows.
pub enum Absent {}

impl Absent {
    /// Always `None`: the peer is not built in.
    pub fn new(_: &Suite, _: Direction, _: &[u8], _: &[u8]) -> Option<Absent> {
        None
    }

    /// Unreachable: no value exists.
    pub fn update_in_place(&mut self, _: &mut [u8], _: usize) {
        match *self {}
    }

    /// Always `None` (the AES-GCM peers' constructor).
    pub fn with_key(_: &[u8]) -> Option<Absent> {
        None
    }

    /// Unreachable: no value exists.
    pub fn encrypt(&mut self, _: &[u8; 12], _: &[u8], _: &mut [u8], _: &mut [u8; 16]) {
        match *self {}
    }

    /// Unreachable: no value exists.
    pub fn decrypt(&mut self, _: &[u8; 12], _: &[u8], _: &mut [u8], _: &[u8; 16]) -> bool {
        match *self {}
    }
}

/// The peers built in, with their versions, for the bench's header.
pub fn versions() -> String {
    #[cfg(feature = "openssl")]
    let openssl = Some(::openssl::version::version().to_string());
    #[cfg(not(feature = "openssl"))]
    let openssl: Option<String> = None;
    #[cfg(feature = "gcrypt")]
    let gcrypt = Some(format!("libgcrypt {}", gcrypt::version()));
    #[cfg(not(feature = "gcrypt"))]
    let gcrypt: Option<String> = None;
    let built: Vec<String> = [openssl, gcrypt].into_iter().flatten().collect();
    if built.is_empty() {
        "none (built without the openssl and gcrypt features)".to_string()
    } else {
        built.join(", ")
    }
}

/// Why the peer's tier may differ from bitweave's under a `BITWEAVE_CPU` cap.
pub fn cap_note() -> String {
    let gcrypt = cfg!(feature = "gcrypt")
        .then(|| "libgcrypt capped alike (GCRYCTL_DISABLE_HWF)".to_string());
    let openssl = cfg!(feature = "openssl").then(|| {
        if std::env::var_os(OPENSSL_CAP).is_some() {
            format!("OpenSSL by {OPENSSL_CAP}")
        } else {
            let hint = match bitweave::cpu::cap().ok().flatten().and_then(openssl_mask) {
                Some(mask) => format!("run with {OPENSSL_CAP}=\"{mask}\" to cap it alike"),
                None => format!("set {OPENSSL_CAP} too"),
            };
            format!("OpenSSL NOT capped (it reads {OPENSSL_CAP} when it loads: {hint})")
        }
    });
    let notes: Vec<String> = [gcrypt, openssl].into_iter().flatten().collect();
    if notes.is_empty() {
        "no peers built in".to_string()
    } else {
        notes.join("; ")
    }
}

/// The variable through which OpenSSL takes a CPU-feature mask at load.
const OPENSSL_CAP: &str = "OPENSSL_ia32cap";

/// The `OPENSSL_ia32cap` mask that holds OpenSSL to an x86 tier, as the README's capped
/// measurements set it (the second word is CPUID leaf 7's EBX and ECX): `avx2-gfni` and
/// `avx2` clear AVX-512 (F, DQ, IFMA, CD, BW, VL, VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ;
/// OpenSSL 3.0 has no GFNI code, so `avx2` leaves that bit as the README's figures were
/// taken); `avx2-novaes` VAES and VPCLMULQDQ too; `aesni` the whole leaf, AVX2 with it. OpenSSL 3.0's AES,
/// DES and SEED ran the same with and without them on the Xeon family 6 model 207
/// (2026-12-02); a build with wider AES code would not.
fn openssl_mask(tier: bitweave::cpu::Tier) -> Option<&'static str> {
    use bitweave::cpu::Tier;
    match tier {
        Tier::Avx2Gfni | Tier::Avx2 => Some(":~0x5842DC230000"),
        Tier::Avx2NoVaes => Some(":~0x5E42DC230000"),
        Tier::Aesni => Some(":0"),
        _ => None,
    }
}

/// What OpenSSL was told about the CPU, when someone told it anything, for the bench's
/// header: its column is then measured on that mask. An empty value is a mask of zero, so
/// OpenSSL runs without AES-NI or any vector unit (an unset shell variable passed on does
/// that, and made OpenSSL read 33× slower than bitweave).
pub fn openssl_cap() -> Option<String> {
    if !cfg!(feature = "openssl") {
        return None;
    }
    let value = std::env::var_os(OPENSSL_CAP)?;
    Some(if value.is_empty() {
        format!("{OPENSSL_CAP} is set but empty: OpenSSL runs with no CPU features at all")
    } else {
        format!("OpenSSL under {OPENSSL_CAP}={}", value.to_string_lossy())
    })
}
