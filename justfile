# Everyday recipes. `just --list` shows them.

# Build both binaries, optimised.
build:
    cargo build --release

# The tests (the same command the README and CI use).
test:
    python3 -m venv .venv && .venv/bin/pip install -q --disable-pip-version-check -r server/tests/requirements.txt && npm ci --silent --no-audit --no-fund --prefix server/tests/ts && cargo test --workspace --release

# The quick subset before a commit (a minute or two after a warm
# `just test`): formatting, lints on the tests' profile, every crate's unit
# tests, and index-vs-scan parity on the committed archive.
check:
    cargo fmt --all -- --check
    cd fuzz && cargo metadata --locked --format-version 1 >/dev/null
    cargo clippy --release --workspace --all-targets -- -D warnings
    cargo test --release --workspace --lib -q
    cargo run --release -q -p archilyzer-index --bin archilyzer-index -- build --local testdata/archive/alpha --index target/check-index
    cargo run --release -q -p archilyzer-index --bin archilyzer-index -- check --local testdata/archive/alpha --index target/check-index

# Formatting and lints, as CI checks them.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
    python3 scripts/doc_figures.py

# What the committed test archive holds.
stats:
    cargo run --release -p archilyzer-index --bin archilyzer-index -- stats --local testdata/archive/alpha

# Regenerate the committed test archive (deterministic: same bytes).
testdata:
    cargo run --release -p archilyzer-dev -- gen --out testdata/archive --bytes 3MB --seed 1

# Import the TWIML corpus beside the checkout into /tmp/twiml.
twiml:
    cargo run --release -p archilyzer-index --bin archilyzer-index -- import --from ../shared/corpora/twiml/vtt --out /tmp/twiml --channel twiml --channel-name "TWIML AI Podcast"
    cargo run --release -p archilyzer-index --bin archilyzer-index -- stats --local /tmp/twiml

# A generated archive of the reference shape in /tmp/ref: alpha is 5 channels, 1.35 GB.
gen-ref:
    cargo run --release -p archilyzer-dev -- gen --out /tmp/ref --bytes 1.53GB --seed 1

# Index the committed test archive (into the cache dir).
build-index:
    cargo run --release -p archilyzer-index --bin archilyzer-index -- build --local testdata/archive/alpha

# Index vs full scan on the committed test archive.
parity: build-index
    cargo run --release -p archilyzer-index --bin archilyzer-index -- check --local testdata/archive/alpha

# The reference benchmark on /tmp/ref (see gen-ref).
bench:
    cargo run --release -p archilyzer-index --bin archilyzer-index -- build --local /tmp/ref/alpha
    cargo run --release -p archilyzer-dev -- bench --local /tmp/ref/alpha

# Fuzz every parser for SECONDS each (default 60); crashes land in fuzz/artifacts.
fuzz seconds="60":
    bash fuzz/run.sh {{seconds}}

# Soak one server with 10,000 mixed calls on TWIML (imports and indexes it first).
soak:
    cargo build --release
    target/release/archilyzer-index import --from ../shared/corpora/twiml/vtt --out /tmp/soak-twiml --channel twiml --channel-name "TWIML AI Podcast" --page-bytes 500KB
    target/release/archilyzer-index build --local /tmp/soak-twiml --index /tmp/soak-twiml-index
    .venv/bin/python server/tests/soak.py target/release/archilyzer-mcp /tmp/soak-twiml /tmp/soak-twiml-index 10000 4

# A real-text archive of the reference shape: VIDEOS videos in 5 channels
# (TWIML captions recombined; 12,000 make 619 MB of pages), written as a
# yt-dlp download, imported through `import`, indexed, and benchmarked.
# `austerity` is said once in the corpus, so it is in about one video in
# 540 and one page in four: the shape of a rare word.
real-ref videos="12000":
    python3 scripts/ytdlp_download.py ../shared/corpora/twiml/vtt /tmp/real-ref/dl {{videos}} 5
    cargo run --release -p archilyzer-index --bin archilyzer-index -- import --from /tmp/real-ref/dl --out /tmp/real-ref/archive
    cargo run --release -p archilyzer-index --bin archilyzer-index -- build --local /tmp/real-ref/archive --index /tmp/real-ref/index
    cargo run --release -p archilyzer-dev -- bench --local /tmp/real-ref/archive --index /tmp/real-ref/index --repeat 5 --rare austerity --common transformers --remote-latency-ms 50 --remote-mbps 100

# A benchmark archive whose videos do not repeat each other: VIDEOS videos
# in 5 channels, each made of runs of 20-60 consecutive cues cut from
# different TWIML episodes at random offsets (19,300 make about 1.2 GB),
# imported and indexed in /tmp/recombined, then the FTS5 questions asked of it.
recombined videos="19300":
    python3 scripts/ytdlp_recombined.py ../shared/corpora/twiml/vtt /tmp/recombined/dl {{videos}} 5
    cargo run --release -p archilyzer-index --bin archilyzer-index -- import --from /tmp/recombined/dl --out /tmp/recombined/archive
    cargo run --release -p archilyzer-index --bin archilyzer-index -- build --local /tmp/recombined/archive --index /tmp/recombined/index
    .venv/bin/python scripts/fts5_compare.py /tmp/recombined/archive /tmp/recombined/index

# The HTML report and SVG chart in headless Chromium (apt install chromium);
# screenshots in target/html-report.
html-report:
    cargo build --release
    python3 indexer/tests/html_report.py target/release/archilyzer-index testdata/archive/alpha target/html-report

# The picture in docs/mentions-over-time.md, from the test archive.
docs-picture:
    cargo build --release
    target/release/archilyzer-index trend --local testdata/archive/alpha --no-index "k cups" husolvozel --by quarter --svg docs/trend-example.svg
