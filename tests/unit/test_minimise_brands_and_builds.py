"""Round 8 of the minimiser (issue 11): brand names, builds and home directories.

Brand titles come from Simple Icons (``redaction/minimise/brand_words.txt``); a build number
is no phone number; a home directory's name is a login whatever its shape. The examples are
invented here; none comes from the egress corpus.
"""

from __future__ import annotations

from typing import Any

import pytest

from redaction.egress import MinimisingRedactor
from redaction.minimise import Minimiser, load_vocabulary
from redaction.minimise.brand_words import brand_titles, brand_words


def sent(minimiser: Minimiser, text: str) -> str:
    return minimiser.minimise(text).text


GONE = [
    ("Excel crashes opening C:\\Users\\r.vantongeren\\OneDrive\\Budget.xlsx", "vantongeren"),
    ("ssh ignores /home/kx.p/.ssh/config on Ubuntu 24.04", "kx.p"),
    ("HOME=/home/tomasz2 breaks the cron job of Borg 1.2", "tomasz2"),
    ("Hey, name's Dorota Wysocka, the Outlook 2021 app fails", "Dorota"),
    ("I was born on the 3rd of March 1979 and the Revolut app rejects it", "1979"),
    ("Ship to 12 Elm Road, Halifax NS B3H 4R2; the Shopify checkout fails", "B3H 4R2"),
    ("RR 4 Site 2 Comp 9, Olds AB T4H 1P3 is refused by the Rogers portal", "T4H 1P3"),
    ("rijksregisternummer 85.07.30-033.28 wordt geweigerd door itsme", "033"),
    ("call me on 07700.900.123 about the Teams 24.1 crash", "900.123"),
]
"""Questions and a personal value that must not reach the provider."""

KEPT = [
    ("Chrome crashes on Windows 11 23H2 (22631.3527) with an extension", ["22631.3527"]),
    ("Windows Server 2019 build 17763.5696 loops on KB5034127", ["17763.5696"]),
    ("Synology DSM 7.2.1-69057 Update 5 degrades the pool", ["7.2.1-69057"]),
    ("QTS (5.1.6.2722) shows the volume read-only", ["5.1.6.2722"]),
    ("Power BI 2.128.952.0 shows an ODBC error", ["2.128.952.0"]),
    ("the Bitwarden extension 2024.4.1 crashes on Firefox", ["Bitwarden"]),
    ("Keycloak behind a Netgear router drops sessions", ["Keycloak", "Netgear"]),
    ("GET /api/users/me returns 401 in Django", ["/api/users/me"]),
    ("/home/ubuntu/.bashrc is ignored by cron", ["/home/ubuntu/.bashrc"]),
    ("C:\\Users\\Public\\Desktop is read-only after KB5034441", ["C:\\Users\\Public\\Desktop"]),
]
"""Questions and the technical terms that must still leave."""


@pytest.mark.parametrize(("text", "secret"), GONE)
def test_personal_values_never_leave(minimiser: Minimiser, text: str, secret: str) -> None:
    assert secret not in sent(minimiser, text)


@pytest.mark.parametrize(("text", "kept"), KEPT)
def test_technical_terms_are_kept(minimiser: Minimiser, text: str, kept: list[str]) -> None:
    out = sent(minimiser, text)
    for term in kept:
        assert term in out, out


def test_a_brand_title_is_no_person_and_a_brand_word_is_no_part_of_a_name(
    minimiser: Minimiser,
) -> None:
    assert minimiser.vouches("PERSON", "Raspberry Pi")
    assert not minimiser.vouches("PERSON", "Anna Pi")
    text = "Cloudflare Ray ID shows error 1020"
    assert minimiser.name_parts(text, 0, len("Cloudflare Ray")) == [(11, 14)]
    text = "Maria Jenkins cannot log in"  # a brand word that is a name stays in the name
    assert minimiser.name_parts(text, 0, 13) == [(0, 13)]


def test_the_egress_path_keeps_brands_presidio_reads_as_people(redactor: Any) -> None:
    # `redactor` is the session Presidio fixture (tests/conftest.py).
    egress = MinimisingRedactor(redactor, vocabulary=load_vocabulary())
    # Presidio reads "Raspberry Pi" here as a person (it did on 2026-12-04's models)
    text = "I bought a Raspberry Pi yesterday and it will not boot"
    assert [r.entity_type for r in redactor.analyze(text, ())] == ["PERSON"]
    assert "Raspberry Pi" in egress.redact(text).search_text


def test_brand_words_leave_out_names_and_titles_made_only_of_names() -> None:
    vocab = load_vocabulary()
    icons = [
        {"title": "Raspberry Pi"},
        {"title": "Calvin Klein"},
        {"title": "Nextcloud", "aliases": {"aka": ["NC"], "loc": {"de": "Nächstwolke"}}},
        {"title": "Jenkins"},
    ]
    titles = brand_titles(icons)
    assert set(titles) == {
        "Raspberry Pi", "Calvin Klein", "Nextcloud", "NC", "Nächstwolke", "Jenkins"
    }  # fmt: skip
    words, phrases = brand_words(titles, vocab)
    assert "nextcloud" in words and "nächstwolke" in words
    assert "jenkins" not in words and "calvin" not in words and "nc" not in words
    assert phrases == ["raspberry pi"]
