"""Running an evaluation: select the items, prepare the tenants, run the arms, summarise.

:func:`select_items` loads and filters the labelled questions; :func:`run_eval` runs them
through the arms chosen, one item at a time (every arm of an item before the next, so the
arms meet the same service conditions over a long run; the gold-context arm,
:mod:`evaluation.gold`, skips unanswerable kinds), with a progress bar, and returns the
:class:`~evaluation.report.EvalReport`. ``crag eval`` (:mod:`workers.cli.evaluate`) is the
command line over both.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from evaluation.corpora import ensure_indexed, tenant_for
from evaluation.dataset import CORPUS_ROOTS, EvalItem, dataset_paths, load_items
from evaluation.report import EvalReport, RunSettings, build_report
from evaluation.scoring import Arm, ItemResult, RetrievalResult, is_answerable, retrieval_result
from evaluation.scoring import score_item as judge_item
from workers.settings import Settings

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from rich.console import Console

    from corpus import TenantRetriever

ARMS: tuple[Arm, ...] = ("graph", "naive", "gold")
ROOT = Path(__file__).resolve().parent.parent
"""The repository root: the worker's working directory and where the git commit is read."""


@dataclass(frozen=True)
class Selection:
    """Which items to evaluate.

    Attributes:
        split: ``dev``, ``heldout`` or ``all``; ``None``: ``dev`` for the shipped files, no
            filter for ``files``.
        corpora: Only these corpora (empty: all).
        kinds: Only these kinds (empty: all).
        ids: Only these ids, in file order (empty: all).
        limit: At most this many items, after the other filters.
        files: Custom JSONL files instead of the shipped ones.
    """

    split: str | None = None
    corpora: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    limit: int | None = None
    files: tuple[Path, ...] = ()


def select_items(selection: Selection) -> list[EvalItem]:
    """Load the selected files and apply the filters.

    Raises:
        DatasetError: A file is missing or holds a malformed entry (which line, which field).
        ValueError: An unknown split, corpus or kind, or an id that is not in the files.
    """
    if selection.split not in (None, "all", "dev", "heldout"):
        raise ValueError(f"unknown split {selection.split!r}; expected dev, heldout or all")
    if selection.files:
        items = load_items(list(selection.files))
        if selection.split not in (None, "all"):
            items = [i for i in items if i.split == selection.split]
    else:
        split = selection.split or "dev"
        items = load_items(dataset_paths(split, list(selection.corpora) or None))
    from evaluation.dataset import CORPORA, KINDS

    for name, wanted, known in (
        ("corpus", selection.corpora, CORPORA),
        ("kind", selection.kinds, KINDS),
    ):
        unknown = [w for w in wanted if w not in known]
        if unknown:
            raise ValueError(f"unknown {name} {', '.join(unknown)}; expected {', '.join(known)}")
    if selection.corpora:
        items = [i for i in items if i.corpus in selection.corpora]
    if selection.kinds:
        items = [i for i in items if i.kind in selection.kinds]
    if selection.ids:
        missing = sorted(set(selection.ids) - {i.id for i in items})
        if missing:
            raise ValueError(f"ids not among the selected items: {', '.join(missing)}")
        items = [i for i in items if i.id in selection.ids]
    return items[: selection.limit] if selection.limit is not None else items


@dataclass(frozen=True)
class RunOptions:
    """How to run the arms.

    Attributes:
        arms: Which arms (``graph``, ``naive``, ``gold``: :mod:`evaluation.gold`).
        retrieval_only: Only hit@k: no worker, no model.
        reingest: Ingest the corpora again even if their indexes look current.
        timeout_s: Each graph job's deadline, seconds.
        tenant_prefix: Tenants are ``<prefix>-<corpus>`` (``…-hybrid`` for hybrid).
        retrieval: ``bm25`` or ``hybrid``: how the tenants' indexes are built and searched,
            by the fleet (the tenant's setting), the naive arm and hit@k alike.
        corpus_roots: Root per corpus (default :data:`evaluation.dataset.CORPUS_ROOTS`).
        worker_env: The graph arm's worker environment (its queue is set here).
        worker_log: Where the worker's output goes.
    """

    arms: tuple[Arm, ...] = ("graph", "naive")
    retrieval_only: bool = False
    reingest: bool = False
    timeout_s: float = 900.0
    tenant_prefix: str = "eval"
    retrieval: str = "bm25"
    corpus_roots: Mapping[str, Path] = field(default_factory=dict)
    worker_env: Mapping[str, str] = field(default_factory=dict)
    worker_log: Path = Path(".infra/logs/eval-worker.log")


def git_commit(root: Path = ROOT) -> tuple[str | None, bool]:
    """The checked-out commit and whether the work tree has changes (``None``: not a repo)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None, False
    return head, bool(dirty)


def run_eval(
    settings: Settings,
    items: Sequence[EvalItem],
    options: RunOptions,
    selection: Selection,
    console: Console,
) -> EvalReport:
    """Evaluate ``items``: hit@k always, then each arm of ``options`` unless retrieval-only.

    Raises:
        corpus.IngestError, pipeline.deps.RetrievalError: Elasticsearch failed.
        RuntimeError: The graph arm's worker did not start.
    """
    from corpus import TenantRetriever, make_es_client

    started = datetime.now(UTC).isoformat(timespec="seconds")
    commit, dirty = git_commit()  # at the start: what ran, even if HEAD moves meanwhile
    es = make_es_client(settings.elasticsearch_url)
    embeddings = _embeddings(settings) if options.retrieval == "hybrid" else None
    tenants: dict[str, str] = {}
    for corpus in dict.fromkeys(i.corpus for i in items):
        name = corpus if embeddings is None else f"{corpus}-hybrid"
        tenants[corpus] = tenant_for(options.tenant_prefix, name)
        _register(settings, tenants[corpus], options.retrieval)
        root = Path(options.corpus_roots.get(corpus, CORPUS_ROOTS[corpus]))
        ensure_indexed(
            es,
            tenants[corpus],
            corpus,
            root,
            index_prefix=settings.index_prefix,
            reingest=options.reingest,
            embeddings=embeddings,
            say=lambda line: console.print(line, highlight=False),
        )
    retrievers = {
        c: TenantRetriever(
            es,
            t,
            index_prefix=settings.index_prefix,
            embeddings=embeddings,
            split_compound=settings.multi_hop,
        )
        for c, t in tenants.items()
    }
    k = settings.retrieve_k
    retrieval: list[RetrievalResult] = [
        retrieval_result(
            i, k, [(d["locator"], d["text"]) for d in retrievers[i.corpus].search(i.question, k)]
        )
        for i in items
        if is_answerable(i.kind)
    ]
    results: list[ItemResult] = []
    arms = () if options.retrieval_only else options.arms
    if arms:
        results = _run_arms(settings, items, options, arms, tenants, retrievers, console)
    meta = RunSettings(
        date=started,
        git_commit=commit,
        git_dirty=dirty,
        model=settings.llm_model,
        verifier_model=settings.verifier_model or settings.llm_model,
        llm_base_url=settings.llm_base_url,
        retrieve_k=k,
        retrieval=options.retrieval,
        max_rewrites=settings.max_rewrites,
        max_generations=settings.max_generations,
        split=selection.split or ("all" if selection.files else "dev"),
        corpora=list(tenants),
        kinds=list(selection.kinds),
        files=[str(f) for f in selection.files],
        arms=list(arms),
        retrieval_only=options.retrieval_only,
        tenants=tenants,
        timeout_s=options.timeout_s,
        items=len(items),
    )
    return build_report(meta, results, retrieval)


def _embeddings(settings: Settings) -> Embeddings:
    """The embedding model hybrid tenants use (``CRAG_EMBEDDINGS``).

    Raises:
        ValueError: ``CRAG_EMBEDDINGS`` is ``none``.
    """
    from workers.runtime.models import make_embeddings_for

    model = make_embeddings_for(settings)
    if model is None:
        raise ValueError("--retrieval hybrid needs CRAG_EMBEDDINGS (minilm or openai), not none")
    return model


def _register(settings: Settings, tenant: str, retrieval: str) -> None:
    """Register the evaluation tenant if needed, with the retrieval its worker must use."""
    from workers.core.tenants import ensure_tenant
    from workers.db import repository as repo
    from workers.db.engine import make_engine, make_sessionmaker, transaction

    engine = make_engine(settings.database_url, pool_size=1)
    try:
        sessions = make_sessionmaker(engine)
        ensure_tenant(sessions, tenant)
        with transaction(sessions) as session:
            row = repo.get_tenant(session, tenant)
            assert row is not None
            row.retrieval = retrieval
    finally:
        engine.dispose()


def _run_arms(
    settings: Settings,
    items: Sequence[EvalItem],
    options: RunOptions,
    arms: Sequence[Arm],
    tenants: Mapping[str, str],
    retrievers: Mapping[str, TenantRetriever],
    console: Console,
) -> list[ItemResult]:
    from contextlib import ExitStack

    from evaluation.fleet import FleetArm, forget_queues, worker_process
    from evaluation.naive import run_naive
    from evaluation.progress import EvalProgress
    from workers.runtime.models import make_chat_model

    results: list[ItemResult] = []
    with ExitStack() as stack:
        runners: dict[Arm, Callable[[EvalItem], ItemResult]] = {}
        if "graph" in arms:
            suffix = f"eval-{uuid.uuid4().hex[:12]}"
            queue = f"{settings.queue}.{suffix}"
            deliveries = f"{settings.delivery_queue}.{suffix}"
            env = dict(options.worker_env) | {
                "CRAG_QUEUE": queue,
                "CRAG_DELIVERY_QUEUE": deliveries,
            }
            fleet = FleetArm(settings, queue, options.timeout_s)  # fails fast on bad keys
            stack.callback(fleet.close)
            console.print(f"starting a worker on queue {queue} (log {options.worker_log}) …")
            stack.callback(forget_queues, settings.redis_url, [queue, deliveries])
            stack.enter_context(worker_process(env, options.worker_log, cwd=ROOT))
            runners["graph"] = lambda i: judge_item(i, "graph", fleet.run(i, tenants[i.corpus]))
        if "naive" in arms:
            model = make_chat_model(settings)
            k = settings.retrieve_k
            runners["naive"] = lambda i: judge_item(
                i, "naive", run_naive(i.question, retrievers[i.corpus], model, k)
            )
        if "gold" in arms:
            from corpus import make_es_client
            from evaluation.gold import GoldArm

            gold = GoldArm(settings, make_es_client(settings.elasticsearch_url), retrievers)
            runners["gold"] = lambda i: judge_item(i, "gold", gold.run(i))
        plan = [(i, a) for i in items for a in runners if a != "gold" or is_answerable(i.kind)]
        progress = stack.enter_context(EvalProgress(console, len(plan)))
        for item, arm in plan:
            progress.start(item.id, arm)
            result = runners[arm](item)
            results.append(result)
            progress.done(result)
    return results
