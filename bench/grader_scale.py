"""Grader probe: does the local model separate answer chunks from their neighbours?

For each dev question of the answerable kind it grades the gold chunk
(:func:`evaluation.gold.gold_chunks`) and the two best BM25 chunks that are not labelled
relevant, each shown as the graph's grader sees it (:func:`pipeline.refine.excerpt`), under
three replies: today's ``GradeVerdict`` (a float in [0, 1]), the same with the score an
enum of 0.0 / 0.5 / 1.0, and a yes/no "does it state the answer". It prints, per reply,
how often labelled and unlabelled chunks got each value. Dev items only (in-sample); run
with the services and the model server up (``infra/up``):

    .venv/bin/python -m bench.grader_scale
"""

from __future__ import annotations

import collections
from typing import Literal

from elasticsearch import Elasticsearch
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from corpus import TenantRetriever
from evaluation.dataset import dataset_paths, load_items
from evaluation.gold import gold_chunks
from evaluation.scoring import label_chunk
from pipeline import prompts
from pipeline.lexical import content_terms
from pipeline.llm import ask_structured
from pipeline.refine import excerpt
from pipeline.schemas import GradeVerdict
from workers.runtime.models import make_chat_model
from workers.settings import Settings


class EnumVerdict(BaseModel):
    """``GradeVerdict`` with the score one of three values."""

    model_config = ConfigDict(extra="forbid")
    score: Literal[0.0, 0.5, 1.0] = Field(
        description="1.0 answers it, 0.5 partly or indirectly, 0.0 not at all."
    )
    reason: str = Field(max_length=60, description="A few words on why.")


class StatesAnswer(BaseModel):
    """A yes/no reply: the source itself states the answer."""

    model_config = ConfigDict(extra="forbid")
    states_answer: bool = Field(description="True only if the source itself states the answer.")


STATES_TASK = (
    "Task: does this source itself state the answer to the question (the value, name, "
    "command or option asked for), not just mention the topic? states_answer true or false."
)


def main() -> None:
    """Grade the chunks under each reply and print the counts."""
    settings = Settings()
    es = Elasticsearch(settings.elasticsearch_url)
    model = make_chat_model(settings)
    counts: dict[str, collections.Counter[tuple[bool, object]]] = collections.defaultdict(
        collections.Counter
    )
    items = [i for i in load_items(dataset_paths(split="dev")) if i.kind == "answerable"]
    for n, item in enumerate(items, start=1):
        retriever = TenantRetriever(es, f"eval-{item.corpus}", index_prefix=settings.index_prefix)
        gold = [(d, True) for d in gold_chunks(es, retriever, item)[:1]]
        found = retriever.search(item.question, 6)
        others = [(d, False) for d in found if not label_chunk(item, d["locator"], d["text"])]
        for doc, labelled in gold + others[:2]:
            shown = excerpt(doc, content_terms(item.question))
            graded = prompts.grader_messages(item.question, shown)
            body = f"Question: {item.question}\n\n{prompts.format_source(1, shown)}"
            asked = [SystemMessage(prompts.SYSTEM), HumanMessage(f"{body}\n\n{STATES_TASK}")]
            counts["float"][labelled, ask_structured(model, GradeVerdict, graded)[0].score] += 1
            counts["enum"][labelled, ask_structured(model, EnumVerdict, graded)[0].score] += 1
            states = ask_structured(model, StatesAnswer, asked)[0].states_answer
            counts["states"][labelled, states] += 1
        print(f"{n}/{len(items)} {item.id}", flush=True)
    for reply, counter in counts.items():
        cells = ", ".join(
            f"{'labelled' if lab else 'other'} {value}: {c}"
            for (lab, value), c in sorted(counter.items(), key=str)
        )
        print(f"{reply}: {cells}")


if __name__ == "__main__":
    main()
