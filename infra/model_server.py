"""Local OpenAI-compatible model server for development and tests (started by ``infra/up``).

Serves one local GGUF (see :mod:`local_models`: Qwen2.5-Coder-1.5B-Instruct by default,
assembled from PyPI parts; SmolLM2-135M for the fast plumbing tests) with xllamacpp's
embedded llama.cpp HTTP server. The server answers to any model name; the model's name is
also registered as its alias so ``/v1/models`` lists what is served.

Run: ``.venv/bin/python infra/model_server.py --model qwen2.5-coder-1.5b-instruct --port 28080
--pidfile .infra/run/model.pid``. Stops cleanly on SIGTERM/SIGINT (removes its pid file).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from local_models import DEFAULT_MODEL, ModelFetchError, gguf_path

FLASH_ATTN = {"auto": -1, "off": 0, "on": 1}
"""llama.cpp's ``llama_flash_attn_type`` values."""

KV_TYPES = {"f16": 1, "q8_0": 8}
"""``ggml_type`` values of the KV cache element types offered."""


def find_gguf(name: str) -> Path:
    """Return the GGUF to serve: ``CRAG_MODEL_PATH`` if set, else the local model ``name``."""
    override = os.environ.get("CRAG_MODEL_PATH")
    if override:
        return Path(override)
    try:
        return gguf_path(name)
    except ModelFetchError as exc:
        sys.exit(f"model_server: {exc}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (defaults match workers/settings.py)."""
    env = os.environ.get
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=28080)
    p.add_argument("--model", default=env("CRAG_LLM_MODEL", DEFAULT_MODEL), help="local model")
    p.add_argument(
        "--ctx",
        type=int,
        default=int(env("CRAG_MODEL_CTX", "16384")),
        help="total KV context, split across --parallel slots (16384/2 = the model's 8192)",
    )
    p.add_argument("--parallel", type=int, default=int(env("CRAG_MODEL_PARALLEL", "2")))
    p.add_argument("--threads", type=int, default=int(env("CRAG_MODEL_THREADS", "2")))
    p.add_argument(
        "--flash-attn",
        choices=sorted(FLASH_ATTN),
        default=env("CRAG_MODEL_FLASH_ATTN", "auto"),
        help="flash attention (llama.cpp's auto turns it on where the backend supports it)",
    )
    p.add_argument(
        "--kv-cache-type",
        choices=sorted(KV_TYPES),
        default=env("CRAG_MODEL_KV_CACHE_TYPE", "f16"),
        help="KV cache element type (q8_0 halves its memory)",
    )
    p.add_argument(
        "--ubatch",
        type=int,
        default=int(env("CRAG_MODEL_UBATCH", "512")),
        help="physical batch of prompt tokens per forward pass",
    )
    p.add_argument("--pidfile", type=Path, default=None)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Start the server and block until SIGTERM/SIGINT."""
    args = parse_args(argv)
    gguf = find_gguf(args.model)
    if not gguf.is_file():
        sys.exit(f"model_server: GGUF not found: {gguf}")

    import xllamacpp  # heavy native module: import after the cheap checks

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.hostnames = [args.host]
    params.port = args.port
    params.model_alias = {args.model}
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.n_threads_http = max(4, args.parallel * 2)
    params.flash_attn_type = FLASH_ATTN[args.flash_attn]
    params.cache_type_k = params.cache_type_v = KV_TYPES[args.kv_cache_type]
    params.n_ubatch = args.ubatch

    def stop(signum: int, _frame: object) -> None:
        print(f"model_server: signal {signum}, exiting", flush=True)
        if args.pidfile is not None:
            try:
                if args.pidfile.read_text().strip() == str(os.getpid()):
                    args.pidfile.unlink()
            except OSError:
                pass
        # The embedded HTTP server has no stop(); its threads hold no state worth flushing.
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

    if args.pidfile is not None:
        args.pidfile.parent.mkdir(parents=True, exist_ok=True)
        args.pidfile.write_text(f"{os.getpid()}\n")

    started = time.monotonic()
    print(
        f"model_server: loading {gguf} on {args.host}:{args.port} model={args.model} "
        f"n_ctx={args.ctx} n_parallel={args.parallel} threads={args.threads} "
        f"flash_attn={args.flash_attn} kv={args.kv_cache_type} ubatch={args.ubatch}",
        flush=True,
    )
    server = xllamacpp.Server(params)
    print(
        f"model_server: listening on {server.listening_address} "
        f"after {time.monotonic() - started:.1f}s",
        flush=True,
    )
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
