//! Moment links: where a cited second opens.
//!
//! With a viewer origin ([`crate::archive::Site::viewer`]: the
//! site's `url` in corpus.json, or the origin a remote site is read from)
//! a moment is the
//! viewer's deep link `<origin>/?v=<slug>&t=<seconds>`; otherwise the
//! platform's own watch page with its time parameter (YouTube `t=<s>s`,
//! Odysee `t=<s>`, Twitch `t=<h>h<m>m<s>s`), and no link at all where the
//! platform has none (Rumble, Kick, archive.org, BitChute).
//! `TRANSCRIPT_PLATFORM_LINKS=1` forces platform links. Seconds are
//! floored, so the inline and the compact base forms cite the same second.

use crate::archive::Archive;
use crate::format::Platform;
use crate::query::VideoResult;

/// What a video's links are built from.
pub struct LinkTarget<'a> {
    /// The site's viewer origin, when it has one.
    pub viewer: Option<String>,
    /// The video's id.
    pub slug: &'a str,
    /// Where it is hosted.
    pub platform: Option<Platform>,
    /// Its watch page.
    pub url: Option<&'a str>,
}

fn force_platform() -> bool {
    std::env::var("TRANSCRIPT_PLATFORM_LINKS")
        .is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
}

fn join(url: &str, param: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{param}")
}

impl<'a> LinkTarget<'a> {
    /// The links of a matched video of `archive`: its site's viewer, else
    /// its platform's watch page.
    pub fn of(archive: &Archive, v: &'a VideoResult) -> LinkTarget<'a> {
        let viewer = archive
            .sites()
            .iter()
            .find(|s| s.id() == v.site)
            .and_then(|s| s.viewer());
        LinkTarget {
            viewer,
            slug: &v.slug,
            platform: v.platform,
            url: v.url.as_deref(),
        }
    }

    fn viewer(&self) -> Option<&str> {
        self.viewer.as_deref().filter(|_| !force_platform())
    }

    /// The link to second `t`, if this video has one.
    pub fn moment(&self, t: f64) -> Option<String> {
        let s = t.max(0.0).floor() as u64;
        if let Some(origin) = self.viewer() {
            return Some(format!(
                "{}/?v={}&t={s}",
                origin.trim_end_matches('/'),
                self.slug
            ));
        }
        let url = self.url?;
        match self.platform? {
            Platform::Youtube => Some(join(url, &format!("t={s}s"))),
            Platform::Odysee => Some(join(url, &format!("t={s}"))),
            Platform::Twitch => Some(join(
                url,
                &format!("t={}h{}m{}s", s / 3600, s / 60 % 60, s % 60),
            )),
            _ => None,
        }
    }

    /// A URL that a second's integer completes (`…t=`), where the
    /// platform takes raw seconds; `None` otherwise.
    pub fn base(&self) -> Option<String> {
        if let Some(origin) = self.viewer() {
            return Some(format!(
                "{}/?v={}&t=",
                origin.trim_end_matches('/'),
                self.slug
            ));
        }
        let url = self.url?;
        match self.platform? {
            Platform::Youtube | Platform::Odysee => Some(join(url, "t=")),
            _ => None,
        }
    }
}

pub use crate::format::clock;

#[cfg(test)]
mod tests {
    use super::*;

    fn target(
        viewer: Option<&'static str>,
        platform: Platform,
        url: &'static str,
    ) -> LinkTarget<'static> {
        LinkTarget {
            viewer: viewer.map(str::to_string),
            slug: "-abc",
            platform: Some(platform),
            url: Some(url),
        }
    }

    #[test]
    fn moment_links_use_the_viewer_then_the_platform_then_nothing() {
        let v = target(
            Some("https://site.example/"),
            Platform::Rumble,
            "https://rumble.com/v1-x.html",
        );
        assert_eq!(
            v.moment(156.9).unwrap(),
            "https://site.example/?v=-abc&t=156"
        );
        assert_eq!(v.base().unwrap(), "https://site.example/?v=-abc&t=");
        let yt = target(
            None,
            Platform::Youtube,
            "https://www.youtube.com/watch?v=-abc",
        );
        assert_eq!(
            yt.moment(61.2).unwrap(),
            "https://www.youtube.com/watch?v=-abc&t=61s"
        );
        assert_eq!(
            yt.base().unwrap(),
            "https://www.youtube.com/watch?v=-abc&t="
        );
        let tw = target(None, Platform::Twitch, "https://www.twitch.tv/videos/1");
        assert_eq!(
            tw.moment(3723.0).unwrap(),
            "https://www.twitch.tv/videos/1?t=1h2m3s"
        );
        assert_eq!(tw.base(), None, "Twitch does not take raw seconds");
        let rumble = target(None, Platform::Rumble, "https://rumble.com/v1-x.html");
        assert_eq!((rumble.moment(5.0), rumble.base()), (None, None));
        assert_eq!(clock(3725.9), "1:02:05");
        assert_eq!(clock(65.0), "1:05");
    }
}
