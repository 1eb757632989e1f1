//! "Did you mean": the known name a mistyped one is nearest to.
//!
//! One rule for every hint of its kind (a tool's argument name, a channel,
//! a filter key): the nearest candidate within two edits (Levenshtein, in
//! characters, compared in lower case), ties going to the first.

/// Edits a typo may be away from the name meant.
pub const MAX_EDITS: usize = 2;

/// The candidate `word` is probably a typo of, if any.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::levenshtein(&word, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= MAX_EDITS)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_name_within_two_edits_first_on_ties() {
        let names = ["late-night-live", "daily-dispatch", "stream-vault"];
        assert_eq!(nearest("Late-Nigth-Live", names), Some("late-night-live"));
        assert_eq!(nearest("stream-vaults", names), Some("stream-vault"));
        assert_eq!(nearest("harmontown", names), None);
        assert_eq!(nearest("ab", ["ac", "ad"]), Some("ac"));
    }
}
