# The two commands of a fresh machine: `make demo` (the main job) and `make test` (everything).
# Both bring the local services up first (infra/up is idempotent: ~2 s when already up).
.PHONY: demo test lint up tools down status

VENV := .venv/bin
# Checkpoints are encrypted; infra/up writes this local key file (production: deployment secrets).
export CRAG_CHECKPOINT_KEY_FILE ?= $(CURDIR)/.infra/checkpoint-keys.json

demo: up
	$(VENV)/crag demo

# The suite drives the local model only for plumbing, so it serves the fast 135M one; run
# `make test CRAG_LLM_MODEL=qwen2.5-coder-1.5b-instruct` for the default model instead.
test: export CRAG_LLM_MODEL ?= smollm2-135m-instruct
test: up tools lint
	$(VENV)/pytest

lint:
	$(VENV)/ruff check .
	$(VENV)/ruff format --check .
	$(VENV)/mypy
	$(VENV)/lint-imports --no-cache

up:
	infra/up

tools:
	infra/tools

down:
	infra/down

status:
	infra/status
