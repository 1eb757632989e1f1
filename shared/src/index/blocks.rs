//! `postings.zst` in blocks: the postings lists, in word order, cut at word
//! boundaries into blocks of about [`BLOCK_BYTES`] and each compressed as
//! its own zstd frame, so a lookup decompresses only the blocks its words
//! sit in instead of the whole file at every open.
//!
//! The frames are simply concatenated, so the file still decompresses in
//! one go (`zstd -d`) to the postings a word's fst value points into. The
//! block table (`postingsBlocks` in `meta.json`) gives, for each block, its
//! offset in the decompressed postings and in the file, then one last
//! entry holding both totals.
//!
//! Promises: a table that does not describe the file (offsets out of
//! order, or not ending at the file's end) is refused when the index is
//! opened; a frame that does not decompress to its block's size makes
//! every lookup in that block answer `None`, which the planner reads as
//! "cannot say" (every page).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The decompressed size a block reaches before it is closed at the next
/// word boundary.
pub const BLOCK_BYTES: u64 = 64 * 1024;

/// `[decompressed offset, file offset]` of each block, then of the ends.
pub type BlockTable = Vec<[u64; 2]>;

/// Compresses `raw` in blocks closed at the first word start (`starts`,
/// ascending) at or past [`BLOCK_BYTES`] into the block. The blocks are
/// compressed on every core; the bytes do not depend on how many.
pub fn compress(raw: &[u8], starts: &[u64], level: i32) -> std::io::Result<(Vec<u8>, BlockTable)> {
    let blocks = block_ranges(raw.len() as u64, starts);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut frames = Vec::with_capacity(blocks.len());
    crate::in_order::in_order(
        &blocks,
        workers,
        || (),
        |_, r| zstd::bulk::compress(&raw[r.start as usize..r.end as usize], level),
        |_, frame| {
            frames.push(frame);
            std::ops::ControlFlow::Continue(())
        },
    );
    let mut file = Vec::new();
    let mut table = Vec::new();
    for (r, frame) in blocks.iter().zip(frames) {
        table.push([r.start, file.len() as u64]);
        file.extend_from_slice(&frame?);
    }
    table.push([raw.len() as u64, file.len() as u64]);
    Ok((file, table))
}

/// The blocks of `len` bytes of postings: each closed at the first word
/// start at or past [`BLOCK_BYTES`] into it, the last at the end.
fn block_ranges(len: u64, starts: &[u64]) -> Vec<std::ops::Range<u64>> {
    let mut blocks = Vec::new();
    let mut begin = 0u64;
    for end in starts.iter().copied().chain([len]) {
        if end > begin && (end - begin >= BLOCK_BYTES || end == len) {
            blocks.push(begin..end);
            begin = end;
        }
    }
    blocks
}

/// The compressed postings and their table, decompressing blocks on
/// demand and keeping each one decompressed (at most the whole postings).
pub struct Blocks {
    frames: Frames,
    table: BlockTable,
    open: Mutex<HashMap<usize, Option<Arc<Vec<u8>>>>>,
}

/// Where the compressed frames are: in the index's file, read frame by
/// frame when a block is first opened (so opening an index
/// does not read the postings of words no query asks for). The file is
/// read through the handle opened with the rest of the index: a rebuild
/// renames a new folder in and leaves this file's bytes as they were, so
/// the frames always belong to the `meta.json` and `terms.fst` loaded
/// with them.
enum Frames {
    /// In memory: the tests' way.
    #[cfg(test)]
    Memory(Vec<u8>),
    File(std::fs::File),
}

impl Frames {
    fn get(&self, range: std::ops::Range<u64>) -> Option<Vec<u8>> {
        match self {
            #[cfg(test)]
            Frames::Memory(bytes) => bytes
                .get(range.start as usize..range.end as usize)
                .map(<[u8]>::to_vec),
            Frames::File(file) => {
                use std::os::unix::fs::FileExt;
                let mut frame = vec![0; usize::try_from(range.end - range.start).ok()?];
                file.read_exact_at(&mut frame, range.start).ok()?;
                Some(frame)
            }
        }
    }
}

/// Why a postings file cannot be used with its block table.
#[derive(Debug, thiserror::Error)]
pub enum BlocksError {
    /// The file cannot be opened or measured.
    #[error("cannot read it: {0}")]
    Read(#[from] std::io::Error),
    /// The table's offsets are out of order, or do not end at the file's
    /// end: a truncated file, or one from another build.
    #[error("the file has {len} bytes, but its block table in meta.json describes {described}")]
    TableMismatch {
        /// The file's length.
        len: u64,
        /// What the table says (`N bytes`, or `none`).
        described: String,
    },
}

impl Blocks {
    /// The blocks of `file`, as `table` describes them; refused when the
    /// table's offsets are out of order or do not end at the file's end
    /// (a truncated or foreign file). For the tests: the index reads its
    /// file with [`Blocks::open`].
    #[cfg(test)]
    pub fn new(file: Vec<u8>, table: BlockTable) -> Result<Blocks, BlocksError> {
        check(file.len() as u64, &table)?;
        Ok(Blocks::of(Frames::Memory(file), table))
    }

    /// The blocks of the file at `path`, read a frame at a time as blocks
    /// are opened; refused when the table's offsets are out of order or do
    /// not end at the file's end (a truncated or foreign file).
    pub fn open(path: &std::path::Path, table: BlockTable) -> Result<Blocks, BlocksError> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        check(len, &table)?;
        Ok(Blocks::of(Frames::File(file), table))
    }

    fn of(frames: Frames, table: BlockTable) -> Blocks {
        Blocks {
            frames,
            table,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The decompressed block holding the postings at `offset`, and where
    /// in it they start; `None` when the table or the block is damaged.
    pub fn at(&self, offset: u64) -> Option<(Arc<Vec<u8>>, usize)> {
        let i = self
            .table
            .partition_point(|entry| entry[0] <= offset)
            .checked_sub(1)?;
        if i + 1 >= self.table.len() {
            return None;
        }
        let block = {
            let mut open = self.open.lock().unwrap();
            open.entry(i)
                .or_insert_with(|| self.decompress(i))
                .clone()?
        };
        Some((block, (offset - self.table[i][0]) as usize))
    }

    /// Whether every block decompresses to its size (each is then
    /// dropped, not kept).
    pub fn whole(&self) -> bool {
        (0..self.table.len().saturating_sub(1)).all(|i| self.decompress(i).is_some())
    }

    fn decompress(&self, i: usize) -> Option<Arc<Vec<u8>>> {
        let ([raw, from], [raw_end, to]) = (self.table[i], self.table[i + 1]);
        let frame = self.frames.get(from..to)?;
        let size = usize::try_from(raw_end.checked_sub(raw)?).ok()?;
        let block = zstd::bulk::decompress(&frame, size).ok()?;
        (block.len() == size).then(|| Arc::new(block))
    }
}

/// Whether `table` describes a file of `len` bytes: offsets in order,
/// ending at the file's end.
fn check(len: u64, table: &BlockTable) -> Result<(), BlocksError> {
    let ordered = table
        .windows(2)
        .all(|w| w[0][0] <= w[1][0] && w[0][1] <= w[1][1]);
    let ends = table.last().map(|e| e[1]);
    if !ordered || ends != Some(len) {
        return Err(BlocksError::TableMismatch {
            len,
            described: ends.map_or("none".to_string(), |e| format!("{e} bytes")),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_close_at_word_starts_and_every_offset_reads_back() {
        // 40 "words" of 5,000 bytes each: blocks of 14 words (70,000 bytes).
        let raw: Vec<u8> = (0..200_000u32).map(|i| (i / 5_000) as u8).collect();
        let starts: Vec<u64> = (0..40).map(|w| w * 5_000).collect();
        let (file, table) = compress(&raw, &starts, 3).unwrap();
        assert_eq!(table.len(), 4, "three blocks and the end: {table:?}");
        assert_eq!(
            zstd::decode_all(file.as_slice()).unwrap(),
            raw,
            "one stream"
        );
        let blocks = Blocks::new(file.clone(), table.clone()).unwrap();
        for &s in &starts {
            let (block, at) = blocks.at(s).unwrap();
            assert_eq!(block[at], (s / 5_000) as u8);
        }
        assert!(blocks.at(raw.len() as u64).is_none(), "past the end");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("postings.zst");
        std::fs::write(&path, &file).unwrap();
        let on_disk = Blocks::open(&path, table.clone()).unwrap();
        for &s in &starts {
            assert_eq!(on_disk.at(s).unwrap().0, blocks.at(s).unwrap().0, "{s}");
        }
        std::fs::write(&path, &file[..100]).unwrap();
        assert!(Blocks::open(&path, table.clone()).is_err(), "truncated");
        let mut bad = table.clone();
        bad[1][1] += 7;
        assert!(
            Blocks::new(file.clone(), bad).unwrap().at(0).is_none(),
            "a frame cut wrong"
        );
        let err = Blocks::new(file[..100].to_vec(), table)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("the file has 100 bytes, but its block table"),
            "{err}"
        );
    }
}
