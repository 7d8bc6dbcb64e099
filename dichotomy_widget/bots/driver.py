"""Seating bots at a table and running them: each bot acts on its own seat view, after a short pause.

In a kernel (an asyncio loop is running) a bot waits ``pause`` seconds, like a person typing, while the
table shows "Robo is writing a clue…"; it then decides again from the newest view, so a move another
player made meanwhile is never undone. Without a loop (tests, benches, a plain script) bots act at once,
one after the other, until every bot waits for a person. A bot always has a move when it is its turn
(no clue left: an empty clue; nothing fits: a pass), so it never holds a table up.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import threading
import weakref
from typing import Any

from ..errors import BotUnavailable, DichotomyError, StaleAction
from .bot import LEVELS, Bot
from .knowledge import knowledge
from .relations import RelationSource, default_source

# A :class:`~dichotomy_widget.table.Table` and its ``SeatTicket`` (not imported: ``Table.add_bot`` imports
# this module, and the import graph has no cycle).
Table = Any
SeatTicket = Any

__all__ = ["BotDriver", "add_bot", "resume_bots", "bot_token", "driver_for", "check_playable", "DEFAULT_PAUSE"]

log = logging.getLogger(__name__)

#: A bot's pause before it acts, in seconds (drawn at random in this range), when a loop runs.
DEFAULT_PAUSE = (1.0, 2.5)

_DRIVERS: "weakref.WeakKeyDictionary[Any, BotDriver]" = weakref.WeakKeyDictionary()


def _fallback(action: dict[str, Any]) -> dict[str, Any] | None:
    """The move that cannot be refused in place of a refused one (no clue, a pass)."""
    if action["type"] == "clue":
        return {"type": "clue", "text": ""}
    if action["type"] == "guess":
        return {"type": "pass"}
    return None


class BotDriver:
    """Runs the bot seats of one table (one driver per table: see :func:`driver_for`)."""

    def __init__(self, table: "Table", pause: "float | tuple[float, float] | None" = None,
                 seed: int | None = None) -> None:
        self.table = table
        self.bots: dict[int, Bot] = {}
        low_high = DEFAULT_PAUSE if pause is None else pause
        self.pause: tuple[float, float] = (low_high, low_high) if isinstance(low_high, (int, float)) else tuple(low_high)  # type: ignore[assignment]
        self.rng = random.Random(seed)
        self.acted = 0
        self.refused = 0
        self._blocked: set[tuple[int, str]] = set()  # (seat, stage) where a bot was refused: it waits
        self._busy = False
        self._handle: Any = None
        self._unsubscribe = table.subscribe(self._changed)

    def add(self, seat: int, bot: Bot) -> None:
        """Let ``bot`` play ``seat`` from now on."""
        self.bots[seat] = bot
        self._changed(self.table)

    def next_move(self) -> tuple[int, dict[str, Any], str] | None:
        """The first bot seat with a move now: (seat, action, the view's stage)."""
        for seat, bot in sorted(self.bots.items()):
            if self.table.state.seat_record(seat) is None:  # removed in the lobby
                continue
            view = self.table.view(seat)
            if (seat, view["stage"]) in self._blocked:
                continue
            action = bot.decide(view)
            if action is not None:
                return seat, action, view["stage"]
        return None

    def step(self) -> bool:
        """Make one bot move, if a bot has one; True when a bot acted (or tried to)."""
        move = self.next_move()
        if move is None:
            return False
        seat, action, made_on = move
        try:
            self.table.act(seat, action, stage=made_on)
            self.acted += 1
        except StaleAction:
            log.debug("table %s: bot seat %s was overtaken (%s)", self.table.code, seat, action["type"])
        except DichotomyError as err:
            self.refused += 1
            self._blocked.add((seat, made_on))
            log.error("table %s: bot seat %s: its %s was refused (%s)", self.table.code, seat, action["type"], err.code)
            other = _fallback(action)
            if other is not None:
                try:
                    self.table.act(seat, other, stage=made_on)
                except DichotomyError as again:
                    log.error("table %s: bot seat %s: its %s was refused too (%s)", self.table.code, seat,
                              other["type"], again.code)
        return True

    def run(self, limit: int = 100_000) -> int:
        """Let the bots move until every one waits (for a person, or the game is over); the moves made."""
        moves = 0
        while moves < limit and self.step():
            moves += 1
        return moves

    def _delay(self) -> float:
        low, high = self.pause
        return self.rng.uniform(low, high) if high > 0 else 0.0

    def _changed(self, _table: "Table") -> None:
        if self._busy:
            return
        loop = _running_loop() if self.pause[1] > 0 else None
        if loop is None:
            self._busy = True
            try:
                self.run()
            finally:
                self._busy = False
            return
        if self._handle is None:
            self._handle = loop.call_later(self._delay(), self._tick)

    def _tick(self) -> None:
        self._handle = None
        try:
            self._busy = True
            moved = self.step()
        except Exception as err:  # noqa: BLE001 - a failing store must not kill the bots for good
            log.error("table %s: a bot move failed (%s)", self.table.code, type(err).__name__)
            moved = False
        finally:
            self._busy = False
        if moved:
            self._changed(self.table)

    def stop(self) -> None:
        """Stop running the bots (they keep their seats; the host can time them out)."""
        self._unsubscribe()
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


def _running_loop() -> Any:
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def driver_for(table: "Table", pause: "float | tuple[float, float] | None" = None) -> BotDriver:
    """The bot driver of ``table`` (made on first use)."""
    driver = _DRIVERS.get(table)
    if driver is None:
        driver = _DRIVERS[table] = BotDriver(table, pause=pause)
    return driver


def check_playable(lang: str, source: RelationSource | None = None, level: int = 2) -> None:
    """Raise :class:`BotUnavailable` when bots cannot play ``lang`` (no word relations) or ``level``."""
    if level not in LEVELS:
        raise BotUnavailable("A bot's level is {levels}.", code="bot_level",
                             params={"levels": ", ".join(map(str, LEVELS))})
    if not knowledge(source or default_source(), lang).playable:
        raise BotUnavailable("Bots cannot play in this language ({lang}) yet: there are no word relations "
                             "for it.", code="bot_language", params={"lang": lang})


def bot_token(secret: str, name: str, level: int) -> str:
    """The seat token of a bot called ``name`` at ``level``, derived from ``secret`` (the host token):
    a host page opened again recognises its bots by it (:func:`resume_bots`)."""
    from ..words import normalize

    message = f"dichotomy-bot:{level}:{normalize(name)}".encode("utf-8")
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def _token_hash(token: str) -> str:
    """What a store keeps of a seat token (the same digest as ``table.hash_token``)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _run(table: "Table", seat: int, level: int, pause: "float | tuple[float, float] | None",
         source: RelationSource) -> None:
    vocabulary = {word for card in table.state.deck for pair in card for word in pair}
    bot = Bot(knowledge(source, table.state.lang), vocabulary, level)
    driver = driver_for(table, pause)
    # In a kernel, build the Guesser's index ahead so a first guess never freezes the page (a practice
    # table's bots never guess: nothing to build).
    if driver.pause[1] > 0 and not table.state.fixed_guesser and _running_loop() is not None:
        threading.Thread(target=_warm, args=(bot, table.code), name="dichotomy-bot-warm", daemon=True).start()
    driver.add(seat, bot)


def _warm(bot: Bot, code: str) -> None:
    try:
        bot.warm()
    except Exception as err:  # noqa: BLE001 - the first guess builds it again, and says why if it fails
        log.warning("table %s: a bot's word index was not built ahead (%s)", code, type(err).__name__)


def add_bot(table: "Table", name: str, level: int = 2, pause: "float | tuple[float, float] | None" = None,
            source: RelationSource | None = None, secret: str | None = None) -> "SeatTicket":
    """Seat a bot called ``name`` at ``table`` (in the lobby) and run it from this kernel.

    ``level`` 1 to 3 (how much the bot recalls as a Guesser); ``pause`` its thinking time in seconds
    (a number or a range; 0: at once); ``source`` its word relations (default: the packaged ones);
    ``secret`` (the host token) lets a later kernel take the bot over (:func:`resume_bots`).
    :class:`BotUnavailable` when the table's language has no word relations.
    """
    source = source or default_source()
    table.refresh()
    check_playable(table.state.lang, source, level)
    ticket = table.join(name, token=bot_token(secret, name, level) if secret else None)
    _run(table, ticket.seat, level, pause, source)
    log.info("table %s: bot seat %s joined (level %s)", table.code, ticket.seat, level)
    return ticket


def resume_bots(table: "Table", secret: str, pause: "float | tuple[float, float] | None" = None,
                source: RelationSource | None = None) -> list[int]:
    """Run, from this kernel, the bots seated with ``secret`` (a host page opened again: its bots go on
    playing); the seats taken over. None when bots cannot play the table's language."""
    source = source or default_source()
    table.refresh()
    if not knowledge(source, table.state.lang).playable:
        return []
    driver = _DRIVERS.get(table)
    resumed = []
    for seat in table.state.seats:
        if driver is not None and seat.id in driver.bots:
            continue
        level = next((lv for lv in LEVELS if hmac.compare_digest(_token_hash(bot_token(secret, seat.name, lv)),
                                                                  seat.token_hash)), None)
        if level is not None:
            _run(table, seat.id, level, pause, source)
            resumed.append(seat.id)
    if resumed:
        log.info("table %s: this kernel runs bot seats %s again", table.code, resumed)
    return resumed
