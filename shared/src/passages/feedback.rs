//! Feedback words: what `both` adds to the words side from the best
//! passages by meaning.
//!
//! A question phrased in other words than the episodes use ("trial and
//! error with rewards") shares few words with them, so BM25 of its own
//! words ranks noise, and fusing noise with the meaning ranking makes it
//! worse. Pseudo-relevance feedback bridges the gap the way RM3 does
//! (Lavrenko and Croft, 2001; Abdul-Jaleel et al., 2004): the
//! [`PASSAGES`] best passages by meaning are taken as relevant, and the
//! [`WORDS`] words that weigh most in them ("reinforcement", "policy",
//! "reward") join the query's own on the words side. The two numbers are
//! RM3's usual defaults (Anserini's), not fitted to a judgment set.
//!
//! A word's weight is `Σ tf / length × idf` over those passages: its
//! share of each passage's words, by how rare it is among all passages
//! ([`Words::idf_of`], BM25's own). A word held by one passage only, and the
//! query's own words, are never added.

use std::collections::HashMap;

use super::words::Words;

/// Passages taken as relevant.
pub const PASSAGES: usize = 10;

/// Words added to the query.
pub const WORDS: usize = 10;

/// A word held by more than one passage in this many says little of a
/// subject ("did", "them"): it is never added, which also keeps the words
/// side's cost that of rare words' lists.
pub const COMMON_SHARE: u32 = 10;

/// The [`WORDS`] words weighing most in `texts` (the best passages by
/// meaning, best first), heaviest first, none of them in `query_words`.
pub fn words(words: &Words, texts: &[&str], query_words: &[String]) -> Vec<String> {
    let mut weight: HashMap<String, f32> = HashMap::new();
    for text in texts.iter().take(PASSAGES) {
        let tokens = crate::text::tokens(text);
        let share = 1.0 / tokens.len().max(1) as f32;
        for t in tokens {
            *weight.entry(t).or_default() += share;
        }
    }
    let mut scored: Vec<(String, f32)> = weight
        .into_iter()
        .filter(|(w, _)| !query_words.contains(w))
        .filter_map(|(w, share)| {
            let df = words.df(&w)?;
            let common = df > words.passages() / COMMON_SHARE;
            (df >= 2 && !common).then(|| (w, share * words.idf_of(df)))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    scored.into_iter().take(WORDS).map(|(w, _)| w).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feedback_adds_the_rare_words_of_the_best_passages_and_never_the_query_s_own() {
        let mut texts = vec![
            "the agent learns a policy from reward",
            "reward shaping helps the agent learn the policy",
            "the weather was nice and the day was long",
            "the market fell and the day was long",
            "a policy gradient from the reward signal",
            "zebra",
        ];
        // 36 passages in all: a word in more than 3 is common.
        texts.extend(std::iter::repeat_n("nothing to see here", 30));
        let store = Words::of_texts(&texts);
        let best = [
            "the agent learns a policy from reward",
            "reward shaping helps the agent learn the policy",
            "zebra",
        ];
        let added = words(&store, &best, &["agent".to_string()]);
        assert_eq!(&added[..2], ["policy", "reward"], "{added:?}");
        assert!(!added.contains(&"agent".to_string()), "{added:?}");
        // Held by one passage only: never added, however heavy.
        assert!(!added.contains(&"zebra".to_string()), "{added:?}");
        assert!(!added.contains(&"shaping".to_string()), "{added:?}");
        // Held by 5 of 36 passages: common, never added.
        assert!(!added.contains(&"the".to_string()), "{added:?}");
        assert!(added.len() <= WORDS);
    }
}
