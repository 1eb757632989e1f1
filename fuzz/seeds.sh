#!/usr/bin/env bash
# Fills corpus/<target>/ with seed inputs (real files where the project has
# them: testdata pages, an index of testdata, TWIML captions), so the
# fuzzers start from the shapes real input has. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
root=..
seed() { mkdir -p "corpus/$1"; printf '%s' "$3" > "corpus/$1/$2"; }

mkdir -p corpus/vtt corpus/corpus_json corpus/index_files
for f in $(ls "$root"/../shared/corpora/twiml/vtt/*.vtt 2>/dev/null | head -3); do
    head -c 3000 "$f" > "corpus/vtt/$(basename "$f")"
done
seed vtt rolling $'WEBVTT\n\n00:00:01.000 --> 00:00:02.000 align:start\nhello <c>there</c>\n\n00:00:02.000 --> 00:00:03.500\nhello there\nagain\n'
seed srt basic $'1\n00:00:01,000 --> 00:00:02,000\nhello\n\n2\n00:01:02,500 --> 00:01:04,000\n<i>world</i>\n'
seed whisper_tsv basic $'start\tend\ttext\n0\t1500\thello\n1500\t3000\tworld\n'
seed whisper_json basic '{"text":"x","language":"en","segments":[{"id":0,"start":0.0,"end":2.0,"text":" Hi there.","avg_logprob":-0.3,"no_speech_prob":0.1}]}'
seed json3 basic '{"events":[{"tStartMs":0,"dDurationMs":9000,"id":1},{"tStartMs":120,"dDurationMs":2500,"segs":[{"utf8":"hello"},{"utf8":" world"}]},{"tStartMs":2620,"aAppend":1,"segs":[{"utf8":"\n"}]}]}'
seed srv3 basic '<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body><p t="1000" d="2000"><s>Hi</s><s t="300"> there</s></p><p t="4000" d="1500">Tom &amp; Jerry</p></body></timedtext>'
cp "$root/testdata/archive/alpha/corpus.json" corpus/corpus_json/corpus.json
cp "$root/testdata/archive/hub/corpus.json" corpus/corpus_json/hub.json
cp "$root/testdata/archive/alpha/transcripts/daily-dispatch/manifest.json" corpus/corpus_json/manifest.json
head -c 20000 "$root/testdata/archive/alpha/transcripts/daily-dispatch/page-0001.json" > corpus/corpus_json/page-cut.json
seed corpus_json page-small '{"channel":"c","page":1,"videos":[{"slug":"a","title":"t","cues":[[0.5,1.0,"hi"]]}]}'
# Made again each time, so the seed has the files of today's index format.
idx=$(mktemp -d)
# The whole workspace, as CI and the install line build it: a build of
# one package resolves its own feature set, so it would compile dozens
# of crates a second time.
cargo build -q --release --locked --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release"
"$bin/archilyzer-index" build --local "$root/testdata/archive/alpha" --index "$idx" >/dev/null 2>&1
"$bin/archilyzer-dev" fuzz-seed --index "$idx" --out corpus/index_files/real
rm -rf "$idx"
seed share_link search 'https://alphalyzer.example/?qt=eyJhbmQiOlt7InEiOiJyZWFsbHkifSx7Im5vdCI6eyJuYSI6dHJ1ZSwicSI6InRvcmx5YW4ifX1dfQ&fav=d&fc=daily-dispatch&fdf=20240101&fv=1'
seed share_link tree 'https://a.example/site/?qt=eyJvciI6W3sicSI6ImEiLCJzIjpbImNoYXQiXX0seyJxIjoiYiIsInJlIjp0cnVlfV19&ft=l&fa=a&fk=en'
seed source_handle local 'local:/srv/archive/public'
seed source_handle remote 'remote:https://site.example'
seed source_handle hub 'hub:https://hub.example#b,a'
seed clip_time hms '1:02:03'
seed clip_time frac '83.25'
seed sweep_request req 'https://a.example/?qt=abc&fav=d Why were these taken down? batch_size=8 channels=a,b directive="list the reasons" chanels=c'
