#!/usr/bin/env bash
# The weekly stopping-rule review that .github/workflows/evalkit-weekly-rules.yml runs on a
# schedule; tests/ci/test_ci_examples.py runs it with scripted models.
#
#   1. rules eval    the candidate rule set against the one in use (same plan, gate on)
#   2. rules replay  the week's recorded traces against the candidate (no model calls)
#   3. rules distill candidate rules from the latest run's misactions, into a draft
# and writes a Markdown summary of the three to $SUMMARY (the workflow appends it to the job
# summary). Replayed commits a rule would have stopped are findings, listed in the summary;
# the script fails only when a command cannot run (bad input: exit 2).
#
# Environment (defaults in brackets):
#   CANDIDATE    the candidate rule set                      [rules/default-v2.yaml]
#   CURRENT      the rule set in use                         [rules/default.yaml]
#   RUNS         space-separated run directories of the week [reports/live]
#   MODEL        model spec(s) for rules eval, space-separated [scripted models]
#   SAMPLE, SEED sample for rules eval (or PAIRS: fixed pair ids) [24, 1]
#   OUT          output folder                               [reports/weekly]
#   SUMMARY      Markdown summary file                       [$OUT/summary.md]
set -uo pipefail

CANDIDATE="${CANDIDATE:-rules/default-v2.yaml}"
CURRENT="${CURRENT:-rules/default.yaml}"
RUNS="${RUNS:-reports/live}"
SAMPLE="${SAMPLE:-24}"
SEED="${SEED:-1}"
OUT="${OUT:-reports/weekly}"
SUMMARY="${SUMMARY:-$OUT/summary.md}"
mkdir -p "$OUT"
status=0

section() {  # section TITLE COMMAND...: run it, keep its output in the summary, note its exit code
  local title="$1"; shift
  local log="$OUT/step.log" code
  "$@" >"$log" 2>&1
  code=$?
  cat "$log"
  {
    echo "### $title (exit $code)"
    echo
    echo '```'
    echo "\$ evalkit ${*:2}"
    tail -n 60 "$log"
    echo '```'
    echo
  } >>"$SUMMARY"
  if [ "$code" -ge 2 ]; then status=2; fi
  return 0
}

{
  echo "## evalkit weekly stopping-rule review"
  echo
  echo "Candidate \`$CANDIDATE\` against \`$CURRENT\`; week's runs: \`$RUNS\`."
  echo
} >"$SUMMARY"

select=()
if [ -n "${PAIRS:-}" ]; then
  for p in $PAIRS; do select+=(--pair "$p"); done
else
  select+=(--sample "$SAMPLE" --seed "$SEED")
fi
models=()
for m in ${MODEL:-}; do models+=(--model "$m"); done

# shellcheck disable=SC2086
section "rules eval: candidate vs current" \
  evalkit rules eval --rules "$CANDIDATE" --against "$CURRENT" "${models[@]}" "${select[@]}" --out "$OUT/eval"
# shellcheck disable=SC2086
section "rules replay: the week's traces against the candidate" \
  evalkit rules replay $RUNS --rules "$CANDIDATE" --json "$OUT/replay.json"
latest="${RUNS##* }"
section "rules distill: draft from $latest" \
  evalkit rules distill "$latest" --out "$OUT/rules-draft.yaml"

echo "wrote $SUMMARY"
exit "$status"
