"""A bot player: one decision function from a seat view to an action.

:meth:`Bot.decide` reads nothing but the view a person's browser would get for that seat, so a bot
cannot know what its seat may not see (privacy by construction). What it brings of its own is fixed
when it sits down: its language's word knowledge, its level and the deck's word list (the lesson's
vocabulary, sorted, so it says nothing about the deal).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping


from .knowledge import Knowledge, norm

__all__ = ["Bot", "LEVELS", "writer_index"]

#: Bot levels: how many neighbours of a word a Guesser bot recalls (None: all of them).
LEVELS: dict[int, int | None] = {1: 8, 2: 30, 3: None}


def writer_index(view: Mapping[str, Any]) -> int | None:
    """This seat's place among the round's writers (0: the Drawer), from the view's player list."""
    players = view.get("players") or []
    order = [p["seat"] for p in players]
    guesser = next((i for i, p in enumerate(players) if p.get("guesser")), None)
    you = (view.get("you") or {}).get("seat")
    if guesser is None or you not in order:
        return None
    writers = order[guesser + 1:] + order[:guesser]
    return writers.index(you) if you in writers else None


class Bot:
    """A bot's mind: ``decide(view)`` returns the action to send (a JSON dict) or None (wait)."""

    def __init__(self, knowledge: Knowledge, vocabulary: Iterable[str] = (), level: int = 2) -> None:
        self.knowledge = knowledge
        self.level = level
        self.depth = LEVELS.get(level, LEVELS[2])
        self.vocabulary = tuple(sorted({w for w in vocabulary if w}, key=lambda w: (norm(w), w)))
        self._index = None

    def decide(self, view: Mapping[str, Any]) -> dict[str, Any] | None:
        """The action this seat should send now, decided from its view alone; None to wait."""
        actions = view.get("actions") or []
        phase = view.get("phase")
        if "continue" in actions:  # read the recap first: a Drawer bot never cuts it short for others
            return {"type": "continue"}
        if "pick" in actions and phase == "reveal" and view.get("card"):
            return {"type": "pick", "pair": self.pick(view["card"])}
        if "clue" in actions and view.get("pair"):
            return {"type": "clue", "text": self.clue(view)}
        if "guess" in actions:
            guess = self.guess(view.get("clues") or [], view.get("history") or [])
            return {"type": "guess", "text": guess} if guess else {"type": "pass"}
        return None

    def pick(self, card: list[Mapping[str, Any]]) -> int:
        """The number of the pair with the most clues to give (the first of the best)."""
        best = max(card, key=lambda p: (min(len(self.knowledge.clues(p["target"], p["foil"])), 6), -p["number"]))
        return int(best["number"])

    def clue(self, view: Mapping[str, Any]) -> str:
        """The clue for this writer's place: bots take the ranked clues in writing order, so two bots
        never write the same one. "" (no clue) when none is left."""
        pair = view["pair"]
        ranked = self.knowledge.clues(pair["target"], pair["foil"])
        index = writer_index(view)
        return ranked[index] if index is not None and index < len(ranked) else ""

    def warm(self) -> None:
        """Build the Guesser's index of the deck now (seconds for a big deck), not on the first guess."""
        if self._index is None:
            self._index = self.knowledge.index(self.vocabulary, self.depth)

    def ranking(self, clues: list[str], history: Iterable[Mapping[str, Any]] = ()) -> list[tuple[float, str]]:
        """The deck's words not played yet that some clue fits, best first (score, word)."""
        played = {norm(w) for r in history for w in (r.get("target"), r.get("foil")) if w}
        self.warm()
        scores = self._index.scores(clues)  # type: ignore[union-attr]
        return sorted(((s, w) for w, s in scores.items() if s > 0 and norm(w) not in played),
                      key=lambda sw: (-sw[0], norm(sw[1])))

    def guess(self, clues: list[str], history: Iterable[Mapping[str, Any]] = ()) -> str:
        """The deck word that fits the clues best, or "" (pass) when nothing fits."""
        ranked = self.ranking(clues, history) if clues else []
        return ranked[0][1] if ranked else ""
