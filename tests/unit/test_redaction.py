"""PresidioRedactor: personal data out, product names and versions kept, no network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pipeline.deps import Redaction
from redaction import PresidioRedactor, RedactorSetupError, build_analyzer
from redaction.offline_tld import offline_extractor
from tests.fakes.web_provider import FakeWebProvider, web_result
from websearch import TavilySearch

REPO_ROOT = Path(__file__).resolve().parents[2]
QUESTION = (
    "My name is Maria Gonzalez, email maria.gonzalez@example.com, phone +1 415-555-0132. "
    "What is the latest PostgreSQL release?"
)
PII = ("Maria", "Gonzalez", "maria.gonzalez", "example.com", "415", "555-0132")


# `redactor` is the session-scoped fixture in tests/conftest.py (build_redactor(), the
# worker's start-up path), so spaCy loads once per test session.


def test_question_loses_name_email_and_phone_but_keeps_the_product(
    redactor: PresidioRedactor,
) -> None:
    result = redactor.redact(QUESTION)

    assert result == Redaction(
        text="My name is <PERSON>, email <EMAIL_ADDRESS>, phone <PHONE_NUMBER>. "
        "What is the latest PostgreSQL release?",
        entities=["PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER"],
    )
    for fragment in PII:
        assert fragment not in result.text


@pytest.mark.parametrize(
    "text",
    [
        "Upgrade from PostgreSQL 15.4 to 16.2; order 12345 failed.",
        "Python 3.11.4 and Django 4.2 on Ubuntu 22.04 with kernel 6.5.0-35",
        "Does Spring Boot 3.2 support Java 21?",
        "How do I configure Kubernetes 1.29 with Redis 7.2 and Elasticsearch 8.19?",
        "What changed in Node.js 20.11.1 versus Deno 1.40?",
        "Is Celery 5.7 compatible with LangGraph 1.2 released on 2024-03-01?",
    ],
)
def test_products_versions_and_dates_survive(redactor: PresidioRedactor, text: str) -> None:
    assert redactor.redact(text) == Redaction(text=text, entities=[])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Maria Gonzalez 2 asked about PostgreSQL.", "<PERSON> 2 asked about PostgreSQL."),
        ("Django 4.2 or Flask 3.0, asks Maria Gonzalez", "Django 4.2 or Flask 3.0, asks <PERSON>"),
    ],
)
def test_number_after_a_name_does_not_unmask_it(
    redactor: PresidioRedactor, text: str, expected: str
) -> None:
    assert redactor.redact(text).text == expected


def test_versions_survive_next_to_personal_data(redactor: PresidioRedactor) -> None:
    result = redactor.redact("I am Priya Raman (priya@acme.io). Why does MySQL 8.0.36 crash?")
    assert result.text == "I am <PERSON> (<EMAIL_ADDRESS>). Why does MySQL 8.0.36 crash?"


@pytest.mark.parametrize(
    ("text", "entity", "secret"),
    [
        ("My SSN is 536-22-1234, please check.", "US_SSN", "536-22-1234"),
        ("Card 4111 1111 1111 1111 was declined.", "CREDIT_CARD", "4111 1111 1111 1111"),
        ("Send it to IBAN DE89370400440532013000 today.", "IBAN_CODE", "DE89370400440532013000"),
        ("My server at 203.0.113.7 is down.", "IP_ADDRESS", "203.0.113.7"),
        ("Call 415-555-0132 tomorrow.", "PHONE_NUMBER", "415-555-0132"),
    ],
)
def test_other_default_entities(
    redactor: PresidioRedactor, text: str, entity: str, secret: str
) -> None:
    result = redactor.redact(text)
    assert secret not in result.text
    assert f"<{entity}>" in result.text
    assert entity in result.entities


def test_email_at_a_suffix_unknown_to_the_snapshot_is_still_redacted(
    redactor: PresidioRedactor,
) -> None:
    result = redactor.redact("The build bot writes from ops@build.notarealtldxyz every night.")
    assert "ops@" not in result.text
    assert "notarealtldxyz" not in result.text


def test_blank_text_passes_through(redactor: PresidioRedactor) -> None:
    assert redactor.redact("") == Redaction(text="")
    assert redactor.redact("  \n") == Redaction(text="  \n")


def test_entity_list_is_configurable(redactor: PresidioRedactor) -> None:
    emails_only = PresidioRedactor(redactor.analyzer, entities=["EMAIL_ADDRESS"])
    result = emails_only.redact(QUESTION)
    assert result.entities == ["EMAIL_ADDRESS"]
    assert "Maria Gonzalez" in result.text


def test_date_time_is_not_redacted_by_default(redactor: PresidioRedactor) -> None:
    assert "DATE_TIME" not in redactor.entities


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"entities": []}, "entities"), ({"score_threshold": 1.5}, "score_threshold")],
)
def test_rejects_bad_configuration(
    redactor: PresidioRedactor, kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        PresidioRedactor(redactor.analyzer, **kwargs)


def test_missing_model_fails_instead_of_downloading() -> None:
    with pytest.raises(RedactorSetupError, match="not installed"):
        build_analyzer(offline_extractor(), model_name="no_such_spacy_model_xyz")


def test_provider_only_ever_sees_the_redacted_query(
    redactor: PresidioRedactor, web_provider: FakeWebProvider
) -> None:
    web_provider.set_results([web_result("https://www.postgresql.org/", "PG", "16.2")])
    query = redactor.redact(QUESTION).text
    with TavilySearch(web_provider.url, "key", tenant_id="t1") as search:
        search.search(query, 3)
    sent = json.dumps(web_provider.requests)
    assert "PostgreSQL" in sent
    for fragment in PII:
        assert fragment not in sent


# -- no network ----------------------------------------------------------------------

# Runs in a fresh interpreter so nothing is cached or pre-imported. The audit hook sees every
# name lookup and connection attempt, including ones made from C, and refuses them.
_GUARDED_SCRIPT = textwrap.dedent(
    """
    import json, sys

    attempts = []
    BLOCKED = {
        "socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
        "socket.gethostbyname_ex", "socket.gethostbyaddr", "socket.getnameinfo",
        "socket.sendto", "socket.sendmsg",
    }

    def guard(event, args):
        if event in BLOCKED:
            attempts.append(f"{event}{args!r}")
            raise OSError(f"network blocked by test: {event}")

    sys.addaudithook(guard)
    out = {}
    if sys.argv[1] == "redactor":
        from redaction import build_redactor
        import tldextract

        redactor = build_redactor()
        result = redactor.redact(sys.argv[2])
        out = {"text": result.text, "entities": result.entities}
        # Any other caller of tldextract in the process is offline too.
        out["module_extract"] = tldextract.extract("https://forums.bbc.co.uk/x").suffix
    else:  # control: upstream tldextract as Presidio would use it without our fix
        import tldextract

        try:
            tldextract.extract("maria@example.com")
        except Exception:
            pass
    out["attempts"] = attempts
    print(json.dumps(out))
    """
)


def _run_guarded(tmp_path: Path, *args: str) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        # Fresh tldextract cache: a suffix list cached by an earlier run must not hide a fetch.
        "TLDEXTRACT_CACHE": str(tmp_path / "tldextract-cache"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
    }
    env.pop("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", None)
    # With a proxy configured, a download would connect to the proxy, not to the suffix
    # list's host, and the control test could not see which host was wanted.
    for proxy in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        env.pop(proxy, None)
    completed = subprocess.run(
        [sys.executable, "-c", _GUARDED_SCRIPT, *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def test_building_and_redacting_makes_no_network_call(tmp_path: Path) -> None:
    text = (
        "Mail maria.gonzalez@example.com or bob@mail.example.co.uk, see "
        "https://www.postgresql.org/docs/16/ and http://intranet.example.com/x?id=7"
    )
    out = _run_guarded(tmp_path, "redactor", text)

    assert out["attempts"] == []
    assert "maria.gonzalez" not in out["text"]
    assert "bob@" not in out["text"]
    assert out["entities"].count("EMAIL_ADDRESS") == 2
    assert out["module_extract"] == "co.uk"
    assert not (tmp_path / "tldextract-cache").exists()  # nothing written to disk either


def test_guard_catches_upstream_tldextract_download(tmp_path: Path) -> None:
    # Control for the test above: without the offline extractor, tldextract's first lookup
    # tries to fetch the Public Suffix List, and the guard must see it.
    out = _run_guarded(tmp_path, "control")
    assert any("publicsuffix.org" in attempt for attempt in out["attempts"]), out
