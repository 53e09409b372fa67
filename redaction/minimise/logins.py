r"""Logins, used by :mod:`~redaction.minimise.classify`: made of a name, or in a home path.

:func:`name_login`: "ana.petrov", "m_garcia42", "uid=ana.petrov,ou=people",
"/home/ana.petrov/.ssh": a given name or an initial and a surname of the name lists, in
lower case, joined by a dot or an underscore, wherever a path, key or address puts it.
:func:`home_login`: the directory after ``/home/`` or ``C:\Users\`` in a path, whatever
its shape. :func:`key_login`: the value of a key that names a person's login or id
("user_id=u_7f3k29", "login=hk_rw").
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from redaction.minimise.pieces import PARTICLES, word_set
from redaction.minimise.vocabulary import Vocabulary, is_name


def name_login(vocab: Vocabulary, core: str, extensions: frozenset[str]) -> bool:
    """True when ``core`` holds a lower-case login made of a name.

    A given name or initial and a surname joined by ``.`` or ``_`` (the surname may be
    hyphenated: "al-farsi"), perhaps before a number of up to six digits, anywhere
    between path, key and address separators: "ana.petrov", "m_garcia42",
    "user=ana.petrov", "uid=ana.petrov,ou=people", "/home/ana.petrov/.ssh",
    "ana.petrov@corp". Two of the parts must be names of the lists (or one a name and
    one an initial or particle), none a technical term or a file extension; "karma-jasmine"
    (a hyphen only) is no login.
    """
    return any(
        _login_segment(vocab, segment, extensions)
        for segment in re.split(r"[/\\,@:=]+", core)
        if segment
    )


def _login_segment(vocab: Vocabulary, segment: str, extensions: frozenset[str]) -> bool:
    login = re.fullmatch(r"([^\W\d_]+(?:[._][^\W\d_]+(?:-[^\W\d_]+)?){1,3})[._\-]?\d{0,6}", segment)
    if login is None or segment != segment.lower():
        return False
    parts = re.split(r"[._]", login.group(1))
    words = [w for part in parts for w in part.split("-")]
    if any(w in vocab.technical or w in extensions for w in words):
        return False
    names = [
        p for p in parts
        if len(p) >= 2 and p not in PARTICLES
        and (
            any(is_name(vocab, w) for w in p.split("-") if w not in PARTICLES)
            or p.split("-")[0] in PARTICLES  # "al-farsi", "van-dijk"
        )
    ]  # fmt: skip
    short = [p for p in parts if len(p) == 1 or p in PARTICLES]
    return len(names) >= 2 or (len(names) == 1 and bool(short) and len(parts) >= 2)


_HOME = re.compile(
    r"(?:^|[=:'\"])(?:[A-Za-z]:|\\\\[\w.$-]+|/mnt/[a-z]|/var|/nfs|/net/[\w.-]+)?[/\\]+"
    r"(?:home\$?|Users|users(?=\\)|export/home|usr/home)[/\\]+([^/\\]+)",
)
"""A path from the file system's root through a home directory, also on a share, a WSL
mount or an NFS home ("\\\\fs01\\home$\\hkarimi", "/mnt/c/Users/x", "c:\\users\\x"); not
a URL path such as "/api/users/me" (``Users`` is capitalised there only as Windows and macOS
write it, or lower case before a backslash)."""
_SYSTEM_ACCOUNTS = word_set(
    "root admin administrator guest nobody daemon www-data apache nginx mysql postgres redis "
    "git jenkins runner ubuntu debian pi ec2-user azureuser opc centos fedora vagrant docker "
    "node linuxbrew site deck vscode codespace app appuser user true false yes no none null"
)
"""Accounts every machine or image of a kind has, and values that are no account."""
_SHARED_HOMES = (
    _SYSTEM_ACCOUNTS
    | word_set(
        "public default shared username user_name %username% $user ${user} <user> <username> "
        "{user} you me your_name yourname name"
    )
    | {"all users", "default user"}
)
"""Home directories that name no person: system accounts, and documentation's placeholders."""


def home_login(core: str) -> bool:
    r"""True when ``core`` is a path through a person's home directory.

    The directory after ``/home/``, ``/Users/`` or ``C:\Users\`` is a login, whatever
    its shape ("C:\Users\r.delacroix\OneDrive", "/home/kaveh.t/.ssh"); not the shared
    accounts and placeholders every machine or manual has ("/home/ubuntu",
    "C:\Users\Public", "/Users/<username>").
    """
    m = _HOME.search(core)
    return m is not None and m.group(1).casefold().strip("'\"") not in _SHARED_HOMES


_PERSON_KEY = re.compile(
    r"(?:^|[\s,;&?{(\[\-])[\"']?(?:user|user_?id|user_?name|username|login|uid|email|"
    r"customer_?id|member_?id|employee_?id|account_?id|owner|assignee|author|requester|upn|"
    r"samaccountname)[\"']?\s*[=:]\s*[\"']?([^\s,;&\"')}\]]+)",
    re.I,
)
"""A key that names a person's login, address or id, and its value (in a URL, a log line, a
config or a flag: "?email=…", "user_id=…", "--user=…", "owner: …")."""
_PLACEHOLDER = re.compile(
    r"%\w+%|\$\{?\w+\}?|<[^>]*>|\{[^}]*\}|\*+|\?+|x+|me|anonymous|\d{1,2}", re.I
)
"""A placeholder where a value goes ("%USERNAME%", "${USER}", "<name>", "{user}")."""


def key_login(core: str) -> bool:
    """True when ``core`` holds the value of a key naming a person's login or id.

    "user_id=u_7f3k29xq", "login=hk_rw", "uid:48213", "customerId=C-77812",
    "?email=kofi%40example.com" (read URL-decoded): whatever the value's shape; not a
    placeholder ("user=<name>", "user_id=${USER_ID}"), a system account ("User=www-data",
    "user=mysql") or a switch ("login=true").
    """
    for m in _PERSON_KEY.finditer(unquote(core)):
        value = m.group(1).casefold()
        if not (_PLACEHOLDER.fullmatch(value) or value in _SYSTEM_ACCOUNTS):
            return True
    return False
