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

from pipeline.conflicts import Conflict, asked_statements, find_conflict, subjects_of
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
        The subject of the first value the sources state for the question, then its
        aspect's words (:data:`ASPECT_TERMS`): ``"bgwriter_delay default"``. A port question
        that names no setting (subject ``"port"``) searches the question's content words
        instead of the bare word. ``None`` when no kept source states such a value (read
        loosely or strictly: a default written as a word counts).
    """
    subjects = subjects_of(question)
    if not subjects:
        return None
    for doc in docs:
        loose, strict = (asked_statements(question, doc, subjects, s) for s in (False, True))
        for st in [*loose, *strict]:
            words = [st.subject]
            if st.subject == "port":  # the question's own words, in its order
                terms = content_terms(question)
                words = list(dict.fromkeys(w.lower() for w in _WORD.findall(question)))
                words = [w for w in words if w in terms]
            return " ".join(
                [*words, *(a for a in ASPECT_TERMS[st.aspect].split() if a not in words)]
            )
    return None


def cross_check(
    state: CragState, deps: Deps, docs: Sequence[Document]
) -> tuple[Update, Conflict | None]:
    """Search the tenant's index for the fact ``docs`` state, and check for a conflict again.

    Run once per turn (the result is kept in ``cross_check``), only when ``docs`` agree
    among themselves, and only with an index (``deps.retriever``) and
    ``Limits.cross_check_k`` above 0.

    Args:
        state: The turn's state.
        deps: The run's dependencies; the search asks ``deps.retriever`` for
            ``deps.limits.cross_check_k`` chunks.
        docs: The turn's kept sources (:func:`pipeline.answering.relevant_documents`).

    Returns:
        The state update (``cross_check``, and ``flagged`` when a found chunk carried a
        callout) and the conflict found over ``docs`` plus the chunks the search found, or
        ``None``. A failed search is recorded in ``cross_check.error`` and finds nothing:
        the answer then goes on with the checks it had, and the outcome's detail says the
        cross-check could not run.
    """
    k = deps.limits.cross_check_k
    if state.get("cross_check") is not None or deps.retriever is None or k <= 0:
        return {}, None
    question = asked(state)
    query = cross_check_query(question, docs)
    if query is None:
        return {}, None
    record: CrossCheck = {"query": query, "documents": [], "error": None}
    try:
        found = deps.retriever.search(query, k)
    except RetrievalError as exc:
        return {"cross_check": record | {"error": str(exc)}}, None
    seen = {d["id"] for d in docs} | set(state.get("distrusted", []))
    screening = screened(state, [d for d in found if d["id"] not in seen])
    others: list[Document] = screening["documents"]
    update: Update = {"flagged": screening["flagged"]}
    conflict = find_conflict(question, [*docs, *others]) if others else None
    if conflict is not None:  # the kept sources agreed, so found ones take part in it
        involved = {i for side in conflict.sides for i in side.source_ids}
        record["documents"] = [d for d in others if d["id"] in involved]
    return update | {"cross_check": record}, conflict


def corroborating(state: CragState) -> list[Document]:
    """The sources the cross-check search found that take part in the turn's conflict."""
    record = state.get("cross_check")
    return list(record["documents"]) if record else []
