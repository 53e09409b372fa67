"""The redaction metrics on stand-in redactors: a leak of any part of a value is a miss."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from pipeline.deps import Redaction
from redaction.evaluate import (
    measure_false_redactions,
    measure_recall,
    measure_terms,
    redacted_spans,
    searchable,
    surviving_fragments,
)
from redaction.pii_corpus import CorpusError, PiiValue, Question, load_questions


class Replace:
    """Replaces each given literal with ``<X>``: a redactor whose output is known."""

    def __init__(self, *secrets: str) -> None:
        self.secrets = secrets

    def redact(self, text: str, deny_terms: Sequence[str] = ()) -> Redaction:
        found = [s for s in self.secrets if s in text]
        for secret in found:
            text = text.replace(secret, "<X>")
        return Redaction(text=text, entities=["X"] * len(found))


CARD = "4111 1111 1111 1111"
QUESTION = Question(
    f"Ivan Petrov paid with {CARD}; why was Stripe charging twice?",
    (PiiValue("PERSON", "Ivan Petrov"), PiiValue("CREDIT_CARD", CARD)),
)


class TestRecall:
    def test_everything_replaced_is_caught(self) -> None:
        report = measure_recall(Replace("Ivan Petrov", CARD), [QUESTION])
        rows = {row.type: (row.caught, row.total) for row in report.by_type}
        assert rows["PERSON"] == (1, 1) and rows["CREDIT_CARD"] == (1, 1)
        assert rows["EMAIL_ADDRESS"] == (0, 0)
        assert report.misses == ()

    def test_half_a_card_left_behind_is_a_miss(self) -> None:
        report = measure_recall(Replace("Ivan Petrov", "4111 1111 "), [QUESTION])
        [miss] = report.misses
        assert miss.item.type == "CREDIT_CARD"
        assert "1111" in miss.survived
        assert {row.type: row.recall for row in report.by_type}["CREDIT_CARD"] == 0.0

    def test_a_surname_left_behind_is_a_miss(self) -> None:
        report = measure_recall(Replace("Ivan", CARD), [QUESTION])
        [miss] = report.misses
        assert (miss.item.value, miss.survived) == ("Ivan Petrov", ("petrov",))

    def test_spacing_and_case_do_not_hide_a_leak(self) -> None:
        question = Question(
            "Mail HANS@EXAMPLE.DE or call +49 30 123456",
            (
                PiiValue("EMAIL_ADDRESS", "HANS@EXAMPLE.DE"),
                PiiValue("PHONE_NUMBER", "+49 30 123456"),
            ),
        )

        class Reformat:
            def redact(self, text: str, deny_terms: Sequence[str] = ()) -> Redaction:
                return Redaction(text="Mail hans@example.de or call 0049-30-123-456")

        survived = {m.item.type: m.survived for m in measure_recall(Reformat(), [question]).misses}
        assert "hans@example.de" in survived["EMAIL_ADDRESS"]
        assert "4930123456" in survived["PHONE_NUMBER"]


class TestSurvivingFragments:
    def test_a_word_the_question_uses_elsewhere_is_not_a_leak(self) -> None:
        item = PiiValue("STREET_ADDRESS", "5 Station Road")
        text = "Ship to 5 Station Road; which Road Runner plan?"
        baseline = "Ship to  ; which Road Runner plan?"
        assert surviving_fragments(item, "Ship to; which Road Runner plan?", baseline) == ()
        assert set(surviving_fragments(item, text, baseline)) == {"station", "road", "5"}

    def test_short_latin_name_tokens_are_not_checked(self) -> None:
        assert surviving_fragments(PiiValue("PERSON", "Li Wei"), "Li asked", "asked") == ()

    @pytest.mark.parametrize(
        ("value", "sent", "fragment"),
        [
            ("李娜", "小程序在iOS 17上闪退。联系人：李娜", "李娜"),  # noqa: RUF001
            ("김민수", "김민수입니다 카카오톡 오류", "김민수"),  # a particle attached
            ("דנה", "לדנה יש בעיה ב-Outlook", "דנה"),  # a Hebrew prefix attached
        ],
    )
    def test_a_name_in_a_script_without_case_counts_inside_a_word(
        self, value: str, sent: str, fragment: str
    ) -> None:
        assert surviving_fragments(PiiValue("PERSON", value), sent, "") == (fragment,)

    @pytest.mark.parametrize(
        ("item", "sent", "fragment"),
        [
            (PiiValue("ACCOUNT_ID", "EMP-48213"), "employee 48213 cannot log in", "48213"),
            (PiiValue("ACCOUNT_ID", "k-nakamura"), "nakamura cannot log in", "nakamura"),
            (PiiValue("PASSPORT", "X1234567"), "passport 1234567 rejected", "1234567"),
            (PiiValue("DATE_OF_BIRTH", "12 March 1985"), "born 1985, the form fails", "1985"),
            (PiiValue("LICENSE_PLATE", "AB12 CDE"), "plate AB12 not read", "AB12"),
            (PiiValue("EMAIL_ADDRESS", "lina1990@example.com"), "lina cannot sign in", "lina"),
        ],
    )
    def test_part_of_an_id_left_behind_is_a_miss(
        self, item: PiiValue, sent: str, fragment: str
    ) -> None:
        assert fragment.casefold() in [f.casefold() for f in surviving_fragments(item, sent, "")]

    def test_an_id_prefix_in_capitals_is_not_a_leak(self) -> None:
        item = PiiValue("ACCOUNT_ID", "EMP-48213")
        assert surviving_fragments(item, "my EMP number cannot log in", "") == ()


class TestFalseRedactions:
    def test_flags_questions_with_any_redaction_and_names_the_spans(self) -> None:
        questions = [Question("Upgrade Java 21 on 10.0.0.1?"), Question("What is TLS 1.3?")]
        report = measure_false_redactions(Replace("Java 21", "10.0.0.1"), questions)
        assert report.total == 2 and report.rate == 0.5
        [flagged] = report.flagged
        assert flagged.removed == ("Java 21", "10.0.0.1")


@pytest.mark.parametrize(
    ("original", "redacted", "spans"),
    [
        ("Hi Ann, call 555", "Hi <PERSON>, call <PHONE_NUMBER>", ("Ann", "555")),
        ("Müller, Hans asks", "<PERSON>, <PERSON> asks", ("Müller", "Hans")),
        ("Ann Lee, +1 555", "<PERSON>, <PHONE_NUMBER>", ("Ann Lee", "+1 555")),
        ("nothing here", "nothing here", ()),
    ],
)
def test_redacted_spans(original: str, redacted: str, spans: tuple[str, ...]) -> None:
    assert redacted_spans(original, redacted) == spans


class TestLoader:
    def test_reads_labels(self, tmp_path: Path) -> None:
        path = tmp_path / "q.jsonl"
        row = {"text": "I am Ann Lee", "pii": [{"type": "PERSON", "value": "Ann Lee"}]}
        path.write_text(json.dumps(row) + "\n\n" + json.dumps({"text": "TLS?"}) + "\n")
        assert load_questions(path) == [
            Question("I am Ann Lee", (PiiValue("PERSON", "Ann Lee"),)),
            Question("TLS?"),
        ]

    @pytest.mark.parametrize(
        ("row", "problem"),
        [
            ({"pii": []}, "not a question record"),
            ({"text": "Ann", "pii": [{"type": "NAME", "value": "Ann"}]}, "unknown type"),
            ({"text": "Ann", "pii": [{"type": "PERSON", "value": "Bob"}]}, "not in the text"),
            ({"text": "Why Kafka?", "terms": ["Kafka 3.7"]}, "term 'Kafka 3.7' is not in"),
        ],
    )
    def test_rejects_bad_lines_with_their_number(
        self, tmp_path: Path, row: dict[str, object], problem: str
    ) -> None:
        path = tmp_path / "q.jsonl"
        path.write_text(json.dumps({"text": "ok"}) + "\n" + json.dumps(row) + "\n")
        with pytest.raises(CorpusError, match=re.escape("q.jsonl:2: ") + ".*" + problem):
            load_questions(path)


class TestTerms:
    def test_a_term_counts_only_when_it_reaches_the_search_text_whole(self) -> None:
        question = Question(
            f"Ivan Petrov paid with {CARD} on Stripe API 2024-06-20; why twice?",
            (PiiValue("PERSON", "Ivan Petrov"),),
            ("Stripe", "API 2024-06-20"),
        )
        kept = measure_terms(Replace("Ivan Petrov"), [question])
        assert (kept.kept, kept.total, kept.lost) == (2, 2, ())
        cut = measure_terms(Replace("Ivan Petrov", "2024-06-20"), [question])
        assert (cut.kept, cut.total) == (1, 2)
        assert [term for _, term, _ in cut.lost] == ["API 2024-06-20"]

    def test_a_search_still_finds_a_term_whose_punctuation_was_dropped(self) -> None:
        question = Question(
            "Chrome says 'Rats! WebGL hit a snag.' on Kubernetes 1.30",
            (),
            ("Rats! WebGL hit a snag.", "Kubernetes 1.30"),
        )
        report = measure_terms(Replace("!", "'"), [question])
        assert (report.kept, report.searchable, report.total) == (1, 2, 2)
        assert report.lost == ()

    @pytest.mark.parametrize(
        ("term", "sent", "found"),
        [
            ("security.enterprise_roots.enabled", "set security.enterprise_roots.enabled", True),
            ("Kubernetes 1.30", "kubernetes 1.30 pod", True),
            ("Kubernetes 1.30", "Kubernetes 1 pod", False),
            ("exit code 137", "exit 137 code", False),
            ("hit a snag", "hit snag", False),
            ("VBA マクロ", "Excel の VBA マクロがブロックされる", True),
            ("回復キー", "BitLocker の回復コード", False),
        ],
    )
    def test_searchable_needs_every_word_in_order(self, term: str, sent: str, found: bool) -> None:
        assert searchable(term, sent) is found


@pytest.mark.parametrize(
    "name",
    [
        f"{kind}.{split}"
        for kind in ("personal", "technical")
        for split in (
            *("dev", "heldout", "fresh", "tune", "sealed", "blind"),
            *("round5", "round6", "round7", "round8"),
        )
    ],
)
def test_the_egress_corpus_loads(name: str) -> None:
    questions = load_questions(Path(__file__).parents[1] / "data" / "egress" / f"{name}.jsonl")
    assert len(questions) >= 50
    assert all(q.terms for q in questions)
    carrying = [bool(q.pii) for q in questions]
    assert all(carrying) if name.startswith("personal") else not any(carrying)
