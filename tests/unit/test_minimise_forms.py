"""The minimiser's rules for forms of personal values met out of sample (issue 11).

Each rule is about a form (a label before a colon, a sign-off after a dash, a plate or
postcode format, a word for "address" in a language), never about a value. The examples
are invented here; none comes from the egress corpus.
"""

from __future__ import annotations

from typing import Any

import pytest

from redaction.egress import MinimisingRedactor
from redaction.minimise import Minimiser, load_vocabulary


@pytest.fixture(scope="module")
def minimiser() -> Minimiser:
    return Minimiser(load_vocabulary())


def assert_kept(minimiser: Minimiser, text: str, kept: list[str]) -> None:
    """Every term of ``kept`` is in what leaves for ``text``."""
    out = minimiser.minimise(text).text
    for term in kept:
        assert term in out, out


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
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Write to luca punto verdi chiocciola example punto org please", "verdi"),
        ("Дата рождения 02.03.1977.", "1977"),
        ("Change my plate from 4DEF567 in the ChargePoint app", "4DEF567"),
        ("A placa ABC1D23 não aparece no app", "ABC1D23"),
        ("Η πινακίδα ΑΒΕ-1234 δεν εμφανίζεται", "1234"),  # noqa: RUF001
        ("車のナンバー「横浜 500 さ 12-34」を登録できません", "12-34"),
        ("The lock at 3 Quay Road, Cobh, Co. Kerry V92 AB3C is offline", "Quay"),
        ("Ship it to Flat 2, 7 Oak Row, York YO1 7HH. The Pi 5 fails", "Flat 2"),
        ("Leveransadress Kungsgatan 3, lgh 1203, 123 45 Uppsala. Tack", "Kungsgatan"),
        ("Name: Jo, address ul. Polna 17/4, 00-950 Warszawa. Allegro", "17/4"),
        ("Η διεύθυνσή μου είναι Πατησίων 10, 104 34 Αθήνα", "Πατησίων"),  # noqa: RUF001
        ("הכתובת שלי היא רחוב הגפן 12, דירה 3", "12"),
        ("Địa chỉ giao hàng 5 Ngõ 12 Phố Nhà Thờ bị lỗi", "Nhà"),
        ("Invoice for customer ref Q-20417-ZB has the wrong VAT", "Q-20417-ZB"),
        ("The export lists account code BERG002 twice", "BERG002"),
        ("My account on example.org is lena.sun.1990.", "lena.sun.1990"),
        ("Die Mitgliedsnummer 004417 wird nicht erkannt", "004417"),
        ("اسم المستخدم: omar_lx في التطبيق", "omar_lx"),
        ("The login anna.berg.1987 cannot sign in to Jira", "anna.berg.1987"),
    ],
)
def test_values_in_these_forms_never_leave(minimiser: Minimiser, text: str, secret: str) -> None:
    assert secret not in minimiser.minimise(text).text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("The error code is 0x80070005 on Windows 11, says the customer", ["0x80070005"]),
        ("My account on GitHub is locked after 2FA", ["GitHub", "locked"]),
        ("pytest: the test suite 3 fails on Unit 4 of the course", ["suite", "Unit"]),
        ("node_exporter on ubuntu_22 with python3.12 and x86_64", ["node_exporter", "x86_64"]),
        ("ISO 8859-1 text in Windows 11 23H2 build 22631", ["22631", "23H2"]),
    ],
)
def test_technical_look_alikes_of_these_forms_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            "nginx --bind 0.0.0.0 and CACHE_URL=redis://127.0.0.1:6379/1",
            ["0.0.0.0", "127.0.0.1"],
        ),
        (
            "allow 10.20.0.0/16 and 198.51.100.0/24 in the firewall",
            ["10.20.0.0/16", "198.51.100.0/24"],
        ),
        ("Windows 10 build 19045.4170 with Teams version 23320.3021.2567.4799", ["19045.4170"]),
        ("MariaDB says ERROR 1698 (28000) for root", ["1698 (28000)"]),
        (
            "pinned to debian@sha256:9b1d42c0f7e2a6b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70819",
            ["sha256"],
        ),
        (
            "request ID 3f2b8c1e-9d4a-4b6e-8f0a-1c2d3e4f5a6b failed",
            ["3f2b8c1e-9d4a-4b6e-8f0a-1c2d3e4f5a6b"],
        ),
        ("set fetch.max.wait.ms=250000 on the consumer", ["fetch.max.wait.ms=250000"]),
    ],
)
def test_loopback_networks_builds_and_digests_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("My public IP is 203.0.113.61, Plex says unreachable", "203.0.113.61"),
        ("whitelist 198.51.100.9/32 for my laptop", "198.51.100.9"),
        ("the profile has user_id=4821337 in the URL", "4821337"),
        ("customer ID 3f2b8c1e-9d4a-4b6e-8f0a-1c2d3e4f5a6b cannot log in", "3f2b8c1e"),
    ],
)
def test_public_addresses_and_personal_numbers_still_never_leave(
    minimiser: Minimiser, text: str, secret: str
) -> None:
    assert secret not in minimiser.minimise(text).text


def test_presidio_is_told_loopback_and_networks_are_safe(minimiser: Minimiser) -> None:
    assert minimiser.vouches("IP_ADDRESS", "127.0.0.1")
    assert minimiser.vouches("IP_ADDRESS", "::1")
    assert minimiser.vouches("PHONE_NUMBER", "203.0.113.0/24")
    assert not minimiser.vouches("IP_ADDRESS", "203.0.113.7")
    assert not minimiser.vouches("IP_ADDRESS", "203.0.113.7/32")


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("ssh to 10.0.4.12 fails", "10.0.4.12"),
        ("ping fe80::1ff:fe23:4567:890a times out", "fe80::1ff:fe23:4567:890a"),
        ("the host 10.1.4.7/16 is unreachable", "10.1.4.7"),
    ],
)
def test_private_host_addresses_are_internal_identifiers_and_stay_in(
    redactor: Any, text: str, address: str
) -> None:
    # The whole egress path: the minimiser no longer vouches for them, so Presidio removes
    # what the minimiser kept. `redactor` is the session Presidio fixture (tests/conftest.py).
    egress = MinimisingRedactor(redactor, vocabulary=load_vocabulary())
    assert address not in egress.redact(text).search_text


def test_closed_compounds_of_known_words_are_kept_and_names_run_together_are_not(
    minimiser: Minimiser,
) -> None:
    out = minimiser.minimise(
        "run manage.py migratestatus, then check include/zlibversion.h and the sshpublickey"
    ).text
    assert "include/zlibversion.h" in out and "sshpublickey" in out, out
    for login in ("peterjones", "luciagomez", "marklewis"):
        assert login not in minimiser.minimise(f"the login {login} cannot sign in").text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Zorbix Media Server 4.2 fails to scan the library", ["Zorbix Media Server 4.2"]),
        ('the log says "Failed to open Vulkan device" on start', ["Vulkan"]),
        ("dnf fails for repo 'baseos' on the mirror", ["repo"]),
    ],
)
def test_product_names_quoted_words_and_common_words_after_for_are_kept(
    minimiser: Minimiser, text: str, kept: list[str]
) -> None:
    assert_kept(minimiser, text, kept)


def test_a_name_before_a_product_and_after_for_still_goes(minimiser: Minimiser) -> None:
    out = minimiser.minimise("Nowak Media Server 4.2 fails to scan the library").text
    assert "Nowak" not in out
    assert "nowak" not in minimiser.minimise("please reset the password for anna nowak").text


def test_compressed_ipv6_host_addresses_are_dropped_and_their_look_alikes_kept(
    minimiser: Minimiser,
) -> None:
    out = minimiser.minimise("ping fe80::1ff:fe23:4567:890a and 2001:db8::7 time out").text
    assert "fe80" not in out and "2001:db8" not in out, out
    assert_kept(minimiser, "bind :: and ::1 at 12:30:45 with std::vector", ["::1", "12:30:45"])
    assert_kept(minimiser, "std::vector<int> fails to compile", ["std::vector"])
