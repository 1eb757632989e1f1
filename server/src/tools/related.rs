//! `significant_terms` and `related_videos`: what is said alongside a
//! query, and which videos are most like one video. The counting is
//! `archilyzer_core::related`'s; this lays the answer out within the
//! budget, the terms (or videos) shown as far as it holds.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::sources::Sources;
use crate::tool::ToolResult;
use archilyzer_core::query::{CallFilters, Find, PageCap};
use archilyzer_core::related::{
    related_videos as alike, significant_terms as significant, AlikeOptions, Related, RelatedVideo,
    SignificantOptions, SignificantTerms,
};
use archilyzer_core::report::share;
use archilyzer_core::source::SourceHandle;

/// `significant_terms`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SignificantArgs {
    /// The query whose matches are the foreground, as search_transcripts
    /// takes it (its scopes are the fields whose words are counted; chat
    /// and posts are refused: their units are not videos).
    pub query: String,
    /// How the query is found; the filters choose the background as well
    /// as the matches.
    #[serde(flatten)]
    pub find: Find,
    /// A term must be said in at least this many matching videos
    /// (default 3).
    #[schemars(range(min = 1))]
    #[serde(default = "three")]
    pub min_videos: usize,
    /// Terms to give, highest score first (default 25).
    #[schemars(range(min = 1, max = 1000))]
    #[serde(default = "twenty_five")]
    pub limit: usize,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
}

fn three() -> usize {
    3
}

fn twenty_five() -> usize {
    25
}

fn ten() -> usize {
    10
}

/// `related_videos`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RelatedArgs {
    /// The video's id.
    pub video_id: String,
    /// Its channel (slug or name), to find it first there.
    #[serde(default)]
    pub channel: Option<String>,
    /// Fields whose words are compared: transcripts, description, tags,
    /// metadata. Default: captions and titles.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Of the video's words (said at least twice, held by at least five
    /// videos), how many of the heaviest by tf × idf to look for
    /// (default 25).
    #[schemars(range(min = 1, max = archilyzer_core::related::MOST_TERMS))]
    #[serde(default = "twenty_five")]
    pub terms: usize,
    /// Videos to give, most alike first (default 10).
    #[schemars(range(min = 1, max = archilyzer_core::related::MOST_VIDEOS))]
    #[serde(default = "ten")]
    pub limit: usize,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
    /// The filters: which videos may be given.
    #[serde(flatten)]
    pub filters: CallFilters,
}

/// The `significant_terms` tool.
pub fn significant_terms(
    sources: &Sources,
    handle: &SourceHandle,
    args: &SignificantArgs,
    budget: usize,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let index = sources.index_dir(handle);
    let request = args.find.request(&args.query, PageCap::default());
    let opts = SignificantOptions {
        min_videos: args.min_videos,
        limit: args.limit,
        ..SignificantOptions::default()
    };
    let found =
        significant(&archive, index.as_deref(), &request, opts).map_err(|e| e.to_string())?;
    // The terms as far as the budget holds; if one term with its share
    // link is still too long (a very long query), the links go.
    let render_with = |found: &SignificantTerms, room: usize| {
        let head = significant_head(found);
        let lines: Vec<String> = found.terms.iter().map(|t| term_line(found, t)).collect();
        let (text, shown) = fill(head, &lines, &found.index, room);
        let answer = SignificantTerms {
            terms: found.terms[..shown].to_vec(),
            ..found.clone()
        };
        (text, crate::output::content(&answer))
    };
    let unlinked = SignificantTerms {
        terms: found
            .terms
            .iter()
            .map(|t| archilyzer_core::related::SignificantTerm {
                search: None,
                ..t.clone()
            })
            .collect(),
        ..found.clone()
    };
    let render = |room: usize| {
        let linked = render_with(&found, room);
        match crate::budget::size(&linked.0, &linked.1) <= room {
            true => linked,
            false => render_with(&unlinked, room),
        }
    };
    Ok(crate::budget::fit_whole(
        crate::budget::of_answer(budget, archive.handle()),
        render,
    ))
}

/// The `related_videos` tool.
pub fn related_videos(
    sources: &Sources,
    handle: &SourceHandle,
    args: &RelatedArgs,
    budget: usize,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let index = sources.index_dir(handle);
    let opts = AlikeOptions {
        terms: args.terms,
        limit: args.limit,
        ..AlikeOptions::default()
    };
    let hints: Vec<String> = args.channel.iter().cloned().collect();
    let found = alike(
        &archive,
        index.as_deref(),
        &args.video_id,
        &hints,
        &args.scopes,
        &args.filters.0,
        opts,
    )
    .map_err(|e| e.to_string())?;
    Ok(lay_out(
        &found,
        crate::budget::of_answer(budget, archive.handle()),
    ))
}

/// `found` within `budget`: as many videos as fit, then in the richest
/// [`Shape`] that still shows that many (a few fits, not one per shape).
fn lay_out(found: &Related, budget: usize) -> (String, serde_json::Value) {
    let shapes = Shape::richest_first(found.terms.len());
    let answers: Vec<std::cell::OnceCell<Fitted>> =
        shapes.iter().map(|_| Default::default()).collect();
    let answer_in = |i: usize| answers[i].get_or_init(|| fit_related(found, shapes[i], budget));
    let leanest = shapes.len() - 1;
    let Some(most) = answer_in(leanest).shown else {
        return answer_in(leanest).answer.clone();
    };
    // The richest shape that still shows as many videos as the leanest:
    // a shape richer than one that does shows no more, so the shapes
    // that show fewer (or do not fit) come first, and a binary search
    // finds the first that does in about log2(shapes) fits.
    let richer: Vec<usize> = (0..leanest).collect();
    let first = richer.partition_point(|&i| answer_in(i).shown < Some(most));
    answer_in(first).answer.clone()
}

/// An answer fitted to the budget, and how many videos it shows (`None`
/// when even its least does not fit).
struct Fitted {
    answer: (String, serde_json::Value),
    shown: Option<usize>,
}

/// `found` in `shape`, fitted to `budget`.
fn fit_related(found: &Related, shape: Shape, budget: usize) -> Fitted {
    let shaped = Related {
        terms: found.terms[..shape.terms].to_vec(),
        videos: found
            .videos
            .iter()
            .map(|v| RelatedVideo {
                shared: v.shared.iter().take(shape.shared).cloned().collect(),
                ..v.clone()
            })
            .collect(),
        ..found.clone()
    };
    let head = related_head(&shaped, found.terms.len());
    let lines: Vec<String> = shaped.videos.iter().map(video_line).collect();
    let answer = crate::budget::fit_whole(budget, |room| {
        let (text, shown) = fill(head.clone(), &lines, &shaped.index, room);
        let answer = Related {
            videos: shaped.videos[..shown].to_vec(),
            ..shaped.clone()
        };
        (text, crate::output::content(&answer))
    });
    let fits = crate::budget::size(&answer.0, &answer.1) <= budget;
    let shown = fits.then(|| Shown::deserialize(&answer.1).map_or(0, |s| s.videos.len()));
    Fitted { answer, shown }
}

/// The videos a fitted answer's structured content holds.
#[derive(serde::Deserialize)]
struct Shown {
    videos: Vec<serde::de::IgnoredAny>,
}

/// How much of a related-videos answer is shown besides its videos: the
/// first `terms` words looked for, and up to `shared` of the words each
/// video shares.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Shape {
    terms: usize,
    shared: usize,
}

impl Shape {
    /// The shapes an answer of `terms` words looked for may take, richest
    /// first: everything; each video's shared words cut to 10, then to 3;
    /// then fewer words looked for, down to one. The videos come first:
    /// an answer gives up these before it gives up a video.
    fn richest_first(terms: usize) -> Vec<Shape> {
        let all = |shared| Shape { terms, shared };
        [all(usize::MAX), all(10), all(3)]
            .into_iter()
            .chain((1..terms).rev().map(|terms| Shape { terms, shared: 3 }))
            .collect()
    }
}

/// `head`, then as many of `lines` as `room` holds (one at least), then
/// how many were left out and the index's line; the text and the lines
/// shown.
fn fill(head: String, lines: &[String], index: &str, room: usize) -> (String, usize) {
    let mut out = head;
    let tail = format!("{index}\n");
    let mut shown = 0;
    for l in lines {
        if shown > 0 && out.len() + l.len() + tail.len() + 80 > room {
            break;
        }
        out.push_str(l);
        shown += 1;
    }
    if shown < lines.len() {
        out.push_str(&format!(
            "… {} more not shown (size budget): raise max_chars, or lower limit\n",
            lines.len() - shown
        ));
    }
    out.push_str(&tail);
    (out, shown)
}

/// What a significant-terms answer counts, partial coverage first.
fn significant_head(s: &SignificantTerms) -> String {
    let mut out = partial_line(&s.unreadable);
    out.push_str(&format!(
        "# Said alongside {:?}\n{} matching video(s) (the foreground) of {} in scope (the background); {} word(s) are said in at least {} of the matches and more often there than in the background, scored by JLH = (fg/F − bg/B) × (fg/F) / (bg/B).\n\n",
        s.query, s.foreground, s.background, s.terms_total, s.min_videos
    ));
    out
}

/// One term: its score and shares, and the search for the query with it.
fn term_line(s: &SignificantTerms, t: &archilyzer_core::related::SignificantTerm) -> String {
    let search = match &t.search {
        Some(link) => format!(" — query AND {}: open_link {link}", t.word),
        None => String::new(),
    };
    format!(
        "- **{}** (score {:.2}): said in {} of the matches, {} of the background{search}\n",
        t.word,
        t.score,
        share(t.fg, s.foreground as u64),
        share(t.bg, s.background as u64),
    )
}

/// What a related-videos answer compares, partial coverage first.
fn related_head(r: &Related, looked_for: usize) -> String {
    let mut out = partial_line(&r.unreadable);
    let words: Vec<String> = r
        .terms
        .iter()
        .map(|t| format!("{} (×{}, in {} videos)", t.word, t.tf, t.df))
        .collect();
    out.push_str(&format!(
        "# Videos like {}/{} \"{}\"\nIts {} heaviest word(s) by tf × idf: {}{}.\n{} of {} video(s) in scope share at least one; scored by the sum of the idf of the words shared.\n\n",
        r.video.channel,
        r.video.slug,
        r.title,
        looked_for,
        words.join(", "),
        if r.terms.len() < looked_for {
            format!(" (the first {} shown: size budget)", r.terms.len())
        } else {
            String::new()
        },
        r.videos_total,
        r.background
    ));
    out
}

/// One related video: score, identity, and the words it shares.
fn video_line(v: &RelatedVideo) -> String {
    let more = match v.shared_count - v.shared.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let copy = match v.same_recording {
        true => " (another upload of this recording)",
        false => "",
    };
    format!(
        "- {:.2} **{}** ({}/{}){copy} — shares {} word(s): {}{more}\n",
        v.score,
        v.title,
        v.channel,
        v.slug,
        v.shared_count,
        v.shared.join(", ")
    )
}

/// The line that says some pages could not be read, or nothing.
fn partial_line(unreadable: &[String]) -> String {
    match unreadable {
        [] => String::new(),
        pages => format!(
            "⚠ PARTIAL: {} page(s) could not be read, so their videos are not counted: {}\n",
            pages.len(),
            pages.join("; ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use archilyzer_core::related::{VideoId, WeightedTerm};

    /// A video sharing all of 25 words with each of 10 others.
    fn found() -> Related {
        let words: Vec<String> = (0..25).map(|i| format!("word{i:02}")).collect();
        let video = |i: usize| RelatedVideo {
            site: "s".into(),
            channel: "chan".into(),
            slug: format!("video{i:02}"),
            title: format!("Episode {i}: a title of some length"),
            score: 100.0 - i as f64,
            shared: words.clone(),
            shared_count: words.len(),
            same_recording: false,
        };
        Related {
            video: VideoId {
                site: "s".into(),
                channel: "chan".into(),
                slug: "me".into(),
            },
            title: "The video asked about".into(),
            background: 1000,
            terms: (words.iter())
                .map(|w| WeightedTerm {
                    word: w.clone(),
                    tf: 9,
                    df: 40,
                    weight: 30.0,
                })
                .collect(),
            videos: (0..10).map(video).collect(),
            videos_total: 400,
            pages_read: 1,
            index: "index: fresh".into(),
            partial: false,
            unreadable: Vec::new(),
        }
    }

    fn shown(answer: &(String, serde_json::Value)) -> (usize, usize, usize) {
        let list = |k: &str| answer.1[k].as_array().map_or(0, Vec::len);
        let shared = answer.1["videos"][0]["shared"]
            .as_array()
            .map_or(0, Vec::len);
        (list("videos"), list("terms"), shared)
    }

    #[test]
    fn a_related_answer_cut_to_its_budget_gives_up_terms_and_shared_words_before_videos() {
        let found = found();
        for budget in [2_000, 3_000, 4_000, 6_000, 8_000, 12_000] {
            let answer = lay_out(&found, budget);
            assert!(
                crate::budget::size(&answer.0, &answer.1) <= budget,
                "{budget}"
            );
            // Every shape tried in turn, richest first: the answer shows
            // the most videos any shape can, in the first shape that does.
            let fits: Vec<(String, serde_json::Value)> = Shape::richest_first(25)
                .into_iter()
                .map(|s| fit_related(&found, s, budget))
                .filter(|f| f.shown.is_some())
                .map(|f| f.answer)
                .collect();
            let most = fits.iter().map(|a| shown(a).0).max().unwrap();
            let first = fits.iter().find(|a| shown(a).0 == most).unwrap();
            assert_eq!(shown(&answer), shown(first), "{budget}");
            assert_eq!(answer.0, first.0, "{budget}");
        }
        // Room for everything: every term, video and shared word.
        assert_eq!(shown(&lay_out(&found, 40_000)), (10, 25, 25));
        // At 3,500 characters: nine videos of ten, then the first three
        // terms, each cut said in the text.
        let small = lay_out(&found, 3_500);
        assert_eq!(shown(&small), (9, 3, 3));
        assert!(
            small.0.contains("(the first 3 shown: size budget)"),
            "{}",
            small.0
        );
        assert!(
            small.0.contains("… 1 more not shown (size budget)"),
            "{}",
            small.0
        );
    }
}
