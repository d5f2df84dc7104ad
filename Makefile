# Two commands get a fresh machine going: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export YOLO_OFFLINE := 1
export YOLO_CONFIG_DIR := $(CURDIR)/models/ultralytics_config

.PHONY: demo test lint bench install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q torch==2.14.1 torchvision==0.29.1
	$(BIN)/pip install -q -e ".[vision,web,dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/xingzi score --json examples/situation.json

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/xingzi bench engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
