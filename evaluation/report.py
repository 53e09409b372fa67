"""The results of a run: the JSON document and the Markdown tables printed after it.

:class:`EvalReport` is the JSON document (``model_dump_json``): the settings used, every
item's result per arm, every answerable item's retrieval, the summaries and the targets.
:func:`render_table` turns it into Markdown: one row per arm and kind plus the overall row,
the retrieval hit@k (a chunk of the right page; a chunk of it holding a keyword), and the
targets with met / not met.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from evaluation.dataset import EvalItem
from evaluation.scoring import Attempt, ItemResult, RetrievalResult, score_item
from evaluation.summary import (
    OVERALL,
    GroupSummary,
    RetrievalSummary,
    summarise,
    summarise_retrieval,
)
from evaluation.targets import Target, judge_targets


class RunSettings(BaseModel):
    """What a run used, so its numbers can be reproduced and compared.

    Attributes:
        date: When it started (ISO 8601, UTC).
        git_commit: The checked-out commit (``None`` outside a repository).
        git_dirty: Tracked files had uncommitted changes.
        model: The generator model (every role but the verifier).
        verifier_model: The verifier's model.
        llm_base_url: The model endpoint.
        retrieve_k: Chunks per search (both arms, and hit@k).
        retrieval: ``bm25`` or ``hybrid`` (both arms, and hit@k).
        max_rewrites: The graph's rewrite limit.
        max_generations: The graph's generation limit.
        split: ``dev``, ``heldout`` or ``all``.
        corpora: Corpora of the items run.
        kinds: The kind filter (empty: all).
        files: Custom files evaluated (empty: the shipped ones).
        arms: Arms run (empty for a retrieval-only run).
        retrieval_only: Only hit@k was measured.
        tenants: Evaluation tenant per corpus.
        timeout_s: Each graph job's deadline, seconds.
        items: Items selected.
    """

    date: str
    git_commit: str | None
    git_dirty: bool
    model: str
    verifier_model: str
    llm_base_url: str
    retrieve_k: int
    retrieval: str = "bm25"
    max_rewrites: int
    max_generations: int
    split: str
    corpora: list[str]
    kinds: list[str]
    files: list[str]
    arms: list[str]
    retrieval_only: bool
    tenants: dict[str, str]
    timeout_s: float
    items: int


class EvalReport(BaseModel):
    """The JSON document of a run."""

    settings: RunSettings
    results: list[ItemResult]
    retrieval: list[RetrievalResult]
    summary: dict[str, dict[str, GroupSummary]]
    retrieval_summary: dict[str, RetrievalSummary]
    targets: list[Target]


def build_report(
    settings: RunSettings, results: Sequence[ItemResult], retrieval: Sequence[RetrievalResult]
) -> EvalReport:
    """Summarise ``results`` and ``retrieval`` and judge the targets."""
    summary = summarise(results)
    return EvalReport(
        settings=settings,
        results=list(results),
        retrieval=list(retrieval),
        summary=summary,
        retrieval_summary=summarise_retrieval(retrieval),
        targets=judge_targets(summary) if results else [],
    )


def rescore(report: EvalReport, items: Mapping[str, EvalItem]) -> EvalReport:
    """Judge a stored run's answers again with today's scoring rules (no model call).

    Each result's attempt (answer, citations, graded chunks and their labels as stored) is
    judged afresh against its item, found by id in ``items``; the summary and targets are
    rebuilt.

    Raises:
        KeyError: A result's item is not in ``items`` (the message names it).
    """
    results = []
    for old in report.results:
        if old.item_id not in items:
            raise KeyError(f"item {old.item_id!r} of the stored run is not in the evaluation set")
        item = items[old.item_id]
        attempt = Attempt.model_validate(old.model_dump(include=set(Attempt.model_fields)))
        results.append(score_item(item, old.arm, attempt))
    return build_report(report.settings, results, report.retrieval)


def _rate(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


ARM_HEADER = (
    "| arm | kind | n | answered correct | hallucinated | halluc./answered | abstained (failed) "
    "| unans. abstained | CRAG | router | grader P / R | calls | prompt tok mean / p50 "
    "| latency p50 / p95 s |"
)


ROUTER_NOTE = (
    "router: share of graph runs whose route (after the hard rules; with web search off the "
    "rules decide without asking the router model) is the expected one. grader P / R: "
    "verdicts kept vs chunks of the item's pages holding a keyword, pooled."
)


def _arm_row(arm: str, kind: str, g: GroupSummary) -> str:
    cells = [
        arm,
        f"**{kind}**" if kind == OVERALL else kind,
        str(g.n),
        _rate(g.answered_correct, g.answerable_n),
        str(g.hallucinated),
        _rate(g.hallucinated, g.answered),
        f"{g.abstained} ({g.failed})",
        _rate(g.unanswerable_abstained, g.unanswerable_n),
        "-" if g.crag_score is None else f"{g.crag_score:+.2f}",
        _pct(g.router_accuracy),
        f"{_pct(g.grader_precision)} / {_pct(g.grader_recall)}",
        _num(g.model_calls_mean),
        f"{_num(g.prompt_tokens_mean, 0)} / {_num(g.prompt_tokens_p50, 0)}",
        f"{_num(g.latency_p50_s)} / {_num(g.latency_p95_s)}",
    ]
    return "| " + " | ".join(cells) + " |"


def render_table(report: EvalReport) -> str:
    """The run as Markdown: settings line, arms x kinds, retrieval, targets."""
    s = report.settings
    commit = (s.git_commit or "unknown")[:10] + (" + uncommitted changes" if s.git_dirty else "")
    lines = [
        f"crag eval {s.date}: {s.items} items, split {s.split}, corpora "
        f"{', '.join(s.corpora) or '-'}, model {s.model} (verifier {s.verifier_model}), "
        f"retrieve_k {s.retrieve_k} ({s.retrieval}), commit {commit}",
        "",
    ]
    if report.summary:
        lines += [ARM_HEADER, "|" + " --- |" * ARM_HEADER.count(" | ") + " --- |"]
        for arm, groups in report.summary.items():
            lines += [_arm_row(arm, kind, g) for kind, g in groups.items()]
        lines += ["", ROUTER_NOTE, ""]
    if report.retrieval_summary:
        k = next(iter(report.retrieval_summary.values())).k
        lines += [
            f"| retrieval ({s.retrieval}) | n | page hit@{k} | answer chunk hit@{k} | MRR (page) |",
            "| --- | --- | --- | --- | --- |",
        ]
        for kind, r in report.retrieval_summary.items():
            name = f"**{kind}**" if kind == OVERALL else kind
            lines.append(
                f"| {name} | {r.n} | {_rate(r.hits, r.n)} | {_rate(r.answer_hits, r.n)} "
                f"| {_num(r.mrr, 2)} |"
            )
        lines.append("")
    if report.targets:
        scope = (
            "held-out split"
            if s.split == "heldout"
            else f"{s.split} items (in-sample: the targets are for the held-out split)"
        )
        lines += [f"Targets, graph arm, on {scope}:", "", "| target | value | met |"]
        lines.append("| --- | --- | --- |")
        for t in report.targets:
            met = {True: "met", False: "NOT met", None: f"n/a ({t.note})"}[t.met]
            lines.append(f"| {t.name} | {t.shown} | {met} |")
    return "\n".join(lines).rstrip() + "\n"
