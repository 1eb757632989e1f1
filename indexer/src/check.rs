//! `archilyzer-index check`: index-vs-full-scan parity.
//!
//! Runs a query set twice, once pruned by the index and once reading every
//! page, and compares the (video, field, cue) hits. Without a query file it
//! samples its own from the index's vocabulary and the archive's text:
//! rare, mid and common words, prefixes, phrases that span cues, the same
//! phrase with punctuation, diacritics and case-folding traps, regexes with
//! and without required literals (some inside words), and filtered and
//! scoped queries.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use archilyzer_core::archive::Archive;
use archilyzer_core::index::RawIndex;
use archilyzer_core::query::{search, FilterArgs, Request, Response};
use fst::Streamer;

use crate::cli::{IndexArgs, SourceArgs};

/// Flags of `archilyzer-index check`.
#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    #[command(flatten)]
    /// The archive to check.
    pub source: SourceArgs,
    #[command(flatten)]
    /// The index to check against a full scan.
    pub index: IndexArgs,
    /// Queries, one per line: plain text, `re:REGEX`, or a JSON request.
    /// Default: a set sampled from the archive.
    #[arg(long)]
    pub queries: Option<std::path::PathBuf>,
}

/// Runs the check the flags describe; exit 1 on any difference.
pub fn command(args: &CheckArgs) -> Result<ExitCode> {
    let archive = args.source.open()?;
    let dir = args.index.dir(&archive)?;
    let queries = match &args.queries {
        Some(file) => read_queries(file)?,
        None => sample_queries(&archive, &dir)?,
    };
    let report = check(&archive, &dir, &queries, &|line| eprintln!("check: {line}"));
    for d in report.differences.iter().take(10) {
        eprintln!("check: DIFFERENCE {d}");
    }
    println!(
        "check: {} queries, {} hit(s); pages read with the index {} vs full scan {}; {} difference(s) (corpus: {})",
        report.queries,
        report.hits,
        report.pages_read_indexed,
        report.pages_read_full,
        report.differences.len(),
        archive.handle()
    );
    Ok(if report.differences.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What a check found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Queries compared.
    pub queries: usize,
    /// One line per query whose two answers differ.
    pub differences: Vec<String>,
    /// Pages read with the index, all queries together.
    pub pages_read_indexed: usize,
    /// Pages read by the full scans.
    pub pages_read_full: usize,
    /// Hits found (the same both ways when there is no difference).
    pub hits: usize,
}

/// One comparable hit.
type HitKey = (String, String, String, String, usize);

fn hit_set(r: &Response) -> BTreeSet<HitKey> {
    r.videos
        .iter()
        .flat_map(|v| {
            v.hits.iter().map(move |h| {
                let scope = h.scope.as_str().to_string();
                (
                    v.site.clone(),
                    v.channel.clone(),
                    format!("{}:{}", v.kind, v.slug),
                    scope,
                    h.unit,
                )
            })
        })
        .collect()
}

/// Runs every query both ways.
pub fn check(
    archive: &Archive,
    index_dir: &Path,
    queries: &[Request],
    progress: &dyn Fn(&str),
) -> CheckReport {
    let mut report = CheckReport::default();
    for (i, q) in queries.iter().enumerate() {
        report.queries += 1;
        let label = describe(q);
        let (with, without) = (
            search(archive, Some(index_dir), q),
            search(archive, None, q),
        );
        match (with, without) {
            (Ok(a), Ok(b)) => {
                let (sa, sb) = (hit_set(&a), hit_set(&b));
                report.pages_read_indexed += a.pages_read;
                report.pages_read_full += b.pages_read;
                report.hits += sb.len();
                if sa != sb {
                    let missing: Vec<_> = sb.difference(&sa).take(3).collect();
                    let extra: Vec<_> = sa.difference(&sb).take(3).collect();
                    report.differences.push(format!(
                        "{label}: index {} hit(s), full scan {}; only in the full scan: {missing:?}; only with the index: {extra:?}",
                        sa.len(),
                        sb.len()
                    ));
                }
                progress(&format!(
                    "[{}/{}] {label}: {} hit(s), pages {} vs {} ({})",
                    i + 1,
                    queries.len(),
                    sb.len(),
                    a.pages_read,
                    b.pages_read,
                    a.index.describe()
                ));
            }
            (Err(a), Err(b)) if a == b => progress(&format!(
                "[{}/{}] {label}: refused both ways: {a}",
                i + 1,
                queries.len()
            )),
            (a, b) => report.differences.push(format!(
                "{label}: with the index {:?}, full scan {:?}",
                a.map(|r| r.total_hits),
                b.map(|r| r.total_hits)
            )),
        }
    }
    report
}

fn describe(q: &Request) -> String {
    let mut s = if q.regex {
        format!("regex {:?}", q.query)
    } else {
        format!("{:?}", q.query)
    };
    let mut extra = serde_json::to_value(&q.filters).unwrap_or_default();
    if let Some(map) = extra.as_object_mut() {
        map.retain(|_, v| !(v.is_null() || v.as_array().is_some_and(|a| a.is_empty())));
        if !q.scopes.is_empty() {
            map.insert("scopes".into(), q.scopes.clone().into());
        }
        if !q.exclude.is_empty() {
            map.insert("exclude".into(), q.exclude.clone().into());
        }
        if !map.is_empty() {
            s.push_str(&format!(" {extra}"));
        }
    }
    s
}

/// Reads a query file: one query per line, either a JSON request object
/// or plain text (a phrase); `re:` before plain text makes it a regex.
/// Blank lines and lines starting with `#` are skipped.
pub fn read_queries(path: &Path) -> Result<Vec<Request>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let request = if line.starts_with('{') {
            serde_json::from_str(line).with_context(|| {
                format!("{} line {}: not a request object", path.display(), n + 1)
            })?
        } else if let Some(re) = line.strip_prefix("re:") {
            Request {
                query: re.to_string(),
                regex: true,
                use_aliases: true,
                ..Default::default()
            }
        } else {
            Request {
                query: line.to_string(),
                use_aliases: true,
                ..Default::default()
            }
        };
        out.push(request);
    }
    Ok(out)
}

fn plain(q: &str) -> Request {
    Request {
        query: q.to_string(),
        use_aliases: true,
        ..Default::default()
    }
}

fn regex(q: &str) -> Request {
    Request {
        query: q.to_string(),
        regex: true,
        ..Default::default()
    }
}

/// A query set drawn from the index's vocabulary and the archive's text.
pub fn sample_queries(archive: &Archive, index_dir: &Path) -> Result<Vec<Request>> {
    let raw = RawIndex::load(index_dir).map_err(|e| {
        anyhow::anyhow!(
            "no usable index at {}: {e}; run `archilyzer-index build` first",
            index_dir.display()
        )
    })?;
    let mut terms: Vec<(String, usize)> = Vec::new();
    let mut stream = raw.terms.stream();
    while let Some((t, offset)) = stream.next() {
        let t = String::from_utf8_lossy(t).into_owned();
        if t.len() >= 3 && t.chars().all(|c| c.is_alphabetic()) {
            terms.push((t, raw.postings(offset).map(|p| p.len()).unwrap_or(0)));
        }
    }
    terms.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    anyhow::ensure!(
        terms.len() >= 10,
        "the index holds too few words ({}) to sample queries from",
        terms.len()
    );
    let pick = |from: usize, to: usize, n: usize| -> Vec<String> {
        let span = to.saturating_sub(from).max(1);
        (0..n)
            .map(|i| terms[(from + i * span / n).min(terms.len() - 1)].0.clone())
            .collect()
    };
    let n = terms.len();
    let rare = pick(0, n / 10, 4);
    let mid = pick(n * 45 / 100, n * 55 / 100, 4);
    let common = pick(n - n / 50 - 1, n, 3);
    let mut qs: Vec<Request> = Vec::new();
    qs.extend(rare.iter().chain(&mid).chain(&common).map(|t| plain(t)));
    qs.extend(mid.iter().map(|t| {
        plain(&format!(
            "{}*",
            &t[..t.char_indices().nth(3).map_or(t.len(), |c| c.0)]
        ))
    }));
    for (a, b) in spanning_pairs(archive, 4) {
        qs.push(plain(&format!("{a} {b}")));
        qs.push(plain(&format!("{}-{}", a.to_uppercase(), b)));
        qs.push(plain(&format!("{a}. {b}")));
    }
    for trap in [
        "K-Cups",
        "k cups",
        "k. cups",
        "cup",
        "CAFÉ",
        "cafe",
        "naïve",
        "Straße",
        "ſtraße",
        "ISTANBUL",
        "\u{212A}elvin",
        "zurich",
        "don't",
        "São Paulo",
    ] {
        qs.push(plain(trap));
    }
    for t in &mid {
        if t.len() >= 6 {
            qs.push(regex(&t[1..5]));
        }
    }
    qs.push(regex(&format!("({}|{})", mid[0], common[0])));
    qs.push(regex(&format!("{} [a-z]+ {}", common[0], common[1])));
    qs.push(regex("(k|cake)[ -]?cups?"));
    qs.push(regex(r"\b[a-z]{16,}\b"));
    qs.push(regex("[0-9]+"));
    qs.extend(filtered(archive, &common[0], &mid[0]));
    Ok(qs)
}

/// The last word of a cue and the first of the next, from a few pages.
fn spanning_pairs(archive: &Archive, n: usize) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for site in archive.sites() {
        for ch in &site.corpus().channels {
            let Ok(page) = site.transcript_page(&ch.slug, 1) else {
                continue;
            };
            for v in page.videos.iter().take(2) {
                for w in v.cues.windows(2).skip(3).take(1) {
                    let last = archilyzer_core::text::tokens(&w[0].text).pop();
                    let first = archilyzer_core::text::tokens(&w[1].text).into_iter().next();
                    if let (Some(a), Some(b)) = (last, first) {
                        out.push((a, b));
                    }
                }
            }
            if out.len() >= n {
                return out;
            }
        }
    }
    out
}

/// For each non-caption scope, a word that occurs in it (so the check
/// compares real hits there, not two empty answers).
fn scope_words(archive: &Archive) -> Vec<(&'static str, String)> {
    let site = &archive.sites()[0];
    let first_word = |text: &str| {
        archilyzer_core::text::tokens(text)
            .into_iter()
            .find(|t| t.len() >= 3)
    };
    let mut out = Vec::new();
    for ch in &site.corpus().channels {
        if let Ok(page) = site.transcript_page(&ch.slug, 1) {
            if let Some(v) = page
                .videos
                .iter()
                .find(|v| !v.description.is_empty() && !v.tags.is_empty())
            {
                out.extend(first_word(&v.description).map(|w| ("description", w)));
                out.extend(
                    v.tags
                        .first()
                        .and_then(|t| first_word(t))
                        .map(|w| ("tags", w)),
                );
                out.extend(first_word(&ch.name).map(|w| ("metadata", w)));
            }
        }
        if let Ok(chat) = site.chat_page(&ch.slug, 1) {
            let text = chat
                .videos
                .first()
                .and_then(|v| v.messages.first())
                .map(|m| m.text.clone());
            out.extend(text.and_then(|t| first_word(&t)).map(|w| ("chat", w)));
        }
        if let Ok(posts) = site.post_page(&ch.slug, 1) {
            out.extend(
                posts
                    .posts
                    .first()
                    .and_then(|p| first_word(&p.text))
                    .map(|w| ("posts", w)),
            );
        }
        if out.len() >= 5 {
            break;
        }
    }
    out
}

/// A common word under every filter and scope, and an exclusion.
fn filtered(archive: &Archive, common: &str, other: &str) -> Vec<Request> {
    let with = |f: FilterArgs| Request {
        query: common.to_string(),
        use_aliases: true,
        filters: f,
        ..Default::default()
    };
    let site = &archive.sites()[0];
    let mut qs = vec![
        with(FilterArgs {
            states: vec!["deleted".into()],
            ..Default::default()
        }),
        with(FilterArgs {
            states: vec!["maybe_missing".into(), "private".into(), "delted".into()],
            ..Default::default()
        }),
        with(FilterArgs {
            date_from: Some("20180101".into()),
            date_to: Some("20201231".into()),
            ..Default::default()
        }),
        with(FilterArgs {
            date_from: Some("2018".into()),
            ..Default::default()
        }),
        with(FilterArgs {
            media_type: Some("livestream".into()),
            ..Default::default()
        }),
        with(FilterArgs {
            age: Some("restricted".into()),
            ..Default::default()
        }),
    ];
    if let Some(ch) = site.corpus().channels.first() {
        qs.push(with(FilterArgs {
            channels: vec![ch.slug.clone(), "no-such-channel".into()],
            ..Default::default()
        }));
    }
    if let Some(g) = site.corpus().groups.last() {
        qs.push(with(FilterArgs {
            groups: vec![g.name.clone()],
            ..Default::default()
        }));
    }
    if let Some(tag) = site.tags().ok().flatten().and_then(|t| t.first().cloned()) {
        qs.push(with(FilterArgs {
            tags: vec![tag.id],
            ..Default::default()
        }));
    }
    for (scope, word) in scope_words(archive) {
        qs.push(Request {
            query: word,
            scopes: vec![scope.into()],
            ..Default::default()
        });
        qs.push(Request {
            query: common.to_string(),
            scopes: vec![scope.into()],
            ..Default::default()
        });
    }
    qs.push(Request {
        query: common.to_string(),
        exclude: vec![other.to_string()],
        ..Default::default()
    });
    qs
}
