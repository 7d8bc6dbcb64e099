#!/usr/bin/env python3
"""Benchmark Foil suggestions (dichotomy_widget.words.foils) against the packaged decks' own Foils.

    python bench/foils.py                 # every packaged deck, every Target
    python bench/foils.py --smoke         # 12 Targets per deck: a quick check that it all runs (CI)
    python bench/foils.py --langs en,fr

Per language, over every Target|Foil pair of the packaged deck:

* top-1 / top-5 / top-10: the deck's own Foil (or an inflection of it) is among the first 1/5/10
  suggestions of ``suggest_foils``;
* baseline: the same candidates (``relations.neighbours``) ranked by word frequency alone, measured
  in the same run;
* coverage: Targets with at least 5 suggestions;
* variant / blocked: share of suggestions that are a variant of their Target or on the blocklist
  (both must be 0; the script exits 1 otherwise);
* load: time and resident memory to parse the language's tables (what one kernel pays);
* 40 Targets: time to suggest for the first 40 Targets once loaded (cold: answers not cached).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dichotomy_widget.words import foils, matcher, relations  # noqa: E402

HIT_REASONS = {"same", "spelling", "accents", "inflection"}


def rss_mb() -> float:
    """Resident set size of this process in MB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def deck_pairs(lang: str) -> list[tuple[str, str]]:
    """(Target, Foil) of every card pair of the packaged deck ``lang``."""
    data = json.loads((ROOT / "dichotomy_widget" / "decks" / f"{lang}.json").read_text(encoding="utf-8"))
    return [(pair[0], pair[1]) for card in data["cards"] for pair in card]


def rank_of(foil: str, words: list[str], lang: str) -> int | None:
    """0-based position of the deck's Foil (or an inflection of it) in ``words``."""
    for i, w in enumerate(words):
        if matcher.variant_reason(foil, w, lang) in HIT_REASONS:
            return i
    return None


def measure(lang: str, limit_pairs: int | None) -> dict:
    pairs = deck_pairs(lang)[:limit_pairs] if limit_pairs else deck_pairs(lang)
    out: dict = {"lang": lang, "pairs": len(pairs), "has_relations": relations.has_relations(lang)}
    if not relations.has_relations(lang):
        return out
    before = rss_mb()
    start = time.perf_counter()
    relations.frequency("a", lang)                          # parses the tables
    out["load_s"] = round(time.perf_counter() - start, 2)
    out["load_mb"] = round(rss_mb() - before, 1)
    targets = [t for t, _ in pairs[:40]]
    start = time.perf_counter()
    for t in targets:
        foils.suggest_foils(t, lang)
    out["forty_s"] = round(time.perf_counter() - start, 3)
    hits = {1: 0, 5: 0, 10: 0}
    base = {1: 0, 5: 0, 10: 0}
    covered = suggested = variants = blocked = 0
    for target, foil in pairs:
        words = [s.word for s in foils.suggest_foils(target, lang, 10)]
        pool = sorted((n.word for n in relations.neighbours(target, lang)),
                      key=lambda w: (-relations.frequency(w, lang), w))[:10]
        r, rb = rank_of(foil, words, lang), rank_of(foil, pool, lang)
        for k in hits:
            hits[k] += r is not None and r < k
            base[k] += rb is not None and rb < k
        covered += len(words) >= foils.MIN_SUGGESTIONS
        suggested += len(words)
        variants += sum(matcher.is_variant(target, w, lang) for w in words)
        blocked += sum(relations.is_offensive(w, lang) for w in words)
    n = len(pairs) or 1
    for k in hits:
        out[f"top{k}"] = round(100 * hits[k] / n, 1)
        out[f"freq_top{k}"] = round(100 * base[k] / n, 1)
    out["coverage"] = round(100 * covered / n, 1)
    out["suggestions"] = suggested
    out["variant_rate"] = round(100 * variants / max(suggested, 1), 2)
    out["blocked_rate"] = round(100 * blocked / max(suggested, 1), 2)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--langs", default="en,es,fr,de,pt,it")
    ap.add_argument("--smoke", action="store_true", help="12 Targets per deck (CI)")
    args = ap.parse_args(argv)
    start_rss = rss_mb()
    rows = [measure(lang, 12 if args.smoke else None) for lang in args.langs.split(",")]
    cols = ["lang", "pairs", "top1", "top5", "top10", "freq_top1", "freq_top5", "freq_top10", "coverage",
            "variant_rate", "blocked_rate", "load_s", "load_mb", "forty_s"]
    print("  ".join(f"{c:>11}" for c in cols))
    for row in rows:
        print("  ".join(f"{str(row.get(c, '-')):>11}" for c in cols))
    print(f"process RSS: {start_rss:.0f} MB at start, {rss_mb():.0f} MB with every table loaded")
    print("top-k: % of Targets whose deck Foil is in the first k suggestions; freq_: same candidates "
          "ranked by frequency only; coverage: % with >= 5 suggestions; rates: % of suggestions")
    bad = [r["lang"] for r in rows if r.get("variant_rate", 0) or r.get("blocked_rate", 0)]
    if bad:
        print(f"FAIL: variants or blocked words suggested for {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
