//! The MX-1 matrix's shape and its per-operation costs: what the paper states (cited per
//! field) and what the model assumes. The library ([`super::library`]) prices its calls
//! from it; the matrix ([`super::matrix`]) runs circuits under it.

/// The matrix's shape and its per-operation costs (in MX-core cycles).
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixConfig {
    /// Processing elements (= blocks in flight): "1024 or 2048 two-bit PEs" (section 2);
    /// the evaluation board has 1024 (section 4.1).
    pub pes: usize,
    /// Bits of one SRAM word per PE row: "512-bit word length" (section 4.1).
    pub word_bits: usize,
    /// Simultaneously accessible SRAM parts: "the division of the SRAM into two
    /// simultaneously accessible parts" (section 2).
    pub sram_parts: usize,
    /// Bits a PE processes per cycle: "two-bit PEs" (section 2). Not used by the cost
    /// formulas, which follow eq. (1)/(2) per bit; kept to state the interpretation.
    pub pe_bits: usize,
    /// C1 + C2 + C3, the cycles of one 1-bit library call (eq. 1 with n = 1): C1
    /// "register setting", C2 "read from SRAM", C3 "execution in PE and write to SRAM"
    /// (section 4.3). The paper prints no values. The architecture's floor is 3 — one
    /// controller instruction loads the bit pointers, the H-channel reads both operands in
    /// one cycle and writes in the same read-modify-write (section 2) — and that is the
    /// default; but the paper's own Table IV refutes it (SubBytes' 36,853 cycles per round
    /// over the calls its circuit issues is ~12.7 per call), so the report fits this one
    /// parameter on that row ([`super::scenario::fit_call_cycles`]). A V-channel transfer
    /// is costed as one call too.
    pub call_cycles: u64,
    /// Cycles per bit of a multi-bit (`_h`) operation once started: the `+ n` of eq. (2).
    pub bit_cycles: u64,
    /// Whether the PE has `!a & b` as one function. Section 4.3 lists XOR, AND, OR and
    /// INV, so by default ANDNOT is INV then AND (two library calls).
    pub andnot_native: bool,
    /// A planted hardware fault, for the tests that show a broken matrix is caught by the
    /// check against the library: never set by the model itself.
    pub fault: Option<Fault>,
}

/// One PE's result bit of one PE operation inverted: a gate that misfires once in one
/// lane (one block of the batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// Which PE operation of the session (0 = the first AND/OR/XOR/NOT executed).
    pub op: u64,
    /// Which PE (= which block of the batch).
    pub pe: usize,
}

impl Default for MatrixConfig {
    fn default() -> Self {
        MatrixConfig {
            pes: 1024,
            word_bits: 512,
            sram_parts: 2,
            pe_bits: 2,
            call_cycles: 3,
            bit_cycles: 1,
            andnot_native: false,
            fault: None,
        }
    }
}

impl MatrixConfig {
    /// SRAM bits per PE row (all parts).
    pub fn row_bits(&self) -> usize {
        self.word_bits * self.sram_parts
    }
}
