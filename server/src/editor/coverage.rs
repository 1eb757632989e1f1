//! `channel_coverage`: what a channel holds on the editor's disk, by date.
//!
//! The editor lists the channel's videos with one date each (the recorded
//! date when the channel has a title rule, else the upload date); the
//! figures are computed here: count, first and last day, per year, and
//! every gap longer than `gap_days`. With `date_from` / `date_to` the edges
//! of the range count as gap ends too, so an empty stretch at either end
//! is reported. Undated videos are counted apart, never dropped.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::EditorSetup;
use crate::tool::{bool_arg, int_arg, str_arg, ToolResult};

/// Days without a video that count as a gap, by default.
pub const DEFAULT_GAP_DAYS: usize = 30;

/// Days since 1970-01-01 of a valid `YYYYMMDD`.
pub fn day_number(date: &str) -> Option<i64> {
    if date.len() != 8 || !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (
        date[..4].parse().ok()?,
        date[4..6].parse().ok()?,
        date[6..].parse().ok()?,
    );
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d < 1 || d > days_in[(m - 1) as usize] {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

fn pretty(date: &str) -> String {
    format!("{}-{}-{}", &date[..4], &date[4..6], &date[6..])
}

/// A stretch with no video, longer than the threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    pub after: String,
    pub before: String,
    pub days: i64,
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

fn date_arg(args: &Map<String, Value>, name: &str) -> Result<Option<String>, String> {
    match str_arg(args, name).map(|d| d.trim().replace('-', "")) {
        None => Ok(None),
        Some(d) if day_number(&d).is_some() => Ok(Some(d)),
        Some(d) => Err(format!(
            "channel_coverage: {name} {d:?} is not a date: give YYYYMMDD (or YYYY-MM-DD)"
        )),
    }
}

/// The `channel_coverage` tool.
pub fn channel_coverage(setup: &EditorSetup, args: &Map<String, Value>) -> ToolResult {
    let editor = setup.ready("channel_coverage")?;
    let channel = str_arg(args, "channel").map(str::trim).unwrap_or_default();
    if channel.is_empty() {
        return Err(
            "channel_coverage: channel is required (a channel slug the editor archives)"
                .to_string()
                .into(),
        );
    }
    let (from, to) = (date_arg(args, "date_from")?, date_arg(args, "date_to")?);
    let gap_days = int_arg(args, "gap_days", DEFAULT_GAP_DAYS) as i64;
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
    let videos = reply.body["videos"].as_array().cloned().unwrap_or_default();
    let recorded = reply.body["dateBasis"] == "recorded";
    let in_range =
        |d: &str| from.as_deref().is_none_or(|f| d >= f) && to.as_deref().is_none_or(|t| d <= t);
    let mut dated: Vec<(String, &Value)> = Vec::new();
    let mut undated = Vec::new();
    for v in &videos {
        match v["date"].as_str().filter(|d| day_number(d).is_some()) {
            Some(d) if in_range(d) => dated.push((d.to_string(), v)),
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
    if bool_arg(args, "list", false) {
        out.push_str("\n## Videos\n");
        for (d, v) in &dated {
            out.push_str(&format!(
                "- {} · {} · {}\n",
                pretty(d),
                v["id"].as_str().unwrap_or("?"),
                v["title"].as_str().unwrap_or("")
            ));
        }
        for v in &undated {
            out.push_str(&format!(
                "- no date · {} · {}\n",
                v["id"].as_str().unwrap_or("?"),
                v["title"].as_str().unwrap_or("")
            ));
        }
    }
    let facts = json!({
        "channel": channel, "dateBasis": if recorded { "recorded" } else { "upload" },
        "count": dated.len(), "undated": undated.len(),
        "first": dated.first().map(|d| &d.0), "last": dated.last().map(|d| &d.0),
        "perYear": per_year,
        "gaps": found.iter().map(|g| json!({"after": g.after, "before": g.before, "days": g.days})).collect::<Vec<_>>(),
    });
    Ok((out, facts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_and_gaps_are_counted_in_calendar_days() {
        assert_eq!(day_number("19700101"), Some(0));
        assert_eq!(day_number("20240301"), Some(19_783));
        assert_eq!(day_number("20240229"), Some(19_782));
        assert_eq!(day_number("20230229"), None);
        assert_eq!(day_number("2024-03-01"), None);
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
