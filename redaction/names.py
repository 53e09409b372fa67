"""PERSON spans from spaCy, cleaned up: product names out, whole names in.

The small English spaCy model tags many product names as people ("Grafana", "Java 21",
"Redis SLOWLOG", "macOS Sonoma 14.3", "400 KB") and often tags only part of a foreign name
("Virtanen" of "Mikko Virtanen", "Nilsson" of "Anders Nilsson", "Müller" and "Hans" apart in
"Müller, Hans"). :func:`refine_person_spans` fixes both, token by token:

1. Trim: tokens at either end of a span that do not look like a name part (digits,
   ALL-CAPS acronyms, camelCase, lower case) are cut off; one word left beside a cut
   number is a versioned product and the span is dropped ("Java 21", "Kafka 3.7").
2. Extend: neighbouring name-shaped tokens (and particles such as "van der" between them)
   are added, so "Virtanen" becomes "Mikko Virtanen". Any capitalised neighbour counts, so
   "Thanks Anna Smith" loses "Thanks" too: the safe side.
3. Drop single words: a span of one name token is kept only when another PERSON span
   follows or precedes it across a comma ("Müller, Hans"). In support questions a lone
   capitalised word tagged PERSON is far more often a product (Jira, Zoom, Okta, Grafana)
   than a person, and a lone first name identifies little; names after a cue ("I am",
   "Mr", "customer") come from :class:`~redaction.name_recognizers.CuedNameRecognizer`
   and are kept as they are.

Measured on ``tests/data/pii`` with ``bench/redaction_eval.py``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from presidio_analyzer import RecognizerResult

PERSON = "PERSON"

PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "di", "da", "dos", "das", "du", "le"}
    | {"la", "y", "bin", "ibn", "al", "el", "ter", "ten", "ní", "nic", "mac", "ó"}
)
"""Lower-case words that join the parts of a name ("Pieter van der Berg")."""

_TOKEN = re.compile(r"\S+")
_APOSTROPHES = "'\u2019"
_EDGE_PUNCT = "\"'\u201c\u201d\u2018\u2019()[]{}<>,;:.!?"
_POSSESSIVE = re.compile(rf"[{_APOSTROPHES}]s$")
_LETTERS = re.compile(r"[^\W\d_]+")
_MAX_TOKENS = 6


def is_name_token(token: str) -> bool:
    """True for a word shaped like a name part: "Hans", "O'Connor", "Min-jun", "McDonald".

    Args:
        token: One whitespace-free token, surrounding punctuation and a possessive
            "'s" already stripped.

    Returns:
        False for digits, ALL-CAPS (acronyms), camelCase ("macOS", "SafeKey") and lower case.
    """
    if re.fullmatch(r"(?:Mc|Mac)[^\W\d_][^\W\d_]+", token) and token[2:3].isupper():
        return token[3:].islower() if token.startswith("Mc") else token[4:].islower()
    parts = re.split(rf"[{_APOSTROPHES}-]", token)
    if not all(part and _LETTERS.fullmatch(part) for part in parts):
        return False
    head = parts[0]
    if not head[0].isupper() or (len(head) > 1 and not head[1:].islower()):
        return False
    rest = parts[1:]
    if len(head) == 1 and not rest:
        return False
    return all(p[1:].islower() or len(p) == 1 for p in rest)


def refine_person_spans(
    results: Sequence[RecognizerResult], text: str, keep_as_is: frozenset[str] = frozenset()
) -> list[RecognizerResult]:
    """Trim, extend and filter the PERSON results; other results pass through unchanged.

    Args:
        results: Analyzer results for ``text``.
        text: The analysed text.
        keep_as_is: Recogniser names whose PERSON spans are trusted as they are.

    Returns:
        The other results, then the trusted PERSON results, then the refined ones (new
        objects with the original score).
    """
    others, trusted, spans = [], [], []
    for result in results:
        if result.entity_type != PERSON:
            others.append(result)
        elif _recognizer(result) in keep_as_is:
            trusted.append(result)
        elif (span := _trimmed(text, result.start, result.end)) is not None:
            spans.append((*_extended(text, *span), result.score))
    bounds = [(start, end) for start, end, _ in spans]
    kept = [
        RecognizerResult(PERSON, start, end, score)
        for start, end, score in spans
        if _name_count(text[start:end]) >= 2 or _paired((start, end), bounds, text)
    ]
    return [*others, *trusted, *kept]


def _recognizer(result: RecognizerResult) -> str | None:
    name = (result.recognition_metadata or {}).get(RecognizerResult.RECOGNIZER_NAME_KEY)
    return name if isinstance(name, str) else None


def _clean(raw: str) -> str:
    return _POSSESSIVE.sub("", raw.strip(_EDGE_PUNCT)).strip(_EDGE_PUNCT)


def _tokens(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(text, start, end)]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Cut tokens that are not name parts off both ends.

    Returns:
        The new bounds, or None if nothing is left, or a single word was left after a
        number was cut (a versioned product; a real name beside a number keeps two or
        more words: "Maria Gonzalez 2").
    """
    tokens = _tokens(text, start, end)
    cut = []
    while tokens and not is_name_token(_clean(text[slice(*tokens[0])])):
        cut.append(text[slice(*tokens.pop(0))])
    while tokens and not is_name_token(_clean(text[slice(*tokens[-1])])):
        cut.append(text[slice(*tokens.pop())])
    versioned = any(char.isdigit() for word in cut for char in word)
    if not tokens or (versioned and len(tokens) == 1):
        return None  # "Java 21", "Cassandra 4.1": a product and its version
    first, last = text[slice(*tokens[0])], text[slice(*tokens[-1])]
    return (
        tokens[0][0] + len(first) - len(first.lstrip(_EDGE_PUNCT)),
        tokens[-1][1] - (len(last) - len(last.rstrip(_EDGE_PUNCT))),
    )


def _extended(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow ``[start, end)`` over adjacent name tokens joined by single spaces."""
    while len(_tokens(text, start, end)) < _MAX_TOKENS:
        left = _neighbour(text, start, backwards=True)
        if left is None:
            break
        start = left
    while len(_tokens(text, start, end)) < _MAX_TOKENS:
        right = _neighbour(text, end, backwards=False)
        if right is None:
            break
        end = right
    return start, end


def _neighbour(text: str, edge: int, *, backwards: bool) -> int | None:
    """The new edge after absorbing particles and one name token next to ``edge``, or None.

    Punctuation between the span and the word ends the name ("Hi, Anna"); punctuation on
    the far side of the word is left outside ("Anna Smith, …").
    """
    if not backwards and _POSSESSIVE.search(text, 0, edge):
        return None  # "Kim Min-jun's Galaxy": what follows a possessive is a thing
    pos = edge
    while True:
        found = _word_before(text, pos) if backwards else _word_after(text, pos)
        if found is None:
            return None
        word, start, end = found
        if word in PARTICLES:
            pos = start if backwards else end
            continue
        near, far = (word[-1], word[0]) if backwards else (word[0], word[-1])
        if near in _EDGE_PUNCT or not is_name_token(_clean(word)):
            return None
        if far in _EDGE_PUNCT:
            bare = word.lstrip(_EDGE_PUNCT) if backwards else word.rstrip(_EDGE_PUNCT)
            return end - len(bare) if backwards else start + len(bare)
        return start if backwards else end


def _word_before(text: str, pos: int) -> tuple[str, int, int] | None:
    match = re.search(r"(\S+) $", text[:pos])
    return (match.group(1), match.start(1), match.end(1)) if match else None


def _word_after(text: str, pos: int) -> tuple[str, int, int] | None:
    match = re.compile(r" (\S+)").match(text, pos)
    return (match.group(1), match.start(1), match.end(1)) if match else None


def _name_count(span: str) -> int:
    return sum(1 for raw in span.split() if is_name_token(_clean(raw)))


def _paired(span: tuple[int, int], spans: Sequence[tuple[int, int]], text: str) -> bool:
    """True if another span sits right before or after ``span`` across a comma."""
    start, end = span
    return any(
        re.fullmatch(r"\s*,\s*", text[end:other_start]) is not None
        or re.fullmatch(r"\s*,\s*", text[other_end:start]) is not None
        for other_start, other_end in spans
        if (other_start, other_end) != span
    )
