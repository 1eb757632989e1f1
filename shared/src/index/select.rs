//! A selection: which pages may hold a match and, on each, which videos.
//!
//! The planner combines the selections of a query's words: a phrase needs
//! all of its words in one video, so selections intersect page by page and
//! video by video; alternatives (prefix completions, infix words, aliases)
//! unite. [`Holders::Any`] ("any video of the page may") absorbs in a
//! union and gives way in an intersection, so a selection only ever
//! narrows what the postings prove.

use std::collections::BTreeMap;

use super::Posting;

/// Which videos of one page may hold a match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holders {
    /// Any video of the page may (chat and posts pages, page-wide words,
    /// words every video holds).
    Any,
    /// Only the videos at these positions on the page (ascending, distinct).
    Only(Vec<u32>),
}

impl Holders {
    fn union(&mut self, other: Holders) {
        match (&mut *self, other) {
            (Holders::Any, _) => {}
            (_, Holders::Any) => *self = Holders::Any,
            (Holders::Only(a), Holders::Only(b)) => {
                a.extend(b);
                a.sort_unstable();
                a.dedup();
            }
        }
    }

    fn intersect(self, other: &Holders) -> Holders {
        match (self, other) {
            (h, Holders::Any) => h,
            (Holders::Any, h) => h.clone(),
            (Holders::Only(a), Holders::Only(b)) => Holders::Only(
                a.into_iter()
                    .filter(|h| b.binary_search(h).is_ok())
                    .collect(),
            ),
        }
    }

    fn is_empty(&self) -> bool {
        matches!(self, Holders::Only(h) if h.is_empty())
    }
}

/// Page id → the videos of it that may hold a match; a page not listed
/// cannot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection(BTreeMap<u32, Holders>);

impl Selection {
    /// The pages of a word's postings, with their holders.
    pub fn of_postings(postings: Vec<Posting>) -> Selection {
        Selection(
            postings
                .into_iter()
                .map(|p| {
                    let holders = match p.holders {
                        Some(named) if !p.page_wide => Holders::Only(named),
                        _ => Holders::Any,
                    };
                    (p.page, holders)
                })
                .collect(),
        )
    }

    /// Adds every page and video of `other`.
    pub fn union(&mut self, other: Selection) {
        for (page, holders) in other.0 {
            match self.0.get_mut(&page) {
                Some(h) => h.union(holders),
                None => {
                    self.0.insert(page, holders);
                }
            }
        }
    }

    /// Keeps what both select: the pages in both, and on each the videos
    /// both allow; a page left with no video is dropped.
    pub fn intersect(self, other: &Selection) -> Selection {
        Selection(
            self.0
                .into_iter()
                .filter_map(|(page, h)| {
                    let h = h.intersect(other.0.get(&page)?);
                    (!h.is_empty()).then_some((page, h))
                })
                .collect(),
        )
    }

    /// The videos of `page` selected; `None` when the page is not.
    pub fn get(&self, page: u32) -> Option<&Holders> {
        self.0.get(&page)
    }

    /// Whether video `video` (its position) of `page` is selected.
    pub fn may_hold(&self, page: u32, video: u32) -> bool {
        match self.0.get(&page) {
            None => false,
            Some(Holders::Any) => true,
            Some(Holders::Only(h)) => h.binary_search(&video).is_ok(),
        }
    }

    /// Whether `page` is selected.
    pub fn contains(&self, page: u32) -> bool {
        self.0.contains_key(&page)
    }

    /// The pages selected, ascending.
    pub fn pages(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.keys().copied()
    }

    /// Adds `page` with `holders` (uniting with what it has).
    pub fn add(&mut self, page: u32, holders: Holders) {
        self.union(Selection(BTreeMap::from([(page, holders)])));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(entries: &[(u32, Option<&[u32]>)]) -> Selection {
        Selection(
            entries
                .iter()
                .map(|&(p, h)| (p, h.map_or(Holders::Any, |h| Holders::Only(h.to_vec()))))
                .collect(),
        )
    }

    #[test]
    fn any_absorbs_a_union_and_gives_way_in_an_intersection() {
        let a = sel(&[(1, Some(&[0, 2])), (2, None), (3, Some(&[1]))]);
        let b = sel(&[(1, Some(&[2, 5])), (2, Some(&[4])), (3, Some(&[0]))]);
        assert_eq!(
            a.clone().intersect(&b),
            sel(&[(1, Some(&[2])), (2, Some(&[4]))]),
            "page 3 has no video holding both, so it is dropped"
        );
        let mut u = a;
        u.union(b);
        assert_eq!(
            u,
            sel(&[(1, Some(&[0, 2, 5])), (2, None), (3, Some(&[0, 1]))])
        );
    }
}
