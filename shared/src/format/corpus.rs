//! `corpus.json`: what an archive is (a site or a hub) and what it holds.
//!
//! The file is the only one every archive must have. Its `spec` is checked
//! before anything else is parsed, so a newer archive is refused with a
//! message instead of being half-understood.

use serde::{Deserialize, Serialize};

use super::FormatError;

/// The format major version this build reads and writes.
pub const SPEC_VERSION: u32 = 1;

/// `corpus.json`, either kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum CorpusFile {
    /// One deployed archive with channels.
    Site(SiteCorpus),
    /// A list of member sites.
    Hub(HubCorpus),
}

/// `corpus.json` of a site: one deployed archive with channels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteCorpus {
    /// The format version ([`SPEC_VERSION`](super::SPEC_VERSION) or older).
    pub spec: u32,
    /// Who the site is and what it publishes.
    pub site: SiteInfo,
    /// Every channel, in the order the site shows them.
    #[serde(default)]
    pub channels: Vec<ChannelEntry>,
    /// Named groups of channels, for scoping.
    #[serde(default)]
    pub groups: Vec<GroupEntry>,
    /// When the export ran (RFC 3339), for people; nothing depends on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated_at: Option<String>,
}

impl SiteCorpus {
    /// The channels of group `id` (`None`: the ungrouped ones), in order.
    pub fn members<'a>(&'a self, id: Option<&'a str>) -> impl Iterator<Item = &'a ChannelEntry> {
        self.channels
            .iter()
            .filter(move |c| c.group.as_deref() == id)
    }
}

/// `corpus.json` of a hub: a list of member sites, no transcripts of its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubCorpus {
    /// The format version.
    pub spec: u32,
    /// Who the hub is.
    pub hub: HubInfo,
    /// The member sites, in order.
    pub members: Vec<HubMember>,
}

/// The `site` object of a site's corpus.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteInfo {
    /// Short handle, e.g. `twimlalyzer`; a hub member is named by it.
    pub id: String,
    /// The site's name, as people see it.
    pub title: String,
    /// The deployed origin, used for viewer links. Absent for a purely
    /// local build, which then cites platform pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Whether it publishes transcripts or reports only.
    #[serde(default)]
    pub scope: SiteScope,
}

/// What a site publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SiteScope {
    /// Channels and transcripts, all searchable.
    #[default]
    Full,
    /// Only reports and the moments they cite: nothing to search.
    Cited,
}

/// The `hub` object of a hub's corpus.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubInfo {
    /// Short handle of the hub.
    pub id: String,
    /// The hub's name, as people see it.
    pub title: String,
    /// Its deployed origin, if published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// One member site of a hub.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubMember {
    /// The member's `site.id`; `hub:URL#a,b` names members by it.
    pub site_id: String,
    /// The member's name, as people see it.
    pub title: String,
    /// The member's origin. Absolute, or relative to the hub's own
    /// location (`../alpha/`), which is how a generated hub points at the
    /// sites beside it.
    pub url: String,
}

/// One channel of a site.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelEntry {
    /// The directory name under `transcripts/` and the id used in citations.
    pub slug: String,
    /// The channel's name, as people see it.
    pub name: String,
    /// Where its videos are hosted.
    pub platform: Platform,
    /// A group id from `groups`, if the channel belongs to one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// How many videos its transcript pages hold.
    pub video_count: u32,
    /// How many transcript pages it has.
    pub page_count: u32,
}

/// A named group of channels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupEntry {
    /// The id filters and links use.
    pub id: String,
    /// The group's name, as people see it.
    pub name: String,
}

/// Where a channel's videos are hosted. Decides how a moment link is built
/// when the site has no viewer origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// YouTube.
    Youtube,
    /// Rumble.
    Rumble,
    /// Twitch.
    Twitch,
    /// Odysee.
    Odysee,
    /// Kick.
    Kick,
    /// The Internet Archive.
    #[serde(rename = "archive.org")]
    ArchiveOrg,
    /// BitChute.
    Bitchute,
    /// TikTok.
    Tiktok,
    /// Anything else (a podcast feed, a file someone imported).
    Other,
}

impl Platform {
    /// Every platform, in the order messages list them.
    pub const ALL: [Platform; 9] = [
        Platform::Youtube,
        Platform::Rumble,
        Platform::Twitch,
        Platform::Odysee,
        Platform::Kick,
        Platform::ArchiveOrg,
        Platform::Bitchute,
        Platform::Tiktok,
        Platform::Other,
    ];

    /// The name used in the format (`archive.org`, `youtube`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Youtube => "youtube",
            Platform::Rumble => "rumble",
            Platform::Twitch => "twitch",
            Platform::Odysee => "odysee",
            Platform::Kick => "kick",
            Platform::ArchiveOrg => "archive.org",
            Platform::Bitchute => "bitchute",
            Platform::Tiktok => "tiktok",
            Platform::Other => "other",
        }
    }
}

/// Parses `corpus.json`, refusing a newer major version before looking at
/// anything else in the file.
pub fn parse_corpus(bytes: &[u8], origin: &str) -> Result<CorpusFile, FormatError> {
    #[derive(Deserialize)]
    struct SpecOnly {
        spec: Option<serde_json::Value>,
    }
    let probe: SpecOnly =
        serde_json::from_slice(bytes).map_err(|e| FormatError::json(origin, e))?;
    let spec = match probe.spec {
        Some(serde_json::Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(other) => {
            return Err(FormatError::Invalid {
                file: origin.to_string(),
                reason: format!("`spec` must be a number, found {other}"),
            })
        }
        None => {
            return Err(FormatError::Invalid {
                file: origin.to_string(),
                reason: "`spec` is missing: is this a composed public dir?".into(),
            })
        }
    };
    if spec.floor() as u64 > SPEC_VERSION as u64 {
        return Err(FormatError::NewerSpec {
            file: origin.to_string(),
            found: spec.floor() as u64,
        });
    }
    serde_json::from_slice(bytes).map_err(|e| FormatError::json(origin, e))
}
