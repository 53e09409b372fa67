"""What the search provider receives: placeholders gone, the rest of the query intact."""

from __future__ import annotations

import pytest

from pipeline.deps import Redaction


@pytest.mark.parametrize(
    ("redacted", "sent"),
    [
        (
            "I am <PERSON>, <EMAIL_ADDRESS>, phone <PHONE_NUMBER>. Why does VACUUM hang?",
            "I am, phone. Why does VACUUM hang?",
        ),
        ("<PERSON> asks: how to tune work_mem?", "asks: how to tune work_mem?"),
        ("Mail me (<EMAIL_ADDRESS>) about pg_dump", "Mail me about pg_dump"),
        ("Why does std::vector fail on ::1 for <PERSON>?", "Why does std::vector fail on ::1 for?"),
        ("no personal data here", "no personal data here"),
    ],
)
def test_placeholders_are_removed_and_the_query_is_tidied(redacted: str, sent: str) -> None:
    assert Redaction(redacted).search_text == sent
