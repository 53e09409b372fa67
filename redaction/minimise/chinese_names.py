"""Chinese names inside runs of unspaced script (used by :mod:`~redaction.minimise.classify`).

A run of Chinese characters is one piece; a name inside it drops the whole run. Two forms:
a surname and a given name at the run's start, before a particle or alone
(:func:`starts_with_chinese_name`), and a name after a noun for a person, in the run or
ending the run before it (:func:`name_after_person_noun`). The surnames are those of the
name lists; a given name that makes a common word with its surname is no name.
"""

from __future__ import annotations

from redaction.minimise.pieces import CJK, Piece
from redaction.minimise.vocabulary import Vocabulary

PERSON_NOUNS = (
    "用户", "用戶", "客户", "客戶", "联系人", "聯絡人", "请联系", "請聯繫", "联系", "员工", "員工",
    "同事", "收件人", "负责人", "負責人", "申请人", "持卡人", "姓名", "名字", "先生", "女士",
    "经理", "老师", "同学", "担当", "担当者", "氏名", "名前", "领导", "老板", "主管",
    "工程师", "会员", "病人", "学生", "业务员", "客服", "医生", "护士",
)  # fmt: skip
"""Nouns for a person (Chinese and Japanese) after which a name follows: "用户李静"."""

AFTER_NAME = frozenset("的说是在先女同老经和给让")
"""Characters that follow a Chinese name: possessive, "says", "is", titles, "and", "for"."""


def name_after_person_noun(vocab: Vocabulary, pieces: list[Piece], i: int) -> bool:
    """True when a surname and a given name follow a noun for a person.

    "测试用户李静的手机号", "联系人: 李娜", "请联系王芳", "老板刘强的": a noun such as
    用户 (user), 联系人 (contact) or 老板 (boss), in this run or ending the run before
    it across a colon, then a surname of the name lists and one or two characters that
    are no common word with it ("用户管理界面", "请联系管理员" stay), ending the run or
    before a particle (的, 说...).
    """
    core = pieces[i].core
    for noun in PERSON_NOUNS:
        at = core.find(noun)
        while at >= 0:
            if _name_then_particle(vocab, core[at + len(noun) :]):
                return True
            at = core.find(noun, at + 1)
    j = i - 1
    while j >= 0 and not pieces[j].core and pieces[j].end >= pieces[i].start - 1:
        j -= 1  # a colon between them ("联系人: 李娜")
    prev = pieces[j].core if j >= 0 else ""
    return (
        bool(prev)
        and CJK.fullmatch(prev) is not None
        and prev.endswith(PERSON_NOUNS)
        and 2 <= len(core) <= 3
        and core[0] in vocab.names
        and core not in vocab.very_common
    )


def _name_then_particle(vocab: Vocabulary, rest: str) -> bool:
    """True when ``rest`` starts with a surname and a given name, then ends or a particle."""
    if not rest or rest[0] not in vocab.names:
        return False
    very_common = vocab.very_common
    for given in (2, 1):
        name, tail = rest[: 1 + given], rest[1 + given :]
        if len(name) < 1 + given or name in very_common or name[:2] in very_common:
            continue  # "用户权限不足", "请联系管理员": 权限 and 管理 are words
        if tail == "" or tail[0] in AFTER_NAME:
            return True
    return False


def starts_with_chinese_name(vocab: Vocabulary, core: str) -> bool:
    """True for a surname and a one- or two-character given name at the start of a run.

    "王小明的 iPhone", "李华说", a lone "张伟": a single-character surname of the name
    lists, then one or two characters that do not make a common word with it, then the
    end of the run or a particle ("的", "说", "是", "先生"...). "高性能的" is a word, and
    so is "时出现" (a two-character given name must not be a word itself).
    """
    if len(core) < 2 or len(core[0]) != 1 or core[0] not in vocab.names:
        return False
    for given in (2, 1):
        name, rest = core[: 1 + given], core[1 + given :]
        if len(name) < 1 + given or name in vocab.common:
            continue
        # a lone three-character run whose last two make a rarer word is still a name
        # ("王小明"), unless they are a very common word ("时出现": "出现", appear)
        alone = rest == "" and len(core) == 3 and core not in vocab.common
        rare_given = alone and name[1:] not in vocab.very_common
        # a two-character given name that is a common word is one only before a
        # particle ("王小明的资料"), and only when it is no very common word ("高性能的")
        particle = rest[:1] in AFTER_NAME and name[1:] not in vocab.very_common
        if given == 2 and name[1:] in vocab.common and not (rare_given or particle):
            continue
        if rest[:1] in AFTER_NAME or (rest == "" and len(core) <= 3):
            return True
    return False
