#!/usr/bin/env bash
# Train the detector on a lent GPU machine in one call (docs/detector.md, "Training on a lent GPU").
# Run from the repository root there, with `.devdata/real.tar.gz` (python -m xingzi.models.pack_real
# --out /tmp/pack --tar, then move the tarball into .devdata/), `.devdata/art.tar.gz` (python -m
# xingzi.models.pack_art; without it only the vendored face styles exist there) and `.whl`
# (the ultralytics wheels) carried, and `.devdata/table.tar.gz` when there are photos labelled at the table
# (`tar -czf .devdata/table.tar.gz -C DIR images labels`, DIR from `xingzi serve --collect DIR` or `xingzi score
# --labels DIR`): they join the training photos. The machine has torch but no ultralytics and no network.
# Outputs (at most 8 files) go to $OUT: best.pt, last.pt (stripped), results.csv, args.yaml,
# xingzi_train.json, train.log; with PARTNER_START also partner_best.pt and partner_results.csv (and no last.pt).
# A watchdog keeps a stripped best.pt in $OUT while training runs, so a call cut at its limit still returns weights.
set -u
HOURS=${HOURS:-0.1}        # training budget; Ultralytics fits the epochs and LR schedule to it
SYNTH_N=${SYNTH_N:-4000}   # synthetic Xingzi hands generated there (seed SEED; 0: none)
IMGSZ=${IMGSZ:-640}
BATCH=${BATCH:-64}
WORKERS=${WORKERS:-14}
START=${START:-models/xingzi_yolo11n.pt}
LR0=${LR0:-0.01}
WARMUP=${WARMUP:-1}        # epochs; keep it short when START is already trained at this size
SEED=${SEED:-1}            # synthetic set seed
WEAK_N=${WEAK_N:-0}        # more synthetic hands drawn only in the art styles read worst (seed SEED+100)
WEAK_STYLES=${WEAK_STYLES:-kde_jade kde_classic xm_dorwhite gnome_postmodern unicode_symbola fluffy_black}
BLUR=${BLUR:-0}             # share of the main synthetic photos blurred more (xingzi synth --blur-share)
COMPOSITE_N=${COMPOSITE_N:-0}  # hands laid out from the training photos' own tile pictures (datasets/composite.py)
COMP_JOBS=${COMP_JOBS:-6}      # composite processes side by side (seeds SEED+200 ...)
PARTNER_START=${PARTNER_START:-}  # a second start trained beside the first on the same photos: its second opinion
SMOKE=${SMOKE:-0}          # 1: a tiny CPU run to test this script before spending device time
if [ "$SMOKE" = 1 ]; then NAME=${NAME:-smoke$IMGSZ}; fi  # a smoke run beside a real one keeps off its run folder
NAME=${NAME:-gpu$IMGSZ}     # run name under runs/train (the partner's: NAME_partner)
# everything this script unpacks or makes lies under WORK, so two runs side by side (a smoke run beside another) do not meet
MADE_WORK=0
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d "${TMPDIR:-/tmp}/xingzi_train.XXXXXX"); MADE_WORK=1; fi
OUT=${OUT:-$WORK/out}
mkdir -p "$WORK" "$OUT"
tidy() {  # a WORK this script made: its unpacked and generated photos go at the end; $OUT stays (it may lie in WORK)
  [ "$MADE_WORK" = 1 ] && rm -rf "$WORK"/real "$WORK"/synth "$WORK"/weak "$WORK"/composite* "$WORK"/table \
      "$WORK"/art "$WORK"/site "$WORK"/pkg "$WORK"/*.log "$WORK"/data.yaml
}
trap tidy EXIT
exec > >(tee "$OUT/train.log") 2>&1
log() { echo "[$(date +%T)] $*"; }
log "outputs in $OUT, run runs/train/$NAME, work files in $WORK"
ROOT=$PWD
DEVICE=0
if [ "$SMOKE" = 1 ]; then DEVICE=cpu; fi

log "python: $(python3 --version)"
if [ -d .whl ] && ! python3 -c "import ultralytics" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site" .whl/*.whl || exit 1
fi
# The package maps engine/ vision/ datasets/ models/ into xingzi.*: mirror that with links (no build needed).
PKG=$WORK/pkg
mkdir -p "$PKG/xingzi"
for f in xingzi/*; do ln -s "$ROOT/$f" "$PKG/xingzi/"; done
for d in engine vision datasets models; do ln -s "$ROOT/$d" "$PKG/xingzi/$d"; done
# PYTHONSAFEPATH: the checkout's own xingzi/ (without engine/ etc.) must not shadow the mirror
export PYTHONPATH="$PKG:$WORK/site:${PYTHONPATH:-}" PYTHONUNBUFFERED=1 PYTHONSAFEPATH=1
python3 -c "import torch, ultralytics, xingzi.engine; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'ultralytics', ultralytics.__version__)" || exit 1

REAL=$WORK/real
mkdir -p "$REAL" && tar -xzf .devdata/real.tar.gz -C "$REAL" || exit 1
if [ -f .devdata/art.tar.gz ]; then  # the art packs (python -m xingzi.models.pack_art): all face styles there
  python3 -m xingzi.models.pack_art --unpack .devdata/art.tar.gz --out "$WORK/art" && export XINGZI_ART=$WORK/art
fi
log "styles: $(python3 -m xingzi synth --list-styles | tr '\n' ' ')"
COMP_PIDS=()
if [ "$COMPOSITE_N" -gt 0 ]; then  # real tile pixels in Xingzi layouts (melds, 发, backs); never the val photos
  python3 -c "from xingzi.datasets.yolo import classes_text; print(classes_text(), end='')" > "$REAL/train/classes.txt"
  # one process lays out ~9 hands/s: shards with their own seeds run beside the synthesis (1,500 on one core took 3 min)
  log "composite: $COMPOSITE_N hands from the training photos' tiles in $COMP_JOBS shards"
  for k in $(seq 0 $((COMP_JOBS - 1))); do
    python3 -m xingzi.datasets.composite --real "$REAL/train" --n $(((COMPOSITE_N + k) / COMP_JOBS)) \
        --seed $((SEED + 200 + k)) --out "$WORK/composite$k" >"$WORK/composite$k.log" 2>&1 &
    COMP_PIDS+=($!)
  done
fi
SYNTH=$WORK/synth
EXTRA=""
if [ "$SYNTH_N" = 0 ]; then
  log "synth: none (SYNTH_N=0)"
else
  log "synth: $SYNTH_N images"
  if python3 -m xingzi synth --n "$SYNTH_N" --out "$SYNTH" --seed "$SEED" --imgsz "$IMGSZ" --workers "$WORKERS" \
      --blur-share "$BLUR" >"$WORK/synth.log" 2>&1; then
    EXTRA="$SYNTH/images"
  else
    tail -5 "$WORK/synth.log"; log "synth failed: left out"
  fi
fi
if [ "$WEAK_N" -gt 0 ]; then
  WEAK=$WORK/weak
  log "synth: $WEAK_N images in $WEAK_STYLES"
  # shellcheck disable=SC2086  # the style list splits into words on purpose
  if python3 -m xingzi synth --n "$WEAK_N" --out "$WEAK" --seed $((SEED + 100)) --imgsz "$IMGSZ" \
      --workers "$WORKERS" --styles $WEAK_STYLES >"$WORK/weak.log" 2>&1; then
    EXTRA="$EXTRA${EXTRA:+,}$WEAK/images"
  else
    tail -5 "$WORK/weak.log"; log "weak-style synth failed: left out"
  fi
fi
for k in "${!COMP_PIDS[@]}"; do
  if wait "${COMP_PIDS[$k]}"; then
    tail -1 "$WORK/composite$k.log"
    EXTRA="$EXTRA${EXTRA:+,}$WORK/composite$k/images"
  else
    tail -5 "$WORK/composite$k.log"; log "composite shard $k failed: left out"
  fi
done
if [ -f .devdata/table.tar.gz ]; then  # photos labelled at the table (xingzi serve --collect, score --labels)
  TABLE=$WORK/table
  mkdir -p "$TABLE" && tar -xzf .devdata/table.tar.gz -C "$TABLE" images labels || exit 1
  log "table photos: $(find "$TABLE/images" -type f | wc -l)"
  EXTRA="$EXTRA${EXTRA:+,}$TABLE/images"
fi
DATA=$WORK/data.yaml
python3 - "$DATA" "$REAL" "$EXTRA" <<'EOF' || exit 1
import sys
from pathlib import Path
from xingzi.models.train import data_yaml
out, dev, extra = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
train = [dev / "train" / "images"] + [Path(e) for e in extra.split(",") if e]
print(data_yaml(out, train, [dev / "val" / "images"]).read_text())
EOF

RUN=runs/train/$NAME
PARTNER_RUN=runs/train/${NAME}_partner
rm -rf "$RUN" "$PARTNER_RUN"  # fixed names: the paths below depend on them
strip_to_out() {  # a stripped copy of a checkpoint into $OUT (optimizer state dropped: < 16 MiB)
  python3 -c "import sys; from ultralytics.utils.torch_utils import strip_optimizer; strip_optimizer(sys.argv[1], sys.argv[2])" "$1" "$2" >/dev/null 2>&1
}
keep() {  # RUN PREFIX: the run's best weights and results so far into $OUT
  [ -f "$1/weights/best.pt" ] && strip_to_out "$1/weights/best.pt" "$OUT/$2best.pt.tmp" && mv "$OUT/$2best.pt.tmp" "$OUT/$2best.pt"
  [ -f "$1/results.csv" ] && cp "$1/results.csv" "$OUT/$2results.csv"
}
( while sleep 45; do keep "$RUN" ""; [ -n "$PARTNER_START" ] && keep "$PARTNER_RUN" partner_; done ) &
WATCH=$!

ARGS=(--data "$DATA" --imgsz "$IMGSZ" --epochs 200 --time "$HOURS" --batch "$BATCH" --freeze 0 --lr0 "$LR0"
      --warmup-epochs "$WARMUP" --close-mosaic 5 --device "$DEVICE")
if [ -n "$PARTNER_START" ]; then  # the two share the loader processes and the GPU
  HALF=$(((WORKERS + 1) / 2))
  log "train: $HOURS h at $IMGSZ, batch $BATCH, from $START and (partner) $PARTNER_START side by side"
  python3 -m xingzi train "${ARGS[@]}" --model "$START" --workers "$HALF" --name "$NAME" &
  MAIN_PID=$!
  # the label caches are written once, by the first run (two writers of one file would race); val's comes last
  for _ in $(seq 120); do [ -f "$REAL/val/labels.cache" ] && break; sleep 1; done
  python3 -m xingzi train "${ARGS[@]}" --model "$PARTNER_START" --workers "$HALF" --name "${NAME}_partner" \
      >"$OUT/partner.log" 2>&1
  PARTNER_RC=$?
  wait $MAIN_PID
  RC=$?
  log "partner train exit $PARTNER_RC"; tail -3 "$OUT/partner.log"; rm -f "$OUT/partner.log"
  [ "$RC" = 0 ] && RC=$PARTNER_RC
else
  log "train: $HOURS h at $IMGSZ, batch $BATCH"
  python3 -m xingzi train "${ARGS[@]}" --model "$START" --workers "$WORKERS" --name "$NAME"
  RC=$?
fi
kill $WATCH 2>/dev/null
log "train exit $RC"
keep "$RUN" ""
if [ -n "$PARTNER_START" ]; then  # eight files at most come back: the partner's best instead of last.pt
  keep "$PARTNER_RUN" partner_
else
  [ -f "$RUN/weights/last.pt" ] && strip_to_out "$RUN/weights/last.pt" "$OUT/last.pt"
fi
for f in args.yaml xingzi_train.json; do [ -f "$RUN/$f" ] && cp "$RUN/$f" "$OUT/"; done
ls -la "$OUT"
log "done"
exit $RC
