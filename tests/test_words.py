"""Table-driven tests for dichotomy_widget.words (variant matching in en, es, fr, de, it, pt)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dichotomy_widget.words import matcher as words
from dichotomy_widget.words import REASON_TEXT, guess_reason, is_variant, normalize, variant_reason
from dichotomy_widget.wordsdata import tables

DECKS = Path(words.__file__).resolve().parent.parent / "decks"

# (a, b, lang, expected reason for clues)
VARIANTS = [
    # identical after trimming, NFKC and case folding
    ("River", " river ", "en", "same"),
    ("ＲＩＶＥＲ", "river", "en", "same"),  # full-width letters (NFKC)
    ("ﬁsh", "fish", "en", "same"),  # ligature (NFKC)
    ("ÉCOLE", "école", "fr", "same"),
    ("Straße", "STRASSE", "de", "same"),  # ß case-folds to ss
    ("e\u0301cole", "école", "fr", "same"),  # combining accent vs precomposed
    # English inflections, regular and irregular
    ("rivers", "river", "en", "inflection"),
    ("mice", "mouse", "en", "inflection"),
    ("ran", "run", "en", "inflection"),
    ("went", "go", "en", "inflection"),
    ("children", "child", "en", "inflection"),
    ("geese", "goose", "en", "inflection"),
    ("bigger", "big", "en", "inflection"),
    ("better", "good", "en", "inflection"),
    ("was", "be", "en", "inflection"),
    ("leaves", "leaf", "en", "inflection"),
    ("stopped", "stopping", "en", "inflection"),
    # English families
    ("prince", "princess", "en", "family"),
    ("teach", "teacher", "en", "family"),
    ("happy", "unhappiness", "en", "family"),
    ("decide", "decision", "en", "family"),
    ("careful", "carefully", "en", "family"),
    ("kindness", "kind", "en", "family"),
    ("king", "kingdom", "en", "family"),
    ("actress", "actor", "en", "family"),
    # English spelling variants
    ("colour", "color", "en", "spelling"),
    ("organise", "organize", "en", "spelling"),
    ("theatre", "theater", "en", "spelling"),
    ("travelled", "traveled", "en", "spelling"),
    ("analyse", "analyze", "en", "spelling"),
    ("catalogue", "catalog", "en", "spelling"),
    ("defence", "defense", "en", "spelling"),
    # Italian: number and gender, regular verbs (found by rule, not listed), strong verbs, clitics
    ("gatti", "gatto", "it", "inflection"),
    ("case", "casa", "it", "inflection"),
    ("uova", "uovo", "it", "inflection"),
    ("tremende", "tremendo", "it", "inflection"),
    ("parlavamo", "parlare", "it", "inflection"),
    ("mangerò", "mangiare", "it", "inflection"),
    ("cerchi", "cercare", "it", "inflection"),
    ("finisco", "finire", "it", "inflection"),
    ("divisi", "dividere", "it", "inflection"),
    ("lessi", "leggere", "it", "inflection"),
    ("andai", "andare", "it", "inflection"),
    ("presentarsi", "presentare", "it", "inflection"),
    ("felicemente", "felice", "it", "family"),
    ("lavoratore", "lavorare", "it", "family"),
    ("incapace", "capace", "it", "family"),
    ("città", "citta", "it", "accents"),
    # Portuguese
    ("gatos", "gato", "pt", "inflection"),
    ("gata", "gato", "pt", "inflection"),
    ("professora", "professor", "pt", "inflection"),
    ("canções", "canção", "pt", "inflection"),
    ("animais", "animal", "pt", "inflection"),
    ("falámos", "falar", "pt", "inflection"),
    ("cantássemos", "cantar", "pt", "inflection"),
    ("fique", "ficar", "pt", "inflection"),
    ("conheço", "conhecer", "pt", "inflection"),
    ("fiz", "fazer", "pt", "inflection"),
    ("lembrar-se", "lembrar", "pt", "inflection"),
    ("rapidamente", "rápido", "pt", "family"),
    ("trabalhador", "trabalhar", "pt", "family"),
    ("infeliz", "feliz", "pt", "family"),
    # Spanish
    ("tengo", "tener", "es", "inflection"),
    ("casas", "casa", "es", "inflection"),
    ("canté", "cantar", "es", "inflection"),
    ("duermo", "dormir", "es", "inflection"),
    ("gato", "gata", "es", "inflection"),
    ("niños", "niño", "es", "inflection"),
    ("rápidamente", "rápido", "es", "family"),
    ("infeliz", "feliz", "es", "family"),
    ("felicidad", "feliz", "es", "family"),
    ("panadero", "pan", "es", "family"),
    ("cafe", "café", "es", "accents"),  # a learner without an accent key
    # French
    ("suis", "être", "fr", "inflection"),
    ("allé", "aller", "fr", "inflection"),
    ("yeux", "œil", "fr", "inflection"),
    ("chevaux", "cheval", "fr", "inflection"),
    ("belle", "beau", "fr", "inflection"),
    ("émus", "émouvoir", "fr", "inflection"),
    ("acquis", "acquérir", "fr", "inflection"),
    ("pris", "prendre", "fr", "inflection"),
    ("chanteur", "chanter", "fr", "family"),
    ("rapidement", "rapide", "fr", "family"),
    # German
    ("ging", "gehen", "de", "inflection"),
    ("gegangen", "gehen", "de", "inflection"),
    ("Häuser", "Haus", "de", "inflection"),
    ("Kinder", "Kind", "de", "inflection"),
    ("besser", "gut", "de", "inflection"),
    ("Katze", "Katzen", "de", "inflection"),
    ("Freundin", "Freund", "de", "family"),
    ("Schönheit", "schön", "de", "family"),
    ("unglücklich", "glücklich", "de", "family"),
    ("Glück", "Glücklichkeit", "de", "family"),
    ("Bäcker", "backen", "de", "family"),
    ("Halbmond", "Mond", "de", "family"),
    ("Bahnhof", "Hof", "de", "compound"),
    ("Geburtstag", "Tag", "de", "compound"),  # linking -s-
    ("Sonnenschein", "Schein", "de", "compound"),  # linking -n-
    # found while developing: lexicon gaps covered by rules
    ("levante", "levantar", "es", "inflection"),  # listed as a noun; regular -ar paradigm
    ("desembarque", "desembarcar", "es", "inflection"),  # c -> qu before e
    ("ferme", "fermer", "fr", "inflection"),
    ("allège", "alléger", "fr", "inflection"),  # é -> è
    ("parais", "paraître", "fr", "inflection"),  # -aître class
    ("précieusement", "précieux", "fr", "family"),  # adverb from the feminine
    ("aufgemacht", "aufmachen", "de", "inflection"),  # separable prefix participle
    ("Künstler", "Kunst", "de", "family"),  # umlaut in derivation
    ("counsellor", "counselor", "en", "spelling"),
    ("tyres", "tires", "en", "spelling"),
    # gender and number from the hunspell paradigms (fr, es)
    ("martyr", "martyre", "fr", "inflection"),
    ("tailleur", "tailleuse", "fr", "inflection"),
    ("enchanteur", "enchanteresse", "fr", "inflection"),
    ("cher", "chères", "fr", "inflection"),
    ("vif", "vives", "fr", "inflection"),
    ("tío", "tía", "es", "inflection"),
    ("novio", "novias", "es", "inflection"),
    ("grabador", "grabadora", "es", "inflection"),
    ("comprándote", "comprar", "es", "inflection"),  # enclitic pronouns
    ("castorcillo", "castor", "es", "family"),  # hunspell's derivation classes give family links
    # German participles filed as adjectives belong to their verb
    ("plombiertem", "plombieren", "de", "inflection"),
    ("verhagelnde", "verhageln", "de", "inflection"),
    ("gefeiert", "feiern", "de", "inflection"),
    ("corruptest", "corrupt", "en", "inflection"),  # unknown superlative
    ("readable", "read", "en", "family"),  # -able rule
    ("stability", "stable", "en", "family"),  # WordNet link (no -ity rule)
    ("grandir", "grand", "fr", "family"),  # second-group verb from an adjective
    ("fleurir", "fleur", "fr", "family"),
]

# different words that share a stem, a prefix or all but one letter
NOT_VARIANTS = [
    ("universe", "university", "en"),
    ("organ", "organization", "en"),
    ("general", "generous", "en"),
    ("inform", "form", "en"),
    ("invent", "vent", "en"),
    ("discover", "cover", "en"),
    ("present", "sent", "en"),
    ("four", "for", "en"),
    ("star", "start", "en"),
    ("sun", "son", "en"),
    ("cat", "dog", "en"),
    ("pero", "pera", "es"),
    ("el", "él", "es"),  # article vs pronoun: both real words, the accent matters
    ("casa", "caso", "es"),
    ("libro", "libre", "es"),
    ("mesa", "misa", "es"),
    ("pape", "papa", "fr"),
    ("mère", "mer", "fr"),
    ("schön", "schon", "de"),  # both real words
    ("Rauchen", "brauchen", "de"),
    ("vena", "venir", "es"),
    ("Legende", "Ende", "de"),  # "leg" is only an inflected form, not a compound's first word
    ("Schwein", "Wein", "de"),
    ("Heirat", "Rat", "de"),  # venir is irregular: its endings are not trusted
    ("casa", "caso", "es"),  # both forms of "casar", but two different nouns
    ("marche", "marché", "fr"),  # both forms of "marcher"
    ("recht", "Rechen", "de"),  # also "er recht" (rakes), but as a word it is the adjective
    ("mot", "moteur", "fr"),
    ("department", "depart", "en"),  # no -ment rule: its links were false friends
    ("pigment", "pig", "en"),
    ("soupir", "soupe", "fr"),
    ("Weinglas", "Weinkeller", "de"),  # same first part, different heads  # a third-group -ir is no suffix
    ("avenir", "aven", "fr"),
    # Italian and Portuguese false friends: gender or vowel pairs of unrelated nouns (checked in
    # the Zingarelli / Priberam sense lists), and Italian invariant words unknown to the lexicon
    ("pasta", "pasto", "it"),
    ("colla", "collo", "it"),
    ("caso", "casa", "it"),
    ("mela", "melo", "it"),
    ("foglia", "foglio", "it"),
    ("moda", "modo", "it"),
    ("testa", "testo", "it"),
    ("punta", "punto", "it"),
    ("pero", "pera", "it"),
    ("così", "coso", "it"),
    ("legenda", "legare", "it"),
    ("porta", "porto", "pt"),
    ("bola", "bolo", "pt"),
    ("casa", "caso", "pt"),
    ("cola", "colo", "pt"),
    ("pasta", "pasto", "pt"),
    ("sela", "selo", "pt"),
    ("conta", "conto", "pt"),
    ("parte", "parto", "pt"),
    ("", "", "en"),
    ("", "river", "en"),
    ("   ", "river", "en"),
]

ODD_INPUTS = [
    "",
    " ",
    "x" * 10_000,
    "🙂",
    "🙂🙂",
    "<b>river</b>",
    "<script>alert(1)</script>",
    "river\x00",
    "\u200b",
    "12345",
    "rock'n'roll",
    "ǅ",
]


@pytest.mark.parametrize("a,b,lang,reason", VARIANTS)
def test_variants(a: str, b: str, lang: str, reason: str) -> None:
    assert variant_reason(a, b, lang) == reason
    assert variant_reason(b, a, lang) == reason  # symmetric
    assert is_variant(a, b, lang) and is_variant(b, a, lang)


@pytest.mark.parametrize("a,b,lang", NOT_VARIANTS)
def test_not_variants(a: str, b: str, lang: str) -> None:
    assert variant_reason(a, b, lang) is None
    assert not is_variant(a, b, lang)
    assert not is_variant(b, a, lang)
    assert guess_reason(a, b, lang) is None


@pytest.mark.parametrize(
    "guess,word,lang,reason",
    [
        ("rivers", "river", "en", "inflection"),  # a plural of the word is right
        ("River", "river", "en", "same"),
        ("colour", "color", "en", "spelling"),
        ("cafe", "café", "es", "accents"),
        ("ging", "gehen", "de", "inflection"),
        ("teacher", "teach", "en", None),  # same family is a different answer
        ("princess", "prince", "en", None),
        ("Bahnhof", "Hof", "de", None),
        ("rapidement", "rapide", "fr", None),
        ("university", "universe", "en", None),
        ("pera", "pero", "es", None),
        ("tía", "tío", "es", "inflection"),  # gender forms are the same word
        ("martyre", "martyr", "fr", "inflection"),
        ("castorcillo", "castor", "es", None),  # a diminutive is another word
        ("casas", "casa", "es", "inflection"),
        ("parlavano", "parlare", "it", "inflection"),
        ("lavoratore", "lavorare", "it", None),
        ("falaremos", "falar", "pt", "inflection"),
        ("trabalhador", "trabalhar", "pt", None),
        ("casar", "casa", "es", None),  # the card's "casa" is the noun, not a form of "casar"
        ("venir", "vino", "es", None),  # "vino" (wine) is also a form of "venir"
        ("see", "saw", "en", None),
        ("plugins", "plugin", "en", "inflection"),  # in no word list: a regular ending still counts
        ("Fünftelsekunden", "Fünftelsekunde", "de", "inflection"),
        ("Schreianfälle", "Schreianfall", "de", "inflection"),  # unlisted compound, listed head
        ("saws", "saw", "en", "inflection"),
        ("Lehrerin", "Lehrer", "de", None),
    ],
)
def test_guess_is_stricter(guess: str, word: str, lang: str, reason: str | None) -> None:
    assert guess_reason(guess, word, lang) == reason
    if reason is not None:
        assert variant_reason(guess, word, lang) is not None


@pytest.mark.parametrize(
    "a,b,lang,reason",
    [
        ("Katze", "katze", "nl", "same"),
        ("huis", "huizen", "nl", None),  # no lexicon: inflections are not guessed
        ("privé", "prive", "nl", "accents"),
        ("river", "rivers", "xx", None),
        ("river", "rivers", "", None),
    ],
)
def test_unsupported_language_fallback(a: str, b: str, lang: str, reason: str | None) -> None:
    assert variant_reason(a, b, lang) == reason
    assert lang not in words.SUPPORTED_LANGUAGES


@pytest.mark.parametrize("lang", ["en-GB", "EN", "es_ES", "de-AT"])
def test_language_tags_use_the_first_subtag(lang: str) -> None:
    pairs = {"en": ("rivers", "river"), "es": ("casas", "casa"), "de": ("Häuser", "Haus")}
    assert variant_reason(*pairs[lang[:2].lower()], lang) == "inflection"


@pytest.mark.parametrize("lang", ["en", "es", "fr", "de", "it", "pt", "nl"])
@pytest.mark.parametrize("odd", ODD_INPUTS)
def test_odd_input_never_raises(odd: str, lang: str) -> None:
    for a, b in ((odd, "river"), ("river", odd), (odd, odd + "s")):
        assert isinstance(is_variant(a, b, lang), bool)
        assert guess_reason(a, b, lang) in (None, *REASON_TEXT)
    assert variant_reason(odd, odd, lang) in (None, "same")


def test_non_string_input_is_not_a_variant() -> None:
    assert variant_reason(None, "river") is None  # type: ignore[arg-type]
    assert not is_variant("river", 3, "en")  # type: ignore[arg-type]
    assert guess_reason(b"river", "river") is None  # type: ignore[arg-type]
    assert normalize(None) == ""  # type: ignore[arg-type]


def test_long_identical_text_is_same_but_never_looked_up() -> None:
    text = "ab" * 5_000
    assert variant_reason(text, text.upper()) == "same"
    assert variant_reason(text, text + "s") is None


def test_long_inputs_do_not_fill_the_cache() -> None:
    before = words._cached_reason.cache_info().currsize
    for i in range(50):
        assert not is_variant("q" * 5_000 + str(i), "river")
    assert words._cached_reason.cache_info().currsize == before


def test_normalize() -> None:
    assert normalize("  ＲＩＶＥＲ\n") == "river"
    assert normalize("Straße") == "strasse"
    assert normalize("e\u0301") == "é"


def test_every_reason_has_text() -> None:
    reasons = {r for *_, r in VARIANTS}
    assert reasons <= set(REASON_TEXT)
    assert all(isinstance(t, str) and t for t in REASON_TEXT.values())


def test_public_contract() -> None:
    assert set(words.__all__) >= {
        "SUPPORTED_LANGUAGES", "normalize", "is_variant", "variant_reason", "guess_reason", "REASON_TEXT",
    }
    assert words.SUPPORTED_LANGUAGES == ("en", "es", "fr", "de", "it", "pt")


@pytest.mark.parametrize("lang", ["en", "es", "fr", "de", "it", "pt"])
def test_lexicon_is_shipped(lang: str) -> None:
    assert tables.table_path(lang).is_file()


def test_no_network_in_any_language() -> None:
    """Matching in every supported language works with every socket refused (nothing downloads)."""
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n    raise SystemExit('network use: %r' % (a,))\n"
        "socket.socket.connect = socket.socket.connect_ex = refuse\n"
        "socket.create_connection = socket.getaddrinfo = refuse\n"
        "from dichotomy_widget.words import is_variant\n"
        "pairs = [('rivers', 'river', 'en'), ('casas', 'casa', 'es'), ('chevaux', 'cheval', 'fr'),\n"
        "         ('Häuser', 'Haus', 'de'), ('parlavamo', 'parlare', 'it'), ('falámos', 'falar', 'pt'),\n"
        "         ('xyzzyq', 'xyzzyqes', 'pt')]\n"
        "print([is_variant(a, b, lang) for a, b, lang in pairs])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str([True] * 7)


def test_import_stays_light() -> None:
    code = (
        "import sys, dichotomy_widget.words as w; "
        "print(sorted(m for m in ('nltk', 'snowballstemmer', 'sqlite3') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "nltk" not in out.stdout and "snowballstemmer" not in out.stdout


@pytest.mark.parametrize("deck", sorted(DECKS.glob("*.json")), ids=lambda p: p.stem)
def test_packaged_deck_targets_and_foils_are_not_variants(deck: Path) -> None:
    data = json.loads(deck.read_text(encoding="utf-8"))
    lang = data.get("lang", "en")
    clashes = [
        (target, foil)
        for card in data["cards"]
        for target, foil in card
        if is_variant(target, foil, lang)
    ]
    assert clashes == []


@pytest.mark.parametrize("lang", ["en", "es", "fr", "de", "pt"])
def test_runtime_stemmer_agrees_with_nltk_snowball(lang):
    """The matcher's fallback uses the light ``snowballstemmer`` package; nltk's SnowballStemmer
    runs the same Snowball algorithms, an older release (checked here on every word of the packaged
    deck). The few differences are newer Snowball rules, e.g. "university" no longer stems like
    "universe"."""
    from nltk.stem.snowball import SnowballStemmer

    from dichotomy_widget.decks import load_deck
    from dichotomy_widget.words.matcher import _stemmer

    ours, theirs = _stemmer(lang), SnowballStemmer({"en": "english", "es": "spanish", "fr": "french",
                                                     "de": "german", "pt": "portuguese"}[lang])
    deck_words = {w.lower() for card in load_deck(lang).cards for pair in card.pairs
                  for w in (pair.target, pair.foil)}
    assert len(deck_words) > 300
    differ = [w for w in sorted(deck_words) if ours.stemWord(w) != theirs.stem(w)]
    assert len(differ) <= len(deck_words) // 100, differ  # at least 99 % agree


def test_variant_pairs_answers_what_variant_reason_answers_pair_by_pair():
    """``variant_pairs`` (a purge's every pair at once) gives each pair's ``variant_reason``, also for
    texts too long to cache and for a text that is not a string."""
    from dichotomy_widget.words import variant_pairs

    for texts in (["river", "rivers", "Rivers", "lake", "colour", "color", "anchor", "anchors"],
                  ["x" * 60, "x" * 60, "river"], ["river", 5, "rivers"], ["river"], []):
        expected = [(i, j, why) for i in range(len(texts)) for j in range(i + 1, len(texts))
                    if (why := variant_reason(texts[i], texts[j], "en")) is not None]
        assert variant_pairs(texts, "en") == expected
    assert variant_pairs(["river", "rivers"], "en") == [(0, 1, "inflection")]
