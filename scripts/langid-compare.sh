#!/usr/bin/env bash
# Language identification compared on a corpus whose languages are known: the main job's
# corpus of the five shared sites (run the main job of the README first). whatlang (what
# webcorpus uses), whichlang and lingua (17 languages) on each record's first 2 KiB, as
# webcorpus detects `lang`; accuracy for records of 200+ characters and shorter ones, and
# the time per record. A separate crate (scripts/langid-compare/), so the project's build
# and tests never compile the other detectors.
#
#   scripts/langid-compare.sh [corpus/corpus.jsonl]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(realpath "${1:-corpus/corpus.jsonl}")
cd "$repo/scripts/langid-compare"
cargo build --release --quiet
./target/release/langid-compare "$corpus"
