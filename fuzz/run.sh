#!/usr/bin/env bash
# Runs each fuzz target for SECONDS (default 60) from the seeds, and prints
# how many inputs each one executed. A crash stops the run; its input is
# in fuzz/artifacts/<target>/ and belongs in fuzz/regressions/<target>/
# once fixed (tests/fuzz_regressions.rs runs those on every cargo test).
#   bash fuzz/run.sh [SECONDS] [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(vtt srt whisper_tsv whisper_json json3 srv3 corpus_json index_files share_link source_handle clip_time sweep_request)
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    # libFuzzer's coverage flags are stable; cargo fuzz only needs the
    # nightly gate opened.
    export RUSTC_BOOTSTRAP=1
fi
bash seeds.sh
mkdir -p logs
for t in "${targets[@]}"; do
    if ! cargo "${toolchain[@]}" fuzz run -s none "$t" "corpus/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -max_len=65536 > "logs/$t.log" 2>&1; then
        tail -40 "logs/$t.log"
        echo "fuzz: $t FAILED (input in fuzz/artifacts/$t/)"
        exit 1
    fi
    runs=$(grep -oE 'Done [0-9]+ runs' "logs/$t.log" | tail -1 | grep -oE '[0-9]+')
    echo "fuzz: $t: ${runs:-?} executions in ${secs}s, no failure"
done
