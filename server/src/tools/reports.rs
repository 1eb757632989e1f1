//! Cited reports and social posts: `list_reports`, `get_report`,
//! `get_post`, `get_thread`.
//!
//! Reports are per site: a hub has none of its own, and says which member
//! handles to pass. A citation is rendered with its verbatim quote, the
//! original at the cited second, and the site's moment page. Posts have no
//! timeline, so they are cited without a time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::output::content;
use crate::sources::Sources;
use crate::tool::ToolResult;
use archilyzer_core::archive::{Archive, Site};
use archilyzer_core::format::paths::Layer;
use archilyzer_core::format::{Citation, Post, Report, ReportIndex};
use archilyzer_core::links::clock;
use archilyzer_core::source::SourceHandle;

/// The one site whose reports a call reads; a hub says to name a member.
fn report_site(archive: &Archive) -> Result<&Site, String> {
    if archive.hub().is_some() {
        let members: Vec<String> = archive
            .sites()
            .iter()
            .map(|s| format!("{} ({})", s.id(), s.location()))
            .collect();
        return Err(format!(
            "a hub publishes no reports of its own: pass one member as source, e.g. source: \"remote:<member url>\"; members: {}",
            members.join(", ")
        ));
    }
    archive
        .sites()
        .first()
        .map(|s| s.as_ref())
        .ok_or_else(|| "this corpus has no site".to_string())
}

/// `get_report`'s structured content.
#[derive(Serialize, JsonSchema)]
pub struct ReportAnswer {
    /// The report, as the site publishes it.
    pub report: Report,
}

/// `get_post`'s structured content.
#[derive(Serialize, JsonSchema)]
pub struct PostAnswer {
    /// The channel that holds it.
    pub channel: String,
    /// The post.
    pub post: Post,
}

/// `get_thread`'s structured content.
#[derive(Serialize, JsonSchema)]
pub struct ThreadAnswer {
    /// The channel that holds it.
    pub channel: String,
    /// The id of the thread's first post.
    pub thread: String,
    /// Its posts, oldest first.
    pub posts: Vec<Post>,
}

/// The `list_reports` tool.
pub fn list_reports(sources: &Sources, handle: &SourceHandle) -> ToolResult {
    let archive = sources.archive(handle)?;
    let site = report_site(&archive)?;
    let Some(index) = site.reports().map_err(|e| e.to_string())? else {
        return Ok((
            format!("{} publishes no reports", site.id()),
            content(&ReportIndex::default()),
        ));
    };
    let mut out = format!("{} report(s) on {}\n\n", index.reports.len(), site.id());
    for r in &index.reports {
        let tally: Vec<String> = r.verdicts.iter().map(|(v, n)| format!("{v} {n}")).collect();
        out.push_str(&format!(
            "- `{}` {} ({}): {} claim(s), {} citation(s){}\n",
            r.id,
            r.title,
            r.kind,
            r.claims,
            r.citations,
            if tally.is_empty() {
                String::new()
            } else {
                format!("; verdicts: {}", tally.join(", "))
            }
        ));
    }
    Ok((out, content(&*index)))
}

/// The citation's original, at the cited second where its platform takes
/// a time (YouTube, Odysee, Twitch) and the URL does not carry one yet.
fn original_at(c: &Citation) -> String {
    let has_time = url::Url::parse(&c.url)
        .is_ok_and(|u| u.query_pairs().any(|(k, _)| k == "t" || k == "start"));
    let platform = crate::transcript::url::classify(&c.url)
        .ok()
        .and_then(|v| serde_json::from_value(serde_json::json!(v.platform)).ok());
    let target = archilyzer_core::links::LinkTarget {
        viewer: None,
        slug: &c.slug,
        platform,
        url: Some(&c.url),
    };
    match target.moment(c.start) {
        Some(link) if !has_time => link,
        _ => c.url.clone(),
    }
}

fn moment_page(site: &Site, c: &Citation) -> Option<String> {
    let origin = site.viewer()?;
    Some(format!(
        "{origin}/m/{}/{}/{}-{}/",
        c.channel,
        c.slug,
        c.start.floor() as u64,
        c.end.ceil() as u64
    ))
}

/// `get_report`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReportArgs {
    /// The report id, as list_reports shows it.
    pub report: String,
    /// Only this section (id or title).
    #[serde(default)]
    pub section: Option<String>,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
}

/// `get_post`'s and `get_thread`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PostArgs {
    /// The post's id (for get_thread, any post of the thread).
    pub post_id: String,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
}

/// The `get_report` tool.
pub fn get_report(sources: &Sources, handle: &SourceHandle, args: &ReportArgs) -> ToolResult {
    let archive = sources.archive(handle)?;
    let site = report_site(&archive)?;
    let id = args.report.as_str();
    let known = || {
        site.reports()
            .ok()
            .flatten()
            .map(|i| {
                i.reports
                    .iter()
                    .map(|r| r.id.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    let report = archilyzer_core::archive::check_segment(id, "report id")
        .map_err(|e| e.to_string())
        .and_then(|_| site.report(id).map_err(|e| e.to_string()))?
        .ok_or_else(|| match known() {
            list if list.is_empty() => format!(
                "no report {id:?} on {}: it publishes no reports (list_reports shows which sites do)",
                site.id()
            ),
            list => format!("no report {id:?} on {}; its reports are: {list}", site.id()),
        })?;
    let section = args.section.as_deref();
    let sections: Vec<_> = report
        .sections
        .iter()
        .filter(|s| section.is_none_or(|want| s.id == want || s.title == want))
        .collect();
    if sections.is_empty() {
        let names: Vec<String> = report
            .sections
            .iter()
            .map(|s| format!("{} ({})", s.id, s.title))
            .collect();
        return Err(format!(
            "report {id} has no section {:?}; its sections are: {}",
            section.unwrap_or(""),
            names.join(", ")
        )
        .into());
    }
    let mut tally = std::collections::BTreeMap::new();
    for c in report.sections.iter().flat_map(|s| &s.claims) {
        if let Some(v) = &c.verdict {
            *tally.entry(v.as_str()).or_insert(0) += 1;
        }
    }
    let mut out = format!("# {} ({})\n", report.title, report.kind);
    if !report.summary.is_empty() {
        out.push_str(&format!("{}\n", report.summary));
    }
    if !tally.is_empty() {
        let t: Vec<String> = tally.iter().map(|(v, n)| format!("{v} {n}")).collect();
        out.push_str(&format!("verdicts: {}\n", t.join(", ")));
    }
    for s in &sections {
        out.push_str(&format!("\n## {} (`{}`)\n", s.title, s.id));
        for claim in &s.claims {
            out.push_str(&format!(
                "\n### {}{}\n",
                claim.text,
                claim
                    .verdict
                    .as_ref()
                    .map(|v| format!(" — {v}"))
                    .unwrap_or_default()
            ));
            if !claim.findings.is_empty() {
                out.push_str(&format!("{}\n", claim.findings));
            }
            for c in &claim.citations {
                out.push_str(&format!(
                    "- \"{}\" — {}/{} @ {} · original: {}",
                    c.quote,
                    c.channel,
                    c.slug,
                    clock(c.start),
                    original_at(c)
                ));
                if let Some(page) = moment_page(site, c) {
                    out.push_str(&format!(" · moment page: {page}"));
                }
                out.push('\n');
            }
        }
    }
    let report = ReportAnswer {
        report: (*report).clone(),
    };
    Ok((out, content(&report)))
}

/// Finds a post by id in every channel's posts, with its channel.
pub(crate) fn find_post(archive: &Archive, id: &str) -> Result<(String, Post), String> {
    archive
        .find_post(id)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no post {id:?} in this corpus: check the id (search with scopes:[\"posts\"] to find posts)"))
}

fn render_post(p: &Post) -> String {
    let cite = match &p.url {
        Some(url) => format!("[post by {}, {}]({url})", p.author, p.date),
        None => format!("post by {}, {}", p.author, p.date),
    };
    format!(
        "{cite}{}\n{}\n",
        p.reply_to
            .as_ref()
            .map(|r| format!(" (reply to {r})"))
            .unwrap_or_default(),
        p.text
    )
}

/// The `get_post` tool.
pub fn get_post(sources: &Sources, handle: &SourceHandle, args: &PostArgs) -> ToolResult {
    let archive = sources.archive(handle)?;
    let (channel, post) = find_post(&archive, &args.post_id)?;
    let out = format!(
        "{}\nPosts have no timeline: cite them as above, without an @ time.",
        render_post(&post)
    );
    Ok((out, content(&PostAnswer { channel, post })))
}

/// The `get_thread` tool.
pub fn get_thread(sources: &Sources, handle: &SourceHandle, args: &PostArgs) -> ToolResult {
    let archive = sources.archive(handle)?;
    let (channel, post) = find_post(&archive, &args.post_id)?;
    let thread = post.thread_id.clone().unwrap_or_else(|| post.id.clone());
    let mut posts = Vec::new();
    for site in archive.sites() {
        let Some(m) = site
            .manifest(Layer::Posts, &channel)
            .map_err(|e| e.to_string())?
        else {
            continue;
        };
        for n in 1..=m.pages.len() as u32 {
            let page = site.post_page(&channel, n).map_err(|e| e.to_string())?;
            posts.extend(
                page.posts
                    .iter()
                    .filter(|p| p.thread_id.as_deref() == Some(&thread) || p.id == thread)
                    .cloned(),
            );
        }
    }
    posts.sort_by(|a, b| (&a.date, &a.id).cmp(&(&b.date, &b.id)));
    let mut out = format!("thread {thread} ({channel}): {} post(s)\n\n", posts.len());
    for p in &posts {
        out.push_str(&render_post(p));
        out.push('\n');
    }
    out.push_str("Posts have no timeline: cite each as above, without an @ time.");
    let answer = ThreadAnswer {
        channel,
        thread,
        posts,
    };
    Ok((out, content(&answer)))
}
