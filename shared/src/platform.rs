//! Where a video is hosted, worked out once: the web hosts of every
//! platform the project knows, the platform a host or a yt-dlp extractor
//! names, and the video id a watch URL names.
//!
//! Import (a yt-dlp info JSON, a Whisper result's URL), the transcript
//! tool (which URL it fetches) and the editor tools (which id the editor
//! files a video under) all ask here, so a host added here is known to
//! each of them.

use url::Url;

use crate::format::Platform;

/// Each site's name (the archive's platform name where the archive has
/// one) and its web hosts; a subdomain of a host is that site too.
pub const SITES: &[(&str, &[&str])] = &[
    (
        "youtube",
        &["youtube.com", "youtu.be", "youtube-nocookie.com"],
    ),
    ("tiktok", &["tiktok.com"]),
    ("rumble", &["rumble.com"]),
    ("twitch", &["twitch.tv"]),
    ("vimeo", &["vimeo.com"]),
    ("x", &["x.com", "twitter.com"]),
    ("instagram", &["instagram.com"]),
    ("facebook", &["facebook.com", "fb.watch"]),
    ("odysee", &["odysee.com", "lbry.tv"]),
    ("kick", &["kick.com"]),
    ("bitchute", &["bitchute.com"]),
    ("archive.org", &["archive.org"]),
];

/// The site `host` belongs to (`m.youtube.com` → `youtube`), or `None`.
pub fn site_of_host(host: &str) -> Option<&'static str> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    SITES
        .iter()
        .find(|(_, hosts)| {
            hosts
                .iter()
                .any(|h| host == *h || host.ends_with(&format!(".{h}")))
        })
        .map(|(site, _)| *site)
}

/// The site of `url`'s host, or `None` (also for what is not a URL).
pub fn site_of_url(url: &str) -> Option<&'static str> {
    let url = Url::parse(url).ok()?;
    site_of_host(url.host_str()?)
}

impl Platform {
    /// The archive platform of a site name (`youtube`, `archive.org`…);
    /// [`Platform::Other`] for a site the archive has no platform for.
    pub fn of_site(site: &str) -> Platform {
        Platform::ALL
            .into_iter()
            .find(|p| p.as_str() == site)
            .unwrap_or(Platform::Other)
    }

    /// The platform of a web host (`www.youtube.com`, `youtu.be`…).
    pub fn of_host(host: &str) -> Platform {
        site_of_host(host).map_or(Platform::Other, Platform::of_site)
    }

    /// The platform a yt-dlp extractor names (`Youtube`, `youtube:tab`,
    /// `RumbleEmbed`, `lbry`…).
    pub fn of_extractor(extractor: &str) -> Platform {
        let key = extractor.to_ascii_lowercase();
        let site = match key.as_str() {
            k if k.starts_with("lbry") => "odysee",
            k if k.starts_with("archiveorg") => "archive.org",
            k => k,
        };
        Platform::ALL
            .into_iter()
            .filter(|p| *p != Platform::Other)
            .find(|p| site.starts_with(p.as_str()))
            .unwrap_or(Platform::Other)
    }
}

/// The id `url` names by its platform's own rule: YouTube's `v=`,
/// `youtu.be/ID`, `/shorts/ID`, `/live/ID`, `/embed/ID`; Rumble's slug
/// (`rumble.com/v1007ay-title.html` → `v1007ay`; an `/embed/` URL names
/// the embed id, which is not the slug's). `None` for any other host
/// (Twitch's `/videos/2001` is yt-dlp's `v2001`: the URL alone does not
/// say it), or a URL of these that names no video.
pub fn video_id(url: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    let site = site_of_host(url.host_str()?)?;
    let segments: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
    match site {
        "youtube" => youtube_id(&url, &segments),
        "rumble" => segments.first().and_then(|s| rumble_slug_id(s)),
        _ => None,
    }
}

/// The id a URL of any host most likely names: its platform's rule
/// ([`video_id`]), else the path segment after `video`, `shorts`, `live`
/// or `embed`, else the last one.
pub fn likely_video_id(url: &str) -> Option<String> {
    if let Some(id) = video_id(url) {
        return Some(id);
    }
    let parsed = Url::parse(url).ok()?;
    let segments: Vec<&str> = parsed.path_segments()?.filter(|s| !s.is_empty()).collect();
    let at = segments
        .iter()
        .position(|s| matches!(*s, "video" | "shorts" | "live" | "embed"));
    at.and_then(|i| segments.get(i + 1))
        .or(segments.last())
        .map(|s| s.to_string())
}

fn youtube_id(url: &Url, segments: &[&str]) -> Option<String> {
    if url.host_str().is_some_and(|h| h.ends_with("youtu.be")) {
        return segments.first().map(|s| s.to_string());
    }
    let v = url.query_pairs().find(|(k, _)| k == "v");
    v.map(|(_, v)| v.into_owned()).or_else(|| match segments {
        ["shorts" | "live" | "embed", id, ..] => Some(id.to_string()),
        _ => None,
    })
}

/// `v1007ay-some-title.html` → `v1007ay`; `embed/…` is not a slug.
fn rumble_slug_id(segment: &str) -> Option<String> {
    let id = segment
        .split(['-', '.'])
        .next()
        .filter(|id| id.starts_with('v') && id.len() > 1)?;
    id[1..]
        .bytes()
        .all(|b| b.is_ascii_alphanumeric())
        .then(|| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_and_its_subdomains_are_one_site() {
        let site = site_of_url;
        assert_eq!(site("https://www.youtube.com/watch?v=x"), Some("youtube"));
        assert_eq!(site("https://m.youtube.com/shorts/x"), Some("youtube"));
        assert_eq!(site("https://youtu.be/x"), Some("youtube"));
        assert_eq!(site("https://www.twitch.tv/videos/1"), Some("twitch"));
        assert_eq!(site("https://fb.watch/x"), Some("facebook"));
        assert_eq!(site("https://notyoutube.com/x"), None);
        assert_eq!(site("not a url"), None);
        assert_eq!(Platform::of_host("WWW.Rumble.com"), Platform::Rumble);
        assert_eq!(Platform::of_host("archive.org"), Platform::ArchiveOrg);
        assert_eq!(Platform::of_host("vimeo.com"), Platform::Other);
    }

    #[test]
    fn an_extractor_names_its_platform() {
        for (extractor, want) in [
            ("Youtube", Platform::Youtube),
            ("youtube:tab", Platform::Youtube),
            ("RumbleEmbed", Platform::Rumble),
            ("twitch:vod", Platform::Twitch),
            ("lbry", Platform::Odysee),
            ("ArchiveOrg", Platform::ArchiveOrg),
            ("BitChute", Platform::Bitchute),
            ("TikTok", Platform::Tiktok),
            ("generic", Platform::Other),
            ("", Platform::Other),
        ] {
            assert_eq!(Platform::of_extractor(extractor), want, "{extractor}");
        }
    }

    #[test]
    fn a_watch_url_names_its_id_by_its_platforms_rule() {
        let id = |u: &str| video_id(u);
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            id("https://www.youtube.com/watch?v=-abc123XYZ_&t=5s"),
            s("-abc123XYZ_")
        );
        assert_eq!(id("https://youtu.be/dQw4w9WgXcQ"), s("dQw4w9WgXcQ"));
        assert_eq!(id("https://m.youtube.com/shorts/abc"), s("abc"));
        assert_eq!(id("https://www.youtube.com/live/abc?si=1"), s("abc"));
        assert_eq!(id("https://www.youtube.com/@channel"), None);
        assert_eq!(
            id("https://rumble.com/v1007ay-the-title.html?e9s=x"),
            s("v1007ay")
        );
        assert_eq!(id("https://rumble.com/v5x2kq.html"), s("v5x2kq"));
        assert_eq!(id("https://rumble.com/embed/vxe1ae/"), None);
        assert_eq!(id("https://rumble.com/c/SomeChannel"), None);
        assert_eq!(id("https://www.twitch.tv/videos/2001"), None);
        assert_eq!(id("https://vimeo.com/12345"), None);
        let likely = |u: &str| likely_video_id(u);
        assert_eq!(likely("https://vimeo.com/12345"), s("12345"));
        assert_eq!(likely("https://www.twitch.tv/videos/2001"), s("2001"));
        assert_eq!(
            likely("https://www.tiktok.com/@someone/video/7301234567890123456?lang=en"),
            s("7301234567890123456")
        );
        assert_eq!(
            likely("https://rumble.com/v1007ay-the-title.html"),
            s("v1007ay")
        );
    }
}
