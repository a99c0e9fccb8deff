"""The built-in refusal recogniser: the common English ways an assistant declines, or says it has
nothing to answer from.

A refusal is the assistant speaking about *itself*: it will not or cannot do what was asked ("Sorry,
I can't help with forging documents.", "I'm unable to provide that.", "I must decline.", "That's
outside what I can help with.", "I can only help with billing questions."), or it has nothing to
answer from ("I don't have that in the docs.", "I couldn't find any information about that.", "The
documentation doesn't mention it."). An ordinary answer that merely holds "sorry" or "can't" is not
one: "Sorry for the wait, the limit is 600", "You can't change a region after creation", "I can't
stress this enough", "I can't help but notice", "We don't have servers in Asia".

Every form is a first-person statement (``I``/``we``) of not doing or not knowing, or names the
assistant's own sources ("the docs", "the search results"), so a statement about the product ("the
Free plan can't use webhooks") never matches. Matching is case-insensitive and reads straight and
curly apostrophes alike.

Speed: most answers are not refusals. Every form holds a negation ("not", "no", "can't", "unable",
a word ending in "n't"), "only", "decline", "refuse", "outside" or "beyond" as a word of its own (a
form that opens on one of them starts a word: "casino information is available" is no refusal), so an
answer with none of these words is told apart by one split into words, whatever its script (any
character other than an ASCII letter or digit splits it). Otherwise the forms are tried only where
they can start: a first-person form right after a word "I" or "we" followed by a space or an
apostrophe (found with ``str.find``), every other form only when its key word occurs (``in``), from
a literal prefix. The patterns nest no repetition, so no answer is slow.
"""

from __future__ import annotations

from pathjudge.rubrics.assertions._regex import builtin_pattern

__all__ = ["recognised_refusal", "refusal_words"]

# the text is lower-cased and its curly apostrophes made straight before any form is tried
_NT = r"(?:n'?t|\s+not)"  # "n't", "nt" (typed without the apostrophe) or " not"
_CANT = r"(?:ca(?:n'?t|nnot|n\s+not))"  # can't, cant, cannot, can not
_AM = r"(?:\s*'\s*(?:m|re)|\s+(?:am|are))"  # I'm, I am, we're, we are
_ADVERB = (
    r"(?:\s+(?:really|simply|just|unfortunately|honestly|currently|therefore|thus|still|personally"
    r"|sadly|regrettably|respectfully))?"
)

# what the speaker says it cannot or will not do: a verb of helping, handing over or acting
_VERB = (
    r"(?:(?:help(?!\s+but\b|\s+\w+ing\b|\s+(?:it|myself)\s*[.!,;])|assist|aid|answer|respond|reply|"
    r"comply|fulfil|fulfill|support|provide|give|offer|share|create|generate|write|produce|draft|make|"
    r"complete|engage|participate|discuss|facilitate|accommodate|perform|disclose|reveal|process|"
    r"handle|continue|proceed|access|retrieve|look\s+(?:up|into)|verify|confirm|book|cancel|modify|"
    r"issue|grant|guide|advise|browse|search|check|view|explain|go\s+(?:along|ahead)|"
    r"be\s+of\s+(?:help|assistance|service)|do\s+(?:that|this|so|it|what)|"
    r"take\s+(?:part|action|that|this))\b|do\s*(?:[.!,;]|$))"
)
# can't, cannot, couldn't, won't, will not, mustn't, shan't; am/are/will/would be unable to; am not
# able/allowed/permitted/going to; am not in a position to
_CANNOT = (
    rf"(?:\s+{_CANT}|\s+could{_NT}|\s+won'?t|\s+will\s+not|\s+must{_NT}|\s+shall{_NT}"
    rf"|(?:{_AM}|\s+will|'ll|\s+would|'d)(?:\s+not|\s+never)?\s+(?:be\s+)?"
    r"(?:unable|not\s+(?:be\s+)?(?:able|allowed|permitted|going|in\s+a\s+position))\s+to)"
)
# up to three words between the negation and the verb ("I can't really help", "I cannot in good
# conscience provide", "I cannot and will not help"), none of them a word that makes the phrase praise
# or emphasis ("I can't wait to help", "I can't stress enough", "I couldn't be happier to help")
_GAP = (
    r"(?:\s+(?!(?:wait|stress|emphasi[sz]e|overstate|believe|imagine|thank|tell|say|recommend|"
    r"express|begin|be\s+(?:happier|more|better|prouder|gladder))\b)[\w']+){0,3}?"
)
_FIND = (
    r"(?:find|locate|see|identify|determine)\s+(?:any|anything|information|details|documentation|"
    r"a\s+(?:mention|reference|record)|mention|that|this|it\b|relevant|specific|"
    r"the\s+(?:answer|information|details)|what|an?\s+answer)"
)
_SCOPE_VERB = r"(?:help|assist|answer|provide|discuss|respond)\b"

# what follows the word "I" or "we" in a refusal (the match starts right after it)
_FIRST_PERSON = (
    # "I can't help with that", "we are unable to provide", "I'm not able to assist", "I won't do it"
    rf"{_ADVERB}{_CANNOT}{_GAP}\s+{_VERB}",
    # a bare "I can't." / "No, I won't." / "Sorry, I cannot!"
    rf"{_ADVERB}(?:\s+{_CANT}|\s+won'?t|\s+will\s+not)\s*(?:[.!]|$)",
    # "I'm not comfortable with that", "I won't be providing that"
    rf"{_AM}\s+not\s+(?:comfortable|willing)\s+(?:with|to|\w+ing)\b",
    r"(?:\s+won'?t|\s+will\s+not)\s+be\s+(?:helping|assisting|providing|sharing|giving|writing|"
    r"creating|doing|answering|engaging|participating)\b",
    # "I must decline", "I'll have to decline", "I respectfully decline", "I refuse to", "I'd rather not"
    r"(?:\s+(?:must|have\s+to|need\s+to|will|would|shall|will\s+have\s+to)|'(?:ll|d)(?:\s+have\s+to)?)?"
    r"(?:\s+(?:respectfully|politely|kindly|have\s+to))?\s+(?:decline|refuse)\b",
    r"(?:'d|\s+would)\s+rather\s+not\b",
    # "I can only help with questions about X", "I'm only able to assist with billing", "I am designed
    # only to answer ..."
    rf"(?:\s+can|{_AM}\s+(?:able|allowed|permitted|designed|here|built|programmed))\s+only"
    rf"(?:\s+to)?\s+{_SCOPE_VERB}",
    rf"{_AM}\s+only\s+(?:able|allowed|permitted|designed|here|built|programmed)\s+to\s+{_SCOPE_VERB}",
    # "I couldn't find anything about", "we were unable to locate any information"
    rf"{_ADVERB}(?:\s+(?:could{_NT}|{_CANT}|did{_NT})|(?:{_AM}|\s+was|\s+were)\s+"
    rf"(?:unable|not\s+able)\s+to)\s+{_FIND}",
    r"\s+(?:have|found|could\s+find)\s+no\s+(?:specific\s+|relevant\s+)?"
    r"(?:information|details|documentation|mention)\b",
)
# what follows "I" alone ("we don't have any servers in Asia" is a company's answer)
_I_ONLY = (
    # "I don't have that in the docs", "I don't have any information", "I don't have access"
    rf"(?:\s+(?:really|simply|just|unfortunately|currently))?\s+(?:do{_NT}|did{_NT})\s+have\s+"
    r"(?:any|enough|that|this|the\s+(?:information|answer|details|data|ability|means)|access"
    r"|information|details|data|specific|real[-\s]time|current|up[-\s]to[-\s]date|personal|a\s+way"
    r"|an\s+answer|sufficient|reliable)\b",
    # "I don't know." / "I don't know the answer"
    rf"\s+do{_NT}\s+know(?:\s+(?:the\s+answer|that|this|for\s+sure))?\s*(?:[.!,;]|$)",
)
_SOURCES = (
    r"(?:docs|documentation|documents|sources|knowledge\s+base|search\s+results|results|context)\b"
)
_ABSENT = (
    r"\s+(?:(?:covered|mentioned|documented|described|addressed|specified|included|found|available)"
    rf"\s+in\s+(?:the|our|my|any\s+of\s+the)\s+(?:available\s+|provided\s+)?{_SOURCES}"
    r"|in\s+the\s+(?:docs|documentation|documents|knowledge\s+base|search\s+results)\b)"
)
_SOURCE_SAYS_NOTHING = (
    rf"\s+(?:do(?:es)?{_NT}|did{_NT})\s+(?:seem\s+to\s+)?(?:contain|mention|cover|include|say|specify"
    r"|provide|address|discuss|describe|have|explain)\b"
)
# the forms that do not open on the speaker: (a word the form cannot do without, the form, which
# opens on that word)
_OTHER = (
    # an apology that turns the request down: "I'm sorry, but I ... not ...", "Sorry, but we don't"
    (
        "sorry",
        r"sorry\s*,?\s+but\s+(?:i|we)\b[^.!?\n]{0,60}?(?:\bnot\b|n't\b|\b(?:cannot|cant|wont|dont"
        r"|didnt|unable|decline|refuse)\b|\bno\s+(?:longer|way)\b)",
    ),
    # out of scope: "that's outside what I can help with", "beyond my capabilities", "outside the
    # scope of this assistant", "not something I can do", "not within my remit"
    *(
        (
            word,
            rf"{word}\s+(?:of\s+)?(?:what\s+(?:i|we)\b|my\b|our\b|the\s+(?:scope|bounds|limits)\s+of\s+"
            r"(?:what\s+(?:i|we)\b|my\b|our\b|this\s+(?:assistant|conversation|chat|service|tool)\b))",
        )
        for word in ("outside", "beyond")
    ),
    (
        "not",
        r"not\s+(?:(?:within|in|part\s+of)\s+(?:my|our)\s+(?:\w+\s+)?(?:scope|remit|capabilities"
        r"|abilities|expertise|purview|role|mandate|area)\b|something\s+(?:that\s+)?(?:i|we)"
        rf"(?:{_AM}|\s+(?:can|could|will|would|do|should)|'(?:ll|d)))",
    ),
    # nothing to answer from: "there is no information about that", "no details are available"
    (
        "there",
        r"there(?:\s+is|'s)\s+no\s+(?:specific\s+|relevant\s+)?(?:information|details|documentation"
        r"|mention)\s+(?:about|on|of|regarding|in\s+the|for|available|that|related)\b",
    ),
    (
        "no",
        r"no\s+(?:specific\s+|relevant\s+)?(?:information|details|documentation)\s+(?:(?:is|was)\s+)?"
        r"(?:available|found|provided)\b",
    ),
    # the sources hold nothing: "the docs don't mention it", "the search results do not contain"
    *((word, rf"{word}{_SOURCE_SAYS_NOTHING}") for word in ("docs", "documentation", "sources")),
    ("knowledge", rf"knowledge\s+base{_SOURCE_SAYS_NOTHING}"),
    ("results", rf"search\s+results{_SOURCE_SAYS_NOTHING}"),
    (
        "provided",
        rf"provided\s+(?:text|information|context|material|documents){_SOURCE_SAYS_NOTHING}",
    ),
    # "not covered in the documentation", "isn't in the docs"
    ("not", rf"not{_ABSENT}"),
    ("n't", rf"n't{_ABSENT}"),
)

# the first word after "I"/"we" that some first-person form opens on: checked once, before the forms
# are tried one by one ("I booked", "I see", "we've" fail here)
_OPENING = (
    r"(?='(?:m|re|ll|d)\b|\s+(?:ca|could|won|will|must|shall|am|are|would|really|simply|just"
    r"|unfortunately|honestly|currently|therefore|thus|still|personally|sadly|regrettably|respectfully"
    r"|politely|kindly|have|need|decline|refuse|was|were|found|do|did)\w*\b)"
)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})

# Every form holds one of these words (or a word ending in "n't"): a negation, "only", "decline",
# "refuse", "outside", "beyond". An ASCII answer without any is no refusal, told by splitting it into
# words once instead of trying the forms.
_GATE_WORDS = frozenset(
    (
        b"not no cannot cant wont unable decline refuse only outside beyond dont doesnt didnt couldnt "
        b"mustnt shallnt isnt arent wasnt werent hasnt havent hadnt"
    ).split()
)
# every byte but an ASCII letter or digit to a space, as a bytes table (bytes.translate runs at
# memory speed): a gate word glued to an apostrophe ("we'cannot") or to a letter of another script
# (each byte of its UTF-8 is split off) is still a word of its own
_TO_SPACE = bytes(c if c < 128 and chr(c).isalnum() else ord(" ") for c in range(256))
_I_FORM = f"{_OPENING}(?:{'|'.join((*_FIRST_PERSON, *_I_ONLY))})"
_WE_FORM = f"{_OPENING}(?:{'|'.join(_FIRST_PERSON)})"
_WORD_START = r"(?<![^\W_])"
"""Not right after a letter or digit: a form that opens on a word opens on a whole word ("knot in
my scope" holds no "not"), as the word screen reads it."""
_OTHER_FORMS = tuple(
    (anchor, form if anchor == "n't" else _WORD_START + form) for anchor, form in _OTHER
)


def recognised_refusal(text: str) -> bool:
    """True when ``text`` holds one of the built-in refusal forms (see the module docstring).

    >>> recognised_refusal("Sorry, I can't help with forging documents.")
    True
    >>> recognised_refusal("Sorry for the wait: you can't change a region after creation.")
    False
    """
    return _refusal_span(text) is not None


def refusal_words(text: str) -> str | None:
    """The words of ``text`` that make it a refusal (its first built-in refusal form), or None.

    >>> refusal_words("Sorry, I can’t help with forging documents.")
    'I can’t help'
    """
    span = _refusal_span(text)
    return None if span is None else text[span[0] : span[1]]


def _refusal_span(text: str) -> tuple[int, int] | None:
    """Where the first built-in refusal form found in ``text`` stands (lower-casing keeps every
    position of an ASCII text; of any other text the span is an approximation)."""
    low = text.lower()
    if not low.isascii() and ("\u2019" in low or "\u2018" in low or "\u02bc" in low):
        # a dict translate is slow: only where it changes something
        low = low.translate(_APOSTROPHES)
    if "n't" not in low and _GATE_WORDS.isdisjoint(low.encode().translate(_TO_SPACE).split()):
        return None
    for subject, form in (("i", _I_FORM), ("we", _WE_FORM)):
        for follow in (" ", "'"):
            needle = subject + follow
            at = low.find(needle)
            while at >= 0:
                if at == 0 or not low[at - 1].isalnum():
                    found = builtin_pattern(form).match(low, at + len(subject))
                    if found is not None:
                        return at, found.end()
                at = low.find(needle, at + 1)
    for anchor, form in _OTHER_FORMS:
        if anchor in low:
            other = builtin_pattern(form).search(low)
            if other is not None:
                return other.start(), other.end()
    return None
