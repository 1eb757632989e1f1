//! `significant_terms`: the words said unusually often where a query is
//! said (the definitions are in the module above).

use std::collections::HashSet;
use std::path::Path;

use super::background::{Background, Opened};
use super::foreground::{Counting, Foreground, Matched};
use super::{bound, video_fields, RelatedError};
use crate::archive::Archive;
use crate::query::{search_each_over, Filters, Request};

/// How many terms, from how many foreground videos.
#[derive(Debug, Clone, Copy)]
pub struct SignificantOptions {
    /// A word must be said in at least this many foreground videos.
    pub min_videos: usize,
    /// Terms to give, highest score first.
    pub limit: usize,
    /// How the foreground's words are counted (the same counts either
    /// way; the default takes the cheaper).
    pub counting: Counting,
}

impl Default for SignificantOptions {
    fn default() -> Self {
        SignificantOptions {
            min_videos: 3,
            limit: 25,
            counting: Counting::Cheaper,
        }
    }
}

/// One significant word.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct SignificantTerm {
    /// The word, as the index normalises it.
    pub word: String,
    /// Foreground videos saying it.
    pub fg: u64,
    /// Background videos saying it.
    pub bg: u64,
    /// JLH: (fg/F − bg/B) × (fg/F) / (bg/B).
    pub score: f64,
    /// A share link searching for the query AND this word (`open_link`
    /// opens it), when the search can be carried by one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
}

/// What is said where a query is said.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct SignificantTerms {
    /// The query as given.
    pub query: String,
    /// F: the videos the query matches, every hit confirmed.
    pub foreground: usize,
    /// B: the videos in scope after the filters.
    pub background: usize,
    /// The words, highest score first.
    pub terms: Vec<SignificantTerm>,
    /// Words that passed min_videos and scored, shown or not.
    pub terms_total: usize,
    /// The least number of foreground videos a word is said in.
    pub min_videos: usize,
    /// Pages read: to confirm the foreground, count its words, and count
    /// the background where the index could not.
    pub pages_read: usize,
    /// What the index could do.
    pub index: String,
    /// Whether some page could not be read (the counts then miss its
    /// videos); named in `unreadable`.
    pub partial: bool,
    /// Pages that could not be read, with why.
    pub unreadable: Vec<String>,
    /// The search's notes (aliases that fired, the scope).
    pub notes: Vec<String>,
}

/// The significant terms of `request` on `archive` (see the module doc):
/// the search runs exactly as `search` runs it, with no cap.
pub fn significant_terms(
    archive: &Archive,
    index_dir: Option<&Path>,
    request: &Request,
    opts: SignificantOptions,
) -> Result<SignificantTerms, RelatedError> {
    let min_videos = bound("min_videos", opts.min_videos, 1, 1_000_000)?;
    let limit = bound("limit", opts.limit, 1, 1000)?;
    let fields = video_fields(&request.scopes)?;
    let filters = Filters::resolve(&request.filters, archive)?;
    let uncapped = Request {
        max_pages: None,
        max_videos: None,
        ..request.clone()
    };
    let mut matched = Matched::new();
    let table = archive.page_table();
    let found = search_each_over(
        archive,
        &table,
        index_dir,
        &uncapped,
        &mut |v| {
            if v.kind == "video" {
                matched
                    .entry((v.site.clone(), v.channel.clone(), v.page))
                    .or_default()
                    .insert(v.slug);
            }
        },
        &mut |_, _| {},
    )?;
    let mut unreadable = found.unreadable.clone();
    let opened = Opened::new(archive, table, index_dir);
    let mut bg = Background::plan(archive, opened, &filters, fields);
    let mut census = Default::default();
    let fg = Foreground::count(
        archive,
        bg.index(),
        bg.pages(),
        &matched,
        (fields, opts.counting),
        (bg.whole(), &mut census),
        &mut unreadable,
    );
    let (foreground, fg_pages_read, fg) = (fg.videos, fg.pages_read, fg.words);
    let own: HashSet<String> = if request.regex {
        HashSet::new()
    } else {
        crate::text::tokens(&request.query).into_iter().collect()
    };
    let wanted: rustc_hash::FxHashSet<String> = fg
        .iter()
        .filter(|(w, &n)| n >= min_videos as u64 && !own.contains(*w))
        .map(|(w, _)| w.clone())
        .collect();
    bg.know(census);
    bg.read(&filters, wanted);
    unreadable.extend(bg.unreadable.iter().cloned());
    let (mut terms, terms_total) = score(&fg, &bg, foreground, limit);
    for t in &mut terms {
        t.search = with_word(archive, request, &t.word);
    }
    Ok(SignificantTerms {
        query: request.query.clone(),
        foreground,
        background: bg.videos,
        terms,
        terms_total,
        min_videos,
        pages_read: found.pages_read + fg_pages_read + bg.pages_read + bg.pages_read_for_holders(),
        index: bg.status.describe(),
        partial: found.coverage.partial || !unreadable.is_empty(),
        unreadable,
        notes: found.notes,
    })
}

/// The `limit` highest scored words, highest first (ties: more
/// foreground videos, then the word), those no more common in F than in
/// B left out; and how many words scored in all.
fn score(
    fg: &rustc_hash::FxHashMap<String, u64>,
    bg: &Background,
    f: usize,
    limit: usize,
) -> (Vec<SignificantTerm>, usize) {
    let (f, b) = (f as f64, bg.videos as f64);
    let mut terms: Vec<SignificantTerm> = bg
        .wanted()
        .iter()
        .filter_map(|word| {
            let fg_n = fg[word];
            let bg_n = bg.count(word);
            let (fs, bs) = (fg_n as f64 / f, bg_n as f64 / b);
            (fs > bs).then(|| SignificantTerm {
                score: (fs - bs) * fs / bs,
                word: word.clone(),
                fg: fg_n,
                bg: bg_n,
                search: None,
            })
        })
        .collect();
    let total = terms.len();
    // The order is total (the word breaks every tie), so the words kept
    // and their order do not depend on the set's iteration order.
    let order = |a: &SignificantTerm, b: &SignificantTerm| {
        b.score
            .total_cmp(&a.score)
            .then(b.fg.cmp(&a.fg))
            .then(a.word.cmp(&b.word))
    };
    if terms.len() > limit {
        terms.select_nth_unstable_by(limit - 1, order);
        terms.truncate(limit);
    }
    terms.sort_unstable_by(order);
    (terms, total)
}

/// The share link of `request` AND `word`, at the archive's own origin;
/// `None` when a link cannot carry the search (fuzzy, tags) or the
/// archive has no origin.
fn with_word(archive: &Archive, request: &Request, word: &str) -> Option<String> {
    use crate::share::{eval::link_for, origin_of, Node, Term};
    let mut link = link_for(archive, &origin_of(archive)?, request).ok()?;
    let term = Node::Term(Term {
        query: word.to_string(),
        scopes: request.scopes.clone(),
        ..Term::default()
    });
    link.tree = match link.tree {
        Node::And(mut parts) => {
            parts.push(term);
            Node::And(parts)
        }
        tree => Node::And(vec![tree, term]),
    };
    Some(link.encode())
}
