"""Webhook URL rules (no SSRF) and which delivery failures are retried."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from workers.webhook_policy import is_retryable, retry_after_s, webhook_url_problem


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
