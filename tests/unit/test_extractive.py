"""Extractive answering: numbered sentences, the reply's schema, picked sentences as claims."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pipeline import prompts
from pipeline.extractive import MAX_PICKED, extraction_schema, numbered_sources, picked_claims
from pipeline.lexical import content_terms
from pipeline.llm import response_format

SETTINGS = (
    "## 20.4. Resource Consumption\n\n"
    "shared_buffers (integer)\n"
    "Sets the amount of memory the database server uses for shared memory buffers. "
    "The default is typically 128 megabytes (128MB). Lubricate the bearings weekly.\n"
    "work_mem (integer)\n"
    "Sets the base maximum amount of memory for a query operation. The default value "
    "is four megabytes (4MB)."
)
ROTOR = (
    "# Rotor shaft maintenance\n\nThe rotor shaft fastener must be tightened to a torque of "
    "12 newton metres. Use a calibrated torque wrench and re-check the fastener after 50 hours."
)


def doc(doc_id: str, text: str) -> Any:
    return {
        "id": doc_id,
        "text": text,
        "source_type": "index",
        "locator": f"{doc_id}.html",
        "title": doc_id,
        "updated_at": "",
        "tenant_id": "t",
    }


def numbered(question: str, *docs: Any) -> Any:
    return numbered_sources(list(docs), content_terms(question))


def test_sentences_are_numbered_across_sources_after_refinement() -> None:
    shown, sentences = numbered(
        "What is the default value of shared_buffers and work_mem memory?",
        doc("a", SETTINGS),
        doc("b", ROTOR),
    )
    assert [s.number for s in sentences] == list(range(1, len(sentences) + 1))
    assert [s.source_id for s in sentences][-1] == "b"
    # Refinement ran: the off-topic sentence is neither shown nor pickable.
    assert "Lubricate" not in shown[0]["text"]
    assert all("Lubricate" not in s.claim for s in sentences)
    # Each sentence is shown on its own line under its label, with its number.
    lines = shown[0]["text"].splitlines()
    assert lines[0] == "shared_buffers (integer):"
    assert any(line.startswith("[S2] The default is typically 128 megabytes") for line in lines)
    assert "work_mem (integer):" in lines
    assert shown[0]["id"] == "a" and shown[1]["id"] == "b"


def test_a_claim_names_its_term_line_but_not_a_heading() -> None:
    _, sentences = numbered(
        "What is the default value of shared_buffers memory?", doc("a", SETTINGS)
    )
    default = next(s for s in sentences if "128MB" in s.claim)
    assert default.claim == (
        "shared_buffers (integer): The default is typically 128 megabytes (128MB)."
    )
    _, sentences = numbered("What torque does the rotor shaft fastener need?", doc("b", ROTOR))
    assert sentences[0].claim.startswith("The rotor shaft fastener must be tightened")
    assert "Rotor shaft maintenance" not in sentences[0].claim


def test_a_chunk_without_sentences_is_one_sentence_whole() -> None:
    table = "| setting | default |\n| --- | --- |\n| port | 5432 |"
    shown, sentences = numbered("Which port by default?", doc("t", table))
    assert len(sentences) == 1 and sentences[0].claim == table
    assert shown[0]["text"] == f"[S1] {table}"


def test_numbering_is_deterministic_so_the_verifier_shares_the_prefix() -> None:
    question = "What is the default value of shared_buffers memory?"
    first, _ = numbered(question, doc("a", SETTINGS), doc("b", ROTOR))
    again, _ = numbered(question, doc("a", SETTINGS), doc("b", ROTOR))
    generator = prompts.extractor_messages(question, first)[1].content
    verifier = prompts.verifier_messages(question, list(enumerate(again, 1)), [("x", [1])])
    body = prompts.sources_block(list(enumerate(first, 1)), question)
    assert str(generator).startswith(body) and str(verifier[1].content).startswith(body)


def test_the_schema_allows_only_shown_numbers_and_none() -> None:
    schema = extraction_schema(4)
    assert schema.model_validate({"sentences": [4, 1]}).sentences == [4, 1]
    assert schema.model_validate({"sentences": []}).sentences == []
    for bad in ([5], [0], [1, 2, 3][: MAX_PICKED + 1], ["1"]):
        with pytest.raises(ValidationError):
            schema.model_validate({"sentences": bad})
    # The grammar the model server builds sees the enum, not just "an integer".
    items = response_format(schema)["json_schema"]["schema"]["properties"]["sentences"]
    assert items["items"]["enum"] == [1, 2, 3, 4]
    assert items["maxItems"] == MAX_PICKED
    with pytest.raises(ValueError, match="no sentences"):
        extraction_schema(0)


def test_picked_sentences_become_claims_citing_their_own_source() -> None:
    _, sentences = numbered(
        "What is the default value of shared_buffers and the fastener torque?",
        doc("a", SETTINGS),
        doc("b", ROTOR),
    )
    rotor = next(s.number for s in sentences if "newton metres" in s.claim)
    buffers = next(s.number for s in sentences if "128MB" in s.claim)
    claims = picked_claims([rotor, buffers, rotor], sentences)
    assert claims == [
        {"text": sentences[rotor - 1].claim, "source_ids": ["b"]},
        {"text": sentences[buffers - 1].claim, "source_ids": ["a"]},
    ]
    assert picked_claims([], sentences) == []
    with pytest.raises(ValueError, match=r"\[S99\] was not shown"):
        picked_claims([99], sentences)
