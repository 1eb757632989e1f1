//! `archilyzer-dev gen`: a deterministic archive of any size, with every
//! file of the format populated with plausible values.
//!
//! Layout of the output directory:
//!
//! ```text
//! OUT/alpha/   the main site (--channels channels, most of the bytes)
//! OUT/beta/    a second site (two channels on other platforms)
//! OUT/cited/   a cited-only site: reports and nothing to search
//! OUT/hub/     a hub over alpha and beta (relative member URLs)
//! ```
//!
//! Promises: the same `--seed`, `--bytes` and `--channels` give
//! byte-identical output on any machine and thread count (every video has
//! its own RNG, seeded from its site, channel and index); every enum value
//! of the format occurs; the output is staged and renamed into place.

mod video;
mod vocab;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use archilyzer_core::format::paths::{self, Layer};
use archilyzer_core::format::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use archilyzer_core::claim::{self, OutputKind};
use archilyzer_index::compose::{self, Pager, Staging};
pub use video::Videos;
pub use vocab::{Vocabulary, TRAP_PHRASES};

/// What to generate.
/// Flags of `archilyzer-dev gen`.
#[derive(clap::Args, Debug, Clone)]
pub struct GenArgs {
    /// The directory to create (replaced atomically if it exists).
    #[arg(long)]
    pub out: PathBuf,
    /// Approximate transcript bytes, e.g. 4MB or 1.3GB.
    #[arg(long, value_parser = archilyzer_index::size::parse_size)]
    pub bytes: u64,
    /// Seed of every random choice; the same seed gives the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Channels of the main site (alpha), at least 3.
    #[arg(long, default_value_t = 5)]
    pub channels: usize,
}

/// Generates the archive the flags describe and says what it wrote.
pub fn command(args: &GenArgs) -> Result<std::process::ExitCode> {
    let options = GenOptions {
        out: args.out.clone(),
        bytes: args.bytes,
        seed: args.seed,
        channels: args.channels,
    };
    let r = generate(&options, &|line| eprintln!("gen: {line}"))?;
    eprintln!(
        "gen: wrote {} ({}, {}, {:.1} MB) in {:.2} s: {:.0} MB/s",
        args.out.display(),
        archilyzer_core::report::counted(r.videos, "video"),
        archilyzer_core::report::counted(r.pages, "page"),
        r.bytes_written as f64 / 1e6,
        r.seconds,
        r.bytes_written as f64 / 1e6 / r.seconds.max(1e-9)
    );
    Ok(std::process::ExitCode::SUCCESS)
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenOptions {
    /// The folder to write (alpha, beta, cited and hub under it).
    pub out: PathBuf,
    /// Approximate transcript bytes of alpha and beta together.
    pub bytes: u64,
    /// The seed: the same seed, size and channel count give the same bytes.
    pub seed: u64,
    /// Channels of the main site (at least 3).
    pub channels: usize,
}

/// What was generated.
#[derive(Debug, Clone, Default)]
pub struct GenReport {
    /// Bytes written.
    pub bytes_written: u64,
    /// Videos written.
    pub videos: u64,
    /// Transcript pages written.
    pub pages: u64,
    /// Wall time taken, in seconds.
    pub seconds: f64,
}

/// One channel to generate.
#[derive(Debug, Clone)]
pub struct ChannelPlan {
    /// The site it belongs to.
    pub site: &'static str,
    /// Its position among the site's channels.
    pub index: usize,
    /// Its slug.
    pub slug: String,
    /// Its name.
    pub name: String,
    /// Where its videos are hosted.
    pub platform: Platform,
    /// Its group, if any.
    pub group: Option<String>,
    /// Transcript bytes to write for it.
    pub bytes: u64,
    /// Share of livestreams (0..=1).
    pub livestreams: f64,
    /// Mirrors of `index 0`'s videos (the duplicate clusters).
    pub mirrors_of: Option<String>,
    /// Whether it has archived posts.
    pub posts: bool,
}

const ALPHA_CHANNELS: &[(&str, &str, Platform, &str)] = &[
    (
        "daily-dispatch",
        "The Daily Dispatch",
        Platform::Youtube,
        "main",
    ),
    (
        "late-night-live",
        "Late Night Live",
        Platform::Youtube,
        "main",
    ),
    (
        "dispatch-rumble",
        "Daily Dispatch on Rumble",
        Platform::Rumble,
        "other",
    ),
    ("stream-vault", "Stream Vault", Platform::Twitch, "other"),
    (
        "odysee-archive",
        "The Odysee Archive",
        Platform::Odysee,
        "other",
    ),
    ("kick-corner", "Kick Corner", Platform::Kick, "other"),
    (
        "bitchute-backup",
        "BitChute Backup",
        Platform::Bitchute,
        "other",
    ),
];

/// Generates the four composed dirs under `options.out`.
pub fn generate(options: &GenOptions, progress: &dyn Fn(&str)) -> Result<GenReport> {
    anyhow::ensure!(
        options.channels >= 3,
        "--channels must be at least 3 (the archive needs a mirror channel)"
    );
    let started = Instant::now();
    let claim = claim::Claim::new(&options.out, OutputKind::GeneratedArchives, "--out", &[])?;
    let staging = Staging::beside(claim)?;
    for line in staging.removed_stale() {
        progress(&line);
    }
    let root = staging.path().to_path_buf();
    let vocab = vocabulary(options);
    let videos = Videos::new(&vocab, options.seed, options.bytes);

    let [alpha_plans, beta_plans] = plans(options);
    let mut report = GenReport::default();
    let alpha = write_site(
        &root.join("alpha"),
        &videos,
        &alpha_site(),
        &alpha_plans,
        progress,
        &mut report,
    )?;
    write_site(
        &root.join("beta"),
        &videos,
        &beta_site(),
        &beta_plans,
        progress,
        &mut report,
    )?;
    write_alpha_extras(&root.join("alpha"), &alpha)?;
    write_cited_site(&root.join("cited"), &alpha.citations)?;
    write_hub(&root.join("hub"))?;
    // Each archive of videos is marked as one, so `import` may replace it
    // (the output rule, `archilyzer_core::claim`); the hub is not one.
    for site in ["alpha", "beta", "cited"] {
        std::fs::write(
            root.join(site).join(claim::MARKER),
            OutputKind::Archive.marker_bytes(),
        )?;
    }
    staging.commit()?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// The channels of alpha and of beta.
pub fn plans(options: &GenOptions) -> [Vec<ChannelPlan>; 2] {
    let alpha_bytes = options.bytes * 85 / 100;
    [
        alpha_channels(options.channels, alpha_bytes),
        beta_channels(options.bytes - alpha_bytes),
    ]
}

/// The vocabulary and video maker a generation uses.
pub fn vocabulary(options: &GenOptions) -> Vocabulary {
    Vocabulary::new(40_000, 1.07, &mut ChaCha8Rng::seed_from_u64(options.seed))
}

fn alpha_site() -> SiteInfo {
    SiteInfo {
        id: "alphalyzer".into(),
        title: "Alphalyzer".into(),
        url: Some("https://alphalyzer.example".into()),
        scope: SiteScope::Full,
    }
}

fn beta_site() -> SiteInfo {
    SiteInfo {
        id: "betalyzer".into(),
        title: "Betalyzer".into(),
        url: None,
        scope: SiteScope::Full,
    }
}

fn alpha_channels(n: usize, bytes: u64) -> Vec<ChannelPlan> {
    (0..n)
        .map(|i| {
            let (slug, name, platform, group) = ALPHA_CHANNELS[i % ALPHA_CHANNELS.len()];
            let round = i / ALPHA_CHANNELS.len();
            let (slug, name) = if round == 0 {
                (slug.to_string(), name.to_string())
            } else {
                (
                    format!("{slug}-{}", round + 1),
                    format!("{name} {}", round + 1),
                )
            };
            ChannelPlan {
                site: "alphalyzer",
                index: i,
                slug,
                name,
                platform,
                group: Some(group.to_string()),
                bytes: bytes / n as u64,
                livestreams: if i == 1 { 0.7 } else { 0.15 },
                mirrors_of: (i == 2).then(|| ALPHA_CHANNELS[0].0.to_string()),
                posts: i == 0 || i == 3,
            }
        })
        .collect()
}

fn beta_channels(bytes: u64) -> Vec<ChannelPlan> {
    let plan = |index, slug: &str, name: &str, platform| ChannelPlan {
        site: "betalyzer",
        index,
        slug: slug.into(),
        name: name.into(),
        platform,
        group: None,
        bytes: bytes / 2,
        livestreams: 0.3,
        mirrors_of: None,
        posts: index == 0,
    };
    vec![
        plan(0, "field-notes", "Field Notes", Platform::ArchiveOrg),
        plan(1, "night-shift", "Night Shift", Platform::Youtube),
    ]
}

/// What writing a site's channels produced that later files need.
#[derive(Default)]
struct SiteOutcome {
    channels: Vec<ChannelEntry>,
    summaries: Vec<SummaryRow>,
    clusters: Vec<DuplicateCluster>,
    citations: Vec<Citation>,
    tag_counts: BTreeMap<String, u32>,
}

fn write_site(
    dir: &Path,
    videos: &Videos,
    site: &SiteInfo,
    plans: &[ChannelPlan],
    progress: &dyn Fn(&str),
    report: &mut GenReport,
) -> Result<SiteOutcome> {
    let outcomes: Vec<Result<ChannelOutcome>> = std::thread::scope(|s| {
        let handles: Vec<_> = plans
            .iter()
            .map(|plan| s.spawn(move || write_channel(dir, videos, plan)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a generator thread panicked"))
            .collect()
    });
    let mut site_out = SiteOutcome::default();
    for outcome in outcomes {
        let o = outcome?;
        progress(&format!(
            "{}: {} videos, {} pages, {} MB",
            o.entry.slug,
            o.entry.video_count,
            o.entry.page_count,
            o.bytes / 1_000_000
        ));
        report.bytes_written += o.bytes;
        report.videos += o.entry.video_count as u64;
        report.pages += o.entry.page_count as u64;
        site_out.channels.push(o.entry);
        site_out.summaries.extend(o.summaries);
        site_out.clusters.extend(o.clusters);
        site_out.citations.extend(o.citations);
        for (k, v) in o.tag_counts {
            *site_out.tag_counts.entry(k).or_default() += v;
        }
    }
    let groups = match site.id.as_str() {
        "alphalyzer" => vec![
            GroupEntry {
                id: "main".into(),
                name: "Main Shows".into(),
            },
            GroupEntry {
                id: "other".into(),
                name: "Extended Universe".into(),
            },
        ],
        _ => vec![],
    };
    compose::write_json(
        dir,
        paths::SUMMARIES,
        &Summaries {
            videos: site_out.summaries.clone(),
        },
    )?;
    compose::write_json(dir, paths::TAGS, &video::curated_tags())?;
    compose::write_corpus(
        dir,
        &CorpusFile::Site(SiteCorpus {
            spec: SPEC_VERSION,
            site: site.clone(),
            channels: site_out.channels.clone(),
            groups,
            generated_at: None,
        }),
    )?;
    Ok(site_out)
}

struct ChannelOutcome {
    entry: ChannelEntry,
    bytes: u64,
    summaries: Vec<SummaryRow>,
    clusters: Vec<DuplicateCluster>,
    citations: Vec<Citation>,
    tag_counts: BTreeMap<String, u32>,
}

/// Generates and writes one channel: transcripts, chat, posts, stats and
/// digests.
fn write_channel(root: &Path, videos: &Videos, plan: &ChannelPlan) -> Result<ChannelOutcome> {
    let page_target = (plan.bytes / 8).clamp(48_000, 7_500_000) as usize;
    let mut pages = Pager::new(root, Layer::Transcripts, &plan.slug, page_target);
    let mut chat = Pager::new(root, Layer::Chat, &plan.slug, page_target);
    let mut out = ChannelOutcome {
        entry: ChannelEntry {
            slug: plan.slug.clone(),
            name: plan.name.clone(),
            platform: plan.platform,
            group: plan.group.clone(),
            video_count: 0,
            page_count: 0,
        },
        bytes: 0,
        summaries: Vec::new(),
        clusters: Vec::new(),
        citations: Vec::new(),
        tag_counts: BTreeMap::new(),
    };
    let mut stats = ChannelStats::new();
    let mut digests = ChannelDigests::new();
    let mut index = 0;
    while out.bytes < plan.bytes || index < 8 {
        let (record, mirror) = videos.make(plan, index);
        let (page, size) = pages.push(&record.slug, &record)?;
        out.bytes += size as u64;
        out.summaries.push(SummaryRow::of(
            &plan.slug,
            page,
            &record.slug,
            &record.title,
            record.facts(),
        ));
        if let Some(cluster) = mirror {
            out.clusters.push(cluster);
        }
        if record.media_type == MediaType::Livestream {
            chat.push(&record.slug, &videos.chat(&record, index))?;
        }
        for t in &record.curated_tags {
            *out.tag_counts.entry(t.clone()).or_default() += 1;
        }
        stats.insert(record.slug.clone(), video::stats(&record, index));
        if index % 2 == 0 {
            digests.insert(record.slug.clone(), videos.digest(&record, index));
        }
        if index % 7 == 1 && record.cues.len() > 2 {
            out.citations.push(video::citation(&plan.slug, &record));
        }
        index += 1;
    }
    out.entry.video_count = index as u32;
    out.entry.page_count = pages.finish(&plan.name, Some(plan.platform))?.pages.len() as u32;
    chat.finish(&plan.name, Some(plan.platform))?;
    if plan.posts {
        let mut posts = Pager::new(root, Layer::Posts, &plan.slug, page_target / 4);
        for post in videos.posts(plan) {
            posts.push(&post.id.clone(), &post)?;
        }
        posts.finish(&plan.name, Some(plan.platform))?;
    }
    compose::write_json(root, &paths::stats(&plan.slug), &stats)?;
    compose::write_json(root, &paths::digests(&plan.slug), &digests)?;
    Ok(out)
}

fn write_alpha_extras(dir: &Path, alpha: &SiteOutcome) -> Result<()> {
    compose::write_json(dir, paths::ALIASES, &video::aliases())?;
    compose::write_json(
        dir,
        paths::DUPLICATES,
        &Duplicates {
            clusters: alpha.clusters.clone(),
        },
    )?;
    let reports = video::reports(&alpha.citations);
    write_reports(dir, &reports)
}

fn write_reports(dir: &Path, reports: &[Report]) -> Result<()> {
    let index = ReportIndex {
        reports: reports.iter().map(report_summary).collect(),
    };
    compose::write_json(dir, paths::REPORTS, &index)?;
    for r in reports {
        compose::write_json(dir, &paths::report(&r.id), r)?;
    }
    Ok(())
}

/// The index row of a report, its counts taken from the report itself.
pub fn report_summary(r: &Report) -> ReportSummary {
    let claims: Vec<&Claim> = r.sections.iter().flat_map(|s| &s.claims).collect();
    let mut verdicts = BTreeMap::new();
    for c in &claims {
        if let Some(v) = &c.verdict {
            *verdicts.entry(v.clone()).or_default() += 1;
        }
    }
    ReportSummary {
        id: r.id.clone(),
        title: r.title.clone(),
        kind: r.kind.clone(),
        claims: claims.len() as u32,
        citations: claims.iter().map(|c| c.citations.len() as u32).sum(),
        verdicts,
    }
}

fn write_cited_site(dir: &Path, citations: &[Citation]) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    write_reports(dir, &video::reports(citations)[..1])?;
    compose::write_corpus(
        dir,
        &CorpusFile::Site(SiteCorpus {
            spec: SPEC_VERSION,
            site: SiteInfo {
                id: "alphalyzer-cited".into(),
                title: "Alphalyzer: cited moments".into(),
                url: Some("https://cited.alphalyzer.example".into()),
                scope: SiteScope::Cited,
            },
            channels: vec![],
            groups: vec![],
            generated_at: None,
        }),
    )
}

fn write_hub(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let member = |id: &str, title: &str| HubMember {
        site_id: id.into(),
        title: title.into(),
        url: format!("../{}/", if id == "alphalyzer" { "alpha" } else { "beta" }),
    };
    compose::write_corpus(
        dir,
        &CorpusFile::Hub(HubCorpus {
            spec: SPEC_VERSION,
            hub: HubInfo {
                id: "archilyzer-hub".into(),
                title: "Archilyzer Hub".into(),
                url: None,
            },
            members: vec![
                member("alphalyzer", "Alphalyzer"),
                member("betalyzer", "Betalyzer"),
            ],
        }),
    )
}

/// A seeded RNG for one item, independent of every other item.
pub(crate) fn item_rng(seed: u64, parts: &[&str], index: usize) -> ChaCha8Rng {
    let mut h: u64 = seed ^ 0x9E37_79B9_7F4A_7C15;
    for p in parts {
        for b in p.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3);
        }
        h = h.rotate_left(17);
    }
    h ^= (index as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let mut rng = ChaCha8Rng::seed_from_u64(h);
    let _: u64 = rng.random();
    rng
}
