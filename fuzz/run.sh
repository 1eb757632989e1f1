#!/usr/bin/env bash
# Runs each fuzz target for SECONDS (default 60) from the seeds, one per
# core at a time, and prints how many inputs each one executed. A crash
# fails the run; its input is in fuzz/artifacts/<target>/ and belongs in
# fuzz/regressions/<target>/ once fixed (shared/fuzzing/tests/regressions.rs
# runs those on every cargo test).
#   bash fuzz/run.sh [SECONDS] [TARGET ...]
#   bash fuzz/run.sh --build-only      (build the fuzzer, run nothing)
#
# The fuzzer is built once, with plain cargo and the flags cargo-fuzz
# passes for libFuzzer without a sanitizer (coverage counters, compare
# tracing, `--cfg fuzzing`, debug assertions and overflow checks), so no
# cargo-fuzz install and no nightly toolchain are needed. Every target is
# the same binary under the target's name: fuzz_targets/target.rs picks
# the body by the name it was started as. (`cargo fuzz run vtt` works too,
# for those who have cargo-fuzz.)
set -euo pipefail
cd "$(dirname "$0")"
# The targets: the [[bin]] names in Cargo.toml, which a test
# (shared/fuzzing/tests/regressions.rs) holds equal to archilyzer_fuzzing's
# TARGETS, where each target's body is.
mapfile -t all < <(awk '/^\[\[bin\]\]/ { bin = 1; next } bin && /^name = / { gsub(/"/, "", $3); print $3; bin = 0 }' Cargo.toml)

build() {
    local host
    host=$(rustc -vV | sed -n 's/^host: //p')
    # --target keeps these flags off build scripts and proc macros.
    RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks" \
        cargo build --release --locked -q --target "$host" --bin "${all[0]}"
    mkdir -p bin
    for t in "${all[@]}"; do
        ln -f "target/$host/release/${all[0]}" "bin/$t"
    done
}

if [ "${1:-}" = "--build-only" ]; then
    build
    exit 0
fi
secs=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=("${all[@]}")
fi
build
bash seeds.sh
mkdir -p logs
rm -f logs/*.status
# The targets run side by side, one per core (FUZZ_JOBS to choose), each
# for SECONDS; the results are printed in the order of the list.
jobs=${FUZZ_JOBS:-$(nproc)}
run_one() { # TARGET: runs it, leaving its log and its status in logs/
    local t=$1 status=ok max_len=65536
    # An index_files input is a whole index of testdata/archive/alpha
    # (about 0.9 MB): cut to 64 KB it would lose the files at its end.
    [ "$t" = index_files ] && max_len=2097152
    mkdir -p "artifacts/$t"
    "bin/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
        -max_total_time="$secs" -rss_limit_mb=2048 -max_len="$max_len" > "logs/$t.log" 2>&1 || status=failed
    echo "$status" > "logs/$t.status"
}
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    run_one "$t" &
done
wait
failed=0
for t in "${targets[@]}"; do
    if [ "$(cat "logs/$t.status")" != ok ]; then
        tail -40 "logs/$t.log"
        echo "fuzz: $t FAILED (input in fuzz/artifacts/$t/)"
        failed=1
        continue
    fi
    runs=$(grep -oE 'Done [0-9]+ runs' "logs/$t.log" | tail -1 | grep -oE '[0-9]+')
    echo "fuzz: $t: ${runs:-?} executions in ${secs}s, no failure"
done
exit "$failed"
