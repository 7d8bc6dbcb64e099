"""Jupyter widgets for Dichotomy (anywidget): one seat, the projector/host screen, and pass-and-play.

Who is who lives in the kernel. A widget's seat is a plain Python attribute, never a synced trait, and
the browser can only *ask*: intents go up as custom messages ``{"id": n, "type": "clue", "text": ...,
"stage": ...}`` (``stage``: the view's ``stage`` the click was made on; an intent whose step of the game
has ended is refused with code ``stale_action`` instead of being applied to the next step) and the
kernel answers ``{"ack": n}`` or ``{"refused": n, "code": ..., "message": ...}``. Every synced
trait is written by the kernel only; a state update sent by a browser is dropped and the true state is
sent back (see :meth:`_DichotomyWidget.set_state`).

What a widget syncs is exactly what :meth:`Table.view` returns for its seat (``None`` for the
projector), so the filtering rules of ``views.py`` are the only privacy rules.

Language: a widget speaks ``lang`` (default: the table's interface language). The kernel syncs the
``dichotomy`` message catalogue of that language in the ``i18n`` trait (``Translator.catalog()`` plus
``languages``, the menu's choices) and writes the view's sentences in it; the browser's language menu
sends ``{"type": "set_language", "lang": "fr"}``, checked here. It changes that one widget (one
student's screen), never the table. Refusals are worded in the widget's language; codes do not change.

Pass-and-play (:class:`PassAndPlayWidget`) shows one table on one screen. Before every private screen
(the Drawer's pick, each writer's clue, the Guesser's guess) it drops a curtain naming the next player;
while the curtain is down the synced ``view`` is empty. The recap and the final screen are public: they
are shown once to everybody and one **Continue** confirms the recap for every seat.
"""

from __future__ import annotations

import asyncio
import threading
import logging
from functools import lru_cache
from typing import Any

import anywidget
import traitlets

from ..errors import DichotomyError, SeatNotFound, where
from ..i18n import LANGUAGE_NAMES, N_, normalize_language, translator
from ..logs import log_failure, served_logging
from ..rules import action_types
from . import widget_code
from .widget_code import JS_DIR

__all__ = ["SeatWidget", "TableWidget", "PassAndPlayWidget", "JS_DIR"]

log = logging.getLogger(__name__)


INTERNAL_ERROR = N_("Something went wrong in the kernel; please try again.")
NOT_UNDERSTOOD = N_("That button sent something the game does not understand.")
#: The curtain's task, by phase (pass-and-play), in English; shown through the widget's translator.
CURTAIN_TASK = {"reveal": N_("pick this round's pair"), "clues": N_("write a clue"), "guess": N_("guess the word")}


@lru_cache(maxsize=None)
def _catalogue(lang: str) -> dict[str, Any]:
    """What the browser needs to speak ``lang``: the catalogue and the language menu's choices."""
    return {**translator(lang).catalog(), "languages": [[code, name] for code, name in LANGUAGE_NAMES.items()]}


def _checked_language(lang: Any) -> str:
    """``lang`` as an interface language code; a clear refusal for anything else (never trusted)."""
    code = normalize_language(lang)
    if code is None:
        shown = lang[:20] if isinstance(lang, str) else "?"
        raise DichotomyError("This screen can speak {languages}; “{lang}” is not one of them.",
                             code="unknown_language",
                             params={"languages": ", ".join(LANGUAGE_NAMES.values()), "lang": shown})
    return code


def _message_id(content: Any) -> Any:
    """The intent's ``id``, echoed back only when it is a small JSON scalar."""
    mid = content.get("id") if isinstance(content, dict) else None
    if isinstance(mid, bool) or not isinstance(mid, (int, str)):
        return None
    if isinstance(mid, str) and len(mid) > 64:
        return None
    return mid


def _made_on(content: dict[str, Any]) -> str | None:
    """The ``stage`` an intent says it was made on, when it is a short string."""
    made_on = content.get("stage")
    return made_on if isinstance(made_on, str) and len(made_on) <= 64 else None


def _start_watching(table: Any) -> None:
    """Follow other kernels (voila, several tabs) when an asyncio loop is running; else do nothing."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    try:
        table.start_watching()
    except Exception as err:  # noqa: BLE001 - a store without a change feed still plays in one kernel
        log.warning("table %s: cannot follow other kernels (%s)", getattr(table, "code", "?"), where(err))


class _DichotomyWidget(anywidget.AnyWidget):
    """Shared plumbing: kernel-owned state, message ids, acks and refusals, subscription."""

    # inline in JupyterLab and Notebook; a small loader behind ``dichotomy serve`` (.widget_code)
    _esm = widget_code.esm()
    _css = widget_code.css()

    kind = traitlets.Unicode("seat").tag(sync=True)
    view = traitlets.Dict().tag(sync=True)
    #: Why the table store cannot be written now (full disk, read-only file), or "": shown by every
    #: page watching the table, not only by the one whose action failed (``Table.store_trouble``).
    store_trouble = traitlets.Unicode("").tag(sync=True)
    #: The language this screen speaks (kernel-owned; pages may observe it).
    lang = traitlets.Unicode("en").tag(sync=True)
    #: The ``dichotomy`` catalogue of ``lang`` for the browser (kernel-owned, restored if overwritten).
    i18n = traitlets.Dict().tag(sync=True)

    def __init__(self, table: Any, lang: str | None = None, **kwargs: Any) -> None:
        served_logging()  # in a kernel of ``dichotomy serve``: its lines reach the terminal (and kernel log)
        self._lang = _checked_language(lang) if lang else table.interface_lang
        super().__init__(**kwargs)
        self._table = table
        self._latest: dict[str, Any] = {}
        self._syncing = False
        # JupyterLab sends widget messages on a kernel subshell (its own thread) while bots and the store
        # watch run on the main loop: a view is computed and set under one lock, so the newest lands last.
        self._sync_lock = threading.RLock()
        self.last_reply: dict[str, Any] | None = None  # the last ack/refusal (handy in tests)
        self._unsubscribe = table.subscribe(self._on_table_change)
        self.on_msg(self._on_msg)
        self._sync()
        _start_watching(table)

    # --- kernel-owned state --------------------------------------------------------------------
    @property
    def table(self) -> Any:
        """The :class:`~dichotomy_widget.Table` this widget shows."""
        return self._table

    @property
    def tr(self) -> Any:
        """The :class:`~dichotomy_widget.i18n.Translator` of this screen's language."""
        return translator(self._lang)

    def set_language(self, lang: Any) -> None:
        """Speak ``lang`` from now on (this widget only); :class:`DichotomyError` for an unknown code."""
        self._lang = _checked_language(lang)
        self._sync()

    def _state(self) -> dict[str, Any]:
        """The synced traits as the kernel wants them now (subclasses add their own)."""
        raise NotImplementedError

    def _trouble(self) -> str:
        err = getattr(self._table, "store_trouble_error", None)
        if err is not None:
            return self.tr.error(err)
        return str(getattr(self._table, "store_trouble", "") or "")

    def _sync(self) -> None:
        with self._sync_lock:
            state = {"lang": self._lang, "i18n": _catalogue(self._lang), **self._state(),
                     "store_trouble": self._trouble()}
            self._latest = state
            self._syncing = True
            try:
                with self.hold_sync():
                    for name, value in state.items():
                        setattr(self, name, value)
            finally:
                self._syncing = False

    def _on_table_change(self, _table: Any) -> None:
        if getattr(self, "_unsubscribe", None) is None:  # closed
            return
        self._sync()

    @traitlets.observe("view", "i18n", "lang")
    def _restore_view(self, change: dict[str, Any]) -> None:
        """Only the kernel writes ``view``, ``i18n`` and ``lang``: anything else is overwritten."""
        if not self._syncing and change["new"] != self._latest.get(change["name"]):
            self._sync()

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """A state update from a browser: ignored, and the true values are sent back.

        The front end never needs to write a trait (it sends intents as messages), so any update is
        either a bug or a forgery. Dropping it keeps identity and hidden words in the kernel.
        """
        keys = [k for k in sync_data if k in self.keys]
        if keys:
            self.send_state(keys)

    def close(self) -> None:
        """Stop following the table, then close the widget."""
        unsubscribe, self._unsubscribe = getattr(self, "_unsubscribe", None), None
        if unsubscribe is not None:
            unsubscribe()
        super().close()

    # --- messages -------------------------------------------------------------------------------
    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        mid = _message_id(content)
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            self._reply({"refused": mid, "code": "invalid_action", "message": self.tr.gettext(NOT_UNDERSTOOD)})
            return
        try:
            if content["type"] == "set_language":
                self.set_language(content.get("lang"))
            elif content["type"] == "send_view":
                self._send_view_again(content)
            else:
                self._handle(content)
        except DichotomyError as err:
            self._reply({"refused": mid, **self.tr.error_dict(err)})
        except Exception as err:  # noqa: BLE001 - never leak internals (or hidden words) to the browser
            log.error("table %s: a %s intent failed (%s)", self._table.code, content["type"][:30], where(err))
            self._reply({"refused": mid, "code": "internal_error", "message": self.tr.gettext(INTERNAL_ERROR)})
        else:
            self._reply({"ack": mid})

    def _send_view_again(self, content: dict[str, Any]) -> None:
        """A screen asks for the kernel's traits again (``send_view``), which are sent unless it says it
        shows the kernel's ``version`` already (once the kernel caught up with the store). A screen
        without a view asks every few seconds (seen on a loaded machine: a class seat stayed on
        "Connecting to the table…"); one with a view tells its version every few seconds (a projector
        stayed a phase behind). So an update it missed is sent anew."""
        with self._sync_lock:
            if "version" in content:
                self._catch_up()
                if content["version"] == self._shown_version():
                    return
                log.info("table %s: a screen was behind the table: its view is sent again", self._table.code)
            else:
                log.info("table %s: a screen asked for its view again", self._table.code)
            self.send_state(list(self._latest))

    def _catch_up(self) -> None:
        """Fold what other kernels appended now (a missed store notice waits for the watch's recheck):
        a screen checking its version finds its kernel up to date too. A store error is only logged."""
        try:
            self._table.refresh()
        except DichotomyError as err:
            log_failure(log, "table %s: catching up with the store failed", err, self._table.code,
                        level=logging.INFO)

    def _shown_version(self) -> Any:
        """The version of the view (or pass-and-play curtain) last synced; None for one without."""
        for key in ("view", "curtain"):
            shown = self._latest.get(key) or {}
            if "version" in shown:
                return shown["version"]
        return None

    def _reply(self, message: dict[str, Any]) -> None:
        self.last_reply = message
        self.send(message)

    def _handle(self, content: dict[str, Any]) -> None:
        raise NotImplementedError

    @staticmethod
    def _action(content: dict[str, Any]) -> dict[str, Any]:
        """The engine action inside a widget message (without the widget's ``id`` and ``stage``)."""
        return {k: v for k, v in content.items() if k not in ("id", "stage")}

    def _act(self, seat: int | None, content: dict[str, Any]) -> None:
        """Hand the intent to the table, with the stage it was made on (if the browser sent one)."""
        self._table.act(seat, self._action(content), stage=_made_on(content))

    def _names(self) -> list[str]:
        return [p["name"] for p in self._table.view(None)["players"]]

    def _repr_phase(self) -> str:
        return self._table.view(None)["phase"]


class SeatWidget(_DichotomyWidget):
    """One seat's screen: syncs only ``table.view(seat)``; the seat id never leaves the kernel.

    ``who`` is the seat's id, its player's name or its :class:`~dichotomy_widget.SeatTicket`:
    ``SeatWidget(table, "Ada")``.
    """

    def __init__(self, table: Any, who: Any, lang: str | None = None) -> None:
        self._seat = table.seat_id(who)  # SeatNotFound for an unknown seat, before any widget exists
        super().__init__(table, lang, kind="seat")

    @property
    def seat(self) -> int:
        """The seat this widget plays for (read-only, kernel side)."""
        return self._seat

    def _state(self) -> dict[str, Any]:
        try:
            return {"view": self._table.view(self._seat, self._lang)}
        except SeatNotFound:  # the host removed this seat in the lobby
            return {"view": {"phase": "gone", "status": self.tr.gettext(
                                 "This seat is no longer at the table. Ask the teacher."),
                             "you": None, "players": [], "actions": []}}

    def _handle(self, content: dict[str, Any]) -> None:
        if content["type"] not in action_types("seat"):
            raise DichotomyError("That is not something a player can do.", code="not_allowed")
        self._act(self._seat, content)

    def __repr__(self) -> str:
        view = self._state()["view"]
        name = view["you"]["name"] if view.get("you") else None
        return (f"SeatWidget(table={self._table.code!r}, seat={self._seat}, "
                f"name={name!r}, phase={view['phase']!r})")


class TableWidget(_DichotomyWidget):
    """The public screen for a projector, with the host's buttons (``host=True``).

    It syncs ``table.view(None)``, which never holds a hidden word, so the Guesser may watch it.
    """

    host = traitlets.Bool(True).tag(sync=True)
    #: The table's name in its class ("2": Table 2), shown instead of its code; "" for a table of its own.
    name = traitlets.Unicode("").tag(sync=True)

    def __init__(self, table: Any, host: bool = True, lang: str | None = None) -> None:
        self._host = bool(host)
        super().__init__(table, lang, kind="table", host=self._host)

    def _state(self) -> dict[str, Any]:
        return {"view": self._table.view(None, self._lang), "host": self._host}

    def _handle(self, content: dict[str, Any]) -> None:
        if content["type"] not in action_types("host"):
            raise DichotomyError("The projector screen only has the host's buttons.", code="not_allowed")
        if not self._host:
            raise DichotomyError("This screen is a projector without host buttons.", code="host_only")
        self._act(None, content)

    def __repr__(self) -> str:
        return (f"TableWidget(table={self._table.code!r}, players={self._names()!r}, "
                f"phase={self._repr_phase()!r}, host={self._host})")


class PassAndPlayWidget(_DichotomyWidget):
    """The whole table on one screen, with a curtain before each private screen.

    The kernel decides whose screen comes next from the public view: the Drawer in ``reveal``, the
    current writer in ``clues``, the Guesser in ``guess``. ``lobby``, ``recap`` and ``over`` are public.
    While the curtain is down, ``view`` is empty and ``curtain`` holds only a name and a task. Tapping
    the curtain (message ``{"type": "lift", "seat": n}``) fills ``view`` with that seat's view. When the
    screen's owner changes, the curtain drops again. One **Continue** on the public recap confirms it for
    every seat (message ``{"type": "continue_all"}``).
    """

    curtain = traitlets.Dict().tag(sync=True)

    def __init__(self, table: Any, lang: str | None = None) -> None:
        self._lifted: int | None = None
        super().__init__(table, lang, kind="pass")

    @property
    def lifted(self) -> int | None:
        """The seat whose private screen is showing, or None (curtain down or a public screen)."""
        return self._lifted

    @staticmethod
    def _owner(public: dict[str, Any]) -> int | None:
        phase = public["phase"]
        players = public["players"]
        if phase == "reveal":
            return next((p["seat"] for p in players if p["drawer"]), None)
        if phase == "clues":
            return public["turn"]
        if phase == "guess":
            return next((p["seat"] for p in players if p["guesser"]), None)
        return None

    def _state(self) -> dict[str, Any]:
        public = self._table.view(None, self._lang)
        owner = self._owner(public)
        if owner is None:
            self._lifted = None
            return {"view": public, "curtain": {}}
        if self._lifted == owner:
            return {"view": self._table.view(owner, self._lang), "curtain": {}}
        self._lifted = None
        names = {p["seat"]: p["name"] for p in public["players"]}
        guesser = next((p["name"] for p in public["players"] if p["guesser"]), "")
        task = self.tr.gettext(CURTAIN_TASK[public["phase"]])
        return {"view": {}, "curtain": {
            "seat": owner, "name": names.get(owner, "?"), "task": task, "phase": public["phase"],
            "guesser": guesser, "round": public["round"], "rounds": public["rounds"],
            "score": public["score"], "deck_left": public["deck_left"], "version": public["version"],
        }}

    def _handle(self, content: dict[str, Any]) -> None:
        kind = content["type"]
        if kind == "lift":
            with self._sync_lock:  # whose screen shows changes only under the lock its views are made in
                public = self._table.view(None)
                owner = self._owner(public)
                if owner is None or content.get("seat") != owner:
                    self._sync()
                    raise DichotomyError("The table moved on. Check the name and tap again.", code="stale_curtain")
                self._lifted = owner
                self._sync()
        elif kind == "hide":
            with self._sync_lock:
                self._lifted = None
                self._sync()
        elif kind == "continue_all":
            self._table.check_stage(_made_on(content))
            public = self._table.view(None)
            if public["phase"] != "recap":
                raise DichotomyError("There is no recap to continue from.", code="wrong_phase")
            for player in public["players"]:
                if not player["confirmed"]:
                    self._table.act(player["seat"], {"type": "continue"})
        elif kind in ("start", "end"):
            self._table.act(None, {"type": kind}, stage=_made_on(content))
        elif kind in action_types("seat"):
            if self._lifted is None:
                raise DichotomyError("Tap the screen with your name first.", code="curtain_down")
            self._act(self._lifted, content)
        else:
            raise DichotomyError("That is not something this screen can do.", code="not_allowed")

    def __repr__(self) -> str:
        return (f"PassAndPlayWidget(table={self._table.code!r}, players={self._names()!r}, "
                f"phase={self._repr_phase()!r})")
