"""The page's words in each language: one JSON catalogue per language (web/i18n/<lang>.json).

A catalogue maps a key to a text with `{name}` placeholders. The same catalogue serves the
templates (`t("nav.table")`) and the page's script (embedded in each page, read by its own
`t()`), so a text lives in one place. A key ending in `_one` is the singular of the key
without it (`tbl.cards` / `tbl.cards_one`). The browser's Accept-Language picks the language
until the phone chooses one on the page (a cookie).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

CATALOGUES = Path(__file__).resolve().parent / "i18n"
LANGS: tuple[str, ...] = ("en", "it")
DEFAULT_LANG = "en"
LANG_COOKIE = "uno_lang"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """The texts of `lang` (a copy is never needed: callers only read)."""
    if lang not in LANGS:
        raise KeyError(f"no catalogue for language {lang!r}: one of {', '.join(LANGS)}")
    return json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def catalogue_json(lang: str) -> str:
    """The catalogue as compact JSON, for embedding in a page."""
    # "<" escaped: the JSON sits inside a <script> element
    return json.dumps(catalogue(lang), ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def _arg(lang: str, name: str, value: Any) -> str:
    """An argument as words: card names and colours are translated like the page does."""
    texts = catalogue(lang)
    if isinstance(value, list):
        return ", ".join(_arg(lang, name, v) for v in value)
    if name in ("card", "cards", "top") and isinstance(value, str):
        return card_label(value, lang)
    if name == "color" and isinstance(value, str):
        return texts.get(f"color.{value}", value)
    if name == "phase" and isinstance(value, str):
        return texts.get(f"what.{value}", value)
    if name == "option" and isinstance(value, str):
        return texts.get(f"opt.{value}", value)
    if name == "zone" and isinstance(value, str):
        return texts.get(f"host.zones.{value}", value)
    return str(value)


def card_label(name: str, lang: str = DEFAULT_LANG) -> str:
    """A card name in words, built from its parts (so a new deck's names need only their
    symbol's words): "red_draw_two" -> "red draw two" / "Pesca due rosso"."""
    texts = catalogue(lang)
    color, _, symbol = name.partition("_")
    if f"color.{color}" not in texts or not symbol:
        return texts.get(f"sym.{name}", name.replace("_", " "))
    words = texts.get(f"sym.{symbol}", symbol.replace("_", " "))
    return texts["card.fmt"].format(color=texts[f"color.{color}"], symbol=words)


def t(key: str, lang: str = DEFAULT_LANG, args: Mapping[str, Any] | None = None) -> str:
    """The text of `key` in `lang`, its placeholders filled from `args`. A missing key is a
    KeyError: tests check that every key used is in every catalogue."""
    text = catalogue(lang)[key]
    values = {k: _arg(lang, k, v) for k, v in (args or {}).items()}
    if values.get("n") == "1" and f"{key}_one" in catalogue(lang):
        text = catalogue(lang)[f"{key}_one"]
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def pick_lang(cookie: str | None, accept: Any = None) -> str:
    """The phone's chosen language (cookie), else the browser's best match, else English."""
    if cookie in LANGS:
        return str(cookie)
    if accept is not None:
        best = accept.best_match(LANGS)
        if best:
            return str(best)
    return DEFAULT_LANG
