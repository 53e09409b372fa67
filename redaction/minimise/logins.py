"""Logins made of a name (:func:`name_login`), used by :mod:`~redaction.minimise.classify`.

"ana.petrov", "m_garcia42", "uid=ana.petrov,ou=people", "/home/ana.petrov/.ssh": a given
name or an initial and a surname of the name lists, in lower case, joined by a dot or an
underscore, wherever a path, key or address puts it.
"""

from __future__ import annotations

import re

from redaction.minimise.pieces import PARTICLES
from redaction.minimise.vocabulary import Vocabulary, is_name


def name_login(vocab: Vocabulary, core: str, extensions: frozenset[str]) -> bool:
    """True when ``core`` holds a lower-case login made of a name.

    A given name or initial and a surname joined by ``.`` or ``_`` (the surname may be
    hyphenated: "al-farsi"), perhaps before a number of up to six digits, anywhere
    between path, key and address separators: "ana.petrov", "m_garcia42",
    "user=ana.petrov", "uid=ana.petrov,ou=people", "/home/ana.petrov/.ssh",
    "ana.petrov@corp". Two of the parts must be names of the lists (or one a name and
    one an initial or particle), none a technical term or a file extension; "karma-jasmine"
    (a hyphen only) is no login.
    """
    return any(
        _login_segment(vocab, segment, extensions)
        for segment in re.split(r"[/\\,@:=]+", core)
        if segment
    )


def _login_segment(vocab: Vocabulary, segment: str, extensions: frozenset[str]) -> bool:
    login = re.fullmatch(r"([^\W\d_]+(?:[._][^\W\d_]+(?:-[^\W\d_]+)?){1,3})[._\-]?\d{0,6}", segment)
    if login is None or segment != segment.lower():
        return False
    parts = re.split(r"[._]", login.group(1))
    words = [w for part in parts for w in part.split("-")]
    if any(w in vocab.technical or w in extensions for w in words):
        return False
    names = [
        p for p in parts
        if len(p) >= 2 and p not in PARTICLES
        and (
            any(is_name(vocab, w) for w in p.split("-") if w not in PARTICLES)
            or p.split("-")[0] in PARTICLES  # "al-farsi", "van-dijk"
        )
    ]  # fmt: skip
    short = [p for p in parts if len(p) == 1 or p in PARTICLES]
    return len(names) >= 2 or (len(names) == 1 and bool(short) and len(parts) >= 2)
