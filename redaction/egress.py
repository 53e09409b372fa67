"""The redactor for web egress: minimise the query, then redact what is left (issue 11).

Presidio looks at the query twice: once on the whole question, where its context words
("address", "phone") are still there, so that every span it finds there is dropped by the
minimiser too; and once, as the second layer, on the minimised text that would leave.

:class:`MinimisingRedactor` is a :class:`~pipeline.deps.Redactor`: the graph's
``redact_query`` node and the worker call it like the plain Presidio redactor, and it
returns a :class:`~pipeline.deps.Redaction` whose ``search_text`` is what the provider
receives. When too little known-safe text is left, the redaction's ``withheld`` carries the
reason and the graph skips the web round instead of sending anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from pipeline.deps import Redaction, Redactor
from redaction.minimise import MIN_TERMS, Minimiser, Vocabulary, load_vocabulary
from redaction.minimise.patterns import version_after_product
from redaction.minimise.pieces import is_camel
from redaction.redactor import PresidioRedactor


class MinimisingRedactor:
    """Two layers: :class:`~redaction.minimise.Minimiser` first, then ``inner`` (Presidio).

    The minimiser keeps only the known-safe pieces of the text (and drops the tenant's deny
    terms); the inner redactor then runs on that shorter text with the same deny terms.
    A Presidio inner redactor is told which of its spans the minimiser vouches for (a
    package specifier read as an e-mail address, a dotted version read as a phone number,
    a run of common non-name words read as a person, a loopback address or a network read
    as a personal IP address: :meth:`Minimiser.vouches`); those stay.
    """

    def __init__(
        self,
        inner: Redactor,
        *,
        vocabulary: Vocabulary | None = None,
        known_terms: Callable[[Collection[str]], Collection[str]] | None = None,
        min_terms: int = MIN_TERMS,
    ) -> None:
        """Wrap ``inner``.

        Args:
            inner: The second layer, normally :class:`redaction.PresidioRedactor`.
            vocabulary: Word lists for the minimiser (default: loaded once per process).
            known_terms: Optional: the words, of those given, the tenant's corpus holds.
            min_terms: Fewer content terms left than this: the query is withheld.
        """
        self._inner = inner
        self._vocabulary = vocabulary or load_vocabulary()
        self._min_terms = min_terms
        self._minimiser = Minimiser(self._vocabulary, known_terms=known_terms, min_terms=min_terms)

    @property
    def inner(self) -> Redactor:
        """The second layer."""
        return self._inner

    def for_corpus(
        self, known_terms: Callable[[Collection[str]], Collection[str]]
    ) -> MinimisingRedactor:
        """The same redactor (same loaded Presidio and word lists) with a tenant's corpus."""
        return MinimisingRedactor(
            self._inner,
            vocabulary=self._vocabulary,
            known_terms=known_terms,
            min_terms=self._min_terms,
        )

    def redact(self, text: str, deny_terms: Sequence[str] = ()) -> Redaction:
        """Minimise ``text``, then redact it.

        Returns:
            The redaction of the minimised text. Its ``entities`` are those the inner
            redactor replaced; its ``withheld`` is set (and its text empty) when too little
            was left to search on.
        """
        found: list[tuple[int, int, str]] = []
        if isinstance(self._inner, PresidioRedactor):
            found = sorted(
                (r.start, r.end, r.entity_type)
                for r in self._inner.analyze(text, deny_terms, allow=self._allow_in(text))
            )
        minimised = self._minimiser.minimise(
            text, deny_terms, drop=[(start, end) for start, end, _ in found]
        )
        if minimised.reason is not None:
            return Redaction(text="", entities=[e for *_, e in found], withheld=minimised.reason)
        if isinstance(self._inner, PresidioRedactor):
            redaction = self._inner.redact(
                minimised.text, deny_terms, allow=self._allow_in(minimised.text)
            )
        else:
            redaction = self._inner.redact(minimised.text, deny_terms)
        entities = [e for *_, e in found] + list(redaction.entities)
        return Redaction(text=redaction.text, entities=entities)

    def _allow_in(self, text: str) -> Callable[[str, str], bool]:
        """The ``(entity, span) -> bool`` test of the spans of ``text`` Presidio may leave.

        Those :meth:`Minimiser.vouches` for, and a dotted quad shaped like a version (a
        first part of at most 30) right after a product the technical or brand vocabulary
        knows, or written in CamelCase ("HyperOS 1.0.4.0"; every place the span occurs in
        ``text`` must be one). Not after any capitalised word: "HostName 81.2.69.160", "My
        Synology 192.0.2.44" and "Comcast 73.162.45.201" are hosts.
        """

        def allow(entity: str, span: str) -> bool:
            if entity == "IP_ADDRESS" and self._version_shaped(span):
                places = [m.start() for m in re.finditer(re.escape(span), text)]
                if places and all(self._after_product(text, at) for at in places):
                    return True
            return self._minimiser.vouches(entity, span)

        return allow

    @staticmethod
    def _version_shaped(span: str) -> bool:
        parts = span.split(".")
        return len(parts) == 4 and all(p.isdigit() for p in parts) and int(parts[0]) <= 30

    def _after_product(self, text: str, at: int) -> bool:
        word = re.search(r"(\S+)\s+$", text[:at])
        if word is None or not version_after_product(text, at):
            return False
        folded = word.group(1).casefold()
        vocab = self._vocabulary
        return folded in vocab.technical or folded in vocab.brand_words or is_camel(word.group(1))


def build_egress_redactor(
    inner: Redactor | None = None,
    *,
    known_terms: Callable[[Collection[str]], Collection[str]] | None = None,
) -> MinimisingRedactor:
    """The process-wide web-egress redactor: minimiser + Presidio (loads both, ~2-4 s).

    Args:
        inner: The second layer; default :func:`redaction.build_redactor`.
        known_terms: Optional tenant-corpus lookup for the minimiser.
    """
    if inner is None:
        from redaction.build import build_redactor

        inner = build_redactor()
    return MinimisingRedactor(inner, known_terms=known_terms)
