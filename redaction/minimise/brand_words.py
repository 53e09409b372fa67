"""Rebuild ``brand_words.txt``: the names of software and hardware brands (a technical vocabulary).

Debian's package names (:mod:`~redaction.minimise.package_words`) know the software Debian
ships, not the services and devices support questions are about ("Bitwarden", "Synology",
"Keycloak", "Netgear"). The Simple Icons project (``simple-icons`` on npm, CC0-1.0) keeps a
reviewed list of about 3,500 brand titles, each with its aliases; its words are that
vocabulary. Kept: runs of 3+ letters of every title, alias, localised title and former
title; dropped: words of the name lists. A brand word that is also a name ("Jenkins",
"Ford") therefore never enters this way: only the curated ``technical_terms.txt``
overrides the name lists. Words that are common words ("slack", "notion") are kept in the
file, but only its other words join the technical vocabulary
(:func:`~redaction.minimise.vocabulary.load_vocabulary`).

The file also keeps every whole title of two or more words ("raspberry pi", "power bi"),
case-folded, after a ``= `` marker, unless every word of it is a name ("calvin klein"):
a person detection whose text is such a title is no person
(:meth:`redaction.minimise.Minimiser.vouches`).

Run where npm can reach its registry (it packs the pinned ``simple-icons`` release into a
temporary directory); the file is committed, so nothing runs at service start::

    .venv/bin/python -m redaction.minimise.brand_words   # rewrites brand_words.txt
"""

from __future__ import annotations

import json
import re
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from redaction.minimise.vocabulary import BRAND_WORDS_FILE, Vocabulary, load_vocabulary

SIMPLE_ICONS = "simple-icons@16.37.0"
"""The npm release the committed file was built from."""


def brand_titles(icons: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every title of ``icons`` (Simple Icons' ``data/simple-icons.json`` entries).

    Args:
        icons: Entries with a ``title`` and optional ``aliases`` (``aka``: a list of
            titles; ``loc``: locale to title; ``dup`` and ``old``: lists of titles or of
            ``{"title": ...}`` objects).

    Returns:
        The titles and alias titles, in the order met, without repeats.
    """
    titles: dict[str, None] = {}
    for icon in icons:
        titles[icon["title"]] = None
        aliases = icon.get("aliases", {})
        for key in ("aka", "dup", "old"):
            for alias in aliases.get(key, ()):
                titles[alias["title"] if isinstance(alias, dict) else alias] = None
        for title in aliases.get("loc", {}).values():
            titles[title] = None
    return list(titles)


def brand_words(titles: Iterable[str], vocab: Vocabulary) -> tuple[list[str], list[str]]:
    """The new words and the multi-word titles of ``titles``, as described above.

    Returns:
        ``(words, phrases)``: sorted, case-folded. ``words`` are runs of 3+ letters that no
        name list of ``vocab`` holds; ``phrases`` are titles of two or more words of letters and
        digits of which at least one is not a name ("raspberry pi"; not "calvin klein",
        a person's name).
    """
    words: set[str] = set()
    phrases: set[str] = set()
    for title in titles:
        parts = re.findall(r"[^\W_]+", title.casefold())
        words.update(w for w in parts if re.fullmatch(r"[^\W\d_]{3,}", w))
        if len(parts) >= 2 and not all(p in vocab.names for p in parts):
            phrases.add(" ".join(parts))
    return sorted(words - vocab.names), sorted(phrases)


def main() -> None:
    """Pack :data:`SIMPLE_ICONS` with npm and rewrite :data:`BRAND_WORDS_FILE`."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["npm", "pack", SIMPLE_ICONS, "--pack-destination", tmp],
            check=True,
            capture_output=True,
        )
        (archive,) = Path(tmp).glob("simple-icons-*.tgz")
        with tarfile.open(archive) as tar:
            member = tar.extractfile("package/data/simple-icons.json")
            if member is None:
                raise SystemExit(f"{archive.name} holds no package/data/simple-icons.json")
            icons = json.load(member)
    vocab = load_vocabulary()
    titles = brand_titles(icons)
    words, phrases = brand_words(titles, vocab)
    header = (
        f"# Words of Simple Icons' brand titles ({SIMPLE_ICONS}, CC0-1.0: {len(titles)}\n"
        "# titles) that no name list holds, then its titles of 2+ words\n"
        "# after '= ': python -m redaction.minimise.brand_words\n"
    )
    body = "\n".join([*words, *(f"= {p}" for p in phrases)])
    BRAND_WORDS_FILE.write_text(header + body + "\n", encoding="utf-8")
    print(f"{len(words)} words and {len(phrases)} titles from {SIMPLE_ICONS} -> {BRAND_WORDS_FILE}")


if __name__ == "__main__":
    main()
