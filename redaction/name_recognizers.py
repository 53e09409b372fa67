"""Two PERSON recognisers that catch names the small English spaCy model misses.

* :class:`FoldedNameRecognizer` runs the same spaCy pipeline again on the text with accents
  folded to ASCII ("Nguyễn Văn An" → "Nguyen Van An", "María Fernanda Rodríguez" →
  "Maria Fernanda Rodriguez"): the English model has seen the folded spellings far more
  often. It runs only when folding changes the text, so plain-ASCII questions cost nothing.
* :class:`CuedNameRecognizer` takes the capitalised words after a phrase that introduces a
  person ("my name is", "I am", "Mr", "Dr.", "customer", "ticket from"), including the
  ALL-CAPS surname of French and Spanish administrative style ("DUPONT Jean").

Both report ``PERSON``; their spans then go through :mod:`redaction.names` like spaCy's
(the cued ones are kept as they are).
"""

from __future__ import annotations

import re
import unicodedata

from presidio_analyzer import AnalysisExplanation, LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts, NlpEngine

PERSON = "PERSON"
FOLDED_NAME_RECOGNIZER = "FoldedNameRecognizer"
CUED_NAME_RECOGNIZER = "CuedNameRecognizer"
SPACY_PERSON_SCORE = 0.85
"""The score Presidio's spaCy recogniser gives a PERSON entity."""


def fold_accents(text: str) -> str:
    """Replace each accented Latin letter by its base letter, one character for one.

    Offsets stay valid: "Ayşe" → "Ayse"; letters without an ASCII base ("ß", "Ł") are kept.
    """
    folded = []
    for char in text:
        base = unicodedata.normalize("NFKD", char)[:1]
        folded.append(base if base.isascii() and base.isalpha() else char)
    return "".join(folded)


class FoldedNameRecognizer(LocalRecognizer):
    """spaCy NER on the accent-folded text; PERSON spans map back one-to-one."""

    def __init__(self, nlp_engine: NlpEngine, supported_language: str = "en") -> None:
        """Share the analyzer's loaded NLP engine (no second model load).

        Args:
            nlp_engine: The engine the analyzer uses.
            supported_language: The analyzer's language code.
        """
        self._nlp_engine = nlp_engine
        super().__init__(
            supported_entities=[PERSON],
            supported_language=supported_language,
            name=FOLDED_NAME_RECOGNIZER,
        )

    def load(self) -> None:
        """Nothing to load: the engine is already loaded."""

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Return PERSON spans found in ``fold_accents(text)``; ``[]`` if folding is a no-op.

        Costs one more spaCy pass (~5 ms) on texts with accented letters.
        """
        folded = fold_accents(text)
        if PERSON not in entities or folded == text:
            return []
        artifacts = self._nlp_engine.process_text(folded, self.supported_language)
        return [
            RecognizerResult(
                PERSON,
                entity.start_char,
                entity.end_char,
                SPACY_PERSON_SCORE,
                analysis_explanation=AnalysisExplanation(
                    recognizer=FOLDED_NAME_RECOGNIZER,
                    original_score=SPACY_PERSON_SCORE,
                    textual_explanation="spaCy PERSON on accent-folded text",
                ),
                recognition_metadata={
                    RecognizerResult.RECOGNIZER_NAME_KEY: FOLDED_NAME_RECOGNIZER,
                    RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                },
            )
            for entity in artifacts.entities
            if entity.label_ == PERSON
        ]


_UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĒĖĘĚĞĪĮİŁŃŇŌŐŒŘŚŞŠŢŤŪŮŰŲŹŻŽ"
_APOSTROPHES = "'\u2019"
_NAME_WORD = (
    rf"(?:[{_UPPER}][^\W\d_]+(?:[{_APOSTROPHES}-][^\W\d_]+)*"
    rf"|[{_UPPER}][{_APOSTROPHES}][{_UPPER}][^\W\d_]+)"
)
_PARTICLE = r"(?:van|von|der|den|de|del|della|di|da|dos|das|du|le|la|y|bin|ibn|al|el|Ní|Nic|Mac)"
_NAME = rf"{_NAME_WORD}(?:[ ]+(?:{_PARTICLE}[ ]+)*{_NAME_WORD}){{0,3}}"
_TWO_OR_MORE = rf"{_NAME_WORD}(?:[ ]+(?:{_PARTICLE}[ ]+)*{_NAME_WORD}){{1,3}}"

_HONORIFIC = r"(?:Mr|Mrs|Ms|Dr|Prof|Herrn|Herr|Frau|Mme|Mlle)\.?"
_ONE_WORD_CUES = (
    rf"(?:(?i:my name is|name is|i am|i[{_APOSTROPHES}]m|dear|regards,?)\s+"
    rf"(?:{_HONORIFIC}\s+)?|{_HONORIFIC}\s+)"
)
_TWO_WORD_CUES = (
    r"(?i:this is|customer|client|colleague|employee|contractor|accountant|patient|kunde"
    r"|kundin|contact:|contact person:?|(?:ticket|message|e-?mail|mail|call|request|note)"
    r" from)\s+"
)
CUED_NAME = re.compile(
    rf"(?<![\w-])(?:{_ONE_WORD_CUES}(?P<one>{_NAME})|{_TWO_WORD_CUES}(?P<two>{_TWO_OR_MORE}))"
    r"(?![\w-])"
)
"""A cue phrase, then a capitalised name: one word or more after "I am", "Mr", "Dear"; two
or more after "customer", "this is", "ticket from" (where one capitalised word is as
likely a product: "this is Windows")."""


class CuedNameRecognizer(LocalRecognizer):
    """PERSON for the capitalised words after a cue (see :data:`CUED_NAME`), score 0.9."""

    SCORE = 0.9

    def __init__(self, supported_language: str = "en") -> None:
        """Build for ``supported_language`` (the cues are English, German and honorifics)."""
        super().__init__(
            supported_entities=[PERSON],
            supported_language=supported_language,
            name=CUED_NAME_RECOGNIZER,
        )

    def load(self) -> None:
        """Nothing to load."""

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        """Return the name after each cue in ``text``."""
        if PERSON not in entities:
            return []
        results = []
        for match in CUED_NAME.finditer(text):
            group = "one" if match.group("one") is not None else "two"
            results.append(
                RecognizerResult(
                    PERSON,
                    match.start(group),
                    match.end(group),
                    self.SCORE,
                    recognition_metadata={
                        RecognizerResult.RECOGNIZER_NAME_KEY: CUED_NAME_RECOGNIZER,
                        RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                    },
                )
            )
        return results
