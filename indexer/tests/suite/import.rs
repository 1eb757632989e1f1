//! `archilyzer-index import` and `stats`, run as the real binary.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use archilyzer_core::format::{CaptionSource, MediaType, Platform, State};
use archilyzer_core::query::{search, FilterArgs, Request};
use common::open_local;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_archilyzer-index"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run archilyzer-index")
}

#[test]
fn twiml_imports_all_537_files_and_285764_cues() {
    let Some(twiml) = common::corpus("twiml/vtt", "twiml_imports_all_537_files_and_285764_cues")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("twiml");
    let o = run(&[
        "import",
        "--from",
        twiml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--channel",
        "twiml",
        "--channel-name",
        "TWIML AI Podcast",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("imported 537 videos, 285764 cues, 0 chat messages, 1 channel"));
    let o = run(&["stats", "--local", out.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(stats["total"]["videos"], 537);
    assert_eq!(stats["total"]["cues"], 285_764);
    assert_eq!(stats["channels"][0]["channel"], "twiml");

    let archive = open_local(&out);
    let site = &archive.sites()[0];
    assert_eq!(site.corpus().channels[0].name, "TWIML AI Podcast");
    let first = &site.transcript_page("twiml", 1).unwrap().videos[0];
    assert_eq!(
        first.slug, "twiml-1",
        "ordered by the episode number in the file name"
    );
    let m = site.transcript_manifest("twiml").unwrap();
    let p = m.slug_to_page["twiml-100"];
    let ep = site
        .transcript_page("twiml", p)
        .unwrap()
        .videos
        .iter()
        .find(|v| v.slug == "twiml-100")
        .cloned()
        .unwrap();
    assert_eq!(
        ep.title,
        "Eric Humphrey Interview - Separating Vocals in Recorded Music at Spotify with Eric Humphrey"
    );
    assert_eq!(ep.cues[0].text, "Hello and welcome to another episode of Twimble Talk, the podcast where I interview interesting");
    assert_eq!((ep.cues[0].start, ep.cues[0].end), (0.0, 15.92));
}

const ROLLING_VTT: &str = "WEBVTT\nKind: captions\nLanguage: en\n\n\
00:00:00.000 --> 00:00:02.000 align:start position:0%\n \nhola<00:00:00.500><c> amigos</c>\n\n\
00:00:02.000 --> 00:00:02.010 align:start position:0%\nhola amigos\n \n\n\
00:00:02.010 --> 00:00:04.000 align:start position:0%\nhola amigos\nque<00:00:02.500><c> tal</c>\n";

fn write(dir: &Path, name: &str, body: &str) {
    std::fs::write(dir.join(name), body).unwrap();
}

/// A yt-dlp folder: a video whose id starts with `-`, with an
/// auto-translation beside its original-language track; a video with the
/// uploader's captions in two formats; a bare SRT; and a broken file.
fn ytdlp_folder(dir: &Path) {
    write(
        dir,
        "-dQw4w9WgXc.info.json",
        r#"{"id":"-dQw4w9WgXc","title":"Hola","upload_date":"20210304","duration":5.0,"description":"d",
            "tags":["a","b"],"webpage_url":"https://www.youtube.com/watch?v=-dQw4w9WgXc","live_status":"was_live",
            "age_limit":18,"channel":"Canal Uno","channel_id":"UC123","uploader_id":"@CanalUno","extractor_key":"Youtube","availability":"unlisted",
            "automatic_captions":{"en":[],"es-orig":[]},"subtitles":{}}"#,
    );
    write(
        dir,
        "-dQw4w9WgXc.en.vtt",
        "WEBVTT\n\n00:00.000 --> 00:02.000\nhello friends\n",
    );
    write(dir, "-dQw4w9WgXc.es-orig.vtt", ROLLING_VTT);
    write(
        dir,
        "v4abcde.info.json",
        r#"{"id":"v4abcde","title":"Rumble one","upload_date":"20220101","channel":"Canal Uno","channel_id":"UC123",
            "extractor_key":"RumbleEmbed","webpage_url":"https://rumble.com/v9zzzz-rumble-one.html","subtitles":{"en":[]}}"#,
    );
    write(
        dir,
        "v4abcde.en.json3",
        r#"{"events":[{"tStartMs":1000,"dDurationMs":1500,"segs":[{"utf8":"from json3"}]}]}"#,
    );
    write(
        dir,
        "v4abcde.en.srt",
        "1\n00:00:01,000 --> 00:00:02,500\nfrom srt\n",
    );
    write(
        dir,
        "7_A_Bare_Talk.mp3.srt",
        "1\n00:00:01,000 --> 00:00:02,000\nbare words\n",
    );
    write(
        dir,
        "broken.vtt",
        "WEBVTT\n\n00:00.000 --> 00:xx.000\noops\n",
    );
}

#[test]
fn a_ytdlp_folder_imports_with_metadata_and_the_original_language_track() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    ytdlp_folder(&from);
    let out = tmp.path().join("out");
    let o = run(&[
        "import",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a failed file makes the exit non-zero: {stderr}"
    );
    assert!(
        stderr.contains(
            "broken.vtt: cannot parse as vtt: no readable cue (line 3: unreadable end time"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("1 file could not be imported"), "{stderr}");
    assert!(
        stderr.contains("-dQw4w9WgXc: chose -dQw4w9WgXc.es-orig.vtt (automatic captions in the spoken language) over -dQw4w9WgXc.en.vtt"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "v4abcde: chose v4abcde.en.json3 (the uploader's captions in the wanted language)"
        ),
        "{stderr}"
    );

    let archive = open_local(&out);
    let site = &archive.sites()[0];
    let slugs: Vec<&str> = site
        .corpus()
        .channels
        .iter()
        .map(|c| c.slug.as_str())
        .collect();
    assert_eq!(
        slugs,
        ["canaluno", "imported"],
        "a channel is named by its @handle, also for its video whose info JSON lacks it"
    );
    assert_eq!(
        (
            site.corpus().site.id.as_str(),
            site.corpus().site.title.as_str()
        ),
        ("out", "out"),
        "a site of two channels is named after the --out folder, not the first channel"
    );
    let videos = site.transcript_page("canaluno", 1).unwrap().videos.clone();
    let hola = videos.iter().find(|v| v.slug == "-dQw4w9WgXc").unwrap();
    let texts: Vec<&str> = hola.cues.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        ["hola amigos", "que tal"],
        "rolling captions folded, each line once"
    );
    assert_eq!(
        (hola.upload_date.as_deref(), hola.media_type, hola.state),
        (Some("20210304"), MediaType::Livestream, State::Unlisted)
    );
    assert_eq!(
        (hola.age, hola.lang.as_deref(), hola.caption_source),
        (
            archilyzer_core::format::Age::Restricted,
            Some("es"),
            Some(CaptionSource::Auto)
        )
    );
    let rumble = videos.iter().find(|v| v.slug == "v4abcde").unwrap();
    assert_eq!(
        (rumble.platform, rumble.caption_source),
        (Some(Platform::Rumble), Some(CaptionSource::Manual))
    );
    assert_eq!(rumble.cues[0].text, "from json3");
    let bare = &site.transcript_page("imported", 1).unwrap().videos[0];
    assert_eq!(
        (bare.slug.as_str(), bare.title.as_str()),
        ("imported-7", "A Bare Talk")
    );
    let summaries = site.summaries().unwrap().unwrap();
    assert_eq!(summaries.videos.len(), 3);
}

/// `files` SRT files of `cues` cues each, a large input made on the spot;
/// returns `files`.
fn many_caption_files(dir: &Path, files: usize, cues: usize) -> usize {
    std::fs::create_dir_all(dir).unwrap();
    for f in 1..=files {
        let body: String = (0..cues)
            .map(|c| {
                format!(
                    "{}\n00:{:02}:{:02},000 --> 00:{:02}:{:02},500\nline {c} of talk {f} about models and data\n\n",
                    c + 1,
                    c / 60 % 60,
                    c % 60,
                    c / 60 % 60,
                    c % 60
                )
            })
            .collect();
        write(dir, &format!("{f}_Talk_{f}.srt"), &body);
    }
    files
}

#[test]
fn an_interrupted_import_leaves_the_previous_archive_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    write(
        &from,
        "1_Old.srt",
        "1\n00:00:01,000 --> 00:00:02,000\nold words\n",
    );
    let out = tmp.path().join("out");
    assert!(run(&[
        "import",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap()
    ])
    .status
    .success());

    let big = tmp.path().join("big");
    let files = many_caption_files(&big, 400, 300);
    let mut child = bin()
        .args([
            "import",
            "--from",
            big.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--page-bytes",
            "200KB",
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    child.kill().unwrap();
    child.wait().unwrap();
    let archive = open_local(&out);
    let site = &archive.sites()[0];
    let channel = &site.corpus().channels[0];
    let manifest = site.transcript_manifest(&channel.slug).unwrap();
    let videos: usize = (1..=manifest.pages.len() as u32)
        .map(|n| site.transcript_page(&channel.slug, n).unwrap().videos.len())
        .sum();
    assert!(
        videos == 1 || videos == files,
        "the old archive or the whole new one, never a part: {videos}"
    );
}

#[test]
fn an_empty_or_missing_folder_is_refused_with_what_to_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = run(&[
        "import",
        "--from",
        "/nonexistent/dir",
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("/nonexistent/dir is not a folder: pass --from the folder"));
    let o = run(&[
        "import",
        "--from",
        empty.to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing to import from"));
    assert!(!tmp.path().join("o").exists());
}

#[test]
fn transcript_tool_results_join_the_archive_with_their_provenance() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("pulled");
    std::fs::create_dir_all(&from).unwrap();
    let captions = serde_json::json!({
        "url": "https://www.youtube.com/watch?v=-abc123XYZ_", "platform": "youtube", "title": "A talk",
        "channel": "Some Channel", "duration_s": 30.0, "upload_date": "20261101", "caption_source": "auto",
        "lang": "en", "n_segments": 2, "chars": 10, "text": "…",
        "segments": [{"t": 1.5, "text": "hello"}, {"t": 12.0, "text": "world"}]
    });
    let asr = serde_json::json!({
        "url": "https://www.tiktok.com/@someone/video/7301234567890123456", "platform": "tiktok", "title": "Clip",
        "channel": "someone", "duration_s": null, "upload_date": null, "caption_source": "asr", "lang": "es",
        "segments": [{"t": 0.0, "text": "hola"}],
        "asr": {"model": "small", "language": "es", "mean_logprob": -1.4, "confident": false}
    });
    let broken = serde_json::json!({"url": "https://a.example/x", "caption_source": "auto", "segments": [{"text": "no time"}]});
    write(&from, "talk.json", &captions.to_string());
    write(&from, "clip.json", &asr.to_string());
    write(&from, "broken.json", &broken.to_string());
    let out = tmp.path().join("archive");
    let o = run(&[
        "import",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "one file failed: {stderr}");
    assert!(
        stderr.contains("broken.json: segment 0 has no time t (it is not stamped at 0:00)"),
        "{stderr}"
    );
    assert!(stderr.contains("and 3 transcript result(s)"), "{stderr}");
    let archive = open_local(&out);
    let site = &archive.sites()[0];
    let talk = &site.transcript_page("some-channel", 1).unwrap().videos[0];
    assert_eq!(
        (talk.slug.as_str(), talk.caption_source, talk.platform),
        (
            "-abc123XYZ_",
            Some(CaptionSource::Auto),
            Some(Platform::Youtube)
        )
    );
    let times: Vec<(f64, f64)> = talk.cues.iter().map(|c| (c.start, c.end)).collect();
    assert_eq!(times, vec![(1.5, 12.0), (12.0, 30.0)]);
    let clip = &site.transcript_page("someone", 1).unwrap().videos[0];
    assert_eq!(
        (
            clip.slug.as_str(),
            clip.caption_source,
            clip.lang.as_deref()
        ),
        ("7301234567890123456", Some(CaptionSource::Asr), Some("es"))
    );
    assert!(
        clip.description.contains("NOT CONFIDENT, not evidence"),
        "{}",
        clip.description
    );
}

/// An archive imported into `tmp/archive` from bare captions (no info
/// JSON, so undated) of channel `c`: each `(id, words)` one cue.
fn imported_captions(tmp: &Path, captions: &[(&str, &str)]) -> std::path::PathBuf {
    let from = tmp.join("captions");
    std::fs::create_dir(&from).unwrap();
    for (id, words) in captions {
        write(
            &from,
            &format!("{id}.en.vtt"),
            &format!("WEBVTT\n\n00:01.000 --> 00:02.000\n{words}\n"),
        );
    }
    let out = tmp.join("archive");
    let r = run(&[
        "import",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--channel",
        "c",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    out
}

#[test]
fn a_re_import_says_which_videos_are_new_and_which_are_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let out = imported_captions(
        tmp.path(),
        &[
            ("aaaaaaaaaaa", "first words"),
            ("bbbbbbbbbbb", "second words"),
        ],
    );
    let from = tmp.path().join("captions");
    std::fs::remove_file(from.join("bbbbbbbbbbb.en.vtt")).unwrap();
    for id in ["ccccccccccc", "ddddddddddd"] {
        write(
            &from,
            &format!("{id}.en.vtt"),
            "WEBVTT\n\n00:01.000 --> 00:02.000\nnew words\n",
        );
    }
    let r = run(&[
        "import",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--channel",
        "c",
    ]);
    let said = String::from_utf8_lossy(&r.stderr);
    assert!(
        said.contains("against the archive it replaces: 2 videos new (c/ccccccccccc, c/ddddddddddd), 1 gone (c/bbbbbbbbbbb), 1 as before"),
        "{said}"
    );
}

#[test]
fn an_index_target_that_may_not_be_written_refuses_the_import_before_it_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = imported_captions(tmp.path(), &[("aaaaaaaaaaa", "first words")]);
    let from = tmp.path().join("captions");
    write(
        &from,
        "bbbbbbbbbbb.en.vtt",
        "WEBVTT\n\n00:01.000 --> 00:02.000\nnew words\n",
    );
    let before = std::fs::read(out.join("summaries/index.json")).unwrap();
    for index in [from.clone(), out.clone(), tmp.path().to_path_buf()] {
        let r = bin()
            .current_dir(tmp.path())
            .args([
                "import",
                "--from",
                from.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .args([
                "--channel",
                "c",
                "--build",
                "--index",
                index.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success(), "{index:?}: {said}");
        assert!(
            said.contains("--index"),
            "the refusal names the flag: {said}"
        );
        assert!(
            !said.contains("imported "),
            "nothing was imported first: {said}"
        );
        assert_eq!(
            std::fs::read(out.join("summaries/index.json")).unwrap(),
            before,
            "{index:?}"
        );
    }
}

#[test]
fn caption_folders_without_info_json_keep_their_channels_and_their_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("downloads");
    let cue = "WEBVTT\n\n00:01.000 --> 00:02.000\nsome words\n";
    for (folder, file) in [
        ("SomeChannel", "0x0awirH-ju.en.vtt"),
        ("SomeChannel", "dQw4w9WgXcQ.en.vtt"),
        ("Other_Channel", "aB3_dE4-fG5.en.vtt"),
    ] {
        let dir = from.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        write(&dir, file, cue);
    }
    // Free text directly in the folder keeps working as before.
    write(
        &from,
        "talk about cats.en.srt",
        "1\n00:00:01,000 --> 00:00:02,000\ncats\n",
    );
    let out = tmp.path().join("archive");
    let r = run(&[
        "import",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{said}");
    assert!(
        said.contains("4 caption file(s) without an info JSON: 2 channels from folders; 3 id(s) from file names, 1 title(s) from free text; no info JSON, so no dates or links"),
        "the import says how it read the layout: {said}"
    );
    let archive = open_local(&out);
    let corpus = archive.sites()[0].corpus();
    let channels: Vec<(&str, &str)> = corpus
        .channels
        .iter()
        .map(|c| (c.slug.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(
        channels,
        [
            ("imported", "imported"),
            ("other-channel", "Other_Channel"),
            ("somechannel", "SomeChannel")
        ]
    );
    let summaries = archive.sites()[0].summaries().unwrap().unwrap();
    let mut ids: Vec<(&str, &str)> = summaries
        .videos
        .iter()
        .map(|v| (v.channel.as_str(), v.slug.as_str()))
        .collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            ("imported", "talk-about-cats"),
            ("other-channel", "aB3_dE4-fG5"),
            ("somechannel", "0x0awirH-ju"),
            ("somechannel", "dQw4w9WgXcQ"),
        ],
        "ids exactly as the files name them: YouTube ids are case-sensitive"
    );
}

#[test]
fn a_trend_names_its_undated_matches_and_counts_each_query_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let out = imported_captions(
        tmp.path(),
        &[
            ("aaaaaaaaaaa", "transformers and attention"),
            ("bbbbbbbbbbb", "a transformer here, a transformer there"),
            ("ccccccccccc", "only attention"),
        ],
    );
    let archive = open_local(&out);
    let requests: Vec<Request> = ["transformer*", "attention"]
        .iter()
        .map(|q| Request {
            query: q.to_string(),
            ..Request::default()
        })
        .collect();
    let ask = archilyzer_core::trend::Ask {
        requests: &requests,
        by: archilyzer_core::trend::By::Year,
        collapse_mirrors: true,
    };
    let t = archilyzer_core::trend::trend(&archive, None, &ask, &mut |_, _| {}, &mut |_, _| {})
        .unwrap();
    let undated = &t.undated;
    assert_eq!(
        undated.distinct_videos, 3,
        "a video both queries match counts once in the union"
    );
    let cell = |q: &str| &undated.by_query[q];
    assert_eq!(
        (cell("transformer*").videos, cell("transformer*").hits),
        (2, 2)
    );
    assert_eq!((cell("attention").videos, cell("attention").hits), (2, 2));
    let listed: Vec<&str> = cell("transformer*")
        .listed
        .iter()
        .map(|t| t.id.as_str())
        .collect();
    assert_eq!(
        listed,
        ["aaaaaaaaaaa", "bbbbbbbbbbb"],
        "every undated match is named"
    );
    let cli = run(&[
        "trend",
        "transformer*",
        "attention",
        "--local",
        out.to_str().unwrap(),
        "--no-index",
    ]);
    let text = String::from_utf8_lossy(&cli.stdout);
    assert!(
        text.contains("undated matches of \"attention\":\n  ")
            && text.contains("(c/ccccccccccc, 1 hit(s))"),
        "{text}"
    );
}

#[test]
fn a_date_filter_counts_the_undated_matches_it_leaves_out() {
    let tmp = tempfile::tempdir().unwrap();
    let out = imported_captions(
        tmp.path(),
        &[
            ("aaaaaaaaaaa", "transformers everywhere"),
            ("bbbbbbbbbbb", "a transformer here"),
        ],
    );
    let archive = open_local(&out);
    let ask = |include_undated: bool| Request {
        query: "transformer*".into(),
        filters: FilterArgs {
            date_to: Some("20991231".into()),
            include_undated,
            ..FilterArgs::default()
        },
        ..Request::default()
    };
    let left_out = search(&archive, None, &ask(false)).unwrap();
    assert_eq!((left_out.total_videos, left_out.undated_left_out), (0, 2));
    assert!(left_out.notes.contains(&"2 matching video(s) had no upload date and were left out by the date filter: pass include_undated: true (command line: --include-undated) to list them too".to_string()), "{:?}", left_out.notes);
    let included = search(&archive, None, &ask(true)).unwrap();
    assert_eq!((included.total_videos, included.undated_left_out), (2, 0));
    let cli = run(&[
        "search",
        "transformer*",
        "--local",
        out.to_str().unwrap(),
        "--date-to",
        "20991231",
    ]);
    let text = String::from_utf8_lossy(&cli.stdout);
    assert!(
        text.contains("2 matching video(s) had no upload date"),
        "{text}"
    );
}

/// One line of yt-dlp's live chat replay, in the shape yt-dlp writes it.
fn chat_line(offset_ms: i64, author: &str, runs: &str) -> String {
    format!(
        r#"{{"replayChatItemAction": {{"actions": [{{"addChatItemAction": {{"item": {{"liveChatTextMessageRenderer": {{"message": {{"runs": {runs}}}, "authorName": {{"simpleText": "{author}"}}, "timestampUsec": "1700000000000000", "id": "x{offset_ms}"}}}}, "clientId": "c"}}}}], "videoOffsetTimeMsec": "{offset_ms}"}}, "isLive": true}}"#
    )
}

fn info(id: &str, channel: &str, extra: &str) -> String {
    format!(
        r#"{{"id":"{id}","title":"Title {id}","upload_date":"20240101","channel":"{channel}","channel_id":"UC{channel}","uploader_id":"@{channel}","extractor_key":"Youtube","webpage_url":"https://www.youtube.com/watch?v={id}"{extra}}}"#
    )
}

#[test]
fn a_channel_download_imports_every_layout_with_its_chat_and_loses_only_bad_cues() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("downloads");
    let alpha = from.join("Alpha");
    let playlist = from.join("Beta/Playlists/Best of");
    for d in [&alpha, &playlist] {
        std::fs::create_dir_all(d).unwrap();
    }
    // Alpha: ids that prefix one another, an id starting with `-`, a
    // video without captions, a live stream with its chat, and a caption
    // file with one bad timing line among good ones.
    write(&alpha, "abc.info.json", &info("abc", "alpha", ""));
    write(
        &alpha,
        "abc.en.vtt",
        "WEBVTT\n\n00:00.000 --> 00:01.000\nshort id\n",
    );
    write(&alpha, "abc.def.info.json", &info("abc.def", "alpha", ""));
    write(
        &alpha,
        "abc.def.en.vtt",
        "WEBVTT\n\n00:00.000 --> 00:01.000\nlong id\n",
    );
    write(
        &alpha,
        "-dash.info.json",
        &info("-dash", "alpha", r#","availability":"private""#),
    );
    write(
        &alpha,
        "-dash.en.vtt",
        "WEBVTT\n\n00:01.000 --> 00:02.000\nbefore the slip\n\n00:40:56.546 --> 00:40:60.000\nlost line\n\n00:03.000 --> 00:04.000\nafter the slip\n",
    );
    write(
        &alpha,
        "nocaps.info.json",
        &info("nocaps", "alpha", r#","availability":"unlisted""#),
    );
    write(
        &alpha,
        "live1.info.json",
        &info("live1", "alpha", r#","live_status":"was_live""#),
    );
    write(
        &alpha,
        "live1.en.vtt",
        "WEBVTT\n\n00:00.000 --> 00:05.000\nwelcome to the stream\n",
    );
    let chat = [
        chat_line(-4000, "Early Bird", r#"[{"text": "first!"}]"#),
        chat_line(
            12_500,
            "Viewer One",
            r#"[{"text": "hello "}, {"emoji": {"shortcuts": [":wave:"]}}]"#,
        ),
        "not json at all".to_string(),
        chat_line(3_000, "Viewer Two", r#"[{"text": "torlyan question"}]"#),
        r#"{"replayChatItemAction": {"actions": 5, "videoOffsetTimeMsec": "100"}}"#.to_string(),
    ];
    write(&alpha, "live1.live_chat.json", &chat.join("\n"));
    write(
        &alpha,
        "ghost.live_chat.json",
        &chat_line(1000, "Nobody", r#"[{"text": "hi"}]"#),
    );
    // Beta, in a nested playlist folder, and the same Alpha video again.
    write(&playlist, "b1.info.json", &info("b1", "beta", ""));
    write(
        &playlist,
        "b1.en.srt",
        "1\r\n00:00:01,000 --> 00:00:02,000\r\nbeta speaks\r\n",
    );
    write(&playlist, "abc.info.json", &info("abc", "alpha", ""));
    write(
        &playlist,
        "abc.en.vtt",
        "WEBVTT\n\n00:00.000 --> 00:01.000\nshort id\n",
    );

    let out = tmp.path().join("archive");
    let o = run(&[
        "import",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(3),
        "only cues were skipped: exit 3\n{stderr}"
    );
    for expected in [
        "imported 6 videos, 6 cues, 2 chat messages, 2 channels",
        "-dash.en.vtt:6: unreadable end time in timing line \"00:40:56.546 --> 00:40:60.000\"; this cue was skipped",
        "skipped chat line ",
        "live1.live_chat.json:3: not a JSON line\n",
        "live1.live_chat.json:5: not a chat replay line as yt-dlp writes it (invalid type: integer `5`, expected a sequence",
        "live1.live_chat.json: 1 message(s) sent before the stream started",
        "ghost.live_chat.json: a live chat with no info JSON beside it",
        "Playlists/Best of/abc.info.json: the same video (abc) as",
        "1 video listed with metadata only",
        "1 cue skipped for a timing that cannot be read",
        "2 chat lines skipped as unreadable (named above)",
    ] {
        assert!(stderr.contains(expected), "missing {expected:?} in\n{stderr}");
    }

    let archive = open_local(&out);
    let site = &archive.sites()[0];
    let videos = site.transcript_page("alpha", 1).unwrap().videos.clone();
    let text_of = |slug: &str| -> Vec<String> {
        videos
            .iter()
            .find(|v| v.slug == slug)
            .unwrap_or_else(|| panic!("{slug} imported"))
            .cues
            .iter()
            .map(|c| c.text.clone())
            .collect()
    };
    assert_eq!(text_of("abc"), ["short id"]);
    assert_eq!(
        text_of("abc.def"),
        ["long id"],
        "the longest id owns its files"
    );
    assert_eq!(text_of("-dash"), ["before the slip", "after the slip"]);
    assert!(text_of("nocaps").is_empty());
    let nocaps = videos.iter().find(|v| v.slug == "nocaps").unwrap();
    assert_eq!(
        nocaps.state,
        State::Unlisted,
        "a video with no captions keeps its state"
    );
    let chat = site.chat_page("alpha", 1).unwrap();
    let messages: Vec<(f64, &str, &str)> = chat.videos[0]
        .messages
        .iter()
        .map(|m| (m.t, m.author.as_str(), m.text.as_str()))
        .collect();
    assert_eq!(
        messages,
        [
            (3.0, "Viewer Two", "torlyan question"),
            (12.5, "Viewer One", "hello :wave:")
        ]
    );
    let found = search(
        &archive,
        None,
        &Request {
            query: "torlyan".into(),
            scopes: vec!["chat".into()],
            ..Request::default()
        },
    )
    .unwrap();
    assert_eq!(
        found.total_videos, 1,
        "scopes: [chat] reaches imported chat"
    );
    assert_eq!(
        found.videos[0].hits[0].author.as_deref(),
        Some("Viewer Two")
    );
    let beta = site.transcript_page("beta", 1).unwrap();
    assert_eq!(beta.videos[0].cues[0].text, "beta speaks");
}

/// yt-dlp folders for each caption case: a Spanish video with its original
/// automatic track and the automatic English translation; a Spanish video
/// with only the translation; an English video with the uploader's track
/// beside the automatic one.
fn caption_cases(dir: &Path) {
    let info = |id: &str, language: &str, subtitles: &str| {
        format!(
            r#"{{"id":"{id}","title":"{id}","upload_date":"20240102","channel":"Canal","channel_id":"UC9",
               "extractor_key":"Youtube","webpage_url":"https://www.youtube.com/watch?v={id}",
               "language":"{language}","subtitles":{subtitles}}}"#
        )
    };
    let vtt = |words: &str| format!("WEBVTT\n\n00:00.000 --> 00:02.000\n{words}\n");
    write(dir, "spanishone.info.json", &info("spanishone", "es", "{}"));
    write(dir, "spanishone.en.vtt", &vtt("hello friends"));
    write(dir, "spanishone.es.vtt", &vtt("hola amigos"));
    write(dir, "onlytransl.info.json", &info("onlytransl", "es", "{}"));
    write(dir, "onlytransl.en.vtt", &vtt("good morning"));
    write(
        dir,
        "englishone.info.json",
        &info("englishone", "en", r#"{"en":[]}"#),
    );
    write(dir, "englishone.en.vtt", &vtt("written by the uploader"));
    write(dir, "englishone.en-orig.vtt", &vtt("heard by the machine"));
}

fn import_cases(extra: &[&str]) -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    caption_cases(&from);
    let out = tmp.path().join("out");
    let o = bin()
        .args(["import", "--from", from.to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{stderr}");
    (tmp, stderr)
}

fn video(out: &Path, slug: &str) -> archilyzer_core::format::VideoRecord {
    let archive = open_local(out);
    let site = &archive.sites()[0];
    let channel = &site.corpus().channels[0].slug;
    site.transcript_page(channel, 1)
        .unwrap()
        .videos
        .iter()
        .find(|v| v.slug == slug)
        .cloned()
        .unwrap()
}

#[test]
fn import_takes_the_spoken_language_and_never_a_machine_translation_unasked() {
    let (tmp, stderr) = import_cases(&[]);
    let out = tmp.path().join("out");
    assert!(
        stderr.contains("spanishone: chose spanishone.es.vtt (automatic captions in the spoken language) over spanishone.en.vtt (a machine translation)"),
        "yt-dlp's language field names the original: {stderr}"
    );
    let spanish = video(&out, "spanishone");
    assert_eq!(spanish.cues[0].text, "hola amigos");
    assert_eq!(
        (spanish.lang.as_deref(), spanish.caption_source),
        (Some("es"), Some(CaptionSource::Auto))
    );
    assert!(
        stderr.contains("onlytransl: only machine-translated captions (onlytransl.en.vtt, translated from es): listed without a transcript; import --keep-translations keeps them, marked as translations"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 video listed without a transcript: their only captions are machine translations (named above)"),
        "{stderr}"
    );
    assert!(video(&out, "onlytransl").cues.is_empty());
    assert!(
        stderr.contains("englishone: chose englishone.en.vtt (the uploader's captions in the wanted language) over englishone.en-orig.vtt"),
        "{stderr}"
    );
    let english = video(&out, "englishone");
    assert_eq!(
        (english.cues[0].text.as_str(), english.caption_source),
        ("written by the uploader", Some(CaptionSource::Manual))
    );
}

#[test]
fn a_kept_translation_is_marked_and_search_labels_it() {
    let (tmp, stderr) = import_cases(&["--keep-translations"]);
    let out = tmp.path().join("out");
    assert!(!stderr.contains("listed without a transcript"), "{stderr}");
    let kept = video(&out, "onlytransl");
    assert_eq!(
        (
            kept.cues[0].text.as_str(),
            kept.lang.as_deref(),
            kept.caption_source
        ),
        ("good morning", Some("en"), Some(CaptionSource::Translated))
    );
    assert_eq!(
        video(&out, "spanishone").cues[0].text,
        "hola amigos",
        "the original still wins where there is one"
    );
    let o = run(&[
        "search",
        "--no-index",
        "--local",
        out.to_str().unwrap(),
        "good morning",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("⚠ captions are the platform's machine translation, not the speaker's words"),
        "{text}"
    );
    let o = run(&[
        "search",
        "--no-index",
        "--local",
        out.to_str().unwrap(),
        "--json",
        "good morning",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["videos"][0]["machine_translated"], true, "{v}");
}

#[test]
fn a_reimport_keeps_the_curated_files_of_the_archive_and_refuses_unknown_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    write(&from, "1_Hello.srt", "1\n00:00:01,000 --> 00:00:02,000\nhello there\n\n2\n00:00:03,000 --> 00:00:04,000\nzanzibar\n");
    let out = tmp.path().join("out");
    let import = || {
        run(&[
            "import",
            "--from",
            from.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
    };
    assert!(import().status.success());
    // Where the README says aliases go: the archive's aliases.json.
    let aliases = r#"[{"id":"greeting","label":"Greeting","triggers":["salutations"],"regex":"\\bhello\\b"}]"#;
    write(&out, "aliases.json", aliases);
    let o = import();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("kept aliases.json from the archive this import replaces (a curated file the format defines; import does not write it)"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("aliases.json")).unwrap(),
        aliases
    );
    let o = run(&[
        "search",
        "--no-index",
        "--json",
        "--local",
        out.to_str().unwrap(),
        "salutations",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["total_videos"], 1, "the alias still fires: {v}");
    assert_eq!(v["videos"][0]["hits"][0]["text"], "hello there", "{v}");
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("expanded via alias Greeting"),
        "{v}"
    );

    write(&out, "notes.txt", "mine");
    let o = import();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("it holds files archilyzer-index did not write (notes.txt)"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
}

/// One caption file's words.
const HELLO_SRT: &str = "1\n00:00:01,000 --> 00:00:02,000\nhello there\n";

/// A scratch folder holding a download `dl/` of one caption file.
fn download(name: &str, body: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    write(&from, name, body);
    (tmp, from)
}

/// The unfinished staging folders beside `out`.
fn partials(out: &Path) -> Vec<String> {
    let name = format!(".{}.partial-", out.file_name().unwrap().to_string_lossy());
    std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&name))
        .collect()
}

#[test]
fn ctrl_c_during_an_import_removes_its_unfinished_copy_and_says_the_archive_is_as_it_was() {
    let (tmp, from) = download("1_Hello.srt", HELLO_SRT);
    let out = tmp.path().join("out");
    let import = || {
        let mut cmd = bin();
        cmd.args([
            "import",
            "--from",
            from.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::piped());
        cmd
    };
    assert!(import().output().unwrap().status.success());
    let before = std::fs::read(out.join("summaries/index.json")).unwrap();
    // A caption file that never ends (a FIFO no one writes) holds the
    // second pass open after the staging folder is made.
    let fifo = from.join("2_Block.srt");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let child = import().spawn().unwrap();
    let waited = std::time::Instant::now();
    while partials(&out).is_empty() && waited.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!partials(&out).is_empty(), "the import is writing");
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "interrupted: {} is as it was (nothing replaced); the unfinished copy was removed",
            out.display()
        )),
        "{stderr}"
    );
    assert!(partials(&out).is_empty(), "{:?}", partials(&out));
    assert_eq!(
        std::fs::read(out.join("summaries/index.json")).unwrap(),
        before
    );
}

#[test]
fn ctrl_c_during_a_fresh_build_says_nothing_was_written_yet() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("alpha");
    common::copy_dir(&common::generated().join("alpha"), &site);
    // A page no one writes (a FIFO) holds the build in its reading pass,
    // before it writes anything.
    let page = common::transcript_pages(&site).remove(0);
    std::fs::remove_file(&page).unwrap();
    assert!(Command::new("mkfifo")
        .arg(&page)
        .status()
        .unwrap()
        .success());
    let index = tmp.path().join("index");
    let child = bin()
        .args([
            "build",
            "--local",
            site.to_str().unwrap(),
            "--index",
            index.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains(
            "interrupted before anything was written: every file and folder is as it was"
        ),
        "{stderr}"
    );
    assert!(!index.exists(), "no index was written");
}

#[test]
fn a_staging_folder_left_by_a_killed_run_is_removed_by_the_next_one() {
    let (tmp, from) = download("1_Hello.srt", HELLO_SRT);
    let out = tmp.path().join("out");
    let marker = archilyzer_core::claim::OutputKind::Archive.marker_bytes();
    let left = |name: &str, pid: u32| {
        let dir = tmp.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join(archilyzer_core::claim::MARKER), &marker).unwrap();
        std::fs::write(
            dir.join(archilyzer_core::staging::PID_FILE),
            pid.to_string(),
        )
        .unwrap();
        std::fs::write(dir.join("page.json"), vec![b'x'; 2_000_000]).unwrap();
        dir
    };
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let stale = left(".out.partial-AbC123", dead);
    let running = left(".out.partial-XyZ789", std::process::id());
    let o = run(&[
        "import",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "removed {} (2.0 MB), the unfinished copy of an interrupted run",
            stale.display()
        )),
        "{stderr}"
    );
    assert!(!stale.exists());
    assert!(
        running.exists(),
        "a running process's staging folder is left alone"
    );
}

#[test]
fn import_with_build_is_the_daily_loop_and_an_unchanged_reimport_reads_no_page() {
    let (tmp, from) = download("1_Hello.srt", HELLO_SRT);
    let (out, idx) = (tmp.path().join("out"), tmp.path().join("idx"));
    let daily = || {
        let o = run(&[
            "import",
            "--from",
            from.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--build",
            "--index",
            idx.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    assert!(daily().contains("build: 1 page: 1 read"));
    let again = daily();
    // The page is taken whole from the archive it replaces (its file
    // stamp kept), so the build carries it over without hashing it.
    assert!(
        again.contains("build: 1 page: 0 read (0.0 MB), 1 unchanged;"),
        "{again}"
    );
    write(
        &from,
        "2_Bye.srt",
        "1\n00:00:01,000 --> 00:00:02,000\ngoodbye now\n",
    );
    let goodbye = || -> serde_json::Value {
        let (out, idx) = (out.to_str().unwrap(), idx.to_str().unwrap());
        let o = run(&[
            "search", "--json", "--local", out, "--index", idx, "goodbye",
        ]);
        serde_json::from_slice(&o.stdout).unwrap()
    };
    assert_eq!(goodbye()["total_videos"], 0, "not imported yet");
    daily();
    let v = goodbye();
    assert_eq!(
        (v["total_videos"].as_u64(), v["index"].as_str()),
        (Some(1), Some("index: fresh")),
        "{v}"
    );
}

/// Each transcript page's sha256, by file.
fn page_shas(out: &Path) -> std::collections::BTreeMap<String, String> {
    let m: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("transcripts/imported/manifest.json")).unwrap(),
    )
    .unwrap();
    m["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["file"].as_str().unwrap().to_string(),
                p["sha256"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_reimport_rewrites_at_most_two_pages_for_a_back_filled_added_or_removed_video() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    let srt =
        |n: u32| format!("1\n00:00:01,000 --> 00:00:02,000\nepisode {n} says words number {n}\n");
    for n in (2..=60).step_by(2) {
        write(&from, &format!("{n}_Episode.srt"), &srt(n));
    }
    let out = tmp.path().join("out");
    let import = |extra: &[&str]| {
        let o = bin()
            .args([
                "import",
                "--from",
                from.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .args(["--page-bytes", "400B"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let changed = |before: &std::collections::BTreeMap<String, String>| {
        let after = page_shas(&out);
        let moved = after
            .iter()
            .filter(|(f, sha)| before.get(*f) != Some(sha))
            .count();
        moved + before.keys().filter(|f| !after.contains_key(*f)).count()
    };
    import(&[]);
    let first = page_shas(&out);
    assert!(first.len() >= 8, "{} pages", first.len());
    import(&[]);
    assert_eq!(changed(&first), 0, "the same download rewrites no page");

    write(&from, "1_Episode.srt", &srt(1)); // older than every other
    let before = page_shas(&out);
    import(&[]);
    assert!(
        changed(&before) <= 2,
        "back-filled: {} pages changed",
        changed(&before)
    );
    write(&from, "99_Episode.srt", &srt(99)); // newer than every other
    let before = page_shas(&out);
    import(&[]);
    assert!(
        changed(&before) <= 2,
        "added: {} pages changed",
        changed(&before)
    );
    std::fs::remove_file(from.join("10_Episode.srt")).unwrap();
    let before = page_shas(&out);
    import(&[]);
    assert!(
        changed(&before) <= 2,
        "removed: {} pages changed",
        changed(&before)
    );

    let archive = open_local(&out);
    let site = &archive.sites()[0];
    let all: Vec<String> = (1..=page_shas(&out).len() as u32)
        .flat_map(|p| site.transcript_page("imported", p).unwrap().videos.clone())
        .map(|v| v.slug)
        .collect();
    assert_eq!(all.len(), 31, "every video once");
    assert_ne!(
        all[0], "imported-1",
        "kept layout: the back-filled video went last"
    );
    import(&["--repack"]);
    let site = open_local(&out);
    let first_video = &site.sites()[0]
        .transcript_page("imported", 1)
        .unwrap()
        .videos[0];
    assert_eq!(
        first_video.slug, "imported-1",
        "--repack writes date order again"
    );
}

/// Every file of the archive at `out` and its bytes, but the import
/// ledger (its times are the run's own).
fn archive_files(out: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    common::files_under(out)
        .into_iter()
        .filter(|p| !p.ends_with("import-ledger.json"))
        .map(|p| {
            let rel = p.strip_prefix(out).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Runs `import --from from --out out` with `extra`; its exit code and
/// what it said.
fn import_into(from: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let o = bin()
        .args(["import", "--from", from.to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .args([
            "--site-id",
            "s",
            "--site-title",
            "s",
            "--page-bytes",
            "400B",
        ])
        .args(extra)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_reimport_with_the_ledger_writes_the_bytes_one_without_it_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    let vtt = |n: u32, words: &str| {
        format!("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nepisode {n} {words}\n")
    };
    for n in (10..40).step_by(2) {
        let id = format!("vid{n:08}");
        write(&from, &format!("{id}.info.json"), &info(&id, "chan", ""));
        write(&from, &format!("{id}.en.vtt"), &vtt(n, "says its words"));
    }
    let (with, without) = (tmp.path().join("with"), tmp.path().join("without"));
    let both = |step: &str| {
        let (code, said) = import_into(&from, &with, &[]);
        assert_eq!(code, Some(0), "{step}: {said}");
        let _ = std::fs::remove_file(without.join("import-ledger.json"));
        let (code, plain) = import_into(&from, &without, &[]);
        assert_eq!(code, Some(0), "{step}: {plain}");
        assert!(
            !plain.contains("unchanged since the last import"),
            "{plain}"
        );
        assert_eq!(archive_files(&with), archive_files(&without), "{step}");
        said
    };
    both("first import");
    let said = both("the same download");
    assert!(
        said.contains("15 videos unchanged since the last import: taken from the archive it replaces, their files not read again"),
        "{said}"
    );
    for (n, date) in [(99, "20250101"), (1, "20000101")] {
        let id = format!("vid{n:08}");
        let dated = info(&id, "chan", "").replace("20240101", date);
        write(&from, &format!("{id}.info.json"), &dated);
        write(&from, &format!("{id}.en.vtt"), &vtt(n, "is new"));
    }
    let said = both("a new and a back-filled video");
    assert!(said.contains("15 videos unchanged"), "{said}");
    write(
        &from,
        "vid00000020.en.vtt",
        &vtt(20, "now says other words"),
    );
    std::fs::remove_file(from.join("vid00000030.info.json")).unwrap();
    std::fs::remove_file(from.join("vid00000030.en.vtt")).unwrap();
    let said = both("a changed and a removed video");
    assert!(said.contains("15 videos unchanged"), "{said}");
}

/// All the transcript text of the archive at `out`.
fn transcript_text(out: &Path) -> String {
    common::transcript_pages(out)
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Sets `path`'s modification time to 2020-01-01.
fn set_old_time(path: &Path) {
    let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_577_836_800);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

#[test]
fn a_reimport_reads_only_the_files_whose_size_time_or_bytes_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("dl");
    std::fs::create_dir(&from).unwrap();
    let srt = |words: &str| format!("1\n00:00:01,000 --> 00:00:02,000\n{words}\n");
    for (name, words) in [
        ("1_One.srt", "apple"),
        ("2_Two.srt", "berry"),
        ("3_Three.srt", "cherry"),
    ] {
        write(&from, name, &srt(words));
        set_old_time(&from.join(name));
    }
    let out = tmp.path().join("out");
    assert_eq!(import_into(&from, &out, &[]).0, Some(0));

    // Same size, same time: trusted by the ledger, so not read (the
    // archive keeps the words it had: proof the file was not read).
    write(&from, "1_One.srt", &srt("grape"));
    set_old_time(&from.join("1_One.srt"));
    let (_, said) = import_into(&from, &out, &[]);
    assert!(
        said.contains("3 videos unchanged since the last import"),
        "{said}"
    );
    let text = transcript_text(&out);
    assert!(text.contains("apple") && !text.contains("grape"), "{text}");

    // A new time: in doubt, so hashed, and the new bytes are read.
    write(&from, "1_One.srt", &srt("grape"));
    // A new size: read.
    write(&from, "2_Two.srt", &srt("blueberry"));
    let (_, said) = import_into(&from, &out, &[]);
    assert!(
        said.contains("1 video unchanged since the last import"),
        "{said}"
    );
    let text = transcript_text(&out);
    assert!(
        text.contains("grape") && text.contains("blueberry") && text.contains("cherry"),
        "{text}"
    );

    // Other caption flags: the ledger does not hold, every file is read.
    let (_, said) = import_into(&from, &out, &["--lang", "de"]);
    assert!(
        said.contains("every file was read again: the import ledger of")
            && said.contains(
                "(another program, other caption flags or another --from folder wrote it)"
            ),
        "{said}"
    );
    assert!(!said.contains("unchanged since the last import"), "{said}");
}

#[test]
fn a_reimport_of_unchanged_files_says_again_what_their_import_skipped() {
    let (tmp, from) = download(
        "1_Bad.srt",
        "1\n00:00:01,000 --> 00:00:02,000\ngood words\n\n2\nnot a time\nlost words\n",
    );
    let out = tmp.path().join("out");
    let (code, first) = import_into(&from, &out, &[]);
    assert_eq!(code, Some(3), "{first}");
    let skipped: Vec<&str> = first
        .lines()
        .filter(|l| l.contains("skipped cue"))
        .collect();
    assert!(!skipped.is_empty(), "{first}");
    let (code, again) = import_into(&from, &out, &[]);
    assert_eq!(code, Some(3), "{again}");
    assert!(
        again.contains("1 video unchanged since the last import"),
        "{again}"
    );
    for line in skipped {
        assert!(again.contains(line), "{line:?} not said again:\n{again}");
    }
}
