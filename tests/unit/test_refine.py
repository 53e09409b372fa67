"""Knowledge refinement keeps the sentences that bear on the question."""

from __future__ import annotations

from typing import Any

from pipeline.lexical import content_terms
from pipeline.refine import refine

CHUNK = (
    "# Rotor shaft maintenance\n\nThe rotor shaft fastener must be tightened to a torque of "
    "12 newton metres. Use a calibrated torque wrench and re-check the fastener after 50 hours."
    "\n\nLubricate the rotor bearings every 200 hours with the grease from the appendix."
)


def doc(text: str) -> Any:
    return {
        "id": "c1",
        "text": text,
        "source_type": "index",
        "locator": "x",
        "title": "t",
        "updated_at": "",
        "tenant_id": "t",
    }


def test_off_topic_sentences_are_dropped() -> None:
    refined = refine(doc(CHUNK), content_terms("What torque does the rotor shaft fastener need?"))
    assert "12 newton metres" in refined["text"] and "torque wrench" in refined["text"]
    assert "Lubricate" not in refined["text"]
    assert refined["id"] == "c1"


def test_a_kept_chunk_is_never_emptied() -> None:
    refined = refine(doc("Nothing here matches. Still nothing."), content_terms("rotor torque"))
    assert refined["text"] == "Nothing here matches."
