"""Webhook URL rules (no SSRF) and which delivery failures are retried."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime

import httpx
import pytest

from workers.delivery.attempt import new_secret, post_signed
from workers.delivery.policy import (
    Address,
    intake_problem,
    is_retryable,
    retry_after_s,
    webhook_url_problem,
)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://hooks.example.com/crag", None),
        ("https://93.184.216.34/hook", None),
        ("http://hooks.example.com/crag", "must use https"),
        ("https://127.0.0.1:9200/_doc", "not a public address"),
        ("https://10.1.2.3/hook", "not a public address"),
        ("https://169.254.169.254/latest/meta-data", "not a public address"),
        ("https://[::1]/hook", "not a public address"),
        ("https://localhost/hook", "is local"),
        ("https://api.localhost/hook", "is local"),
    ],
)
def test_url_rules(url: str, problem: str | None) -> None:
    found = webhook_url_problem(url, [])
    assert (found is None) if problem is None else (problem in (found or ""))


def test_allowlist_overrides_the_rules() -> None:
    assert webhook_url_problem("http://127.0.0.1:8080/hook", ["127.0.0.1"]) is None
    assert webhook_url_problem("http://10.0.0.5/hook", ["127.0.0.1"]) is not None


@pytest.mark.parametrize(
    ("status", "retry"),
    [
        (408, True),
        (429, True),
        (500, True),
        (503, True),
        (400, False),
        (401, False),
        (404, False),
        (410, False),
    ],
)
def test_retryable_statuses(status: int, retry: bool) -> None:
    assert is_retryable(status) is retry


def test_retry_after_seconds_and_dates() -> None:
    now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
    assert retry_after_s("120") == 120.0
    assert retry_after_s("Mon, 30 Nov 2026 12:00:30 GMT", now) == 30.0
    assert retry_after_s("soon") is None and retry_after_s(None) is None


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        # Shorthand and integer spellings of loopback, which a literal-address check
        # takes for names: caught by resolving them.
        ("https://127.1/hook", "resolves to non-public address 127.0.0.1"),
        ("https://2130706433/hook", "resolves to non-public address 127.0.0.1"),
        ("https://0x7f000001/hook", "resolves to non-public address 127.0.0.1"),
        ("https://[::ffff:127.0.0.1]/hook", "not a public address"),
        ("https://localhost./hook", "is local"),
    ],
)
def test_loopback_in_disguise_is_refused_at_intake(url: str, problem: str) -> None:
    assert problem in (intake_problem(url, []) or "")


def test_a_public_name_that_resolves_privately_is_refused() -> None:
    def rebinding(host: str) -> list[Address]:
        return [ipaddress.ip_address("93.184.216.34"), ipaddress.ip_address("10.0.0.5")]

    problem = intake_problem("https://hooks.example.com/x", [], rebinding)
    assert problem is not None and "resolves to non-public address 10.0.0.5" in problem
    assert intake_problem("https://hooks.example.com/x", ["hooks.example.com"], rebinding) is None


def test_delivery_connects_to_the_checked_address_and_keeps_the_name() -> None:
    seen: list[httpx.Request] = []

    def receiver(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(204)

    client = httpx.Client(transport=httpx.MockTransport(receiver))
    attempt = post_signed(
        client,
        "https://93.184.216.34:8443/hook?x=1",
        new_secret(),
        "msg_1",
        {"job_id": "j"},
        timeout_s=1,
    )
    assert attempt.ok
    [request] = seen
    assert (request.url.host, request.url.port, request.url.path) == (
        "93.184.216.34",
        8443,
        "/hook",
    )
    assert request.headers["host"] == "93.184.216.34:8443"
    assert request.extensions["sni_hostname"] == "93.184.216.34"


def test_delivery_to_a_private_address_is_a_permanent_failure() -> None:
    client = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(204)))
    attempt = post_signed(
        client, "https://2130706433/hook", new_secret(), "msg_1", {"job_id": "j"}, 1
    )
    assert not attempt.ok and attempt.permanent
    assert "non-public address 127.0.0.1" in (attempt.error or "")
