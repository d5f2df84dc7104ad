# Two commands get a fresh machine going: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export YOLO_OFFLINE := 1
export YOLO_CONFIG_DIR := $(CURDIR)/models/ultralytics_config
REAL_VAL ?= ../shared/data/real_cn_val

.PHONY: demo test lint bench eval ship mutants install clean

# engine/*.py: the install compiles the rules engine (mypyc), so an edited engine is rebuilt
$(STAMP): pyproject.toml setup.py $(wildcard engine/*.py)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q torch==2.14.1 torchvision==0.29.1
	$(BIN)/pip install -q -e ".[vision,web,dev]"
	touch $(STAMP)

install: $(STAMP)

# Read the bundled synthetic photo with the shipped detector, group, score, draw.
# Exit status 1 from `xingzi score` means "no legal hand read"; the demo still shows what was read.
demo: $(STAMP)
	$(BIN)/xingzi score examples/demo.jpg --out demo_annotated.jpg || test $$? -eq 1
	@echo "annotated photo: demo_annotated.jpg"
	$(BIN)/xingzi score --hand "12m456m789p22345s 3m" --discard

# Two workers (pytest-xdist): CI and this machine have 2 cores, and most tests run on one.
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/xingzi bench engine
	$(BIN)/xingzi bench synth --n 300
	$(BIN)/xingzi bench detector
	$(BIN)/xingzi bench pipeline --layouts
	$(BIN)/xingzi bench pipeline --random-layouts 3000 --seed 1

# Detector accuracy on the real validation photos (next to the mahjong-detector baseline).
eval: $(STAMP)
	# the baseline's weights ship in its package (MIT per its metadata; its deps are ours already)
	$(BIN)/python -c "import mahjong_detector" 2>/dev/null || $(BIN)/pip install --no-deps mahjong-detector==0.0.6
	$(BIN)/python -m xingzi.models.mahjong_detector_baseline $(REAL_VAL)/images runs/eval/preds_mahjong_detector
	$(BIN)/xingzi eval --data $(REAL_VAL) --model models/xingzi_yolo11n.onnx \
	    --preds runs/eval/preds_mahjong_detector --out runs/eval/real_cn_val --markdown
	# the whole pipeline on real tile pictures laid out as hands (datasets/composite.py)
	$(BIN)/python -m xingzi.datasets.composite --real $(REAL_VAL) --n 150 --seed 7 --out runs/eval/composite_s7
	$(BIN)/xingzi bench pipeline --data runs/eval/composite_s7 --boxes model

# Copy the best training checkpoint into models/ (optimizer stripped) and export ONNX.
ship: $(STAMP)
	$(BIN)/xingzi train --ship best

# How many small wrong changes to the code the tests catch (tools/mutants.py; a clone of HEAD in runs/mutants/clone;
# minutes to hours: not part of `make test`). PRESET: a table of tools/mutants.toml (engine, grouping, repair,
# datasets, web, metrics, benches, photo, synth, draw, judge, eval, commands, networks, labelling, figures, training,
# readers, payload).
PRESET ?= engine
SAMPLE ?= 300
SEED ?= 0
mutants: $(STAMP)
	$(BIN)/python -m tools.mutants run $(PRESET) --sample $(SAMPLE) --seed $(SEED) \
	    --out runs/mutants/$(PRESET)-$(shell git rev-parse --short HEAD)-n$(SAMPLE)-s$(SEED).jsonl

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
