//! Asking by meaning: the passages nearest a query, fused with the words
//! ranking, their text read from the archive.
//!
//! The meaning side ranks every passage in scope by the cosine of its
//! vector with the query's; the words side by BM25 ([`super::words`]).
//! Each keeps its best [`DEPTH`]; `both` first adds to the words side
//! the words that weigh most in the best passages by meaning
//! ([`super::feedback`]), then fuses the two by reciprocal rank fusion,
//! `Σ 1 / (RRF_K + rank)` over the rankings a passage is in (Cormack,
//! Clarke and Büttcher, 2009, whose constant 60 this keeps).
//!
//! Promises: a passage's text is read from the archive and shown only
//! when it is the text that was embedded (its fingerprint), so a stale
//! store loses passages, counted in the answer, and never shows words it
//! did not rank; vectors of another model are never compared with the
//! query's (refused, with the fix).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use archilyzer_embed::Embedder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cut;
use super::store::Store;
use super::PassageError;
use crate::archive::Archive;
use crate::index::{RawIndex, VideoRow};
use crate::links::LinkTarget;
use crate::query::filters::{Filters, Verdict, VideoFacts};

/// Passages each ranking keeps before fusion.
pub const DEPTH: usize = 1_000;

/// Reciprocal rank fusion's constant.
pub const RRF_K: f32 = 60.0;

/// Which ranking orders the passages: `Meaning`, the cosine of each
/// passage's vector with the question's; `Words`, BM25 over its words;
/// `Both`, the two fused by reciprocal rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum By {
    // (No doc comments on the variants: a tool's schema would repeat
    // them; the argument's own description says what each is.)
    #[allow(missing_docs)]
    Meaning,
    #[allow(missing_docs)]
    Words,
    #[allow(missing_docs)]
    #[default]
    Both,
}

impl By {
    /// The name an argument gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            By::Meaning => "meaning",
            By::Words => "words",
            By::Both => "both",
        }
    }

    /// The ranking `name` names.
    pub fn parse(name: &str) -> Option<By> {
        [By::Meaning, By::Words, By::Both]
            .into_iter()
            .find(|b| b.as_str() == name)
    }
}

/// A question for [`find`].
pub struct PassageQuery<'a> {
    /// What is asked, in any words.
    pub text: &'a str,
    /// Which ranking orders the answer.
    pub by: By,
    /// Passages wanted.
    pub limit: usize,
    /// At most one passage (the best) per video.
    pub one_per_video: bool,
    /// Which videos are in scope.
    pub filters: &'a Filters,
}

/// One passage found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Passage {
    /// The channel's slug.
    pub channel: String,
    /// The video's id.
    pub video: String,
    /// The video's title.
    pub title: String,
    /// Seconds from the video's start to the passage's first cue.
    pub start: f64,
    /// Seconds to the end of its last cue.
    pub end: f64,
    /// The passage's words as captioned.
    pub text: String,
    /// A link to its start, where the video has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Its score in the ranking asked for: the fused score, the cosine,
    /// or BM25.
    pub score: f32,
    /// Its place in the meaning ranking (from 1), when in its best
    /// [`DEPTH`].
    pub rank_meaning: Option<u32>,
    /// Its place in the words ranking (from 1), when in its best
    /// [`DEPTH`]; under `both`, the ranking of the query's words and the
    /// feedback words ([`super::feedback`]).
    pub rank_words: Option<u32>,
    /// The query's words it contains.
    pub words: Vec<String>,
}

impl Passage {
    /// Where it was said: `channel · title (video) 12:03–12:44`.
    pub fn heading(&self) -> String {
        use crate::format::clock;
        format!(
            "{} · {} ({}) {}–{}",
            self.channel,
            self.title,
            self.video,
            clock(self.start),
            clock(self.end)
        )
    }

    /// Its places in the rankings that hold it: `meaning #3, words #12`
    /// (empty when neither does).
    pub fn ranks(&self) -> String {
        [("meaning", self.rank_meaning), ("words", self.rank_words)]
            .iter()
            .filter_map(|(name, r)| r.map(|r| format!("{name} #{r}")))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The answer of [`find`].
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The passages, best first.
    pub passages: Vec<Passage>,
    /// The ranking used.
    pub by: By,
    /// The model the vectors are of.
    pub model: String,
    /// Passages in scope (after the filters).
    pub in_scope: u32,
    /// Passages skipped because their video changed since they were
    /// embedded.
    pub stale: u32,
    /// The words `both` added to the words side from the best passages
    /// by meaning ([`super::feedback`]); empty for the other rankings.
    pub feedback: Vec<String>,
}

/// What the words side searched for besides the query's words (the
/// `feedback` of [`Found`]), as one line; `None` when nothing else.
pub fn feedback_line(feedback: &[String]) -> Option<String> {
    (!feedback.is_empty()).then(|| {
        format!(
            "the words side also searched for {}, taken from the best passages by meaning",
            feedback.join(", ")
        )
    })
}

/// The passages of the store in `index_dir` nearest `q`.
pub fn find(
    archive: &Archive,
    index_dir: &Path,
    store: &Store,
    embedder: Option<&Embedder>,
    q: &PassageQuery,
) -> Result<Found, PassageError> {
    let started = std::time::Instant::now();
    let raw = archive.indexes().load(index_dir).ok();
    let allowed = scope(archive, store, raw.as_deref(), q.filters);
    let in_scope: Vec<u32> = (0..store.len())
        .filter(|&i| allowed[store.record(i).video as usize])
        .collect();
    let query_words = distinct_words(q.text);
    let meaning = match q.by {
        By::Words => Vec::new(),
        By::Meaning | By::Both => {
            let embedder = check_model(store, embedder)?;
            let at = std::time::Instant::now();
            let ranked = by_meaning(store, embedder, q.text, &in_scope);
            tracing::debug!(
                "passages: meaning ranked in {:.1} ms",
                at.elapsed().as_secs_f64() * 1e3
            );
            ranked
        }
    };
    let mut reader = Reader {
        archive,
        index: raw.as_deref(),
        store,
        query_words: &query_words,
        read: HashMap::new(),
    };
    let feedback = match q.by {
        By::Both => feedback_words(&mut reader, &meaning),
        By::Meaning | By::Words => Vec::new(),
    };
    let words = match q.by {
        By::Meaning => Vec::new(),
        By::Words | By::Both => {
            let asked: Vec<String> = query_words.iter().chain(&feedback).cloned().collect();
            by_words(store, &asked, &allowed)
        }
    };
    let ranked = fuse(q.by, &meaning, &words);
    let ranked_at = started.elapsed();
    let mut found = Found {
        passages: Vec::new(),
        by: q.by,
        model: store.meta.model.name.clone(),
        in_scope: in_scope.len() as u32,
        stale: 0,
        feedback,
    };
    let mut videos_seen = HashSet::new();
    for (id, score, rank_meaning, rank_words) in ranked {
        if found.passages.len() >= q.limit {
            break;
        }
        let record = store.record(id);
        if q.one_per_video && !videos_seen.insert(record.video) {
            continue;
        }
        match reader.passage(id) {
            Some(mut p) => {
                p.score = score;
                p.rank_meaning = rank_meaning;
                p.rank_words = rank_words;
                found.passages.push(p);
            }
            None => {
                found.stale += 1;
                if q.one_per_video {
                    videos_seen.remove(&record.video);
                }
            }
        }
    }
    tracing::debug!(
        "passages: ranked in {:.1} ms, texts read in {:.1} ms",
        ranked_at.as_secs_f64() * 1e3,
        (started.elapsed() - ranked_at).as_secs_f64() * 1e3
    );
    Ok(found)
}

/// The embedder, when its vectors are comparable with the store's.
fn check_model<'e>(
    store: &Store,
    embedder: Option<&'e Embedder>,
) -> Result<&'e Embedder, PassageError> {
    let Some(embedder) = embedder else {
        return Err(PassageError::NoModel);
    };
    if !embedder.id().same_model(&store.meta.model) {
        return Err(PassageError::OtherModel {
            built: Box::new(store.meta.model.clone()),
            loaded: Box::new(embedder.id().clone()),
        });
    }
    Ok(embedder)
}

/// For each video of the store, whether the filters let it through.
fn scope(archive: &Archive, store: &Store, raw: Option<&RawIndex>, filters: &Filters) -> Vec<bool> {
    let rows: HashMap<(&str, &str, &str), &VideoRow> = match raw.and_then(RawIndex::every_row) {
        Some(rows) if filters.narrows_videos() => rows
            .iter()
            .map(|r| ((r.site.as_str(), r.channel.as_str(), r.slug.as_str()), r))
            .collect(),
        _ => HashMap::new(),
    };
    let sites: HashMap<&str, usize> = archive
        .sites()
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id(), i))
        .collect();
    store
        .meta
        .videos
        .iter()
        .map(|v| {
            let Some(&site) = sites.get(v.site.as_str()) else {
                return false;
            };
            if !filters.narrows_videos() {
                return filters.channel_in_scope(site, &v.channel);
            }
            rows.get(&(v.site.as_str(), v.channel.as_str(), v.slug.as_str()))
                .is_some_and(|r| {
                    filters.verdict(&VideoFacts::of_row(site, &v.channel, *r)) == Verdict::Passes
                })
        })
        .collect()
}

/// The query's distinct words, normalised as the index normalises.
fn distinct_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    crate::text::tokens(text)
        .into_iter()
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// The best [`DEPTH`] passages of `ids` by cosine with the query.
fn by_meaning(store: &Store, embedder: &Embedder, text: &str, ids: &[u32]) -> Vec<(u32, f32)> {
    let at = std::time::Instant::now();
    let query = embedder.embed_one(text);
    tracing::debug!(
        "passages: query embedded in {:.1} ms",
        at.elapsed().as_secs_f64() * 1e3
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let dots = store.vectors.dots(&query, ids, threads);
    let scored = ids
        .iter()
        .zip(dots)
        .map(|(&id, dot)| (id, dot * store.record(id).scale))
        .collect();
    best(scored)
}

/// The best [`DEPTH`] passages by BM25 of the query's words.
fn by_words(store: &Store, words: &[String], allowed: &[bool]) -> Vec<(u32, f32)> {
    let in_scope = |id: u32| allowed[store.record(id).video as usize];
    best(store.words.scores(words, &in_scope))
}

/// The [`DEPTH`] highest scores, best first (ties by passage number).
fn best(mut scored: Vec<(u32, f32)>) -> Vec<(u32, f32)> {
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if scored.len() > DEPTH {
        scored.select_nth_unstable_by(DEPTH - 1, order);
        scored.truncate(DEPTH);
    }
    scored.sort_unstable_by(order);
    scored
}

/// The order to show passages in, each with its score and its ranks.
fn fuse(
    by: By,
    meaning: &[(u32, f32)],
    words: &[(u32, f32)],
) -> Vec<(u32, f32, Option<u32>, Option<u32>)> {
    let rank_of = |list: &[(u32, f32)]| -> HashMap<u32, u32> {
        list.iter()
            .enumerate()
            .map(|(r, (id, _))| (*id, r as u32 + 1))
            .collect()
    };
    let (m, w) = (rank_of(meaning), rank_of(words));
    let ranks = |id: u32| (m.get(&id).copied(), w.get(&id).copied());
    let mut out: Vec<(u32, f32, Option<u32>, Option<u32>)> = match by {
        By::Meaning => meaning
            .iter()
            .map(|&(id, s)| (id, s, ranks(id).0, ranks(id).1))
            .collect(),
        By::Words => words
            .iter()
            .map(|&(id, s)| (id, s, ranks(id).0, ranks(id).1))
            .collect(),
        By::Both => {
            let ids: HashSet<u32> = m.keys().chain(w.keys()).copied().collect();
            ids.into_iter()
                .map(|id| {
                    let (rm, rw) = ranks(id);
                    let score = [rm, rw]
                        .into_iter()
                        .flatten()
                        .map(|r| 1.0 / (RRF_K + r as f32))
                        .sum();
                    (id, score, rm, rw)
                })
                .collect()
        }
    };
    if by == By::Both {
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    }
    out
}

/// The words the best passages by meaning add to the words side: their
/// texts as the archive has them now (a stale one is passed over, and at
/// most three times [`super::feedback::PASSAGES`] are tried).
fn feedback_words(reader: &mut Reader, meaning: &[(u32, f32)]) -> Vec<String> {
    let wanted = super::feedback::PASSAGES;
    let texts: Vec<String> = meaning
        .iter()
        .take(wanted * 3)
        .filter_map(|&(id, _)| reader.passage(id).map(|p| p.text))
        .take(wanted)
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    super::feedback::words(&reader.store.words, &texts, reader.query_words)
}

/// Reads passages' texts from the archive, a video at a time, each
/// passage once however often it is asked for.
struct Reader<'a> {
    archive: &'a Archive,
    index: Option<&'a RawIndex>,
    store: &'a Store,
    query_words: &'a [String],
    read: HashMap<u32, Option<Passage>>,
}

impl Reader<'_> {
    /// Passage `id` as the archive has it now, or `None` when its video
    /// is gone or its text is not the one embedded.
    fn passage(&mut self, id: u32) -> Option<Passage> {
        if let Some(p) = self.read.get(&id) {
            return p.clone();
        }
        let record = self.store.record(id);
        let video = &self.store.meta.videos[record.video as usize];
        let p = self.read_passage(video, &record);
        self.read.insert(id, p.clone());
        p
    }

    fn read_passage(
        &self,
        video: &super::store::StoredVideo,
        record: &super::store::Record,
    ) -> Option<Passage> {
        let query_words = self.query_words;
        let site = self.archive.sites().iter().find(|s| s.id() == video.site)?;
        let span = || {
            self.index
                .and_then(|i| i.span_of(&video.site, &video.channel, &video.slug))
        };
        let row = self.index.and_then(|i| {
            let (page, at) = i.locate(&video.site, &video.channel, &video.slug)?;
            i.page_rows(page)?.get(at)
        });
        let v = site.find_video(&video.channel, &video.slug, span).ok()??;
        let range = record.first_cue as usize..(record.first_cue + record.cues) as usize;
        let cues = v.cues.get(range.clone())?;
        let text = cut::text(&v.cues, range);
        if cut::fingerprint(&text) != record.fingerprint {
            return None;
        }
        let held: HashSet<String> = crate::text::tokens(&text).into_iter().collect();
        let target = LinkTarget {
            viewer: site.viewer(),
            slug: &video.slug,
            platform: row.and_then(|r| r.platform).or(v.platform),
            url: row
                .and_then(|r| r.url.as_deref())
                .or(v.webpage_url.as_deref()),
        };
        let start = cues.first()?.start;
        Some(Passage {
            channel: video.channel.clone(),
            video: video.slug.clone(),
            title: v.title.clone(),
            start,
            end: cues.last()?.end,
            link: target.moment(start),
            text,
            score: 0.0,
            rank_meaning: None,
            rank_words: None,
            words: query_words
                .iter()
                .filter(|w| held.contains(*w))
                .cloned()
                .collect(),
        })
    }
}
