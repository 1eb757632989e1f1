//! Which videos of a one-word search the index's places can answer
//! (the plan's side of [`super::placed`]): the word's placed videos, and
//! the videos its excludes may hold, which the postings select.

use std::collections::HashMap;
use std::sync::Arc;

use super::prune::Cond;
use super::terms::Terms;
use crate::index::places::PlacedVideo;
use crate::index::select::Selection;
use crate::index::{Index, VideoRow};

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
