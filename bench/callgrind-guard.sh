#!/usr/bin/env bash
# The engine's instruction guard: counts the instructions per action of the engine's
# simulator on a fixed load under callgrind (`catan-sim --games 300 --seed 1`, release
# build: every rule, the legal-action listing and the random player's choices, the
# same games in every build) and fails when they exceed the committed reference by
# more than 5%. Instruction counts do not depend on how busy the machine is, so the
# guard holds on a shared CI machine; it takes a few seconds once built.
#
#   bench/callgrind-guard.sh                      # against bench/callgrind-reference.txt
#   bench/callgrind-guard.sh other-reference.txt  # against another reference file
#
# The reference file holds the figure on its first line that is not a comment (#).
# After a change that makes the engine slower or faster on purpose, write the new
# figure there, with the measurement in bench/results-2026-12.md. The build goes to
# the workspace's target directory (or CARGO_TARGET_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

reference_file="${1:-bench/callgrind-reference.txt}"
tolerance_pct=5
games=300
seed=1

reference="$(grep -v '^[[:space:]]*#' "$reference_file" | grep -m1 -E '^[[:space:]]*[0-9]+(\.[0-9]+)?[[:space:]]*$' | tr -d '[:space:]' || true)"
if [ -z "$reference" ]; then
  echo "callgrind-guard: no figure in $reference_file" >&2
  exit 2
fi
if ! command -v valgrind >/dev/null 2>&1; then
  echo "callgrind-guard: valgrind is not installed" >&2
  exit 2
fi

cargo build --release --quiet -p catan-engine --features sim --bin catan-sim
target_dir="${CARGO_TARGET_DIR:-$(cargo metadata --format-version 1 --no-deps \
  | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')}"
sim="$target_dir/release/catan-sim"

out="$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
  "$sim" --games "$games" --seed "$seed" --json 2>&1)"
instructions="$(printf '%s\n' "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -1)"
json="$(printf '%s\n' "$out" | grep -m1 '^{')"
played="$(printf '%s\n' "$json" | sed -n 's/.*"games":\([0-9]*\).*/\1/p')"
mean_actions="$(printf '%s\n' "$json" | sed -n 's/.*"mean_actions":\([0-9.e+-]*\).*/\1/p')"
digest="$(printf '%s\n' "$json" | sed -n 's/.*"digest":"\([0-9a-f]*\)".*/\1/p')"
if [ -z "$instructions" ] || [ -z "$played" ] || [ -z "$mean_actions" ]; then
  echo "callgrind-guard: could not read the run's figures:" >&2
  printf '%s\n' "$out" | tail -20 >&2
  exit 2
fi

# The actions are a whole number: the mean times the games, rounded.
awk -v ir="$instructions" -v games="$played" -v mean="$mean_actions" -v ref="$reference" \
  -v tol="$tolerance_pct" -v digest="$digest" -v run="--games $games --seed $seed" '
BEGIN {
  actions = int(mean * games + 0.5)
  per = ir / actions
  ratio = per / ref
  printf "callgrind-guard: catan-sim %s: %d instructions for %d actions (digest %s)\n", run, ir, actions, digest
  printf "callgrind-guard: %.1f instructions per action; reference %.1f; ratio %.3f (limit %.2f)\n", per, ref, ratio, 1 + tol / 100
  if (ratio > 1 + tol / 100) {
    printf "callgrind-guard: FAILED: %.1f%% more instructions per action than the reference\n", 100 * (ratio - 1)
    exit 1
  }
  print "callgrind-guard: ok"
}'
