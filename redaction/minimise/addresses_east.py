"""Chinese, Japanese and Korean addresses, and Japanese addresses written in Latin letters.

* A run of Chinese or Japanese characters holding an administrative unit (都 道 府 県 省 市
  区 町 村 郡 县) directly followed by a number ("東京都渋谷区渋谷2-21-1", "梅田3丁目1番3号"),
  or a road (路 街 巷 弄) followed by a number and 号 ("建国路88号"): the run, the number and
  the block words after it (丁目 番地 番 号 条 ...) are dropped;
* a Japanese postal code after 〒 ("〒150-0002");
* a Korean road name (…로, …길) before a house number, after a city, district or
  neighbourhood (…시, …구, …군, …동): "서울특별시 강남구 테헤란로 152";
* a Latin-script Japanese ward, city or town ("Shibuya-ku", "Sapporo-shi"): a street-name
  ending for :mod:`~redaction.minimise.addresses` (:func:`is_romaji_ward`).
"""

from __future__ import annotations

import re

from redaction.minimise.pieces import CJK, Piece

_ADMIN = re.compile(r"[都道府県省市区町村郡县]")
_ROAD = re.compile(r"[路街巷弄]$")
_BLOCK_NUMBER = re.compile(r"\d{1,5}(?:[\-\u2010\uff0d]\d{1,5}){0,3}")
_BLOCK_WORDS = re.compile(r"(?:丁目|番地|番|号室|号|階|棟|之|条|[東西南北])+")
_POSTCODE = re.compile(r"〒\s?\d{3}-?\d{4}|〒")
_HANGUL_ROAD = re.compile(r"[\uac00-\ud7a3]{1,10}(?:로|길|대로)(?:\d{1,3}(?:번)?길)?")
_HANGUL_AREA = re.compile(r"[\uac00-\ud7a3]{1,10}(?:시|구|군|동|도|읍|면)")
_ROMAJI_WARD = re.compile(r"[A-Z][a-z]+-(?:ku|shi|cho|chō|machi|mura|gun|ken)")


def is_romaji_ward(core: str) -> bool:
    """True for a Japanese ward, city or town in Latin letters ("Shibuya-ku", "Naka-shi")."""
    return _ROMAJI_WARD.fullmatch(core) is not None


def apply_east_asian_addresses(pieces: list[Piece]) -> None:
    """Drop the Chinese, Japanese and Korean addresses among ``pieces`` (see the module)."""
    for i, piece in enumerate(pieces):
        core = piece.core
        if _POSTCODE.fullmatch(core):
            _drop(piece)
            if core == "〒" and i + 1 < len(pieces):
                _drop(pieces[i + 1])
            continue
        if CJK.fullmatch(core) and _cjk_address(pieces, i):
            _drop_block(pieces, i)
        elif _HANGUL_ROAD.fullmatch(core) and _korean_address(pieces, i):
            j = i
            while j > 0 and j > i - 3 and _HANGUL_AREA.fullmatch(pieces[j - 1].core):
                j -= 1
            for p in pieces[j : i + 2]:
                _drop(p)


def _cjk_address(pieces: list[Piece], i: int) -> bool:
    """True when the CJK run at ``i`` names an area or a road and a number follows it."""
    core = pieces[i].core
    nxt = pieces[i + 1] if i + 1 < len(pieces) else None
    if nxt is None or nxt.start != pieces[i].end or not _BLOCK_NUMBER.fullmatch(nxt.core):
        return False
    if _ADMIN.search(core):
        return True
    after = pieces[i + 2] if i + 2 < len(pieces) else None
    return bool(_ROAD.search(core)) and after is not None and after.core.startswith("号")


def _korean_address(pieces: list[Piece], i: int) -> bool:
    """True for a Korean road name after an area and before a house number."""
    nxt = pieces[i + 1] if i + 1 < len(pieces) else None
    if nxt is None or not _BLOCK_NUMBER.fullmatch(nxt.core):
        return False
    return i > 0 and _HANGUL_AREA.fullmatch(pieces[i - 1].core) is not None


def _drop_block(pieces: list[Piece], i: int) -> None:
    """Drop the run at ``i`` and the numbers and block words joined to it."""
    _drop(pieces[i])
    j = i + 1
    while j < len(pieces) and pieces[j].start == pieces[j - 1].end:
        core = pieces[j].core
        if not (_BLOCK_NUMBER.fullmatch(core) or _BLOCK_WORDS.fullmatch(core)):
            break
        _drop(pieces[j])
        j += 1


def _drop(piece: Piece) -> None:
    piece.kind, piece.forced = "drop", True
