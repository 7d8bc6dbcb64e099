"""Benchmark checking hostile deck files against an ordinary one of about the same size.

Prints, for each file, the seconds ``deck_from_bytes`` takes to accept or refuse it and its answer
(the refusal's code), beside the baseline: a valid deck of 1,000 cards (10,000 words) measured
in the same run. Before #26, 1 MB of empty cards took 54-76 s (a line lookup rescanned the file per
card) and the deep or long-number files escaped as RecursionError / ValueError.

    python bench/deck_files.py [--repeat 3] [--smoke]

``--smoke``: each file once (for CI: checks that the bench runs).
"""

from __future__ import annotations

import argparse
import json
import resource
import time

from dichotomy_widget.decks import DeckError, deck_from_bytes


def files() -> dict[str, bytes]:
    def word(n: int) -> str:  # distinct letter words of one length: none is a variant of another
        letters = "".join("bcdfghjklmnpqrstvwxz"[(n // 20 ** k) % 20] for k in range(5))
        return "qu" + letters + "o"

    cards = [[[word(10 * i + 2 * j), word(10 * i + 2 * j + 1)] for j in range(5)] for i in range(1_000)]
    baseline = json.dumps({"lang": "en", "cards": cards}).encode()
    return {
        "baseline: valid deck": baseline,
        "1 MB of empty cards": ('{"lang": "en", "cards": [' + ",".join(["[]"] * 333_000) + "]}").encode(),
        "100,000 nested brackets": ('{"lang": "en", "cards": [' + "[" * 100_000 + "]" * 100_000 + "]}").encode(),
        "a 5,000-digit number": ('{"lang": "en", "cards": [], "n": ' + "9" * 5_000 + "}").encode(),
        "a 200 KB CSV cell": b"# lang: en\nsea," + b"o" * 200_000 + b"\n",
        "300,000 empty CSV rows": b"# lang: en\n" + b"\n".join(b"," for _ in range(300_000)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="each file once: checks that the bench runs")
    args = parser.parse_args()
    if args.smoke:
        args.repeat = 1
    print(f"{'file':28} {'bytes':>9} {'best s':>8}  answer")
    for name, data in files().items():
        best, answer = float("inf"), ""
        for _ in range(args.repeat):
            start = time.perf_counter()
            try:
                deck = deck_from_bytes(data, "bench.json" if data[:1] == b"{" else "bench.csv", default_lang=None)
                answer = f"accepted ({len(deck)} cards)"
            except DeckError as exc:
                answer = f"refused: {exc.code}"
            best = min(best, time.perf_counter() - start)
        print(f"{name:28} {len(data):>9,} {best:>8.3f}  {answer}")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
