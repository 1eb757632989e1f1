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
use crate::query::VideoResult;

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

/// Folds the members of each duplicate cluster into one row, in order.
pub fn collapse(archive: &Archive, videos: Vec<VideoResult>) -> Collapsed {
    // (site, channel, slug) → (cluster key, is canonical)
    let mut member: HashMap<(String, String, String), (String, bool)> = HashMap::new();
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
    let cluster_of = |v: &VideoResult| {
        member
            .get(&(v.site.clone(), v.channel.clone(), v.slug.clone()))
            .cloned()
    };
    // The kept index of each cluster: its canonical member if matched, else the first match.
    let mut kept: HashMap<String, usize> = HashMap::new();
    for (i, v) in videos.iter().enumerate() {
        if let Some((cluster, canonical)) = cluster_of(v) {
            let entry = kept.entry(cluster).or_insert(i);
            if canonical {
                *entry = i;
            }
        }
    }
    let mut folded: HashMap<usize, Vec<String>> = HashMap::new();
    for (i, v) in videos.iter().enumerate() {
        if let Some((cluster, _)) = cluster_of(v) {
            let k = kept[&cluster];
            if k != i {
                folded
                    .entry(k)
                    .or_default()
                    .push(format!("{}/{}", v.channel, v.slug));
            }
        }
    }
    let mirrors = folded.values().map(Vec::len).sum();
    let clusters = folded.len();
    let rows = videos
        .into_iter()
        .enumerate()
        .filter(|(i, v)| cluster_of(v).is_none_or(|(c, _)| kept[&c] == *i))
        .map(|(i, video)| Row {
            video,
            also: folded.remove(&i).unwrap_or_default(),
        })
        .collect();
    Collapsed {
        rows,
        mirrors,
        clusters,
    }
}

/// The line saying how many matched videos are mirrors of another match
/// (clusters of `duplicates.json`), which `archilyzer-mcp` folds into one
/// row per recording by default; `None` when there are none.
pub fn mirrors_note(archive: &Archive, matched: Vec<VideoResult>) -> Option<String> {
    let total = matched.len();
    let c = collapse(archive, matched);
    let verb = if c.mirrors == 1 {
        "is a mirror"
    } else {
        "are mirrors"
    };
    (c.mirrors > 0).then(|| {
        format!(
            "{} of the {total} videos {verb} of another match ({}): {}; archilyzer-mcp lists one row per recording (collapse_duplicates)",
            c.mirrors,
            crate::report::counted(c.clusters as u64, "duplicate cluster"),
            crate::report::counted(c.rows.len() as u64, "distinct recording"),
        )
    })
}
