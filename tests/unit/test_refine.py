"""Knowledge refinement keeps the sentences that bear on the question."""

from __future__ import annotations

from pipeline.lexical import content_terms
from pipeline.refine import excerpt, refine
from tests.documents import make_doc

CHUNK = (
    "# Rotor shaft maintenance\n\nThe rotor shaft fastener must be tightened to a torque of "
    "12 newton metres. Use a calibrated torque wrench and re-check the fastener after 50 hours."
    "\n\nLubricate the rotor bearings every 200 hours with the grease from the appendix."
)


def test_off_topic_sentences_are_dropped() -> None:
    refined = refine(
        make_doc(CHUNK), content_terms("What torque does the rotor shaft fastener need?")
    )
    assert "12 newton metres" in refined["text"] and "torque wrench" in refined["text"]
    assert "Lubricate" not in refined["text"]
    assert refined["id"] == "c1"


def test_a_kept_chunk_is_never_emptied() -> None:
    refined = refine(
        make_doc("Nothing here matches. Still nothing."), content_terms("rotor torque")
    )
    assert refined["text"] == "Nothing here matches."


SETTINGS = (
    "port (integer)\n\nThe TCP port the server listens on; 5432 by default.\n\n"
    "superuser_reserved_connections (integer)\n\nDetermines the number of connection slots "
    "reserved for superusers. At most max_connections connections can be active. "
    "The default value is three connections.\n\nunix_socket_directories (string)"
)


def test_a_kept_sentence_keeps_the_label_it_falls_under() -> None:
    refined = refine(
        make_doc(SETTINGS), content_terms("What is the default value of max_connections?")
    )
    text = refined["text"]
    assert "The default value is three connections." in text
    # Without its label the sentence reads as the default of max_connections.
    assert text.index("superuser_reserved_connections (integer):") < text.index("three")
    assert "5432" not in text and "unix_socket_directories" not in text


class TestExcerpt:
    def test_a_chunk_that_fits_is_shown_whole(self) -> None:
        assert excerpt(make_doc(CHUNK), content_terms("torque"), max_chars=1000)["text"] == CHUNK

    def test_the_best_sentences_fit_the_budget_in_their_order_under_their_labels(self) -> None:
        terms = content_terms("How many connections are reserved for superusers by default?")
        shown = excerpt(make_doc(SETTINGS), terms, max_chars=170)["text"]
        assert len(shown) <= 170
        assert shown.startswith("superuser_reserved_connections (integer):")
        assert "reserved for superusers" in shown and "5432" not in shown
        assert shown.index("reserved for superusers") < shown.index("three connections")

    def test_a_sentence_longer_than_the_budget_is_cut_at_a_word(self) -> None:
        shown = excerpt(make_doc("word " * 100 + "end."), content_terms("word"), max_chars=50)
        assert len(shown["text"]) <= 52 and shown["text"].endswith(" …")


# As the PostgreSQL manual states a setting's default: once, under the setting's term line.
WAL = (
    "max_wal_size (integer)\n\nMaximum size to let the WAL grow during automatic checkpoints. "
    "This is a soft limit. The default is 1 GB. Increasing this parameter can increase the "
    "amount of time needed for crash recovery.\n\n"
    "min_wal_size (integer)\n\nAs long as WAL disk usage stays below this setting, old WAL "
    "files are recycled. The default is 80 MB."
)


def test_a_sentence_under_the_questions_own_term_line_needs_one_term_of_its_own() -> None:
    text = refine(make_doc(WAL), content_terms("What is the default max_wal_size?"))["text"]
    assert "The default is 1 GB." in text
    assert text.index("max_wal_size (integer):") < text.index("1 GB")
    # Another setting's default shares "default" alone: its label does not match.
    assert "80 MB" not in text
    # Under the matching label, a sentence with no term of the question still goes.
    assert "crash recovery" not in text


WRAPPED = (
    "# Configuration of the Quokka daemon\n\n## quokka_pool_size\n\n"
    "The `quokka_pool_size` setting controls how many worker connections the Quokka daemon\n"
    "keeps open. The default is 20. Raise it on busy hosts.\n\n## quokka_log_level\n\n"
    "The `quokka_log_level` setting chooses how much the daemon logs. The default is `info`.\n"
)


def test_a_hard_wrapped_line_is_prose_and_a_heading_naming_a_setting_is_its_term_line() -> None:
    """Found by a new user: the generator was shown only the other setting's default."""
    refined = refine(make_doc(WRAPPED), content_terms("What is the default of quokka_log_level?"))
    assert refined["text"] == (
        "quokka_log_level:\nThe `quokka_log_level` setting chooses how much the daemon logs. "
        "The default is `info`."
    )
    pool = refine(make_doc(WRAPPED), content_terms("What is the default quokka_pool_size?"))
    assert "The default is 20." in pool["text"] and "info" not in pool["text"]
    assert "daemon keeps open." in pool["text"]  # the wrapped sentence is whole again


def test_code_blocks_and_short_lines_are_not_joined() -> None:
    code = (
        "```\nSELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'\n"
        "and backend_type = 'client backend';\n```\nshared_buffers (integer)\nsets memory."
    )
    from pipeline.refine import strips

    labels = [(s.label, s.text) for s in strips(code)]
    assert ("shared_buffers (integer)", "sets memory.") in labels
    assert not any("client backend" in t and "SELECT" in t for _, t in labels)
