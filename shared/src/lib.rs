#![deny(missing_docs)]
//! archilyzer-core: everything both binaries need to read a transcript
//! archive (a *composed public dir*).
//!
//! - [`collapse`]: counting recordings, not uploads (duplicate clusters).
//! - [`mod@format`]: the archive format, version 1, as serde types.
//! - [`source`]: where bytes come from (local dir, HTTP with retries and a
//!   disk cache) and the source handles that name an archive.
//! - [`archive`]: an opened site or hub, with typed, cached access to its
//!   files and a byte-budgeted, coalescing page cache.
//! - [`captions`]: parsers for the caption files people have (WebVTT, SRT,
//!   Whisper TSV/JSON, YouTube json3/srv3).
//! - [`clip`]: the span a cited moment asks the editor for.
//! - [`platform`]: web hosts and platforms, and the video id a watch URL
//!   names, for import, the transcript tool and the editor tools alike.
//! - [`logging`]: the stderr logger both binaries install.
//! - [`net`]: the HTTP runtime and client both binaries share.
//! - [`share`]: viewer share links (a whole search in one URL).
//! - [`claim`], [`file_claim`] and [`staging`]: which folders and files a
//!   command may replace (only its own output) and how (atomically).
//! - [`time`]: calendar days, date ranges and clock times, read one way
//!   everywhere.
//! - [`text`]: the one normaliser and tokeniser (index and query share it).
//! - [`index`]: the offline index (which pages hold which words, and every
//!   video), its build and its reader; the format is described there.
//! - [`passages`]: passages by meaning: cut at build time, embedded by a
//!   local sentence model (archilyzer-embed), ranked against a question and
//!   fused with a words ranking; they rank, never count.
//! - [`related`]: what is said alongside a query (significant terms)
//!   and which videos are alike, from the postings and the census.
//! - [`report`]: the words a search result is told in, for every front
//!   end.
//! - [`query`]: the engine: filters, the plan (which pages to read), the
//!   scan that confirms every hit on the page text, and the matcher.
//!
//! The tests' loopback HTTP server (it serves a folder and injects
//! faults) is a crate of its own, `archilyzer-testkit` (shared/testkit/),
//! so no build of this crate has a test-only part; so are the bodies of
//! the fuzz targets, `archilyzer-fuzzing` (shared/fuzzing/), which fuzz/
//! and its regression test build on: every parser they feed is here.
//!
//! # Example: index an archive, then search it
//!
//! ```
//! use archilyzer_core::archive::{Archive, OpenOptions};
//! use archilyzer_core::query::{search, Request};
//! use archilyzer_core::source::SourceHandle;
//!
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/archive/alpha");
//! let archive = Archive::open(&SourceHandle::local(dir.as_ref()), &OpenOptions::default())?;
//! let index = tempfile::tempdir()?;
//! archilyzer_core::index::build(&archive, index.path(), &|_| {})?;
//!
//! let request = Request { query: "k cups".into(), use_aliases: true, ..Request::default() };
//! let indexed = search(&archive, Some(index.path()), &request)?;
//! let scanned = search(&archive, None, &request)?;
//! // The index only decides which pages to read (invariant 1).
//! assert_eq!(indexed.total_hits, scanned.total_hits);
//! assert!(indexed.pages_read <= scanned.pages_read);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Invariants
//!
//! What the rest of the code relies on. Each is stated here once, enforced
//! where the named module says, and pinned by the test named after it.
//!
//! 1. **The index only prunes.** With the index fresh, stale, corrupt,
//!    built from another archive, or absent, a search returns the same hits
//!    as a full scan; only the number of pages (and bytes of them) read
//!    differs. Enforced by [`query`] (hits are decided on the page text
//!    only; a video read by its span is used only when its bytes are the
//!    ones indexed, `format::spans`; the page-wide prefilter in front of
//!    the matcher is exact, `query::prefilter`; a loaded index is kept
//!    only while its files are unchanged, `index::cache`; a build carries
//!    a page over unread only when its bytes are the ones indexed, by
//!    stamp or by hashing them, `index::reuse`); the proof is
//!    in [`index`]. Pinned by
//!    `the_index_only_prunes_a_fresh_index_reads_fewer_pages_for_the_same_hits`
//!    and the other stale-index cases in `indexer/tests/suite/index.rs` and
//!    `indexer/tests/suite/spans.rs` (`a_video_moved_within_its_page_is_found_by_reading_the_whole_page`,
//!    `a_remote_page_changed_behind_an_unchanged_manifest_is_refused_never_misread`),
//!    `the_page_prefilter_never_changes_a_hit`,
//!    `a_page_rewritten_with_the_same_bytes_is_reused_after_hashing_and_an_edited_one_is_read`,
//!    `a_settled_index_is_loaded_once_per_process_and_a_rebuild_is_loaded_again`,
//!    the differential property test and `archilyzer-index check` in CI.
//! 2. **A page the index cannot vouch for is read.** A page that is new,
//!    changed (manifest sha256, or a local file's size and mtime), unknown
//!    to the index, or that the build failed to read is read whole, never
//!    skipped for its words; only a filter can skip it, when the summaries
//!    and its manifest's `slugToPage` show that no video on it passes (a
//!    video the summaries do not know has its page read). Enforced by
//!    `query::plan` and `query::filter_first`. Pinned by
//!    `a_page_the_index_cannot_vouch_for_is_read_when_edited_with_the_same_size`,
//!    `a_page_added_after_the_build_is_read`, `a_channel_added_after_the_build_is_read`,
//!    `without_an_index_a_filter_prunes_pages_from_the_summaries_and_never_loses_a_hit`.
//! 3. **Builds are atomic.** An index is written beside its target and
//!    renamed into place; a reader sees the old index or the new one, and an
//!    interrupted build leaves the old one working. Enforced by [`staging`].
//!    Pinned by `an_interrupted_build_leaves_the_previous_index_working` and
//!    `a_full_disk_during_build_is_a_clear_error_and_the_previous_index_stays`.
//! 4. **One normaliser.** The index and the query share [`text`]'s
//!    normaliser and tokeniser, whose version the index records; an index of
//!    another version is ignored with a note. Pinned by
//!    `a_normaliser_version_mismatch_means_the_index_is_ignored`.
//! 5. **Every result names the corpus it read**, errors included, with a
//!    closing `(corpus: <handle>)`. Enforced by the server's tool dispatch
//!    and the command line's footer. Pinned by
//!    `every_result_names_the_corpus_it_read_errors_included`.
//! 6. **Nothing narrows or widens silently.** A filter value that cannot
//!    be right (a channel, group, tag, state or media type the archive does
//!    not know, a day the calendar lacks, an inverted range, a length that
//!    is no length, a scope that is no scope, an empty regex) refuses the
//!    request, naming the argument, the value and the nearest valid value:
//!    never "0 videos"; a capped scan says PARTIAL and names the channels
//!    scanned, partly scanned and never reached; a page that cannot be
//!    read is named; a date filter counts the matching videos it left out
//!    for having no upload date.
//!    Enforced by `query::filters` and `query::scan`. Pinned by
//!    `impossible_filter_values_are_refused_never_answered_as_nothing`,
//!    `max_pages_reports_partial_coverage_naming_the_channels`,
//!    `a_page_with_broken_json_is_named_and_the_rest_answered`,
//!    `a_date_filter_counts_the_undated_matches_it_leaves_out`.
//! 7. **Archives are read-only.** Nothing here writes to an archive it
//!    reads; the server writes only logs and its own caches, and the tools
//!    that change things elsewhere ask the editor to. Pinned by
//!    `read_only_building_and_searching_never_write_to_the_archive`.
//! 8. **Never destroy what the project did not write.** A command replaces
//!    a folder only when it holds this project's marker of the same kind,
//!    and refuses anything else before writing a byte. Enforced by
//!    [`claim`]. Pinned by `indexer/tests/suite/ownership.rs`.
//! 9. **Aliases and curated tags belong to their site.** An alias fires,
//!    and a tag label resolves, only on the site whose `aliases.json` or
//!    `tags.json` publishes it, so a hub answers for each member what that
//!    member answers alone; every tool that takes a query compiles it
//!    through one function. Enforced by `query::terms` and
//!    `query::filters`. Pinned by
//!    `aliases_and_tags_belong_to_the_site_that_publishes_them`.
//! 10. **Passages rank; they never count, and never show a text they did
//!     not rank.** A passage's text is read from the archive and shown only
//!     when its fingerprint is the one embedded (a changed video's passages
//!     are skipped and counted as stale until `build --embed` runs), and
//!     vectors are compared only with a query embedded by the same model.
//!     Enforced by [`passages`] (`find`, `store`). Pinned by
//!     `a_re_import_embeds_only_the_video_that_changed_and_an_index_build_keeps_the_vectors`
//!     and `a_query_without_vectors_with_another_models_or_with_damaged_ones_is_refused_with_the_fix`.
#![forbid(unsafe_code)]

pub mod archive;
pub mod captions;
pub mod claim;
pub mod clip;
pub mod collapse;
pub mod file_claim;
pub mod format;
pub mod in_order;
pub mod index;
pub mod links;
#[cfg(feature = "logging")]
pub mod logging;
pub mod memory;
pub mod net;
#[cfg(feature = "passages")]
pub mod passages;
pub mod platform;
pub mod query;
pub mod related;
pub mod report;
pub mod share;
pub mod source;
pub mod staging;
pub mod text;
pub mod time;
pub mod trend;
pub mod typo;
