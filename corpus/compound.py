"""Split a compound question into the parts a search engine should look for one by one.

"How long does PostgreSQL wait on a lock before checking for a deadlock, and which SQLSTATE
code does the deadlock error carry?" asks for two facts that live on two pages. One BM25
query for the whole sentence ranks the page that matches more of its words first and often
never reaches the other. Searching each part on its own and fusing the rankings (reciprocal
rank fusion, as hybrid retrieval does) gives both pages a place in the top ``k``: the
decomposition step of multi-hop retrieval (Press et al. 2023, "Measuring and Narrowing the
Compositionality Gap in Language Models", self-ask; here done in code, at no model cost).

Only a clear clause boundary splits: a comma or semicolon (optionally followed by "and",
"or", "but" or "plus"), or "and", right before a new wh-word ("which", "what", "how", …),
outside quotes. "Which option sets X and Y?" stays one question, and so does a question
whose later part has no subject of its own ("What is MVCC and how does it work?": "how does
it work" names nothing to search for). A part that depends on a shared lead ("To promote a
standby, which pg_ctl mode …, and which SQL function does the same?") is searched with that
lead in front of it, so "the same" still has its subject.
"""

from __future__ import annotations

import re

from pipeline.lexical import content_terms

_WH = r"(?:which|what|how|where|when|who|whom|whose|why)"
_BOUNDARY = re.compile(
    rf"(?:\s*[,;]\s*(?:and|or|but|plus)?\s*|\s+and\s+)(?={_WH}\b)", re.IGNORECASE
)
_LEAD = re.compile(rf"^(?P<lead>[^?]*?,)\s*(?={_WH}\b)", re.IGNORECASE)
"""A lead clause before the first wh-word, ending in a comma ("To promote a standby,")."""
_QUOTED = re.compile(r"(['\"`\u2018\u201c]).*?(?:\1|[\u2019\u201d])")

MAX_PARTS = 3
"""More parts than this is a list, not a compound question: searched as one."""

MIN_PART_TERMS = 2
"""Content words a part needs of its own (stop words and wh-words aside) to be searched
alone: "how does it work?" has one, and means nothing without the part before it."""


def question_parts(question: str) -> list[str]:
    """The searchable parts of ``question``, or ``[question]`` when it is not compound.

    Args:
        question: A question or search query, any length.

    Returns:
        One string per part (2 to :data:`MAX_PARTS`), each a search query: the shared lead
        clause (if any) is kept on the first part, as written, and put in front of every
        later part. A question without a clause boundary outside quotes, with a part of
        fewer than :data:`MIN_PART_TERMS` content words, or with more than
        :data:`MAX_PARTS` parts comes back whole, as the only element.
    """
    text = question.strip()
    lead_match = _LEAD.match(text)
    lead = lead_match.group("lead").strip() if lead_match else ""
    body = text[lead_match.end() :] if lead_match else text
    quoted = [m.span() for m in _QUOTED.finditer(body)]
    cuts = [
        m.span()
        for m in _BOUNDARY.finditer(body)
        if not any(start <= m.start() < end for start, end in quoted)
    ]
    ends = [0, *(c for span in cuts for c in span), len(body)]
    pieces = [body[ends[i] : ends[i + 1]].strip(" ,;?") for i in range(0, len(ends), 2)]
    if not 2 <= len(pieces) <= MAX_PARTS or any(
        len(content_terms(p)) < MIN_PART_TERMS for p in pieces
    ):
        return [question]
    prefix = f"{lead} " if lead else ""
    return [f"{prefix}{p}?" for p in pieces]
