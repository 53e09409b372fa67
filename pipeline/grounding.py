"""Deterministic checks that cost no model call: citations and query repetition.

A fabricated or stale citation id, a claim without a citation or an ``[n]`` marker that
points nowhere fails here, before any verifier is asked.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence

from pipeline.documents import Document
from pipeline.lexical import (
    asks_for_quantity,
    identifiers,
    is_degenerate,
    numbers,
    states_quantity,
    support_ratio,
    unsupported_words,
)
from pipeline.values import Generation

_MARKER = re.compile(r"\[(\d+)\]")
_NON_WORD = re.compile(r"[^\w]+")


def citation_problems(
    generation: Generation, allowed_ids: Collection[str], *, direct: bool = False
) -> list[str]:
    """List what is wrong with a generation's citations (empty list: nothing).

    Args:
        generation: The generated answer with its claims.
        allowed_ids: Ids of the chunks graded relevant in the current round.
        direct: A direct reply (no sources): it must make no claims at all.

    Returns:
        Human-readable problems, fed back to the generator on a retry.
    """
    if not generation["answer"].strip():
        return ["the answer is empty"]
    if is_degenerate(generation["answer"]):
        return ["the answer repeats itself"]
    if direct:
        return ["a direct reply must not make factual claims"] if generation["claims"] else []
    problems = []
    if not generation["claims"]:
        problems.append("the answer lists no claims")
    for i, claim in enumerate(generation["claims"], start=1):
        if not claim["source_ids"]:
            problems.append(f"claim {i} cites no source")
        for sid in claim["source_ids"]:
            if sid not in allowed_ids:
                problems.append(f"claim {i} cites a source that is not among the graded ones")
    count = len(generation["sources"])
    for n in sorted({int(m) for m in _MARKER.findall(generation["answer"])}):
        if not 1 <= n <= count:
            problems.append(f"marker [{n}] points to no source")
    return problems


def support_problems(
    generation: Generation, by_id: Mapping[str, Document], min_support: float
) -> list[str]:
    """Lexical grounding: each claim's numbers, names and most of its words must be in its sources.

    A number the cited chunks never mention is the commonest hallucination, and a claim that
    shares few words with its chunks is rarely supported by them; both fail here, before the
    verifier model is asked (a pre-filter, not a replacement for it), and so does a claim
    that names a setting, function or option its chunks never mention ("The pg_stat_io view
    provides the columns and rows of the view", cited to a page about another view, shares
    four of its five terms with it), and a claim with words in a non-Latin script that its
    chunks do not contain.

    Args:
        generation: A generation that passed :func:`citation_problems`.
        by_id: The graded-relevant chunks by id.
        min_support: Least share of a claim's content terms found in its cited chunks.

    Returns:
        Human-readable problems naming the failing claims.
    """
    return [
        f"claim {i} {problem}"
        for i, problem in enumerate(claim_problems(generation, by_id, min_support), start=1)
        if problem
    ]


def claim_problems(
    generation: Generation, by_id: Mapping[str, Document], min_support: float
) -> list[str | None]:
    """Per claim, in order, why its cited sources do not support it (``None``: they do)."""
    return [
        claim_support_problem(c["text"], cited_text([c["source_ids"]], by_id), min_support)
        for c in generation["claims"]
    ]


def claim_support_problem(text: str, evidence: str, min_support: float) -> str | None:
    """Why ``evidence`` does not lexically support the claim ``text``, or ``None``.

    The checks of :func:`support_problems` for one claim, first failing one named:
    ``"states 40000, absent from its sources"``, ``"names --jobs, absent from its
    sources"``, ``"has words its sources do not: …"``, ``"is mostly not in the sources it
    cites"``.
    """
    missing = sorted(numbers(text) - numbers(evidence))
    lowered = evidence.lower()
    unnamed = sorted(n for n in identifiers(text) if n not in lowered)
    foreign = unsupported_words(text, evidence)
    if missing:
        return f"states {', '.join(missing)}, absent from its sources"
    if unnamed:
        return f"names {', '.join(unnamed)}, absent from its sources"
    if foreign:
        return f"has words its sources do not: {' '.join(foreign)}"
    if support_ratio(text, evidence) < min_support:
        return "is mostly not in the sources it cites"
    return None


def recited(
    generation: Generation, by_id: Mapping[str, Document], min_support: float
) -> Generation:
    """``generation`` with each claim that fails its own citations re-cited where it holds.

    A small generator often states a fact from one numbered source and cites the one next to
    it. A claim that fails :func:`claim_support_problem` against the sources it cites, but
    passes it against exactly the first shown source (in ``generation["sources"]`` order)
    that supports it alone, cites that source instead; every other claim is unchanged. The
    re-cited claim is still judged by the verifier against its new source, so this repairs
    attribution (RARR's "revise the attribution", Gao et al. 2023), never grounding.

    Returns:
        A new generation (the published answer recomposed from the claims) when some claim
        was re-cited; otherwise ``generation`` itself.
    """
    changed = False
    claims = []
    for claim in generation["claims"]:
        evidence = cited_text([claim["source_ids"]], by_id)
        if claim_support_problem(claim["text"], evidence, min_support) is not None:
            better = next(
                (
                    sid
                    for sid in generation["sources"]
                    if sid in by_id
                    and claim_support_problem(claim["text"], source_text(by_id[sid]), min_support)
                    is None
                ),
                None,
            )
            if better is not None:
                claim = {**claim, "source_ids": [better]}
                changed = True
        claims.append(claim)
    if not changed:
        return generation
    fixed: Generation = {**generation, "claims": claims, "answer": ""}
    return {**fixed, "answer": published_answer(fixed)}


def cited_text(source_ids: Sequence[Sequence[str]], by_id: Mapping[str, Document]) -> str:
    """The :func:`source_text` of each graded chunk named in ``source_ids``, joined.

    ``source_ids`` holds one id list per claim.
    """
    return " ".join(source_text(by_id[s]) for ids in source_ids for s in ids if s in by_id)


_SECTION_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*\.?(?![\w])")


def source_text(doc: Document) -> str:
    """A source as the lexical checks read it: its title, then its text.

    The generator and the verifier see each source's title
    (:func:`pipeline.prompts.format_source`), and a chunk rarely repeats its page's name:
    the entry of ``pg_basebackup``'s page that says the stream method "will require two
    replication connections" never writes ``pg_basebackup``, so a claim naming it was
    refused as naming something its source lacks. Numbers in the title (section numbers
    such as ``19.4.``) are left out: they are no figure a claim may state.
    """
    title = _SECTION_NUMBER.sub(" ", str(doc.get("title") or "")).strip()
    return f"{title}\n{doc['text']}" if title else doc["text"]


def resolution_problem(
    question: str, generation: Generation, by_id: Mapping[str, Document]
) -> str | None:
    """Why the claims cannot resolve ``question`` whatever their grounding, if they cannot.

    Two checks in code, at no model cost, for answers the 1.5B verifier accepted as
    resolving the question when they answered a neighbouring one:

    - When the question names settings, functions or options (:func:`identifiers`), a
      source the claims cite must mention one of them: "Which columns does the pg_stat_io
      view provide?" was answered from a page about another view.
    - A question that asks for a quantity ("how many", "how long", "what port") needs a
      claim that states one: given sources that lack the figure, the model wrote true
      sentences from the right neighbourhood instead ("a toast_tuple_target sentence" for
      a question about the longest table name).

    Args:
        question: The question judged against (the standalone form).
        generation: A generation that passed :func:`citation_problems`.
        by_id: The graded-relevant chunks by id.
    """
    cited = cited_text([c["source_ids"] for c in generation["claims"]], by_id).lower()
    named = sorted(identifiers(question))
    if named and not any(n in cited for n in named):
        return f"no cited source mentions {', '.join(named)}, which the question asks about"
    if asks_for_quantity(question) and not any(
        states_quantity(c["text"]) for c in generation["claims"]
    ):
        return "the question asks for a quantity and no claim states one"
    return None


def published_answer(generation: Generation) -> str:
    """The answer text users receive, always with ``[n]`` markers.

    The model's own text when it carries markers; otherwise the verified claims joined, each
    followed by its markers. Small models often list well-cited claims but forget the
    markers in the prose; composing from claims keeps every published statement cited.
    """
    if _MARKER.search(generation["answer"]) or not generation["claims"]:
        return generation["answer"]
    parts = []
    for claim in generation["claims"]:
        numbers = sorted(
            {
                generation["sources"].index(i) + 1
                for i in claim["source_ids"]
                if i in generation["sources"]
            }
        )
        text = claim["text"].strip().rstrip(".")
        parts.append(f"{text} " + "".join(f"[{n}]" for n in numbers) + ".")
    return " ".join(parts)


def cited_numbers(generation: Generation, text: str) -> list[int]:
    """Source numbers used by the published ``text`` or by any claim, ascending."""
    sources = generation["sources"]
    from_claims = {
        sources.index(i) + 1 for c in generation["claims"] for i in c["source_ids"] if i in sources
    }
    return sorted({int(n) for n in _MARKER.findall(text)} | from_claims)


def normalise_query(query: str) -> str:
    """Fold case, accents, punctuation and word order so near-identical queries compare equal.

    Examples:
        ``"What is MVCC?"`` and ``"mvcc what is"`` both become ``"is mvcc what"``.
    """
    folded = unicodedata.normalize("NFKD", query).encode("ascii", "ignore").decode().lower()
    return " ".join(sorted(w for w in _NON_WORD.split(folded) if w))
