"""The operator console (``crag console``) over the real fleet: a worker process on the real
Redis, Postgres and Elasticsearch (the model scripted and slowed so a run can be watched),
the console served by uvicorn, and Debian's Chromium driven by Selenium through Debian's
chromedriver (nothing downloaded). Screenshots go to ``CRAG_SCREENSHOTS`` (default
``.infra/screenshots``) for a person to look at."""

from __future__ import annotations

import html
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import uvicorn
from typer.testing import CliRunner

from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.graph_helpers import TORQUE_ANSWER, grade_by_keyword, torque_model, verdict
from tests.integration.harness import producer, worker_fleet
from workers.cli.demo_stand_ins import WebhookReceiver
from workers.cli.main import app as cli
from workers.cli.main import tenant_keys
from workers.client.intake import submit_question
from workers.console.serve import console_app
from workers.core.progress import read_events
from workers.core.timeline import event_line
from workers.runtime.checkpointing import key_ring_from_settings

pytestmark = pytest.mark.integration

TORQUE_Q = "What torque does the rotor shaft fastener need?"
ANSWER_FACT = "12 newton metres"  # in TORQUE_ANSWER, not in the question
TOKEN = f"console-test-{uuid.uuid4().hex}"
ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("CRAG_SCREENSHOTS", ROOT / ".infra" / "screenshots"))
CHROMIUM = os.environ.get("CRAG_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CRAG_CHROMEDRIVER", "/usr/bin/chromedriver")


def slow_grader(user: str) -> dict[str, Any]:
    if "WATCHME" in user:
        time.sleep(0.6)  # each chunk's grade lands on its own, visibly
    return grade_by_keyword("newton metres")(user)


def slow_generator(user: str) -> dict[str, Any]:
    if "WATCHME" in user:
        time.sleep(3)  # long enough to look at the timeline before the answer
    return TORQUE_ANSWER


def slow_verifier(user: str) -> dict[str, Any]:
    if "WATCHME" in user:
        time.sleep(3)  # the answer exists, unverified: it must not show yet
    return verdict(True)


@pytest.fixture(scope="module")
def fleet(
    corpus_tenant: str, migrated_db: str, redis_client: Any, settings: Any, tmp_path_factory: Any
) -> Iterator[dict[str, Any]]:
    suffix = uuid.uuid4().hex[:8]
    queue, deliveries = f"crag.questions.test-{suffix}", f"crag.deliveries.test-{suffix}"
    keys = tenant_keys(corpus_tenant, allow_hosts=["127.0.0.1"])
    model = torque_model(slow_generator, grader=slow_grader, verifier=slow_verifier)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRAG_WEB_SEARCH")}
    env |= {
        "CRAG_QUEUE": queue,
        "CRAG_DELIVERY_QUEUE": deliveries,
        "CRAG_RETRY_BACKOFF_S": "1",
        "CRAG_WEBHOOK_MAX_ATTEMPTS": "2",
        "CRAG_WEBHOOK_TIMEOUT_S": "2",
    }
    try:
        with (
            FakeOpenAIServer(model) as llm,
            worker_fleet(env | {"CRAG_LLM_BASE_URL": llm.base_url}, tmp_path_factory.mktemp("w")),
            WebhookReceiver(keys.webhook_secret) as sink,
        ):
            yield {
                "tenant": corpus_tenant,
                "key": keys.submission_key,
                "queue": queue,
                "deliveries": deliveries,
                "sink": sink,
                "secret": keys.webhook_secret,
                "producer": producer(settings.redis_url),
            }
    finally:
        for key in redis_client.scan_iter(match=f"*test-{suffix}*"):
            redis_client.delete(key)


@pytest.fixture(scope="module")
def console(fleet: dict[str, Any], settings: Any) -> Iterator[str]:
    """The console on a free loopback port, sending to the module's queues; its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    mine = settings.model_copy(
        update={"queue": fleet["queue"], "delivery_queue": fleet["deliveries"]}
    )
    server = uvicorn.Server(
        uvicorn.Config(console_app(mine, TOKEN), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the console did not start within 20 s"
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for path, what in ((CHROMIUM, "CRAG_CHROMIUM"), (CHROMEDRIVER, "CRAG_CHROMEDRIVER")):
        assert Path(path).exists(), (
            f"{path} is missing: `make test` installs Debian's chromium and chromium-driver "
            f"(infra/tools); or point {what} at them"
        )
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch anything
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    options.add_argument("--window-size=1280,1100")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()


def _submit(fleet: dict[str, Any], **options: Any) -> Any:
    """Enqueue the torque question on a new thread of the module's tenant."""
    thread = f"th-{uuid.uuid4().hex[:8]}"
    return submit_question(
        fleet["producer"],
        fleet["queue"],
        fleet["tenant"],
        thread,
        TORQUE_Q,
        key=fleet["key"],
        **options,
    )


def _timeline(driver: Any) -> list[str]:
    return list(
        driver.execute_script(
            "return Array.from(document.querySelectorAll('#timeline li'), li => li.textContent)"
        )
    )


def _text(response: httpx.Response) -> str:
    return html.unescape(response.text)


def _until(fn: Any, timeout_s: float = 60, what: str = "") -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")


def test_every_request_needs_the_operator_token_and_bad_input_is_named(
    console: str, fleet: dict[str, Any]
) -> None:
    bare = httpx.get(f"{console}/")
    assert bare.status_code == 401 and "crag console" in bare.text and "Bearer" in bare.text
    wrong = httpx.get(f"{console}/api/jobs", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert httpx.get(f"{console}/static/console.css").status_code == 401
    # The one-time ?token= sets the cookie and leaves the address bar without it.
    entry = httpx.get(f"{console}/deliveries?token={TOKEN}&status=dead")
    assert entry.status_code == 303 and entry.headers["location"] == "/deliveries?status=dead"
    assert "HttpOnly" in entry.headers["set-cookie"] and "strict" in entry.headers["set-cookie"]
    with httpx.Client(base_url=console, headers={"Authorization": f"Bearer {TOKEN}"}) as ok:
        missing = ok.get(f"/jobs/{fleet['tenant']}/no-such-job")
        assert missing.status_code == 404 and "no job 'no-such-job'" in _text(missing)
        assert ok.get(f"/jobs/{fleet['tenant']}/no-such-job/events").status_code == 404
        # Another tenant's job is not shown under this tenant.
        job = _submit(fleet)
        mine = f"/api/jobs/{fleet['tenant']}/{job.job_id}"
        _until(lambda: ok.get(mine).json().get("outcome"), what="the job's outcome")
        elsewhere = ok.get(f"/api/jobs/someone-else/{job.job_id}")
        assert elsewhere.status_code == 404 and "only shown under its own tenant" in _text(
            elsewhere
        )
        no_hook = ok.post(f"/jobs/{fleet['tenant']}/{job.job_id}/redeliver")
        assert no_hook.status_code == 409 and "has no webhook to deliver to" in _text(no_hook)
        early = ok.post(f"/jobs/{fleet['tenant']}/never-ran/redeliver")
        assert early.status_code == 409 and "has no outcome" in _text(early)
        refused = ok.post(
            "/ask",
            content="tenant=nobody&thread=t&question=hi",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert refused.status_code == 400 and "tenant 'nobody' is not registered" in _text(refused)
        empty = ok.post(
            "/ask",
            content=f"tenant={fleet['tenant']}&thread=t&question=",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert empty.status_code == 400 and "missing: question" in _text(empty)
        bad = ok.get("/deliveries?status=lost")
        assert bad.status_code == 400 and "unknown delivery status 'lost'" in _text(bad)


def test_a_live_job_fills_its_timeline_in_the_browser_as_crag_watch_tells_it(
    console: str, fleet: dict[str, Any], browser: Any, redis_client: Any, settings: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{console}/ask?token={TOKEN}")
    Select(browser.find_element(By.ID, "ask-tenant")).select_by_value(fleet["tenant"])
    browser.find_element(By.ID, "ask-question").send_keys(f"WATCHME {TORQUE_Q}")
    browser.find_element(By.ID, "ask-submit").click()
    _until(lambda: "/jobs/" in browser.current_url, 20, "the job page")
    tenant, job_id = urlsplit(browser.current_url).path.split("/")[2:4]
    assert tenant == fleet["tenant"]

    # Live: grades arrive one by one while the generator is still at work, no answer yet.
    first = _until(
        lambda: [x for x in _timeline(browser) if "✓" in x or "✗" in x],
        30,
        "a chunk's grade in the timeline",
    )
    live = _timeline(browser)
    assert not browser.find_elements(By.ID, "outcome")
    assert ANSWER_FACT not in browser.page_source
    assert "running:" in browser.find_element(By.ID, "live-node").text
    assert browser.find_element(By.ID, "status").text == "running"
    browser.save_screenshot(str(SHOTS / "console-job-live.png"))
    _until(lambda: len(_timeline(browser)) > len(live), 30, "more of the timeline")
    assert first
    # While the verifier works, the generated answer exists but is nowhere on the page.
    _until(
        lambda: browser.find_element(By.ID, "live-node").text == "running: verify",
        30,
        "the verifier at work",
    )
    assert ANSWER_FACT not in browser.page_source and not browser.find_elements(By.ID, "answer")
    assert any("1 claims from 1 sources" in line for line in _timeline(browser))
    browser.save_screenshot(str(SHOTS / "console-job-verifying.png"))

    # The end: the page shows the verified answer, its citation, usage and trace id.
    answer = _until(lambda: browser.find_elements(By.ID, "answer"), 60, "the answer")
    assert ANSWER_FACT in answer[0].text
    assert browser.find_element(By.ID, "status").text == "answered"
    assert "rotor-maintenance.md" in browser.find_element(By.ID, "citations").text
    assert len(browser.find_element(By.ID, "trace-id").text) == 32
    shown = _until(
        lambda: (t := _timeline(browser)) and "outcome: answered" in t[-1] and t,
        30,
        "the whole timeline after the reload",
    )
    browser.save_screenshot(str(SHOTS / "console-job-answered.png"))

    # The same trajectory as `crag watch` prints for the same job, line for line.
    events = read_events(redis_client, tenant, job_id, cipher=key_ring_from_settings(settings))
    assert shown == [event_line(e, events[0]["at"]) for e in events]
    watched = CliRunner().invoke(cli, ["watch", job_id, "--tenant", tenant])
    assert watched.exit_code == 0, watched.output
    assert watched.stdout == "\n".join(shown) + "\n"

    browser.get(f"{console}/?tenant={tenant}")
    row = browser.find_element(By.CSS_SELECTOR, f"tr[data-job='{job_id}']")
    assert "answered" in row.text and "vectorstore" in row.text
    browser.save_screenshot(str(SHOTS / "console-jobs.png"))


def test_a_dead_delivery_is_listed_and_redelivered_from_the_browser(
    console: str, fleet: dict[str, Any], browser: Any
) -> None:
    from selenium.webdriver.common.by import By

    with WebhookReceiver(fleet["secret"], fail_first=99) as flaky:
        job = _submit(fleet, webhook_url=flaky.url)
        flaky.wait_for(job.job_id, count=2, timeout_s=60)
        browser.get(f"{console}/dead-letters?token={TOKEN}")
        row = _until(
            lambda: (
                [
                    r
                    for r in browser.find_elements(By.CSS_SELECTOR, "#dead-letters tbody tr")
                    if job.job_id[:13] in r.text
                ]
                or browser.refresh()
            ),
            60,
            "the webhook's dead letter",
        )[0]
        assert "webhook" in row.text
        browser.save_screenshot(str(SHOTS / "console-dead-letters.png"))
        flaky.fail_first = 0  # the receiver is fixed
        row.find_element(By.TAG_NAME, "button").click()
        note = _until(lambda: browser.find_elements(By.ID, "note"), 20, "the redeliver note")
        assert "delivery queued again" in note[0].text
        delivered = flaky.wait_for(job.job_id, count=3, timeout_s=60)
    assert delivered[-1].verified and delivered[-1].body["job_id"] == job.job_id
    browser.get(f"{console}/jobs/{fleet['tenant']}/{job.job_id}")
    _until(
        lambda: "delivered" in browser.find_element(By.ID, "delivery").text or browser.refresh(),
        30,
        "the delivered status",
    )
