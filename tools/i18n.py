"""Extract, update and check the interface's gettext catalogues (see ``dichotomy_widget/i18n.py``).

    python tools/i18n.py extract   # write dichotomy_widget/locale/<domain>.pot from the sources
    python tools/i18n.py update [--domain pages]  # merge new messages into every language's .po
    python tools/i18n.py check     # list missing, fuzzy, empty or placeholder-mismatched messages,
                                   # and messages that leave the glossary (GLOSSARY, BANNED)

Sources per domain: ``dichotomy`` is the widget (``js/widget.js``: ``t("…")``, ``tn("…", "…", n)``), the
engine modules, ``stores/``, ``words/`` and ``widgets/game.py``; ``pages`` is the rest of ``widgets/``,
``pages/`` and ``server/``.
Besides the usual gettext keywords, every :class:`~dichotomy_widget.errors.DichotomyError` class name
is a keyword: ``InvalidClue("A clue is one word: remove the spaces.", …)`` is extracted as it stands.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any, Iterator

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dichotomy_widget"
LOCALE = PACKAGE / "locale"
sys.path.insert(0, str(ROOT))

from dichotomy_widget import errors  # noqa: E402
from dichotomy_widget.i18n import DEFAULT_LANGUAGE, DOMAINS, INTERFACE_LANGUAGES, placeholders  # noqa: E402

ERROR_KEYWORDS: dict[str, Any] = {
    name: None for name, obj in vars(errors).items()
    if isinstance(obj, type) and issubclass(obj, errors.DichotomyError)
}
PY_KEYWORDS: dict[str, Any] = {**DEFAULT_KEYWORDS, **ERROR_KEYWORDS, "Phrase": None, "Plural": (1, 2)}
JS_KEYWORDS: dict[str, Any] = {"t": None, "tn": (1, 2)}


def domain_of(path: Path) -> str | None:
    """The domain whose catalogue holds ``path``'s messages (None: not user-facing)."""
    rel = path.relative_to(ROOT).as_posix()
    if rel.startswith("js/") and rel.endswith(".js"):
        return "dichotomy"
    if not rel.startswith("dichotomy_widget/") or not rel.endswith(".py"):
        return None
    if rel == "dichotomy_widget/widgets/game.py":
        return "dichotomy"
    if rel.startswith(("dichotomy_widget/widgets/", "dichotomy_widget/pages/", "dichotomy_widget/server/")):
        return "pages"
    return "dichotomy"


def sources() -> Iterator[tuple[Path, str]]:
    for path in sorted([*ROOT.glob("js/**/*.js"), *PACKAGE.glob("**/*.py")]):
        domain = domain_of(path)
        if domain:
            yield path, domain


def extract() -> dict[str, Catalog]:
    """Fresh template catalogues, one per domain, from the sources."""
    templates = {d: Catalog(domain=d, project="dichotomy_widget", charset="utf-8") for d in DOMAINS}
    for path, domain in sources():
        method = "javascript" if path.suffix == ".js" else "python"
        keywords = JS_KEYWORDS if method == "javascript" else PY_KEYWORDS
        for lineno, message, comments, context in extract_from_file(
                method, str(path), keywords=keywords, comment_tags=("i18n:",), strip_comment_tags=True):
            if not message or (isinstance(message, tuple) and not message[0]):
                continue
            templates[domain].add(message, None, [(path.relative_to(ROOT).as_posix(), lineno)],
                                  auto_comments=comments, context=context)
    return templates


def po_path(lang: str, domain: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"


def read_catalog(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as fh:
        return read_po(fh, locale=lang)


def write_catalog(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        write_po(fh, catalog, width=100, sort_output=False, omit_header=False)


def update(domains: tuple[str, ...] = DOMAINS) -> None:
    templates = extract()
    for domain, template in templates.items():
        if domain not in domains:
            continue
        write_catalog(template, LOCALE / f"{domain}.pot")
        for lang in INTERFACE_LANGUAGES:
            if lang == DEFAULT_LANGUAGE:
                continue
            path = po_path(lang, domain)
            catalog = read_catalog(path, lang) if path.exists() else Catalog(locale=lang, domain=domain)
            catalog.update(template, no_fuzzy_matching=True)
            catalog.obsolete.clear()
            write_catalog(catalog, path)


def problems(templates: dict[str, Catalog] | None = None) -> list[str]:
    """Every way the catalogues fall short of the sources (empty list: complete)."""
    templates = templates or extract()
    found: list[str] = []
    for domain, template in templates.items():
        for lang in INTERFACE_LANGUAGES:
            if lang == DEFAULT_LANGUAGE:
                continue
            path = po_path(lang, domain)
            if not path.exists():
                found.append(f"{lang}/{domain}: no catalogue")
                continue
            catalog = read_catalog(path, lang)
            nplurals = catalog.num_plurals
            for message in template:
                if not message.id:
                    continue
                key = message.id if not isinstance(message.id, tuple) else message.id[0]
                entry = catalog.get(message.id, context=message.context)
                where = f"{lang}/{domain}: {key[:60]!r}"
                if entry is None:
                    found.append(f"{where} missing")
                    continue
                if entry.fuzzy:
                    found.append(f"{where} fuzzy")
                strings = list(entry.string) if isinstance(entry.string, (list, tuple)) else [entry.string]
                if not all(strings):
                    found.append(f"{where} untranslated")
                    continue
                if isinstance(message.id, tuple) and len(strings) != nplurals:
                    found.append(f"{where} has {len(strings)} plural forms, {lang} needs {nplurals}")
                ids = message.id if isinstance(message.id, tuple) else (message.id,)
                wanted = set().union(*(placeholders(i) for i in ids))
                for s in strings:
                    have = placeholders(s)
                    # a plural form may leave {n} out ("one card" for n = 1); nothing else may differ
                    if have - wanted or (wanted - {"n"}) - have:
                        found.append(f"{where} placeholders {sorted(have)} != {sorted(wanted)}")
                        break
    return found


#: One word per thing on every screen: an English term (a regex on the msgid) and the word each
#: language uses for it (a regex on the translation, lower-cased). A message whose English names the
#: thing names it with the glossary's word in every language.
GLOSSARY: dict[str, tuple[str, dict[str, str]]] = {
    "teacher": (r"\bteachers?\b", {"es": r"\bdocentes?\b|\bprofesorado\b", "fr": r"\benseignant",
                                   "de": r"lehrkr[aä]ft"}),
    "table": (r"(?<!relation )\btables?\b", {"es": r"\bmesas?\b", "fr": r"\btables?\b", "de": r"tisch"}),
    "Drawer": (r"\bDrawers?\b", {"es": r"\brepart", "fr": r"\bdonn", "de": r"\bgib|\bgeb"}),
    "pair": (r"\bpairs?\b", {"es": r"\bpar(es)?\b", "fr": r"\bpaires?\b", "de": r"paar(e|en|es)?\b"}),
    "card": (r"\bcards?\b", {"es": r"\bcartas?\b", "fr": r"\bcartes?\b", "de": r"karten?"}),
}

#: Synonyms no message may use, in any language (regex, lower-cased): the glossary's word instead.
BANNED: dict[str, list[str]] = {
    "en": [r"\bchoosing a card\b"],
    "es": [r"\bprofesora?s?\b", r"\btarjetas?\b", r"\bparejas?\b"],
    "fr": [r"\bprofesseure?s?\b"],
    "de": [r"\blehrer(in|innen)?\b"],
}

#: Modules whose messages only class pages show: they say "teacher", never "host" (the word of a
#: table hosted on its own page).
CLASS_SOURCES = ("dichotomy_widget/class_mode/classroom.py", "dichotomy_widget/class_mode/views.py",
                 "dichotomy_widget/class_mode/cards.py", "dichotomy_widget/class_mode/seating.py",
                 "dichotomy_widget/class_mode/moves.py", "dichotomy_widget/class_mode/state.py",
                 "dichotomy_widget/pages/teacher_page.py", "dichotomy_widget/pages/student_page.py",
                 "dichotomy_widget/pages/class_projector_page.py", "dichotomy_widget/pages/table_projector_page.py",
                 "dichotomy_widget/pages/report_page.py", "dichotomy_widget/pages/class_html.py")
HOST_WORDS = {"en": r"\bhosts?\b|\bhosting\b", "es": r"anfitri", "fr": r"\bhôtes?\b", "de": r"spielleitung"}


def _prose(text: str) -> str:
    """``text`` without what is not prose: placeholders, quoted code, addresses and code calls."""
    text = re.sub(r"\{[^{}]*\}", " ", text)
    text = re.sub(r'"[^"]*"', " ", text)
    return re.sub(r"\S+://\S+|\S*@\S+|\w+\.\w+\(\S*", " ", text)


def vocabulary_problems(templates: dict[str, Catalog] | None = None) -> list[str]:
    """Every message that leaves the glossary: a term translated with another word, a banned synonym,
    or "host" in a message only class pages show (empty list: one vocabulary)."""
    templates = templates or extract()
    found: list[str] = []
    for domain, template in templates.items():
        for message in template:
            if not message.id:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            english = " ".join(_prose(i) for i in ids)
            key = ids[0][:60]
            class_only = bool(message.locations) and all(f in CLASS_SOURCES for f, _ in message.locations)
            texts = {DEFAULT_LANGUAGE: english}
            for lang in INTERFACE_LANGUAGES:
                if lang == DEFAULT_LANGUAGE:
                    continue
                path = po_path(lang, domain)
                entry = read_catalog_cached(path, lang).get(message.id, context=message.context) \
                    if path.exists() else None
                if entry is None:
                    continue  # problems() reports it
                strings = entry.string if isinstance(entry.string, (list, tuple)) else [entry.string]
                texts[lang] = " ".join(_prose(s) for s in strings if s)
            for lang, text in texts.items():
                where = f"{lang}/{domain}: {key!r}"
                low = text.lower()
                for pattern in BANNED.get(lang, []):
                    if re.search(pattern, low):
                        found.append(f"{where} uses {re.search(pattern, low).group(0)!r} (banned synonym)")
                if class_only and re.search(HOST_WORDS[lang], low):
                    found.append(f"{where} says 'host' on a class page (the glossary's word: teacher)")
                if lang == DEFAULT_LANGUAGE:
                    continue
                for term, (english_pattern, words) in GLOSSARY.items():
                    if re.search(english_pattern, english) and not re.search(words[lang], low):
                        found.append(f"{where} names '{term}' without {words[lang]!r}")
    return found


_CATALOGS: dict[Path, Catalog] = {}


def read_catalog_cached(path: Path, lang: str) -> Catalog:
    """:func:`read_catalog`, read once per path and run."""
    if path not in _CATALOGS:
        _CATALOGS[path] = read_catalog(path, lang)
    return _CATALOGS[path]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["extract", "update", "check"])
    parser.add_argument("--domain", choices=DOMAINS, action="append",
                        help="only this domain (repeatable; default: all)")
    args = parser.parse_args(argv)
    domains = tuple(args.domain or DOMAINS)
    if args.command == "extract":
        for domain, template in extract().items():
            write_catalog(template, LOCALE / f"{domain}.pot")
            print(f"{domain}: {len(template)} messages")
        return 0
    if args.command == "update":
        update(domains)
        return 0
    templates = extract()
    found = [p for p in problems(templates) + vocabulary_problems(templates)
             if p.split(": ")[0].split("/")[1] in domains]
    for line in found:
        print(line)
    print(f"{len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
