"""Rebuild ``package_words.txt``: the words of Debian's package names (a technical vocabulary).

Debian names ~64k packages after the software they carry ("gunicorn", "python3-meson",
"liblzma5", "yubikey-manager"), so their words are a broad, reviewed technical vocabulary
that no general word list holds. Kept: runs of 3+ letters between ``- . + _`` (a trailing
soname number cut: "liblzma5"), plus the word
after a ``lib`` prefix; dropped: words that wordfreq's common lists, the name lists or
``technical_terms.txt`` already hold, and the owner part of Go packages
(``golang-github-OWNER-repo``: a person's handle). Run on a Debian machine after
``apt-get update``; the file is committed, so nothing runs at service start::

    .venv/bin/python -m redaction.minimise.package_words   # rewrites package_words.txt
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable

from redaction.minimise.vocabulary import PACKAGE_WORDS_FILE, Vocabulary, load_vocabulary

_GO_HOSTS = (["golang", "github"], ["golang", "gitlab"], ["golang", "gopkg"])


def package_words(package_names: Iterable[str], vocab: Vocabulary) -> list[str]:
    """The new words of ``package_names`` (sorted, case-folded), as described above.

    Args:
        package_names: Debian package names, e.g. ``["python3-gunicorn", "liblzma5"]``.
        vocab: The loaded word lists; words they already hold are left out.
    """
    words: set[str] = set()
    for name in package_names:
        parts = re.split(r"[-.+_]", name.strip().casefold())
        if parts[:2] in _GO_HOSTS and len(parts) > 3:
            parts = parts[:2] + parts[3:]
        for part in (p.rstrip("0123456789") for p in parts):  # "liblzma5": a soname
            if re.fullmatch(r"[a-z]{3,}", part):
                words.add(part)
                if part.startswith("lib") and len(part) > 5:
                    words.add(part[3:])
    known = set(vocab.common) | vocab.names | vocab.technical
    return sorted(w for w in words if w not in known)


def main() -> None:
    """Read ``apt-cache pkgnames`` and rewrite :data:`PACKAGE_WORDS_FILE`."""
    names = subprocess.run(
        ["apt-cache", "pkgnames"], check=True, capture_output=True, text=True
    ).stdout.split()
    vocab = load_vocabulary()
    # The file must not vouch for its own words while they are rebuilt.
    vocab = Vocabulary(**{**vars(vocab), "technical": vocab.technical - _current_words()})
    words = package_words(names, vocab)
    header = (
        f"# Words of Debian package names (apt-cache pkgnames: {len(names)} packages) that no\n"
        "# wordfreq list or name list holds: python -m redaction.minimise.package_words\n"
    )
    PACKAGE_WORDS_FILE.write_text(header + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words from {len(names)} packages -> {PACKAGE_WORDS_FILE}")


def _current_words() -> frozenset[str]:
    if not PACKAGE_WORDS_FILE.exists():
        return frozenset()
    lines = PACKAGE_WORDS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(w for w in lines if w and not w.startswith("#"))


if __name__ == "__main__":
    main()
