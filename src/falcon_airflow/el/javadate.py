"""Java ``SimpleDateFormat`` patterns, as Falcon users write them in ``formatTime``.

Letters follow Java's meaning and repetition rules (``M`` = 9, ``MM`` = 09, ``MMM`` = Sep, ``MMMM`` = September;
``yy`` = two-digit year ...); text in single quotes is literal and ``''`` is a quote. An unknown letter is an
error, as it was in Java.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class PatternError(ValueError):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


def _tokens(pattern: str) -> list[tuple[str, int, int]]:
    """(letter or literal text, count, offset); letter entries have count >= 1, literals count 0."""
    tokens: list[tuple[str, int, int]] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "'":
            if index + 1 < len(pattern) and pattern[index + 1] == "'":
                tokens.append(("'", 0, index))
                index += 2
                continue
            end = index + 1
            text: list[str] = []
            while True:
                if end >= len(pattern):
                    raise PatternError("unterminated quote in date pattern", index)
                if pattern[end] == "'":
                    if end + 1 < len(pattern) and pattern[end + 1] == "'":
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            tokens.append(("".join(text), 0, index))
            index = end + 1
            continue
        if char.isascii() and char.isalpha():
            end = index
            while end < len(pattern) and pattern[end] == char:
                end += 1
            tokens.append((char, end - index, index))
            index = end
            continue
        tokens.append((char, 0, index))
        index += 1
    return tokens


def _us_week_of_year(day: date) -> int:
    """Week of year with US rules (weeks start on Sunday; week 1 contains January 1)."""
    next_jan1 = date(day.year + 1, 1, 1)
    week_start = day - timedelta(days=(day.weekday() + 1) % 7)
    if week_start + timedelta(days=6) >= next_jan1:
        return 1
    jan1 = date(day.year, 1, 1)
    first_week_start = jan1 - timedelta(days=(jan1.weekday() + 1) % 7)
    return (week_start - first_week_start).days // 7 + 1


def _us_week_of_month(day: date) -> int:
    first = day.replace(day=1)
    first_week_start = first - timedelta(days=(first.weekday() + 1) % 7)
    week_start = day - timedelta(days=(day.weekday() + 1) % 7)
    return (week_start - first_week_start).days // 7 + 1


def _offset(moment: datetime) -> timedelta:
    return moment.utcoffset() or timedelta(0)


def _rfc822(moment: datetime) -> str:
    minutes = int(_offset(moment).total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"


def _iso8601(moment: datetime, count: int) -> str:
    minutes = int(_offset(moment).total_seconds() // 60)
    if minutes == 0:
        return "Z"
    sign = "+" if minutes >= 0 else "-"
    hours, rest = abs(minutes) // 60, abs(minutes) % 60
    if count == 1:
        return f"{sign}{hours:02d}" + (f"{rest:02d}" if rest else "")
    if count == 2:
        return f"{sign}{hours:02d}{rest:02d}"
    return f"{sign}{hours:02d}:{rest:02d}"


def _field(letter: str, count: int, moment: datetime) -> str:
    def number(value: int) -> str:
        return str(value).zfill(count)

    if letter in "yY":
        return f"{moment.year % 100:02d}" if count == 2 else number(moment.year)
    if letter in "ML":
        if count >= 4:
            return _MONTHS[moment.month - 1]
        if count == 3:
            return _MONTHS[moment.month - 1][:3]
        return number(moment.month)
    if letter == "d":
        return number(moment.day)
    if letter == "D":
        return number(moment.timetuple().tm_yday)
    if letter == "E":
        name = _DAYS[moment.weekday()]
        return name if count >= 4 else name[:3]
    if letter == "u":
        return number(moment.isoweekday())
    if letter == "F":
        return number((moment.day - 1) // 7 + 1)
    if letter == "w":
        return number(_us_week_of_year(moment.date()))
    if letter == "W":
        return number(_us_week_of_month(moment.date()))
    if letter == "a":
        return "AM" if moment.hour < 12 else "PM"
    if letter == "H":
        return number(moment.hour)
    if letter == "k":
        return number(moment.hour or 24)
    if letter == "K":
        return number(moment.hour % 12)
    if letter == "h":
        return number(moment.hour % 12 or 12)
    if letter == "m":
        return number(moment.minute)
    if letter == "s":
        return number(moment.second)
    if letter == "S":
        return number(moment.microsecond // 1000)
    if letter == "G":
        return "AD"
    if letter == "z":
        return moment.tzname() or "UTC"
    if letter == "Z":
        return _rfc822(moment)
    if letter == "X":
        return _iso8601(moment, count)
    raise KeyError(letter)


def format_java(moment: datetime, pattern: str) -> str:
    """Format ``moment`` (in its own zone) with a Java ``SimpleDateFormat`` pattern."""
    pieces: list[str] = []
    for text, count, offset in _tokens(pattern):
        if count == 0:
            pieces.append(text)
            continue
        try:
            pieces.append(_field(text, count, moment))
        except KeyError:
            raise PatternError(f"illegal pattern character '{text}'", offset) from None
    return "".join(pieces)
