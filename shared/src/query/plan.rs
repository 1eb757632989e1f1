//! The planner: which pages a query reads.
//!
//! A page is planned when its layer is one the scopes search, its channel
//! is in scope, and either the index vouches for it and shows it may hold
//! both a video passing the filters and the query's words, or the index
//! cannot vouch for it (invariant 2: new, changed, failed at build, or no
//! index at all) and the summaries do not show that none of its videos
//! passes the filters ([`super::filter_first`]). The plan's note says which
//! path ran: `index-pruned`, `filter-pruned` or `full scan`.
//! `max_pages` then cuts the plan in archive order, never at random, and
//! the coverage names what was and was not reached.
//!
//! On each page it also chooses how its videos are read: whole, by their
//! spans, or, for a one-word search, from the cues the index placed
//! ([`Placing`]; [`super::placed`] confirms them).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::filters::{Filters, Verdict, VideoFacts};
use super::prune::Cond;
use super::terms::Terms;
use super::QueryError;
use super::{Request, Scope};
use crate::archive::{Archive, PageRef};
use crate::format::paths::Layer;
use crate::format::spans::VideoSpan;
use crate::index::places::PlacedVideo;
use crate::index::select::{Holders, Selection};
use crate::index::{Index, LayerName, VideoRow};

/// A request compiled against an archive.
pub struct Compiled {
    /// The query, the aliases each site fired, and the excludes.
    pub terms: Terms,
    /// The fields searched.
    pub scopes: BTreeSet<Scope>,
    /// The filters, resolved against the archive.
    pub filters: Filters,
    /// What was not recognised, and the aliases that fired.
    pub notes: Vec<String>,
    /// Stop after this many matching videos (the result then says PARTIAL).
    pub max_videos: Option<usize>,
}

impl Compiled {
    /// Compiles `req` against `archive`; the error says what is wrong with the query.
    pub fn new(
        archive: &Archive,
        req: &Request,
        index: Option<&Index>,
    ) -> Result<Compiled, QueryError> {
        let filters = Filters::resolve(&req.filters, archive)?;
        let scopes = Scope::resolve(&req.scopes)?;
        let (phrases, fuzzy_note) = super::suggest::expansions(index, req);
        let terms = Terms::compile(archive, req)?.with_expansions(phrases)?;
        let mut notes = filters.notes.clone();
        notes.extend(terms.describe(archive.sites().len()));
        notes.extend(fuzzy_note);
        Ok(Compiled {
            terms,
            scopes,
            filters,
            notes,
            max_videos: req.max_videos,
        })
    }

    /// Whether pages of `layer` can hold a hit.
    pub fn reads_layer(&self, layer: Layer) -> bool {
        match layer {
            Layer::Transcripts => self
                .scopes
                .iter()
                .any(|s| !matches!(s, Scope::Chat | Scope::Posts)),
            Layer::Chat => self.scopes.contains(&Scope::Chat),
            Layer::Posts => self.scopes.contains(&Scope::Posts),
        }
    }
}

/// Pages to read, by position in the page table, in order.
pub struct Plan {
    /// The pages to read, by position in the page table, in archive order.
    pub pages: Vec<usize>,
    /// Planned before the `max_pages` cut.
    pub planned: usize,
    /// Pages of the searched layers in scope.
    pub in_scope: usize,
    /// Cut by `max_pages`, in order.
    pub cut: Vec<usize>,
    /// What the plan says in the footer (how the index helped).
    pub notes: Vec<String>,
    /// Pages read video by video (by position in the page table): the
    /// videos the index shows may match, each by its span in the file.
    pub targets: HashMap<usize, Vec<Target>>,
    /// Transcript pages read whole whose every video's span the index
    /// knows (by position in the page table): confirming one parses only
    /// the videos its bytes show may match (`confirm`'s candidates).
    pub layouts: HashMap<usize, Vec<std::ops::Range<u64>>>,
}

/// A video the plan reads by its span instead of its whole page.
#[derive(Debug, Clone)]
pub struct Target {
    /// Where it sits in its page file (its bytes must be the ones indexed).
    pub span: VideoSpan,
    /// Where the query's one word is said in it, when the index placed
    /// it ([`super::placed`]): then only those cues are read.
    pub placed: Option<std::sync::Arc<PlacedTarget>>,
}

/// Chooses the pages to read: scope ∩ filters ∩ query where the index vouches for a page, every other page in scope.
pub fn plan(
    archive: &Archive,
    pages: &[PageRef],
    index: Option<&Index>,
    c: &Compiled,
    max_pages: Option<usize>,
) -> Plan {
    let mut notes = Vec::new();
    let in_scope: Vec<usize> = (0..pages.len())
        .filter(|&i| {
            c.reads_layer(pages[i].layer)
                && c.filters.channel_in_scope(pages[i].site, &pages[i].channel)
        })
        .collect();
    let mut planned = in_scope.clone();
    let by_index = index.map(|ix| index_allows(archive, ix, c));
    // The summaries are read only for pages no index vouches for (or
    // whose video rows turned out damaged): with a fresh index, planning
    // never touches them.
    let rows_damaged = index.is_some_and(|ix| ix.raw.rows_unusable());
    let unvouched = index.is_none_or(|ix| in_scope.iter().any(|&i| ix.vouched.ids[i].is_none()));
    let by_filter = if unvouched || rows_damaged {
        super::filter_first::pages(archive, pages, &c.filters)
    } else {
        None
    };
    let filter_allows = |i: usize| by_filter.as_ref().is_none_or(|f| f[i]);
    let mut video_targets = HashMap::new();
    let mut layouts = HashMap::new();
    match index.zip(by_index) {
        Some((index, (allowed, note))) => {
            notes.extend(note);
            planned.retain(|&i| match index.vouched.ids[i] {
                Some(id) => {
                    allowed.as_ref().is_none_or(|a| a.contains(id))
                        && (!rows_damaged || filter_allows(i))
                }
                None => filter_allows(i),
            });
            let placing = Placing::of(index, &c.terms);
            for &i in &planned {
                let Some(id) = index.vouched.ids[i] else {
                    continue;
                };
                match targets(index, allowed.as_ref(), id, placing.as_ref()) {
                    Some(t) => {
                        video_targets.insert(i, t);
                    }
                    None if pages[i].layer == Layer::Transcripts => {
                        layouts.extend(layout(index, id).map(|l| (i, l)));
                    }
                    None => {}
                }
            }
            notes.push(format!(
                "index-pruned: planned {} of {} page(s)",
                planned.len(),
                in_scope.len()
            ));
        }
        None if by_filter.is_some() => {
            planned.retain(|&i| filter_allows(i));
            notes.push(format!(
                "filter-pruned: planned {} of {} page(s) from the summaries and manifests (no index)",
                planned.len(),
                in_scope.len()
            ));
        }
        None => notes.push(full_scan_note(c)),
    }
    let total = planned.len();
    let cut = match max_pages {
        Some(max) if planned.len() > max => planned.split_off(max),
        _ => Vec::new(),
    };
    Plan {
        pages: planned,
        planned: total,
        in_scope: in_scope.len(),
        cut,
        notes,
        targets: video_targets,
        layouts,
    }
}

/// Where each video of page `id` sits in its file, in page order, when
/// the index knows every span.
fn layout(index: &Index, id: u32) -> Option<Vec<std::ops::Range<u64>>> {
    let spans = index.raw.page_spans(id)?;
    Some(spans.iter().map(|s| s.start..s.end).collect())
}

/// The note of a plan that reads every page in scope: whether an index
/// would have let the query skip pages (it needs a required word).
fn full_scan_note(c: &Compiled) -> String {
    let narrowable = c
        .terms
        .distinct()
        .into_iter()
        .all(|m| Cond::of(m) != Cond::All);
    if narrowable {
        "full scan: no page in scope was pruned; an index would read only the pages holding the query's words".into()
    } else {
        "full scan: no page in scope was pruned (no required word, so an index could not narrow this query)".into()
    }
}

/// The pages (index ids) and videos that may hold a hit passing the
/// filters; `None` = every video of every page.
fn index_allows(
    archive: &Archive,
    index: &Index,
    c: &Compiled,
) -> (Option<Selection>, Vec<String>) {
    let conds: Vec<Cond> = c.terms.distinct().into_iter().map(Cond::of).collect();
    let by_query = if conds.contains(&Cond::All) {
        None
    } else {
        let mut union = Some(Selection::default());
        for cond in &conds {
            match (cond.select(&index.raw), union.as_mut()) {
                (Some(set), Some(u)) => u.union(set),
                _ => union = None,
            }
        }
        union
    };
    let note = by_query.is_none().then(|| "the index could not narrow this query (no required words), so it skipped no page for the words".to_string());
    let by_filter = c
        .filters
        .narrows_videos()
        .then(|| filter_selection(archive, index, &c.filters));
    let allowed = match (by_query, by_filter) {
        (Some(q), Some(f)) => Some(q.intersect(&f)),
        (q, f) => q.or(f),
    };
    let damaged = (c.filters.narrows_videos() && index.raw.rows_unusable()).then(|| {
        format!("the index's {} is damaged: the filters were decided on the pages themselves; rebuild the index", crate::index::files::VIDEOS)
    });
    (allowed, note.into_iter().chain(damaged).collect())
}

/// The videos of the index that pass the filters (or that only a date
/// filter leaves out, so they are counted), by page; chat and posts pages
/// are not described by video rows and are kept whole.
fn filter_selection(archive: &Archive, index: &Index, filters: &Filters) -> Selection {
    let mut sel = Selection::default();
    for (id, page) in index.raw.meta.pages.iter().enumerate() {
        let id = id as u32;
        if page.key.layer != LayerName::Transcripts {
            sel.add(id, Holders::Any);
            continue;
        }
        let Some(site) = archive.sites().iter().position(|s| s.id() == page.key.site) else {
            continue;
        };
        let Some(rows) = index.raw.page_rows(id) else {
            sel.add(id, Holders::Any);
            continue;
        };
        let passing: Vec<u32> = (0..rows.len() as u32)
            .filter(|&i| {
                let row = &rows[i as usize];
                filters.verdict(&VideoFacts::of_row(site, &row.channel, row)) != Verdict::Fails
            })
            .collect();
        if passing.len() == rows.len() && !rows.is_empty() {
            sel.add(id, Holders::Any);
        } else if !passing.is_empty() {
            sel.add(id, Holders::Only(passing));
        }
    }
    sel
}

/// The videos of page `id` to read by their spans (or their places, as
/// `placing` has them), when the selection names only some of them and
/// the index knows where each sits; `None` reads the whole page.
fn targets(
    index: &Index,
    allowed: Option<&Selection>,
    id: u32,
    placing: Option<&Placing>,
) -> Option<Vec<Target>> {
    let Holders::Only(holders) = allowed?.get(id)? else {
        return None;
    };
    let spans = index.raw.page_spans(id)?;
    if holders.len() >= spans.len() {
        return None;
    }
    holders
        .iter()
        .map(|&h| {
            let span = spans.get(h as usize)?.clone();
            let placed = placing.and_then(|p| p.target(index, id, h));
            Some(Target { span, placed })
        })
        .collect()
}
/// A video a search answers from its places: where its cues are, and
/// its row.
#[derive(Debug)]
pub struct PlacedTarget {
    pub(super) places: PlacedVideo,
    pub(super) row: VideoRow,
}

/// The placed videos of a one-word query, and the videos its excludes
/// may hold.
pub(super) struct Placing {
    by_video: HashMap<(u32, u32), PlacedVideo>,
    excludes: Vec<Selection>,
}

impl Placing {
    /// The places of the query's word, when it is one word, the
    /// postings can select what every exclude may hit (the planner's own
    /// [`Cond`]), and the index has
    /// its rows and places in memory (a warm server; a one-shot search
    /// reads spans rather than load them).
    pub fn of(index: &Index, terms: &Terms) -> Option<Placing> {
        if !index.raw.warmed() {
            return None;
        }
        let word = terms.single_word()?;
        let placed = index.raw.places()?.of(word)?;
        let excludes = terms
            .excludes
            .iter()
            .map(|m| Cond::of(m).select(&index.raw))
            .collect::<Option<Vec<_>>>()?;
        let by_video = placed.into_iter().map(|v| ((v.page, v.video), v)).collect();
        Some(Placing { by_video, excludes })
    }

    /// The video at `position` on page `id`, when it is placed, no
    /// exclude may hold it, and its row has what a result needs.
    pub fn target(&self, index: &Index, id: u32, position: u32) -> Option<Arc<PlacedTarget>> {
        let places = self.by_video.get(&(id, position))?;
        if self.excludes.iter().any(|s| s.may_hold(id, position)) {
            return None;
        }
        let row = index.raw.page_rows(id)?.get(position as usize)?;
        row.caption_bytes?;
        Some(Arc::new(PlacedTarget {
            places: places.clone(),
            row: row.clone(),
        }))
    }
}
