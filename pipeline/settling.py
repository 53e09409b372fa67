"""Sources that disagree on the fact asked for: found, then settled by trust, an abstention or both.

Two ways a disagreement is found. Before generation, in code
(:func:`settle_conflict`: :mod:`pipeline.conflicts` over the kept sources, then the
cross-check search of :mod:`pipeline.corroboration`). After verification, by the model
where the code could not read the value (:func:`judge_contradiction`:
:mod:`pipeline.contradiction`). Either is settled the same way (:func:`settled`): the
tenant's source trust, else ``conflicting_sources``, else, where the tenant allows it, an
answer that gives both values with their citations.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline import prompts
from pipeline.conflicts import Conflict, both_sides_answer, find_conflict, losing_sources, resolve
from pipeline.contradiction import as_conflict, challenge, challenged_claim, contradicted
from pipeline.corroboration import cross_check
from pipeline.deps import Deps, RetrievalError
from pipeline.documents import Document
from pipeline.grounding import published_answer
from pipeline.meter import Meter
from pipeline.schemas import PassageAnswers
from pipeline.screening import screened
from pipeline.sources import relevant_documents
from pipeline.standing import over_budget
from pipeline.state import CragState, Update, asked
from pipeline.values import ConflictRecord, CrossCheck, Generation


def settle_conflict(state: CragState, deps: Deps) -> Update:
    """Check the kept sources for a conflict on the fact asked for, in code, and settle it.

    No conflict: ``{}`` (or ``{"conflict": None}`` when an earlier both-sides answer is
    not the one being written now). Otherwise :func:`settled`; a both-sides answer is
    still verified like any answer.
    """
    docs = relevant_documents(state)
    found = find_conflict(asked(state), docs)
    update: Update = {}
    how = ""
    if found is None:
        update, found = cross_check(state, deps, docs)
        if found is None:
            earlier = state.get("conflict")
            if earlier and earlier["settled"] == "both":
                update["conflict"] = None  # that both-sides answer is not the one written now
            return update
        state = {**state, **update}  # type: ignore[typeddict-item]
        docs = relevant_documents(state)  # with the sources the cross-check found
        how = f" (found by the cross-check search {update['cross_check']['query']!r})"
    return update | settled(state, deps, found, docs, how)


def settled(
    state: CragState, deps: Deps, found: Conflict, docs: Sequence[Document], how: str = ""
) -> Update:
    """Settle ``found``: trust, else the tenant's ``on_conflict``.

    Trust settles it (:func:`pipeline.conflicts.resolve`): the other sides' sources are
    ``distrusted`` and the answer is written from the rest. Otherwise ``"abstain"`` ends
    the turn as ``conflicting_sources`` (``generation`` ``None``); ``"both"`` answers with
    one claim per side, in the sources' own words and citing them.

    Args:
        state: The turn's state.
        deps: The run's dependencies (``trust``, ``on_conflict``).
        found: The conflict.
        docs: Every source a side of ``found`` names.
        how: Appended to the record's detail: how the conflict was found.

    Returns:
        The update: ``conflict`` (a :class:`~pipeline.values.ConflictRecord`), and
        ``distrusted``, or ``generation`` and ``feedback``.
    """
    by_id = {d["id"]: d for d in docs}
    values = {
        side.statements[0].written or side.value: [by_id[i]["locator"] for i in side.source_ids]
        for side in found.sides
    }
    record: ConflictRecord = {
        "subject": found.subject,
        "aspect": found.aspect,
        "values": values,
        "settled": "abstained",
        "winner": None,
        "detail": found.describe(by_id) + how,
    }
    winner = resolve(found, docs, deps.trust)
    if winner is not None:
        shown = winner.statements[0].written or winner.value
        record |= {
            "settled": "trust",
            "winner": shown,
            "detail": f"{record['detail']}; the more trusted source wins ({shown})",
        }
        distrusted = sorted(losing_sources(found, winner))
        return {"conflict": record, "distrusted": [*state.get("distrusted", []), *distrusted]}
    if deps.on_conflict == "both":
        sides = [by_id[i] for side in found.sides for i in side.source_ids[:1]]
        generation: Generation = {
            "answer": "",
            "claims": both_sides_answer(found, sides),
            "sources": [d["id"] for d in sides],
        }
        record |= {"settled": "both", "detail": f"{record['detail']}; both are given"}
        return {
            "conflict": record,
            "generation": generation | {"answer": published_answer(generation)},
            "feedback": "",
        }
    return {"conflict": record, "generation": None, "feedback": record["detail"]}


def judge_contradiction(
    state: CragState,
    deps: Deps,
    meter: Meter,
    generation: Generation,
    by_id: dict[str, Document],
) -> Update:
    """Before a verified answer ships, have the model read what other pages answer, and compare.

    Runs when ``Limits.judge_conflicts`` is on, the tenant has an index, the answer gives a
    value (:func:`~pipeline.contradiction.challenged_claim`), and the search for its claim
    finds passages of other pages on its fact (:func:`~pipeline.contradiction.challenge`;
    callouts cut out first and recorded in ``flagged``). The model reads each passage's
    answer to the question; a reading that differs from the claim's value and that the
    passage bears out (:func:`~pipeline.contradiction.contradicted`) is a conflict,
    settled by :func:`settled`, its page joining the turn's sources (``cross_check``):

    - the claim's source is more trusted: the answer ships, its detail naming the other value;
    - the other page is more trusted: the claim's sources are ``distrusted`` and the answer
      is written again (``grounded`` ``False``);
    - neither: ``conflicting_sources``, or with ``on_conflict="both"`` an answer stating
      both passages with their citations.

    Fails closed: a reply that is unusable twice, or no budget left for the call, means the
    answer is not shipped (``grounded`` ``False``; the budget case abstains
    ``budget_exhausted``). A failed search is recorded (``cross_check.error``) and the
    answer ships on the checks it passed, as with the cross-check search.

    Returns:
        The update: empty, or only ``flagged``, when the answer stands as verified.
    """
    if not deps.limits.judge_conflicts or deps.retriever is None:
        return {}
    question = asked(state)
    claim = challenged_claim(question, generation["claims"])
    if claim is None:
        return {}
    try:
        hits = deps.retriever.search(claim["text"], max(deps.limits.cross_check_k, 1))
    except RetrievalError as exc:
        return {"cross_check": _with(state, None, claim["text"], error=str(exc))}
    screening = screened(state, hits)
    update: Update = {"flagged": screening["flagged"]}
    skip = set(state.get("distrusted", []))
    found = challenge(question, claim, by_id, screening["documents"], deps.trust, skip)
    if found is None:
        return update
    if over_budget({**state, "calls": [*state.get("calls", []), *meter.calls]}):
        return update | {"grounded": False, "resolves": False, "feedback": _UNCHECKED}
    messages = prompts.contradiction_messages(question, found.passages)
    reply, failed = meter.judge(
        "contradiction",
        deps.models.verifier,
        PassageAnswers,
        messages,
        "the contradiction check could not read the other pages",
    )
    if reply is None:
        return update | failed
    hit = contradicted(found, reply)
    if hit is None:
        return update
    passage, value = hit
    other = next(d for d in found.chunks if d["id"] == passage["id"])
    conflict = as_conflict(question, found, passage, value)
    docs = [*by_id.values(), other]
    how = f" (read by the model in {other['locator']})"
    update["cross_check"] = _with(state, other, found.claim)
    update |= settled(state, deps, conflict, docs, how)
    record = update["conflict"]
    if record["settled"] == "trust":
        if set(found.cited) & set(update.get("distrusted", [])):
            return update | {"grounded": False, "resolves": False, "feedback": record["detail"]}
        return update  # the claim's source won: the answer ships, naming the other value
    if record["settled"] == "both":
        both = update["generation"]
        verdicts = [True] * len(both["claims"]) if both else []
        return update | {"grounded": True, "resolves": True, "claim_verdicts": verdicts}
    return update | {"grounded": False, "resolves": False}


_UNCHECKED = (
    "the answer could not be checked against the tenant's other pages: the model-call "
    "budget has no call left for the contradiction check"
)


def _with(
    state: CragState, doc: Document | None, query: str, error: str | None = None
) -> CrossCheck:
    """The turn's cross-check record with ``doc`` among its documents (or ``error`` noted).

    ``query`` is recorded when the turn had no cross-check search of its own.
    """
    previous = state.get("cross_check")
    record: CrossCheck = (
        {**previous, "documents": list(previous["documents"])}
        if previous
        else {"query": query, "documents": [], "error": None}
    )
    if doc is not None and all(d["id"] != doc["id"] for d in record["documents"]):
        record["documents"].append(doc)
    if error is not None:
        record["error"] = error
    return record
