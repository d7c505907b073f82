//! The DMA's AES-128 engine (paper, section IV.B, Fig. 7): its data path, which really
//! encrypts and decrypts, and its round timing.
//!
//! Data path. Each round is split in two substages: substage 1 is the S-box (SB/ISB),
//! substage 2 merges ShiftRows, MixColumns and AddRoundKey. Because SB/ISB and AddRoundKey
//! act byte by byte, a round can be computed column by column from *shifted* words: column
//! c of the next state needs only word c of the (inverse-)shifted current state. That is what
//! DBUS's state transfer delivers (Fig. 4): [`AesCore::encrypt_preshifted`] takes the four
//! words of ShiftRows(plaintext) and never reshuffles its input;
//! [`AesCore::decrypt_preselected`] takes InvShiftRows(ciphertext). An AXI-fed engine first
//! has to buffer the whole state and re-order it ([`crate::dbus::address::state_words`]).
//! The rounds are built from the library's `SBOX`, `INV_SBOX`, `gf_mul` and `KeySchedule`
//! (the S-box is looked up, not the paper's composite-field circuit: same function).
//!
//! Timing. One round costs `substage1 + substage2 - overlap` cycles ([`AesTiming`]).

use bitweave::hazmat::aes::{gf_mul, KeySchedule, INV_SBOX, SBOX};

use super::address::{word_source, WordOrder};

/// Four 32-bit words of a state, each one column as four bytes (row 0 first).
pub type Words = [[u8; 4]; 4];

/// The engine's cycle costs (section IV.B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AesTiming {
    /// AES rounds per state (section IV.B: "the 10-round algorithm with 4-word key").
    pub rounds: u64,
    /// Cycles of substage 1 (SB/ISB) per round. Section IV.B: 4 on a 32-bit bus (one 32-bit
    /// column per cycle); 2 on a 64-bit bus (interpretation: two columns per cycle, which
    /// with one overlapped cycle gives the paper's 3 cycles per round).
    pub substage1_cycles: u64,
    /// Cycles of substage 2 (SR/ISR + MC/IMC + AK) per round. Section IV.B: 4 (32-bit), 2 (64-bit).
    pub substage2_cycles: u64,
    /// Cycles in which substage 2 runs in parallel with substage 1 of the same round.
    /// Section IV.B: 0 when not pipelined (8 cycles per round at 32 bits), 3 when fully
    /// pipelined (5 cycles per round), 1 at 64 bits (3 cycles per round).
    pub overlap_cycles: u64,
    /// Round units in hardware. Interpretation of "fully pipeline": every round has its own
    /// unit (10, unrolled), so a new state can enter every `max(substage1, substage2)` cycles;
    /// 1 is an iterative engine that holds one state for all its rounds.
    pub round_units: u64,
}

impl AesTiming {
    /// 32-bit bus, fully pipelined: 5 cycles per round (section IV.B).
    pub fn paper_32() -> Self {
        AesTiming {
            rounds: 10,
            substage1_cycles: 4,
            substage2_cycles: 4,
            overlap_cycles: 3,
            round_units: 10,
        }
    }

    /// 32-bit bus, not pipelined: 8 cycles per round, one state at a time (section IV.B).
    pub fn paper_32_unpipelined() -> Self {
        AesTiming {
            overlap_cycles: 0,
            round_units: 1,
            ..Self::paper_32()
        }
    }

    /// 64-bit bus: 3 cycles per round with 1 overlapped (section IV.B).
    pub fn paper_64() -> Self {
        AesTiming {
            rounds: 10,
            substage1_cycles: 2,
            substage2_cycles: 2,
            overlap_cycles: 1,
            round_units: 10,
        }
    }

    /// Cycles per round: `substage1 + substage2 - overlap`.
    pub fn round_cycles(&self) -> u64 {
        self.substage1_cycles + self.substage2_cycles - self.overlap_cycles
    }

    /// Cycles from the first column of a state entering round 1 to the last column leaving
    /// the last round.
    pub fn latency(&self) -> u64 {
        self.rounds * self.round_cycles()
    }

    /// Minimum cycles between two states entering the engine.
    pub fn issue_interval(&self) -> u64 {
        if self.round_units >= self.rounds {
            self.substage1_cycles.max(self.substage2_cycles)
        } else {
            self.rounds.div_ceil(self.round_units) * self.round_cycles()
        }
    }

    /// States the pipeline can hold at once.
    pub fn capacity_states(&self) -> u64 {
        self.latency().div_ceil(self.issue_interval())
    }
}

/// The engine's timing state: when the next state may enter.
#[derive(Debug, Clone)]
pub struct EnginePipe {
    /// The engine's cycle costs.
    pub timing: AesTiming,
    /// Bus beats per state (4 on a 32-bit bus, 2 on a 64-bit bus).
    pub beats_per_state: u64,
    next_issue: u64,
    /// States processed.
    pub states: u64,
}

impl EnginePipe {
    pub fn new(timing: AesTiming, beats_per_state: u64) -> Self {
        EnginePipe {
            timing,
            beats_per_state,
            next_issue: 0,
            states: 0,
        }
    }

    /// Earliest cycle the next state may enter.
    pub fn next_issue(&self) -> u64 {
        self.next_issue
    }

    /// A state enters at `max(earliest, next issue slot)`; returns its start cycle.
    pub fn start(&mut self, earliest: u64) -> u64 {
        let s = earliest.max(self.next_issue);
        self.next_issue = s + self.timing.issue_interval();
        self.states += 1;
        s
    }

    /// Cycle at which output beat `j` of a state started at `s` is ready: the last beat
    /// leaves `latency` cycles after the start, earlier beats one cycle apart before it.
    pub fn output_ready(&self, s: u64, j: u64) -> u64 {
        s + self.timing.latency() + j + 1 - self.beats_per_state
    }
}

/// The AES-128 data path.
pub struct AesCore {
    ks: KeySchedule,
}

fn xor_word(a: [u8; 4], b: [u8; 4]) -> [u8; 4] {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}

fn mix_column(a: [u8; 4]) -> [u8; 4] {
    [
        gf_mul(a[0], 2) ^ gf_mul(a[1], 3) ^ a[2] ^ a[3],
        a[0] ^ gf_mul(a[1], 2) ^ gf_mul(a[2], 3) ^ a[3],
        a[0] ^ a[1] ^ gf_mul(a[2], 2) ^ gf_mul(a[3], 3),
        gf_mul(a[0], 3) ^ a[1] ^ a[2] ^ gf_mul(a[3], 2),
    ]
}

fn inv_mix_column(a: [u8; 4]) -> [u8; 4] {
    [
        gf_mul(a[0], 14) ^ gf_mul(a[1], 11) ^ gf_mul(a[2], 13) ^ gf_mul(a[3], 9),
        gf_mul(a[0], 9) ^ gf_mul(a[1], 14) ^ gf_mul(a[2], 11) ^ gf_mul(a[3], 13),
        gf_mul(a[0], 13) ^ gf_mul(a[1], 9) ^ gf_mul(a[2], 14) ^ gf_mul(a[3], 11),
        gf_mul(a[0], 11) ^ gf_mul(a[1], 13) ^ gf_mul(a[2], 9) ^ gf_mul(a[3], 14),
    ]
}

/// The engine's internal wiring between rounds: the words of `cols` in the given order.
fn rewire(cols: &Words, order: WordOrder) -> Words {
    let mut w = [[0u8; 4]; 4];
    for (c, word) in w.iter_mut().enumerate() {
        for (r, b) in word.iter_mut().enumerate() {
            let i = word_source(order, c, r);
            *b = cols[i / 4][i % 4];
        }
    }
    w
}

fn key_words(bytes: [u8; 16]) -> Words {
    core::array::from_fn(|c| {
        [
            bytes[4 * c],
            bytes[4 * c + 1],
            bytes[4 * c + 2],
            bytes[4 * c + 3],
        ]
    })
}

fn flatten(w: &Words) -> [u8; 16] {
    core::array::from_fn(|i| w[i / 4][i % 4])
}

impl AesCore {
    /// An AES-128 engine keyed with `key`.
    pub fn new(key: &[u8; 16]) -> Self {
        AesCore {
            ks: KeySchedule::new(key),
        }
    }

    /// Encrypts one state delivered pre-scheduled: `words[c]` is column c of
    /// ShiftRows(plaintext) (Fig. 4, state read order). Every column of round 1 is computed
    /// from its own input word only. Returns the ciphertext in FIPS-197 byte order.
    pub fn encrypt_preshifted(&self, words: &Words) -> [u8; 16] {
        let rounds = self.ks.rounds();
        // Round 0's AddRoundKey commutes with the shift: XOR with the shifted key.
        let k0 = rewire(&key_words(self.ks.round_key_bytes(0)), WordOrder::ShiftRows);
        let mut shifted: Words = core::array::from_fn(|c| xor_word(words[c], k0[c]));
        let mut cols = [[0u8; 4]; 4];
        for r in 1..=rounds {
            let rk = key_words(self.ks.round_key_bytes(r));
            for c in 0..4 {
                // Substage 1: SubBytes on the word.
                let sb = shifted[c].map(|b| SBOX[b as usize]);
                // Substage 2: (ShiftRows already in the word order) MixColumns, AddRoundKey.
                let mc = if r == rounds { sb } else { mix_column(sb) };
                cols[c] = xor_word(mc, rk[c]);
            }
            shifted = rewire(&cols, WordOrder::ShiftRows);
        }
        flatten(&cols)
    }

    /// Decrypts one state delivered pre-selected: `words[c]` is column c of
    /// InvShiftRows(ciphertext) (Fig. 4, state write order). Returns the plaintext in
    /// FIPS-197 byte order.
    pub fn decrypt_preselected(&self, words: &Words) -> [u8; 16] {
        let rounds = self.ks.rounds();
        let klast = rewire(
            &key_words(self.ks.round_key_bytes(rounds)),
            WordOrder::InvShiftRows,
        );
        let mut shifted: Words = core::array::from_fn(|c| xor_word(words[c], klast[c]));
        let mut cols = [[0u8; 4]; 4];
        for r in (0..rounds).rev() {
            let rk = key_words(self.ks.round_key_bytes(r));
            for c in 0..4 {
                // Substage 1: InvSubBytes on the word.
                let isb = shifted[c].map(|b| INV_SBOX[b as usize]);
                // Substage 2: AddRoundKey, InvMixColumns (InvShiftRows is the word order).
                let ak = xor_word(isb, rk[c]);
                cols[c] = if r == 0 { ak } else { inv_mix_column(ak) };
            }
            shifted = rewire(&cols, WordOrder::InvShiftRows);
        }
        flatten(&cols)
    }
}

#[cfg(test)]
mod tests {
    use super::super::address::state_words;
    use super::*;

    fn hex16(s: &str) -> [u8; 16] {
        core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
    }

    #[test]
    fn fips197_c1_through_the_preshifted_data_path() {
        let key = hex16("000102030405060708090a0b0c0d0e0f");
        let pt = hex16("00112233445566778899aabbccddeeff");
        let ct = hex16("69c4e0d86a7b0430d8cdb78070b4c55a");
        let core = AesCore::new(&key);
        assert_eq!(
            core.encrypt_preshifted(&state_words(&pt, WordOrder::ShiftRows)),
            ct
        );
        assert_eq!(
            core.decrypt_preselected(&state_words(&ct, WordOrder::InvShiftRows)),
            pt
        );
        // Fed in plain column order, the data path computes something else: the order matters.
        assert_ne!(
            core.encrypt_preshifted(&state_words(&pt, WordOrder::Column)),
            ct
        );
    }

    #[test]
    fn round_timing_matches_section_iv_b() {
        assert_eq!(AesTiming::paper_32().round_cycles(), 5);
        assert_eq!(AesTiming::paper_32_unpipelined().round_cycles(), 8);
        assert_eq!(AesTiming::paper_64().round_cycles(), 3);
        assert_eq!(AesTiming::paper_32().issue_interval(), 4);
        assert_eq!(AesTiming::paper_32_unpipelined().issue_interval(), 80);
    }
}
