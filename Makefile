# The two commands of a fresh machine: `make demo` (the main job) and `make test` (everything).
# Both bring the local services up first (infra/up is idempotent: ~2 s when already up).
.PHONY: demo test lint up tools down status

VENV := .venv/bin
# Checkpoints are encrypted; infra/up writes this local key file (production: deployment secrets).
export CRAG_CHECKPOINT_KEY_FILE ?= $(CURDIR)/.infra/checkpoint-keys.json

demo: up
	$(VENV)/crag demo

test: up tools lint
	$(VENV)/pytest

lint:
	$(VENV)/ruff check .
	$(VENV)/ruff format --check .
	$(VENV)/mypy

up:
	infra/up

tools:
	infra/tools

down:
	infra/down

status:
	infra/status
