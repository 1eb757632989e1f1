//! `archilyzer-index import`: composes an archive from the caption files
//! people actually have.
//!
//! Two kinds of input, mixed freely in one folder (searched recursively):
//! - a yt-dlp download folder: `<id>.info.json` beside `<id>.<lang>.vtt`
//!   (or `.srt`, `.json3`, `.srv3`); the video's slug is its yt-dlp `id`;
//! - bare caption files (VTT, SRT, Whisper TSV or JSON) with no info JSON:
//!   a file named by an id (`0x0awirH-ju.en.vtt`) keeps that id exactly
//!   as written, a file named in free text gives its title and sequence
//!   number; each top folder under `--from` is a channel (slug from the
//!   folder, name as written), and files directly in `--from` go to
//!   `imported`;
//! - results of archilyzer-mcp's `transcript` tool saved as JSON files
//!   (see `result`);
//! - yt-dlp's `<id>.live_chat.json` beside an info JSON: the chat layer
//!   (see `chat`).
//!
//! It runs in two passes, so memory does not grow with the archive: the
//! first reads metadata only (info JSONs, file names) and plans every
//! channel; the second reads each video's captions in archive order and
//! streams them into pages, holding one page and the per-video summaries.
//!
//! Promises: every cue of every parsed file is imported once (rolling
//! auto-captions folded, see [`archilyzer_core::captions`]); a cue whose
//! timing cannot be read is skipped and named with its file and line, and
//! the rest of its file imported; when a video has several caption files
//! the choice is deterministic and reported; a file that cannot be parsed
//! at all is named with the reason and the import goes on; the exit code
//! says whether anything was skipped ([`run`]); the archive is written to
//! a staging directory and renamed into place, so an interrupted import
//! leaves no half archive.

mod chat;
mod files;
mod layout;
pub use layout::Change;
mod kept;
mod ledger;
mod result;
mod write;
mod ytdlp;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use archilyzer_core::claim::{Claim, OutputKind};
use archilyzer_core::format::*;

use crate::size::parse_size;
use archilyzer_core::captions::Skipped;
use archilyzer_core::report::counted;
use files::{BareName, Inputs};

/// Flags of `archilyzer-index import`.
#[derive(clap::Args, Debug, Clone)]
pub struct ImportArgs {
    /// The folder to import (searched recursively).
    #[arg(long)]
    pub from: PathBuf,
    /// The composed public dir to write (replaced atomically if it exists).
    #[arg(long)]
    pub out: PathBuf,
    /// Put every video in this channel (slug). Without it, videos are
    /// grouped by their info JSON's channel, bare files by their top folder
    /// under --from (those directly in it go to `imported`).
    #[arg(long)]
    pub channel: Option<String>,
    /// The channel's display name (default: the info JSON's, or the slug).
    #[arg(long)]
    pub channel_name: Option<String>,
    /// The caption language to prefer when a video has several.
    #[arg(long, default_value = "en")]
    pub lang: String,
    /// The site id written to corpus.json (default: the channel's slug when
    /// there is one channel, else the --out folder's name as a slug).
    #[arg(long)]
    pub site_id: Option<String>,
    /// The site title (default: the channel's name when there is one
    /// channel, else the --out folder's name).
    #[arg(long)]
    pub site_title: Option<String>,
    /// The deployed origin, if the archive will be published (viewer links).
    #[arg(long)]
    pub site_url: Option<String>,
    /// Where captions without an info JSON came from: manual, auto or asr
    /// (default: asr for Whisper TSV/JSON, manual otherwise).
    #[arg(long, value_parser = parse_caption_source)]
    pub caption_source: Option<CaptionSource>,
    /// Import a video whose only captions are the platform's machine
    /// translation, marked `translated` (search labels it); by default
    /// such a video is listed without a transcript, and named.
    #[arg(long)]
    pub keep_translations: bool,
    /// Write every channel in date order from scratch, instead of keeping
    /// the pages of the archive being replaced (which rewrites only the
    /// pages that changed; see `import::layout`).
    #[arg(long)]
    pub repack: bool,
    /// Then build (or bring up to date) the archive's index: the daily
    /// loop in one command.
    #[arg(long)]
    pub build: bool,
    /// With --build: the index directory (default: the cache dir, as
    /// `build` chooses it).
    #[arg(long, requires = "build")]
    pub index: Option<PathBuf>,
    /// With --build: embed passages too (`build --embed`), with the
    /// model --model names.
    #[command(flatten)]
    pub embed: crate::build::EmbedFlags,
    /// Target size of a transcript page.
    #[arg(long, default_value = "7.5MB", value_parser = parse_size)]
    pub page_bytes: u64,
}

fn parse_caption_source(s: &str) -> Result<CaptionSource, String> {
    CaptionSource::parse(s)
        .filter(|c| *c != CaptionSource::Translated)
        .ok_or_else(|| format!("{s:?} is not a caption source: use manual, auto or asr"))
}

/// The channel a video's metadata names.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct ChannelOf {
    /// What tells channels apart: the platform's channel id when known.
    key: String,
    /// The channel's `@handle` without the `@`, when the metadata has it.
    handle: Option<String>,
    name: String,
    platform: Platform,
}

/// A video as a reader gives it: its channel and its record.
struct Imported {
    channel: Option<ChannelOf>,
    seq: Option<u64>,
    record: VideoRecord,
}

/// A video planned in the first pass: its record without cues, and where
/// its cues and chat are read from in the second.
struct Planned {
    /// The files it is planned from.
    primary: Primary,
    /// Its slug as planned, before the channel's slugs are made unique.
    given_slug: String,
    /// Its files' stamps for the ledger, taken before any of them was
    /// read (so a file changed while it is imported shows as changed
    /// next time); `None` when one could not be taken.
    stamps: Option<Vec<ledger::FileStamp>>,
    channel: Option<ChannelOf>,
    seq: Option<u64>,
    record: VideoRecord,
    cues: CueSource,
    chat: Option<PathBuf>,
}

impl Planned {
    /// The video read from `primary`, its cues still to be read.
    fn new(primary: &Primary, v: Imported, cues: CueSource, chat: Option<PathBuf>) -> Planned {
        Planned {
            primary: primary.clone(),
            given_slug: v.record.slug.clone(),
            stamps: None,
            channel: v.channel,
            seq: v.seq,
            record: VideoRecord {
                cues: Vec::new(),
                ..v.record
            },
            cues,
            chat,
        }
    }
}

/// Where a planned video's cues come from.
enum CueSource {
    /// yt-dlp caption files, best first, each with why.
    Ranked {
        choice: archilyzer_core::captions::choose::Choice,
        /// Read a machine translation when nothing else may be read.
        keep_translations: bool,
    },
    /// A caption file with no info JSON.
    Bare(PathBuf),
    /// A transcript tool result.
    Result(PathBuf),
    /// Unchanged since the import that wrote the archive being replaced:
    /// its bytes are taken from there (see `ledger`).
    Kept(Box<ledger::Entry>),
}

/// The file a video is planned from, and the files read beside it.
#[derive(Debug, Clone)]
enum Primary {
    /// A yt-dlp info JSON, its caption files and its live chat.
    Info {
        id: String,
        path: PathBuf,
        captions: Vec<PathBuf>,
        chat: Option<PathBuf>,
    },
    /// A caption file with no info JSON.
    Bare(PathBuf),
    /// A transcript tool result.
    Result(PathBuf),
}

impl Primary {
    /// The file the video is planned from.
    fn path(&self) -> &std::path::Path {
        match self {
            Primary::Info { path, .. } | Primary::Bare(path) | Primary::Result(path) => path,
        }
    }

    /// Every file the video is read from, the primary file first.
    fn files(&self) -> Vec<&std::path::Path> {
        let mut out = vec![self.path()];
        if let Primary::Info { captions, chat, .. } = self {
            out.extend(captions.iter().map(PathBuf::as_path));
            out.extend(chat.as_deref());
        }
        out
    }

    /// The stamps of its files, in [`Primary::files`] order.
    fn stamps(&self, from: &std::path::Path) -> Option<Vec<ledger::FileStamp>> {
        self.files()
            .into_iter()
            .map(|f| ledger::stamp(f, f.strip_prefix(from).ok()?))
            .collect()
    }

    /// Plans the video from its files (the first pass, for one video).
    fn plan(&self, args: &ImportArgs) -> Result<Planned> {
        let stamps = self.stamps(&args.from);
        let mut planned = match self {
            Primary::Info {
                id,
                path,
                captions,
                chat,
            } => {
                let (v, choice) = ytdlp::video(id, path, captions, args)?;
                let cues = CueSource::Ranked {
                    choice,
                    keep_translations: args.keep_translations,
                };
                Planned::new(self, v, cues, chat.clone())
            }
            Primary::Result(path) => {
                let v = result::video(path)?;
                Planned::new(self, v, CueSource::Result(path.clone()), None)
            }
            Primary::Bare(path) => bare_video(path, args),
        };
        planned.given_slug = planned.record.slug.clone();
        planned.stamps = stamps;
        Ok(planned)
    }
}

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    /// Videos imported.
    pub videos: u64,
    /// Their cues.
    pub cues: u64,
    /// Channels written.
    pub channels: u64,
    /// Live-chat messages imported.
    pub chat_messages: u64,
    /// `path: reason` of each file that could not be imported.
    pub failures: Vec<String>,
    /// `path: reason` of each file left out on purpose (a duplicate, a
    /// live chat with no video).
    pub skipped_files: Vec<String>,
    /// `path:line: reason` of each cue that was skipped.
    pub skipped_cues: Vec<String>,
    /// `path:line: reason` of each live-chat line that could not be read.
    pub skipped_chat_lines: Vec<String>,
    /// Videos imported with metadata only (no caption file was readable).
    pub metadata_only: Vec<String>,
    /// Which caption file was chosen where there were several, and why.
    pub choices: Vec<String>,
    /// Unfinished staging folders of interrupted runs, removed.
    pub cleaned: Vec<String>,
    /// Curated files of the archive replaced (`aliases.json`…), carried
    /// into the new one.
    pub kept: Vec<String>,
    /// Videos whose only captions are machine translations, left without
    /// a transcript (see `--keep-translations`), each with what it had.
    pub translations_only: Vec<String>,
    /// What a re-import changed against the archive it replaced (`None`
    /// for a first import).
    pub change: Option<Change>,
    /// How caption files without an info JSON were read (channels from
    /// folders, ids from file names), when there were any.
    pub layout: Option<String>,
    /// Videos taken from the archive being replaced, their files unchanged
    /// since its import and so not read (see `ledger`).
    pub unchanged: u64,
    /// Why the archive's import ledger was not used, when it has one.
    pub ledger_refused: Option<&'static str>,
}

impl ImportReport {
    fn note_skipped_cues(&mut self, path: &std::path::Path, skipped: &[Skipped]) {
        for s in skipped {
            self.skipped_cues
                .push(format!("{}:{}: {}", path.display(), s.line, s.reason));
        }
    }

    /// Takes over the lines one video's import gave.
    fn absorb(&mut self, notes: &ledger::VideoNotes) {
        self.failures.extend_from_slice(&notes.failures);
        self.skipped_cues.extend_from_slice(&notes.skipped_cues);
        self.metadata_only.extend_from_slice(&notes.metadata_only);
        self.choices.extend_from_slice(&notes.choices);
        self.translations_only
            .extend_from_slice(&notes.translations_only);
    }

    /// The lines one video's import gave (a report of that video alone).
    fn notes(self) -> ledger::VideoNotes {
        ledger::VideoNotes {
            failures: self.failures,
            skipped_cues: self.skipped_cues,
            metadata_only: self.metadata_only,
            choices: self.choices,
            translations_only: self.translations_only,
        }
    }
}

/// Exit code of an import that wrote everything it read.
pub const EXIT_OK: u8 = 0;
/// Exit code when a whole file could not be imported (the rest was).
pub const EXIT_FAILED_FILES: u8 = 1;
/// Exit code when every file was imported but some cues were skipped.
pub const EXIT_SKIPPED_CUES: u8 = 3;

/// Runs an import and prints its summary. Exit code: [`EXIT_OK`] when
/// everything read was written, [`EXIT_FAILED_FILES`] when a file could
/// not be imported at all, [`EXIT_SKIPPED_CUES`] when only cues were
/// skipped.
pub fn run(args: &ImportArgs, progress: &dyn Fn(&str)) -> Result<ExitCode> {
    if (args.embed.embed || args.embed.model.is_some()) && !args.build {
        anyhow::bail!("--embed and --model say how to build: add --build (import --build --embed)");
    }
    // Every target is checked before anything is written: an index that
    // may not go where --index says refuses the import, not after it.
    if let (true, Some(index)) = (args.build, &args.index) {
        Claim::new(
            index,
            OutputKind::Index,
            "--index",
            &[(&args.out, "the archive (--out)"), (&args.from, "--from")],
        )?;
    }
    let report = import(args, progress)?;
    for c in &report.choices {
        progress(c);
    }
    for t in &report.translations_only {
        progress(t);
    }
    for f in &report.skipped_files {
        progress(&format!("skipped {f}"));
    }
    for c in &report.skipped_cues {
        progress(&format!("skipped cue {c}"));
    }
    for c in &report.skipped_chat_lines {
        progress(&format!("skipped chat line {c}"));
    }
    for f in &report.failures {
        progress(&format!("FAILED {f}"));
    }
    for c in &report.cleaned {
        progress(c);
    }
    for k in &report.kept {
        progress(&format!(
            "kept {k} from the archive this import replaces (a curated file the format defines; import does not write it)"
        ));
    }
    for line in summary(&report, args) {
        progress(&line);
    }
    let code = if !report.failures.is_empty() {
        EXIT_FAILED_FILES
    } else if !report.skipped_cues.is_empty() || !report.skipped_chat_lines.is_empty() {
        EXIT_SKIPPED_CUES
    } else {
        EXIT_OK
    };
    if args.build {
        let cli = crate::cli::IndexArgs {
            index: args.index.clone(),
        };
        let archive = archilyzer_core::archive::Archive::open(
            &archilyzer_core::source::SourceHandle::local(&args.out),
            &archilyzer_core::archive::OpenOptions::default(),
        )?;
        crate::build::run(&archive, &cli.dir(&archive)?, &args.embed)?;
    }
    Ok(ExitCode::from(code))
}

/// How many videos named in a re-import's change line, each way.
const CHANGES_NAMED: usize = 10;

/// A re-import's line: new, gone and unchanged videos, the first few named.
fn changed(c: &Change) -> String {
    let named = |list: &[(String, String)]| {
        let mut ids: Vec<String> = list
            .iter()
            .take(CHANGES_NAMED)
            .map(|(channel, id)| format!("{channel}/{id}"))
            .collect();
        if list.len() > CHANGES_NAMED {
            ids.push(format!("and {} more", list.len() - CHANGES_NAMED));
        }
        match ids.is_empty() {
            true => String::new(),
            false => format!(" ({})", ids.join(", ")),
        }
    };
    format!(
        "against the archive it replaces: {} new{}, {} gone{}, {} as before",
        counted(c.added.len() as u64, "video"),
        named(&c.added),
        c.gone.len(),
        named(&c.gone),
        c.kept
    )
}

/// The closing lines: what was written, and what was not, with counts.
fn summary(report: &ImportReport, args: &ImportArgs) -> Vec<String> {
    let mut out = vec![format!(
        "imported {}, {}, {}, {} into {}",
        counted(report.videos, "video"),
        counted(report.cues, "cue"),
        counted(report.chat_messages, "chat message"),
        counted(report.channels, "channel"),
        args.out.display()
    )];
    out.extend(report.layout.clone());
    out.extend(report.change.as_ref().map(changed));
    if report.unchanged > 0 {
        out.push(format!(
            "{} unchanged since the last import: taken from the archive it replaces, their files not read again",
            counted(report.unchanged, "video")
        ));
    }
    if let Some(why) = report.ledger_refused {
        out.push(format!(
            "every file was read again: the import ledger of {} is not used ({why})",
            args.out.display()
        ));
    }
    let tallies = [
        (report.metadata_only.len(), "video", "listed with metadata only: no caption file of theirs could be read"),
        (report.translations_only.len(), "video", "listed without a transcript: their only captions are machine translations (named above)"),
        (report.skipped_files.len(), "file", "left out (named above, with why)"),
        (report.skipped_cues.len(), "cue", "skipped for a timing that cannot be read (named above); the rest of their files was imported"),
        (report.skipped_chat_lines.len(), "chat line", "skipped as unreadable (named above); the rest of their files was imported"),
        (report.failures.len(), "file", "could not be imported (named above); the rest was written"),
    ];
    for (n, noun, what) in tallies.into_iter().filter(|t| t.0 > 0) {
        out.push(format!("{} {what}", counted(n as u64, noun)));
    }
    out
}

/// Imports `args.from` into `args.out`.
pub fn import(args: &ImportArgs, progress: &dyn Fn(&str)) -> Result<ImportReport> {
    let claim = Claim::new(
        &args.out,
        OutputKind::Archive,
        "--out",
        &[(&args.from, "--from")],
    )?;
    let inputs = Inputs::scan(&args.from)?;
    progress(&format!(
        "found {} info JSON file(s), {} caption file(s) and {} transcript result(s) in {}",
        inputs.infos.len(),
        inputs.caption_files,
        inputs.results.len(),
        args.from.display()
    ));
    let mut report = ImportReport::default();
    let made = ledger::Made::now(caption_flags(args), &args.from);
    let ledger = match args.repack {
        true => ledger::Ledger::default(),
        false => {
            let (ledger, refused) = ledger::previous(&args.out, &made);
            report.ledger_refused = refused;
            ledger
        }
    };
    let planned = plan(&inputs, args, &ledger, &mut report);
    anyhow::ensure!(
        !planned.is_empty(),
        "nothing to import from {}: no caption file or yt-dlp info JSON could be read{}",
        args.from.display(),
        report
            .failures
            .iter()
            .map(|f| format!("\n  FAILED {f}"))
            .collect::<String>()
    );
    let previous = if args.repack {
        layout::Previous::default()
    } else {
        layout::Previous::of(&args.out)
    };
    write::archive(
        args,
        claim,
        planned,
        &previous,
        (made, &ledger),
        &mut report,
    )?;
    Ok(report)
}

/// The flags that shape a video's record, as the ledger records them.
fn caption_flags(args: &ImportArgs) -> String {
    format!(
        "lang={:?} caption_source={:?} keep_translations={}",
        args.lang, args.caption_source, args.keep_translations
    )
}

/// The first pass: every video to import, from metadata and file names
/// only, or from the ledger where its files are unchanged. A video whose
/// yt-dlp id was already planned for its channel (the same download in
/// two folders) is planned once, and the other named.
fn plan(
    inputs: &Inputs,
    args: &ImportArgs,
    ledger: &ledger::Ledger,
    report: &mut ImportReport,
) -> Vec<Planned> {
    let mut planned = Vec::new();
    let mut seen: BTreeMap<(String, String), PathBuf> = BTreeMap::new();
    let primaries = primaries(inputs);
    let mut each = Vec::with_capacity(primaries.len());
    // Metadata is read on several threads (a cold disk keeps several
    // reads in flight); the results are taken in the files' order.
    archilyzer_core::in_order::in_order(
        &primaries,
        write::readers(),
        || (),
        |_, primary| kept(primary, args, ledger).map_or_else(|| primary.plan(args), Ok),
        |_, v| {
            each.push(v);
            std::ops::ControlFlow::Continue(())
        },
    );
    for (primary, v) in primaries.into_iter().zip(each) {
        let v = match v {
            Ok(v) => v,
            Err(e) => {
                report
                    .failures
                    .push(format!("{}: {e:#}", primary.path().display()));
                continue;
            }
        };
        if let Primary::Info { path, .. } = &primary {
            let key = (
                v.channel.as_ref().map_or(String::new(), |c| c.key.clone()),
                v.record.slug.clone(),
            );
            if let Some(first) = seen.get(&key) {
                report.skipped_files.push(format!(
                    "{}: the same video ({}) as {}; imported once",
                    path.display(),
                    v.record.slug,
                    first.display()
                ));
                continue;
            }
            seen.insert(key, path.clone());
        }
        planned.push(v);
    }
    for path in &inputs.orphan_chats {
        report.skipped_files.push(format!(
            "{}: a live chat with no info JSON beside it, so no video to attach it to",
            path.display()
        ));
    }
    report.layout = bare_layout(&planned);
    planned
}

/// Every video's files, in the order the planner takes them: info JSONs,
/// then transcript results, then bare caption files.
fn primaries(inputs: &Inputs) -> Vec<Primary> {
    let infos = inputs
        .infos
        .iter()
        .enumerate()
        .map(|(i, (id, path))| Primary::Info {
            id: id.clone(),
            path: path.clone(),
            captions: inputs.captions_of(i).to_vec(),
            chat: inputs.chat_of(i).cloned(),
        });
    let results = inputs.results.iter().cloned().map(Primary::Result);
    let bare = inputs.bare().iter().cloned().map(Primary::Bare);
    infos.chain(results).chain(bare).collect()
}

/// The video planned from `primary` as the ledger has it, when none of
/// its files changed.
fn kept(primary: &Primary, args: &ImportArgs, ledger: &ledger::Ledger) -> Option<Planned> {
    let files = primary.files();
    let rel: Vec<&std::path::Path> = files
        .iter()
        .map(|f| f.strip_prefix(&args.from).ok())
        .collect::<Option<_>>()?;
    let pairs: Vec<_> = files.iter().copied().zip(rel.iter().copied()).collect();
    let entry = ledger.unchanged(rel[0].to_str()?, &pairs)?;
    let order = &entry.order;
    let record = VideoRecord {
        slug: order.slug.clone(),
        title: order.title.clone(),
        upload_date: order.upload_date.clone(),
        ..bare_record(CaptionSource::Manual, None)
    };
    Some(Planned {
        primary: primary.clone(),
        given_slug: order.slug.clone(),
        stamps: None,
        channel: order.channel.clone(),
        seq: order.seq,
        record,
        chat: match primary {
            Primary::Info { chat, .. } => chat.clone(),
            _ => None,
        },
        cues: CueSource::Kept(Box::new(entry)),
    })
}

/// A video from a caption file with no info JSON, named from its file
/// name (its cues are read in the second pass).
fn bare_video(path: &std::path::Path, args: &ImportArgs) -> Planned {
    let name = BareName::of(path);
    let channel = top_folder(path, &args.from).map(|folder| ChannelOf {
        key: format!("folder:{folder}"),
        handle: None,
        name: folder,
        platform: Platform::Other,
    });
    let asr = matches!(
        archilyzer_core::captions::CaptionFormat::of_path(path),
        Some(
            archilyzer_core::captions::CaptionFormat::WhisperJson
                | archilyzer_core::captions::CaptionFormat::WhisperTsv
        )
    );
    let source = args.caption_source.unwrap_or(if asr {
        CaptionSource::Asr
    } else {
        CaptionSource::Manual
    });
    Planned {
        primary: Primary::Bare(path.to_path_buf()),
        given_slug: String::new(),
        stamps: None,
        channel,
        seq: name.seq,
        record: VideoRecord {
            // Its id as the file names it, else assigned per channel.
            slug: name.id.unwrap_or_default(),
            title: name.title,
            ..bare_record(source, name.lang)
        },
        cues: CueSource::Bare(path.to_path_buf()),
        chat: None,
    }
}

/// A record with nothing known but its caption source and language.
fn bare_record(caption_source: CaptionSource, lang: Option<String>) -> VideoRecord {
    VideoRecord {
        slug: String::new(),
        title: String::new(),
        upload_date: None,
        duration: None,
        webpage_url: None,
        platform: None,
        media_type: MediaType::Video,
        age: Age::AllAges,
        state: State::Available,
        description: String::new(),
        tags: vec![],
        curated_tags: vec![],
        recorded_date: None,
        caption_source: Some(caption_source),
        lang,
        cues: Vec::new(),
    }
}

/// The folder under `from` that holds `path` at its top, as written;
/// `None` for a file directly in `from`.
fn top_folder(path: &std::path::Path, from: &std::path::Path) -> Option<String> {
    let inside = path.strip_prefix(from).ok()?;
    let mut parts = inside.components();
    let top = parts.next()?;
    parts.next()?;
    Some(top.as_os_str().to_string_lossy().into_owned())
}

/// How bare caption files were read, for the summary: channels from
/// folders, ids from file names, titles from free text.
fn bare_layout(planned: &[Planned]) -> Option<String> {
    let bare: Vec<&Planned> = planned
        .iter()
        .filter(|p| matches!(p.cues, CueSource::Bare(_)))
        .collect();
    if bare.is_empty() {
        return None;
    }
    let folders: std::collections::BTreeSet<&str> = bare
        .iter()
        .filter_map(|p| p.channel.as_ref().map(|c| c.name.as_str()))
        .collect();
    let ids = bare.iter().filter(|p| !p.record.slug.is_empty()).count();
    let channels = match folders.len() {
        0 => "one channel (no channel folders)".to_string(),
        n => format!("{} from folders", counted(n as u64, "channel")),
    };
    Some(format!(
        "{} caption file(s) without an info JSON: {channels}; {ids} id(s) from file names, {} title(s) from free text; no info JSON, so no dates or links",
        bare.len(),
        bare.len() - ids
    ))
}

/// A channel to write: its name, platform and videos, by slug.
type Channels = BTreeMap<String, (String, Platform, Vec<Planned>)>;

/// Groups videos into channels: all into `--channel` when given; else by
/// the channel their metadata names (its id). A channel's slug is
/// readable and the same on every re-import: its `@handle`, else its
/// name, else its id, made a slug (the value most of its videos give;
/// ties: the alphabetically first), and unique with `-2`, `-3`…; videos
/// with no channel go to `imported`.
fn group_channels(args: &ImportArgs, videos: Vec<Planned>) -> Channels {
    let mut by_key: BTreeMap<String, Vec<Planned>> = BTreeMap::new();
    for v in videos {
        let key = match (&args.channel, &v.channel) {
            (Some(slug), _) => slug.clone(),
            (None, Some(c)) => c.key.clone(),
            (None, None) => String::new(),
        };
        by_key.entry(key).or_default().push(v);
    }
    let mut channels = Channels::new();
    for (key, list) in by_key {
        let found = list.iter().filter_map(|v| v.channel.as_ref());
        let suggested = most_common(found.clone().filter_map(|c| c.handle.as_deref()))
            .or_else(|| most_common(found.clone().map(|c| c.name.as_str())))
            .map(files::slugify);
        let base = match (&args.channel, suggested) {
            (Some(slug), _) => slug.clone(),
            (None, Some(slug)) => slug,
            (None, None) if key.is_empty() => "imported".to_string(),
            (None, None) => files::slugify(&key),
        };
        let first = found.clone().next();
        let name = args
            .channel_name
            .clone()
            .or(first.map(|c| c.name.clone()).filter(|n| !n.is_empty()))
            .unwrap_or_else(|| base.clone());
        let platform = first.map_or(Platform::Other, |c| c.platform);
        let mut slug = base.clone();
        for k in 2.. {
            if !channels.contains_key(&slug) {
                break;
            }
            slug = format!("{base}-{k}");
        }
        channels.insert(slug, (name, platform, list));
    }
    channels
}

/// The value given most often (ties: the alphabetically first).
fn most_common<'a>(values: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
    for v in values.filter(|v| !v.trim().is_empty()) {
        *votes.entry(v).or_default() += 1;
    }
    votes
        .into_iter()
        .max_by_key(|(v, n)| (*n, std::cmp::Reverse(*v)))
        .map(|(v, _)| v)
}

/// The site's id and title: the flags, else the channel's when there is
/// one, else the `--out` folder's name (never one channel's of several).
fn site_name(args: &ImportArgs, channels: &[ChannelEntry]) -> (String, String) {
    let (id, title) = match channels {
        [only] => (only.slug.clone(), only.name.clone()),
        _ => {
            let folder = archilyzer_core::claim::resolve(&args.out)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "archive".into());
            (files::slugify(&folder), folder)
        }
    };
    (
        args.site_id.clone().unwrap_or(id),
        args.site_title.clone().unwrap_or(title),
    )
}

/// Gives bare files their slugs (`<channel>-<seq>`, else a slug of the
/// title) and makes every slug in the channel unique.
fn name_videos(channel: &str, list: Vec<Planned>) -> Vec<Planned> {
    let mut seen = std::collections::HashSet::new();
    list.into_iter()
        .map(|mut v| {
            let record = &mut v.record;
            if record.slug.is_empty() {
                record.slug = match v.seq {
                    Some(n) => format!("{channel}-{n}"),
                    None => files::slugify(&record.title),
                };
            }
            let base = record.slug.clone();
            let mut k = 2;
            while !seen.insert(record.slug.clone()) {
                record.slug = format!("{base}-{k}");
                k += 1;
            }
            v
        })
        .collect()
}
