//! Which URLs `transcript` fetches, and what platform each is.
//!
//! Only `http` and `https` reach a subprocess. An argument array already
//! stops command injection, but not *argument* injection: a "URL" like
//! `--exec=…` or `--config-location=…` would be an ordinary array element
//! that yt-dlp parses as an option and obeys. So anything that is not an
//! http(s) URL with a host is refused before any argv is built (and the URL
//! is passed after `--` as well).

/// A URL that may be handed to yt-dlp.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoUrl {
    /// The URL, as given.
    pub url: String,
    /// A site of [`archilyzer_core::platform::SITES`] (`youtube`,
    /// `vimeo`…), or `other`.
    pub platform: &'static str,
}

/// Checks and classifies `text`; the error says what is wrong.
pub fn classify(text: &str) -> Result<VideoUrl, String> {
    let text = text.trim();
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "transcript: url {text:?} holds spaces or control characters: pass one http(s) URL"
        ));
    }
    let parsed = url::Url::parse(text).map_err(|_| {
        format!(
            "transcript: url {text:?} is not a URL: pass the video's http:// or https:// address"
        )
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "transcript: url {text:?} is not http:// or https://; only web addresses are fetched"
        ));
    }
    let host = parsed
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| format!("transcript: url {text:?} has no host"))?
        .to_lowercase();
    let platform = archilyzer_core::platform::site_of_host(&host).unwrap_or("other");
    Ok(VideoUrl {
        url: text.to_string(),
        platform,
    })
}

#[cfg(test)]
mod tests {
    use super::classify;

    #[test]
    fn only_web_urls_pass_and_each_gets_its_platform() {
        let p = |u: &str| classify(u).map(|v| v.platform);
        assert_eq!(p("https://www.youtube.com/watch?v=-abc"), Ok("youtube"));
        assert_eq!(p("https://youtu.be/abc"), Ok("youtube"));
        assert_eq!(p("https://m.youtube.com/shorts/abc"), Ok("youtube"));
        assert_eq!(p("https://www.tiktok.com/@a/video/1"), Ok("tiktok"));
        assert_eq!(p("http://vimeo.com/1"), Ok("vimeo"));
        assert_eq!(p("https://notyoutube.com/x"), Ok("other"));
        for bad in [
            "--exec=rm -rf ~",
            "--config-location=/tmp/x",
            "-o",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "ftp://a.example/v",
            "https://a.example/v\n;$(id)",
            "https://a.example/a b",
            "",
        ] {
            let err = classify(bad).unwrap_err();
            assert!(err.starts_with("transcript: url"), "{bad}: {err}");
        }
        assert!(classify("--exec=x").unwrap_err().contains("is not a URL"));
        // Shell syntax inside a real URL is only data (it goes in one argv element).
        assert_eq!(p("https://a.example/v;$(id)"), Ok("other"));
    }
}
