"""The evaluation tenants: one per corpus, whose index holds that corpus as the product ingests it.

Tenant ``<prefix>-<corpus>`` (``eval-pgdocs``, ``eval-gitdocs`` by default) is ingested from
the corpus root with :func:`corpus.ingest_paths` when its index is empty, when asked, or
when it is stale: a few sample files, chunked now as ingestion would chunk them, do not
match what the index holds for them (the chunker or a loader changed since), so a run
never measures chunks the product would no longer make. Otherwise runs reuse it. The files
are those :func:`corpus.loaders.collect_files` finds under the root (what
:mod:`evaluation.check` checked the labels against), minus the pages in :data:`SKIP_PAGES`.
A hybrid tenant's (``--retrieval hybrid``) chunks are embedded too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from elasticsearch import Elasticsearch
from langchain_core.embeddings import Embeddings

from corpus import IngestReport, validate_tenant_id
from corpus.freshness import ensure_indexed as keep_indexed
from corpus.loaders import collect_files
from workers.cli.demo import SKIP_PAGES as DEMO_SKIP_PAGES

SKIP_PAGES: dict[str, frozenset[str]] = {"pgdocs": frozenset(DEMO_SKIP_PAGES)}
"""File names left out per corpus: the manual's back-of-book index lists every term and
would top most BM25 searches (as in ``crag demo``)."""

ONLY_SUFFIXES: dict[str, frozenset[str]] = {"gitdocs": frozenset({".html"})}
"""Corpora indexed from some file types only: ``git-doc`` ships each page twice, as HTML
and as its AsciiDoc ``.txt`` source, and the labels name the HTML pages."""


def tenant_for(prefix: str, corpus: str) -> str:
    """The evaluation tenant of ``corpus``: ``<prefix>-<corpus>``.

    Raises:
        ValueError: The result is not a valid tenant id.
    """
    return validate_tenant_id(f"{prefix}-{corpus}")


def corpus_files(corpus: str, root: Path) -> list[Path]:
    """The files of ``corpus`` under ``root`` that the evaluation tenant indexes.

    Raises:
        corpus.IngestError: ``root`` does not exist.
    """
    skip = SKIP_PAGES.get(corpus, frozenset())
    only = ONLY_SUFFIXES.get(corpus)
    return [
        path
        for path in collect_files([root]).files
        if path.name not in skip and (only is None or path.suffix.lower() in only)
    ]


def ensure_indexed(
    es: Elasticsearch,
    tenant: str,
    corpus: str,
    root: Path,
    *,
    index_prefix: str,
    reingest: bool = False,
    embeddings: Embeddings | None = None,
    say: Callable[[str], None] = print,
) -> IngestReport | None:
    """Ingest ``corpus`` from ``root`` into ``tenant``'s index if it is empty or stale.

    Args:
        es: Elasticsearch client.
        tenant: The evaluation tenant (:func:`tenant_for`).
        corpus: The corpus name (selects :data:`SKIP_PAGES`).
        root: The corpus root directory.
        index_prefix: Settings ``index_prefix``.
        reingest: Ingest even if the index looks current.
        embeddings: Give every chunk a vector (a hybrid tenant); ``None``: BM25 only.
        say: Where progress lines go.

    Returns:
        The ingest report, or ``None`` when the index was current.

    Raises:
        corpus.IngestError: ``root`` is missing, or Elasticsearch refused a read or write.
        pipeline.deps.RetrievalError: Elasticsearch could not be reached.
        ValueError: No supported file under ``root``.
    """
    files = corpus_files(corpus, root)
    if not files:
        raise ValueError(f"corpus {corpus!r}: no supported files under {root}")
    report = keep_indexed(
        es, tenant, files, index_prefix=index_prefix, reingest=reingest,
        embeddings=embeddings, say=say,
    )  # fmt: skip
    if report is not None:
        say(f"  {report.describe()}")
    return report
