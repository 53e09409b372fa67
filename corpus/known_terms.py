"""Which words a tenant's own corpus holds: a known-safe source for web-query minimising.

:class:`IndexVocabulary` is the ``known_terms`` lookup of
:class:`redaction.minimise.Minimiser`: given the words of a question that no word list
knows (unknown product names, mostly), it asks the tenant's index, in one ``_msearch``
request, which of them occur in at least ``min_chunks`` of the tenant's chunks. A word
seen in a few chunks only (a person named once in a ticket export) does not count, and the
minimiser never lets a word of its name lists leave whatever the corpus says.

Any Elasticsearch failure counts as "the corpus knows none of them": a missing source of
safe words can only make the query shorter, never longer.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Collection

from elasticsearch import Elasticsearch

from corpus.index import DEFAULT_INDEX_PREFIX, TENANT_FIELD, TEXT_FIELD, index_name

log = logging.getLogger(__name__)

DEFAULT_MIN_CHUNKS = 3
"""Chunks a word must occur in to count as the tenant's vocabulary."""


class IndexVocabulary:
    """Looks words up in one tenant's index, with a per-process cache of the answers."""

    def __init__(
        self,
        es: Elasticsearch,
        tenant_id: str,
        *,
        index_prefix: str = DEFAULT_INDEX_PREFIX,
        min_chunks: int = DEFAULT_MIN_CHUNKS,
        cache: OrderedDict[str, bool] | None = None,
        cache_size: int = 4096,
    ) -> None:
        """Bind to ``tenant_id``'s index; makes no request.

        Args:
            es: The Elasticsearch client.
            tenant_id: Whose index.
            index_prefix: Index name prefix (settings ``index_prefix``).
            min_chunks: Chunks a word must occur in (>= 1).
            cache: Shared answers (word -> known), e.g. one per tenant kept by the worker.
            cache_size: Entries kept in the cache (oldest dropped first).

        Raises:
            ValueError: ``min_chunks`` is below 1.
        """
        if min_chunks < 1:
            raise ValueError(f"min_chunks must be >= 1, got {min_chunks}")
        self._es = es
        self._index = index_name(tenant_id, index_prefix)
        self._tenant = tenant_id
        self._min = min_chunks
        self._cache: OrderedDict[str, bool] = cache if cache is not None else OrderedDict()
        self._size = cache_size

    def __call__(self, words: Collection[str]) -> set[str]:
        """The words of ``words`` that occur in at least ``min_chunks`` of the tenant's chunks."""
        missing = [w for w in words if w not in self._cache]
        if missing:
            self._ask(missing)
        return {w for w in words if self._cache.get(w)}

    def _ask(self, words: list[str]) -> None:
        searches: list[dict[str, object]] = []
        for word in words:
            searches.append({"index": self._index})
            searches.append(
                {
                    "size": 0,
                    "track_total_hits": self._min,
                    "query": {
                        "bool": {
                            "filter": [
                                {"match": {TEXT_FIELD: {"query": word, "operator": "and"}}},
                                {"term": {TENANT_FIELD: self._tenant}},
                            ]
                        }
                    },
                }
            )
        try:
            responses = self._es.msearch(searches=searches)["responses"]
        except Exception as exc:  # any failure: the corpus vouches for nothing
            log.warning("corpus vocabulary lookup failed for %s: %s", self._tenant, exc)
            return
        for word, response in zip(words, responses, strict=True):
            total = response.get("hits", {}).get("total", {}).get("value", 0)
            self._remember(word, "error" not in response and total >= self._min)

    def _remember(self, word: str, known: bool) -> None:
        self._cache[word] = known
        self._cache.move_to_end(word)
        while len(self._cache) > self._size:
            self._cache.popitem(last=False)
