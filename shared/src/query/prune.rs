//! Which pages a query could possibly match, as a condition over the
//! index's words. Only ever widens: anything not understood, or too costly
//! to expand, becomes "every page".
//!
//! A phrase needs each of its words as a token (the last as a prefix with
//! `*`). A regex needs the literals every match must contain, found by
//! walking its syntax tree in the manner of codesearch: a concatenation
//! needs all its parts, an alternation one of its branches, a repetition
//! with a minimum of one its body, anything else nothing. A literal is
//! normalised into words, and each must occur inside some indexed word
//! (it may sit inside a longer word, so the lookup is an infix one).
//! Literals holding non-ASCII characters are not used: regex case folding
//! and the normaliser need not agree on them, and widening is always safe.

use regex_syntax::hir::{Hir, HirKind};

use super::matcher::Matcher;
use crate::index::select::Selection;
use crate::index::RawIndex;

/// Shortest piece used for an infix lookup; shorter ones widen.
const MIN_INFIX: usize = 3;

/// A condition over the index's words.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    /// Every page (the index cannot help).
    All,
    /// A page with this word.
    Word(String),
    /// A page with a word starting with this.
    Prefix(String),
    /// A page with a word containing this.
    Infix(String),
    /// All of these.
    And(Vec<Cond>),
    /// Any of these.
    Or(Vec<Cond>),
}

impl Cond {
    /// The condition a matcher's hits need.
    pub fn of(m: &Matcher) -> Cond {
        match m {
            Matcher::Phrase(p) => {
                let n = p.words.len();
                Cond::and(
                    p.words
                        .iter()
                        .enumerate()
                        .map(|(i, w)| {
                            if p.prefix && i == n - 1 {
                                Cond::Prefix(w.clone())
                            } else {
                                Cond::Word(w.clone())
                            }
                        })
                        .collect(),
                )
            }
            Matcher::Regex(re) => match regex_syntax::Parser::new().parse(re.as_str()) {
                Ok(hir) => required(&hir),
                Err(_) => Cond::All,
            },
        }
    }

    fn and(parts: Vec<Cond>) -> Cond {
        let mut parts: Vec<Cond> = parts.into_iter().filter(|c| *c != Cond::All).collect();
        match parts.len() {
            0 => Cond::All,
            1 => parts.pop().unwrap(),
            _ => Cond::And(parts),
        }
    }

    fn or(parts: Vec<Cond>) -> Cond {
        if parts.is_empty() || parts.contains(&Cond::All) {
            return Cond::All;
        }
        Cond::Or(parts)
    }

    /// The pages, and the videos on them, that may match; `None` means
    /// every video of every page.
    pub fn select(&self, index: &RawIndex) -> Option<Selection> {
        match self {
            Cond::All => None,
            Cond::Word(w) => index.exact(w),
            Cond::Prefix(p) => index.prefix(p),
            Cond::Infix(p) => index.infix(p),
            Cond::And(parts) => {
                let mut acc: Option<Selection> = None;
                for part in parts {
                    if let Some(set) = part.select(index) {
                        acc = Some(match acc {
                            Some(a) => a.intersect(&set),
                            None => set,
                        });
                    }
                }
                acc
            }
            Cond::Or(parts) => {
                let mut acc = Selection::default();
                for part in parts {
                    acc.union(part.select(index)?);
                }
                Some(acc)
            }
        }
    }
}

/// What every match of `hir` must contain.
fn required(hir: &Hir) -> Cond {
    match hir.kind() {
        HirKind::Literal(lit) => literal(&lit.0),
        HirKind::Concat(parts) => Cond::and(parts.iter().map(required).collect()),
        HirKind::Alternation(branches) => Cond::or(branches.iter().map(required).collect()),
        HirKind::Repetition(r) if r.min >= 1 => required(&r.sub),
        HirKind::Capture(c) => required(&c.sub),
        _ => Cond::All,
    }
}

fn literal(bytes: &[u8]) -> Cond {
    match std::str::from_utf8(bytes) {
        Ok(s) if s.is_ascii() => Cond::and(
            crate::text::tokens(s)
                .into_iter()
                .map(|t| {
                    if t.len() >= MIN_INFIX {
                        Cond::Infix(t)
                    } else {
                        Cond::All
                    }
                })
                .collect(),
        ),
        _ => Cond::All,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The condition of `re`, built as the matcher builds it (and also
    /// for a pattern the matcher refuses for matching the empty string).
    fn cond(re: &str) -> Cond {
        let built = regex::RegexBuilder::new(re).case_insensitive(true).build();
        Cond::of(&Matcher::Regex(built.unwrap()))
    }

    #[test]
    fn regex_literals_required_by_every_match_are_found() {
        assert_eq!(
            cond("cake cup"),
            Cond::And(vec![Cond::Infix("cake".into()), Cond::Infix("cup".into())])
        );
        assert_eq!(cond("(k|cake)[ -]?cups?"), Cond::Infix("cup".into()));
        assert_eq!(
            cond("foo|bar"),
            Cond::Or(vec![Cond::Infix("foo".into()), Cond::Infix("bar".into())])
        );
        assert_eq!(cond("foo|.*"), Cond::All);
        assert_eq!(cond("(abc)+x"), Cond::Infix("abc".into()));
        assert_eq!(cond("(abc)*"), Cond::All);
        assert_eq!(
            cond("caf\u{e9}"),
            Cond::All,
            "non-ASCII literals do not prune"
        );
        assert_eq!(cond("(?i)cup"), Cond::All, "case classes are not literals");
    }

    #[test]
    fn phrases_need_every_word_and_a_final_prefix() {
        let c = Cond::of(&Matcher::phrase("K-Cups for*").unwrap());
        assert_eq!(
            c,
            Cond::And(vec![
                Cond::Word("k".into()),
                Cond::Word("cups".into()),
                Cond::Prefix("for".into())
            ])
        );
    }
}
