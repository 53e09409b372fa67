"""Settings: environment mapping, secrets, and the graph limits derived from them."""

from __future__ import annotations

import pytest

from pipeline.deps import Limits
from workers.runtime.resources import limits_from, psycopg_url
from workers.settings import Settings


def test_env_prefix_and_types(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRAG_MAX_REWRITES", "5")
    monkeypatch.setenv("CRAG_WEB_SEARCH_API_KEY", "tvly-secret")
    settings = Settings()
    assert settings.max_rewrites == 5
    assert "tvly-secret" not in repr(settings) and "tvly-secret" not in str(settings.model_dump())


def test_limits_follow_the_settings_of_the_same_name() -> None:
    limits = limits_from(Settings(max_rewrites=3, retrieve_k=7, min_lexical_support=0.5))
    assert (limits.max_rewrites, limits.retrieve_k, limits.min_lexical_support) == (3, 7, 0.5)
    assert limits_from(Settings()) == Limits()  # the defaults agree


def test_psycopg_url() -> None:
    assert psycopg_url("postgresql+psycopg://u:p@h:1/d") == "postgresql://u:p@h:1/d"


def test_fallback_chain_from_json(monkeypatch: pytest.MonkeyPatch) -> None:
    from workers.runtime.models import make_models

    monkeypatch.setenv(
        "CRAG_LLM_FALLBACKS",
        '[{"base_url": "http://127.0.0.1:9/v1", "model": "backup", "api_key": "sk-fallback"}]',
    )
    settings = Settings()
    models = make_models(settings)
    [backup] = models.fallbacks
    assert getattr(backup, "model_name", None) == "backup"
    assert "sk-fallback" not in repr(settings)


def test_latency_bounds_follow_the_settings() -> None:
    from pipeline.accounting import step_latency_s, worst_case_calls, worst_case_latency_s

    s = Settings()
    calls = worst_case_calls(s.retrieve_k, s.max_rewrites, s.web_results, s.max_generations)
    unbounded = worst_case_latency_s(calls, s.llm_timeout_s, s.llm_max_retries, 1)
    bound = s.job_deadline_s + step_latency_s(s.llm_timeout_s, s.llm_max_retries, 1)
    assert unbounded == 39 * 180 * 2 == 14040
    # With the defaults the deadline, not the loops, bounds what a caller waits: 1,320 s.
    assert bound == 600 + 180 * 2 * 2 < unbounded


def test_the_contradiction_check_adds_its_calls_and_their_retries_per_generation() -> None:
    from pipeline.accounting import worst_case_calls

    s = Settings()
    base = worst_case_calls(s.retrieve_k, s.max_rewrites, s.web_results, s.max_generations)
    judged = worst_case_calls(
        s.retrieve_k, s.max_rewrites, s.web_results, s.max_generations, judge_conflicts=True
    )
    assert (base, judged) == (39, 39 + 2 * s.max_generations) == (39, 43)
    assert s.judge_conflicts is False  # so the default ceiling of 40 still covers a turn


@pytest.mark.parametrize(
    ("env", "value", "named"),
    [
        ("CRAG_RETRIEVE_K", "0", "retrieve_k"),
        ("CRAG_LLM_TIMEOUT_S", "-1", "llm_timeout_s"),
        ("CRAG_LOCK_TTL_S", "0", "lock_ttl_s"),
        ("CRAG_WORKER_CONCURRENCY", "0", "worker_concurrency"),
        ("CRAG_LOWER_THRESHOLD", "1.5", "lower_threshold"),
        ("CRAG_UPPER_THRESHOLD", "0.2", r"CRAG_LOWER_THRESHOLD \(0.3\) is above"),
    ],
)
def test_out_of_range_values_fail_at_start_naming_the_field(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, named: str
) -> None:
    from pydantic import ValidationError

    monkeypatch.setenv(env, value)
    with pytest.raises(ValidationError, match=named):
        Settings()


def test_a_worker_without_a_checkpoint_key_exits_at_once_naming_the_setting() -> None:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("CRAG_CHECKPOINT")}
    done = subprocess.run(
        [sys.executable, "-m", "workers.cli", "worker", "--concurrency", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "CRAG_CHECKPOINT_KEY_FILE" in done.stderr
    assert "celery" not in done.stderr.lower()  # stopped before Celery started
