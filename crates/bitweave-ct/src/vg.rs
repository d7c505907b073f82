//! Valgrind client requests (the protocol of `valgrind.h`/`memcheck.h`), without a C shim.
//!
//! A client request is a no-op instruction sequence that valgrind's JIT recognises: four
//! rotations of `rdi` summing to 128 bits (a no-op on real hardware) followed by
//! `xchg rbx, rbx`; `rax` points at six words (request code and five arguments) and `rdx`
//! carries a default in and the answer out. Natively the sequence leaves `rdx` unchanged,
//! so every request returns its default (0) when the program runs outside valgrind.
//!
//! Writing the sequence in Rust keeps the build free of a C compiler and of valgrind's
//! headers: only running the checks needs valgrind.

/// `VG_USERREQ_TOOL_BASE('M','C')`: memcheck's request codes start here.
const MC_BASE: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
const MAKE_MEM_UNDEFINED: u64 = MC_BASE + 1;
const MAKE_MEM_DEFINED: u64 = MC_BASE + 2;
const GET_VBITS: u64 = MC_BASE + 8;
/// Core requests (valgrind.h).
const RUNNING_ON_VALGRIND: u64 = 0x1001;
const COUNT_ERRORS: u64 = 0x1201;

/// Sends one client request; returns `default` when not running under valgrind.
#[cfg(target_arch = "x86_64")]
fn request(default: u64, code: u64, a1: u64, a2: u64, a3: u64) -> u64 {
    let args: [u64; 6] = [code, a1, a2, a3, 0, 0];
    let mut result = default;
    // SAFETY: the rotations of rdi by 3+13+61+51 = 128 bits restore it, and
    // `xchg rbx, rbx` changes nothing: natively the block only reads `args` through rax
    // (kept alive across the asm) and leaves rdx = default. Under valgrind the core
    // reads the six words at rax and writes the answer to rdx, as declared.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            out("rdi") _,
            options(nostack),
        );
    }
    std::hint::black_box(&args);
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: u64, _code: u64, _a1: u64, _a2: u64, _a3: u64) -> u64 {
    default
}

/// Whether the program runs under valgrind (the nesting depth, 0 natively).
pub fn running_on_valgrind() -> u64 {
    request(0, RUNNING_ON_VALGRIND, 0, 0, 0)
}

/// Errors valgrind has reported so far (0 natively).
pub fn count_errors() -> u64 {
    request(0, COUNT_ERRORS, 0, 0, 0)
}

/// Marks `buf` as holding a secret: memcheck then reports every branch and every memory
/// address that depends on it (the ctgrind method). Contents are unchanged.
pub fn secret(buf: &[u8]) {
    request(
        0,
        MAKE_MEM_UNDEFINED,
        buf.as_ptr() as u64,
        buf.len() as u64,
        0,
    );
}

/// Declares `buf` public: used right before a decision that is public by design (a
/// padding verdict, a tag verdict), so only leaks before it are reported.
pub fn declassify(buf: &[u8]) {
    request(
        0,
        MAKE_MEM_DEFINED,
        buf.as_ptr() as u64,
        buf.len() as u64,
        0,
    );
}

/// [`declassify`] for the bytes of any value (a verdict, a `Result`), so the caller may
/// branch on it.
pub fn declassify_ref<T>(v: &T) {
    // SAFETY: only the address and size are passed; memcheck changes its shadow state,
    // never the bytes.
    let bytes = unsafe {
        std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>())
    };
    declassify(bytes);
}

/// [`declassify_ref`] for a `Copy` value, returned marked defined: the value goes
/// through memory (a volatile read), so the compiler cannot hand back the undefined copy
/// it still holds in a register.
pub fn declassify_value<T: Copy>(v: T) -> T {
    let slot = v;
    declassify_ref(&slot);
    // SAFETY: `slot` is a live, initialised local of type `T`.
    unsafe { std::ptr::read_volatile(&slot) }
}

/// Whether memcheck considers every byte of `buf` undefined (`false` natively). The
/// harness uses it to prove that marking worked before it trusts a clean run. Reads the
/// validity bits (GET_VBITS: 0xff per fully undefined byte) without reporting an error.
pub fn is_secret(buf: &[u8]) -> bool {
    let mut vbits = vec![0u8; buf.len()];
    let r = request(
        0,
        GET_VBITS,
        buf.as_ptr() as u64,
        vbits.as_mut_ptr() as u64,
        buf.len() as u64,
    );
    let all = vbits.iter().all(|&v| v == 0xff);
    r == 1 && all
}
