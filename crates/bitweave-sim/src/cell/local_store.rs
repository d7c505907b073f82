//! The SPE's local store (paper §2.1: 256 KB, no cache): the only memory the SPU can load
//! from, 16-byte quadword accesses only, holding code, tables, keys and DMA buffers. The
//! layout is allocated region by region so a program that does not fit is an error.

use super::CellError;

/// One named region of the local store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub name: &'static str,
    pub start: u32,
    pub len: u32,
}

/// 256 KB of SPU-addressable memory and its allocation map.
#[derive(Debug, Clone)]
pub struct LocalStore {
    bytes: Vec<u8>,
    regions: Vec<Region>,
    next: usize,
}

impl LocalStore {
    pub fn new(size: usize) -> Self {
        LocalStore {
            bytes: vec![0; size],
            regions: Vec::new(),
            next: 0,
        }
    }

    /// Reserves `len` bytes aligned to `align` (a DMA buffer wants 128).
    pub fn alloc(
        &mut self,
        name: &'static str,
        len: usize,
        align: usize,
    ) -> Result<u32, CellError> {
        let start = self.next.div_ceil(align) * align;
        if start + len > self.bytes.len() {
            return Err(CellError::LocalStore {
                region: name,
                needed: start + len,
                size: self.bytes.len(),
            });
        }
        self.next = start + len;
        self.regions.push(Region {
            name,
            start: start as u32,
            len: len as u32,
        });
        Ok(start as u32)
    }

    /// Bytes allocated so far.
    pub fn used(&self) -> usize {
        self.next
    }

    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// The aligned quadword holding `addr` (the low four address bits are ignored and the
    /// address wraps at the store's size, as on the SPU).
    pub fn qword(&self, addr: u32) -> [u8; 16] {
        let a = (addr as usize % self.bytes.len()) & !15;
        self.bytes[a..a + 16].try_into().unwrap()
    }

    pub fn set_qword(&mut self, addr: u32, v: [u8; 16]) {
        let a = (addr as usize % self.bytes.len()) & !15;
        self.bytes[a..a + 16].copy_from_slice(&v);
    }

    pub fn read(&self, addr: u32, len: usize) -> &[u8] {
        &self.bytes[addr as usize..addr as usize + len]
    }

    pub fn write(&mut self, addr: u32, data: &[u8]) {
        self.bytes[addr as usize..addr as usize + data.len()].copy_from_slice(data);
    }
}
