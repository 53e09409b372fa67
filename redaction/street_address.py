"""STREET_ADDRESS: house number and street name, in the forms of seven European languages.

English, French, German, Dutch, Spanish, Italian and Portuguese.

Presidio has no street-address recogniser and spaCy's small English model tags addresses as
``FAC``, ``ORG``, ``PERSON`` or ``DATE`` at random, so this is a pattern recogniser on the
three shapes addresses take in those languages:

* number first, English type word last: "221B Baker Street", "1600 Pennsylvania Avenue NW";
* number first, French type word first: "12 rue de la Paix", "8 avenue des Champs-Élysées";
* type word first, number last: "Calle Mayor 10", "Via Roma 22", "Avenida de la Constitución
  45", and German/Dutch compounds "Hauptstraße 5", "Friedrichstr. 123", "Keizersgracht 123".

Street names must be capitalised and the type word must be a street word, so
"Spring Boot 3.2" or "port 22" do not match; matching is case-sensitive (Presidio's default
flags include IGNORECASE) except for the French type words. City and postcode are not part
of the span: they are left in the query, like other places (see ``DEFAULT_ENTITIES``).
"""

from __future__ import annotations

import re

from presidio_analyzer import Pattern, PatternRecognizer

STREET_ADDRESS = "STREET_ADDRESS"

_UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĒĖĘĚĞĪĮİŁŃŇŌŐŒŘŚŞŠŢŤŪŮŰŲŹŻŽ"
_WORD = rf"[{_UPPER}][\w'\u2019.-]*\w"  # "Baker", "O'Connell", "Champs-Élysées", "St.-Anna"
_NUMBER = r"\d{1,5}[A-Za-z]?(?:\s?[-/]\s?\d{1,5}[A-Za-z]?)?"  # "221B", "12-14", "5a"
_PARTICLE = (
    r"(?:de la|de los|de las|de l'|del|de|des|du|d'|la|le|les|dei|degli|della|delle|di|da|do"
    r"|dos|das|van|von|der|den|am|an)"
)

_ENGLISH_TYPES = (
    "Street|St\\.?|Road|Rd\\.?|Avenue|Ave\\.?|Lane|Ln\\.?|Drive|Dr\\.?|Boulevard|Blvd\\.?|Way"
    "|Court|Ct\\.?|Place|Pl\\.?|Square|Sq\\.?|Terrace|Close|Crescent|Grove|Gardens|Parkway"
    "|Highway|Hwy\\.?|Row|Walk|Mews|Hill|Circle|Loop|Trail"
)
_FRENCH_TYPES = "rue|avenue|av\\.|boulevard|bd|place|chemin|allée|impasse|quai|route|cours|passage"
_ROMANCE_TYPES = (
    "Calle|C/|Avenida|Avda\\.?|Av\\.|Plaza|Paseo|Camino|Carrer|Carretera|Ronda|Travesía|Via"
    "|Viale|Piazza|Piazzale|Corso|Largo|Vicolo|Strada|Rua|Praça|Travessa|Alameda"
)
_COMPOUND_SUFFIXES = (
    "straße|strasse|str\\.|weg|gasse|allee|platz|damm|ufer|chaussee|steig|pfad"
    "|straat|laan|gracht|plein|kade|dijk|singel|gatan|vägen|gade|vej|veien"
)

PATTERNS = [
    Pattern(
        "number, name, English type",
        rf"\b{_NUMBER},?\s+(?:{_WORD}\s+){{1,3}}(?:{_ENGLISH_TYPES})(?!\w)"
        r"(?:\s+(?:NE|NW|SE|SW|N|S|E|W)\b)?",
        0.6,
    ),
    Pattern(
        "number, French type, name",
        rf"\b{_NUMBER}(?:\s?(?:bis|ter))?,?\s+(?i:{_FRENCH_TYPES})\s+"
        rf"(?:{_PARTICLE}\s*)?{_WORD}(?:\s+(?:{_PARTICLE}\s*)?{_WORD}){{0,3}}",
        0.6,
    ),
    Pattern(
        "Romance type, name, number",
        rf"\b(?:{_ROMANCE_TYPES})\s+(?:{_PARTICLE}\s+)?{_WORD}"
        rf"(?:\s+(?:{_PARTICLE}\s+)?{_WORD}){{0,3}},?\s+(?:n[º°o]\.?\s*)?{_NUMBER}\b",
        0.6,
    ),
    Pattern(
        "German or Dutch compound, number",
        rf"\b[{_UPPER}][\w-]*?(?:{_COMPOUND_SUFFIXES})\s*{_NUMBER}\b",
        0.6,
    ),
]


class StreetAddressRecognizer(PatternRecognizer):
    """Finds house number + street name spans; entity ``STREET_ADDRESS``, score 0.6."""

    def __init__(self, supported_language: str = "en") -> None:
        """Build the recogniser for ``supported_language`` (the patterns are not English-only).

        Args:
            supported_language: The analyzer's language code.
        """
        super().__init__(
            supported_entity=STREET_ADDRESS,
            name="StreetAddressRecognizer",
            patterns=PATTERNS,
            supported_language=supported_language,
            global_regex_flags=re.DOTALL | re.MULTILINE,
        )
