#!/bin/sh
# Trains an MRZ recogniser (a Tesseract LSTM, tesstrain style) on MRZ lines of the TUNING generator
# (bench/checks/mrz-training-lines.ts: several stroke weights, blur, glare, shadows, the reader's
# binarisations; never the held-out generator under bench/checks/heldout) and writes a traineddata that
# tesseract.js loads. docs/checks.md "A recogniser trained on the tuning generator" has the figures.
#
# The shipped assets/ocr/mrz.traineddata (tesseractMRZ) cannot be fine-tuned: it is an integer ("fast")
# model, and lstmtraining refuses to continue from one ("is an integer (fast) model, cannot continue
# training"); no tool turns it back into floats. So the network is trained from scratch (NET_SPEC), with
# the shipped model's character set (its lstm-unicharset and lstm-recoder), and compared with it.
#
#   npm run build && nice -n 10 sh scripts/train-mrz-model.sh     # -> $WORK_DIR/mrz.traineddata
#
# Needs Debian's tesseract-ocr (5.3.0: tesseract, combine_tessdata, lstmtraining, lstmeval). Environment:
#   WORK_DIR       default: /tmp/mrz-train
#   DOCUMENTS      training documents (2-3 lines each, 2 images per line), default 700; seed TRAIN_SEED
#   EVAL_DOCUMENTS held-back documents for lstmeval, default 60; seed EVAL_SEED
#   ITERATIONS     lstmtraining --max_iterations, default 5600
#   LEARNING_RATE  default 0.002 (tesstrain's rate for a new network)
#   NET_SPEC       default a small network: [1,32,0,1 Ct3,3,16 Mp3,3 Lfys32 Lbx64 O1c40] (40 = the unicharset)
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
WORK_DIR=${WORK_DIR:-/tmp/mrz-train}
DOCUMENTS=${DOCUMENTS:-700}
EVAL_DOCUMENTS=${EVAL_DOCUMENTS:-60}
TRAIN_SEED=${TRAIN_SEED:-20261210}
EVAL_SEED=${EVAL_SEED:-20261211}
ITERATIONS=${ITERATIONS:-5600}
LEARNING_RATE=${LEARNING_RATE:-0.002}
NET_SPEC=${NET_SPEC:-[1,32,0,1 Ct3,3,16 Mp3,3 Lfys32 Lbx64 O1c40]}
node="$here/node_modules/.bin/node"

mkdir -p "$WORK_DIR/base" "$WORK_DIR/out"
cp "$here/assets/ocr/mrz.traineddata" "$WORK_DIR/base/mrz.traineddata"

# Line images with their text (and a WordStr box each), then tesseract's training form of each (.lstmf).
[ -d "$WORK_DIR/lines" ] || "$node" "$here/dist/bench/checks/mrz-training-lines.js" "$WORK_DIR/lines" "$DOCUMENTS" "$TRAIN_SEED"
[ -d "$WORK_DIR/lines-eval" ] || "$node" "$here/dist/bench/checks/mrz-training-lines.js" "$WORK_DIR/lines-eval" "$EVAL_DOCUMENTS" "$EVAL_SEED"
for set in lines lines-eval; do
  ls "$WORK_DIR/$set"/*.box | sed 's/\.box$//' | while read -r b; do [ -f "$b.lstmf" ] || echo "$b"; done |
    xargs -P 2 -I{} tesseract {}.png {} --psm 13 lstm.train >/dev/null 2>&1
  ls "$WORK_DIR/$set"/*.lstmf > "$WORK_DIR/$set.list"
done

# A new network over the shipped model's character set (its unicharset and recoder).
lstmtraining \
  --net_spec "$NET_SPEC" \
  --traineddata "$WORK_DIR/base/mrz.traineddata" \
  --model_output "$WORK_DIR/out/mrz" \
  --train_listfile "$WORK_DIR/lines.list" \
  --eval_listfile "$WORK_DIR/lines-eval.list" \
  --learning_rate "$LEARNING_RATE" \
  --max_iterations "$ITERATIONS" \
  --target_error_rate 0.005 \
  --debug_interval 0 2>&1 | tee "$WORK_DIR/out/training.log" | grep -E 'At iteration|Finished|best' || true

# As integers ("fast"), as the shipped model: tesseract.js's core has no float dot product and aborts on a
# float model ("missing function: ...DotProductSSE...").
lstmtraining --stop_training --convert_to_int \
  --continue_from "$WORK_DIR/out/mrz_checkpoint" \
  --traineddata "$WORK_DIR/base/mrz.traineddata" \
  --model_output "$WORK_DIR/mrz.traineddata"

# Character and word error on the held-back lines, before and after.
cd "$WORK_DIR"
echo "base model:"; lstmeval --model "$WORK_DIR/base/mrz.traineddata" --eval_listfile "$WORK_DIR/lines-eval.list" 2>&1 | tail -1
echo "fine-tuned:"; lstmeval --model "$WORK_DIR/mrz.traineddata" --eval_listfile "$WORK_DIR/lines-eval.list" 2>&1 | tail -1
sha256sum "$WORK_DIR/mrz.traineddata"
