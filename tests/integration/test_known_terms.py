"""The tenant-corpus vocabulary for web-query minimising, on the real Elasticsearch."""

from __future__ import annotations

from typing import Any

import pytest

from corpus import make_es_client
from corpus.known_terms import IndexVocabulary
from redaction.egress import MinimisingRedactor
from redaction.minimise import load_vocabulary
from tests.unit.test_minimise import _Echo

pytestmark = pytest.mark.integration


def test_words_of_the_tenants_chunks_are_known(es: Any, corpus_tenant: str, settings: Any) -> None:
    lookup = IndexVocabulary(es, corpus_tenant, index_prefix=settings.index_prefix, min_chunks=1)
    assert lookup(["quillmate", "frobnicator", "zzqxnotaword"]) == {"quillmate", "frobnicator"}
    rare = IndexVocabulary(es, corpus_tenant, index_prefix=settings.index_prefix, min_chunks=50)
    assert rare(["quillmate"]) == set()


def test_another_tenant_and_a_dead_cluster_know_nothing(settings: Any, es: Any) -> None:
    assert (
        IndexVocabulary(es, "t-nobody-here", index_prefix=settings.index_prefix)(["quillmate"])
        == set()
    )
    dead = make_es_client("http://127.0.0.1:1", max_retries=0)
    assert IndexVocabulary(dead, "t-x")(["quillmate"]) == set()


def test_the_minimiser_keeps_a_product_only_the_corpus_knows(
    es: Any, corpus_tenant: str, settings: Any
) -> None:
    base = MinimisingRedactor(_Echo(), vocabulary=load_vocabulary())
    text = "the Quillmate frobnicator rattles after service"
    assert "Quillmate" not in base.redact(text).search_text
    lookup = IndexVocabulary(es, corpus_tenant, index_prefix=settings.index_prefix, min_chunks=1)
    assert "Quillmate frobnicator" in base.for_corpus(lookup).redact(text).search_text
