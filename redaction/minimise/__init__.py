"""Builds a web query from the parts of a question that are known to be safe (issue 11).

Redaction removes what a recogniser detects; whatever it does not detect leaves. Out of
sample that was about half the personal values. This package turns the test around: a
piece of the question leaves only when it is *known to be safe*, and everything else is
dropped. Presidio then runs on what is left as a second layer
(:class:`redaction.egress.MinimisingRedactor`).

A piece is known to be safe when it is one of:

* a well-formed technical token: versions ("1.30", "124.0.6367.91", "22H2", "v0.36.1"),
  error codes ("SEC_ERROR_UNKNOWN_ISSUER", "0x80070005", "ORA-12514"), identifiers with
  ``_ . / : @ ::`` whose word parts are known words ("security.enterprise_roots.enabled",
  "@vitejs/plugin-react", "policies.json"), flags ("--legacy-peer-deps"), CamelCase
  product tokens ("CrashLoopBackOff", "macOS") and short ALL-CAPS acronyms ("HMRC");
* a common word of a language (wordfreq's lists, frequency of at least one in a million;
  rarer English words only in lower case and inside identifiers);
* a term of the technical vocabulary shipped with the package (:data:`TERMS_FILE`,
  ``redaction/technical_terms.txt``);
* a word the tenant's own corpus holds (``known_terms``, optional and injectable: asked
  once per question, with the words no list knows; see :class:`corpus.known_terms.
  IndexVocabulary`); never a word of the name lists;
* in Chinese and Japanese, which have no spaces, a run of characters covered by words of
  the vocabulary (greedy longest match).

And it is dropped, whatever the above says, when it is:

* a given name or surname of any locale Faker ships (unless it is a very common word in
  lower case, a technical term, or a capitalised word right before a version: "Hugo 0.125");
  a capitalised common word next to a name is dropped with it ("Summer Rain");
* the value after a cue ("passport", "customer ID", "Kennzeichen", "my name is", "Mme",
  "address" and their equivalents in the corpus languages), up to the end of the value;
* a structured value found by pattern on the whole question: e-mail addresses (also
  "name at example dot com"), IP addresses without a prefix length, IBANs, dates with a
  year, runs of digit groups of seven digits or more and lone numbers of six (phone, card
  and id numbers);
* one of the tenant's deny terms.

Too little left: when fewer than ``min_terms`` content terms are kept, :class:`Minimised`
carries a ``reason`` and nothing should be sent (the graph skips the web round).

The word lists come from PyPI packages installed with the service (``wordfreq`` and
``faker``); nothing is downloaded at run time. Loading them takes 1.5-2.5 s and about
320 MB of resident memory, once per process (:func:`load_vocabulary`; 600k common words,
174k rarer English words, 61k names).

The package, one responsibility per module:

* :mod:`~redaction.minimise.vocabulary`: the word lists (:class:`Vocabulary`,
  :func:`load_vocabulary`, :data:`LANGUAGES`, :data:`TERMS_FILE`);
* :mod:`~redaction.minimise.pieces`: splitting a question into pieces, and the shape and
  neighbourhood tests on them;
* :mod:`~redaction.minimise.patterns`: the structured values found by pattern;
* :mod:`~redaction.minimise.cues`: the personal cues and the values dropped after them;
* :mod:`~redaction.minimise.introductions`: names after a name label ("Titular:"), before
  "here" at the start of a message, and in a sign-off after a final dash;
* :mod:`~redaction.minimise.addresses`: address cues, street and unit words, post-office
  boxes, and the clause dropped after them; :mod:`~redaction.minimise.address_words`
  holds their word lists, :mod:`~redaction.minimise.addresses_east` the Chinese, Japanese
  and Korean addresses;
* :mod:`~redaction.minimise.networks`: local IP addresses and networks, which are kept;
* :mod:`~redaction.minimise.compounds`: closed compounds of known words ("collectstatic");
* :mod:`~redaction.minimise.classify`: the classification of each remaining piece;
* :mod:`~redaction.minimise.minimiser`: :class:`Minimiser`, which runs the steps, and its
  result :class:`Minimised`.
"""

from redaction.minimise.minimiser import MIN_TERMS, Minimised, Minimiser
from redaction.minimise.vocabulary import LANGUAGES, TERMS_FILE, Vocabulary, load_vocabulary

__all__ = [
    "LANGUAGES",
    "MIN_TERMS",
    "TERMS_FILE",
    "Minimised",
    "Minimiser",
    "Vocabulary",
    "load_vocabulary",
]
