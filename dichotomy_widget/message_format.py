"""Fill a message template's named ``{placeholders}``, numbers written the way a language writes them.

One function shared by :mod:`.errors` (the English message of an error) and :mod:`.i18n` (the message
in the reader's language), so ``1000000`` reads ``1,000,000`` / ``1.000.000`` / ``1 000 000`` alike.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping

from babel.numbers import format_decimal

__all__ = ["fill"]

log = logging.getLogger(__name__)


def fill(template: str, params: Mapping[str, Any], lang: str = "en") -> str:
    """``template`` with ``params`` filled in (``str.format``); ints and floats formatted for ``lang``.

    A template that cannot take the parameters (a broken translation) is logged and shown unfilled,
    never raised: the message must still reach the reader.
    """
    if not params:
        return template
    shown = {k: (format_decimal(v, locale=lang) if isinstance(v, (int, float)) and not isinstance(v, bool)
                 else v) for k, v in params.items()}
    try:
        return template.format(**shown)
    except (KeyError, IndexError, ValueError) as exc:
        log.error("message template %r cannot take %s: %s", template[:60], sorted(params), type(exc).__name__)
        return template
