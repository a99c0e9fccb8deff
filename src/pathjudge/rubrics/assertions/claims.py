"""Claims about tool activity in an agent's text: amounts, ids and codes, dates, counts and actions.

:func:`extract_claims` reads one message and returns the :class:`Claim` s the said-vs-did check
(:mod:`.said_vs_did`) holds against the run's tool calls and results:

- ``amount``: a number with a currency (``$1,234.50``, ``209 dollars``, ``EUR 12``), as its
  absolute value in cents;
- ``id``: a code-like token: letters and digits mixed with a capital (``ZFA04Y``, ``HAT110``), a
  token with a digit joined by ``_`` or ``-`` (``gift_card_8887175``, ``5bff-dd80``), a run of five or
  more digits (``8887175``), or an all-capitals word of five or more letters that is quoted or follows
  an id word (``reservation "HATHAT"``, ``code UHDAHF``);
- ``date``: ``2024-05-24``, ``May 24, 2024``, ``24 May``, ``05/24/2024`` (a date with no year
  matches any year);
- ``count``: a number (digits or ``two`` .. ``twenty``) before a noun, within two words
  (``two reservations``, ``3 checked bags``); the noun is kept so the check can tell whether the
  tools' data speak of it;
- ``action``: a completion claim, a past participle after ``has``/``have``/``was``/``were``/
  ``is``/``are``/``been`` or after ``I``/``we`` (``has been cancelled``, ``I've refunded``), not in
  a question, not after ``not``, not in a conditional (``if``, ``once``, ``would``...), and not a
  ``was``/``were`` statement of history (``the email was sent a week ago``).

Every pattern is linear: quantifiers are bounded and each starts only at a token boundary, so a
message of megabytes costs time in proportion to its length. Numbers, dates and ids never overlap:
a span taken by a date or an amount is not read again as an id or a count.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Literal

from pathjudge.rubrics.assertions._regex import builtin_pattern

__all__ = [
    "ACTION_VERBS",
    "CLAIM_KINDS",
    "Claim",
    "ClaimKind",
    "extract_claims",
    "parse_date",
    "parse_number",
]

ClaimKind = Literal["amount", "id", "date", "count", "action"]
CLAIM_KINDS: tuple[ClaimKind, ...] = ("amount", "id", "date", "count", "action")

ACTION_VERBS: dict[str, str] = {
    "cancelled": "cancel",
    "canceled": "cancel",
    "refunded": "refund",
    "reimbursed": "refund",
    "booked": "book",
    "reserved": "book",
    "updated": "update",
    "changed": "update",
    "modified": "update",
    "downgraded": "update",
    "upgraded": "update",
    "rescheduled": "update",
    "edited": "update",
    "amended": "update",
    "sent": "send",
    "emailed": "send",
    "messaged": "send",
    "notified": "send",
    "forwarded": "send",
    "transferred": "transfer",
    "deleted": "delete",
    "removed": "delete",
    "created": "create",
    "added": "create",
    "scheduled": "create",
    "registered": "create",
    "charged": "pay",
    "paid": "pay",
    "billed": "pay",
}
"""Past participles that claim an action, and the action each claims (see
:data:`~pathjudge.rubrics.assertions.said_vs_did.BACKED_BY` for the tool actions that back each)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim in a message: its kind, its text as written, its normalised value and where it is.

    ``value``: cents (``amount``), an int (``count``), the casefolded token (``id``), a
    ``(year | 0, month, day)`` tuple (``date``), the claimed action (``action``: ``cancel``,
    ``refund``...); ``noun``: the counted noun, or the participle of an action; ``start``: the offset
    in the message; ``sentence``: the sentence it is in (shortened around the claim when long).
    """

    kind: ClaimKind
    text: str
    value: object
    start: int
    noun: str = ""
    source: _Message | None = field(default=None, compare=False, repr=False)

    @property
    def sentence(self) -> str:
        """The sentence of the claim (computed when asked: most claims are never reported)."""
        return "" if self.source is None else self.source.sentence(self.start)


_NUM = r"(?:\d{1,3}(?:,\d{3}){1,5}(?:\.\d{1,4})?|\d{1,15}(?:\.\d{1,4})?)"
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + ")"
_WORD_NUMBERS = {
    word: n
    for n, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
    if n
}

# the four large patterns are compiled when the first message is read (see builtin_pattern)
_DATE = (
    r"(?i)(?<![\w/-])(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2})(?!\d)"
    rf"|\b(?P<mm>{_MONTH})\.?\s{{1,3}}(?P<md>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s{{1,3}}(?P<my>\d{{4}})\b)?"
    rf"|(?<![\w/.,])(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?\s{{1,3}}(?:of\s{{1,3}})?(?P<dm>{_MONTH})\b\.?"
    r"(?:,?\s{1,3}(?P<dy>\d{4})\b)?"
    r"|(?<![\w/.])(?P<sa>\d{1,2})/(?P<sb>\d{1,2})/(?P<sy>\d{4})(?![\w/])"
)
_AMOUNT = (
    rf"(?i)(?:[$€£¥]|\b(?:USD|EUR|GBP|US\$)\s{{0,2}})\s{{0,2}}-?\s{{0,2}}(?P<a>{_NUM})(?!\d|,\d)"
    rf"|(?<![\w.,])(?P<b>{_NUM})\s{{0,2}}(?:dollars?|usd|euros?|eur|pounds?|gbp)\b"
)
_TOKEN = re.compile(r"(?<![\w.-])[A-Za-z0-9][\w-]{1,63}(?![\w-])")
_COUNT = (
    r"(?i)(?<![\w.,$€£¥-])(?P<n>\d{1,6}|(?:" + "|".join(_WORD_NUMBERS) + r"))"
    r"\s{1,3}(?P<words>[a-z][a-z-]{0,30}(?:\s{1,3}[a-z][a-z-]{0,30}){0,2})\b"
)
_ACTION = (
    r"(?i)\b(?P<aux>has|have|had|was|were|is|are|been|i|we|i['’]ve|we['’]ve)\s{1,3}"
    r"(?:(?:now|successfully|already|also|just|fully|all|both|been|then|since)\s{1,3})"
    r"{0,3}(?P<verb>" + "|".join(sorted(ACTION_VERBS, key=len, reverse=True)) + r")\b"
)
_HEDGE = re.compile(
    r"\b(?:if|whether|once|unless|until|when|after|before|would|could|should|can|may|might|will|"
    r"not|never)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:ago|yesterday|last|earlier|previously|originally|before)\b", re.IGNORECASE
)
_ID_CUE = re.compile(
    r"\b(?:id|ids|code|codes|number|no|reservation|reservations|booking|bookings|confirmation|order|"
    r"orders|ticket|reference|ref|pnr|locator)\b\W{0,4}$",
    re.IGNORECASE,
)
# a run of marks is tried from its first mark only: trying every mark of a long run is quadratic
_BOUNDARY = re.compile(r"(?<![.!?])[.!?]+(?=\s)|\n")
_SPLIT = re.compile(r"[_-]")
_DIGIT = re.compile(r"\d").search
_LETTER = re.compile(r"[^\W\d_]").search
_ID_CANDIDATE = re.compile(r"(?<![\w.-])(?=[\w-]{0,63}\d|[A-Z]{5})[A-Za-z0-9][\w-]{1,63}(?![\w-])")
_NOT_IDS = re.compile(r"\d{1,2}(?:am|pm|st|nd|rd|th|h|s)", re.IGNORECASE)
_SENTENCE_CHARS = 240
_HEDGE_WINDOW = 60


def _fold(word: str) -> str:
    """``word`` as the tables spell it: the patterns ignore case the Unicode way, so ``Augu\u017ft``
    (a long s) or ``pa\u0130d`` (a dotted capital I) match; casefolded, compatibility-decomposed and
    without combining marks they read ``august`` and ``paid``."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def parse_number(text: str) -> float | None:
    """``"1,234.50"`` -> 1234.5; None when it is not a number."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def parse_date(match: re.Match[str]) -> tuple[tuple[int, int, int], ...]:
    """The ``(year | 0, month, day)`` readings of a :data:`_DATE` match (two for an ambiguous
    ``a/b/yyyy``; none when no reading is a valid day)."""
    groups = match.groupdict()
    if groups["iy"]:
        readings = [(int(groups["iy"]), int(groups["im"]), int(groups["id"]))]
    elif groups["mm"]:
        readings = [(int(groups["my"] or 0), _MONTHS[_fold(groups["mm"])], int(groups["md"]))]
    elif groups["dm"]:
        readings = [(int(groups["dy"] or 0), _MONTHS[_fold(groups["dm"])], int(groups["dd"]))]
    else:
        a, b, year = int(groups["sa"]), int(groups["sb"]), int(groups["sy"])
        readings = [(year, a, b), (year, b, a)]
    return tuple(dict.fromkeys(r for r in readings if 1 <= r[1] <= 12 and 1 <= r[2] <= 31))


def is_id_token(token: str) -> bool:
    """Whether a token reads as an id or code by itself (see the module docstring)."""
    if _DIGIT(token) is None:
        return False
    if token.isdigit():
        return len(token) >= 5
    if _LETTER(token) is None:  # digits joined by - or _: a phone number, a range
        return len(token) >= 7
    if _NOT_IDS.fullmatch(token):
        return False
    if len(token) >= 4 and token.isupper():
        return True  # capitals and digits: ZFA04Y, HAT110 (a mixed-case word such as SunnyB3ach is not)
    return ("_" in token or "-" in token) and len(token) >= 6


class _Message:
    """One message, its sentence boundaries and the spans already taken by a claim."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ends = [m.end() for m in _BOUNDARY.finditer(text)]
        self.taken = bytearray(len(text))

    def sentence_bounds(self, start: int) -> tuple[int, int]:
        index = bisect_right(self.ends, start)
        begin = self.ends[index - 1] if index else 0
        end = self.ends[index] if index < len(self.ends) else len(self.text)
        return begin, end

    def sentence(self, start: int) -> str:
        begin, end = self.sentence_bounds(start)
        if end - begin > _SENTENCE_CHARS:  # a long sentence: the part around the claim
            begin = max(begin, start - _SENTENCE_CHARS // 2)
            end = min(end, begin + _SENTENCE_CHARS)
        return " ".join(self.text[begin:end].split())

    def free(self, start: int, end: int) -> bool:
        return not self.taken[start] and not self.taken[end - 1]

    def take(self, start: int, end: int) -> None:
        self.taken[start:end] = b"\x01" * (end - start)

    def claim(self, kind: ClaimKind, match: re.Match[str], value: object, noun: str = "") -> Claim:
        return Claim(kind, match.group(0), value, match.start(), noun, self)


def extract_claims(text: str) -> list[Claim]:
    """The claims of one message, in kind order (dates, amounts, ids, counts, actions), each kind in
    text order. An empty text has none."""
    if not text:
        return []
    message = _Message(text)
    claims: list[Claim] = []
    for match in builtin_pattern(_DATE).finditer(text):
        readings = parse_date(match)
        if readings:
            message.take(*match.span())
            claims.append(message.claim("date", match, readings))
    for match in builtin_pattern(_AMOUNT).finditer(text):
        if not message.free(*match.span()):
            continue
        amount = parse_number(match.group("a") or match.group("b"))
        if amount is not None:
            message.take(*match.span())
            claims.append(message.claim("amount", match, round(abs(amount) * 100)))
    claims.extend(_ids(message))
    claims.extend(_counts(message))
    claims.extend(_actions(message))
    return claims


def _ids(message: _Message) -> list[Claim]:
    text = message.text
    found = []
    for match in _ID_CANDIDATE.finditer(text):
        start, end = match.span()
        token = match.group(0)
        if not message.free(start, end):
            continue
        if is_id_token(token) or (
            token.isalpha()
            and token.isupper()
            and len(token) >= 5
            and (_quoted(text, start, end) or _ID_CUE.search(text, max(0, start - 30), start))
        ):
            message.take(start, end)
            found.append(message.claim("id", match, token.casefold()))
    return found


def _quoted(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    return before in "\"'`“‘*" and before != "" and after in "\"'`”’*" and after != ""


def _counts(message: _Message) -> list[Claim]:
    found = []
    for match in builtin_pattern(_COUNT).finditer(message.text):
        if not message.free(*match.span("n")):
            continue
        number = _fold(match.group("n"))
        n = int(number) if number.isdigit() else _WORD_NUMBERS[number]
        noun = " ".join(match.group("words").lower().split())
        found.append(message.claim("count", match, n, noun))
    return found


def _actions(message: _Message) -> list[Claim]:
    text = message.text
    found = []
    for match in builtin_pattern(_ACTION).finditer(text):
        begin, end = message.sentence_bounds(match.start())
        if text[max(begin, end - 8) : end].rstrip().endswith("?"):
            continue  # a question claims nothing
        if _HEDGE.search(text, max(begin, match.start() - _HEDGE_WINDOW), match.start("verb")):
            continue
        if match.group("aux").lower() in ("was", "were") and _PAST.search(
            text, match.end(), min(end, match.end() + _HEDGE_WINDOW)
        ):
            continue  # "the email was sent a week ago": history in the tool data, not an action
        verb = _fold(match.group("verb"))
        found.append(message.claim("action", match, ACTION_VERBS[verb], verb))
    return found


def split_parts(token: str) -> list[str]:
    """The parts of an id token joined by ``_`` or ``-`` (``gift_card_8887175`` -> ``gift``,
    ``card``, ``8887175``); none for a token without a joint."""
    return _SPLIT.split(token) if "_" in token or "-" in token else []
