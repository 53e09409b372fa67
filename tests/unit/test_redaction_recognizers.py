"""National ids, street addresses, phone formats and the reference-number and IP rules,
through the real redactor (shared session fixture)."""

from __future__ import annotations

import pytest
from presidio_analyzer import PatternRecognizer
from presidio_analyzer.predefined_recognizers import (
    AuTfnRecognizer,
    InAadhaarRecognizer,
    NhsRecognizer,
    PlPeselRecognizer,
)

from redaction import DEFAULT_ENTITIES, PresidioRedactor
from redaction.national_ids import NATIONAL_ID_ENTITIES


def test_national_ids_and_street_addresses_are_redacted_by_default() -> None:
    assert {*NATIONAL_ID_ENTITIES, "STREET_ADDRESS"} <= set(DEFAULT_ENTITIES)


@pytest.mark.parametrize(
    ("text", "secret", "entity"),
    [
        ("My NHS number is 943 476 5919, portal fails", "943 476 5919", "UK_NHS"),
        ("My PESEL 44051401359 fails validation", "44051401359", "PL_PESEL"),
        ("my tax file number 123 456 782 is rejected", "123 456 782", "AU_TFN"),
        ("My Aadhaar 2345 6789 0124 fails e-KYC", "2345 6789 0124", "IN_AADHAAR"),
        ("DNI 12345678Z rejected", "12345678Z", "ES_NIF"),
        ("NIE X1234567L rejected", "X1234567L", "ES_NIE"),
        ("Codice fiscale RSSMRA85T10A562S refused", "RSSMRA85T10A562S", "IT_FISCAL_CODE"),
        ("henkilötunnus 131052-308T flagged", "131052-308T", "FI_PERSONAL_IDENTITY_CODE"),
        ("national insurance number AB 12 34 56 C", "AB 12 34 56 C", "UK_NINO"),
        ("NRIC S1234567D in the logs", "S1234567D", "SG_NRIC_FIN"),
        ("PAN ABCPE1234F rejected", "ABCPE1234F", "IN_PAN"),
    ],
)
def test_national_ids(redactor: PresidioRedactor, text: str, secret: str, entity: str) -> None:
    # Only this id type, so a phone number reading of the same digits cannot stand in for it.
    result = PresidioRedactor(redactor.analyzer, entities=[entity]).redact(text)
    assert secret not in result.text
    assert result.entities == [entity]
    assert secret not in redactor.redact(text).search_text


@pytest.mark.parametrize(
    ("upstream", "text"),
    [
        (NhsRecognizer, "Firmware 9434765919 bricks the router"),
        (PlPeselRecognizer, "The log shows 44051401359 as the trace"),
        (AuTfnRecognizer, "Sleep 123456782 microseconds between polls"),
        (InAadhaarRecognizer, "Checksum 234567890124 does not match"),
    ],
)
def test_a_digits_only_checksum_needs_a_context_word(
    redactor: PresidioRedactor, upstream: type[PatternRecognizer], text: str
) -> None:
    # Presidio's own recogniser scores the valid checksum 1.0; ours wants "NHS", "PESEL"...
    plain = upstream(supported_language="en")
    assert [r.score for r in plain.analyze(text, plain.supported_entities)] == [1.0]
    ids_only = PresidioRedactor(redactor.analyzer, entities=NATIONAL_ID_ENTITIES)
    assert ids_only.redact(text).entities == []


def test_weak_pan_shapes_are_not_used(redactor: PresidioRedactor) -> None:
    text = "Our PAN team moved the 2024-03-01 release to KB50344411"
    assert redactor.redact(text).entities == []


@pytest.mark.parametrize(
    "address",
    [
        "221B Baker Street",
        "1600 Pennsylvania Avenue NW",
        "27 Elm Grove Road",
        "12 rue de la Paix",
        "8 avenue des Champs-Élysées",
        "Hauptstraße 5",
        "Friedrichstr. 123",
        "Keizersgracht 123",
        "Calle Mayor 10",
        "Avenida de la Constitución 45",
        "Via Roma 22",
        "Piazza del Duomo 3",
        "Rua Augusta 100",
    ],
)
def test_street_addresses(redactor: PresidioRedactor, address: str) -> None:
    result = redactor.redact(f"Please send the invoice to {address}, thanks.")
    assert result.search_text == "Please send the invoice to, thanks."


@pytest.mark.parametrize(
    "text",
    [
        "Does Spring Boot 3.2 support Java 21?",
        "Open port 22 on the Ubuntu 22.04 host",
        "Route 53 health check fails for the A record",
        "Sync 2 folders with the Drive API",
        "The Gateway 2 release drops HTTP/1.0",
    ],
)
def test_not_street_addresses(redactor: PresidioRedactor, text: str) -> None:
    assert "STREET_ADDRESS" not in redactor.redact(text).entities


@pytest.mark.parametrize(
    "phone",
    [
        "+44 20 7946 0958",
        "+49 30 123456",
        "+33 1 23 45 67 89",
        "+81 3-1234-5678",
        "0049 89 12345678",
        "+1 (415) 555-0132",
    ],
)
def test_international_phone_formats(redactor: PresidioRedactor, phone: str) -> None:
    result = redactor.redact(f"Call me on {phone} about the renewal.")
    assert result.search_text == "Call me on about the renewal."


@pytest.mark.parametrize(
    "text",
    [
        "Order 4471203398 is pending in Shopify",
        "RMA request 7781-2239-04 for a Dell PowerEdge",
        "Ticket #4155550132 was closed",
    ],
)
def test_reference_numbers_are_not_phone_numbers(redactor: PresidioRedactor, text: str) -> None:
    assert redactor.redact(text).entities == []


def test_a_version_is_not_a_short_phone_number(redactor: PresidioRedactor) -> None:
    # phonenumbers reads "16.86" as the German number 1686.
    assert redactor.redact("Why does Outlook for Mac 16.86 crash?").entities == []


def test_a_short_iban_before_a_word_is_caught(redactor: PresidioRedactor) -> None:
    # With the registry's IGNORECASE flag the IBAN pattern ran on into "shows".
    result = redactor.redact("My IBAN BE68 5390 0754 7034 shows twice in Odoo")
    assert result.search_text == "My IBAN shows twice in Odoo"


def test_a_phone_after_a_reference_word_with_a_country_code_is_still_a_phone(
    redactor: PresidioRedactor,
) -> None:
    assert redactor.redact("order +44 20 7946 0958").entities == ["PHONE_NUMBER"]


@pytest.mark.parametrize(
    ("text", "entities"),
    [
        ("Bind JupyterLab to 0.0.0.0 on port 8888", []),
        ("curl 127.0.0.1:8080 is refused", []),
        ("Listen on ::1 only", []),
        ("Block 203.0.113.7 in the WAF", ["IP_ADDRESS"]),
        ("My laptop at 192.168.1.42 is offline", ["IP_ADDRESS"]),
    ],
)
def test_only_identifying_ip_addresses(
    redactor: PresidioRedactor, text: str, entities: list[str]
) -> None:
    assert redactor.redact(text).entities == entities
