//! The generator's records: videos with their cues, chat, digests, stats,
//! posts, curated tags, aliases and reports.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::vocab::{Vocabulary, TRAP_PHRASES};
use super::{item_rng, ChannelPlan};
use archilyzer_core::format::*;

/// Bytes a cue takes in a page, on average (times, quotes, text).
const BYTES_PER_CUE: u64 = 85;

/// Makes videos and what hangs off them, deterministically.
pub struct Videos<'v> {
    vocab: &'v Vocabulary,
    seed: u64,
    /// Average cues per video, from the archive's size.
    avg_cues: u64,
}

impl<'v> Videos<'v> {
    /// A maker of videos from `vocab`, seeded, for about `total_bytes` of transcripts.
    pub fn new(vocab: &'v Vocabulary, seed: u64, total_bytes: u64) -> Self {
        let avg_video_bytes = (total_bytes / 150).clamp(4_000, 390_000);
        Videos {
            vocab,
            seed,
            avg_cues: (avg_video_bytes / BYTES_PER_CUE).max(8),
        }
    }

    /// Video `index` of a channel, and its duplicate cluster when the
    /// channel mirrors another.
    pub fn make(
        &self,
        plan: &ChannelPlan,
        index: usize,
    ) -> (VideoRecord, Option<DuplicateCluster>) {
        match &plan.mirrors_of {
            Some(original) if index.is_multiple_of(3) => self.mirror(plan, original, index),
            _ => (self.original(plan, index), None),
        }
    }

    fn original(&self, plan: &ChannelPlan, index: usize) -> VideoRecord {
        let mut rng = item_rng(self.seed, &[plan.site, &plan.slug], index);
        let topic = self.vocab.topic(5, &mut rng);
        let n_cues = (self.avg_cues as f64 * rng.random_range(0.3..1.7)) as usize + 2;
        let cues = self.cues(&topic, n_cues, &mut rng);
        let duration = cues
            .last()
            .map(|c| (c.end + rng.random_range(1.0..30.0)).round())
            .unwrap_or(60.0);
        let media_type = if index < 2 {
            MediaType::ALL[index]
        } else if rng.random_bool(plan.livestreams) {
            MediaType::Livestream
        } else {
            MediaType::Video
        };
        let state = if plan.index == 0 && index < State::ALL.len() {
            State::ALL[index]
        } else if plan.index == 0 && index.is_multiple_of(10) {
            State::Deleted // mirrored elsewhere: the mirror is the surviving copy
        } else {
            weighted_state(&mut rng)
        };
        // Channels upload in order: dates run over ten years with the
        // index, so a year's videos sit on a few neighbouring pages.
        let expected = (plan.bytes / (self.avg_cues * BYTES_PER_CUE).max(1)).max(1);
        let day =
            16_800 + (index as i64 * 3_650 / expected as i64).min(3_650) + rng.random_range(0..5);
        let upload = civil_date(day);
        let (slug, webpage_url) = ids(plan.platform, &plan.slug, &topic, &mut rng);
        VideoRecord {
            slug,
            title: self.title(&topic, &mut rng),
            upload_date: Some(upload.clone()),
            duration: Some(duration),
            webpage_url: Some(webpage_url),
            platform: Some(plan.platform),
            media_type,
            age: if index == 1 || rng.random_bool(0.05) {
                Age::Restricted
            } else {
                Age::AllAges
            },
            state,
            description: format!(
                "{} {} {}. Support the show: https://example.org/{}",
                capitalize(topic[0]),
                self.sentence(&topic, 12, &mut rng),
                topic[1],
                plan.slug
            ),
            tags: topic
                .iter()
                .take(rng.random_range(2..5))
                .map(|t| t.to_string())
                .collect(),
            curated_tags: curated_for(index, &mut rng),
            recorded_date: (plan.platform == Platform::Twitch).then(|| civil_date(day - 1)),
            caption_source: Some(
                CaptionSource::ALL[if index < 3 {
                    index
                } else {
                    rng.random_range(0..3)
                }],
            ),
            lang: Some(if rng.random_bool(0.9) { "en" } else { "es" }.to_string()),
            cues,
        }
    }

    /// A re-upload of `original`'s video: same words; aligned, shifted by
    /// an intro, or never measured, in turn.
    fn mirror(
        &self,
        plan: &ChannelPlan,
        original: &str,
        index: usize,
    ) -> (VideoRecord, Option<DuplicateCluster>) {
        let source_index = index / 3;
        let source_plan = ChannelPlan {
            index: 0,
            slug: original.to_string(),
            mirrors_of: None,
            platform: Platform::Youtube,
            livestreams: 0.15,
            ..plan.clone()
        };
        let orig = self.original(&source_plan, source_index);
        let mut rng = item_rng(self.seed, &[plan.site, &plan.slug, "mirror"], index);
        let (slug, webpage_url) = ids(plan.platform, &plan.slug, &[orig.title.as_str()], &mut rng);
        let (aligned, offset) = match index / 3 % 3 {
            0 => (Some(true), Some(0.0)),
            1 => (Some(false), Some(12.5)),
            _ => (None, None),
        };
        let shift = offset.unwrap_or(0.0);
        let mut copy = VideoRecord {
            slug: slug.clone(),
            webpage_url: Some(webpage_url),
            platform: Some(plan.platform),
            state: State::Available,
            caption_source: Some(CaptionSource::Asr),
            ..orig.clone()
        };
        for c in &mut copy.cues {
            c.start = round2(c.start + shift);
            c.end = round2(c.end + shift);
        }
        let cluster = DuplicateCluster {
            id: format!("dup-{original}-{source_index}"),
            canonical: VideoKey {
                channel: original.to_string(),
                slug: orig.slug.clone(),
            },
            members: vec![
                DuplicateMember {
                    channel: original.to_string(),
                    slug: orig.slug,
                    aligned: Some(true),
                    offset: Some(0.0),
                },
                DuplicateMember {
                    channel: plan.slug.clone(),
                    slug,
                    aligned,
                    offset: offset.map(|o| -o),
                },
            ],
        };
        (copy, Some(cluster))
    }

    fn cues(&self, topic: &[&str], n: usize, rng: &mut ChaCha8Rng) -> Vec<Cue> {
        let mut cues = Vec::with_capacity(n);
        let mut t = rng.random_range(0.0..3.0);
        let mut sentence_start = true;
        for _ in 0..n {
            let words = rng.random_range(5..13);
            let mut text = String::with_capacity(words * 7);
            for w in 0..words {
                if w > 0 {
                    text.push(' ');
                }
                let word = self.word(topic, rng);
                if sentence_start {
                    push_capitalized(&mut text, word);
                } else {
                    text.push_str(word);
                }
                sentence_start = false;
                let p: f64 = rng.random();
                if p < 0.07 {
                    text.push('.');
                    sentence_start = true;
                } else if p < 0.10 {
                    text.push(',');
                } else if p < 0.11 {
                    text.push('?');
                    sentence_start = true;
                }
            }
            let dur = words as f64 * rng.random_range(0.25..0.45);
            cues.push(Cue {
                start: round2(t),
                end: round2(t + dur),
                text,
            });
            t += dur + rng.random_range(0.0..0.6);
        }
        cues
    }

    fn word<'a>(&'a self, topic: &[&'a str], rng: &mut ChaCha8Rng) -> &'a str {
        let p: f64 = rng.random();
        if p < 0.06 {
            topic[rng.random_range(0..topic.len())]
        } else if p < 0.0625 {
            TRAP_PHRASES[rng.random_range(0..TRAP_PHRASES.len())]
        } else {
            self.vocab.draw(rng)
        }
    }

    fn sentence(&self, topic: &[&str], n: usize, rng: &mut ChaCha8Rng) -> String {
        (0..n)
            .map(|_| self.word(topic, rng))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn title(&self, topic: &[&str], rng: &mut ChaCha8Rng) -> String {
        let n = rng.random_range(3..8);
        let mut words: Vec<String> = (0..n).map(|_| capitalize(self.vocab.draw(rng))).collect();
        words.insert(rng.random_range(0..words.len()), capitalize(topic[0]));
        words.join(" ")
    }

    /// Live chat of a livestream: about one message per five cues.
    pub fn chat(&self, video: &VideoRecord, index: usize) -> VideoChat {
        let mut rng = item_rng(self.seed, &[&video.slug, "chat"], index);
        let topic: Vec<&str> = video
            .tags
            .iter()
            .map(String::as_str)
            .chain(["chat"])
            .collect();
        let messages = video
            .cues
            .iter()
            .step_by(5)
            .map(|c| ChatMessage {
                t: c.start,
                author: CHATTERS[rng.random_range(0..CHATTERS.len())].to_string(),
                text: self.sentence(&topic, rng.random_range(2..9), &mut rng),
            })
            .collect();
        VideoChat {
            slug: video.slug.clone(),
            messages,
        }
    }

    /// AI chapters and tags.
    pub fn digest(&self, video: &VideoRecord, index: usize) -> Digest {
        let mut rng = item_rng(self.seed, &[&video.slug, "digest"], index);
        let topic: Vec<&str> = video.tags.iter().map(String::as_str).collect();
        let step = (video.cues.len() / 4).max(1);
        Digest {
            chapters: video
                .cues
                .iter()
                .step_by(step)
                .map(|c| Chapter {
                    start: c.start,
                    title: capitalize(&self.sentence(&topic, 3, &mut rng)),
                })
                .collect(),
            tags: topic.iter().map(|t| t.to_string()).collect(),
            model: "digest-model-1".into(),
        }
    }

    /// About thirty posts in threads of up to four.
    pub fn posts(&self, plan: &ChannelPlan) -> Vec<Post> {
        let mut posts: Vec<Post> = Vec::new();
        for i in 0..30 {
            let mut rng = item_rng(self.seed, &[plan.site, &plan.slug, "post"], i);
            let topic = self.vocab.topic(2, &mut rng);
            let root = i % 4 == 0;
            let thread = posts
                .iter()
                .rev()
                .find(|p| p.reply_to.is_none())
                .map(|p| p.id.clone());
            let id = format!("{}-post-{i:03}", plan.slug);
            posts.push(Post {
                id: id.clone(),
                author: if root {
                    plan.name.clone()
                } else {
                    CHATTERS[i % CHATTERS.len()].to_string()
                },
                date: civil_date(19_000 + i as i64 * 11),
                text: capitalize(&self.sentence(&topic, rng.random_range(8..30), &mut rng)),
                url: Some(format!("https://social.example/{}/{id}", plan.slug)),
                reply_to: if root {
                    None
                } else {
                    posts.last().map(|p| p.id.clone())
                },
                thread_id: if root { Some(id) } else { thread },
            });
        }
        posts
    }
}

const CHATTERS: &[&str] = &[
    "nightowl",
    "Ruth_K",
    "büro_bob",
    "xXgamerXx",
    "late2party",
    "Ōkami",
    "mod_team",
];

fn weighted_state(rng: &mut ChaCha8Rng) -> State {
    match rng.random_range(0..100) {
        0..80 => State::Available,
        80..85 => State::MaybeMissing,
        85..91 => State::Deleted,
        91..95 => State::Private,
        95..98 => State::MembersOnly,
        _ => State::Unlisted,
    }
}

/// A platform-shaped id and watch URL. YouTube ids sometimes begin with
/// `-`; a Rumble embed id differs from the URL's slug id.
fn ids(
    platform: Platform,
    channel: &str,
    topic: &[&str],
    rng: &mut ChaCha8Rng,
) -> (String, String) {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let pick = |rng: &mut ChaCha8Rng, n: usize, alphabet: &[u8]| -> String {
        (0..n)
            .map(|_| alphabet[rng.random_range(0..alphabet.len())] as char)
            .collect()
    };
    let title_slug = topic.join("-").to_lowercase().replace(' ', "-");
    match platform {
        Platform::Youtube => {
            let mut id = pick(rng, 11, B64);
            if rng.random_bool(0.06) {
                id.replace_range(0..1, "-");
            }
            let url = format!("https://www.youtube.com/watch?v={id}");
            (id, url)
        }
        Platform::Rumble => {
            let embed = format!("v{}", pick(rng, 5, b"abcdefghijklmnopqrstuvwxyz0123456789"));
            let url_id = format!("v{}", pick(rng, 5, b"abcdefghijklmnopqrstuvwxyz0123456789"));
            let url = format!("https://rumble.com/{url_id}-{title_slug}.html");
            (embed, url)
        }
        Platform::Twitch => {
            let id = format!("v{}", rng.random_range(1_000_000_000u64..2_000_000_000));
            let url = format!("https://www.twitch.tv/videos/{}", &id[1..]);
            (id, url)
        }
        Platform::Odysee => {
            let id = pick(rng, 40, b"0123456789abcdef");
            let url = format!("https://odysee.com/@{channel}/{title_slug}:{}", &id[..1]);
            (id, url)
        }
        Platform::Kick => {
            let id = pick(rng, 32, b"0123456789abcdef");
            let url = format!("https://kick.com/video/{id}");
            (id, url)
        }
        Platform::ArchiveOrg => {
            let id = format!(
                "{channel}-{}",
                pick(rng, 8, b"abcdefghijklmnopqrstuvwxyz0123456789")
            );
            let url = format!("https://archive.org/details/{id}");
            (id, url)
        }
        _ => {
            let id = pick(
                rng,
                12,
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            );
            let url = format!("https://www.bitchute.com/video/{id}/");
            (id, url)
        }
    }
}

/// The curated vocabulary every generated site publishes.
pub fn curated_tags() -> Vec<CuratedTag> {
    [
        ("economy", "Economy", "topics"),
        ("courts", "Courts & Law", "topics"),
        ("tech", "Technology", "topics"),
        ("health", "Health", "topics"),
        ("interview", "Interview", "formats"),
        ("debate", "Debate", "formats"),
        ("q-and-a", "Q&A", "formats"),
        ("breaking", "Breaking News", "formats"),
    ]
    .iter()
    .map(|(id, label, group)| CuratedTag {
        id: id.to_string(),
        label: label.to_string(),
        group: Some(group.to_string()),
    })
    .collect()
}

fn curated_for(index: usize, rng: &mut ChaCha8Rng) -> Vec<String> {
    let tags = curated_tags();
    if !index.is_multiple_of(3) && !rng.random_bool(0.15) {
        return vec![];
    }
    let first = rng.random_range(0..tags.len());
    let mut out = vec![tags[first].id.clone()];
    if rng.random_bool(0.3) {
        out.push(tags[(first + 3) % tags.len()].id.clone());
    }
    out
}

/// The aliases the main site publishes.
pub fn aliases() -> Vec<Alias> {
    vec![
        Alias {
            id: "k-cups".into(),
            label: "K-Cups".into(),
            triggers: vec!["k cups".into(), "kcups".into()],
            regex: "(k|cake)[ -]?cups?".into(),
        },
        Alias {
            id: "zurich".into(),
            label: "Zürich".into(),
            triggers: vec!["zurich".into()],
            regex: "z(u|ü|ue)rich".into(),
        },
    ]
}

/// The figures `stats/` publishes for a video.
pub fn stats(video: &VideoRecord, index: usize) -> VideoStats {
    let spoken: f64 = video.cues.iter().map(|c| c.end - c.start).sum();
    let duration = video.duration.unwrap_or(1.0).max(1.0);
    VideoStats {
        views: Some(1_000 + (index as u64 * 7_919) % 250_000),
        likes: (!index.is_multiple_of(4)).then(|| 10 + (index as u64 * 131) % 9_000),
        cues: video.cues.len() as u32,
        coverage: round2((spoken / duration).min(1.0)),
    }
}

/// A citation of the video's second cue, quoted verbatim.
pub fn citation(channel: &str, video: &VideoRecord) -> Citation {
    let cue = &video.cues[1];
    Citation {
        channel: channel.to_string(),
        slug: video.slug.clone(),
        start: cue.start,
        end: cue.end,
        quote: cue.text.clone(),
        url: video.webpage_url.clone().unwrap_or_default(),
    }
}

/// Two reports over the given citations: a fact-check and a timeline.
pub fn reports(citations: &[Citation]) -> Vec<Report> {
    let verdicts = ["true", "false", "misleading", "unverified"];
    let claims = |offset: usize, with_verdict: bool| -> Vec<Claim> {
        citations
            .chunks(2)
            .skip(offset)
            .take(4)
            .enumerate()
            .map(|(i, cs)| Claim {
                text: format!(
                    "Claim {} about {}",
                    i + 1,
                    cs[0].quote.split(' ').take(4).collect::<Vec<_>>().join(" ")
                ),
                verdict: with_verdict.then(|| verdicts[i % verdicts.len()].to_string()),
                findings: format!(
                    "The cited moment{} bear{} on it.",
                    if cs.len() > 1 { "s" } else { "" },
                    if cs.len() > 1 { "" } else { "s" }
                ),
                citations: cs.to_vec(),
            })
            .collect()
    };
    vec![
        Report {
            id: "fact-check-1".into(),
            title: "What was said about the schedule".into(),
            kind: "fact-check".into(),
            summary: "Four claims checked against the recordings.".into(),
            sections: vec![
                ReportSection {
                    id: "s1".into(),
                    title: "The first week".into(),
                    claims: claims(0, true),
                },
                ReportSection {
                    id: "s2".into(),
                    title: "Later".into(),
                    claims: claims(4, true),
                },
            ],
        },
        Report {
            id: "timeline-1".into(),
            title: "A timeline of the dispute".into(),
            kind: "timeline".into(),
            summary: String::new(),
            sections: vec![ReportSection {
                id: "t1".into(),
                title: "Events".into(),
                claims: claims(8, false),
            }],
        },
    ]
}

fn capitalize(word: &str) -> String {
    let mut s = String::with_capacity(word.len());
    push_capitalized(&mut s, word);
    s
}

fn push_capitalized(out: &mut String, word: &str) {
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// `YYYYMMDD` of a day count since 1970-01-01 (proleptic Gregorian).
pub fn civil_date(days: i64) -> String {
    archilyzer_core::time::Day::from_days_since_epoch(days).compact()
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates_are_right() {
        assert_eq!(super::civil_date(0), "19700101");
        assert_eq!(super::civil_date(19_783), "20240301");
        assert_eq!(super::civil_date(19_782), "20240229");
    }
}
