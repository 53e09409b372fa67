"""Split a compound question into the parts a search engine should look for one by one.

"How long does PostgreSQL wait on a lock before checking for a deadlock, and which SQLSTATE
code does the deadlock error carry?" asks for two facts that live on two pages. One BM25
query for the whole sentence ranks the page that matches more of its words first and often
never reaches the other. Searching each part on its own and fusing the rankings (reciprocal
rank fusion, as hybrid retrieval does) gives both pages a place in the top ``k``: the
decomposition step of multi-hop retrieval (Press et al. 2023, "Measuring and Narrowing the
Compositionality Gap in Language Models", self-ask; here done in code, at no model cost).

Only a clear clause boundary splits: a comma, semicolon or "and" followed by a new question
word ("which", "what", "how", …). "Which option sets X and Y?" stays one question. A part
that depends on a shared lead ("To promote a standby, which pg_ctl mode …, and which SQL
function does the same?") is searched with that lead in front of it, so "the same" still has
its subject.
"""

from __future__ import annotations

import re

_QUESTION_WORDS = r"(?:which|what|how|where|when|who|whom|whose|why|is|are|does|do|can|should)"
_BOUNDARY = re.compile(
    rf"(?:\s*[,;]\s*(?:and|or|but|also|plus)?\s*|\s+and\s+|\s+also\s+)(?={_QUESTION_WORDS}\b)",
    re.IGNORECASE,
)
_LEAD = re.compile(rf"^(?P<lead>[^?]*?,)\s*(?={_QUESTION_WORDS}\b)", re.IGNORECASE)
"""A lead clause before the first question word, ending in a comma ("To promote a standby,")."""

MAX_PARTS = 3
"""More parts than this is a list, not a compound question: searched as one."""

MIN_PART_WORDS = 3
"""A part shorter than this ("and why?") is not searchable on its own: no split."""


def question_parts(question: str) -> list[str]:
    """The searchable parts of ``question``, or ``[question]`` when it is not compound.

    Args:
        question: A question or search query, any length.

    Returns:
        One string per part (2 to :data:`MAX_PARTS`), each a search query: the shared lead
        clause (if any) is kept on the first part, as written, and put in front of every
        later part. A question without a clause boundary, with a part under
        :data:`MIN_PART_WORDS` words, or with more than :data:`MAX_PARTS` parts comes back
        whole, as the only element.
    """
    text = question.strip()
    lead_match = _LEAD.match(text)
    lead = lead_match.group("lead").strip() if lead_match else ""
    body = text[lead_match.end() :] if lead_match else text
    pieces = [p.strip(" ,;?") for p in _BOUNDARY.split(body)]
    if not 2 <= len(pieces) <= MAX_PARTS or any(len(p.split()) < MIN_PART_WORDS for p in pieces):
        return [question]
    prefix = f"{lead} " if lead else ""
    return [f"{prefix}{p}?" for p in pieces]
