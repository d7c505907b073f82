//! One SPE: the SPU, its local store and the SEED program in it. The MFC side (DMA timing)
//! is driven by [`super::system`]; here a chunk that has arrived in the local store buffer
//! is encrypted by running the program on the SPU, group after group.

use super::config::CellConfig;
use super::local_store::LocalStore;
use super::spu::Spu;
use super::spu_seed::SpuProgram;
use super::CellError;

/// Bytes of one group: four 16-byte blocks, the unit of the SPE's SIMD layout.
pub const GROUP_BYTES: usize = 64;

#[derive(Debug, Clone)]
pub struct Spe {
    pub ls: LocalStore,
    pub spu: Spu,
    pub program: SpuProgram,
}

impl Spe {
    /// An SPE loaded with the SEED program, tables and round keys.
    pub fn new(
        cfg: &CellConfig,
        ss: &[[u32; 256]; 4],
        keys: &[[u32; 2]; 16],
    ) -> Result<Spe, CellError> {
        let mut ls = LocalStore::new(cfg.local_store_bytes);
        let program = SpuProgram::build(cfg, &mut ls, ss, keys)?;
        Ok(Spe {
            ls,
            spu: Spu::new(cfg.spu_registers, cfg.spu.clone()),
            program,
        })
    }

    /// Encrypts `data` (whole groups, at most one buffer) in the local store buffer as the
    /// DMA left it, in place, and returns the SPU cycles it took.
    pub fn compute(&mut self, data: &mut [u8]) -> u64 {
        assert!(data.len().is_multiple_of(GROUP_BYTES) && data.len() <= self.program.buffer_bytes);
        let buf = self.program.buffer;
        self.ls.write(buf, data);
        let groups = (data.len() / GROUP_BYTES) as u32;
        self.spu.drain();
        let start = self.spu.cycle;
        let prologue = self.program.prologue(buf, groups);
        self.spu.run(&prologue, &mut self.ls);
        for _ in 0..groups {
            let body = std::mem::take(&mut self.program.body);
            self.spu.run(&body, &mut self.ls);
            self.program.body = body;
        }
        debug_assert_eq!(self.spu.preferred(super::spu_seed::R_CNT), 0);
        data.copy_from_slice(self.ls.read(buf, data.len()));
        self.spu.cycle - start
    }
}
