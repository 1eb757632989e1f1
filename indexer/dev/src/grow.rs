//! `archilyzer-dev grow-passages`: a passage store many times the size of
//! a real one, for timing `find_passages` at a million passages without
//! embedding a million passages.
//!
//! Copy `k` of passage `i` is passage `k × n + i`: the same video and
//! cues (so its text reads and checks as the original's), the same words
//! (so the words side's lists are `times` as long), and the original's
//! vector moved by seeded noise and made unit again (so the meaning side
//! ranks `times` as many distinct vectors). The index's own files are
//! linked, not copied.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use archilyzer_core::passages::store::{self, Record, Store, Written};
use archilyzer_core::passages::words;
use archilyzer_embed::vectors::quantize;
use rand::{Rng, SeedableRng};

/// Flags of `grow-passages`.
#[derive(clap::Args, Debug)]
pub struct GrowArgs {
    /// An index with embedded passages (`archilyzer-index build --embed`).
    #[arg(long)]
    pub index: PathBuf,
    /// The new index folder (must not exist).
    #[arg(long)]
    pub out: PathBuf,
    /// How many copies of each passage.
    #[arg(long)]
    pub times: u32,
    /// The noise's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Writes the grown copy.
pub fn command(args: &GrowArgs) -> Result<ExitCode> {
    if args.out.exists() {
        anyhow::bail!("{} exists: name a new folder", args.out.display());
    }
    let source = Store::open(&args.index)?;
    link_index(&args.index, &args.out)?;
    let n = source.len();
    let dim = source.meta.model.dim;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
    let mut records = Vec::with_capacity((n * args.times) as usize * store::RECORD);
    let mut vectors = Vec::with_capacity((n * args.times) as usize * dim);
    for k in 0..args.times {
        for i in 0..n {
            let r = source.record(i);
            let v: Vec<f32> = source
                .vectors
                .get(i as usize)
                .iter()
                .map(|&b| {
                    f32::from(b as i8) * r.scale
                        + if k == 0 {
                            0.0
                        } else {
                            rng.random_range(-0.02..0.02)
                        }
                })
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
            let unit: Vec<f32> = v.iter().map(|x| x / norm).collect();
            let (q, scale) = quantize(&unit);
            records.extend(Record { scale, ..r }.bytes());
            vectors.extend(q.iter().map(|&b| b as u8));
        }
    }
    let mut lists: Vec<(Vec<u8>, words::List)> = Vec::new();
    source.words.for_each(|word, list| {
        let grown = (0..args.times)
            .flat_map(|k| list.iter().map(move |&(id, tf)| (k * n + id, tf)))
            .collect();
        lists.push((word.to_vec(), grown));
    });
    let (word_map, word_lists) =
        words::encode(lists.iter().map(|(w, l)| (w.as_slice(), l.clone())))?;
    let mut meta = source.meta.clone();
    meta.passages = n * args.times;
    meta.digests.clear();
    let bytes = store::write(
        &args.out,
        Written {
            meta,
            records,
            vectors,
            word_map,
            word_lists,
        },
    )?;
    eprintln!(
        "grow-passages: {} passages ({} × {n}), {:.1} MB at {}",
        n * args.times,
        args.times,
        bytes as f64 / 1e6,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Links the index's own files (not its passages) into `out`.
fn link_index(from: &Path, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            let to = out.join(entry.file_name());
            std::fs::hard_link(entry.path(), &to)
                .or_else(|_| std::fs::copy(entry.path(), &to).map(drop))
                .with_context(|| format!("cannot link {}", entry.path().display()))?;
        }
    }
    Ok(())
}
