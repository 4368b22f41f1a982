"""What a request may bring: a bounded body, JSON of bounded depth, and short echoes.

Every POST body is at most MAX_BODY bytes (Flask's MAX_CONTENT_LENGTH answers 413 before the
body is read, and the server in front refuses it before Flask sees it), is parsed only after
its nesting depth is checked (a 200,000-deep array must not reach Python's recursion limit),
and anything a message repeats back is cut to a short prefix (`short`).
"""
from __future__ import annotations

import json
import re
from typing import Any

MAX_BODY = 64 * 1024  # bytes in a POST body
MAX_DEPTH = 16  # nesting of arrays and objects in a JSON body
ECHO = 40  # characters of a client's value a message repeats

# A bracket, a quote, or an escape (`\\"` and `\\\\` taken whole, never as a quote): brackets inside
# a string are text ("[[[" in a name), so a string is skipped from its quote to its closing one
_MARKS = re.compile(r'\\.|[\[\]{}"]', re.S)


class BodyError(ValueError):
    """A body that is not a JSON object of bounded depth: one line, answered with 400."""


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (strings do not count).

    One pass, in time linear in the text: a pattern for strings rescanned an unterminated one
    from each of its quotes (64 KB of `\\"` took 12 s, holding every page up meanwhile)."""
    depth = deepest = 0
    # the brackets and quotes, in order; a string runs from a quote to the next unescaped one
    marks = _MARKS.finditer(text)
    for mark in marks:
        char = mark.group()
        if char == '"':
            for inner in marks:  # to the string's end: escapes are consumed whole
                if inner.group() == '"':
                    break
            continue
        if char[0] == "\\":  # an escape outside a string: not JSON, json.loads says so
            continue
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def parse_object(raw: bytes, max_depth: int = MAX_DEPTH) -> dict:
    """The JSON object in a body, or BodyError with one line. Never raises anything else."""
    if not raw.strip():
        raise BodyError("the body must be a JSON object")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BodyError("the body must be UTF-8 JSON") from None
    if json_depth(text) > max_depth:
        raise BodyError(f"the body is nested deeper than {max_depth} levels")
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError):
        raise BodyError("the body must be a JSON object") from None
    if not isinstance(data, dict):
        raise BodyError("the body must be a JSON object")
    try:  # a \ud800 escape is valid JSON but no text: it would fail wherever it is written
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BodyError("the body's text must be Unicode characters (a lone \\ud800-style escape is not)") from None
    return data


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number here")


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("numbers must be finite")
    return value


def short(value: object, limit: int = ECHO) -> str:
    """`repr(value)` cut to `limit` characters (with '...' and the full length when cut), for
    a message that repeats what a client sent."""
    if isinstance(value, (dict, list)):
        text = f"a {'list' if isinstance(value, list) else 'JSON object'}"
        return text
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def cap(message: str, limit: int = 300) -> str:
    """A message cut to one short line (the last guard before it goes back to a phone)."""
    message = " ".join(str(message).split())
    return message if len(message) <= limit else message[:limit] + "..."


def is_scalar(value: Any) -> bool:
    """A JSON string, number, true/false or null: what a table option may be."""
    return value is None or isinstance(value, (str, int, float, bool))
