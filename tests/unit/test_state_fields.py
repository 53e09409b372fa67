"""Every field of the graph state is either reset at a turn's start or said to outlive it."""

from __future__ import annotations

from pipeline.state import (
    SET_BEFORE_READ,
    THREAD_FIELDS,
    TURN_INPUT_FIELDS,
    CragState,
    turn_reset,
)


def test_each_state_field_has_exactly_one_place_at_a_turns_start() -> None:
    groups = [set(turn_reset()), THREAD_FIELDS, TURN_INPUT_FIELDS, SET_BEFORE_READ]
    fields = set(CragState.__annotations__)
    named = [name for group in groups for name in group]
    assert len(named) == len(set(named)), "a field is in two groups"
    assert set(named) == fields, (
        f"not placed: {sorted(fields - set(named))}; unknown: {sorted(set(named) - fields)}"
    )


def test_the_reset_is_fresh_each_turn() -> None:
    first, second = turn_reset(), turn_reset()
    first["queries_tried"].append("q")
    assert second["queries_tried"] == []
