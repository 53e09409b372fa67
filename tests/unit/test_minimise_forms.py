"""The minimiser's rules for forms of personal values met out of sample (issue 11).

Each rule is about a form (a label before a colon, a sign-off after a dash, a plate or
postcode format, a word for "address" in a language), never about a value. The examples
are invented here; none comes from the egress corpus.
"""

from __future__ import annotations

import pytest

from redaction.minimise import Minimiser, load_vocabulary


@pytest.fixture(scope="module")
def minimiser() -> Minimiser:
    return Minimiser(load_vocabulary())


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Cardholder: MARTA OKONJO. Stripe checkout returns card_declined", ["MARTA", "OKONJO"]),
        ("Name on invoice: pieter de vries. Exact Online shows error 4011", ["pieter", "vries"]),
        ("Beneficiario: lucía fernández. Bizum 6.2 rechaza la transferencia", ["lucía"]),
        ("rosa lind here - Slack 4.36 crashes on Fedora 40", ["rosa", "lind"]),
        ("mark hill asked me to report that Zoom 5.17 freezes on Ubuntu", ["mark", "hill"]),
        ("Outlook 2021 keeps asking for the password. — sofia moreno", ["sofia", "moreno"]),
        ("La cuenta está a nombre de jorge salas y Bizum falla", ["jorge", "salas"]),
        ("Support ticket for 李建国: Outlook 2021 won't sync", ["李建国"]),
    ],
)
def test_names_in_labels_openings_and_sign_offs_are_dropped(
    minimiser: Minimiser, text: str, names: list[str]
) -> None:
    out = minimiser.minimise(text).text
    for name in names:
        assert name not in out, out


def test_a_function_word_of_another_language_is_a_name_here(minimiser: Minimiser) -> None:
    # "dan" is a Dutch function word ("then"); in an English question it is a name
    out = minimiser.minimise("Outlook 2021 crashes on start. Dan is away this week.").text
    assert "Dan" not in out and "Outlook 2021" in out


def test_a_term_that_is_a_name_goes_with_the_name_beside_it(minimiser: Minimiser) -> None:
    out = minimiser.minimise("The router is on macOS but the account is mine (Ruby Okafor).").text
    assert "Ruby" not in out and "Okafor" not in out and "macOS" in out


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Image name: nginx:1.25-alpine fails to pull", ["nginx:1.25-alpine"]),
        ("npm install 时出现 EACCES: permission denied", ["时出现", "EACCES"]),
        ("Support here: Jenkins 2.452 agents disconnect", ["Jenkins 2.452"]),
        ("Build fails on Debian 12 - Docker 25", ["Docker 25"]),
    ],
)
def test_look_alikes_of_those_forms_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    out = minimiser.minimise(text).text
    for term in kept:
        assert term in out, out
