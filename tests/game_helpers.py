"""Helpers shared by the engine tests: a deck of distinctive words and short ways to play a round."""

from __future__ import annotations

from dataclasses import fields

from dichotomy_widget import Table, rules
from dichotomy_widget.decks import Card, Deck, Pair

# Real, unrelated words so the matcher treats each as its own word; one card per row.
WORDS = [
    ("river", "lake"), ("violin", "cello"), ("coffee", "tea"), ("winter", "summer"), ("doctor", "nurse"),
    ("apple", "pear"), ("castle", "palace"), ("rabbit", "hare"), ("train", "tram"), ("pencil", "crayon"),
    ("island", "beach"), ("candle", "lamp"), ("garden", "park"), ("thunder", "lightning"), ("spoon", "fork"),
    ("tiger", "lion"), ("bread", "toast"), ("mountain", "hill"), ("shirt", "jacket"), ("piano", "organ"),
    ("desert", "dune"), ("bottle", "jar"), ("farmer", "shepherd"), ("rocket", "plane"), ("cheese", "butter"),
    ("wolf", "fox"), ("bridge", "tunnel"), ("glove", "mitten"), ("clock", "watch"), ("honey", "jam"),
    ("forest", "jungle"), ("kettle", "teapot"), ("soldier", "knight"), ("cloud", "fog"), ("sugar", "salt"),
    ("horse", "donkey"), ("ladder", "stairs"), ("pirate", "sailor"), ("mirror", "window"), ("orange", "lemon"),
    ("camera", "phone"), ("dragon", "dinosaur"), ("pillow", "blanket"), ("library", "bookshop"),
    ("market", "fair"), ("whale", "dolphin"), ("helmet", "hat"), ("carrot", "potato"),
    ("volcano", "earthquake"), ("teacher", "professor"),
]
assert len(WORDS) % 5 == 0


def word_deck(lang: str = "en") -> Deck:
    """A ten-card deck whose words are all distinct real words."""
    cards = tuple(Card(tuple(Pair(t, f) for t, f in WORDS[i:i + 5])) for i in range(0, len(WORDS), 5))
    return Deck(name="test words", lang=lang, cards=cards)


def new_game(players: int = 3, rounds: int = 5, seed: int = 7, **kwargs) -> tuple[Table, list]:
    """A started table with ``players`` seats named P0, P1, ..."""
    table = Table.create(deck=word_deck(), seed=seed, rounds=rounds, **kwargs)
    tickets = [table.join(f"P{i}") for i in range(players)]
    table.start()
    return table, tickets


def lock(table: Table, pair: int = 1) -> None:
    """The Drawer locks ``pair`` (1..5)."""
    table.act(table.state.drawer, {"type": "pick", "pair": pair})


def write(table: Table, clues: list[str]) -> None:
    """Every writer in turn submits the next clue of ``clues`` ("" is a timeout)."""
    assert len(clues) == len(table.state.writers)
    for text in clues:
        table.act(table.state.current_writer, {"type": "clue", "text": text})


def guess(table: Table, text: str) -> None:
    """The Guesser guesses ``text``."""
    table.act(table.state.guesser, {"type": "guess", "text": text})


def confirm_all(table: Table) -> None:
    """Every seat that has not yet pressed Continue presses it."""
    for seat in table.state.order:
        if seat not in table.state.confirmed and table.state.phase == "recap":
            table.act(seat, {"type": "continue"})


def unique_clues(table: Table) -> list[str]:
    """Clues that match nothing on the table: one distinct word per writer."""
    pool = ["zebra", "anchor", "velvet", "compass", "meadow", "trumpet", "saddle"]
    return pool[: len(table.state.writers)]


def play_round(table: Table, outcome: str, pair: int = 1) -> None:
    """Play one whole round ending in ``outcome`` (correct, wrong, foil, pass), then confirm all."""
    lock(table, pair)
    write(table, unique_clues(table))
    text = {"correct": table.state.target, "foil": table.state.foil, "wrong": "saxophone", "pass": ""}[outcome]
    guess(table, text)
    confirm_all(table)


def fresh_state(state: rules.GameState) -> rules.GameState:
    """A fresh copy of ``state``: its fields only, nothing it remembers about itself carried over."""
    return rules.GameState(**{f.name: getattr(state, f.name) for f in fields(rules.GameState)})


def fresh_legal_moves(state: rules.GameState) -> list[tuple[int, str]]:
    """The legal moves of :func:`fresh_state` of ``state``, from :func:`rules.allowed_actions` seat by
    seat: what :func:`rules.legal_moves` must answer."""
    fresh = fresh_state(state)
    return [(s, k) for s in fresh.order for k in rules.allowed_actions(fresh, s)]
