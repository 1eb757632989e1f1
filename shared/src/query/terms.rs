//! A query compiled the one way every tool compiles it: the query's own
//! matcher, the aliases each site fires for it, and the excluded phrases.
//!
//! Promise (invariant 9, aliases belong to their site): an alias fires
//! only on pages of the site whose `aliases.json` defines it. A hub of
//! sites that publish different aliases therefore gives each member the
//! answer that member gives alone. `search_transcripts`,
//! `enumerate_matches`, `get_transcripts` and the command line all go
//! through [`Terms::compile`] and [`Terms::cue_hits`], so they agree hit
//! for hit.

use super::matcher::{Matcher, TokenStream};
use super::{Hit, QueryError, Request, Scope};
use crate::archive::Archive;
use crate::format::{ChatMessage, CueView};

/// An alias that fired, and the sites (by position) that define it.
#[derive(Debug, Clone, PartialEq)]
pub struct FiredAlias {
    /// How the footer names it.
    pub label: String,
    /// The regex searched beside the query.
    pub regex: String,
    /// The ids of the sites whose `aliases.json` defines it.
    pub sites: Vec<String>,
}

/// A compiled query.
#[derive(Debug, Clone)]
pub struct Terms {
    /// Per site (by position in [`Archive::sites`]): the query's matcher
    /// first, then the aliases that site fired.
    per_site: Vec<Vec<Matcher>>,
    /// The query's matcher, for a site the archive does not list.
    query: Matcher,
    /// Every alias that fired, once, with the sites that define it.
    pub fired: Vec<FiredAlias>,
    /// The excluded phrases' matchers.
    pub excludes: Vec<Matcher>,
    /// Alias files that could not be read (named, never skipped quietly).
    pub notes: Vec<String>,
    /// Fuzzy expansions: each phrase and its matcher, also appended to
    /// every site's matchers.
    pub expansions: Vec<(String, Matcher)>,
    /// The fewest hits an item answers with (at least 1).
    min_hits: usize,
}

impl Terms {
    /// Compiles what `spec` asks to match (its query, how it matches, its
    /// aliases and excludes) against the sites of `archive`; the error
    /// says what is wrong with the query or an exclude.
    pub fn compile(archive: &Archive, spec: &Request) -> Result<Terms, QueryError> {
        let compile = |q: &str| {
            if spec.regex {
                Matcher::regex(q, spec.case_sensitive)
            } else {
                Matcher::phrase(q)
            }
        };
        let query = compile(&spec.query)?;
        let excludes = spec
            .exclude
            .iter()
            .map(|q| compile(q))
            .collect::<Result<_, _>>()?;
        let mut terms = Terms {
            per_site: Vec::new(),
            query: query.clone(),
            fired: Vec::new(),
            excludes,
            notes: Vec::new(),
            expansions: Vec::new(),
            min_hits: spec.min_hits.unwrap_or(1).max(1),
        };
        let words = crate::text::tokens(&spec.query);
        for site in archive.sites() {
            let mut matchers = vec![query.clone()];
            if spec.use_aliases && !spec.regex {
                for alias in terms.site_aliases(site, &words) {
                    matchers.push(Matcher::regex(&alias.regex, false)?);
                    terms.record(alias, site.id());
                }
            }
            terms.per_site.push(matchers);
        }
        Ok(terms)
    }

    /// The same query, also searching each of `phrases` (fuzzy
    /// expansions) on every site.
    pub fn with_expansions(mut self, phrases: Vec<String>) -> Result<Terms, QueryError> {
        for phrase in phrases {
            let m = Matcher::phrase(&phrase)?;
            for site in &mut self.per_site {
                site.push(m.clone());
            }
            self.expansions.push((phrase, m));
        }
        Ok(self)
    }

    /// The aliases of `site` whose trigger is the query's words.
    fn site_aliases(
        &mut self,
        site: &crate::archive::Site,
        words: &[String],
    ) -> Vec<crate::format::Alias> {
        match site.aliases() {
            Ok(aliases) => aliases
                .iter()
                .flat_map(|a| a.iter())
                .filter(|a| a.triggers.iter().any(|t| crate::text::tokens(t) == words))
                .cloned()
                .collect(),
            Err(e) => {
                self.notes.push(format!(
                    "the aliases of site {} could not be read, so none of them was applied: {e}",
                    site.id()
                ));
                Vec::new()
            }
        }
    }

    fn record(&mut self, alias: crate::format::Alias, site: &str) {
        match self
            .fired
            .iter_mut()
            .find(|f| f.label == alias.label && f.regex == alias.regex)
        {
            Some(f) => f.sites.push(site.to_string()),
            None => self.fired.push(FiredAlias {
                label: alias.label,
                regex: alias.regex,
                sites: vec![site.to_string()],
            }),
        }
    }

    /// The query's one word, when it is a single whole word that decides
    /// every hit alone (no phrase, prefix, regex or case rule, no alias
    /// fired, no fuzzy variant): what the index's places can answer.
    pub fn single_word(&self) -> Option<&str> {
        if !self.expansions.is_empty() || self.per_site.iter().any(|m| m.len() != 1) {
            return None;
        }
        match &self.query {
            Matcher::Phrase(p) if p.words.len() == 1 && !p.prefix => Some(&p.words[0]),
            _ => None,
        }
    }

    /// The matchers that decide hits on pages of site number `site`.
    pub fn for_site(&self, site: usize) -> &[Matcher] {
        self.per_site
            .get(site)
            .map_or(std::slice::from_ref(&self.query), Vec::as_slice)
    }

    /// The matcher of the query as typed on site number `site` (no alias,
    /// no fuzzy variant): the first of [`Terms::for_site`].
    pub fn typed(&self, site: usize) -> &[Matcher] {
        &self.for_site(site)[..1]
    }

    /// Every distinct matcher: the query, then each alias that fired
    /// once (what pruning needs, as some site reads each of them).
    pub fn distinct(&self) -> Vec<&Matcher> {
        let mut out = vec![&self.query];
        out.extend(self.expansions.iter().map(|(_, m)| m));
        let aliases = self
            .per_site
            .iter()
            .flat_map(|m| m[1..m.len() - self.expansions.len()].iter());
        for m in aliases {
            let Matcher::Regex(r) = m else { continue };
            let seen = out
                .iter()
                .any(|o| matches!(o, Matcher::Regex(x) if x.as_str() == r.as_str()));
            if !seen {
                out.push(m);
            }
        }
        out
    }

    /// The footer's words for each alias that fired, naming its sites
    /// when the archive has more than one.
    pub fn describe(&self, sites: usize) -> Vec<String> {
        let mut out = self.notes.clone();
        for f in &self.fired {
            let whose = if sites > 1 {
                format!(" (aliases of {})", f.sites.join(", "))
            } else {
                String::new()
            };
            out.push(format!(
                "expanded via alias {} → `{}`{whose}",
                f.label, f.regex
            ));
        }
        out
    }

    /// The cues (by index) where the query or one of `site`'s aliases
    /// starts a match, ascending, each once: the transcript hits every
    /// tool reports.
    pub fn cue_hits<'a>(
        &self,
        site: usize,
        cues: impl Iterator<Item = &'a str> + Clone,
        scratch: &mut TokenStream,
    ) -> Vec<usize> {
        hits_of(self.for_site(site), cues, scratch)
    }

    /// Words one of which every match of site `site`'s matchers (the
    /// query, its fuzzy variants, the aliases it fired there) holds, as
    /// lower-case ASCII: the longest word of each phrase. `None` when a
    /// matcher is a regex or a phrase has a word outside ASCII, where no
    /// such word can be named.
    pub fn required_words(&self, site: usize) -> Option<Vec<String>> {
        let mut words: Vec<String> = Vec::new();
        for m in self.for_site(site) {
            let super::matcher::Matcher::Phrase(p) = m else {
                return None;
            };
            if !p.words.iter().all(|w| w.is_ascii()) {
                return None;
            }
            let longest = p.words.iter().max_by_key(|w| w.len())?;
            if !words.contains(longest) {
                words.push(longest.clone());
            }
        }
        Some(words)
    }

    /// The words each match can begin with, for every matcher a video is
    /// judged by on site number `site` (the query's, its aliases' and
    /// fuzzy variants', and the excludes'), and how many words the longest
    /// phrase has; `None` when one is a regex or begins with a word
    /// outside ASCII (see [`super::skim`] for what this lets a reader
    /// leave out).
    pub fn anchors(&self, site: usize) -> Option<super::skim::Anchors> {
        super::skim::Anchors::of(self.for_site(site).iter().chain(&self.excludes))
    }

    /// Whether setting a page's [`super::prefilter::PageHint`] can pay:
    /// whether the query's own matcher reads it. (Excludes and fuzzy
    /// expansions are phrases exactly when the query is; aliases are
    /// regexes and never read it.)
    pub fn uses_page_hint(&self) -> bool {
        self.query.uses_page_hint()
    }

    /// Whether an excluded phrase matches anywhere in `cues`.
    pub fn excluded<'a>(
        &self,
        cues: impl Iterator<Item = &'a str> + Clone,
        scratch: &mut TokenStream,
    ) -> Option<usize> {
        self.excludes
            .iter()
            .position(|m| !m.hits(cues.clone(), scratch).is_empty())
    }
}

/// The units where any of `matchers` starts a match, ascending, each once.
pub fn hits_of<'a>(
    matchers: &[Matcher],
    units: impl Iterator<Item = &'a str> + Clone,
    scratch: &mut TokenStream,
) -> Vec<usize> {
    let mut found: Vec<usize> = Vec::new();
    for m in matchers {
        found.extend(m.hits(units.clone(), scratch));
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// One field of an item to match: its scope, its texts, when each was
/// said, and whether a phrase may run on from one text into the next
/// (captions). A field may hold a run of its item's units rather than all
/// of them (the cues around where a word is said, [`super::skim`]):
/// `first` is the number of its first text among the item's units.
pub(super) struct Field<'t> {
    pub scope: Scope,
    pub texts: Vec<&'t str>,
    pub first: usize,
    pub times: Times<'t>,
    pub span: bool,
}

/// When each text of a field was said.
#[derive(Clone, Copy)]
pub(super) enum Times<'t> {
    /// Not timed (titles, descriptions, posts).
    Untimed,
    /// Caption cues.
    Cues(&'t [CueView<'t>]),
    /// Chat messages.
    Chat(&'t [ChatMessage]),
}

impl Times<'_> {
    fn at(self, i: usize) -> Option<f64> {
        match self {
            Times::Untimed => None,
            Times::Cues(cues) => cues[i].start(),
            Times::Chat(messages) => Some(messages[i].t),
        }
    }
}

/// An item the query hits and no exclude does: its hits, and each fuzzy
/// variant's own count.
pub(super) struct Judged {
    pub hits: Vec<Hit>,
    pub expansion_hits: Vec<usize>,
    /// Hits of the query as typed alone (no alias, no fuzzy variant).
    pub exact_hits: usize,
}

impl Terms {
    /// The one decision over an item (a video, a chat, a post), made here
    /// for every layer: it answers when the matchers of site number
    /// `site` hit one of its `fields` (at least `min_hits` times) and no
    /// exclude matcher does; then
    /// the query as typed and each fuzzy variant are counted on their own.
    pub(super) fn judge(
        &self,
        site: usize,
        fields: &[Field],
        scratch: &mut TokenStream,
    ) -> Option<Judged> {
        let matchers = self.for_site(site);
        let hits = fields_hits(matchers, fields, scratch);
        if hits.len() < self.min_hits || !fields_hits(&self.excludes, fields, scratch).is_empty() {
            return None;
        }
        let exact_hits = if matchers.len() > 1 {
            fields_hits(self.typed(site), fields, scratch).len()
        } else {
            hits.len()
        };
        let expansion_hits = self
            .expansions
            .iter()
            .map(|(_, m)| fields_hits(std::slice::from_ref(m), fields, scratch).len())
            .collect();
        Some(Judged {
            hits,
            expansion_hits,
            exact_hits,
        })
    }
}

/// Every hit of `matchers` in `fields`, field by field: across a field's
/// texts when it allows (captions), else in each text alone.
fn fields_hits(matchers: &[Matcher], fields: &[Field], scratch: &mut TokenStream) -> Vec<Hit> {
    let mut hits = Vec::new();
    for f in fields {
        let found: Vec<usize> = if f.span {
            hits_of(matchers, f.texts.iter().copied(), scratch)
        } else {
            (0..f.texts.len())
                .filter(|&i| !hits_of(matchers, std::iter::once(f.texts[i]), scratch).is_empty())
                .collect()
        };
        hits.extend(found.into_iter().map(|i| Hit {
            scope: f.scope,
            unit: f.first + i,
            start: f.times.at(i),
            text: f.texts[i].to_string(),
            author: None,
        }));
    }
    hits
}
