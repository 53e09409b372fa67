"""``crag eval``: the labelled questions through the fleet and a naive-RAG baseline, scored."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from workers.cli.tenants import RetrievalMode
from workers.settings import get_settings


def _split_list(values: list[str] | None) -> tuple[str, ...]:
    """``["a,b", "c"]`` → ``("a", "b", "c")``: options take repeats and commas alike."""
    return tuple(v.strip() for value in values or [] for v in value.split(",") if v.strip())


def _roots(values: list[str] | None) -> dict[str, Path]:
    roots = {}
    for value in values or []:
        corpus, sep, path = value.partition("=")
        if not sep or not corpus or not path:
            raise typer.BadParameter(
                f"expected CORPUS=PATH, got {value!r}", param_hint="--corpus-root"
            )
        roots[corpus] = Path(path)
    return roots


def evaluate(
    split: Annotated[
        str | None,
        typer.Option(help="dev, heldout or all (default: dev; with --file: every entry)."),
    ] = None,
    corpus: Annotated[
        list[str] | None, typer.Option(help="Only this corpus (pgdocs, gitdocs); repeatable.")
    ] = None,
    kind: Annotated[
        list[str] | None, typer.Option(help="Only this kind (answerable, …); repeatable.")
    ] = None,
    ids: Annotated[
        list[str] | None, typer.Option("--ids", help="Only these ids (comma-separated).")
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most N items.")] = None,
    file: Annotated[
        list[Path] | None,
        typer.Option(help="Evaluate this JSONL file instead of the shipped set; repeatable."),
    ] = None,
    arms: Annotated[
        str,
        typer.Option(
            help="Arms to run: graph, naive, gold (the graph with the labelled answer chunks "
            "retrieved: where answers are lost)."
        ),
    ] = "graph,naive",
    retrieval_only: Annotated[
        bool, typer.Option("--retrieval-only", help="Only hit@k: no worker, no model calls.")
    ] = False,
    reingest: Annotated[
        bool, typer.Option("--reingest", help="Ingest the corpora again (stale ones always are).")
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="Results JSON (default .infra/eval/<time>.json).")
    ] = None,
    timeout: Annotated[
        float, typer.Option(min=1, help="Seconds each graph job may take (its deadline).")
    ] = 900.0,
    tenant_prefix: Annotated[
        str, typer.Option(help="Evaluation tenants are <prefix>-<corpus>.")
    ] = "eval",
    corpus_root: Annotated[
        list[str] | None,
        typer.Option(
            help="CORPUS=PATH: read a corpus from PATH (ingested if its tenant's "
            "index is empty); repeatable."
        ),
    ] = None,
    worker_log: Annotated[
        Path | None, typer.Option(help="Worker log (default .infra/logs/eval-worker.log).")
    ] = None,
    rescore: Annotated[
        Path | None,
        typer.Option(
            help="Judge a stored results JSON again with the current scoring rules (no "
            "model call); writes --out (default: next to it) and prints the table."
        ),
    ] = None,
    retrieval: Annotated[
        RetrievalMode,
        typer.Option(
            help="bm25, or hybrid (tenants <prefix>-<corpus>-hybrid, embedded at ingest; "
            "both arms and hit@k search the same way)."
        ),
    ] = RetrievalMode.bm25,
) -> None:
    """Score the fleet (graph arm) and naive RAG on the labelled questions.

    Prints a progress bar while it runs, then the results table (per arm and kind, hit@k,
    and the targets); writes every item's result and the summary as JSON. Exit codes: 0 done,
    1 a service failed, 2 bad input (a malformed evaluation file names the line and field).
    """
    from rich.console import Console

    from corpus import IngestError
    from evaluation.dataset import DatasetError
    from evaluation.run import ARMS, RunOptions, Selection, run_eval, select_items
    from pipeline.deps import RetrievalError

    if rescore is not None:
        _rescore(rescore, out, tuple(file or ()))
        return
    chosen = _split_list([arms])
    unknown = [a for a in chosen if a not in ARMS]
    if unknown or not chosen:
        raise typer.BadParameter(f"arms are {', '.join(ARMS)}; got {arms!r}", param_hint="--arms")
    selection = Selection(
        split=split,
        corpora=_split_list(corpus),
        kinds=_split_list(kind),
        ids=_split_list(ids),
        limit=limit,
        files=tuple(file or ()),
    )
    try:
        items = select_items(selection)
    except DatasetError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
    except ValueError as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(2) from exc
    if not items:
        typer.secho("error: no items match the filters", fg="red", err=True)
        raise typer.Exit(2)

    infra = Path(os.environ.get("CRAG_INFRA_DIR", ".infra"))
    options = RunOptions(
        arms=tuple(a for a in ARMS if a in chosen),
        retrieval_only=retrieval_only,
        reingest=reingest,
        timeout_s=timeout,
        tenant_prefix=tenant_prefix,
        retrieval=retrieval.value,
        corpus_roots=_roots(corpus_root),
        worker_env=dict(os.environ),
        worker_log=worker_log or infra / "logs" / "eval-worker.log",
    )
    console = Console(stderr=True)
    try:
        report = run_eval(get_settings(), items, options, selection, console)
    except (IngestError, RetrievalError, RuntimeError) as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(1) from exc
    except ValueError as exc:  # a corpus root without documents, a bad tenant prefix
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(2) from exc

    from evaluation.report import render_table

    path = out or infra / "eval" / f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.model_dump_json(indent=2) + "\n")
    typer.echo(render_table(report))
    typer.echo(f"results: {path}", err=True)


def _rescore(path: Path, out: Path | None, files: tuple[Path, ...]) -> None:
    """``crag eval --rescore``: the stored run judged again, written and printed."""
    from pydantic import ValidationError

    from evaluation.dataset import DatasetError
    from evaluation.report import EvalReport, render_table, rescore
    from evaluation.run import Selection, select_items

    try:
        stored = EvalReport.model_validate_json(path.read_text())
        items = {i.id: i for i in select_items(Selection(split="all", files=files))}
        report = rescore(stored, items)
    except (OSError, ValidationError, DatasetError, KeyError) as exc:
        typer.secho(f"error: cannot rescore {path}: {exc}", fg="red", err=True)
        raise typer.Exit(2) from exc
    target = out or path.with_name(path.stem + ".rescored.json")
    target.write_text(report.model_dump_json(indent=2) + "\n")
    typer.echo(render_table(report))
    typer.echo(f"results: {target}", err=True)
