//! `channel_coverage`: what a channel holds on the editor's disk, by date.
//!
//! The editor lists the channel's videos with one date each (the recorded
//! date when the channel has a title rule, else the upload date); the
//! figures are computed here: count, first and last day, per year, and
//! every gap longer than `gap_days`. With `date_from` / `date_to` the edges
//! of the range count as gap ends too, so an empty stretch at either end
//! is reported. Undated videos are counted apart, never dropped.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::EditorSetup;
use crate::tool::ToolResult;
use archilyzer_core::time::{Day, DayRange};

/// Days without a video that count as a gap, by default.
pub const DEFAULT_GAP_DAYS: usize = 30;

/// The editor's coverage reply (`docs/editor-contract.md`):
/// `{channel, dateBasis, videos: [{id, title, date}]}`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CoverageReply {
    /// `recorded` when the channel has a title rule, else `upload`.
    #[serde(default)]
    date_basis: String,
    /// Every video the channel holds on disk.
    #[serde(default)]
    videos: Vec<HeldVideo>,
}

/// One video of a coverage reply.
#[derive(Debug, Default, Deserialize)]
struct HeldVideo {
    #[serde(default)]
    id: String,
    #[serde(default)]
    title: String,
    /// `YYYYMMDD`, or null when the editor knows no date.
    #[serde(default)]
    date: Option<String>,
}

/// Days since 1970-01-01 of a calendar day the editor sent.
fn day_number(date: &str) -> Option<i64> {
    Day::parse(date).ok().map(Day::days_since_epoch)
}

fn pretty(date: &str) -> String {
    format!("{}-{}-{}", &date[..4], &date[4..6], &date[6..])
}

/// A stretch with no video, longer than the threshold.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Gap {
    /// The last day with a video before it, `YYYYMMDD`.
    pub after: String,
    /// The first day with a video after it.
    pub before: String,
    /// Days between the two.
    pub days: i64,
}

/// `channel_coverage`'s structured content.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoverageAnswer {
    /// The channel's slug.
    pub channel: String,
    /// `recorded` (the channel has a title rule) or `upload`.
    pub date_basis: String,
    /// Dated videos in the range.
    pub count: usize,
    /// Videos without a date, counted apart.
    pub undated: usize,
    /// The first day with a video.
    pub first: Option<String>,
    /// The last day with a video.
    pub last: Option<String>,
    /// Dated videos per year.
    pub per_year: BTreeMap<String, usize>,
    /// Stretches longer than `gap_days` with no video.
    pub gaps: Vec<Gap>,
}

/// Gaps longer than `gap_days` between consecutive sorted dates.
pub fn gaps(dates: &[String], gap_days: i64) -> Vec<Gap> {
    dates
        .windows(2)
        .filter_map(|w| {
            let days = day_number(&w[1])? - day_number(&w[0])?;
            (days > gap_days).then(|| Gap {
                after: w[0].clone(),
                before: w[1].clone(),
                days,
            })
        })
        .collect()
}

/// `channel_coverage`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CoverageArgs {
    /// The channel slug on the editor.
    pub channel: String,
    /// Report stretches longer than this many days with no video
    /// (default 30).
    #[schemars(range(min = 1))]
    #[serde(default = "default_gap_days")]
    pub gap_days: usize,
    /// From this day, YYYYMMDD.
    #[serde(default)]
    pub date_from: Option<String>,
    /// To this day, YYYYMMDD.
    #[serde(default)]
    pub date_to: Option<String>,
    /// List every video with its date.
    #[serde(default)]
    pub list: bool,
}

fn default_gap_days() -> usize {
    DEFAULT_GAP_DAYS
}

/// `date_from` and `date_to` as `YYYYMMDD`, each a calendar day, the
/// first not after the second.
fn date_range(args: &CoverageArgs) -> Result<(Option<String>, Option<String>), String> {
    let day = |name: &str, given: &Option<String>| {
        given
            .as_deref()
            .map(|d| Day::parse(d).map_err(|e| format!("channel_coverage: {name} {e}")))
            .transpose()
    };
    let range = DayRange::new(
        day("date_from", &args.date_from)?,
        day("date_to", &args.date_to)?,
    )
    .map_err(|e| format!("channel_coverage: {e}"))?;
    Ok((range.from().map(Day::compact), range.to().map(Day::compact)))
}

/// The `channel_coverage` tool.
pub fn channel_coverage(setup: &EditorSetup, args: &CoverageArgs) -> ToolResult {
    let editor = setup.ready("channel_coverage")?;
    let channel = args.channel.trim();
    if channel.is_empty() {
        return Err(
            "channel_coverage: channel is required (a channel slug the editor archives)"
                .to_string()
                .into(),
        );
    }
    let (from, to) = date_range(args)?;
    let gap_days = args.gap_days as i64;
    let reply = editor.get(
        &["api", "ops", "coverage"],
        &[("channel", channel.to_string())],
    )?;
    if !reply.ok() {
        let mut text = reply.refusal();
        if reply.status == 404 {
            text.push_str(". The editor reports only on channels it archives: check the slug.");
        }
        return Err(text.into());
    }
    let held: CoverageReply = reply.parse("the editor's coverage", "editor-contract.md")?;
    let recorded = held.date_basis == "recorded";
    let in_range =
        |d: &str| from.as_deref().is_none_or(|f| d >= f) && to.as_deref().is_none_or(|t| d <= t);
    let mut dated: Vec<(String, &HeldVideo)> = Vec::new();
    let mut undated = Vec::new();
    for v in &held.videos {
        let day = v.date.as_deref().and_then(|d| Day::parse(d).ok());
        match day.map(Day::compact) {
            Some(d) if in_range(&d) => dated.push((d, v)),
            Some(_) => {}
            None => undated.push(v),
        }
    }
    dated.sort_by(|a, b| a.0.cmp(&b.0));
    let mut edges: Vec<String> = dated.iter().map(|(d, _)| d.clone()).collect();
    edges.splice(0..0, from.clone());
    edges.extend(to.clone());
    let found = gaps(&edges, gap_days);
    let mut per_year: BTreeMap<&str, usize> = BTreeMap::new();
    for (d, _) in &dated {
        *per_year.entry(&d[..4]).or_default() += 1;
    }
    let mut out = format!("# What {channel} holds on the editor's disk\n");
    let range = match (&from, &to) {
        (None, None) => String::new(),
        (f, t) => format!(
            " from {} to {}",
            f.as_deref().map_or("the start".into(), pretty),
            t.as_deref().map_or("now".into(), pretty)
        ),
    };
    let basis = if recorded {
        "recorded date (the channel has a title rule)"
    } else {
        "upload date"
    };
    out.push_str(&format!(
        "- {} dated video(s){range}, each dated by its {basis}\n",
        dated.len()
    ));
    if let (Some(first), Some(last)) = (dated.first(), dated.last()) {
        out.push_str(&format!(
            "- first: {} · last: {}\n",
            pretty(&first.0),
            pretty(&last.0)
        ));
    }
    if !per_year.is_empty() {
        let years: Vec<String> = per_year.iter().map(|(y, n)| format!("{y}: {n}")).collect();
        out.push_str(&format!("- per year: {}\n", years.join(" · ")));
    }
    out.push_str(&format!(
        "- gaps longer than {gap_days} day(s): {}\n",
        found.len()
    ));
    for g in &found {
        out.push_str(&format!(
            "  - {} → {}: {} days without a video\n",
            pretty(&g.after),
            pretty(&g.before),
            g.days
        ));
    }
    if !undated.is_empty() {
        out.push_str(&format!(
            "- undated: {} video(s), not in the figures above\n",
            undated.len()
        ));
    }
    if args.list {
        out.push_str("\n## Videos\n");
        for (d, v) in &dated {
            out.push_str(&format!("- {} · {} · {}\n", pretty(d), v.id, v.title));
        }
        for v in &undated {
            out.push_str(&format!("- no date · {} · {}\n", v.id, v.title));
        }
    }
    let facts = CoverageAnswer {
        channel: channel.to_string(),
        date_basis: if recorded { "recorded" } else { "upload" }.into(),
        count: dated.len(),
        undated: undated.len(),
        first: dated.first().map(|d| d.0.clone()),
        last: dated.last().map(|d| d.0.clone()),
        per_year: per_year.iter().map(|(y, n)| (y.to_string(), *n)).collect(),
        gaps: found,
    };
    let facts = crate::output::content(&facts);
    Ok((out, facts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_and_gaps_are_counted_in_calendar_days() {
        let dates: Vec<String> = ["20240101", "20240131", "20240302"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            gaps(&dates, 30),
            vec![Gap {
                after: "20240131".into(),
                before: "20240302".into(),
                days: 31
            }]
        );
        assert!(gaps(&dates, 31).is_empty());
    }
}
