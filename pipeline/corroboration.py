"""A second search for the fact the kept sources state: are they "supported by the other context"?

:func:`pipeline.conflicts.find_conflict` compares only the chunks a round kept (the top
``retrieve_k`` that passed grading). A value planted in one page is often the only
statement of that fact among them, while the page that states the true value ranks lower
(a long reference page, a table row). So before the answer is written, when the kept
sources state a value for the setting the question names, the tenant's index is searched
once more for that setting and aspect alone (``"bgwriter_delay default"``), and the
conflict check runs again over the kept sources plus what that search found (read
strictly, as always: only what is plainly about the setting, the value right after its
cue; :func:`pipeline.conflicts.statements`). Sources it
found that take part in a conflict join the turn's sources (:func:`corroborating`), so
source trust, the abstention and the both-sides answer treat them like any other.

This is the seeds' second line of defence ("injected instructions rarely produce claims
supported by the other context") made a search, not a hope that the top ``k`` happen to
hold the other context. It costs one index query (no model call, no prompt tokens) on
turns whose sources state a value the question asks for, and nothing on the others.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.conflicts import (
    Conflict,
    asked_aspect,
    asked_statements,
    fact_aspect,
    find_conflicts,
    subjects_of,
)
from pipeline.deps import Deps, RetrievalError
from pipeline.documents import Document
from pipeline.lexical import content_terms
from pipeline.screening import screened
from pipeline.state import CragState, Update, asked
from pipeline.values import CrossCheck

ASPECT_TERMS: dict[str, str] = {
    "default": "default",
    "maximum": "maximum",
    "minimum": "minimum",
    "port": "port default",
    "version": "version introduced",
    "date": "release date",
}
"""Words searched beside the subject for each aspect :mod:`pipeline.conflicts` reads."""
_WORD = re.compile(r"[\w.-]+")


def cross_check_query(question: str, docs: Sequence[Document]) -> str | None:
    """The search for other statements of the fact ``docs`` state, or ``None``.

    Args:
        question: The (standalone) question of the turn.
        docs: The kept sources, best first.

    Returns:
        The subject of a value the sources state for the question, then its aspect's words
        (:data:`ASPECT_TERMS`): ``"bgwriter_delay default"``; the first value of the
        aspect the question asks for, else the first value. A port question that names no
        setting (subject ``"port"``) searches the question's content words instead of the
        bare word. ``None`` when no kept source states such a value (read loosely or
        strictly: a default written as a word counts).
    """
    subjects = subjects_of(question)
    if not subjects:
        return None
    stated = [
        st
        for doc in docs
        for strict in (False, True)
        for st in asked_statements(question, doc, subjects, strict)
    ]
    wanted = asked_aspect(question)
    st = next((x for x in stated if fact_aspect(x.aspect) == wanted), None)
    st = st or next(iter(stated), None)
    if st is None:
        return None
    words = [st.subject]
    if st.subject == "port":  # the question's own words, in its order
        terms = content_terms(question)
        words = [w for w in dict.fromkeys(w.lower() for w in _WORD.findall(question)) if w in terms]
    return " ".join([*words, *(a for a in ASPECT_TERMS[st.aspect].split() if a not in words)])


def cross_check(
    state: CragState, deps: Deps, docs: Sequence[Document]
) -> tuple[Update, Conflict | None]:
    """Search the tenant's index for the fact ``docs`` state, and check for a conflict again.

    Run whenever ``docs`` agree among themselves (each generation attempt: a later round
    may keep other sources), with an index (``deps.retriever``) and
    ``Limits.cross_check_k`` above 0; the chunks an earlier run added stay.

    Only a conflict between a kept source and a found one counts, on the aspect the
    question asks for (when it names one): two found chunks that disagree with each other,
    or on another aspect, say nothing about the answer.

    Args:
        state: The turn's state.
        deps: The run's dependencies; the search asks ``deps.retriever`` for
            ``deps.limits.cross_check_k`` chunks.
        docs: The turn's kept sources (:func:`pipeline.answering.relevant_documents`).

    Returns:
        The state update (``cross_check``, and ``flagged`` when a found chunk carried a
        callout) and the conflict, or ``None``. A failed search is recorded in
        ``cross_check.error`` and finds nothing: the answer then goes on with the checks it
        had, and the outcome's detail says the cross-check could not run.
    """
    k = deps.limits.cross_check_k
    if deps.retriever is None or k <= 0:
        return {}, None
    question = asked(state)
    query = cross_check_query(question, docs)
    if query is None:
        return {}, None
    previous = state.get("cross_check")
    carried = list(previous["documents"]) if previous else []  # already among the sources
    record: CrossCheck = {"query": query, "documents": carried, "error": None}
    try:
        found = deps.retriever.search(query, k)
    except RetrievalError as exc:
        return {"cross_check": record | {"error": str(exc)}}, None
    seen = {d["id"] for d in docs} | set(state.get("distrusted", []))
    screening = screened(state, [d for d in found if d["id"] not in seen])
    others: list[Document] = screening["documents"]
    conflict = _kept_against_found(question, docs, others)
    if conflict is not None:
        involved = {i for side in conflict.sides for i in side.source_ids}
        record["documents"] = [*carried, *(d for d in others if d["id"] in involved)]
    return {"flagged": screening["flagged"], "cross_check": record}, conflict


def _kept_against_found(
    question: str, docs: Sequence[Document], others: Sequence[Document]
) -> Conflict | None:
    """The first conflict with a kept source on one side and a found one on another."""
    kept = {d["id"] for d in docs}
    wanted = asked_aspect(question)
    for conflict in find_conflicts(question, [*docs, *others]) if others else []:
        if wanted is not None and conflict.aspect != fact_aspect(wanted):
            continue
        holds = [set(side.source_ids) for side in conflict.sides]
        for i, a in enumerate(holds):
            if a & kept and any(b - kept for j, b in enumerate(holds) if j != i):
                return conflict
    return None


def corroborating(state: CragState) -> list[Document]:
    """The sources the cross-check search found that take part in the turn's conflict."""
    record = state.get("cross_check")
    return list(record["documents"]) if record else []
