//! `build --embed`: every video's passages, embedded once.
//!
//! Two passes over the archive's transcript pages. The first cuts every
//! video into passages ([`super::cut`]), numbers them in archive order,
//! gathers the words side, and decides for each video where its vectors
//! come from: the store already built (same model, same digest of its
//! cues), the unfinished work of an interrupted run, or the model. The
//! second reads again only the pages with videos to embed, embeds them in
//! chunks of about [`CHUNK`] passages, and writes each chunk to
//! `passages.pending/` (under a temporary name, then renamed) as soon as
//! it is done. The store is then written whole and the pending work
//! removed.
//!
//! Promises: a run stopped at any point (Ctrl-C, SIGKILL, a full disk)
//! leaves the previous store as it was and every finished chunk on disk,
//! and the next run embeds only what no chunk holds; a video is embedded
//! again only when its cues changed (or the model did).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Instant;

use archilyzer_embed::vectors::quantize;
use archilyzer_embed::{Embedder, ModelId};
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::cut;
use super::store::{self, Meta, Record, Store, StoredVideo, Written, FORMAT, PENDING};
use super::words::WordsBuilder;
use super::PassageError;
use crate::archive::Archive;
use crate::format::paths::Layer;
use crate::format::{Cue, VideoRecord};

/// Passages per pending chunk: about twenty seconds of embedding on two
/// cores, so an interrupt loses at most that.
pub const CHUNK: usize = 512;

/// What an embedding run reports as it goes.
#[derive(Debug, Clone, Copy)]
pub enum EmbedEvent {
    /// The first pass is done: this many passages to embed.
    Start {
        /// Passages the model will embed.
        to_embed: u64,
    },
    /// This many more passages were embedded.
    Embedded {
        /// Passages in the batch just finished.
        passages: u64,
    },
}

/// What an embedding run did.
#[derive(Debug, Clone, Default)]
pub struct EmbedReport {
    /// Videos in the store.
    pub videos: usize,
    /// Passages in the store.
    pub passages: usize,
    /// Videos whose passages the model embedded this run.
    pub embedded_videos: usize,
    /// Passages the model embedded this run.
    pub embedded: usize,
    /// Passages taken from an interrupted run's finished chunks.
    pub resumed: usize,
    /// Passages carried over from the store already built.
    pub reused: usize,
    /// Pages that could not be read (their videos are not in the store).
    pub failed: Vec<String>,
    /// The store's size in bytes.
    pub bytes: u64,
    /// Wall time.
    pub seconds: f64,
}

/// A video's identity in the store and in pending chunks.
type Key = (String, String, String);

/// The digest of a video's cues: any change to a time or a word changes
/// it.
pub fn digest(cues: &[Cue]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for c in cues {
        h.update(&c.start.to_bits().to_le_bytes());
        h.update(&c.end.to_bits().to_le_bytes());
        h.update(c.text.as_bytes());
        h.update(&[0]);
    }
    format!("{:016x}", h.digest())
}

/// One embedded passage of a pending chunk.
#[derive(Serialize, Deserialize)]
struct PendingPassage {
    scale: f32,
    /// The int8 vector, base64.
    vector: String,
}

/// One video of a pending chunk.
#[derive(Serialize, Deserialize)]
struct PendingVideo {
    site: String,
    channel: String,
    slug: String,
    digest: String,
    passages: Vec<PendingPassage>,
}

/// A pending chunk file.
#[derive(Serialize, Deserialize)]
struct Chunk {
    model: ModelId,
    videos: Vec<PendingVideo>,
}

/// Where a video's vectors come from.
enum Source {
    /// The built store's passages from this number on.
    Built(u32),
    /// A pending chunk's.
    Pending(Vec<PendingPassage>),
    /// The model, in the second pass.
    Model,
}

/// A video as the first pass leaves it.
struct Planned {
    video: StoredVideo,
    page: (usize, String, u32),
    source: Source,
}

/// Embeds the passages of `archive` into the store of the index in
/// `index_dir`, reusing what is already embedded.
pub fn embed(
    archive: &Archive,
    index_dir: &Path,
    embedder: &Embedder,
    progress: &(dyn Fn(EmbedEvent) + Sync),
) -> Result<EmbedReport, PassageError> {
    let started = Instant::now();
    let write_err = |e: std::io::Error| PassageError::Write {
        dir: index_dir.to_path_buf(),
        why: e.to_string(),
    };
    std::fs::create_dir_all(index_dir).map_err(write_err)?;
    remove_leftovers(index_dir);
    let model = embedder.id().clone();
    let old = Store::open(index_dir)
        .ok()
        .filter(|s| s.meta.model.same_model(&model));
    let mut pending = read_pending(index_dir, &model);
    let mut report = EmbedReport::default();
    let mut words = WordsBuilder::default();
    let mut records: Vec<Record> = Vec::new();
    let mut planned: Vec<Planned> = Vec::new();
    let built: HashMap<Key, &StoredVideo> = old
        .iter()
        .flat_map(|s| s.meta.videos.iter())
        .map(|v| ((v.site.clone(), v.channel.clone(), v.slug.clone()), v))
        .collect();
    let (pages, _) = archive.page_table();
    for p in pages.iter().filter(|p| p.layer == Layer::Transcripts) {
        let site = &archive.sites()[p.site];
        let page = match site.transcript_page(&p.channel, p.page) {
            Ok(page) => page,
            Err(e) => {
                report.failed.push(e.to_string());
                continue;
            }
        };
        for v in &page.videos {
            let key: Key = (site.id().to_string(), p.channel.clone(), v.slug.clone());
            let number = planned.len() as u32;
            let (stored, texts) = plan_video(v, &key, records.len() as u32);
            for (range, text) in &texts {
                let id = records.len() as u32;
                records.push(Record {
                    video: number,
                    first_cue: range.start as u32,
                    cues: range.len() as u32,
                    words: words.add(id, text),
                    scale: 0.0,
                    fingerprint: cut::fingerprint(text),
                });
            }
            let source = match (built.get(&key), pending.remove(&key)) {
                (Some(b), _) if b.digest == stored.digest && b.count == stored.count => {
                    Source::Built(b.first)
                }
                (_, Some(p)) if p.digest == stored.digest && p.passages.len() == texts.len() => {
                    Source::Pending(p.passages)
                }
                _ => Source::Model,
            };
            planned.push(Planned {
                video: stored,
                page: (p.site, p.channel.clone(), p.page),
                source,
            });
        }
    }
    let dim = model.dim;
    let mut vectors = vec![0u8; records.len() * dim];
    let mut to_embed = Vec::new();
    for (n, plan) in planned.iter_mut().enumerate() {
        let ids = plan.video.first as usize..(plan.video.first + plan.video.count) as usize;
        match std::mem::replace(&mut plan.source, Source::Model) {
            Source::Built(first) => {
                let old = old.as_ref().expect("a built source has a store");
                for (k, id) in ids.enumerate() {
                    let from = first + k as u32;
                    records[id].scale = old.record(from).scale;
                    vectors[id * dim..(id + 1) * dim]
                        .copy_from_slice(old.vectors.get(from as usize));
                }
                report.reused += plan.video.count as usize;
            }
            Source::Pending(passages) => {
                for (id, p) in ids.zip(passages) {
                    records[id].scale = p.scale;
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(&p.vector)
                        .ok()
                        .filter(|b| b.len() == dim)
                        .ok_or_else(|| PassageError::Damaged {
                            file: index_dir.join(PENDING),
                            why: "a chunk's vector is not of the model's dimension".into(),
                        })?;
                    vectors[id * dim..(id + 1) * dim].copy_from_slice(&bytes);
                }
                report.resumed += plan.video.count as usize;
            }
            Source::Model => to_embed.push(n),
        }
    }
    progress(EmbedEvent::Start {
        to_embed: to_embed
            .iter()
            .map(|&n| u64::from(planned[n].video.count))
            .sum(),
    });
    let pending_dir = index_dir.join(PENDING);
    let mut chunk = ChunkWriter::new(&pending_dir, model.clone());
    let mut work = Work::default();
    let mut run = |work: &mut Work| {
        work.run(
            embedder,
            &planned,
            &mut records,
            &mut vectors,
            &mut chunk,
            progress,
        )
        .map_err(write_err)
    };
    for n in &to_embed {
        work.texts.extend(current_texts(archive, &planned[*n])?);
        work.videos.push(*n);
        if work.texts.len() >= CHUNK {
            run(&mut work)?;
        }
    }
    run(&mut work)?;
    report.embedded = to_embed
        .iter()
        .map(|&n| planned[n].video.count as usize)
        .sum();
    report.embedded_videos = to_embed.len();
    chunk.flush().map_err(write_err)?;
    let mean_words = if records.is_empty() {
        0.0
    } else {
        records.iter().map(|r| r.words as f32).sum::<f32>() / records.len() as f32
    };
    let (word_map, word_lists) = words
        .finish()
        .map_err(|e| write_err(std::io::Error::other(e)))?;
    report.videos = planned.len();
    report.passages = records.len();
    let meta = Meta {
        format: FORMAT,
        model,
        seconds: cut::SECONDS,
        passages: records.len() as u32,
        mean_words,
        videos: planned.into_iter().map(|p| p.video).collect(),
        digests: Default::default(),
    };
    let written = Written {
        meta,
        records: records.iter().flat_map(Record::bytes).collect(),
        vectors,
        word_map,
        word_lists,
    };
    drop(old);
    report.bytes = store::write(index_dir, written).map_err(write_err)?;
    let _ = std::fs::remove_dir_all(&pending_dir);
    crate::staging::forget_kept(&pending_dir);
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// A video's store entry (its first passage numbered `first`) and the
/// texts of its passages.
fn plan_video(
    v: &VideoRecord,
    key: &Key,
    first: u32,
) -> (StoredVideo, Vec<(Range<usize>, String)>) {
    let texts: Vec<(Range<usize>, String)> = cut::cut(&v.cues)
        .into_iter()
        .map(|r| (r.clone(), cut::text(&v.cues, r)))
        .collect();
    let video = StoredVideo {
        site: key.0.clone(),
        channel: key.1.clone(),
        slug: key.2.clone(),
        digest: digest(&v.cues),
        first,
        count: texts.len() as u32,
    };
    (video, texts)
}

/// The texts of the passages of `plan`'s video, read again from its page.
fn current_texts(archive: &Archive, plan: &Planned) -> Result<Vec<String>, PassageError> {
    let (site, channel, page) = &plan.page;
    let page = archive.sites()[*site]
        .transcript_page(channel, *page)
        .map_err(|e| PassageError::Read(e.to_string()))?;
    let v = page
        .videos
        .iter()
        .find(|v| v.slug == plan.video.slug)
        .filter(|v| digest(&v.cues) == plan.video.digest)
        .ok_or_else(|| {
            PassageError::Read(format!(
                "video {} changed while it was being embedded; run the build again",
                plan.video.slug
            ))
        })?;
    Ok(cut::cut(&v.cues)
        .into_iter()
        .map(|r| cut::text(&v.cues, r))
        .collect())
}

/// Videos gathered for the model, run together so every core has work.
#[derive(Default)]
struct Work {
    videos: Vec<usize>,
    texts: Vec<String>,
}

impl Work {
    /// Embeds the gathered texts, files each video's vectors and records,
    /// and writes them as a pending chunk.
    fn run(
        &mut self,
        embedder: &Embedder,
        planned: &[Planned],
        records: &mut [Record],
        vectors: &mut [u8],
        chunk: &mut ChunkWriter,
        progress: &(dyn Fn(EmbedEvent) + Sync),
    ) -> std::io::Result<()> {
        let dim = embedder.id().dim;
        let embedded = embedder.embed_with(&self.texts, &|n| {
            progress(EmbedEvent::Embedded { passages: n as u64 })
        });
        let mut at = embedded.into_iter();
        for &n in &self.videos {
            let video = &planned[n].video;
            let mut done = Vec::with_capacity(video.count as usize);
            for id in video.first as usize..(video.first + video.count) as usize {
                let (q, scale) = quantize(&at.next().expect("a vector per text"));
                let bytes: Vec<u8> = q.iter().map(|&b| b as u8).collect();
                records[id].scale = scale;
                vectors[id * dim..(id + 1) * dim].copy_from_slice(&bytes);
                done.push(PendingPassage {
                    scale,
                    vector: base64::engine::general_purpose::STANDARD.encode(&bytes),
                });
            }
            chunk.add(video, done)?;
        }
        self.videos.clear();
        self.texts.clear();
        chunk.flush()
    }
}

/// The finished chunks of interrupted runs with `model`, by video.
fn read_pending(index_dir: &Path, model: &ModelId) -> HashMap<Key, PendingVideo> {
    let mut out = HashMap::new();
    let dir = index_dir.join(PENDING);
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") || name.starts_with('.') {
            continue;
        }
        let Some(chunk) = std::fs::read(entry.path())
            .ok()
            .and_then(|b| serde_json::from_slice::<Chunk>(&b).ok())
        else {
            tracing::warn!("{}: unreadable, embedded again", entry.path().display());
            continue;
        };
        if !chunk.model.same_model(model) {
            continue;
        }
        for v in chunk.videos {
            out.insert((v.site.clone(), v.channel.clone(), v.slug.clone()), v);
        }
    }
    out
}

/// Removes what a run stopped mid-write left in the index folder: the
/// partial store folders and chunk files under temporary names (all
/// named by this module and [`store::write`], never anything else).
fn remove_leftovers(index_dir: &Path) {
    for entry in std::fs::read_dir(index_dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".passages.partial-") || name.starts_with(".passages.old-") {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    for entry in std::fs::read_dir(index_dir.join(PENDING))
        .into_iter()
        .flatten()
        .flatten()
    {
        if entry.file_name().to_string_lossy().starts_with(".chunk") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Gathers embedded videos and writes them as chunk files of about
/// [`CHUNK`] passages, each under a temporary name, then renamed.
struct ChunkWriter {
    dir: PathBuf,
    model: ModelId,
    videos: Vec<PendingVideo>,
    passages: usize,
    /// Passages written to chunks so far.
    written: usize,
}

impl ChunkWriter {
    fn new(dir: &Path, model: ModelId) -> Self {
        ChunkWriter {
            dir: dir.to_path_buf(),
            model,
            videos: Vec::new(),
            passages: 0,
            written: 0,
        }
    }

    fn add(&mut self, video: &StoredVideo, passages: Vec<PendingPassage>) -> std::io::Result<()> {
        self.passages += passages.len();
        self.videos.push(PendingVideo {
            site: video.site.clone(),
            channel: video.channel.clone(),
            slug: video.slug.clone(),
            digest: video.digest.clone(),
            passages,
        });
        if self.passages >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.videos.is_empty() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir)?;
        let chunk = Chunk {
            model: self.model.clone(),
            videos: std::mem::take(&mut self.videos),
        };
        let mut file = tempfile::Builder::new()
            .prefix(".chunk-")
            .suffix(".json")
            .tempfile_in(&self.dir)?;
        serde_json::to_writer(&mut file, &chunk).map_err(std::io::Error::other)?;
        file.as_file().sync_all()?;
        let name = format!("{}.json", &digest_of_keys(&chunk.videos));
        file.persist(self.dir.join(name)).map_err(|e| e.error)?;
        self.passages = 0;
        self.written += chunk.videos.iter().map(|v| v.passages.len()).sum::<usize>();
        crate::staging::keep_on_interrupt(
            &self.dir,
            format!(
                "{} passages embedded before the interrupt are kept in {}; the next `build --embed` starts from them",
                self.written,
                self.dir.display()
            ),
        );
        Ok(())
    }
}

/// A chunk's file name: a digest of the videos it holds.
fn digest_of_keys(videos: &[PendingVideo]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for v in videos {
        h.update(v.slug.as_bytes());
        h.update(v.digest.as_bytes());
    }
    format!("{:016x}", h.digest())
}
