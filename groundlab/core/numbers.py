"""Numbers however they are written: one value for "2", "two" and "2.0", for "50,000", "50 000" and
"50000", for "3%", "3 percent" and "three per cent", for "EUR 50", "50 euros" and "€50", and for
"1 March 2026", "March 1, 2026", "2026-03-01" and "01.03.2026".

:func:`number_mentions` is what a judge needs: every number, amount, percentage, date and code of
a text as ``(canonical value, surface text)``. Codes (4500017311, PRC-112, RM-4711, v1.2.3) stay
exact tokens, lower-cased.

Which number words count: two to nineteen, the tens, hundred, thousand, million, billion and "a
dozen" always do ("two weeks", "a dozen orders"); "one" alone only before a unit or a counted
noun ("one day", "one working day", "one percent", "one invoice"), since "the one who approves",
"one of the suppliers" or "no one" are no quantity and would make a claim look contradicted by
evidence that never mentions a 1. Ordinals in digits are numbers ("13th" is 13, as in "13 May");
ordinal words ("third", "twenty-first") are read by :func:`ordinal_words`, for evidence only.

>>> number_mentions("Two free service appointments, EUR 1,250.50 and 3 per cent by 1 March 2026 (PRC-112).")
(('2', 'Two'), ('EUR 1250.5', 'EUR 1,250.50'), ('3%', '3 per cent'), ('2026-03-01', '1 March 2026'), ('prc-112', 'PRC-112'))
"""

from __future__ import annotations

import re
from decimal import Context, Decimal, InvalidOperation
from functools import lru_cache
from operator import attrgetter
from typing import List, NamedTuple, Optional, Tuple

from .claims import CJK_CHARS
from .sentences import ScriptPattern
from .months import MONTHS as _MONTHS

__all__ = ["Mention", "digit_shape", "mentions", "number_mentions", "ordinal_words"]


class Mention(NamedTuple):
    """One number in a text.

    ``value``: canonical form ("50000", "3%", "EUR 50", "2026-03-01", "prc-112"); ``surface``: as
    written; ``start``/``end``: its offsets; ``kind``: number, percent, money, date or code;
    ``amount``: the bare value behind a percentage or an amount of money ("3" for "3%"), else
    ``value``; ``parts``: what else a date says (its year, its day, its year and month).
    """

    value: str
    surface: str
    start: int
    end: int
    kind: str
    amount: str
    parts: Tuple[str, ...] = ()


_ONES = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10 ** 6, "billion": 10 ** 9}
WORD_VALUES = {w: k for k, w in enumerate(_ONES, 1)}
WORD_VALUES.update({w: 10 * k for k, w in enumerate(_TENS, 2)})
#: Two to twelve in German, French and Spanish, each read alone ("fünf Werktage", "trois jours").
#: Left out: the words for one (also "a"), and those that are other words or abbreviations too:
#: "elf", "sept" (September), "once" (Spanish eleven), "neuf" (French new), "dos" (the dos and don'ts).
FOREIGN_WORD_VALUES = {
    "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "zwölf": 12,
    "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "huit": 8, "dix": 10, "onze": 11, "douze": 12,
    "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10,
    "doce": 12,
}


_CURRENCY_CODES = "EUR USD GBP CHF JPY CNY INR AUD CAD SEK NOK DKK PLN CZK HUF".split()
_SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY", "₹": "INR"}
_CURRENCY_WORDS = {"euro": "EUR", "euros": "EUR", "dollar": "USD", "dollars": "USD", "pound": "GBP",
                   "pounds": "GBP", "franc": "CHF", "francs": "CHF", "yen": "JPY", "yuan": "CNY",
                   "rupee": "INR", "rupees": "INR"}

#: Nouns before which "one" is a quantity ("one day", "one invoice"), with or without a plural s.
UNIT_NOUNS = frozenset("""
day week month year quarter hour minute second time percent cent euro dollar pound franc piece item unit
order invoice line person approver signature supplier vendor customer document page step reminder
payment delivery shipment pallet box case copy week month year working business calendar full extra
additional more single further appointment visit service user account
approval reviewer manager owner signer release level stage round attempt request ticket license licence
seat device location site plant warehouse store branch office address field record entry option reason
condition rule exception warning error click call email letter notice batch run cycle shift slot session
transfer refund credit charge fee rate
""".split())

_AMOUNT = (r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:\.\d{3})+,\d+|\d{1,3}(?:\.\d{3}){2,}(?![\d.,]\d)"
           r"|\d{1,3}(?:[\u00a0\u202f ]\d{3})+(?:[.,]\d+)?(?![\d.,]\d)|\d+(?:[.,]\d+)?)")
_NUMBER_WORD = r"(?:" + "|".join(_ONES + _TENS + list(_SCALES) + ["dozen"]) + r")"
# as written in running text, lower case or capitalised: "DOS" is no two
_FOREIGN_WORD = r"(?:" + "|".join(v for w in sorted(FOREIGN_WORD_VALUES, key=len, reverse=True)
                                  for v in (w, w.capitalize())) + r")"
_WORDS = (r"(?:(?i:\b(?:a\s+(?=(?:hundred|thousand|million|billion|dozen)\b))?" + _NUMBER_WORD +
          r"(?:(?:\s+and\s+|[\s-]+)" + _NUMBER_WORD + r")*\b)|\b" + _FOREIGN_WORD + r"\b)")
_MONTH = r"(?i:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")"
# A month of a date without its year ("10 May", "31. März", "1er mars", "June 9", "the 12th of March"):
# a month written in full (but "may", a month only as "May"), or an abbreviation with a capital.
_MONTH_ABBREVIATIONS = frozenset("jan feb mar apr jun jul aug sep sept oct nov dec".split())
_FULL_MONTHS = sorted((m for m in _MONTHS if m not in _MONTH_ABBREVIATIONS and m != "may"), key=len, reverse=True)
_SHORT_MONTHS = sorted((m.capitalize() for m in _MONTH_ABBREVIATIONS), key=len, reverse=True)
_DAY_MONTH = r"(?:(?i:" + "|".join(_FULL_MONTHS) + r")|May|(?:" + "|".join(_SHORT_MONTHS) + r")\.?)"
_PERCENT = r"(?i:\s?%|\s?(?:percent|per\s?cent|pct|prozent|pour\s?cent|por\s?ciento)\b)"
_CODE3 = "(?:" + "|".join(_CURRENCY_CODES) + r")"
_SYMBOL = "[" + "".join(_SYMBOLS) + "]"
_CUR_WORD = r"(?i:" + "|".join(sorted(_CURRENCY_WORDS, key=len, reverse=True)) + r")\b"
_SCALE = r"(?i:\s+(?:hundred|thousand|million|billion)\b)"
# Letters of scripts written without spaces (Chinese, Japanese, Korean) may touch a number:
# "需要3个工作日" holds the number 3, not one long code.
_W = "[^\\W" + CJK_CHARS + "]"  # a word character of any other script
_END = r"(?!" + _W + r"|[.,]\d|-\w)"
# Short scales glued to the digits: "$5k", "10K", "€1.2m", "$3bn". k always means thousand; m, mn,
# b and bn only after a currency sign or code ("5m" alone may be metres, "5B" a room).
_SHORT_ANY = r"(?:[kK](?!" + _W + r"))"
_SHORT_MONEY = r"(?:(?:[kK]|[mM]n?|[bB]n?)(?!" + _W + r"))"

# Numbers in Chinese characters ("三个工作日", "十五天", "两万元"), read where a measure word or a
# unit follows them: "统一" (unify) or "一般" (usual) hold no number. "一" alone counts before a unit
# of time or money, not before 个 or 件 unless a unit of time follows ("一个工作日", not "一个问题",
# "a question"); after 第 it is an ordinal, no number.
_CN_NUMERALS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
                "九": 9, "十": 10, "百": 100, "千": 1000, "万": 10 ** 4, "亿": 10 ** 8}
_CN_UNITS_OF_TIME = "天日周月年小分秒季"
_CN_BRANCH = (r"(?P<cn>百分之(?:[" + "".join(_CN_NUMERALS) + r"]+|\d+(?:\.\d+)?)"
              r"|(?<![第" + "".join(_CN_NUMERALS) + r"])[" + "".join(_CN_NUMERALS) + r"]+(?!分之)"
              r"(?=[个天日周月年次件名位张份元倍项条小分秒季笔台家%\uff05]|工作日|星期|欧元|美元|英镑|人民币))")
_CN_AFTER_ONE = re.compile(r"(?:个|件)?(?:[" + _CN_UNITS_OF_TIME + r"]|工作日|星期)|[元次倍%\uff05]|欧元|美元|英镑")


def _cn_value(text: str) -> Optional[int]:
    """The value of a number in Chinese characters: "十五" 15, "二十三" 23, "两万" 20000,
    "一万五千" 15000, "两亿三千万" 230000000."""
    total, section, digit = 0, 0, None
    for ch in text:
        v = _CN_NUMERALS[ch]
        if v < 10:
            if digit is not None and v != 0:
                return None  # "三四" (three or four) is a range, not a number
            digit = v
        elif v < 10 ** 4:
            section += (1 if digit is None else digit) * v
            digit = None
        else:  # 万 scales the section before it; 亿 everything before it
            section += digit or 0
            digit = None
            if v == 10 ** 4:
                total += (section or 1) * v
            else:
                total = (total + section or 1) * v
            section = 0
    return total + section + (digit or 0)


# Every branch starts at a digit, a currency sign or the start of a word: the lookahead spares the
# whole alternation at every other position (the same matches, in about 60% of the time).
_STARTS = r"(?=[\d\u20ac$\u00a3\u00a5\u20b9_]|\b[^\W\d_]|" + "[" + "".join(_CN_NUMERALS) + "])"
_WORDS_BRANCH = r"(?P<words>" + _WORDS + r"(?:" + _PERCENT + r"|\s+" + _CUR_WORD + ")?)"
_MENTION = ScriptPattern(_STARTS + r"(?:"
    r"(?P<iso>(?<![\w.-])\d{4}-\d{2}-\d{2}(?![\w-]))"
    r"|(?P<dotted>(?<![\w.])\d{1,2}\.\d{1,2}\.\d{4}(?![\w]|\.\d))"
    # a day and a month, with its year or without ("10 May 2026", "10 May", "31. März", "the 12th of March")
    r"|(?P<dmy>(?<![\w.,])\d{1,2}(?:st|nd|rd|th|er)?\.?\s+(?:of\s+)?" + _MONTH
    + r"(?:\.?,?\s+\d{4}(?!\w)|(?!\w|\.?\s*\d)))"
    r"|(?P<mdy>\b" + _MONTH + r"\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4}(?!\w)|(?![\w]|[.,:]\d)))"
    r"|(?P<my>\b" + _MONTH + r"\s+\d{4}(?![\w]|[.,]\d))"
    # a time of day: "9:10", "9:10 a.m.", "21:10 Uhr", "9h10"; a whole hour with its marker: "10 pm",
    # "10pm", "10 a.m.", "14 Uhr", "14.30 Uhr" ("10 am" apart is left alone: German writes "3 am Stück")
    r"|(?P<time>(?<![\w.:,])\d{1,2}(?::\d\d(?:\s?(?:a\.m\.|p\.m\.|am\b|pm\b|[Uu]hr\b|h\b))?|h\d\d|"
    r"\s?(?:a\.m\.|p\.m\.|pm\b)|am\b|(?:\.\d\d)?\s[Uu]hr\b)(?![\d:]))"
    r"|(?P<cnscale>(?<!" + _W + r")(?<![.,/-])\d+(?:\.\d+)?[万亿])"
    r"|(?P<pre>(?:\b" + _CODE3 + r"\s?|" + _SYMBOL + r"\s?)(?<![\w.,/-]\d)" + _AMOUNT
    + "(?:" + _SHORT_MONEY + "|" + _END + "(?:" + _SCALE + ")?))"
    # a hyphen is a minus sign, not a code's joint, after a space or a bracket: "Lunch: -11.20 EUR"
    r"|(?P<amount>(?<!" + _W + r")(?<![.,/])(?<![\w.,/]-)" + _AMOUNT + "(?:" + _SHORT_ANY + "|" + _END + "(?:" + _SCALE + ")?)"
    r"(?:" + _PERCENT + r"|\s?" + _CODE3 + r"\b|\s?" + _SYMBOL + r"|\s+" + _CUR_WORD + ")?)"
    r"|" + _WORDS_BRANCH + r"|" + _CN_BRANCH +
    r"|(?P<code>(?<!" + _W + r")(?:[^\W\d_" + CJK_CHARS + r"]+-)?" + _W + r"*\d(?:" + _W + r"|[.,])*))"
)
# Text without a digit can hold only numbers written in words: every other branch needs a digit.
_MENTION_IN_WORDS = re.compile(r"\b(?=[^\W\d_])" + _WORDS_BRANCH + "|" + _CN_BRANCH)
_HAS_DIGIT = re.compile(r"\d")
_DIGITS = re.compile(r"[\d.,\u00a0\u202f ]*\d(?:[.,]\d+)?")
_UNIT_AFTER = re.compile(r"\s+([^\W\d_]+)")
_DATE_PARTS = re.compile(r"\d+|[^\W\d_]+")
_DIGIT_RUN = re.compile(r"\d+")
_YEAR_AT_END = re.compile(r"\d{4}$")
_DAY_MONTH_WORD = re.compile(r"(?<![^\W\d_])" + _DAY_MONTH + r"(?![^\W\d_])")
#: The most days each month has (0: no month).
_MONTH_DAYS = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _decimal(digits: str, money: bool = False) -> Optional[Decimal]:
    """The value of an amount as written (thousands separators, decimal point or comma). Dots
    between groups of three digits are thousands separators when there are several ("1.000.000")
    or, for an amount of money, one ("1.000 EUR": amounts of money have no third decimal)."""
    text = digits.replace("\u00a0", "").replace("\u202f", "").replace(" ", "")
    if "," not in text and _DOTTED_THOUSANDS.fullmatch(text) and (money or text.count(".") > 1):
        text = text.replace(".", "")
    if "," in text and "." in text:
        text = text.replace(".", "").replace(",", ".") if text.rfind(",") > text.rfind(".") \
            else text.replace(",", "")
    elif "," in text:
        head, _, tail = text.rpartition(",")
        text = text.replace(",", "") if len(tail) == 3 and text.count(",") >= 1 and len(head.split(",")[0]) <= 3 \
            else text.replace(",", ".")
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _plain(value: Decimal) -> str:
    """``Decimal('1250.50')`` -> ``'1250.5'``; ``Decimal('2E+3')`` -> ``'2000'``; every digit of a
    long number kept (the default context would round it to 28)."""
    return format(value.normalize(_WIDE), "f")


_WIDE = Context(prec=120)


_DOTTED_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+")


def _amount(text: str, money: bool = False) -> Optional[str]:
    """The canonical amount of digits, possibly followed by a scale word ("1.5 million")."""
    found = _DIGITS.match(text)
    if found is None:
        return None
    digits = found.group().strip()
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        return None  # leading zeros: a code (00042), kept as written
    rest = text[found.end():].lower()
    if not rest and digits.isascii() and digits.isdigit():
        return digits  # a whole number without a leading zero is its own canonical value
    value = _decimal(digits, money)
    if value is None:
        return None
    for scale, factor in _SCALES.items():
        if rest.lstrip().startswith(scale):
            value *= factor
            break
    else:
        short = _SHORT_SCALE.match(rest)
        if short:
            value *= _SHORT_FACTORS[short.group(1)]
    return _plain(value)


_SHORT_SCALE = re.compile(r"(k|mn|m|bn|b)(?![^\W\d_])")
_SHORT_FACTORS = {"k": 1000, "m": 10 ** 6, "mn": 10 ** 6, "b": 10 ** 9, "bn": 10 ** 9}


def _words_value(text: str) -> Optional[int]:
    total, current, seen = 0, 0, False
    for word in re.findall(r"[^\W\d_]+", text.lower()):
        if word in ("a", "and"):
            continue
        if word in FOREIGN_WORD_VALUES:
            current += FOREIGN_WORD_VALUES[word]
            seen = True
            continue
        if word in WORD_VALUES:
            current += WORD_VALUES[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word == "dozen":
            current = max(current, 1) * 12
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        else:
            continue
        seen = True
    return total + current if seen else None


def _unit(tail: str) -> Optional[Tuple[str, str]]:
    """("%", "") for a percent sign or word, ("EUR", "") for a currency; None otherwise."""
    t = tail.strip().lower()
    if not t:
        return None
    if t == "%" or t.startswith(("percent", "per", "pct", "prozent", "pour", "por")):
        return ("%", "")
    if t.upper() in _CURRENCY_CODES:
        return (t.upper(), "")
    if t in _SYMBOLS:
        return (_SYMBOLS[t], "")
    if t in _CURRENCY_WORDS:
        return (_CURRENCY_WORDS[t], "")
    return None


def _split_unit(surface: str, body_re: "re.Pattern[str]") -> Tuple[str, Optional[str]]:
    """The number part of a surface and its trailing unit (%, currency), if any."""
    found = body_re.match(surface)
    body = found.group() if found else surface
    unit = _unit(surface[len(body):])
    return body, (unit[0] if unit else None)


_AMOUNT_BODY = ScriptPattern(_AMOUNT + "(?:" + _SHORT_MONEY + "|" + _SCALE + ")?")
_WORDS_BODY = re.compile(_WORDS)


def _date(year: str, month: int, day: Optional[str]) -> Optional[Tuple[str, Tuple[str, ...]]]:
    if not 1 <= month <= 12:
        return None
    y = int(year)
    if day is None:
        return f"{y:04d}-{month:02d}", (str(y),)
    d = int(day)
    if not 1 <= d <= 31:
        return None
    # its year, its day, its year and month, its month and day: what a claim may say of it
    return f"{y:04d}-{month:02d}-{d:02d}", (str(y), str(d), f"{y:04d}-{month:02d}", f"--{month:02d}-{d:02d}")


def _mention(m: "re.Match[str]", text: str) -> Optional[Mention]:
    kind = m.lastgroup
    surface = m.group()
    start, end = m.span()
    if kind == "time":  # a time of day: "T09:10" ("9:10", "9:10 a.m.", "21:10 Uhr", "9h10")
        digits = _DIGIT_RUN.findall(surface)
        hour, minute = int(digits[0]), int(digits[1]) if len(digits) > 1 else 0
        if hour > 23 or minute > 59:  # "25:99": no time of day; an exact token, as a code is
            token = surface.lower()
            return Mention(token, surface, start, end, "code", token)
        low = surface.lower()
        if "p.m" in low or low.endswith("pm"):
            hour = hour % 12 + 12
        elif ("a.m" in low or low.endswith("am")) and hour == 12:
            hour = 0
        value = f"T{hour:02d}:{minute:02d}"
        return Mention(value, surface, start, end, "time", value, (str(hour),))
    if kind in ("dmy", "mdy") and not _YEAR_AT_END.search(surface):
        # a day of a month, no year: "--05-10" (ISO 8601's date without its year)
        parts = _DATE_PARTS.findall(surface.casefold())
        day = next(p for p in parts if p.isdigit())
        month = next((_MONTHS[p] for p in parts if p in _MONTHS), 0)
        digits = _DIGIT_RUN.search(surface)
        number = Mention(str(int(day)), digits.group(), start + digits.start(), start + digits.end(), "number",
                         str(int(day)))
        # "may" is a month only as "May", an abbreviation only with its capital ("up to 5 may be")
        if _DAY_MONTH_WORD.search(surface) is None or not 1 <= int(day) <= _MONTH_DAYS[month]:
            return number  # "30. Februar": no date either; its number as written
        value = f"--{month:02d}-{int(day):02d}"
        return Mention(value, surface, start, end, "date", value, (str(int(day)),))
    if kind in ("iso", "dotted", "dmy", "mdy", "my"):
        # casefold: the pattern ignores case as Unicode does ("ſept" is "sept")
        parts = _DATE_PARTS.findall(surface.casefold())
        if kind == "iso":
            date = _date(parts[0], int(parts[1]), parts[2])
        elif kind == "dotted":
            date = _date(parts[2], int(parts[1]), parts[0])
        elif kind == "dmy":
            month = next((_MONTHS[p] for p in parts[1:] if p in _MONTHS), 0)
            date = _date(parts[-1], month, parts[0])
        elif kind == "mdy":
            date = _date(parts[-1], _MONTHS.get(parts[0], 0), parts[1])
        else:
            date = _date(parts[-1], _MONTHS.get(parts[0], 0), None)
        if date is None:  # not a date after all ("2026-13-45"): an exact token
            token = surface.lower()
            return Mention(token, surface, start, end, "code", token)
        return Mention(date[0], surface, start, end, "date", date[0], date[1])
    if kind == "pre":
        symbol = surface[0]
        currency = _SYMBOLS.get(symbol) or surface[:3].upper()
        amount = _amount(surface.lstrip("".join(_SYMBOLS)).lstrip()[3:].lstrip()
                         if symbol not in _SYMBOLS else surface[1:].lstrip(), money=True)
        if amount is None:
            return None
        return Mention(f"{currency} {amount}", surface, start, end, "money", amount)
    if kind == "amount":
        body, unit = _split_unit(surface, _AMOUNT_BODY)
        amount = _amount(body, money=unit is not None and unit != "%")
        if amount is None:  # leading zeros
            return Mention(surface.lower().rstrip(".,"), surface, start, end, "code", surface.lower())
        return _with_unit(amount, unit, surface, start, end)
    if kind == "words":
        body, unit = _split_unit(surface, _WORDS_BODY)
        value = _words_value(body)
        if value is None:
            return None
        if value == 1 and unit is None:
            # "one" alone is a quantity only before a unit or a counted noun.
            after = _UNIT_AFTER.match(text, end)
            noun = after.group(1).lower() if after else ""
            if noun.rstrip("s") not in UNIT_NOUNS and noun not in UNIT_NOUNS:
                return None
        return _with_unit(str(value), unit, surface, start, end)
    if kind == "cnscale":  # "3万" 30000, "2.3亿" 230000000
        value = _decimal(surface[:-1])
        if value is None:
            return None
        amount = _plain(value * _CN_NUMERALS[surface[-1]])
        return Mention(amount, surface, start, end, "number", amount)
    if kind == "cn" and surface.startswith("百分之"):  # "百分之五": five per cent
        rest = surface[3:]
        value = _amount(rest) if rest[0].isdigit() else _cn_value(rest)
        return None if value is None else _with_unit(str(value), "%", surface, start, end)
    if kind == "cn":
        value = _cn_value(surface)
        if value is None or (value == 1 and _CN_AFTER_ONE.match(text, end) is None):
            return None
        after = text[end:end + 2]
        unit = "%" if after[:1] in "%\uff05" else ("EUR" if after == "欧元" else "USD" if after == "美元" else
                                                    "GBP" if after == "英镑" else None)
        return _with_unit(str(value), unit, surface, start, end)
    token = surface.lower().rstrip(".,")
    if not token:
        return None
    written = surface.rstrip(".,")
    ordinal = _NUMERIC_ORDINAL.fullmatch(token)
    if ordinal is not None:  # "13th" is the 13 of "13 May", "the 3rd reminder" the 3 of "3 reminders"
        value = str(int(ordinal.group(1)))
        return Mention(value, written, start, start + len(written), "number", value)
    return Mention(token, written, start, start + len(written), "code", token)


_NUMERIC_ORDINAL = re.compile(r"(\d{1,6})(?:st|nd|rd|th|er|re|e|ème|eme|ième)")

_ORDINAL_ONES = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
                 "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()
_ORDINAL_TENS = "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split()
#: Ordinal words and their values: "third" 3, "twentieth" 20 ("twenty-first" is read as 21).
ORDINAL_VALUES = {w: k for k, w in enumerate(_ORDINAL_ONES, 1)}
ORDINAL_VALUES.update({w: 10 * k for k, w in enumerate(_ORDINAL_TENS, 2)})
_ORDINAL_WORD = re.compile(r"\b(?:(" + "|".join(_TENS) + r")[\s-])?(" + "|".join(ORDINAL_VALUES) + r")\b",
                           re.IGNORECASE)
#: German and French ordinal words ("ab dem dritten Tag", "le troisième jour"): a claim's "3." or
#: "3e" finds them. German ordinals take the endings of adjectives (dritte, dritten, dritter, ...).
FOREIGN_ORDINAL_VALUES = {w: k for k, w in enumerate(
    "erst zweit dritt viert fünft sechst siebt acht neunt zehnt elft zwölft".split(), 1)}
FOREIGN_ORDINAL_VALUES.update({"siebent": 7, "dreizehnt": 13, "vierzehnt": 14, "fünfzehnt": 15, "zwanzigst": 20,
                               "dreißigst": 30})
FOREIGN_ORDINAL_VALUES.update({w: k for k, w in enumerate(
    "premier deuxième troisième quatrième cinquième sixième septième huitième neuvième dixième onzième "
    "douzième".split(), 1)})
FOREIGN_ORDINAL_VALUES.update({"première": 1, "seconde": 2, "quinzième": 15, "vingtième": 20,
                               "trentième": 30})
_FOREIGN_ORDINAL = re.compile(r"\b(" + "|".join(sorted(FOREIGN_ORDINAL_VALUES, key=len, reverse=True))
                              + r")(?:e|en|er|es|em)?\b", re.IGNORECASE)
_FOREIGN_ORDINAL_HINT = re.compile(r"erst|zweit|dritt|viert|fünft|sechst|siebt|acht|neunt|zehnt|elft|zwölft|zigst|"
                                   r"ßigst|ième|premi|second")
#: Counts said in words of their own: "twice" (two times), "a pair of", "a couple of".
COUNT_WORDS = {"twice": 2, "thrice": 3, "a pair of": 2, "a couple of": 2}
_COUNT_WORD = re.compile(r"\b(?:twice|thrice|a\s+pair\s+of|a\s+couple\s+of)\b", re.IGNORECASE)


def ordinal_words(text: str) -> Tuple[Mention, ...]:
    """The ordinals a text writes in words ("the third reminder", "the twenty-first century") and the
    counts said in words of their own ("twice", "a pair of"), as numbers. They are read on the
    evidence's side only, so that a claim's "3rd", "21st" or "2 reminders" finds them; a claim's own
    "first", "third" or "twice" stays a word ("First, open the order", "a third party", "twice as fast").

    >>> [(m.value, m.surface) for m in ordinal_words("the third reminder in the twenty-first century")]
    [('3', 'third'), ('21', 'twenty-first')]
    """
    # Read in words alone: a text and its shape (digit_shape) give the same ones, at the same places.
    return _ordinal_words(digit_shape(text))


@lru_cache(maxsize=16384)
def _ordinal_words(text: str) -> Tuple[Mention, ...]:
    lower = text.lower()
    out = []
    if "th" in lower or "first" in lower or "second" in lower:
        for m in _ORDINAL_WORD.finditer(text):
            value = ORDINAL_VALUES[m.group(2).lower()] + (WORD_VALUES[m.group(1).lower()] if m.group(1) else 0)
            out.append(Mention(str(value), m.group(), m.start(), m.end(), "number", str(value)))
    if _FOREIGN_ORDINAL_HINT.search(lower):
        for m in _FOREIGN_ORDINAL.finditer(text):
            value = str(FOREIGN_ORDINAL_VALUES[m.group(1).lower()])
            out.append(Mention(value, m.group(), m.start(), m.end(), "number", value))
    if "twice" in lower or "thrice" in lower or "a pair" in lower or "a couple" in lower:
        for m in _COUNT_WORD.finditer(text):
            value = str(COUNT_WORDS[" ".join(m.group().lower().split())])
            out.append(Mention(value, m.group(), m.start(), m.end(), "number", value))
    return tuple(sorted(out, key=lambda m: m.start))


def _with_unit(amount: str, unit: Optional[str], surface: str, start: int, end: int) -> Mention:
    if unit == "%":
        return Mention(amount + "%", surface, start, end, "percent", amount)
    if unit:
        return Mention(f"{unit} {amount}", surface, start, end, "money", amount)
    return Mention(amount, surface, start, end, "number", amount)


@lru_cache(maxsize=16384)
def mentions(text: str) -> Tuple[Mention, ...]:
    """Every number, amount, percentage, date and code in ``text``, in order, with offsets. "24/7"
    (and "24x7", "24/7/365") says "around the clock": no number."""
    found: List[Mention] = []
    clock = [m.span() for m in _AROUND_THE_CLOCK.finditer(text)] if "24" in text and _may_say_around_the_clock(text) else ()
    for kind, start, end in _spans(digit_shape(text)):
        if clock and any(a <= start < b for a, b in clock):
            continue
        mention = _mention(_Found(kind, text, start, end), text)
        if mention is not None:
            found.append(mention)
    if len(found) > 1 and "time" in map(_KIND, found):
        _hours_of_ranges(found, text)
    return tuple(found)


_KIND = attrgetter("kind")
#: What joins the two ends of a span of hours: "8 bis 18 Uhr", "8-18 Uhr", "from 8 to 18:00".
_RANGE_JOIN = re.compile(r"\s*(?:bis|to|until|till|[-\u2013\u2014]|à)\s*", re.IGNORECASE)


def _hours_of_ranges(found: List[Mention], text: str) -> None:
    """A bare hour that opens a span of hours ending in a time of day is a time of day too: the 8 of
    "von 8 bis 18 Uhr" is 08:00, as in "8:00 to 18:00" (read in place)."""
    for k in range(len(found) - 1):
        a, b = found[k], found[k + 1]
        if a.kind in ("number", "code") and b.kind == "time" and a.surface.isdigit() and int(a.surface) <= 23 and \
                text[a.start - 1:a.start] in ("", " ", "(", "\n", "\t") and _RANGE_JOIN.fullmatch(text, a.end, b.start):
            # (standing alone: "…T14:02:00-08:00" is a timestamp)
            hour = int(a.surface)
            low = b.surface.lower()
            if ("pm" in low or "p.m" in low) and hour < 12 and hour + 12 <= int(b.value[1:3]):
                hour += 12  # "7-8 p.m.": 19:00
            value = f"T{hour:02d}:00"
            found[k] = Mention(value, a.surface, a.start, a.end, "time", value, (str(hour),))


def _may_say_around_the_clock(text: str) -> bool:
    """Whether a text holding "24" may say "24/7": a 7 after a slash or a times sign."""
    return "/7" in text or "/ 7" in text or "x7" in text or "X7" in text or "x 7" in text or "×" in text


#: "24/7", "24x7", "24 × 7", "24/7/365": around the clock, not a date nor numbers (a date "24/7/2026" is one).
_AROUND_THE_CLOCK = re.compile(r"(?<![\d/.,])24\s?[/x×]\s?7(?:\s?[/x×]\s?365)?(?!\d|[.,]\d|\s?/\s?\d)", re.IGNORECASE)


_ZEROS = str.maketrans("123456789", "000000000")


_ZERO_BYTES = bytes.maketrans(b"123456789", b"000000000")


def digit_shape(text: str) -> str:
    """``text`` with every digit (0-9) written as 0, as long as the text: where a pattern that tells
    no digit from another matches the text, it matches its shape, by the same branches. Whatever such
    patterns alone decide is the same for "order 2408" and "order 7731", and can be kept per shape.

    >>> digit_shape("Order 2408 is 1.5 percent over.")
    'Order 0000 is 0.0 percent over.'
    """
    if text.isascii():  # a tenth of the time of str.translate
        return text.encode("ascii").translate(_ZERO_BYTES).decode("ascii")
    return text.translate(_ZEROS)


@lru_cache(maxsize=16384)
def _spans(shape: str) -> Tuple[Tuple[str, int, int], ...]:
    """``(branch, start, end)`` of each match of the pattern in a text, found in its shape (its
    digits as 0). The pattern tells no digit from another (no digit of its own, no set holding some
    digits and not others: tests/test_numbers.py checks it), so it matches a text and its shape at
    the same places by the same branches; what a mention is worth is then read from the text. Texts
    that differ only in their digits ("order 2408", "order 7731") are searched once."""
    digits = _HAS_DIGIT.search(shape) is not None
    pattern = _MENTION.for_text(shape) if digits else _MENTION_IN_WORDS
    matches = _ascii_matches(shape, pattern, digits) if shape.isascii() else pattern.finditer(shape)
    return tuple((m.lastgroup, m.start(), m.end()) for m in matches)


class _Found:
    """What :func:`_mention` reads of a match (its branch, text and span), at a place :func:`_spans` found."""

    __slots__ = ("lastgroup", "_text", "_start", "_end")

    def __init__(self, lastgroup: str, text: str, start: int, end: int) -> None:
        self.lastgroup, self._text, self._start, self._end = lastgroup, text, start, end

    def group(self) -> str:
        return self._text[self._start:self._end]

    def span(self) -> Tuple[int, int]:
        return self._start, self._end


# Where a mention can start in ASCII text: a digit, "$" or "_" after no word character, or a word
# (letters at a word boundary). Trying the whole pattern only there, and only at the words that can
# open one of its branches, finds what ``finditer`` finds (each branch's lookbehind and word
# boundary see the text before the position tried), in about half the time: the pattern is a long
# alternation, tried at every word otherwise.
_CANDIDATE = re.compile(r"(?<!\w)[\d_]|\$|\b[A-Za-z]+")
#: A word opens a branch of the pattern only as a month name, a number word (or the "a" of "a
#: hundred"), a currency code, or when a digit follows in the same run of non-space characters (a code).
_OPENING_WORDS = frozenset([w for w in _MONTHS if w.isascii()] + _ONES + _TENS + list(_SCALES) + ["dozen", "a"]
                           + [w for w in FOREIGN_WORD_VALUES if w.isascii()])
_CODES = frozenset(_CURRENCY_CODES)
_DIGIT_IN_TOKEN = re.compile(r"[^\s\d]*\d")


def _ascii_matches(text: str, pattern: "re.Pattern[str]", digits: bool):
    """``pattern.finditer(text)`` for ASCII ``text`` (see :data:`_CANDIDATE`); ``digits``: the text
    holds a digit (without one, only the number words can match)."""
    end = 0
    match = pattern.match
    for candidate in _CANDIDATE.finditer(text):
        at = candidate.start()
        if at < end:
            continue
        word = candidate.group()
        if word[0].isalpha() and word.lower() not in _OPENING_WORDS and not (
                digits and (word in _CODES or _DIGIT_IN_TOKEN.match(text, at) is not None)):
            continue
        if not digits and not word[0].isalpha():
            continue
        m = match(text, at)
        if m is not None:
            yield m
            end = m.end()


def distinct(found: Tuple[Mention, ...]) -> Tuple[Mention, ...]:
    """The first mention of each value in ``found``, in order: what a claim's numbers are checked as."""
    first: dict = {}
    for m in found:
        first.setdefault(m.value, m)
    return tuple(first.values())


def number_mentions(text: str) -> Tuple[Tuple[str, str], ...]:
    """``(canonical value, surface text)`` for every number, amount, percentage, date and code in
    ``text``, in order. Two mentions with the same canonical value say the same number.

    >>> number_mentions("50,000 / 50 000 / 50000, EUR 50 / 50 euros / €50, 2026-03-01 / 01.03.2026")
    (('50000', '50,000'), ('50000', '50 000'), ('50000', '50000'), ('EUR 50', 'EUR 50'), ('EUR 50', '50 euros'), ('EUR 50', '€50'), ('2026-03-01', '2026-03-01'), ('2026-03-01', '01.03.2026'))
    >>> number_mentions("The one who approves is one of the buyers; it takes one day.")
    (('1', 'one'),)
    """
    return tuple((m.value, m.surface) for m in mentions(text))
