//! Counting recordings, not uploads: mirrors of one recording (a cluster
//! of `duplicates.json`) fold into one row.
//!
//! Two rules keep it safe. Nothing is hidden: the folded copies are named
//! on the row they fold into. The surviving copy is never dropped: the
//! kept row is the cluster's canonical member only when that member is
//! itself among the matches, otherwise the first match, because a mirror
//! is often the only copy of a deleted upload.

use std::collections::HashMap;

use crate::archive::Archive;
use crate::query::{ExactCount, VideoResult};

/// A result row and the uploads folded into it (`channel/slug`).
pub struct Row {
    /// The upload kept for the row.
    pub video: VideoResult,
    /// The mirrors folded into it, as `channel/slug`.
    pub also: Vec<String>,
}

/// What collapsing did.
pub struct Collapsed {
    /// One row per recording, in the order of the matches.
    pub rows: Vec<Row>,
    /// How many uploads were folded into another row.
    pub mirrors: usize,
    /// How many clusters folded at least one mirror.
    pub clusters: usize,
}

/// Folds mirrors as matches arrive, so a caller that lists matches as
/// pages are read (the command line) folds exactly as one that holds them
/// all ([`collapse`]): the same rows are kept, by the rules above.
///
/// [`Folder::push`] says at once what to do with a match: list it (it is
/// in no cluster, or it is its cluster's canonical member), or hold it (a
/// mirror whose cluster's canonical may still match). [`Folder::finish`]
/// gives the held matches that turn out to be their recording's only
/// listed copy. A row listed at once keeps its place; a held one comes at
/// the end, and [`collapse`] puts every row back in the order of the
/// matches.
pub struct Folder {
    /// Upload → (cluster key, is canonical).
    member: HashMap<Upload, (String, bool)>,
    /// Per cluster: its listed row, once listed.
    listed: HashMap<String, Upload>,
    /// Mirrors held, with their place among the matches.
    held: Vec<(usize, String, VideoResult)>,
    /// Per listed row: the uploads folded into it, as `channel/slug`.
    folded: HashMap<Upload, Vec<String>>,
    seen: usize,
}

/// One upload: (site, channel, slug).
pub type Upload = (String, String, String);

/// The upload `v` is.
pub fn upload(v: &VideoResult) -> Upload {
    (v.site.clone(), v.channel.clone(), v.slug.clone())
}

/// What a folded result holds besides its rows.
pub struct Folds {
    /// Per listed row: the uploads folded into it, as `channel/slug`.
    pub into: HashMap<Upload, Vec<String>>,
    /// How many uploads were folded into another row.
    pub mirrors: usize,
    /// How many clusters folded at least one mirror.
    pub clusters: usize,
}

fn name(v: &VideoResult) -> String {
    format!("{}/{}", v.channel, v.slug)
}

impl Folder {
    /// A folder for `archive`'s clusters (none when it has no
    /// `duplicates.json`).
    pub fn new(archive: &Archive) -> Folder {
        let mut member = HashMap::new();
        for site in archive.sites() {
            let Ok(Some(dups)) = site.duplicates() else {
                continue;
            };
            for c in &dups.clusters {
                for m in &c.members {
                    let canonical = m.channel == c.canonical.channel && m.slug == c.canonical.slug;
                    member.insert(
                        (site.id().to_string(), m.channel.clone(), m.slug.clone()),
                        (format!("{}/{}", site.id(), c.id), canonical),
                    );
                }
            }
        }
        Folder {
            member,
            listed: HashMap::new(),
            held: Vec::new(),
            folded: HashMap::new(),
            seen: 0,
        }
    }

    /// The next match: `Some` to list it now (with its place among the
    /// matches), `None` when it is held or folded into a listed row.
    pub fn push(&mut self, v: VideoResult) -> Option<(usize, VideoResult)> {
        let at = self.seen;
        self.seen += 1;
        let Some((cluster, canonical)) = self.member.get(&upload(&v)).cloned() else {
            return Some((at, v));
        };
        if let Some(row) = self.listed.get(&cluster) {
            self.folded.entry(row.clone()).or_default().push(name(&v));
            return None;
        }
        if !canonical {
            self.held.push((at, cluster, v));
            return None;
        }
        let row = upload(&v);
        let (mirrors, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|(_, c, _)| *c == cluster);
        self.held = rest;
        let into = self.folded.entry(row.clone()).or_default();
        into.extend(mirrors.iter().map(|(_, _, m)| name(m)));
        self.listed.insert(cluster, row);
        Some((at, v))
    }

    /// The held matches to list after all (each the first match of a
    /// recording whose canonical copy never matched), with their places,
    /// and what was folded into which row.
    pub fn finish(mut self) -> (Vec<(usize, VideoResult)>, Folds) {
        let mut rows = Vec::new();
        for (at, cluster, v) in std::mem::take(&mut self.held) {
            match self.listed.get(&cluster) {
                Some(row) => self.folded.entry(row.clone()).or_default().push(name(&v)),
                None => {
                    self.listed.insert(cluster, upload(&v));
                    rows.push((at, v));
                }
            }
        }
        self.folded.retain(|_, f| !f.is_empty());
        let folds = Folds {
            mirrors: self.folded.values().map(Vec::len).sum(),
            clusters: self.folded.len(),
            into: self.folded,
        };
        (rows, folds)
    }
}

/// The line that says what folding did, `None` when it folded nothing:
/// `mirrors` uploads in `clusters` clusters, `rows` rows left, and
/// `unfold` says how to list every upload instead.
pub fn note(mirrors: usize, clusters: usize, rows: usize, unfold: &str) -> Option<String> {
    (mirrors > 0).then(|| {
        format!(
            "{mirrors} mirror(s) collapsed across {clusters} cluster(s): the {rows} above are distinct RECORDINGS, not uploads ({unfold} for one row per upload)"
        )
    })
}

/// The counts every search answer leads with, over its rows (mirrors
/// folded unless asked not to), complete whatever a page lists: the
/// command line and the MCP server count with this one type.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Counts {
    /// Videos (posts) that match, after folding mirrors.
    pub total: usize,
    /// Confirmed hits in all of them, aliases and fuzzy variants included.
    pub total_hits: usize,
    /// Videos and hits of the query exactly as typed, without aliases and
    /// fuzzy variants: the number to quote.
    pub exact: ExactCount,
}

impl Counts {
    /// Counts one row: `v` with `hits` confirmed hits (a worklist keeps
    /// the count, not the hits).
    pub fn add(&mut self, v: &VideoResult, hits: usize) {
        self.total += 1;
        self.total_hits += hits;
        self.exact.hits += v.exact_hits;
        self.exact.videos += usize::from(v.exact_hits > 0);
    }

    /// The counts of `rows`, each with the hits `hits` says it has.
    pub fn of(rows: &[Row], hits: impl Fn(&VideoResult) -> usize) -> Counts {
        let mut counts = Counts::default();
        for row in rows {
            counts.add(&row.video, hits(&row.video));
        }
        counts
    }

    /// The answer's first line: the exact counts, then what aliases and
    /// variants add (`label` names what was searched).
    pub fn headline(&self, label: &str) -> String {
        crate::report::headline(
            label,
            (self.exact.videos, self.exact.hits),
            (self.total, self.total_hits),
        )
    }
}

/// Folds the members of each duplicate cluster into one row, in the order
/// of the matches (the rows a [`Folder`] keeps).
pub fn collapse(archive: &Archive, videos: Vec<VideoResult>) -> Collapsed {
    let mut folder = Folder::new(archive);
    let mut rows: Vec<(usize, VideoResult)> =
        videos.into_iter().filter_map(|v| folder.push(v)).collect();
    let (late, mut folds) = folder.finish();
    rows.extend(late);
    rows.sort_by_key(|(at, _)| *at);
    let rows = rows
        .into_iter()
        .map(|(_, video)| Row {
            also: folds.into.remove(&upload(&video)).unwrap_or_default(),
            video,
        })
        .collect();
    Collapsed {
        rows,
        mirrors: folds.mirrors,
        clusters: folds.clusters,
    }
}
