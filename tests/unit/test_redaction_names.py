"""PERSON handling: name-shaped tokens, span refinement, accent folding and cue phrases."""

from __future__ import annotations

import pytest
from presidio_analyzer import RecognizerResult

from redaction import PresidioRedactor
from redaction.name_recognizers import CUED_NAME, fold_accents
from redaction.names import is_name_token, refine_person_spans


@pytest.mark.parametrize(
    "token", ["Hans", "Müller", "O'Connor", "Jean-Luc", "Min-jun", "McDonald", "Nguyễn", "Łukasz"]
)
def test_name_tokens(token: str) -> None:
    assert is_name_token(token)


@pytest.mark.parametrize("token", ["KB", "SLOWLOG", "macOS", "SafeKey", "Java21", "the", "O", ""])
def test_not_name_tokens(token: str) -> None:
    assert not is_name_token(token)


def person(text: str, span: str, recognizer: str = "SpacyRecognizer") -> RecognizerResult:
    start = text.index(span)
    return RecognizerResult(
        "PERSON",
        start,
        start + len(span),
        0.85,
        recognition_metadata={RecognizerResult.RECOGNIZER_NAME_KEY: recognizer},
    )


def spans(results: list[RecognizerResult], text: str) -> list[str]:
    return sorted(text[r.start : r.end] for r in results if r.entity_type == "PERSON")


class TestRefinePersonSpans:
    @pytest.mark.parametrize(
        ("text", "tagged", "expected"),
        [
            ("Payroll for Mikko Virtanen fails", ["Virtanen"], ["Mikko Virtanen"]),
            ("Ayşe Y\u0131lmaz cannot type", ["Ayşe"], ["Ayşe Y\u0131lmaz"]),
            ("I asked Ludwig van Beethoven", ["Beethoven"], ["Ludwig van Beethoven"]),
            # Any capitalised neighbour is taken, a greeting too: the safe side.
            ("Thanks Anna Smith", ["Smith"], ["Thanks Anna Smith"]),
            ("Hi, this is Müller, Hans from HR", ["Müller", "Hans"], ["Hans", "Müller"]),
            ("Kim Min-jun's Galaxy S23 fails", ["Kim Min-jun's"], ["Kim Min-jun's"]),
            ("Maria Gonzalez 2 asked", ["Maria Gonzalez 2"], ["Maria Gonzalez"]),
        ],
    )
    def test_names_are_completed(self, text: str, tagged: list[str], expected: list[str]) -> None:
        refined = refine_person_spans([person(text, t) for t in tagged], text)
        assert spans(refined, text) == expected

    @pytest.mark.parametrize(
        ("text", "tagged"),
        [
            ("Which garbage collector in Java 17 works best?", "Java 17"),
            ("Does Apache Kafka 3.7 still need ZooKeeper?", "Kafka 3.7"),
            ("the Grafana 10.4 release notes", "Grafana"),
            ("items of 400 KB and more", "KB"),
            ("Redis SLOWLOG shows EVALSHA calls", "Redis SLOWLOG"),
            ("fails on macOS Sonoma 14.3", "macOS Sonoma 14.3"),
            ("forward to the Jira service desk", "Jira"),
        ],
    )
    def test_products_are_dropped(self, text: str, tagged: str) -> None:
        assert spans(refine_person_spans([person(text, tagged)], text), text) == []

    def test_trusted_spans_and_other_entities_pass_through(self) -> None:
        text = "Dear Anna, call +1 415 555 0132"
        phone = RecognizerResult("PHONE_NUMBER", 16, len(text), 0.4)
        cued = person(text, "Anna", recognizer="CuedNameRecognizer")
        refined = refine_person_spans(
            [phone, cued], text, keep_as_is=frozenset({"CuedNameRecognizer"})
        )
        assert refined == [phone, cued]


def test_fold_accents_keeps_offsets() -> None:
    text = "Nguyễn Văn An, Siobhán Ní Bhriain, Łukasz, Straße"
    folded = fold_accents(text)
    assert folded == "Nguyen Van An, Siobhan Ni Bhriain, Łukasz, Straße"
    assert len(folded) == len(text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hello, my name is Ana Lima.", "Ana Lima"),
        ("I am Dr. Emily Chen; thanks", "Emily Chen"),
        ("Ticket from DUPONT Jean: Sage crashes", "DUPONT Jean"),
        ("Customer Nguyễn Văn An cannot log in", "Nguyễn Văn An"),
        ("Mrs O'Brien asked", "O'Brien"),
        ("Bitte an Herrn Jürgen Schäfer schicken", "Jürgen Schäfer"),
    ],
)
def test_cued_names(text: str, name: str) -> None:
    [match] = CUED_NAME.finditer(text)
    assert name in {match.group("one"), match.group("two")}


@pytest.mark.parametrize(
    "text",
    [
        "this is Windows failing again",
        "Customer Insights in Dynamics 365",
        "the host name is server01",
        "I am using Visual Studio 2022",
    ],
)
def test_no_cued_name(text: str) -> None:
    assert list(CUED_NAME.finditer(text)) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "María Fernanda Rodríguez wants her invoices in Holded.",
            "<PERSON> wants her invoices in Holded.",
        ),
        (
            "Siobhán Ní Bhriain's laptop cannot reach the print server.",
            "<PERSON> laptop cannot reach the print server.",
        ),
        (
            "Garcia, Maria reports that the Zoom client 5.17 logs her out.",
            "<PERSON>, <PERSON> reports that the Zoom client 5.17 logs her out.",
        ),
    ],
)
def test_redactor_removes_whole_names_and_keeps_products(
    redactor: PresidioRedactor, text: str, expected: str
) -> None:
    assert redactor.redact(text).text == expected
