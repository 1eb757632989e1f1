//! Reading videos: `get_transcript`.

use serde_json::{json, Map, Value};

use super::{str_arg, ToolResult};
use crate::links::{clock, LinkTarget};
use crate::sources::Sources;
use archilyzer_core::source::SourceHandle;

pub fn get_transcript(
    sources: &Sources,
    handle: &SourceHandle,
    args: &Map<String, Value>,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let id = str_arg(args, "video_id").unwrap_or_default();
    let hint = str_arg(args, "channel");
    for site in archive.sites() {
        for ch in site
            .corpus()
            .channels
            .iter()
            .filter(|c| hint.is_none_or(|h| h == c.slug || h == c.name))
        {
            let manifest = site
                .transcript_manifest(&ch.slug)
                .map_err(|e| e.to_string())?;
            let Some(&page) = manifest.slug_to_page.get(id) else {
                continue;
            };
            let page = site
                .transcript_page(&ch.slug, page)
                .map_err(|e| e.to_string())?;
            let Some(v) = page.videos.iter().find(|v| v.slug == id) else {
                continue;
            };
            let target = LinkTarget {
                viewer: site.corpus().site.url.as_deref(),
                slug: &v.slug,
                platform: v.platform,
                url: v.webpage_url.as_deref(),
            };
            let mut out = format!(
                "# {}\n- id: {} · channel: {} ({}) · {} · {} · {}\n",
                v.title,
                v.slug,
                ch.name,
                ch.slug,
                v.upload_date.as_deref().unwrap_or("no date"),
                v.state.as_str(),
                v.media_type.as_str()
            );
            if let Some(url) = &v.webpage_url {
                out.push_str(&format!("- source: {url}\n"));
            }
            out.push('\n');
            for c in &v.cues {
                match target.moment(c.start) {
                    Some(link) => {
                        out.push_str(&format!("[{}]({link}) {}\n", clock(c.start), c.text))
                    }
                    None => out.push_str(&format!("[{}] {}\n", clock(c.start), c.text)),
                }
            }
            let structured = json!({"id": v.slug, "title": v.title, "channel": ch.slug, "site": site.id(), "cues": v.cues.len()});
            return Ok((out, structured));
        }
    }
    Err(format!(
        "no video {id:?}{} in this corpus: check the id (as search results show it) or pass the source it came from",
        hint.map(|h| format!(" in channel {h:?}")).unwrap_or_default()
    ))
}
