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

# Characters that render as nothing but a model still reads: zero-width and bidi controls,
# the byte-order mark, and Unicode "tag" characters (U+E0000-E007F, "ASCII smuggling").
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_TO_END = r"(?:https?://\S+|[^.!?\n])*"  # the rest of the sentence (a URL's dots included)

_PATTERNS = [
    # "ignore/disregard/forget (all) (the) previous/prior/above instructions …" to sentence end
    r"\b(ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(instruction|prompt|rule|direction)s?\b"
    + _TO_END,
    r"\byou are now\b" + _TO_END,
    r"\b(new|updated|real) (system )?instructions?\s*:[^\n]*",
    # "reply PWNED", "say only HACKED": an all-capitals token (case-sensitive part)
    r"\b(reply|respond|answer|say|output|print|write)\s+(only\s+)?(with\s+)?[\"']?(?-i:[A-Z]{4,})\b"
    + _TO_END,
    # A fake role turn at the start of a line or sentence: "SYSTEM: …", "Assistant: …"
    r"(?:^|(?<=[\n.!?]))\s*(?-i:SYSTEM|System|ASSISTANT|Assistant|DEVELOPER|Developer)\s*:[^\n]*",
    r"<\|im_start\|>.*?(?:<\|im_end\|>|$)",
    r"<\|?(im_start|im_end|system|endoftext)\|?>",
    r"#{2,}\s*(system|instruction|response)s?\b[^\n]*",
    # Fake system blocks: <system>…</system>, [system]…[/system], BEGIN … SYSTEM PROMPT … END
    r"<\s*(system|assistant|instructions?)\s*>.*?(?:<\s*/\s*\1\s*>|$)",
    r"\[\s*(system|inst|assistant)\s*\].*?(?:\[\s*/\s*\1\s*\]|$)",
    r"\bbegin (the )?system prompt\b.*?(?:\bend (the )?system prompt\b\.?|$)",
    # Addressing the model: "Attention AI model:", "Note to language models:", "AI agents:"
    r"\b(attention|note|message|notice) (to )?(the )?"
    r"(ai|llm|language model|assistant|agent|model)s?\b" + _TO_END,
    r"\b(ai|llm) (agents?|models?|assistants?)\s*:" + _TO_END,
    r"\byour (new|real|actual) (task|goal|job|instruction)s?\b" + _TO_END,
    r"\byou must (first )?(write|say|reply|answer|output|print|start|begin|end)\b" + _TO_END,
    r"\bbefore answering\b" + _TO_END,
    r"\bthe (only )?(valid|correct|right) (answer|reply|response) is\b" + _TO_END,
    # Role-play: "Let's play a game", "pretend you are", "act as FreeBot", "developer mode"
    r"\blet'?s play a game\b" + _TO_END,
    r"\b(pretend|imagine) (that )?(you are|you're|to be)\b" + _TO_END,
    r"\brole-?play(ing)? as\b" + _TO_END,
    r"\bfrom now on,? you\b" + _TO_END,
    r"\bdeveloper mode\b" + _TO_END,
    r"\b(DAN|jailbreak|jailbroken)\b" + _TO_END,
    # Exfiltration: reveal prompts or other documents; send, fetch or call URLs; images
    r"\breveal (your|the) (system )?(prompt|instructions)\b" + _TO_END,
    r"\b(all|other|every other) (retrieved )?documents? (from|of) other (tenants|customers|users)\b"
    + _TO_END,
    r"\b(send|post|upload|forward|email|transmit) (the )?(contents?|text|data|documents?|copy)\b"
    + _TO_END,
    r"\b(fetch|call|visit|open|load|request|ping|curl)\b[^.!?\n]{0,40}https?://\S*" + _TO_END,
    r"!\[[^\]]*\]\(\s*https?://[^)]*\)",
    r"\bsearch the web for\b" + _TO_END,
    r"\binclude (this|the following) (image|link|url)\b" + _TO_END,
]
_INJECTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE | re.DOTALL)


def neutralise(text: str) -> tuple[str, int]:
    """Replace instruction-like phrases in ``text`` with :data:`REMOVED`.

    Invisible characters are dropped and HTML comments removed first (a model reads what a
    person never sees), then the phrases are replaced.

    Returns:
        The cleaned text and how many phrases were replaced or hidden spans removed.
    """
    visible, hidden = _INVISIBLE.subn("", text)
    visible, comments = _HTML_COMMENT.subn(REMOVED, visible)
    cleaned, phrases = _INJECTION.subn(REMOVED, visible)
    return cleaned, phrases + comments + (1 if hidden else 0)
