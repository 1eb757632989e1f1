//! yt-dlp's `<id>.info.json`: the fields of it this project reads, as one
//! type for the importer and the transcript tool alike.
//!
//! Promises: every field is optional (yt-dlp's extractors fill different
//! ones, and older versions fewer), so a file of any vintage reads; the
//! rest of the file is ignored.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The fields of yt-dlp's info JSON the project uses.
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct YtDlpInfo {
    /// The video's id on its platform.
    pub id: String,
    /// Its title.
    pub title: Option<String>,
    /// Its upload date, `YYYYMMDD`.
    pub upload_date: Option<String>,
    /// Its length in seconds.
    pub duration: Option<f64>,
    /// Its description.
    pub description: Option<String>,
    /// Its tags.
    pub tags: Option<Vec<String>>,
    /// Its page.
    pub webpage_url: Option<String>,
    /// `is_live`, `was_live`, `not_live`, …
    pub live_status: Option<String>,
    /// Older files' way of saying it was a live stream.
    pub was_live: Option<bool>,
    /// The viewer's minimum age (18 for age-restricted videos).
    pub age_limit: Option<u32>,
    /// The channel's name.
    pub channel: Option<String>,
    /// The channel's id.
    pub channel_id: Option<String>,
    /// The uploader's name (where `channel` is missing).
    pub uploader: Option<String>,
    /// The uploader's id.
    pub uploader_id: Option<String>,
    /// The extractor's key (`Youtube`, `Rumble`…).
    pub extractor_key: Option<String>,
    /// Older yt-dlp and youtube-dl write this (`youtube`, `rumble`…)
    /// where newer ones add `extractor_key`.
    pub extractor: Option<String>,
    /// The spoken language, as yt-dlp detected it.
    pub language: Option<String>,
    /// `public`, `unlisted`, `private`, …
    pub availability: Option<String>,
    /// The uploader's own caption tracks, by language code (their
    /// formats are not read).
    pub subtitles: Option<BTreeMap<String, serde::de::IgnoredAny>>,
}

impl YtDlpInfo {
    /// The codes of the uploader's own tracks (the keys of
    /// `subtitles`).
    pub fn manual_codes(&self) -> Vec<String> {
        self.subtitles
            .as_ref()
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_codes_are_the_keys_of_subtitles_and_other_fields_are_optional() {
        let info: YtDlpInfo = serde_json::from_str(
            r#"{"id": "x", "subtitles": {"en": [{"ext": "vtt"}], "de-DE": []}, "extra": 1}"#,
        )
        .unwrap();
        assert_eq!(info.manual_codes(), ["de-DE", "en"]);
        assert_eq!(info.title, None);
        let bare: YtDlpInfo = serde_json::from_str("{}").unwrap();
        assert!(bare.manual_codes().is_empty());
    }
}
