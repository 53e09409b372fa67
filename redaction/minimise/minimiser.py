"""The minimiser itself: :class:`Minimiser` and its result, :class:`Minimised`.

:meth:`Minimiser.minimise` runs the steps in order: split the question into pieces
(:mod:`~redaction.minimise.pieces`), ask the tenant's corpus about the words no list knows,
mark quoted passages, drop every piece touching a structured value or deny term
(:mod:`~redaction.minimise.patterns`) and the values after personal cues
(:mod:`~redaction.minimise.cues`), classify the rest and spread names to their neighbours
(:mod:`~redaction.minimise.classify`), then join the kept pieces.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from redaction.minimise.addresses import apply_address_cues
from redaction.minimise.classify import Classifier
from redaction.minimise.cues import apply_cues
from redaction.minimise.introductions import apply_introductions
from redaction.minimise.networks import is_network, is_nobodys_address
from redaction.minimise.numbers import drop_unanchored_numbers
from redaction.minimise.patterns import EMAIL, QUOTED, forced_spans, is_version, month_names
from redaction.minimise.pieces import CJK, Piece, mostly_caps, neighbour_kept, split_pieces
from redaction.minimise.vocabulary import Vocabulary, is_name, load_vocabulary

MIN_TERMS = 2
"""Fewer content terms than this left after minimising: the web round is skipped."""

_MAX_CORPUS_WORDS = 24
"""At most this many of a question's unknown words are asked of the tenant's corpus."""


@dataclass(frozen=True)
class Minimised:
    """What is left of a question after minimising.

    Attributes:
        text: The kept pieces in their order; pieces that were next to each other keep the
            text between them ("Rats! WebGL hit a snag."), a gap left by a dropped piece
            becomes one space.
        terms: Content terms kept: technical tokens, and words of 3+ letters that are not
            function words (zipf < 5.5: "release" counts, "the" and "what" do not).
        dropped: Pieces dropped.
        reason: Set when fewer than ``min_terms`` content terms are left: why the query
            should not be sent. None when it may be sent.
    """

    text: str
    terms: int
    dropped: int
    reason: str | None = None


class Minimiser:
    """Keeps the known-safe pieces of a question; see :mod:`redaction.minimise`.

    Pure and cheap (well under a millisecond per question once the vocabulary is loaded);
    makes no network call.
    """

    def __init__(
        self,
        vocabulary: Vocabulary | None = None,
        *,
        known_terms: Callable[[Collection[str]], Collection[str]] | None = None,
        min_terms: int = MIN_TERMS,
    ) -> None:
        """Set up a minimiser.

        Args:
            vocabulary: Word lists; default :func:`load_vocabulary`.
            known_terms: Optional: given the case-folded words of a question that no list
                knows, returns those the tenant's own corpus holds. Called at most once per
                :meth:`minimise`; such words are kept unless they are names.
            min_terms: Fewer content terms than this left: ``reason`` is set.

        Raises:
            ValueError: ``min_terms`` is negative.
        """
        if min_terms < 0:
            raise ValueError(f"min_terms must be >= 0, got {min_terms}")
        self._vocab = vocabulary or load_vocabulary()
        month_names()  # built once per process, here rather than on the first question
        self._lookup = known_terms
        self._min_terms = min_terms

    def minimise(
        self,
        text: str,
        deny_terms: Iterable[str] = (),
        *,
        drop: Sequence[tuple[int, int]] = (),
    ) -> Minimised:
        """Return the known-safe pieces of ``text``.

        Args:
            text: A question or query in any language and script.
            deny_terms: The tenant's terms that must never leave (whole words, any case).
            drop: ``(start, end)`` character spans of ``text`` found by another detector
                (Presidio on the whole question); every piece touching one is dropped.

        Returns:
            The minimised text, with a ``reason`` when too little is left to search on.
        """
        pieces = split_pieces(text)
        words = [p.core.casefold() for p in pieces if p.core]
        languages = self._vocab.question_languages(words)
        classifier = Classifier(self._vocab, self._ask_corpus(pieces), languages=languages)
        for m in QUOTED.finditer(text):
            if len(m.group(1).split()) < 2 and not self._literal(text, m.start(), m.group(1)):
                continue  # a lone quoted name is no message ("'Liv'"); "'Page'" is a literal
            for piece in pieces:
                if m.start() <= piece.start and piece.end <= m.end():
                    piece.quoted = True
        forced = [*forced_spans(text, deny_terms, self._technical), *drop]
        for piece in pieces:
            if any(s < piece.end and piece.start < e for s, e in forced):
                piece.kind, piece.forced = "drop", True
        apply_cues(self._vocab, text, pieces, languages)
        apply_address_cues(self._vocab, text, pieces)
        apply_introductions(self._vocab, pieces, languages)
        caps_text = mostly_caps(pieces)
        for i, piece in enumerate(pieces):
            if not piece.forced:
                piece.kind = classifier.classify(pieces, i, caps_text)
        classifier.spread_names(pieces, caps_text)
        _repeat_names(pieces)
        drop_unanchored_numbers(self._vocab, pieces)
        for piece in pieces:
            piece.keep = piece.kind in ("tech", "word")
        for i, piece in enumerate(pieces):
            if piece.kind == "punct":
                piece.keep = neighbour_kept(pieces, i, -1) and neighbour_kept(pieces, i, 1)
        out, last = [], None
        for piece in pieces:
            if not piece.keep:
                continue
            if last is not None:
                gap = text[last.end : piece.start]
                between = [p for p in pieces if last.end <= p.start and p.end <= piece.start]
                out.append(" " if between else gap)
            out.append(piece.raw)
            last = piece
        minimised = re.sub(r"\s{2,}", " ", "".join(out)).strip()
        terms = sum(1 for p in pieces if p.keep and classifier.is_content(p))
        dropped = sum(1 for p in pieces if not p.keep and p.kind != "punct")
        reason = None
        if terms < self._min_terms:
            reason = (
                f"too little known-safe text to search on: {terms} content term(s) kept, "
                f"{dropped} piece(s) dropped"
            )
        return Minimised(minimised, terms, dropped, reason)

    def _literal(self, text: str, start: int, word: str) -> bool:
        """True for a lone quoted word that is a literal: an English word or a term.

        "'Price'", "'goto'", "the 'Back' button"; not a nickname right after a capitalised
        word ("Olivia 'Liz' Brennan").
        """
        before = re.search(r"(\S+)\s+$", text[:start])
        if before and before.group(1)[:1].isupper() and before.group(1).isalpha():
            return False
        folded = word.strip().casefold()
        return bool(self._vocab.common.get(folded, 0) & 1) or folded in self._vocab.technical

    def _technical(self, word: str) -> bool:
        """True for a word of the shipped technical vocabulary, any case."""
        return word.casefold() in self._vocab.technical

    def vouches(self, entity: str, span: str) -> bool:
        """True when a second-layer detection in the minimised text is a known false shape.

        Only four shapes, each checked by the minimiser's own stricter rules:

        * ``EMAIL_ADDRESS`` that is not an address by
          :data:`~redaction.minimise.patterns.EMAIL` (a domain needs a letters-only top
          level, and nothing before the local part may be ``/`` or ``@``:
          "@angular/core@17.3.1", "git@gitlab.com:group/repo.git");
        * ``PHONE_NUMBER`` that is a dotted version ("124.0.6367.91") or a network;
        * ``IP_ADDRESS`` that is a loopback or unspecified address or a network
          (:mod:`~redaction.minimise.networks`: "127.0.0.1", "198.51.100.0/24");
        * ``PERSON`` whose words are all common words or technical terms and none is a
          given name or surname in the name lists ("Little Snitch", "Okta Verify"), or
          that is a brand's title of two or more words ("Raspberry Pi",
          :data:`~redaction.minimise.vocabulary.BRAND_WORDS_FILE`).

        Every other detection (host addresses, cards, IBANs, national ids, deny terms...)
        is never vouched for.
        """
        if entity == "EMAIL_ADDRESS":
            return span.casefold().startswith("git@") or EMAIL.search(span) is None
        if entity == "PHONE_NUMBER":
            return is_version(span.strip()) or is_network(span)
        if entity == "IP_ADDRESS":
            return is_nobodys_address(span) or is_network(span)
        if entity == "PERSON":
            if " ".join(re.findall(r"[^\W_]+", span.casefold())) in self._vocab.brands:
                return True  # "Raspberry Pi": a brand's title
            words = [w.casefold() for w in re.findall(r"[^\W\d_]{2,}", span)]
            return bool(words) and all(
                (w in self._vocab.common or w in self._vocab.technical)
                and not is_name(self._vocab, w)
                for w in words
            )
        return False

    def _ask_corpus(self, pieces: Sequence[Piece]) -> frozenset[str]:
        """The words of ``pieces`` that only the tenant's corpus could vouch for, looked up."""
        if self._lookup is None:
            return frozenset()
        vocab = self._vocab
        unknown = {
            word
            for piece in pieces
            for word in (w.casefold() for w in re.findall(r"[^\W\d_]{3,}", piece.core))
            if word not in vocab.common
            and word not in vocab.technical
            and word not in vocab.names
            and not CJK.fullmatch(word)
        }
        if not unknown:
            return frozenset()
        return frozenset(self._lookup(sorted(unknown)[:_MAX_CORPUS_WORDS])) & unknown


def _repeat_names(pieces: Sequence[Piece]) -> None:
    """A word dropped as a name goes wherever else the question writes it.

    "Hey, name's Rain Whitfield … yes, Rain is my actual name": the cue drops the first
    "Rain"; the second is the same person's name, though alone it is a common word. Only
    capitalised words of letters dropped by a name cue count: not an unknown capitalised
    word (a product as often: "Cortana still launches … the GPO 'Allow Cortana'"), nor a
    word of the name lists that is a common word too ("Dock firmware 5.2.1" at a sentence's
    start), nor one inside another detector's span (Presidio reads "Raspberry Pi" as a
    person); the same word in lower case is another word.
    """
    named = {
        p.core
        for p in pieces
        if p.kind == "name"
        and p.forced
        and p.core.isalpha()
        and len(p.core) >= 2
        and p.core[0].isupper()
        and not p.core.isupper()
    }
    for piece in pieces:
        if piece.core in named and piece.kind in ("tech", "word"):
            piece.kind = "name"
