#!/usr/bin/env bash
# Documented run: SmolLM2-135M-Instruct before and after envscale SFT on BFCL `simple` (400 questions),
# scored by BFCL's own AST checker (see eval/README.md).
#
#   eval/run_smollm2_bfcl.sh [TRAINED_MODEL_FOLDER] [MAX_QUESTIONS]
#   BEFORE_ONLY=1 eval/run_smollm2_bfcl.sh             # the base model alone (no trained model needed)
#
# TRAINED_MODEL_FOLDER defaults to outputs/quickstart/model/stage2 (what `envscale train --output
# outputs/quickstart/model` writes: a full model or a LoRA adapter, both load). MAX_QUESTIONS defaults to
# 400 (all); the first N questions otherwise. Answers are appended to
# $OUT/bfcl_answers/<agent>-<hash>.jsonl as they come: after an interruption, or to go from 100 to 400
# questions, run the same command again and only the missing questions are asked (a BEFORE_ONLY run's
# answers are reused by the before/after run). When it ends, report.md, the plots and the manifest are
# copied to eval/reports/<date>-smollm2-bfcl-simple/ for committing.
#
# CPU: ~12-15 s per question with one torch thread on a busy 2-core machine (1.5-2 h per agent for 400).
# OMP_NUM_THREADS defaults to 1 here (much faster than 2 threads when the cores are shared); set it to
# the core count on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAINED="${1:-outputs/quickstart/model/stage2}"
MAX="${2:-400}"
ENVSCALE="${ENVSCALE:-.venv/bin/envscale}"
OUT="${OUT:-outputs/eval/smollm2_bfcl_simple}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
SAMPLING="max_tokens: 128, temperature: 0"
BEFORE="before={kind: transformers, model: smollm2-135m-instruct, $SAMPLING}"
if [ "${BEFORE_ONLY:-0}" = "1" ]; then
  AGENTS=(--agent "$BEFORE")
else
  if [ ! -d "$TRAINED" ]; then
    echo "no trained model at $TRAINED: run envscale train first, pass the folder as the first argument," \
      "or run the base model alone with BEFORE_ONLY=1" >&2
    exit 2
  fi
  AGENTS=(--agent "$BEFORE" --agent "after={kind: transformers, model: $TRAINED, $SAMPLING}")
fi
# the recipe's `agents:` are replaced by the --agent flags (the same settings, the trained folder given here)
"$ENVSCALE" eval --config eval/smollm2_bfcl_simple.yaml --output "$OUT" --max-questions "$MAX" "${AGENTS[@]}"
"$ENVSCALE" show eval "$OUT" | head -20
DEST="eval/reports/$(date +%Y-%m-%d)-smollm2-bfcl-simple"
mkdir -p "$DEST"
cp "$OUT/report.md" "$DEST/report.md"
cp -r "$OUT/plots" "$DEST/" 2>/dev/null || true
cp "$OUT/envscale.json" "$DEST/manifest.json"
echo "report copied to $DEST"
