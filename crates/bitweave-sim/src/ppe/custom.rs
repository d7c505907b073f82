//! The custom ARX engines of section 4: single-, double- and quad-width cores that compute
//! one π ARX operation block `X * Y` with fixed logic, modelled at the same level as the PPE:
//! a data path that really computes (16-bit adder slices with carries, rotators, XOR banks,
//! the four output adders) and a schedule whose cycle costs are fields of [`CustomConfig`].
//!
//! Structure (section 4.1): two directions run in parallel, one computing the four μ
//! equations of X ("X equations"), one the four ν equations of Y. A direction has a memory
//! block (three RAMs and one ROM: four read ports, the three x words and the constant of one
//! equation), adders ("the controller moves in one cycle per each equation" at 16 bits), a
//! rotator, and an XOR bank that buffers the four rotated values and then computes the four
//! outputs in one cycle; four 16-bit adders add the two directions (σ). The double- and
//! quad-width cores (sections 4.2, 4.3) have 6 / 12 adders, 2 / 4 rotators and 8 / 16 memory
//! ports per direction: two / four equation units.
//!
//! Word sizes above 16 bits: section 6 says the 64-bit single-width core "uses 16-bit adders
//! instead of increasing the arithmetic data-path width". The model therefore adds w-bit
//! words digit-serially on the 16-bit adders (one 16-bit digit per cycle, carry kept in a
//! register), for the equations and for σ; the rotator and XOR bank take whole words
//! (interpretation: the paper's 16/32/64-byte memories widen with the word size).

use super::WordSize;

/// Core width (section 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CoreWidth {
    Single,
    Double,
    Quad,
}

impl CoreWidth {
    pub const ALL: [CoreWidth; 3] = [CoreWidth::Single, CoreWidth::Double, CoreWidth::Quad];

    pub fn name(self) -> &'static str {
        match self {
            CoreWidth::Single => "single",
            CoreWidth::Double => "double",
            CoreWidth::Quad => "quad",
        }
    }

    fn factor(self) -> usize {
        match self {
            CoreWidth::Single => 1,
            CoreWidth::Double => 2,
            CoreWidth::Quad => 4,
        }
    }
}

/// The resources and cycle costs of a custom core. Defaults cite the paper.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomConfig {
    pub width: CoreWidth,
    pub word: WordSize,
    /// Adders per direction (section 4.2: "instead of using three adders and one rotator in
    /// each direction ... as in the single core, we use six"; section 4.3: twelve).
    pub adders_per_direction: usize,
    /// Rotators per direction (sections 4.2, 4.3: one, two, four).
    pub rotators_per_direction: usize,
    /// Memory read ports per direction (section 4: three RAMs and one ROM per memory block =
    /// 4; section 4.2: 8; section 4.3: 16).
    pub read_ports_per_direction: usize,
    /// Width of one adder (section 4.1: "16-bit adders"; section 6: the 64-bit core keeps
    /// 16-bit adders).
    pub adder_bits: u32,
    /// Cycles from the read counter's first address to the operands at the adders
    /// (interpretation: one synchronous RAM read).
    pub mem_read_cycles: u64,
    /// Cycles an equation's three chained adders need per 16-bit digit (section 4.1.1: "in
    /// the 16-bit version, the controller moves in one cycle per each equation").
    pub adder_cycles_per_digit: u64,
    /// Cycles of a rotation; the rotator works on the previous equation while the adders
    /// work on the next (section 4.1.1: "then rotator starts to calculate the other phase").
    pub rotator_cycles: u64,
    /// Cycles of the XOR bank once its four values are buffered (section 4.1.1: "the Xoring
    /// bank starts to calculate final values of Y and X in one cycle").
    pub xor_cycles: u64,
    /// Output adders (section 4.1.1: "summed by four 16-bit adders").
    pub sigma_adders: usize,
    /// Cycles from the last output digit to the output flag (section 4.1.4; interpretation:
    /// the flag is raised with the last output, 0 extra cycles).
    pub flag_cycles: u64,
    /// Clock, MHz (an input: Tables 1 and 2).
    pub clock_mhz: f64,
    /// Area, slices (an input: Tables 1 and 2).
    pub slices: f64,
}

impl CustomConfig {
    /// The paper's core for a width and word size (16 or 64 bits: Tables 1 and 2; the paper
    /// has no 32-bit custom core, so 32 bits takes the 64-bit table's clock and area).
    pub fn paper(width: CoreWidth, word: WordSize) -> Self {
        let k = width.factor();
        let (clock_mhz, slices) = match (word, width) {
            (WordSize::W16, CoreWidth::Single) => (371.0, 132.0),
            (WordSize::W16, CoreWidth::Double) => (324.0, 154.0),
            (WordSize::W16, CoreWidth::Quad) => (347.0, 266.0),
            (_, CoreWidth::Single) => (254.0, 445.0),
            (_, CoreWidth::Double) => (243.0, 447.0),
            (_, CoreWidth::Quad) => (245.0, 634.0),
        };
        CustomConfig {
            width,
            word,
            adders_per_direction: 3 * k,
            rotators_per_direction: k,
            read_ports_per_direction: 4 * k,
            adder_bits: 16,
            mem_read_cycles: 1,
            adder_cycles_per_digit: 1,
            rotator_cycles: 1,
            xor_cycles: 1,
            sigma_adders: 4,
            flag_cycles: 0,
            clock_mhz,
            slices,
        }
    }

    /// Equation units per direction: three adders, one rotator and four read ports each.
    pub fn equation_units(&self) -> usize {
        (self.adders_per_direction / 3)
            .min(self.rotators_per_direction)
            .min(self.read_ports_per_direction / 4)
            .max(1)
    }

    /// 16-bit digits per word.
    pub fn digits(&self) -> u64 {
        self.word.bits().div_ceil(self.adder_bits) as u64
    }
}

/// Timing of one block through a core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockTiming {
    /// Cycle each direction's XOR bank finished (μ, ν).
    pub xor_done: [u64; 2],
    /// Cycles from the read counter's start to the output flag.
    pub cycles: u64,
}

/// Digit-serial addition on `adder_bits`-wide adders: one digit per cycle, carry kept.
fn add_serial(a: u64, b: u64, bits: u32, digit: u32) -> u64 {
    let mut out = 0u64;
    let mut carry = 0u64;
    let dmask = (1u64 << digit) - 1;
    let mut shift = 0;
    while shift < bits {
        let s = ((a >> shift) & dmask) + ((b >> shift) & dmask) + carry;
        carry = s >> digit;
        out |= (s & dmask) << shift;
        shift += digit;
    }
    out
}

fn rotl(x: u64, n: u32, bits: u32, mask: u64) -> u64 {
    let n = n % bits;
    if n == 0 {
        x
    } else {
        ((x << n) | (x >> (bits - n))) & mask
    }
}

/// The rotation amounts of π for a word size (PI-CIPHER.md §3.3), (rμ, rν).
pub fn rotations(ws: WordSize) -> ([u32; 4], [u32; 4]) {
    match ws {
        WordSize::W16 => ([1, 4, 9, 11], [2, 5, 7, 13]),
        WordSize::W32 => ([5, 11, 17, 23], [3, 10, 19, 29]),
        WordSize::W64 => ([7, 19, 31, 53], [11, 23, 37, 59]),
    }
}

/// A custom core with its constants.
pub struct CustomCore {
    pub config: CustomConfig,
    c_mu: [u64; 4],
    c_nu: [u64; 4],
}

impl CustomCore {
    pub fn new(config: CustomConfig) -> Self {
        let (c_mu, c_nu, _) = super::pi::constants(config.word, 0);
        CustomCore { config, c_mu, c_nu }
    }

    /// One direction's data: the four equations (three chained adders each, digit-serial),
    /// the rotator, and the XOR bank.
    fn direction(&self, v: &[u64; 4], nu: bool) -> [u64; 4] {
        let ws = self.config.word;
        let (bits, mask, d) = (ws.bits(), ws.mask(), self.config.adder_bits);
        let (rmu, rnu) = rotations(ws);
        // Which three words each equation adds (the one left out: μ x3,x2,x1,x0; ν y1,y0,y3,y2).
        let left_out = if nu { [1, 0, 3, 2] } else { [3, 2, 1, 0] };
        let c = if nu { self.c_nu } else { self.c_mu };
        let r = if nu { rnu } else { rmu };
        let rotated: [u64; 4] = core::array::from_fn(|e| {
            let mut acc = c[e];
            for (i, w) in v.iter().enumerate() {
                if i != left_out[e] {
                    acc = add_serial(acc, *w, bits, d);
                }
            }
            rotl(acc, r[e], bits, mask)
        });
        // XOR bank: each output leaves one buffered value out.
        let drop = if nu { [0, 1, 2, 3] } else { [2, 3, 0, 1] };
        core::array::from_fn(|j| {
            (0..4)
                .filter(|i| *i != drop[j])
                .fold(0, |a, i| a ^ rotated[i])
        })
    }

    /// `X * Y` through the core's data path.
    pub fn star(&self, x: &[u64; 4], y: &[u64; 4]) -> [u64; 4] {
        let (bits, d) = (self.config.word.bits(), self.config.adder_bits);
        let m = self.direction(x, false);
        let n = self.direction(y, true);
        core::array::from_fn(|j| add_serial(m[(j + 1) % 4], n[(j + 1) % 4], bits, d))
    }

    /// The schedule of one block, from the read counter's start (cycle 0).
    pub fn timing(&self) -> BlockTiming {
        let c = &self.config;
        let units = c.equation_units();
        let digits = c.digits();
        let mut xor_done = [0u64; 2];
        for slot in xor_done.iter_mut() {
            let mut unit_free = vec![c.mem_read_cycles; units];
            let mut rot_free = vec![0u64; units];
            let mut buffered = 0u64;
            for e in 0..4 {
                let u = e % units;
                let start = unit_free[u];
                let added = start + digits * c.adder_cycles_per_digit;
                unit_free[u] = added;
                let rot_start = added.max(rot_free[u]);
                rot_free[u] = rot_start + c.rotator_cycles;
                buffered = buffered.max(rot_free[u]);
            }
            *slot = buffered + c.xor_cycles;
        }
        let sigma_start = xor_done[0].max(xor_done[1]);
        let rounds = 4usize.div_ceil(c.sigma_adders.max(1)) as u64;
        let done = sigma_start + rounds * digits * c.adder_cycles_per_digit;
        BlockTiming {
            xor_done,
            cycles: done + c.flag_cycles,
        }
    }

    /// Throughput of one block stream, Gbps: chunk bits × clock / cycles (the paper's
    /// equation (1)).
    pub fn gbps(&self) -> f64 {
        self.config.word.chunk_bits() as f64 * self.config.clock_mhz
            / self.timing().cycles as f64
            / 1000.0
    }
}
