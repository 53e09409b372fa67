"""Offline public-suffix lookups for Presidio's e-mail recogniser.

Presidio's ``EmailRecognizer.validate_result`` calls ``tldextract.extract`` to check that the
domain of a matched address ends in a public suffix. That module-level function delegates to
``tldextract.tldextract.TLD_EXTRACTOR``, which is built with the default suffix-list URLs, so
its first call downloads the Public Suffix List (https://publicsuffix.org/list/) over HTTPS:
a network call from inside the redactor, and a multi-second stall when the fleet has no
internet. This module builds an extractor that reads only the PSL snapshot bundled in the
tldextract wheel (``tldextract/.tld_set_snapshot``) and wires it in twice:

* :class:`OfflineEmailRecognizer` holds the extractor explicitly, so our e-mail validation
  does not depend on tldextract's module globals or on import order.
* :func:`install_process_wide` swaps it in for ``TLD_EXTRACTOR``, so any other caller of
  ``tldextract.extract`` in the process (other Presidio recognisers, today or after an
  upgrade) is offline too.

``tests/unit/test_redaction.py`` checks both in a fresh interpreter with sockets guarded.
"""

from __future__ import annotations

import logging

import tldextract
import tldextract.tldextract as tld_module
from presidio_analyzer.predefined_recognizers import EmailRecognizer

logger = logging.getLogger(__name__)


def offline_extractor() -> tldextract.TLDExtract:
    """Return a ``TLDExtract`` that never touches the network or the disk cache.

    ``suffix_list_urls=()`` disables the download, ``cache_dir=None`` keeps it from reading a
    (possibly stale or foreign) cache or writing one under ``$HOME``, and
    ``fallback_to_snapshot=True`` makes it parse the snapshot shipped inside the wheel. The
    snapshot is parsed here (~20 ms), not on the first redaction.

    Returns:
        A ready extractor whose suffix list is the one bundled with the installed tldextract.
    """
    extractor = tldextract.TLDExtract(
        cache_dir=None, suffix_list_urls=(), fallback_to_snapshot=True
    )
    extractor("example.com")
    return extractor


def install_process_wide(extractor: tldextract.TLDExtract) -> None:
    """Make ``tldextract.extract`` use ``extractor`` for the rest of the process.

    Args:
        extractor: An offline extractor from :func:`offline_extractor`.
    """
    if not isinstance(getattr(tld_module, "TLD_EXTRACTOR", None), tldextract.TLDExtract):
        # tldextract renamed its internals; OfflineEmailRecognizer still covers e-mails and
        # the no-network test will flag any other caller.
        logger.warning("tldextract has no TLD_EXTRACTOR; process-wide default left as is")
        return
    tld_module.TLD_EXTRACTOR = extractor


class OfflineEmailRecognizer(EmailRecognizer):
    """Presidio's e-mail recogniser with its domain check done against the bundled PSL.

    Scoring differs from upstream in one case: a domain whose suffix is not in the snapshot
    (e.g. a TLD delegated after the tldextract release) keeps the pattern score (0.5) instead
    of being dropped, so a plausible address is still redacted rather than leaked.
    """

    def __init__(self, extractor: tldextract.TLDExtract, supported_language: str = "en") -> None:
        super().__init__(supported_language=supported_language)
        self._extractor = extractor

    def validate_result(self, pattern_text: str) -> bool | None:
        """Return ``True`` for a known public suffix, else ``None`` (keep the regex score).

        Args:
            pattern_text: The matched address, e.g. ``"maria@example.com"``.
        """
        return True if self._extractor(pattern_text).fqdn else None
