//! The order a search lists its videos in.
//!
//! `relevance` (the default of `search_transcripts`) scores each video
//! with BM25 over its confirmed hits of the query (aliases included),
//! `idf × tf × (k1 + 1) / (tf +
//! k1 × (1 − b + b × length / average length))`, where `tf` is the term's
//! hits in the video, `length` the video's length in bytes of text
//! (captions, or the text of a chat or post; BM25 only compares lengths,
//! and bytes need no pass over the text), `idf = ln(1 + (N − df + 0.5) / (df +
//! 0.5))` with `df` the matching videos holding the term and `N` the
//! videos in the archive; k1 = 1.2, b = 0.75. So a video that says the
//! words often for its length comes first, and a rarer term counts more.
//! The fuzzy variants are scored apart and only break ties: the score
//! over the query's own hits (as typed, and its aliases) is compared
//! first, so turning fuzzy on never ranks a video that says the query
//! below one that only says a variant, nor reorders those that say it.
//! Ties keep archive order, and the whole match set is ordered before it
//! is paged, so every page of `offset` paging agrees. `newest` and
//! `oldest` order by upload date (undated last), `archive` keeps the
//! archive's order (what `enumerate_matches` always uses: a worklist).

use super::VideoResult;

/// How a result is ordered.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// BM25 over the confirmed hits.
    Relevance,
    /// Upload date, newest first.
    Newest,
    /// Upload date, oldest first.
    Oldest,
    /// The archive's order.
    Archive,
}

const K1: f64 = 1.2;
const B: f64 = 0.75;

impl Order {
    /// The order a request names; `None` for an unknown name.
    pub fn parse(s: &str) -> Option<Order> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "relevance" => Order::Relevance,
            "newest" => Order::Newest,
            "oldest" => Order::Oldest,
            "archive" => Order::Archive,
            _ => return None,
        })
    }

    /// The footer's words for it.
    pub fn describe(self) -> &'static str {
        match self {
            Order::Relevance => {
                "order: relevance (BM25 over the confirmed hits; ties in archive order)"
            }
            Order::Newest => "order: newest first (undated last)",
            Order::Oldest => "order: oldest first (undated last)",
            Order::Archive => "order: archive order",
        }
    }

    /// How the result says it is ordered, for these `videos`: a date order
    /// over videos none of which has a date says it fell back to archive
    /// order.
    pub fn describe_for<'a>(self, mut videos: impl Iterator<Item = &'a VideoResult>) -> String {
        let by_date = matches!(self, Order::Newest | Order::Oldest);
        let mut seen = false;
        let undated = videos.all(|v| {
            seen = true;
            v.upload_date.is_none()
        });
        if by_date && seen && undated {
            return format!(
                "{}: none of the matching videos has an upload date, so they are in archive order",
                self.describe()
            );
        }
        self.describe().to_string()
    }

    /// The positions of `videos` in this order (stable: ties keep
    /// archive order). `archive_videos` is N, the videos in the archive.
    pub fn arrange(self, videos: &[&VideoResult], archive_videos: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..videos.len()).collect();
        match self {
            Order::Archive => {}
            Order::Newest | Order::Oldest => {
                let date = |i: usize| videos[i].upload_date.clone();
                order.sort_by(|&a, &b| match (date(a), date(b)) {
                    (Some(x), Some(y)) if self == Order::Newest => y.cmp(&x),
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                });
            }
            Order::Relevance => {
                let scores = bm25(videos, archive_videos);
                order.sort_by(|&a, &b| {
                    let ((a1, a2), (b1, b2)) = (scores[a], scores[b]);
                    b1.total_cmp(&a1).then(b2.total_cmp(&a2))
                });
            }
        }
        order
    }
}

/// Each video's relevance: its BM25 score over the query's own hits
/// (the query as typed and its aliases), then its score over the fuzzy
/// variants, compared in that order (see the module docs).
pub fn bm25(videos: &[&VideoResult], archive_videos: usize) -> Vec<(f64, f64)> {
    let own: Vec<f64> = videos
        .iter()
        .map(|v| {
            let variants: usize = v.expansion_hits.iter().sum();
            v.hits.len().saturating_sub(variants).max(v.exact_hits) as f64
        })
        .collect();
    let count = videos
        .iter()
        .map(|v| v.expansion_hits.len())
        .max()
        .unwrap_or(0);
    let variants: Vec<Vec<f64>> = (0..count)
        .map(|t| {
            let hits = |v: &&VideoResult| v.expansion_hits.get(t).copied().unwrap_or(0) as f64;
            videos.iter().map(hits).collect()
        })
        .collect();
    let first = score(videos, archive_videos, &[own]);
    let then = score(videos, archive_videos, &variants);
    first.into_iter().zip(then).collect()
}

/// BM25 of each video over `terms` (`terms[t][v]`: video `v`'s hits of
/// term `t`), the average length taken over the videos holding any.
fn score(videos: &[&VideoResult], archive_videos: usize, terms: &[Vec<f64>]) -> Vec<f64> {
    let n = archive_videos.max(videos.len()) as f64;
    let idf: Vec<f64> = terms
        .iter()
        .map(|tf| {
            let df = tf.iter().filter(|f| **f > 0.0).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let length = |v: usize| f64::from(videos[v].length.max(1));
    let holders: Vec<f64> = (0..videos.len())
        .filter(|&v| terms.iter().any(|tf| tf[v] > 0.0))
        .map(length)
        .collect();
    let average = holders.iter().sum::<f64>() / holders.len().max(1) as f64;
    (0..videos.len())
        .map(|v| {
            let norm = K1 * (1.0 - B + B * length(v) / average);
            let term = |(tf, idf): (&Vec<f64>, &f64)| idf * tf[v] * (K1 + 1.0) / (tf[v] + norm);
            terms.iter().zip(&idf).map(term).sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn video(slug: &str, hits: usize, length: u32, date: Option<&str>) -> VideoResult {
        VideoResult {
            site: "s".into(),
            channel: "c".into(),
            slug: slug.into(),
            title: slug.into(),
            upload_date: date.map(str::to_string),
            url: None,
            platform: None,
            machine_translated: false,
            exact_hits: hits,
            kind: "video",
            page: 1,
            hits: (0..hits)
                .map(|i| super::super::Hit {
                    scope: super::super::Scope::Transcripts,
                    unit: i,
                    start: Some(i as f64),
                    text: String::new(),
                    author: None,
                })
                .collect(),
            expansion_hits: Vec::new(),
            length,
        }
    }

    #[test]
    fn relevance_puts_dense_mentions_first_and_keeps_archive_order_on_ties() {
        let v = [
            video("once-in-a-long-talk", 1, 10_000, Some("20200101")),
            video("often-in-a-short-clip", 5, 500, Some("20210101")),
            video("often-in-a-long-talk", 5, 10_000, None),
            video("once-in-a-long-talk-2", 1, 10_000, Some("20220101")),
        ];
        let refs: Vec<&VideoResult> = v.iter().collect();
        assert_eq!(Order::Relevance.arrange(&refs, 100), [1, 2, 0, 3]);
        assert_eq!(Order::Newest.arrange(&refs, 100), [3, 1, 0, 2]);
        assert_eq!(Order::Oldest.arrange(&refs, 100), [0, 1, 3, 2]);
        assert_eq!(Order::Archive.arrange(&refs, 100), [0, 1, 2, 3]);
        assert_eq!(Order::parse("Relevance"), Some(Order::Relevance));
        assert_eq!(Order::parse("best"), None);
    }

    /// `video` with `variant` more hits from one fuzzy variant.
    fn with_variant(slug: &str, exact: usize, variant: usize, length: u32) -> VideoResult {
        let mut v = video(slug, exact + variant, length, None);
        v.exact_hits = exact;
        v.expansion_hits = vec![variant];
        v
    }

    #[test]
    fn turning_fuzzy_on_never_ranks_a_video_below_one_with_fewer_exact_hits() {
        let plain = [
            video("once-in-a-long-talk", 1, 10_000, None),
            video("thrice-in-a-talk", 3, 5_000, None),
        ];
        let refs: Vec<&VideoResult> = plain.iter().collect();
        assert_eq!(Order::Relevance.arrange(&refs, 100), [1, 0]);
        let fuzzy = [
            with_variant("once-in-a-long-talk", 1, 0, 10_000),
            with_variant("misheard-often-in-a-clip", 0, 9, 300),
            with_variant("thrice-in-a-talk", 3, 0, 5_000),
            with_variant("once-and-misheard", 1, 4, 10_000),
        ];
        let refs: Vec<&VideoResult> = fuzzy.iter().collect();
        assert_eq!(
            Order::Relevance.arrange(&refs, 100),
            [2, 3, 0, 1],
            "the variants only break ties; a video with none of the query's own hits comes last"
        );
    }

    #[test]
    fn a_date_order_over_undated_matches_says_it_fell_back_to_archive_order() {
        let undated = [video("a", 1, 10, None), video("b", 1, 10, None)];
        assert_eq!(
            Order::Newest.describe_for(undated.iter()),
            "order: newest first (undated last): none of the matching videos has an upload date, so they are in archive order"
        );
        let dated = [video("a", 1, 10, Some("20240101")), video("b", 1, 10, None)];
        assert_eq!(
            Order::Newest.describe_for(dated.iter()),
            Order::Newest.describe()
        );
        assert_eq!(
            Order::Oldest.describe_for([].iter()),
            Order::Oldest.describe()
        );
    }
}
