//! The order a search lists its videos in.
//!
//! `relevance` (the default of `search_transcripts`) scores each video
//! with BM25 over its confirmed hits: for the query (aliases included)
//! and for each fuzzy expansion as a term, `idf × tf × (k1 + 1) / (tf +
//! k1 × (1 − b + b × length / average length))`, where `tf` is the term's
//! hits in the video, `length` the video's length in bytes of text
//! (captions, or the text of a chat or post; BM25 only compares lengths,
//! and bytes need no pass over the text), `idf = ln(1 + (N − df + 0.5) / (df +
//! 0.5))` with `df` the matching videos holding the term and `N` the
//! videos in the archive; k1 = 1.2, b = 0.75. So a video that says the
//! words often for its length comes first, and a rarer term counts more.
//! Ties keep archive order, and the whole match set is ordered before it
//! is paged, so every page of `offset` paging agrees. `newest` and
//! `oldest` order by upload date (undated last), `archive` keeps the
//! archive's order (what `enumerate_matches` always uses: a worklist).

use super::VideoResult;

/// How a result is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
                order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
            }
        }
        order
    }
}

/// Each video's BM25 score (see the module docs).
pub fn bm25(videos: &[&VideoResult], archive_videos: usize) -> Vec<f64> {
    let terms = 1 + videos
        .iter()
        .map(|v| v.expansion_hits.len())
        .max()
        .unwrap_or(0);
    let tf = |v: &VideoResult, t: usize| -> f64 {
        if t == 0 {
            v.hits.len() as f64
        } else {
            v.expansion_hits.get(t - 1).copied().unwrap_or(0) as f64
        }
    };
    let n = archive_videos.max(videos.len()) as f64;
    let idf: Vec<f64> = (0..terms)
        .map(|t| {
            let df = videos.iter().filter(|v| tf(v, t) > 0.0).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let average = videos
        .iter()
        .map(|v| f64::from(v.length.max(1)))
        .sum::<f64>()
        / videos.len().max(1) as f64;
    videos
        .iter()
        .map(|v| {
            let norm = K1 * (1.0 - B + B * f64::from(v.length.max(1)) / average);
            (0..terms)
                .map(|t| {
                    let f = tf(v, t);
                    idf[t] * f * (K1 + 1.0) / (f + norm)
                })
                .sum()
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
