#!/usr/bin/env bash
# Gate a live model the way .github/workflows/evalkit-live.yml does, or refresh its baseline.
# The workflow runs this script; tests/ci/test_ci_examples.py runs it with scripted models.
#
#   .ci/evalkit-live-gate.sh gate       # run the selection into $RUN, gate it against $BASELINE
#   .ci/evalkit-live-gate.sh baseline   # run the same selection into $BASELINE (commit its
#                                       # config.json, summary.json and results.jsonl)
#
# Environment (defaults in brackets):
#   MODEL        model spec, e.g. openai/gpt-4o-mini (its key from OPENAI_API_KEY)  [required]
#   SAMPLE, SEED a sample of SAMPLE pairs stratified by trigger x domain, fixed by SEED [24, 1]
#   PAIRS        space-separated pair ids instead of the sample (a fixed pair list)
#   CONDITIONS   conditions to run                                                  [nl tool meta]
#   SUITE        suite files or folders                                             [scenarios/]
#   RUN          run directory of this gate                                         [reports/live]
#   BASELINE     baseline run directory (the same selection, an earlier run)        [reports/live-baseline]
#   GATE_CONFIG  gate config                                                        [gate-live.yaml]
#   MODEL_CONFIG model config file (endpoint, retries, prices), optional
#   EXTRA_ARGS   more `evalkit run` options, e.g. "--temperature 0 --max-connections 8"
# Live calls are cached in $EVALKIT_CACHE_DIR (the workflow restores it between runs), so an
# unchanged pair is not paid for twice at temperature 0.
set -euo pipefail

mode="${1:-gate}"
: "${MODEL:?set MODEL to the model spec to gate, e.g. openai/gpt-4o-mini}"
SAMPLE="${SAMPLE:-24}"
SEED="${SEED:-1}"
CONDITIONS="${CONDITIONS:-nl tool meta}"
SUITE="${SUITE:-scenarios/}"
RUN="${RUN:-reports/live}"
BASELINE="${BASELINE:-reports/live-baseline}"
GATE_CONFIG="${GATE_CONFIG:-gate-live.yaml}"

args=(run $SUITE --model "$MODEL")
for c in $CONDITIONS; do args+=(--condition "$c"); done
if [ -n "${PAIRS:-}" ]; then
  for p in $PAIRS; do args+=(--pair "$p"); done
else
  args+=(--sample "$SAMPLE" --seed "$SEED")
fi
if [ -n "${MODEL_CONFIG:-}" ]; then args+=(--model-config "$MODEL_CONFIG"); fi
# shellcheck disable=SC2206
if [ -n "${EXTRA_ARGS:-}" ]; then args+=($EXTRA_ARGS); fi

case "$mode" in
  gate)
    evalkit "${args[@]}" --out "$RUN"
    evalkit gate "$RUN" --config "$GATE_CONFIG" --baseline "$BASELINE" \
      --junit "$RUN/gate-junit.xml" --markdown "$RUN/gate-summary.md"
    ;;
  baseline)
    evalkit "${args[@]}" --no-report --out "$BASELINE"
    echo "baseline refreshed: commit $BASELINE/config.json, $BASELINE/summary.json and $BASELINE/results.jsonl"
    ;;
  *)
    echo "usage: $0 gate|baseline" >&2
    exit 2
    ;;
esac
