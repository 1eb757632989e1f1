//! The editor's id for a video, from its watch URL.
//!
//! The archive keys a video by the id its platform's extractor gives. For
//! Rumble that is the *embed* id, while the editor names a video's
//! directory by the id in the URL's slug (`rumble.com/v1007ay-title.html`
//! → `v1007ay`). Sending the embed id would make the editor create a new
//! directory and fetch the wrong URL, so the editor-backed tools map the id
//! through the record's `webpageUrl`. Everywhere else the two ids agree.

/// The id the editor files `webpage_url`'s video under, where the URL
/// says it ([`archilyzer_core::platform::video_id`]: YouTube's and
/// Rumble's rules); `None` when it does not (then the cited id is used as
/// is).
pub fn editor_id(webpage_url: &str) -> Option<String> {
    archilyzer_core::platform::video_id(webpage_url)
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
