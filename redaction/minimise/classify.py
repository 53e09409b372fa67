"""The classification of one piece of a question (:class:`Classifier`).

Each piece not already dropped by a pattern or a cue gets a kind: ``tech`` (a technical
token: version, error code, identifier of known words, flag, CamelCase product, acronym),
``word`` (a common word or a term of the vocabulary), ``name`` (a name or an unknown
capitalised word), ``drop`` (unknown) or ``punct`` (no letters or digits). Three kinds are
provisional until :meth:`Classifier.spread_names` has run: ``lname`` (a common word that
is also a name), ``cname`` (an ALL-CAPS code) and ``acro`` (a short acronym) are kept
unless beside a name.
"""

from __future__ import annotations

import itertools
import re

from redaction.minimise.chinese_names import name_after_person_noun, starts_with_chinese_name
from redaction.minimise.compounds import is_compound
from redaction.minimise.cues import CJK_NAME_CUES
from redaction.minimise.logins import home_login, key_login, name_login
from redaction.minimise.pieces import (
    CJK,
    PARTICLES,
    Piece,
    capitalised,
    is_camel,
    is_cased_script,
    is_hangul,
    joined,
    joined_pieces,
    name_shaped,
    neighbour,
    next_is_version,
    particles_before_name,
    product_before_version,
    sentence_start,
    word_set,
)
from redaction.minimise.vocabulary import Vocabulary, is_name

_SPLIT = re.compile(r"[._/:@\-=+~#%$\\]+")

_BEFORE_LABELS = word_set(
    "the a an this that your my our its tap click press select choose hit open group"
)
"""Words before a capitalised function word that make it a label, not a name ("the May
update", "tap More", "the group Read permission")."""

_USER_AT_HOST = re.compile(r"([^\W\d_]+)@([A-Za-z][\w\-]*(?:\.[\w\-]+)*)(?::[~/\w.\-]*[$#]?)?")
"""A user at a host, and a shell prompt's path after it ("chenwei@DESKTOP-7Q2L:~$")."""
_DOMAIN_USER = re.compile(r"[A-Z][A-Z0-9\-]{1,14}\\([^\W\d_][\w.\-]*)")
"""A Windows logon name, a domain or machine and a user ("CORP\\jsmith")."""

_SHIFTS = re.compile(r"(?<=[A-Z])(?=\d)|(?<=\d)(?=[A-Z])")
"""Where letters turn to digits or back: a document number shifts often, a model code or a
knowledge-base id rarely ("KB5034441", "RTX4090", "SM-G991B")."""

_DOCUMENTS = word_set(
    "doc docx pdf odt rtf txt xls xlsx ods csv ppt pptx odp pages key numbers jpg jpeg png "
    "heic eml msg zip"
)
"""Extensions of the documents people write and name after themselves ("CV-Ana-Lima.pdf")."""
_EXTENSIONS = word_set(
    "json yaml yml toml xml ini conf cfg log txt csv md py js ts jsx tsx java jar class go rs "
    "rb php pl sh ps1 bat exe dll sys so dylib msi deb rpm apk dmg iso zip gz tar tgz bz2 7z "
    "pdf docx xlsx pptx html htm css sql db sqlite pem crt key pub p12 pfx cer lock env "
    "service socket timer plist reg vhdx vmdk img bin efi git"
)

_BANTU_PREFIX = re.compile(r"(?:ngu|ngo|kwa|ku|ka|no|na|u)([A-Z][a-z]{2,})")
"""A Zulu or Xhosa class prefix joined to a capitalised word: a name ("nguThandiwe")."""

_PERSONAL_KEYS = word_set(
    "id uid user username login customer client account member phone tel mobile card iban "
    "ssn email mail name"
)
"""Setting keys whose number is a person's ("user_id=48213"), not a setting's value."""

_HANGUL_ENDINGS = (
    "입니다", "습니다", "합니다", "했습니다", "에서", "에게", "으로", "하고", "이고", "이며",
    "에", "를", "을", "이", "가", "은", "는", "의", "로", "와", "과", "도", "만", "께서",
)  # fmt: skip


class Classifier:
    """Classifies the pieces of one question.

    Holds the vocabulary, the words of the question the tenant's corpus holds (asked
    once per question by :class:`redaction.minimise.Minimiser`) and the languages the
    question is written in (:meth:`Vocabulary.question_languages`).
    """

    def __init__(
        self, vocabulary: Vocabulary, corpus_words: frozenset[str], *, languages: int = -1
    ) -> None:
        self._vocab = vocabulary
        self._corpus_words = corpus_words
        self._languages = languages

    def is_content(self, piece: Piece) -> bool:
        """True when a kept piece counts as a content term (``Minimised.terms``)."""
        if piece.kind == "tech":
            return True
        word = piece.core.casefold()
        if CJK.fullmatch(piece.core):
            return len(piece.core) >= 2
        return len(word) >= 3 and word not in self._vocab.function

    def _known(self, folded: str) -> bool:
        return folded in self._corpus_words

    def _word_known(self, word: str) -> bool:
        folded = word.casefold()
        return (
            folded in self._vocab.common or folded in self._vocab.technical or self._known(folded)
        )

    def _is_name(self, word: str) -> bool:
        return is_name(self._vocab, word)

    def classify(self, pieces: list[Piece], i: int, caps_text: bool) -> str:
        """The kind of piece ``i``: tech, word, name, drop, punct, or lname, cname, acro, brand.

        The last four are settled by :meth:`spread_names`: a name beside them takes them
        with it, else they are kept.
        """
        piece = pieces[i]
        core = piece.core
        if not core:
            return "punct"
        if CJK.fullmatch(core):
            if name_after_person_noun(self._vocab, pieces, i):
                return "name"
            return self._classify_cjk(core)
        folded = core.casefold()
        if folded in self._vocab.technical or (self._known(folded) and not self._is_name(core)):
            return "tech"
        if folded in self._vocab.brand_words and folded not in self._vocab.common:
            return "brand"  # "Bitwarden": kept, unless a name stands beside it ("Dmitri Kaspersky")
        if re.fullmatch(r"--?[^\W\d_][\w\-.=]*", core):
            return "tech"  # a command-line flag: "--legacy-peer-deps", "-Xmx"
        scoped = re.fullmatch(r"@([a-z0-9][\w.\-]*)/[\w.\-]+(?:@[\w.^~\-]+)?", core)
        if scoped and not self._is_name(scoped.group(1)):
            return "tech"  # an npm package specifier: "@vitejs/plugin-react"
        if re.fullmatch(r"[^\W\d_][\w.]*\([\w.]*\)", core) and all(
            self._word_known(w) or w.casefold() in self._vocab.rare
            for w in re.findall(r"[^\W\d_]+", core)
        ):
            return "tech"  # "require(esm)", "os.fork()": a call
        account = _USER_AT_HOST.fullmatch(core)
        tag = account is not None and account.group(2).isalpha() and account.group(2).islower()
        if account and not tag and not self._word_known(account.group(1)):
            return "drop"  # "chenwei@DESKTOP-7Q2L", "mpark@build01:~$": a user at a host
        domain = _DOMAIN_USER.fullmatch(core)
        if domain and not self._word_known(domain.group(1)):
            return "drop"  # "CORP\\jsmith", "DESKTOP-7Q2L\\chenwei": a Windows logon name
        if key_login(core):
            return "drop"  # "user_id=u_7f3k29xq": the value of a person's key
        if home_login(core):
            return "drop"  # "C:\\Users\\r.delacroix\\OneDrive": a person's home directory
        if name_login(self._vocab, core, _EXTENSIONS):
            return "drop"  # "ana.petrov", "m_garcia42", "user=amelie.rousseau2": a login
        if self._name_in_identifier(core):
            return "name"  # "CV-Lucinda-Marsh-Obi-final.docx": a name, and its neighbours go too
        if any(c.isdigit() for c in core):
            return self._classify_digits(core)
        hyphenated = re.fullmatch(r"[^\W\d_]+(?:[\-'\u2019][^\W\d_]+)+", core) is not None
        if hyphenated and any(is_camel(p) and not name_shaped(p) for p in core.split("-")):
            return "tech"  # "Set-MgUserLicense", "pushTAN-Version"
        if not hyphenated and (_SPLIT.search(core.strip("-")) or core.startswith("-")):
            return self._classify_identifier(core)
        letters = [c for c in core if c.isalpha()]
        if not letters:
            return "punct"
        if not all(is_cased_script(c) for c in letters):
            return self._classify_uncased(core)
        bantu = _BANTU_PREFIX.fullmatch(core)
        if bantu and not self._word_known(bantu.group(1)):
            return "name"  # "nguThandiwe", "uSipho": a Nguni class prefix before a name
        if is_camel(core) and not name_shaped(core):
            return "tech"
        if core.isupper() and len(letters) >= 2 and not caps_text:
            parts = [p for p in re.split(r"[\-'\u2019]", core) if p]
            if any(self._is_name(p) for p in parts):
                return "cname" if len(letters) <= 5 and not hyphenated else "name"
            if hyphenated and not all(self._word_known(p) for p in parts if len(p) > 2):
                return "name"
            if len(letters) <= 5 or self._word_known(core):
                return "acro"
            return "cname"  # "ERESOLVE", "EACCES": an error code, unless beside a name
        title = core[0].isupper()
        if title or caps_text:
            return self._classify_title(pieces, i, core, caps_text)
        return self._classify_lower(core)

    def _classify_title(self, pieces: list[Piece], i: int, core: str, caps_text: bool) -> str:
        folded = core.casefold()
        parts = [p for p in re.split(r"[\-'\u2019]", folded) if p]
        after = pieces[i + 1].core if i + 1 < len(pieces) else ""
        house = after.isdigit() and len(after) >= 3 and core.isalpha()
        if next_is_version(pieces, i) and not (house and not self._word_known(core)):
            # "Hugo 0.125", "Odoo 17", "Excel 2019": a product and its version; an unknown
            # word before a bare number of 3+ digits is a street or a name as often
            # ("Oskarova 4417") and stays
            return "tech"
        # a word common only outside English may be a surname ("Kowalczyk Media Server 4")
        foreign = any(p in self._vocab.common and not self._vocab.common[p] & 1 for p in parts)
        named = any(p in self._vocab.names for p in parts)
        if not (named or foreign) and product_before_version(pieces, i):
            return "tech"  # "Jupyter Notebook 7.1": the first word of a product name
        if re.match(r"[^\W\d_][\-][A-Z]", core) and self._word_known(core[2:]):
            return "word"  # "Q-Park", "X-Ray", "e-Tax"
        if any(self._is_name(p) for p in parts):
            prev = neighbour(pieces, i, -1)
            after_product = (
                prev is not None and prev.kind == "tech" and joined(pieces, prev, pieces[i])
            )
            common = self._common_here(folded)
            in_phrase = not sentence_start(pieces, i) and (
                self._plain_title(neighbour(pieces, i, -1), pieces[i])
                or self._plain_title(neighbour(pieces, i, 1), pieces[i])
            )
            before_product = (
                i + 1 < len(pieces)
                and pieces[i + 1].start == pieces[i].end + 1
                and capitalised(pieces[i + 1].core)
                and next_is_version(pieces, i + 1)
            )
            placed = pieces[i].quoted or after_product or in_phrase or before_product
            # a function word that is a name ("Will", "Dan") is the word only where a
            # capital is due anyway: at a sentence's start, in capitals, in a title phrase,
            # a quoted message, or as a label ("the May update"); mid-sentence "for Will
            # asked" names someone
            label = prev is not None and prev.core.casefold() in _BEFORE_LABELS
            function = self._function_here(folded) and (
                caps_text or placed or label or sentence_start(pieces, i)
            )
            if function or (common and placed):
                # "'Internal Server Error'", "Ubuntu Server", "Mercado Pago", "Little Snitch
                # 5.7": kept unless beside a name
                return "lname"
            return "name"
        if all(self._common_here(p) or p in self._vocab.technical for p in parts):
            return "word"
        if pieces[i].quoted and all(
            p in self._vocab.common or p in self._vocab.rare for p in parts
        ):
            return "word"  # "Failed to create Vulkan instance": a word of a quoted message
        return "name"  # an unknown capitalised word: likely a name, never sent

    def _function_here(self, folded: str) -> bool:
        """True when ``folded`` is a function word of the question's languages (or English).

        "Dan" is a function word in Dutch ("then"), not in an English question, where it is
        a name.
        """
        return bool(self._vocab.function.get(folded, 0) & self._languages)

    def _common_here(self, folded: str) -> bool:
        """True when ``folded`` is a common word of the question's languages (or English).

        A capitalised word common only in another language is a proper noun here: a
        Polish surname in an English question ("Kowalczyk's laptop") is not sent.
        """
        return bool(self._vocab.common.get(folded, 0) & self._languages)

    def _plain_title(self, other: Piece | None, piece: Piece) -> bool:
        """True when ``other`` is a capitalised common word, in no name list, next to ``piece``."""
        if other is None or not capitalised(other.core) or not joined_pieces(other, piece):
            return False
        folded = other.core.casefold()
        return folded in self._vocab.common and folded not in self._vocab.names

    def _classify_lower(self, core: str) -> str:
        folded = core.casefold()
        parts = [p for p in re.split(r"[\-'\u2019]", folded) if p]
        if folded in self._vocab.very_common:
            return "word"
        known = [p in self._vocab.common or p in self._vocab.rare for p in parts]
        names = [self._is_name(p) and p not in self._vocab.very_common for p in parts]
        if len(parts) > 1 and parts[0] in PARTICLES and any(names[1:]):
            return "name"  # "al-Rashid", "d'Almeida", "el-Amin": a particle and a name
        if len(parts) > 1 and any(len(p) == 1 for p in parts) and any(names):
            return "name"  # "k-nakamura", "j-smith": an initial and a surname, a login
        if all(known) and not all(names):
            return "word"
        if all(known) and len(parts) == 1 and folded in self._vocab.common:
            return "lname"  # a common word that is also a name: kept unless beside one
        if len(parts) == 1 and is_compound(self._vocab, folded):
            return "word"  # "collectstatic", "publickey": known words run together
        return "name" if any(names) else "drop"

    def _classify_uncased(self, core: str) -> str:
        folded = core.casefold()
        if self._is_name(folded):
            return "name"
        if folded in self._vocab.common:
            return "word"
        if is_hangul(core):
            for ending in _HANGUL_ENDINGS:
                stem = folded.removesuffix(ending)
                if stem != folded and len(stem) >= 2:
                    if self._is_name(stem) or self._is_name(stem[1:]):
                        return "name"
                    if stem in self._vocab.common:
                        return "word"
            if len(core) >= 2 and self._is_name(core[0]) and self._is_name(core[1:3]):
                return "name"
        return "drop"

    def _classify_cjk(self, core: str) -> str:
        """A run of Chinese or Japanese characters: kept only if the vocabulary covers it.

        Greedy longest match; any name or uncovered character drops the whole run (the
        run is usually one phrase; a name inside it is not split out safely).
        """
        if any(cue in core for cue in CJK_NAME_CUES):
            return "name"  # "…と申します", "我叫…": a name is introduced here
        if starts_with_chinese_name(self._vocab, core):
            return "name"
        pos, longest = 0, self._vocab.longest_cjk
        while pos < len(core):
            for size in range(min(longest, len(core) - pos), 0, -1):
                chunk = core[pos : pos + size]
                if size >= 2 and chunk in self._vocab.names:
                    return "name"
                if chunk in self._vocab.common:
                    pos += size
                    break
            else:
                return "drop"
        return "word"

    def _classify_digits(self, core: str) -> str:
        code = re.fullmatch(r"([A-Z]{2,})-?\d{5,8}", core)
        if code and (len(code.group(1)) >= 4 or self._word_known(code.group(1))):
            return "tech"  # "AADSTS700016", "ORA-00942": a vendor's error code
        if (
            re.search(r"\d{6,}", core)
            and not re.fullmatch(r"(?:0x[0-9a-f]+|kb\d+|[0-9a-f]{8,}|[\d.]+|.*\.\w+)", core, re.I)
            and not self._digits_are_hex_or_setting(core)
        ):
            return "drop"  # an id-like run of digits inside a code ("T22000129")
        if re.fullmatch(r"[A-Z0-9]{8,12}", core) and len(_SHIFTS.findall(core)) >= 5:
            return "drop"  # "C01X00T47", "C4J9K7L2M": a passport or document number
        if (
            re.fullmatch(r"[A-Z0-9]{6}", core)
            and len(_SHIFTS.findall(core)) >= 3
            and sum(c.isdigit() for c in core) >= 2
        ):
            return "drop"  # "QX7T2P", "4T7QXZ": a booking reference (six characters), not "D3D11"
        login = re.fullmatch(r"([^\W\d_]{4,})[._\-]?(\d{1,4})", core)
        if login and not self._word_known(login.group(1)) and not core.isupper():
            return "drop"  # "jdoe42", "mkowalski_88": a login, unless its word is known
        if self._login_with_number(core) or self._unknown_part(core):
            return "drop"
        parts = [p for p in _SPLIT.split(core) if p and not any(c.isdigit() for c in p)]
        for part in parts:
            for word in re.findall(r"[^\W\d_]{4,}", part):
                unknown_name = self._is_name(word) and word.casefold() not in self._vocab.common
                if unknown_name and (not word[0].isupper() or word[1:].islower()):
                    return "drop"  # "jlfb_1979", "DreLyle77"
        return "tech"

    def _digits_are_hex_or_setting(self, core: str) -> bool:
        """True when every long run of digits is part of a hex digest or a setting's value.

        A digest, UUID or cloud id is lower-case hex with letters and digits mixed
        ("sha256:4f0c…", "ami-0b7e…"); a setting is a key of known words and a number
        ("max.poll.interval.ms=300000"), unless the key names a person's number ("user_id=").
        """
        setting = re.fullmatch(r"([a-z][\w.\-]*)=(\d+)", core)
        if setting:
            keys = [k for k in re.split(r"[._\-]", setting.group(1)) if k]
            return all(self._word_known(k) or k in self._vocab.rare for k in keys) and not any(
                k in _PERSONAL_KEYS for k in keys
            )
        for part in re.split(r"[^0-9A-Za-z]+", core):
            if re.search(r"\d{6,}", part) and not (
                re.fullmatch(r"[0-9a-f]{8,}", part)
                and len(re.findall(r"[a-f]", part)) >= 2
                and len(re.findall(r"\d", part)) >= 2
            ):
                return False
        return True

    def _login_with_number(self, core: str) -> bool:
        """True for a lower-case login of words and a name, then two digits or a year.

        "anna.berg.1987", "li_na_88", "rina_w99": one to three word parts (the first of two
        letters or more), at least one a name of the lists and none a technical term, then a
        two-digit number or a year.
        """
        login = re.fullmatch(
            r"([^\W\d_]{2,}(?:[._][^\W\d_]+){0,2})[._\-]?(\d{2}|(?:19|20)\d{2})", core
        )
        if not login or not core.islower():
            return False
        words = re.split(r"[._]", login.group(1))
        return any(self._is_name(w) for w in words) and not any(
            w in self._vocab.technical or w in _EXTENSIONS for w in words
        )

    def _classify_identifier(self, core: str) -> str:
        parts = [p for p in _SPLIT.split(core) if p]
        if not parts:
            return "punct"
        last = parts[-1].casefold()
        words = [w for p in parts for w in re.findall(r"[^\W\d_]{3,}", p)]
        if core.isupper() and "_" in core:
            return "tech"  # SEC_ERROR_UNKNOWN_ISSUER
        dotted = [p.casefold() for p in core.split(".")]
        if (
            len(dotted) >= 2
            and all(p.isalpha() for p in dotted)
            and any(len(p) == 1 for p in dotted)
            and not any(p in self._vocab.technical or p in _EXTENSIONS for p in dotted)
        ):
            return "drop"  # "a.b.kowalczyk", "m.rossi": a login made of initials and a name
        unknown = [
            w
            for w in words
            if not (
                w.casefold() in self._vocab.common
                or w.casefold() in self._vocab.rare
                or w.casefold() in self._vocab.technical
                or self._known(w.casefold())
                or is_camel(w)
                or w.isupper()
                or w.casefold() in _EXTENSIONS
                or is_compound(self._vocab, w)
            )
        ]
        names = [w for w in words if self._is_name(w)]
        if unknown and not (last in _EXTENSIONS and len(unknown) == 1 and len(parts) == 2):
            return "drop"
        if any(self._capital_name(w) for w in words):
            return "drop"  # "payroll_draft_BAUTISTA.xlsx": a surname in capitals
        if words and len(names) == len(words):
            return "name"  # "a.b.kowalczyk", "CRUZ/MARIA": names, and their neighbours go too
        return "tech"

    def _name_in_identifier(self, core: str) -> bool:
        """True for a document's file name holding a name and a capitalised word after it.

        "CV-Lucinda-Marsh-Obi-final.docx", "Resume_Jolanta_Wierzba_2024.pdf": two adjacent
        capitalised parts, the first a name of the lists, the second a name or a word no
        list knows. Only documents people write (:data:`_DOCUMENTS`): not a font
        ("Josefin-Sans-Bold.ttf"), "Jenkins-Pipeline-Plugin.hpi" or "Set-MgUserLicense".
        """
        if core.rsplit(".", 1)[-1].casefold() not in _DOCUMENTS or "." not in core:
            return False
        titled = [p for p in re.split(r"[\-_.]", core) if p.isalpha() and p.istitle()]
        return any(
            self._is_name(a) and (self._is_name(b) or not self._word_known(b))
            for a, b in itertools.pairwise(titled)
        )

    def _capital_name(self, word: str) -> bool:
        """True for a name in capitals inside an identifier that is no English word or term."""
        folded = word.casefold()
        return (
            word.isupper()
            and len(word) >= 4
            and self._is_name(word)
            and folded not in self._vocab.technical
            and not self._vocab.common.get(folded, 0) & 1
        )

    def _unknown_part(self, core: str) -> bool:
        """True for a handle: a word known nowhere, an underscore, letters and digits mixed.

        "wxid_8k2m9p", "zq_4f7x": lower case, two parts, the first a word no list knows, the
        second with a digit after a letter. Identifiers of known words ("ext4_fs",
        "python3_12") are kept.
        """
        handle = re.fullmatch(r"([a-z]{3,})_([a-z0-9]{4,})", core)
        if not handle or not re.search(r"[a-z]\d", handle.group(2)):
            return False
        word = handle.group(1)
        return not (
            self._word_known(word)
            or word in self._vocab.rare
            or word in _EXTENSIONS
            or is_compound(self._vocab, word)
        )

    @staticmethod
    def _between_names(pieces: list[Piece], i: int) -> bool:
        """True when the pieces right before and after ``i`` are names (or name particles)."""
        sides = []
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(pieces) and pieces[j].core.casefold() in PARTICLES:
                j += step
            sides.append(
                0 <= j < len(pieces)
                and pieces[j].kind == "name"
                and joined(pieces, pieces[min(i, j)], pieces[max(i, j)])
            )
        return all(sides)

    def _named_term(self, pieces: list[Piece], i: int) -> bool:
        """True for a capitalised term of the name lists right before or after a name."""
        core = pieces[i].core
        if not (core.isalpha() and capitalised(core) and core.casefold() in self._vocab.names):
            return False
        near = [neighbour(pieces, i, -1), neighbour(pieces, i, 1)]
        return any(
            n is not None and n.kind == "name" and joined(pieces, pieces[i], n) for n in near
        )

    def spread_names(self, pieces: list[Piece], caps_text: bool) -> None:
        """A capitalised word (or a lower-case name) beside a dropped name goes with it."""
        changed = True
        while changed:
            changed = False
            for i, piece in enumerate(pieces):
                if piece.kind == "tech" and not piece.forced and self._named_term(pieces, i):
                    piece.kind, changed = "name", True  # "Catalina Ureña": a term that is a name
                    continue
                if piece.kind not in ("word", "lname", "cname", "acro", "brand") or piece.forced:
                    continue
                if piece.core.casefold() in PARTICLES and (
                    self._between_names(pieces, i) or particles_before_name(pieces, i)
                ):
                    piece.kind, changed = "name", True  # "Maria das Graças", "van der Merwe"
                    continue
                near = [neighbour(pieces, i, -1), neighbour(pieces, i, 1)]
                namely = (
                    ("name", "cname", "lname") if piece.kind in ("cname", "lname") else ("name",)
                )
                uncased = not any(is_cased_script(c) for c in piece.core if c.isalpha())
                beside_name = any(
                    n is not None
                    and n.kind in namely
                    and joined(pieces, piece, n)
                    and (not uncased or not any(is_cased_script(c) for c in n.core if c.isalpha()))
                    for n in near
                )
                if not beside_name:
                    continue
                core = piece.core
                spreads = (
                    piece.kind != "word" or any(c.isupper() for c in core) or caps_text or uncased
                )
                if spreads and core.casefold() not in self._vocab.technical:
                    piece.kind = "name"
                    changed = True
        for piece in pieces:
            if piece.kind in ("lname", "cname", "acro", "brand"):
                piece.kind = "word" if piece.kind == "lname" else "tech"
