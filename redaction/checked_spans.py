"""Analyzer results checked against the text around them, before anything is replaced.

Four corrections, found on ``tests/data/pii`` and on questions written after it:

* PERSON spans are trimmed, extended and filtered (:mod:`redaction.names`).
* A number right after a reference word ("order 4471203398", "RMA request 7781-2239-04",
  "case 170934211") is a reference, not a phone number or a national id, even when
  ``phonenumbers`` finds a valid US number in it. Numbers written with an international
  prefix ("+44 …", "0049 …") are always kept as phone numbers.
* A "phone number" of fewer than 7 digits is a version or a code: ``phonenumbers`` takes
  "Mac 16.86" for the German number 1686.
* Loopback and unspecified IP addresses ("127.0.0.1", "0.0.0.0", "::1") identify nobody:
  every host has them, and they are what configuration questions are about. Nor does an
  "IPv4 address" that is four groups of a longer dotted number ("17.0.11.9" in the version
  "17.0.11.9.1").
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence

from presidio_analyzer import RecognizerResult

from redaction.minimise.networks import is_nobodys_address
from redaction.names import refine_person_spans
from redaction.national_ids import NATIONAL_ID_ENTITIES

TRUSTED_PERSON_RECOGNIZERS = frozenset({"CuedNameRecognizer"})
"""Recognisers whose PERSON spans skip :func:`~redaction.names.refine_person_spans`."""

REFERENCE_WORDS = (
    "order|ticket|case|invoice|build|request|rma|po|ref|reference|tracking|serial|part"
    "|note|kb|job|issue|bug|incident|sku|item|transaction|txn|shipment|parcel|booking"
)
_REFERENCE_BEFORE = re.compile(
    rf"(?i)\b(?:{REFERENCE_WORDS})\s*(?:#|no\.?|nr\.?|number|id)?\s*[:#]?\s*$"
)
_NUMBER_ENTITIES = frozenset({"PHONE_NUMBER", *NATIONAL_ID_ENTITIES})
MIN_PHONE_DIGITS = 7
"""Fewest digits of a phone number worth redacting (a local number has 7 or more)."""


def refine_results(results: Sequence[RecognizerResult], text: str) -> list[RecognizerResult]:
    """Apply the corrections in the module docstring.

    Args:
        results: Analyzer results for ``text``.
        text: The analysed text.

    Returns:
        The results to redact (PERSON spans may be new objects with other bounds).
    """
    refined = refine_person_spans(results, text, keep_as_is=TRUSTED_PERSON_RECOGNIZERS)
    return [
        result
        for result in refined
        if not (
            is_reference_number(result, text)
            or is_too_short_for_a_phone(result, text)
            or is_non_identifying_ip(result, text)
        )
    ]


def is_reference_number(result: RecognizerResult, text: str) -> bool:
    """True for a phone or id match that directly follows a reference word.

    Args:
        result: One analyzer result.
        text: The analysed text.
    """
    if result.entity_type not in _NUMBER_ENTITIES:
        return False
    span = text[result.start : result.end]
    if span.startswith(("+", "00")):
        return False
    return _REFERENCE_BEFORE.search(text, 0, result.start) is not None


def is_too_short_for_a_phone(result: RecognizerResult, text: str) -> bool:
    """True for a PHONE_NUMBER match with fewer than :data:`MIN_PHONE_DIGITS` digits.

    Args:
        result: One analyzer result.
        text: The analysed text.
    """
    if result.entity_type != "PHONE_NUMBER":
        return False
    return sum(char.isdigit() for char in text[result.start : result.end]) < MIN_PHONE_DIGITS


def is_non_identifying_ip(result: RecognizerResult, text: str) -> bool:
    """True for an IP_ADDRESS match that is loopback, unspecified, or part of a longer number.

    Args:
        result: One analyzer result.
        text: The analysed text.
    """
    if result.entity_type != "IP_ADDRESS":
        return False
    if re.match(r"\.\d", text[result.end :]) or re.search(r"\d\.$", text[: result.start]):
        return True  # inside a longer dotted number: a version, not an address
    try:
        network = ipaddress.ip_network(text[result.start : result.end], strict=False)
    except ValueError:
        return False
    return is_nobodys_address(str(network.network_address))
