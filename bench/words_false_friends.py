#!/usr/bin/env python3
"""Precision of dichotomy_widget.words on es/fr/de false friends that look like suffix derivations.

    python bench/words_false_friends.py              # the matcher of this checkout
    python bench/words_false_friends.py --root DIR   # another checkout (a baseline), same lists
    python bench/words_false_friends.py --show       # also list the pairs judged variants

Each pair below is two words that a suffix rule could join (derived ending + base ending, as in
``affix_rules``) but whose dictionary senses are unrelated: *tenedor* (fork) is no agent of
*tener*, *couleur* is not made from *couler*, *Reichtum* not from *reichen*.  They were collected
for this bench from the words' senses in ordinary dictionaries (Spanish DLE, French TLFi / Larousse,
German Duden), not from the project's dev pairs, and both words are checked to be in the
shipped lexicon (``is_known``).  Pairs whose two words share their origin but not their meaning
(escalera / escala) are left out: a judge could call them either way.  A "kept apart" rate of
100 % is the goal; each pair the matcher joins is a clue refused or cancelled without reason.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FALSE_FRIENDS: dict[str, list[tuple[str, str]]] = {
    "es": [
        ("tenedor", "tener"), ("pedazo", "pedo"), ("bonito", "bono"), ("tomillo", "tomo"),
        ("castillo", "casto"), ("cepillo", "cepo"), ("pandilla", "panda"), ("parrilla", "parra"),
        ("pandero", "panda"), ("romero", "roma"), ("cadera", "cada"), ("galera", "gala"),
        ("tetera", "teta"), ("batería", "bata"), ("galería", "gala"), ("final", "fino"),
        ("canal", "cano"), ("metal", "meta"), ("costal", "costa"), ("cantidad", "canto"),
        ("navidad", "nave"), ("bondad", "bono"), ("lentitud", "lente"), ("calvario", "calva"),
        ("sumario", "sumo"), ("estera", "esto"), ("arquero", "arce"), ("limón", "limo"),
        ("bastón", "bastar"), ("salón", "salar"), ("cabeza", "cabo"), ("pereza", "pero"),
        ("corteza", "corto"), ("verano", "vera"), ("saludo", "sala"), ("camisa", "cama"),
        ("manía", "mano"), ("hombría", "hombro"), ("copia", "copo"), ("calor", "calar"),
        ("color", "colar"), ("estante", "estar"), ("censura", "censar"), ("balanza", "balar"),
        ("pasión", "pasar"), ("pensión", "pensar"), ("pánico", "pan"), ("entero", "ente"),
    ],
    "fr": [
        ("couleur", "couler"), ("humeur", "humer"), ("amateur", "amer"), ("mineur", "miner"),
        ("radiateur", "radier"), ("secteur", "secte"), ("veneur", "venir"), ("honneur", "honnir"),
        ("chœur", "choir"), ("batteur", "bâtir"), ("pêcheur", "pécher"), ("papier", "pape"),
        ("collier", "colle"), ("palier", "pale"), ("baguette", "bague"), ("mouette", "moue"),
        ("galette", "gale"), ("billet", "bille"), ("sommet", "somme"), ("bonnet", "bonne"),
        ("salon", "sale"), ("canon", "cane"), ("poisson", "poisse"), ("potage", "pote"),
        ("massage", "masse"), ("figure", "figer"), ("posture", "poster"), ("coupable", "couper"),
        ("virtuosité", "vertueux"), ("moteur", "mot"), ("soupir", "soupe"), ("avenir", "aven"),
        ("courir", "cour"), ("coureur", "cour"),
    ],
    "de": [
        ("Zeitung", "Zeit"), ("Rechnung", "Rechen"), ("Meinung", "mein"), ("Leistung", "Leiste"),
        ("Reichtum", "reichen"), ("Wachstum", "Wachs"), ("sagenhaft", "sagen"), ("ratlos", "Rate"),
        ("Zeugnis", "Zeug"), ("hörbar", "Horn"), ("Spülung", "spulen"), ("Aufzählung", "aufzahlen"),
        ("Bürge", "Burg"), ("dösig", "Dose"), ("Weinglas", "Weinkeller"), ("recht", "Rechen"),
        ("Kanzler", "Kanzel"), ("Frankreich", "frank"), ("Störer", "Storch"), ("Gärtner", "Gatter"),
    ],
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                    help="checkout whose dichotomy_widget is measured (default: this one)")
    ap.add_argument("--show", action="store_true", help="list the pairs judged variants")
    ap.add_argument("--smoke", action="store_true", help="CI: the same run (a few seconds)")
    args = ap.parse_args(argv)
    if args.smoke:
        pass  # already a few seconds
    sys.path.insert(0, str(args.root))
    from dichotomy_widget.words import is_known, variant_reason

    total_kept = total = 0
    for lang, pairs in FALSE_FRIENDS.items():
        unknown = [w for pair in pairs for w in pair if not is_known(w, lang)]
        joined = [(a, b, variant_reason(a, b, lang)) for a, b in pairs if variant_reason(a, b, lang)]
        kept = len(pairs) - len(joined)
        total_kept, total = total_kept + kept, total + len(pairs)
        print(f"{lang}: kept apart {kept}/{len(pairs)} ({100 * kept / len(pairs):.1f} %)"
              + (f"  [not in the lexicon: {', '.join(unknown)}]" if unknown else ""))
        if args.show and joined:
            print("   joined: " + ", ".join(f"{a}/{b} ({r})" for a, b, r in joined))
    print(f"all: kept apart {total_kept}/{total} ({100 * total_kept / total:.1f} %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
