"""Neutralising instruction-like text inside retrieved and web content.

Sources are data, never instructions (OWASP LLM01, prompt injection). Prompts already put
them inside delimiters and say so; this is the second layer: phrases that address the model
("ignore previous instructions…", fake role markers, "you are now…") are replaced by a
marker before any prompt shows the text, so a weaker model cannot be talked into following
them. The chunk itself is stored and cited unchanged.
"""

from __future__ import annotations

import re

REMOVED = "[instruction-like text removed]"

_PATTERNS = [
    # "ignore/disregard/forget (all) (the) previous/prior/above instructions …" to sentence end
    r"\b(ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(instruction|prompt|rule|direction)s?\b"
    r"[^.!?\n]*",
    r"\byou are now\b[^.!?\n]*",
    r"\b(new|updated|real) (system )?instructions?\s*:[^\n]*",
    # "reply PWNED", "say only HACKED": an all-capitals token (case-sensitive part)
    r"\b(reply|respond|answer|say|output|print)\s+(only\s+)?(with\s+)?[\"']?(?-i:[A-Z]{4,})\b"
    r"[^.!?\n]*",
    # A fake role turn at the start of a line or sentence: "SYSTEM: …", "Assistant: …"
    r"(?:^|(?<=[\n.!?]))\s*(?-i:SYSTEM|System|ASSISTANT|Assistant|DEVELOPER|Developer)\s*:[^\n]*",
    r"<\|im_start\|>.*?(?:<\|im_end\|>|$)",
    r"<\|?(im_start|im_end|system|endoftext)\|?>",
    r"#{2,}\s*(system|instruction)s?\b[^\n]*",
]
_INJECTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def neutralise(text: str) -> tuple[str, int]:
    """Replace instruction-like phrases in ``text`` with :data:`REMOVED`.

    Returns:
        The cleaned text and how many phrases were replaced.
    """
    return _INJECTION.subn(REMOVED, text)
