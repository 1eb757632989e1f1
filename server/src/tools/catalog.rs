//! What a source holds and how to name it: `list_channels`,
//! `list_sources`, `resolve_source` (and its old alias `use_source`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::output::content;
use crate::sources::Sources;
use crate::tool::ToolResult;
use archilyzer_core::format::SiteScope;
use archilyzer_core::source::SourceHandle;

/// `list_channels`' structured content.
#[derive(Serialize, JsonSchema)]
pub struct Channels {
    /// Every channel of every site, grouped as the text lists them.
    pub channels: Vec<ChannelRow>,
}

/// `list_channels`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChannelsArgs {
    /// Drop every cache of this source first.
    #[serde(default)]
    pub refresh: bool,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
}

/// One channel.
#[derive(Serialize, JsonSchema)]
pub struct ChannelRow {
    /// The site that publishes it.
    pub site: String,
    /// Its slug: what `channels` filters take.
    pub slug: String,
    /// Its name.
    pub name: String,
    /// Where its videos are hosted.
    pub platform: String,
    /// Its group's id, if it belongs to one.
    pub group: Option<String>,
    /// Its videos.
    pub videos: u64,
}

/// The `list_channels` tool.
pub fn list_channels(sources: &Sources, handle: &SourceHandle, args: &ChannelsArgs) -> ToolResult {
    if args.refresh {
        sources.forget(handle);
    }
    let archive = sources.archive(handle)?;
    let hub = archive.sites().len() > 1 || archive.hub().is_some();
    let mut out = String::new();
    let mut rows = Vec::new();
    for site in archive.sites() {
        let corpus = site.corpus();
        if hub {
            out.push_str(&format!("# {} ({})\n", corpus.site.title, corpus.site.id));
        }
        if corpus.site.scope == SiteScope::Cited {
            let n = site.reports().ok().flatten().map_or(0, |r| r.reports.len());
            out.push_str(&format!(
                "cited-only site: {n} report(s), nothing to search\n"
            ));
        }
        let mut groups: Vec<(Option<String>, String)> = corpus
            .groups
            .iter()
            .map(|g| (Some(g.id.clone()), g.name.clone()))
            .collect();
        groups.push((None, "Ungrouped".into()));
        for (id, name) in &groups {
            let members: Vec<_> = corpus.members(id.as_deref()).collect();
            if members.is_empty() {
                continue;
            }
            out.push_str(&format!(
                "## {name}{}\n",
                id.as_ref()
                    .map(|i| format!(" (group `{i}`)"))
                    .unwrap_or_default()
            ));
            for c in members {
                out.push_str(&format!(
                    "- {} (`{}`, {}): {} videos\n",
                    c.name,
                    c.slug,
                    c.platform.as_str(),
                    c.video_count
                ));
                rows.push(ChannelRow {
                    site: corpus.site.id.clone(),
                    slug: c.slug.clone(),
                    name: c.name.clone(),
                    platform: c.platform.as_str().to_string(),
                    group: c.group.clone(),
                    videos: c.video_count as u64,
                });
            }
        }
        let sheet: Vec<String> = corpus
            .groups
            .iter()
            .map(|g| {
                format!(
                    "{} · {} · {} channels",
                    g.id,
                    g.name,
                    corpus.members(Some(&g.id)).count()
                )
            })
            .collect();
        if !sheet.is_empty() {
            out.push_str(&format!(
                "\ngroups (scope with groups:[id or name]): {}\n",
                sheet.join("; ")
            ));
        }
    }
    Ok((out, content(&Channels { channels: rows })))
}

/// `list_sources`' structured content.
#[derive(Serialize, JsonSchema)]
pub struct SourceList {
    /// The corpus a call without `source` reads.
    pub default: String,
    /// A hub's member sites (empty for a single site).
    pub members: Vec<Member>,
}

/// A hub's member site.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// Its site id.
    pub site_id: String,
    /// Its title.
    pub title: String,
    /// The handle to pass as `source`.
    pub handle: String,
    /// Reports it publishes.
    pub reports: usize,
}

/// The `list_sources` tool.
pub fn list_sources(sources: &Sources) -> ToolResult {
    let default = sources.default_handle().clone();
    let archive = sources.archive(&default)?;
    let mut out = format!("default: {default}\n");
    let mut members = Vec::new();
    if let Some(hub) = archive.hub() {
        out.push_str("members (pass one as source):\n");
        for (m, site) in hub.members.iter().zip(archive.sites()) {
            let reports = site.reports().ok().flatten().map_or(0, |r| r.reports.len());
            let cited = if site.corpus().site.scope == SiteScope::Cited {
                ", cited-only site"
            } else {
                ""
            };
            let handle = member_handle(&site.location());
            out.push_str(&format!(
                "- {} ({}): {handle}; {reports} report(s){cited}\n",
                m.title, m.site_id
            ));
            members.push(Member {
                site_id: m.site_id.clone(),
                title: m.title.clone(),
                handle,
                reports,
            });
        }
    } else if let Some(site) = archive.sites().first() {
        let reports = site.reports().ok().flatten().map_or(0, |r| r.reports.len());
        let cited = if site.corpus().site.scope == SiteScope::Cited {
            "cited-only site, "
        } else {
            ""
        };
        out.push_str(&format!(
            "{} ({}): {cited}{reports} report(s)\n",
            site.corpus().site.title,
            site.id()
        ));
    }
    let list = SourceList {
        default: default.to_string(),
        members,
    };
    Ok((out, content(&list)))
}

fn member_handle(location: &str) -> String {
    if location.starts_with("http") {
        format!("remote:{}", location.trim_end_matches('/'))
    } else {
        format!("local:{location}")
    }
}

/// `resolve_source`' structured content.
#[derive(Serialize, JsonSchema)]
pub struct Resolved {
    /// The canonical handle: pass it as `source`.
    pub handle: String,
    /// `site` or `hub`.
    pub kind: String,
    /// The site ids it reads.
    pub sites: Vec<String>,
}

/// The `resolve_source` tool (and its old name, `use_source`, with `via_alias`).
pub fn resolve_source(sources: &Sources, handle: &SourceHandle, via_alias: bool) -> ToolResult {
    let archive = sources.archive(handle)?;
    let kind = if archive.hub().is_some() {
        "hub"
    } else {
        "site"
    };
    let names: Vec<&str> = archive.sites().iter().map(|s| s.id()).collect();
    let cited = archive
        .sites()
        .iter()
        .any(|s| s.corpus().site.scope == SiteScope::Cited);
    let mut out = format!(
        "{handle}\nreadable {kind}: {}{}\n",
        names.join(", "),
        if cited { " (cited-only site)" } else { "" }
    );
    if via_alias {
        out.push_str(&format!(
            "\nuse_source no longer switches anything: there is no active source. Pass source: \"{handle}\" on each call instead.\n"
        ));
    }
    let resolved = Resolved {
        handle: handle.to_string(),
        kind: kind.to_string(),
        sites: names.iter().map(|n| n.to_string()).collect(),
    };
    Ok((out, content(&resolved)))
}

/// `list_tags`' structured content.
#[derive(Serialize, JsonSchema)]
pub struct Tags {
    /// Every curated tag of every site.
    pub tags: Vec<TagRow>,
}

/// One curated tag.
#[derive(Serialize, JsonSchema)]
pub struct TagRow {
    /// The site that publishes it.
    pub site: String,
    /// Its id: what `tags` filters take (or its label).
    pub id: String,
    /// Its label.
    pub label: String,
    /// Its group, if any.
    pub group: Option<String>,
    /// Videos carrying it; null when the site publishes no summaries.
    pub videos: Option<usize>,
    /// Videos carrying it, per channel slug.
    pub per_channel: BTreeMap<String, usize>,
}

/// The `list_tags` tool.
pub fn list_tags(sources: &Sources, handle: &SourceHandle) -> ToolResult {
    let archive = sources.archive(handle)?;
    let mut out = String::new();
    let mut rows = Vec::new();
    for site in archive.sites() {
        let Some(tags) = site.tags().map_err(|e| e.to_string())? else {
            out.push_str(&format!("{}: publishes no curated tags\n", site.id()));
            continue;
        };
        let summaries = site.summaries().map_err(|e| e.to_string())?;
        out.push_str(&format!(
            "# {} curated tags (filter with tags:[id or label])\n",
            site.id()
        ));
        for tag in tags.iter() {
            let mut per_channel: BTreeMap<String, usize> = BTreeMap::new();
            for row in summaries
                .iter()
                .flat_map(|s| s.videos.iter())
                .filter(|r| r.curated_tags.contains(&tag.id))
            {
                *per_channel.entry(row.channel.clone()).or_default() += 1;
            }
            let total: usize = per_channel.values().sum();
            let count = match &summaries {
                Some(_) => format!("{total} video(s)"),
                None => "count unknown".to_string(),
            };
            let breakdown: Vec<String> = per_channel
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect();
            out.push_str(&format!(
                "- `{}` {} ({}): {count}{}\n",
                tag.id,
                tag.label,
                tag.group.as_deref().unwrap_or("no group"),
                if breakdown.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", breakdown.join(", "))
                }
            ));
            let videos = summaries.as_ref().map(|_| total);
            rows.push(TagRow {
                site: site.id().to_string(),
                id: tag.id.clone(),
                label: tag.label.clone(),
                group: tag.group.clone(),
                videos,
                per_channel,
            });
        }
        if summaries.is_none() {
            out.push_str("(this site publishes no summaries table, so the counts are unknown)\n");
        }
    }
    Ok((out, content(&Tags { tags: rows })))
}
