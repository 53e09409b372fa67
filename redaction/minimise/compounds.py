"""Closed compounds of known words: "collectstatic", "xmlversion", "publickey".

Configuration keys, commands and module names often join two or three words without a
separator. Such a lower-case word is known when it splits into parts that are each a
technical term or a common English word (at least three letters; a two-letter part only
when it is a technical term). No way of cutting it may give only names of the lists
("maria" + "garcia"), and in a cut with the fewest parts a name must be a very common
word ("public" + "key", not "grandpa" + "joe"): "hopelane" is a login, not a compound.
"""

from __future__ import annotations

from redaction.minimise.vocabulary import Vocabulary

_ENGLISH = 1  # bit 0 of Vocabulary.common: LANGUAGES[0] is English
_MIN_LENGTH = 6
_MAX_LENGTH = 30


def is_compound(vocab: Vocabulary, word: str) -> bool:
    """True when lower-case ``word`` splits into two or three known words (see the module)."""
    if not (_MIN_LENGTH <= len(word) <= _MAX_LENGTH and word.isalpha() and word.islower()):
        return False
    splits = _splits(vocab, word, 3)
    if not splits or any(all(part in vocab.names for part in split) for split in splits):
        return False
    fewest = min(len(split) for split in splits)
    return any(
        all(part not in vocab.names or part in vocab.very_common for part in split)
        for split in splits
        if len(split) == fewest
    )


def _part(vocab: Vocabulary, part: str) -> bool:
    if part in vocab.technical:
        return len(part) >= 2
    return len(part) >= 3 and bool(vocab.common.get(part, 0) & _ENGLISH)


def _splits(vocab: Vocabulary, word: str, most: int) -> list[tuple[str, ...]]:
    """The ways to cut ``word`` into 2..``most`` known parts (the whole word is not one)."""
    found: list[tuple[str, ...]] = []
    for cut in range(2, len(word) - 1):
        head, tail = word[:cut], word[cut:]
        if not _part(vocab, head):
            continue
        if _part(vocab, tail):
            found.append((head, tail))
        if most > 2:
            found.extend((head, *rest) for rest in _splits(vocab, tail, most - 1))
    return found
