//! What a new user meets in the first ten minutes, run as the real binary:
//! a missing archive says how to choose one, `--help` shows the default,
//! logs carry no colour codes off a terminal, dates are dates, counts say
//! how many matches are mirrors, and a local share link says where it
//! opens.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use archilyzer_core::query::{search, Request};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_archilyzer-index"));
    for var in [
        "TRANSCRIPT_LOCAL_DIR",
        "TRANSCRIPT_SITE_URL",
        "TRANSCRIPT_HUB_URL",
        "NO_COLOR",
        "ARCHILYZER_LOG",
    ] {
        c.env_remove(var);
    }
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn alpha() -> std::path::PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/archive/alpha"))
        .unwrap()
}

#[test]
fn no_archive_at_the_default_names_the_flags_and_variables_that_choose_one() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = std::fs::canonicalize(tmp.path()).unwrap();
    for args in [
        vec!["stats"],
        vec!["build"],
        vec!["search", "cups"],
        vec!["check"],
    ] {
        let o = bin().args(&args).current_dir(&cwd).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(
            stderr(&o).trim_end(),
            format!(
                "error: no archive at {}: it does not exist. Choose one with --local DIR, --remote URL or --hub URL (or TRANSCRIPT_LOCAL_DIR, TRANSCRIPT_SITE_URL, TRANSCRIPT_HUB_URL); without any, the archive is ./export/public",
                cwd.join("export/public").display()
            ),
            "{args:?}"
        );
    }
    std::fs::create_dir_all(cwd.join("export/public")).unwrap();
    let o = bin().arg("stats").current_dir(&cwd).output().unwrap();
    assert!(
        stderr(&o).contains("export/public: it holds no corpus.json. Choose one with"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn every_subcommand_that_reads_an_archive_shows_the_default_in_its_help() {
    for sub in ["build", "search", "check", "stats", "terms"] {
        let o = bin().args([sub, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(
            help.contains("[env: TRANSCRIPT_LOCAL_DIR=]")
                && help.contains("[default: ./export/public]"),
            "{sub} --help:\n{help}"
        );
    }
}

#[test]
fn the_developer_tools_are_not_in_the_command_line_people_install() {
    for sub in ["gen", "bench", "bench-one", "serve"] {
        let o = bin().args([sub, "--help"]).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{sub}");
        assert!(
            stderr(&o).contains(&format!("unrecognized subcommand '{sub}'")),
            "{}",
            stderr(&o)
        );
    }
    // archilyzer-dev has them: indexer/dev/tests/cli.rs.
}

#[test]
fn logs_carry_no_colour_codes_when_stderr_is_not_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    std::fs::write(
        from.join("1_Good.srt"),
        "1\n00:00:01,000 --> 00:00:02,000\nfine\n",
    )
    .unwrap();
    // A byte that is not UTF-8 is kept as U+FFFD with a logged warning.
    std::fs::write(
        from.join("2_Bad.vtt"),
        b"WEBVTT\n\n00:00.000 --> 00:01.000\nbad \xff byte\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = bin()
        .args([
            "import",
            "--from",
            from.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .env("ARCHILYZER_LOG", "debug")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(err.contains("WARN") && err.contains("2_Bad.vtt"), "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "an escape code reached a pipe: {err:?}"
    );
}

#[test]
fn an_iso_date_is_accepted_and_a_malformed_date_is_an_error() {
    let alpha = alpha();
    let run = |date: &str| {
        bin()
            .args([
                "search",
                "--no-index",
                "--local",
                alpha.to_str().unwrap(),
                "--json",
            ])
            .args(["--date-from", date, "really"])
            .output()
            .unwrap()
    };
    let totals = |o: &Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (v["total_videos"].clone(), v["total_hits"].clone())
    };
    let (iso, compact) = (run("2023-06-01"), run("20230601"));
    assert!(iso.status.success(), "{}", stderr(&iso));
    assert_eq!(totals(&iso), totals(&compact));
    let bad = run("2023-13-01");
    assert_eq!(bad.status.code(), Some(2), "a usage error");
    assert!(
        stderr(&bad).contains(
            "invalid value '2023-13-01' for '--date-from <DATE_FROM>': \"2023-13-01\" is not a date: there is no month 13 (use 01 to 12)"
        ),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_day_the_calendar_lacks_and_an_inverted_range_are_usage_errors() {
    let alpha = alpha();
    let run = |dates: &[&str]| {
        bin()
            .args(["search", "--no-index", "--local", alpha.to_str().unwrap()])
            .args(dates)
            .arg("really")
            .output()
            .unwrap()
    };
    for (day, why) in [
        ("2015-02-31", "February 2015 has 28 days"),
        ("2015-02-30", "February 2015 has 28 days"),
        ("20150431", "April 2015 has 30 days"),
    ] {
        let o = run(&["--date-from", day]);
        assert_eq!(o.status.code(), Some(2), "{day}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("\"{day}\" is not a date: {why}")),
            "{}",
            stderr(&o)
        );
    }
    let o = run(&["--date-from", "2020-01-01", "--date-to", "2015-01-01"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the date range is inverted: --date-from 2020-01-01 is after --date-to 2015-01-01, so no day is in it; swap the two"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty(), "nothing is searched");
}

/// `archilyzer-index search` with `args` on the alpha archive, as JSON.
fn search_json(args: &[&str]) -> serde_json::Value {
    let alpha = alpha();
    let o = bin()
        .args(["search", "--no-index", "--json", "--local"])
        .arg(&alpha)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_command_line_folds_and_counts_mirrors_as_the_server_does() {
    let alpha = alpha();
    // The server's model, made independently from the whole result: one
    // row per recording (collapse), counted by Counts.
    let archive = common::open_local(&alpha);
    let r = search(
        &archive,
        None,
        &Request {
            query: "k cups".into(),
            use_aliases: true,
            ..Request::default()
        },
    )
    .unwrap();
    let uploads = r.videos.len();
    let folded = archilyzer_core::collapse::collapse(&archive, r.videos);
    assert!(
        folded.mirrors > 1,
        "the test archive has mirrors among these"
    );
    let counts = archilyzer_core::collapse::Counts::of(&folded.rows, |v| v.hits.len());
    let json = search_json(&["k cups"]);
    assert_eq!(json["total_videos"], counts.total, "{json}");
    assert_eq!(json["total_hits"], counts.total_hits);
    assert_eq!(json["exact"]["videos"], counts.exact.videos);
    assert_eq!(json["exact"]["hits"], counts.exact.hits);
    let listed = |j: &serde_json::Value| {
        let mut names: Vec<String> = j["videos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                format!(
                    "{}/{}",
                    v["channel"].as_str().unwrap(),
                    v["slug"].as_str().unwrap()
                )
            })
            .collect();
        names.sort();
        names
    };
    let mut rows: Vec<String> = folded
        .rows
        .iter()
        .map(|r| format!("{}/{}", r.video.channel, r.video.slug))
        .collect();
    rows.sort();
    assert_eq!(
        listed(&json),
        rows,
        "the same upload is kept for each recording"
    );
    let all = search_json(&["k cups", "--keep-mirrors"]);
    assert_eq!(
        all["total_videos"], uploads,
        "--keep-mirrors counts every upload"
    );
    assert_eq!(listed(&all).len(), uploads);

    let o = bin()
        .args(["search", "--no-index", "--limit", "1", "--local"])
        .arg(&alpha)
        .arg("k cups")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let note = archilyzer_core::collapse::note(
        folded.mirrors,
        folded.clusters,
        folded.rows.len(),
        "--keep-mirrors",
    )
    .unwrap();
    assert!(text.contains(&note), "{text}");
    assert!(text.contains(&counts.headline("the query")), "{text}");
    for row in folded.rows.iter().filter(|r| !r.also.is_empty()) {
        let line = format!(
            "{}/{} also archived as {}",
            row.video.channel,
            row.video.slug,
            row.also.join(", ")
        );
        assert!(
            text.contains(&line),
            "nothing folded is hidden: {line}\n{text}"
        );
    }
}

#[test]
fn a_share_link_of_a_local_archive_without_a_url_names_its_folder_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap().join("archive");
    common::copy_dir(&alpha(), &dir);
    let corpus = dir.join("corpus.json");
    let mut value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&corpus).unwrap()).unwrap();
    value["site"].as_object_mut().unwrap().remove("url");
    std::fs::write(&corpus, serde_json::to_vec(&value).unwrap()).unwrap();
    let o = bin()
        .args([
            "search",
            "--no-index",
            "--limit",
            "1",
            "--share-link",
            "--local",
        ])
        .arg(&dir)
        .arg("really")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!("share link: file://{}/?qt=", dir.display())),
        "{text}"
    );
    assert!(text.contains("this link names a folder on this machine (the archive declares no site.url): archilyzer-mcp opens it here (open_link), nowhere else; pass --origin URL for a link to the published site"), "{text}");
}

#[test]
fn a_search_of_a_cited_only_site_says_it_publishes_reports_only() {
    let cited = alpha().with_file_name("cited");
    let o = bin()
        .args([
            "search",
            "--no-index",
            "--local",
            cited.to_str().unwrap(),
            "the",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("site alphalyzer-cited publishes reports only (cited-only): it has no transcripts, chat or posts to search; read its reports with list_reports and get_report"),
        "{text}"
    );
}

#[test]
fn duration_flags_come_from_the_filter_table_and_refuse_what_is_no_length() {
    let alpha = alpha();
    let run = |flags: &[&str]| {
        bin()
            .args([
                "search",
                "--no-index",
                "--json",
                "--local",
                alpha.to_str().unwrap(),
            ])
            .args(flags)
            .arg("really")
            .output()
            .unwrap()
    };
    let total = |o: &Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["total_videos"].as_u64().unwrap()
    };
    let all = run(&[]);
    let long = run(&["--min-duration", "20:00"]);
    let short = run(&["--max-duration", "1199.999"]);
    assert!(long.status.success(), "{}", stderr(&long));
    assert!(0 < total(&long) && total(&long) < total(&all));
    assert_eq!(
        total(&long) + total(&short),
        total(&all),
        "every video has a length"
    );
    let bad = run(&["--min-duration", "ten minutes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("invalid value 'ten minutes' for '--min-duration <MIN_DURATION>': \"ten minutes\" is not a length: give seconds (90), m:ss (1:30) or h:mm:ss (1:01:30), never below 0"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_search_of_a_raw_download_says_to_import_it_with_the_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dl = tmp.path().join("downloads");
    std::fs::create_dir_all(dl.join("Some Channel")).unwrap();
    std::fs::write(dl.join("Some Channel/abc.info.json"), "{}").unwrap();
    std::fs::write(dl.join("Some Channel/abc.en.vtt"), "WEBVTT\n").unwrap();
    let o = bin()
        .args(["search", "--local", dl.to_str().unwrap(), "hello"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let d = dl.display();
    assert!(
        stderr(&o).contains(&format!(
            "no archive at {d}: it holds 1 caption file(s) and 1 yt-dlp info JSON file(s) and no corpus.json: a download, not an archive yet. Make an archive of it, then search that: archilyzer-index import --from {d} --out {d}-archive --build"
        )),
        "{}",
        stderr(&o)
    );
}

#[test]
fn without_an_index_terms_says_which_folder_it_looked_in_and_to_build_or_name_one() {
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("index");
    let a = alpha();
    let o = bin()
        .args(["terms", "--local", a.to_str().unwrap(), "--index"])
        .arg(&index)
        .arg("cups")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).trim_end(),
        format!(
            "error: similar terms come from the index's vocabulary, and there is none to read: no index at {}: run `archilyzer-index build`, or pass --index DIR if it was built elsewhere",
            index.display()
        )
    );
}

#[test]
fn a_channel_that_matches_none_is_refused_naming_the_nearest_channels() {
    let a = alpha();
    let search_channel = |channel: &str| {
        let o = bin()
            .args(["search", "--no-index", "--local", a.to_str().unwrap()])
            .args(["--channel", channel, "cups"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "a usage error, as a bad date is");
        assert!(o.stdout.is_empty(), "nothing is answered");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let out = search_channel("late-night-lve");
    assert!(
        out.starts_with(
            "error: channel \"late-night-lve\" matches no channel of this archive; did you mean \"late-night-live\"? (corpus: "
        ),
        "{out}"
    );
    let out = search_channel("harmontown");
    assert!(
        out.starts_with("error: channel \"harmontown\" matches no channel of this archive; it has daily-dispatch, dispatch-rumble, late-night-live, odysee-archive, stream-vault (corpus: "),
        "{out}"
    );
}

#[test]
fn a_reader_that_stops_early_ends_the_search_quietly() {
    use std::io::{BufRead, BufReader};
    let a = alpha();
    for args in [
        vec!["search", "the", "--no-index"],
        vec!["trend", "the", "--no-index", "--by", "month"],
        vec!["stats"],
    ] {
        let mut child = bin()
            .args(&args)
            .args(["--local", a.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Read one line, then go away, as `| head -1` does.
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
        assert!(
            out.status.success() || out.status.code().is_none(),
            "{args:?}: {:?}",
            out.status
        );
    }
}

#[test]
fn the_command_line_speaks_in_flags_takes_ids_beginning_with_a_dash_and_refuses_a_zero_limit() {
    let alpha = common::testdata_archive().join("alpha");
    // What `archilyzer-index COMMAND --no-index --local alpha ARGS…` says
    // on stderr, after asserting it exits 2 (a usage error).
    let refused = |command: &str, args: &[&str]| {
        let o = bin()
            .args([command, "--no-index", "--local", alpha.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        stderr(&o)
    };
    let said = refused("search", &["--limit", "0", "really"]);
    assert!(
        said.contains(
            "invalid value '0' for '--limit <LIMIT>': 0 asks for nothing: give 1 or more"
        ),
        "{said}"
    );
    let said = refused("related", &["--video", "-xQ7pL2vRk9"]);
    assert!(
        said.contains("no video \"-xQ7pL2vRk9\" in this archive"),
        "an id beginning with - is the id, not a flag: {said}"
    );
    let said = refused("related", &["--video", "rtohlvpue9m"]);
    assert!(
        said.contains("did you mean \"RTOHlVpUe9M\"?"),
        "the nearest id, whatever its case: {said}"
    );
    let said = refused("search", &["--scope", "captions", "really"]);
    assert!(
        said.contains("--scope \"captions\" is not a scope; did you mean \"transcripts\"?"),
        "{said}"
    );
    assert!(!said.contains("scopes"), "no tool argument named: {said}");
}
