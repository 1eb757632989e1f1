//! Which fields hold a word, as the index records it (format 4), so the
//! vocabulary can count the videos holding a word *in the fields a
//! search looks in* ("also heard as", `fuzzy`, `similar_terms`).
//!
//! A posting says how many units (videos, chat threads, posts) of its
//! page hold the word. Since format 4 it also says in which fields: a
//! *census*, for each combination of fields, how many units hold the word
//! in exactly that combination. Most words of a transcript page are held
//! in the captions only, and every word of a chat or posts page in its
//! one field, so a posting whose units all hold the word in its layer's
//! own field ([`Fields::of_layer`]) carries no census at all.
//!
//! Promise: for any set of fields `f`, [`Census::units_in`] is exactly
//! the number of the posting's units holding the word in some field of
//! `f` (a unit holding it in two fields of `f` counts once).

use super::LayerName;

/// A set of fields, as a bit set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fields(u8);

impl Fields {
    /// Captions.
    pub const CAPTIONS: Fields = Fields(1);
    /// Titles.
    pub const TITLE: Fields = Fields(2);
    /// Uploader descriptions.
    pub const DESCRIPTION: Fields = Fields(4);
    /// Uploader tags.
    pub const TAGS: Fields = Fields(8);
    /// Live chat.
    pub const CHAT: Fields = Fields(16);
    /// Posts.
    pub const POSTS: Fields = Fields(32);
    /// Every field.
    pub const EVERY: Fields = Fields(63);
    /// No field.
    pub const NONE: Fields = Fields(0);

    /// The one field every unit of a `layer` page is made of.
    pub fn of_layer(layer: LayerName) -> Fields {
        match layer {
            LayerName::Transcripts => Fields::CAPTIONS,
            LayerName::Chat => Fields::CHAT,
            LayerName::Posts => Fields::POSTS,
        }
    }

    /// Both sets.
    pub fn with(self, other: Fields) -> Fields {
        Fields(self.0 | other.0)
    }

    /// Whether the sets share a field.
    pub fn meets(self, other: Fields) -> bool {
        self.0 & other.0 != 0
    }

    /// The set's bits, as the index file spells them.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The set of `bits`; `None` for bits no field has, or none.
    pub fn from_bits(bits: u8) -> Option<Fields> {
        (bits != 0 && bits & !Fields::EVERY.0 == 0).then_some(Fields(bits))
    }
}

/// How many units hold a word in exactly each combination of fields,
/// ascending by combination, each combination once with a count above 0.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Census(pub Vec<(Fields, u32)>);

impl Census {
    /// The census of units holding a word in `each` (one set per unit),
    /// or `None` when every unit holds it in `own` alone (what a posting
    /// then leaves unsaid).
    pub fn of(each: &[Fields], own: Fields) -> Option<Census> {
        if each.iter().all(|&f| f == own) {
            return None;
        }
        let mut counts = [0u32; 64];
        for f in each {
            counts[f.0 as usize] += 1;
        }
        let found = (1..64u8)
            .filter(|&b| counts[b as usize] > 0)
            .map(|b| (Fields(b), counts[b as usize]))
            .collect();
        Some(Census(found))
    }

    /// Units holding the word in some field of `f`.
    pub fn units_in(&self, f: Fields) -> u32 {
        self.0
            .iter()
            .filter(|(c, _)| c.meets(f))
            .map(|(_, n)| n)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_census_counts_each_unit_once_in_any_set_of_fields() {
        let t = Fields::TITLE;
        let c = Fields::CAPTIONS;
        let d = Fields::DESCRIPTION;
        let each = [c, c.with(t), d, t, c.with(d), d];
        let census = Census::of(&each, c).expect("not every unit holds it in captions alone");
        for bits in 1..64u8 {
            let f = Fields::from_bits(bits).unwrap();
            let plain = each.iter().filter(|u| u.meets(f)).count() as u32;
            assert_eq!(census.units_in(f), plain, "fields {bits:06b}");
        }
        assert_eq!(Census::of(&[c, c, c], c), None);
        assert_eq!(Fields::from_bits(0), None);
        assert_eq!(Fields::from_bits(64), None);
    }
}
