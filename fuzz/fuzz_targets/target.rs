//! One source for every fuzz target: the binary's name picks the body in
//! `archilyzer_fuzzing` (so `cargo fuzz run vtt` fuzzes the VTT
//! parser).

#![no_main]

use std::sync::OnceLock;

fn target() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let exe = std::env::current_exe().expect("the fuzzer knows its own path");
        let name = exe.file_stem().expect("a file name").to_string_lossy().into_owned();
        assert!(archilyzer_fuzzing::TARGETS.contains(&name.as_str()), "no fuzz target {name}");
        name
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| archilyzer_fuzzing::run(target(), data));
