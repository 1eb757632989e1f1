//! The editor's id for a video, from its watch URL.
//!
//! The archive keys a video by the id its platform's extractor gives. For
//! Rumble that is the *embed* id, while the editor names a video's
//! directory by the id in the URL's slug (`rumble.com/v1007ay-title.html`
//! → `v1007ay`). Sending the embed id would make the editor create a new
//! directory and fetch the wrong URL, so the editor-backed tools map the id
//! through the record's `webpageUrl`. Everywhere else the two ids agree.

use url::Url;

/// The id the editor files `webpage_url`'s video under, where the URL
/// says it; `None` when it does not (then the cited id is used as is).
pub fn editor_id(webpage_url: &str) -> Option<String> {
    let url = Url::parse(webpage_url).ok()?;
    let host = url.host_str()?.trim_start_matches("www.");
    let first = url.path_segments()?.find(|s| !s.is_empty())?;
    match host {
        "rumble.com" => rumble_slug_id(first),
        "youtube.com" | "m.youtube.com" => url
            .query_pairs()
            .find(|(k, _)| k == "v")
            .map(|(_, v)| v.into_owned())
            .or_else(|| youtube_path_id(&url)),
        "youtu.be" => Some(first.to_string()),
        _ => None,
    }
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

/// `/shorts/ID`, `/live/ID`, `/embed/ID`.
fn youtube_path_id(url: &Url) -> Option<String> {
    let mut parts = url.path_segments()?;
    match parts.next()? {
        "shorts" | "live" | "embed" => parts.next().map(str::to_string),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::editor_id;

    #[test]
    fn a_rumble_record_maps_to_its_slug_id_and_youtube_to_itself() {
        let id = |u: &str| editor_id(u);
        assert_eq!(
            id("https://rumble.com/v1007ay-the-title.html?e9s=src_v1_ucp").as_deref(),
            Some("v1007ay")
        );
        assert_eq!(
            id("https://rumble.com/v5x2kq.html").as_deref(),
            Some("v5x2kq")
        );
        assert_eq!(id("https://rumble.com/embed/vxe1ae/"), None);
        assert_eq!(id("https://rumble.com/c/SomeChannel"), None);
        assert_eq!(
            id("https://www.youtube.com/watch?v=-abc123XYZ_&t=5s").as_deref(),
            Some("-abc123XYZ_")
        );
        assert_eq!(
            id("https://youtu.be/dQw4w9WgXcQ").as_deref(),
            Some("dQw4w9WgXcQ")
        );
        assert_eq!(
            id("https://www.youtube.com/shorts/abcdefghijk").as_deref(),
            Some("abcdefghijk")
        );
        assert_eq!(id("https://www.twitch.tv/videos/123"), None);
        assert_eq!(id("not a url"), None);
    }
}
