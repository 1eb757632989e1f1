//! Every input a fuzzer ever failed on (`fuzz/regressions/<target>/`),
//! run through the same target body on every `cargo test`, plus a quick
//! deterministic shake of each target with random bytes, so a stable
//! toolchain without cargo fuzz still exercises every body.

use std::path::Path;

use archilyzer_fuzzing::{regressions, run, TARGETS};

#[test]
fn every_input_a_fuzzer_failed_on_now_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut count = 0;
    for target in TARGETS {
        for file in regressions(&root, target) {
            run(target, &std::fs::read(&file).unwrap());
            count += 1;
        }
    }
    assert!(count > 0, "fuzz/regressions holds the inputs fixed so far");
}

#[test]
fn the_fuzzers_binaries_are_the_targets() {
    // fuzz/Cargo.toml must name a binary per target for `cargo fuzz run`,
    // and fuzz/run.sh reads the list from there.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/Cargo.toml");
    let text = std::fs::read_to_string(manifest).unwrap();
    let bins: Vec<&str> = text
        .split("[[bin]]")
        .skip(1)
        .filter_map(|b| b.lines().find_map(|l| l.strip_prefix("name = ")))
        .map(|n| n.trim_matches('"'))
        .collect();
    assert_eq!(
        bins, TARGETS,
        "fuzz/Cargo.toml's [[bin]] names against TARGETS"
    );
}

/// xorshift64*: a few hundred reproducible inputs per target.
fn bytes(seed: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *seed ^= *seed >> 12;
            *seed ^= *seed << 25;
            *seed ^= *seed >> 27;
            (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

#[test]
fn every_target_survives_random_bytes_and_spliced_seeds() {
    let seeds: &[&[u8]] = &[
        b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhello\n",
        b"1\n00:00:01,000 --> 00:00:02,000\nhi\n",
        b"start\tend\ttext\n0\t10\tx\n",
        br#"{"events":[{"tStartMs":1,"segs":[{"utf8":"a"}]}],"segments":[{"start":1,"end":2,"text":"x"}]}"#,
        br#"{"channel":"c","page":1,"videos":[{"slug":"a","title":"t","cues":[[1,2,"x"]]}]}"#,
        b"https://a.example/?qt=eyJxIjoieCJ9&fav=d&fv=1",
        b"hub:https://h.example#a,b",
        b"1:02:03",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15;
    for target in TARGETS.iter().filter(|t| **t != "index_files") {
        for i in 0..300 {
            let mut input = seeds[i % seeds.len()].to_vec();
            let noise = bytes(&mut seed, (i % 24) + 1);
            let at = (i * 7) % (input.len() + 1);
            input.splice(at..at, noise);
            run(target, &input);
        }
    }
    for i in 0..20 {
        let n = 64 * (i + 1);
        run("index_files", &bytes(&mut seed, n));
    }
}
