"""Run-time derivation rules for es/fr/de/it/pt: ``affix_rules.checked_bases`` and friends, and the
matcher's ``family`` judgement of two known headwords (``matcher._checked_derivation``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from dichotomy_widget.words import affix_rules as rules
from dichotomy_widget.words import guess_reason, is_known, matcher, variant_reason

# Regular suffix derivations that the shipped tables do not link and the run-time rules do
# (grammar-book examples: -ero on -e, qu/gu/c spelling changes, -ilidad, -ución, -ico; -eur on
# -ir, -cteur on -ire, -ution, -ge- before a/o, -erie on -ier, -osité, -cieux, -aison; German
# -igkeit on -e, -nis, -haft, -los, -voll, -eln verbs, -in on -e).
FAMILIES = [
    ("lechero", "leche", "es"), ("banquero", "banco", "es"), ("cervecero", "cerveza", "es"),
    ("hormiguero", "hormiga", "es"), ("posibilidad", "posible", "es"), ("contribución", "contribuir", "es"),
    ("volcánico", "volcán", "es"), ("crueldad", "cruel", "es"), ("lentitud", "lento", "es"),
    ("menteur", "mentir", "fr"), ("dormeuse", "dormir", "fr"), ("traducteur", "traduire", "fr"),
    ("évolution", "évoluer", "fr"), ("mangeable", "manger", "fr"), ("nageoire", "nager", "fr"),
    ("épicerie", "épicier", "fr"), ("curiosité", "curieux", "fr"), ("silencieux", "silence", "fr"),
    ("livraison", "livrer", "fr"), ("signature", "signer", "fr"),
    ("Müdigkeit", "müde", "de"), ("Finsternis", "finster", "de"), ("fehlerhaft", "Fehler", "de"),
    ("arbeitslos", "Arbeit", "de"), ("sinnvoll", "Sinn", "de"), ("Sammlung", "sammeln", "de"),
    ("Griechin", "Grieche", "de"), ("Schicksal", "schicken", "de"), ("veränderbar", "verändern", "de"),
    ("lebhaft", "leben", "de"),
]

# Look-alikes that a run-time rule would join without its guard (named by the guard), each
# checked against the words' dictionary senses: unrelated words, which must stay apart.
GUARDED_FALSE_FRIENDS = [
    ("veneur", "venir", "fr"),  # -eur on -ir needs its -euse: no "veneuse"
    ("honneur", "honnir", "fr"),  # nor "honneuse"
    ("batteur", "bâtir", "fr"),  # one spelling change at a time: "battir" -> "batir" is not bâtir
    ("pêcheur", "pécher", "fr"),  # the rule's own base "pêcher" is a word: accents are not dropped
    ("centrisme", "centré", "fr"),  # a final é is a suffix of its own
    ("tapissage", "tapir", "fr"),  # no -issage on -ir (tapisser)
    ("entero", "ente", "es"),  # no base under five letters for a short ending
    ("estera", "esto", "es"),
    ("sumario", "sumo", "es"),
    ("calvario", "calva", "es"),  # a headword is read as itself, not as a form of calvo
    ("mosquito", "mosca", "es"),  # diminutives get no spelling change
    ("moñón", "mono", "es"),  # ñ is a letter of its own
    ("pánico", "pan", "es"),
    ("sagenhaft", "sagen", "de"),  # -haft on a plural in -en (Sagen), not the verb
    ("ratlos", "Rate", "de"),
    ("Spülung", "spulen", "de"),  # -ung adds no umlaut
    ("Aufzählung", "aufzahlen", "de"),
    ("hörbar", "Horn", "de"),
    ("Gefälligkeit", "Gefälle", "de"),  # -igkeit is gefällig's, a headword
    ("wahrhaft", "wahren", "de"),  # -haft is wahr's
    ("Kanzler", "Kanzel", "de"),
]


# Spanish quality nouns in -idad, -edad, -ez, -eza on a base in -o need an adjective base
# (``affix_rules.ADJECTIVE_BASE_RULES``), in the build's links and at run time alike: the base's
# feminine is filed under it (rápida, segura) or its adverb in -amente is a word (enfermamente).
QUALITY_NOUNS = [
    ("tristeza", "triste"), ("rapidez", "rápido"), ("limpieza", "limpio"), ("pureza", "puro"),
    ("seguridad", "seguro"), ("timidez", "tímido"), ("suciedad", "sucio"), ("enfermedad", "enfermo"),
    ("belleza", "bello"), ("oscuridad", "oscuro"), ("sencillez", "sencillo"), ("reactividad", "reactivo"),
]
QUALITY_NOUN_LOOK_ALIKES = [("cabeza", "cabo"), ("pereza", "pero"), ("cantidad", "canto")]  # head / cape ...


@pytest.mark.parametrize(("derived", "base"), QUALITY_NOUNS)
def test_spanish_quality_nouns_join_their_adjective(derived: str, base: str) -> None:
    assert variant_reason(derived, base, "es") == "family"
    assert variant_reason(base, derived, "es") == "family"


@pytest.mark.parametrize(("derived", "base"), QUALITY_NOUN_LOOK_ALIKES)
def test_spanish_quality_nouns_need_an_adjective_base(derived: str, base: str) -> None:
    assert is_known(derived, "es") and is_known(base, "es")
    assert not _checked(derived, base, "es")  # the run-time rule
    assert variant_reason(derived, base, "es") is None  # and the tables' links
    assert variant_reason(base, derived, "es") is None
    assert variant_reason(derived + "s", base + "s", "es") is None  # their plurals too


def test_is_adjective_reads_the_forms() -> None:
    forms = {"rápida": {"rápido"}, "enfermamente": {"enfermamente"}, "pera": {"pera"}, "canta": {"cantar"}}

    def lemmas_of(form: str) -> set[str]:
        return forms.get(form, set())

    assert all(rules.is_adjective(w, "es", lemmas_of) for w in ("rápido", "enfermo", "reactivo"))
    assert not any(rules.is_adjective(w, "es", lemmas_of) for w in ("pero", "canto", "cabo"))
    assert rules.is_adjective("triste", "es", lemmas_of)  # no test but for a base in -o
    assert rules.is_adjective("caro", "it", lemmas_of)  # nor in other languages
    assert ("canto", "canto", rules.ADJECTIVE_WITNESS) in rules.checked_bases("cantidad", "es")


def _checked(a: str, b: str, lang: str) -> bool:
    na, nb = matcher.normalize(a), matcher.normalize(b)
    return matcher._checked_derivation(matcher._analyse(na, lang), matcher._analyse(nb, lang), lang)


@pytest.mark.parametrize(("derived", "base", "lang"), FAMILIES)
def test_regular_derivations_are_one_family(derived: str, base: str, lang: str) -> None:
    assert is_known(derived, lang) and is_known(base, lang)
    assert _checked(derived, base, lang)
    assert variant_reason(derived, base, lang) == "family"
    assert variant_reason(base, derived, lang) == "family"  # symmetric


@pytest.mark.parametrize(("derived", "base", "lang"), FAMILIES[:6] + FAMILIES[10:14] + FAMILIES[20:24])
def test_a_family_word_is_no_right_guess(derived: str, base: str, lang: str) -> None:
    assert guess_reason(derived, base, lang) is None
    assert guess_reason(base, derived, lang) is None


@pytest.mark.parametrize(("form", "other", "lang"), [
    ("lecheras", "leche", "es"),  # a form of lechera
    ("menteuses", "mentir", "fr"),  # a form of menteuse / menteur
    ("posibilidades", "posibles", "es"),
])
def test_inflected_forms_are_read_as_their_headwords(form: str, other: str, lang: str) -> None:
    assert variant_reason(form, other, lang) == "family"


@pytest.mark.parametrize(("a", "b", "lang"), GUARDED_FALSE_FRIENDS)
def test_guarded_look_alikes_stay_apart(a: str, b: str, lang: str) -> None:
    assert is_known(a, lang) and is_known(b, lang)
    assert not _checked(a, b, lang)
    assert variant_reason(a, b, lang) is None


def _bench_false_friends() -> dict[str, list[tuple[str, str]]]:
    path = Path(__file__).resolve().parents[1] / "bench" / "words_false_friends.py"
    spec = importlib.util.spec_from_file_location("words_false_friends", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FALSE_FRIENDS


@pytest.mark.parametrize("lang", ["es", "fr", "de"])
def test_the_rules_join_no_false_friend_of_the_bench(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run-time rules add no pair of ``bench/words_false_friends.py``: every pair they join
    is one the shipped tables' links already join (those are measured by the bench)."""
    pairs = _bench_false_friends()[lang]
    assert len(pairs) >= 20
    matcher._clear_caches()
    with_rules = [(a, b) for a, b in pairs if variant_reason(a, b, lang)]
    monkeypatch.setattr(matcher, "_checked_derivation", lambda *_args: False)
    matcher._clear_caches()
    without_rules = [(a, b) for a, b in pairs if variant_reason(a, b, lang)]
    matcher._clear_caches()
    assert with_rules == without_rules


def test_other_languages_get_no_run_time_rules() -> None:
    for word, lang in (("teacher", "en"), ("padeiro", "pt")):
        assert rules.checked_bases(word, lang) == ()
        assert rules.derived_endings_index(lang) == {}
    assert rules.checked_bases("lattaio", "it") == ()  # Italian: -errimo only
    assert set(rules.derived_endings_index("it").values()) == {("errimo",)}
    assert variant_reason("teacher", "teach", "en") == "family"  # English keeps its own links


def test_checked_bases_spell_the_base() -> None:
    assert ("banco", "banquo", "") in rules.checked_bases("banquero", "es")  # qu -> c before e
    assert ("cerveza", "cerveca", "") in rules.checked_bases("cervecero", "es")  # c -> z
    assert ("hormiga", "hormigua", "") in rules.checked_bases("hormiguero", "es")  # gu -> g
    assert ("manger", "mangeer", "") in rules.checked_bases("mangeable", "fr")  # ge -> g before a
    assert ("kaufen", "käufen", "") in rules.checked_bases("käufer", "de")  # an umlaut undone
    assert ("mentir", "mentir", "menteuse") in rules.checked_bases("menteur", "fr")  # a witness
    assert ("müde", "müde", "!müdig") in rules.checked_bases("müdigkeit", "de")  # a blocker


def test_german_umlauts_are_undone_only_where_the_suffix_makes_them() -> None:
    assert all(not base.startswith("spul") for base, _p, _w in rules.checked_bases("spülung", "de"))
    assert any(base == "arzt" for base, _p, _w in rules.checked_bases("ärztin", "de"))


def test_short_bases_need_a_long_rule_or_the_bare_stem() -> None:
    assert not any(base == "ente" for base, _p, _w in rules.checked_bases("entero", "es"))
    assert any(base == "sinn" for base, _p, _w in rules.checked_bases("sinnvoll", "de"))
    assert any(base == "müde" for base, _p, _w in rules.checked_bases("müdigkeit", "de"))


def test_derivation_key_keeps_what_is_a_letter_or_a_suffix() -> None:
    assert rules.derivation_key("pôle", "fr") == "pole"
    assert rules.derivation_key("centré", "fr") == "centré"
    assert rules.derivation_key("paño", "es") == "paño"
    assert rules.derivation_key("volcán", "es") == "volcan"
    assert rules.derivation_key("müde", "de") == "müde"


def test_the_index_lets_through_every_pair_a_rule_joins() -> None:
    for derived, base, lang in FAMILIES:
        a, b = matcher.normalize(derived), matcher.normalize(base)
        heads = matcher._analyse(a, lang).spellings
        assert any(rules.may_derive(h, b, lang) for h in heads), (derived, base)
    assert not rules.may_derive("casa", "perro", "es")


# Italian and Portuguese superlatives and adverbs (``affix_rules.SUFFIXES``, ``ACCENT_DROPPING_ENDINGS``,
# -errimo in ``CHECKED_SUFFIXES``) and Portuguese learned prefixes (``CHECKED_PREFIXES``): pairs of
# the dev half of bench/words_derivations.py (held-out hunspell lists), none of which the
# shipped tables link.
ITPT_FAMILIES = [
    ("vorace", "voracissimo", "it"), ("venerabile", "venerabilissimo", "it"),
    ("svogliato", "svogliatissimo", "it"), ("tenace", "tenacissimamente", "it"),
    ("grafico", "graficamente", "it"), ("perfido", "perfidamente", "it"), ("celebre", "celeberrimo", "it"),
    ("dadivoso", "dadivosíssimo", "pt"), ("meticuloso", "meticulosissimamente", "pt"),
    ("alifático", "alifaticamente", "pt"), ("poluível", "poluivelmente", "pt"),
    ("plástico", "bioplástico", "pt"), ("químico", "bioquímico", "pt"), ("economia", "macroeconomia", "pt"),
    ("estrutura", "infraestrutura", "pt"), ("satélite", "microssatélite", "pt"), ("câmera", "antecâmera", "pt"),
    ("cortical", "intracortical", "pt"),
]
# Look-alikes the same rules would join without their guards: a superlative is not made after a
# stripped prefix (``WHOLE_WORD_ENDINGS``), a learned prefix needs a base of five letters
# (``MIN_PREFIXED_BASE``): hipoteca (mortgage) is no "hipo-teca".
ITPT_LOOK_ALIKES = [
    ("dotto", "ridottissimo", "it"), ("questo", "prestissimo", "it"), ("pático", "antipaticíssimo", "pt"),
    ("teca", "hipoteca", "pt"), ("colo", "protocolo", "pt"),
]


@pytest.mark.parametrize(("base", "derived", "lang"), ITPT_FAMILIES)
def test_italian_and_portuguese_superlatives_adverbs_and_learned_prefixes_join(
        base: str, derived: str, lang: str) -> None:
    assert variant_reason(base, derived, lang) == "family"
    assert guess_reason(derived, base, lang) is None  # a family, not a right guess


@pytest.mark.parametrize(("base", "derived", "lang"), ITPT_LOOK_ALIKES)
def test_italian_and_portuguese_look_alikes_stay_apart(base: str, derived: str, lang: str) -> None:
    assert variant_reason(base, derived, lang) is None


def test_accents_are_put_back_only_before_accent_dropping_endings() -> None:
    assert "rápido" in {b for b, _p, _s in rules.suffix_bases("rapidamente", "pt")}
    assert not any(b != rules.strip_accents(b) for b, _p, _s in rules.suffix_bases("rapidez", "pt"))
    assert rules.checked_prefix("microssatélite", "satélite", "pt") == "micro"
    assert rules.checked_prefix("hipoteca", "teca", "pt") is None
