//! The bench's command-line arguments (the CLI's `bench` flattens them).

use clap::Args;

/// What to measure and how to report it.
#[derive(Args, Clone)]
pub struct BenchArgs {
    /// Cipher (aes-128, all modes) or suite (aes-128-cbc); repeatable. Default: all.
    #[arg(long = "cipher", short = 'c')]
    pub ciphers: Vec<String>,
    /// Backend to measure: a name, or `all` for every backend this CPU can run
    /// (default: the one each cipher uses by default).
    #[arg(long)]
    pub backend: Option<String>,
    /// Buffer sizes in bytes per call, e.g. `16,64,256,1024,8192,16384` (openssl speed's
    /// sizes; its headline figure uses 16 KiB): one row per size, the context reused
    /// across calls as `openssl speed` reuses it.
    #[arg(
        long = "size",
        alias = "sizes",
        value_delimiter = ',',
        default_value = "16384"
    )]
    pub sizes: Vec<usize>,
    /// Interleave factor for cbc/cfb/ofb rows (other modes run standard).
    #[arg(long, default_value_t = 1)]
    pub interleave: usize,
    /// Thread counts to measure, e.g. `1,2` (0 = all cores). OpenSSL runs on one thread.
    /// Rows with several threads use buffers of at least 1 MiB per thread, so the input
    /// is large enough to split.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub threads: Vec<usize>,
    /// Only this direction (enc or dec); default both.
    #[arg(long)]
    pub direction: Option<String>,
    /// Milliseconds per measurement (each side is measured three times, alternating).
    #[arg(long, default_value_t = 25)]
    pub time_ms: u64,
    /// Print JSON (an array of rows) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Every call sets up a new keyed context first (bitweave's `Cipher::new`, a new
    /// OpenSSL context, a new libgcrypt handle), as one-shot calls with a fresh key do;
    /// without it the context is reused across calls, as `openssl speed` reuses it.
    #[arg(long)]
    pub key_setup: bool,
    /// Heterogeneous split sweep (the SEED-on-Cell paper's Fig. 5(b)): two backends side by
    /// side on two threads over one ECB input, throughput against the workload ratio, plus
    /// dynamic sharing and the automatic ratio. Uses the first --cipher (default seed).
    #[arg(long)]
    pub split_sweep: bool,
    /// Print like the MX-1 paper's Tables I (AES) and VI (DES, 3DES): cycles/byte per mode
    /// (ECB, CBC, CFB, OFB, CTR), (a) encryption and (b) decryption, one line per backend
    /// (lane width), chained modes interleaved as wide as the backend's batch (or
    /// --interleave), OpenSSL's standard modes in the same run. Default ciphers: aes-128,
    /// des, des-ede3; default backends: all this CPU runs.
    #[arg(long)]
    pub tables: bool,
    /// Also draw the measured figures as charts into this file (.svg or .png): cycles/byte
    /// per mode per cipher and backend (MX-1 Fig. 9), throughput against threads, and the
    /// split sweep when run (SEED-on-Cell Fig. 5(b)).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<std::path::PathBuf>,
    /// The two backends of the sweep, e.g. `vaes512,soft` (default: the best with `soft`,
    /// and the best with itself).
    #[arg(long, value_delimiter = ',')]
    pub split: Vec<String>,
}

impl BenchArgs {
    /// The one size of `--tables` and `--split-sweep` (which take a single `--size`).
    pub fn size(&self) -> usize {
        self.sizes[0]
    }
}
