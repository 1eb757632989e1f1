//! Running a share link on the engine, and making one from a search.
//!
//! A tree of the shape a search writes (one term, with its excludes as
//! `AND NOT` terms of the same kind) runs as that very engine request, so
//! opening a link gives exactly what the search that made it gave. Any
//! other tree runs one engine search per term and combines the video sets:
//! `OR` is their union, `AND` their intersection, `NOT` (only beside a
//! positive term under an `AND`) their difference. A video's hits are those
//! of its positive terms.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::{LinkError, Node, ShareLink, Term};
use crate::archive::Archive;
use crate::query::filter_args::LinkField;
use crate::query::{search_each, FilterArgs, Filters, Request, Response, VideoResult, FILTERS};

/// Caps for every engine search a link runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Caps {
    /// Read at most this many pages.
    pub max_pages: Option<usize>,
    /// Stop after this many matching videos.
    pub max_videos: Option<usize>,
}

fn request(t: &Term, filters: &FilterArgs, caps: Caps) -> Request {
    Request {
        query: t.query.clone(),
        regex: t.regex,
        case_sensitive: t.case_sensitive,
        use_aliases: t.aliases,
        scopes: t.scopes.clone(),
        filters: filters.clone(),
        max_pages: caps.max_pages,
        max_videos: caps.max_videos,
        ..Request::default()
    }
}

/// The one engine request a tree stands for, when it has a search's shape.
pub fn as_request(tree: &Node, filters: &FilterArgs, caps: Caps) -> Option<Request> {
    let (first, rest) = match tree {
        Node::Term(t) => (t, &[][..]),
        Node::And(c) => match c.split_first()? {
            (Node::Term(t), rest) => (t, rest),
            _ => return None,
        },
        _ => return None,
    };
    let mut req = request(first, filters, caps);
    for node in rest {
        let Node::Not(inner) = node else { return None };
        let Node::Term(ex) = inner.as_ref() else {
            return None;
        };
        let same = ex.regex == first.regex
            && ex.case_sensitive == first.case_sensitive
            && ex.scopes == first.scopes
            && !ex.aliases;
        if !same {
            return None;
        }
        req.exclude.push(ex.query.clone());
    }
    Some(req)
}

/// The link a search on `archive` stands for, at `origin`. Groups become
/// the channels they hold; tags cannot be carried and are refused.
pub fn link_for(archive: &Archive, origin: &str, req: &Request) -> Result<ShareLink, LinkError> {
    for f in FILTERS {
        if let LinkField::Refused(advice) = f.link {
            if f.is_set(&req.filters) {
                return Err(LinkError::CannotCarry {
                    what: f.name.to_string(),
                    advice,
                });
            }
        }
    }
    if req.fuzzy > 0 {
        return Err(LinkError::CannotCarry {
            what: "fuzzy".to_string(),
            advice: "share the search without it, or with its expansions as an OR of terms",
        });
    }
    if let Some(what) = uncarried(req) {
        return Err(LinkError::CannotCarry {
            what,
            advice: "share the search without it",
        });
    }
    let mut filters = req.filters.clone();
    if !filters.groups.is_empty() {
        let resolved = Filters::resolve(&filters, archive).map_err(|e| e.to_string())?;
        filters.channels = resolved
            .channels
            .iter()
            .flatten()
            .map(|(_, slug)| slug.clone())
            .collect();
        filters.groups.clear();
    }
    let term = |query: &str, aliases: bool| {
        Node::Term(Term {
            query: query.to_string(),
            regex: req.regex,
            case_sensitive: req.case_sensitive,
            aliases: aliases && !req.regex,
            scopes: req.scopes.clone(),
        })
    };
    let mut tree = term(&req.query, req.use_aliases);
    if !req.exclude.is_empty() {
        let mut parts = vec![tree];
        parts.extend(
            req.exclude
                .iter()
                .map(|e| Node::Not(Box::new(term(e, false)))),
        );
        tree = Node::And(parts);
    }
    Ok(ShareLink {
        origin: origin.trim_end_matches('/').to_string(),
        tree,
        filters,
        ignored: Vec::new(),
    })
}

/// The first option `req` sets that a link has no field for, by its
/// name in the request: what a link carries is set back to its default,
/// and whatever still differs from the default request is not carried.
/// A query option added to [`Request`] is thus refused here until the
/// link format carries it, never dropped from a link in silence.
fn uncarried(req: &Request) -> Option<String> {
    let mut rest = req.clone();
    let default = Request::default();
    rest.query = default.query.clone();
    rest.regex = default.regex;
    rest.case_sensitive = default.case_sensitive;
    rest.use_aliases = default.use_aliases;
    rest.exclude = default.exclude.clone();
    rest.fuzzy = default.fuzzy;
    rest.scopes = default.scopes.clone();
    rest.filters = default.filters.clone();
    rest.max_pages = default.max_pages;
    rest.max_videos = default.max_videos;
    let (serde_json::Value::Object(rest), serde_json::Value::Object(default)) = (
        serde_json::to_value(&rest).ok()?,
        serde_json::to_value(&default).ok()?,
    ) else {
        return None;
    };
    rest.into_iter()
        .find(|(key, value)| default.get(key) != Some(value))
        .map(|(key, _)| key)
}

type Key = crate::query::VideoKey;

fn index_of(videos: &[VideoResult]) -> HashMap<Key, usize> {
    videos
        .iter()
        .enumerate()
        .map(|(i, v)| (v.key(), i))
        .collect()
}

/// Videos in order, and the searches' bookkeeping merged.
struct Set {
    videos: Vec<VideoResult>,
    response: Response,
}

impl Set {
    fn keys(&self) -> HashSet<Key> {
        self.videos.iter().map(VideoResult::key).collect()
    }

    /// Adds `other`'s bookkeeping (pages, notes, coverage) to this one's.
    fn absorb(&mut self, other: &Response) {
        let r = &mut self.response;
        r.pages_read += other.pages_read;
        r.pages_planned += other.pages_planned;
        r.pages_total = r.pages_total.max(other.pages_total);
        r.bytes_read += other.bytes_read;
        // Terms may match the same undated videos: the largest count is
        // the one certainly left out (each term's note says its own).
        r.undated_left_out = r.undated_left_out.max(other.undated_left_out);
        let extend = |into: &mut Vec<String>, from: &[String]| {
            for s in from {
                if !into.contains(s) {
                    into.push(s.clone());
                }
            }
        };
        extend(&mut r.notes, &other.notes);
        extend(&mut r.unreadable, &other.unreadable);
        r.coverage.partial |= other.coverage.partial;
        extend(&mut r.coverage.partly, &other.coverage.partly);
        extend(&mut r.coverage.unreached, &other.coverage.unreached);
    }

    /// Adds `v`'s hits to the same video here, or `v` itself.
    fn merge(&mut self, index: &mut HashMap<Key, usize>, v: VideoResult) {
        match index.get(&v.key()) {
            Some(&i) => {
                let hits = &mut self.videos[i].hits;
                for h in v.hits {
                    if !hits.contains(&h) {
                        hits.push(h);
                    }
                }
            }
            None => {
                index.insert(v.key(), self.videos.len());
                self.videos.push(v);
            }
        }
    }
}

struct Run<'a> {
    archive: &'a Archive,
    index_dir: Option<&'a Path>,
    filters: &'a FilterArgs,
    caps: Caps,
    progress: &'a mut dyn FnMut(usize, usize),
}

impl Run<'_> {
    fn search(&mut self, req: &Request) -> Result<Set, String> {
        let mut videos = Vec::new();
        let response = search_each(
            self.archive,
            self.index_dir,
            req,
            &mut |v| videos.push(v),
            self.progress,
        )?;
        Ok(Set { videos, response })
    }

    fn eval(&mut self, node: &Node) -> Result<Set, String> {
        match node {
            Node::Term(t) => self.search(&request(t, self.filters, self.caps)),
            Node::Or(children) => {
                if children.iter().any(|c| matches!(c, Node::Not(_))) {
                    return Err("qt: a NOT under an OR would match every video that lacks its term; put the NOT under an AND beside a positive term".into());
                }
                self.union(children)
            }
            Node::And(children) => {
                let (neg, pos): (Vec<&Node>, Vec<&Node>) = children.iter().partition(|c| matches!(c, Node::Not(_)));
                if pos.is_empty() {
                    return Err("qt: an AND needs at least one term that is not under NOT".into());
                }
                let pos: Vec<Node> = pos.into_iter().cloned().collect();
                let neg: Vec<Node> = neg
                    .into_iter()
                    .filter_map(|n| match n {
                        Node::Not(inner) => Some(inner.as_ref().clone()),
                        _ => None,
                    })
                    .collect();
                let mut set = self.eval(&pos[0])?;
                for p in &pos[1..] {
                    let other = self.eval(p)?;
                    let keep = other.keys();
                    set.videos.retain(|v| keep.contains(&v.key()));
                    set.absorb(&other.response);
                    let mut index = index_of(&set.videos);
                    for v in other.videos {
                        if index.contains_key(&v.key()) {
                            set.merge(&mut index, v);
                        }
                    }
                }
                self.minus(set, &neg)
            }
            Node::Not(_) => Err("qt: a NOT alone would list every video that lacks its term; put it under an AND beside a positive term".into()),
        }
    }

    /// The union of `children`, in order.
    fn union(&mut self, children: &[Node]) -> Result<Set, String> {
        let mut iter = children.iter();
        let first = iter.next().ok_or("qt: an empty list")?;
        let mut set = self.eval(first)?;
        let mut index = index_of(&set.videos);
        for c in iter {
            let other = self.eval(c)?;
            set.absorb(&other.response);
            for v in other.videos {
                set.merge(&mut index, v);
            }
        }
        Ok(set)
    }

    fn minus(&mut self, mut set: Set, negatives: &[Node]) -> Result<Set, String> {
        for n in negatives {
            let other = self.eval(n)?;
            let drop = other.keys();
            set.videos.retain(|v| !drop.contains(&v.key()));
            set.absorb(&other.response);
        }
        Ok(set)
    }
}

/// Runs `link`'s search on `archive` (its origin is not consulted: the
/// caller chose the archive). The videos are in the response.
pub fn run(
    archive: &Archive,
    index_dir: Option<&Path>,
    link: &ShareLink,
    caps: Caps,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Response, String> {
    let mut run = Run {
        archive,
        index_dir,
        filters: &link.filters,
        caps,
        progress,
    };
    let mut set = match as_request(&link.tree, &link.filters, caps) {
        Some(req) => run.search(&req)?,
        None => run.eval(&link.tree)?,
    };
    set.response.total_videos = set.videos.len();
    set.response.total_hits = set.videos.iter().map(|v| v.hits.len()).sum();
    set.response.exact = crate::query::ExactCount {
        videos: set.videos.iter().filter(|v| v.exact_hits > 0).count(),
        hits: set.videos.iter().map(|v| v.exact_hits).sum(),
    };
    set.response.videos = std::mem::take(&mut set.videos);
    Ok(set.response)
}
