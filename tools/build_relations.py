"""Build the word-relation tables in ``dichotomy_widget/wordrel/`` (Foil suggestions, bot clues).

Inputs (build time only; nothing here runs in a kernel):

    apt-get install wordnet-base mythes-es mythes-fr mythes-de mythes-pt-br   # WordNet 3.0, thesauri
    pip install wordfreq nltk          # word frequencies; nltk's WordNet reader
    npm pack naughty-words && tar xzf naughty-words-*.tgz    # the LDNOOBW word lists (CC BY 4.0)
    python tools/build_relations.py --naughty package        # about a minute

For each language it writes three sorted text files (see ``wordrel/README.md``):

* ``<lang>.groups.tsv``: sense groups (a WordNet synset or one thesaurus sense line) with their
  parent and child groups and their members: frequent single words only;
* ``<lang>.words.tsv``: each member word with its Zipf frequency, its groups in sense order and
  its antonyms;
* ``<lang>.block.txt``: words never suggested (the LDNOOBW list, WordNet's vulgarism / obscenity /
  ethnic slur / disparagement usage domains, thesaurus lines tagged vulgar for words never listed
  untagged).

Italian and European Portuguese thesauri are GPL-only and stay out; Italian has no table.
The build is deterministic: the same inputs give byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import unicodedata
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "dichotomy_widget" / "wordrel"
WORDNET = Path("/usr/share/wordnet")
MYTHES = Path("/usr/share/mythes")
THESAURI = {"es": "th_es_ES_v2.dat", "fr": "thes_fr.dat", "de": "th_de_DE_v2.dat", "pt": "th_pt_BR.dat"}
# Zipf floor per language: below it a word is too rare for a classroom Foil (wordfreq's scale:
# 3 = once per million words).
FLOOR = {"en": 3.0, "es": 2.8, "fr": 2.8, "de": 2.8, "pt": 2.8}
LANGS = ("en", "es", "fr", "de", "pt")
OFFENSIVE_DOMAINS = ("vulgarism.n.01", "obscenity.n.02", "ethnic_slur.n.01", "disparagement.n.01")
VULGAR_TAGS = re.compile(r"\((?:[^()]*,\s*)?(?:derb|vulg\.?|vulgär|vulgar)(?:,[^()]*)?\)", re.I)
WORD = re.compile(r"^[^\W\d_]{2,}$")
MAX_CHILDREN = 400  # a parent with more children than this explains little ("entity")
MAX_SENSES = 4      # a word's senses kept, most common first (relations.py reads as many)

LEXNAMES = ("adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute "
            "noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group "
            "noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant "
            "noun.possession noun.process noun.quantity noun.relation noun.shape noun.state "
            "noun.substance noun.time verb.body verb.change verb.cognition verb.communication "
            "verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion "
            "verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl").split()


def key(word: str) -> str:
    """The lookup key of a word: NFKC and case-folded (the runtime uses the same)."""
    return unicodedata.normalize("NFKC", word).strip().casefold()


class Table:
    """Groups and words of one language, filled by a source reader."""

    def __init__(self, lang: str, block: set[str]) -> None:
        self.lang = lang
        self.block = block
        self.zipf_cache: dict[str, float] = {}
        self.groups: list[dict] = []           # {pos, label, parents:set, children:set, members:list}
        self.index: dict[tuple, int] = {}      # dedupe key -> gid
        self.senses: dict[str, list[int]] = defaultdict(list)  # key -> gids in sense order
        self.display: dict[str, str] = {}
        self.forms: dict[str, dict[str, int]] = defaultdict(dict)  # key -> spelling -> times seen
        self.antonyms: dict[str, set[str]] = defaultdict(set)

    def zipf(self, word: str) -> float:
        k = key(word)
        if k not in self.zipf_cache:
            from wordfreq import zipf_frequency
            self.zipf_cache[k] = zipf_frequency(k, self.lang)
        return self.zipf_cache[k]

    def usable(self, word: str) -> bool:
        """A frequent single word that is not blocked."""
        return (bool(WORD.match(word)) and not word.isupper() and key(word) not in self.block  # no acronyms
                and self.zipf(word) >= FLOOR[self.lang])

    def group(self, dedupe: tuple, pos: str, label: str, members: list[str]) -> int:
        if dedupe in self.index:
            return self.index[dedupe]
        gid = len(self.groups)
        self.index[dedupe] = gid
        kept: list[str] = []
        for word in members:
            k = key(word)
            if self.usable(word) and k not in {key(m) for m in kept}:
                kept.append(unicodedata.normalize("NFKC", word))
                self.display.setdefault(k, word)
                self.forms[k][word] = self.forms[k].get(word, 0) + 1
        self.groups.append({"pos": pos, "label": label, "parents": set(), "children": set(), "members": kept})
        return gid

    def sense(self, word: str, gid: int) -> None:
        k = key(word)
        if k in self.display and gid not in self.senses[k] and word in self.groups[gid]["members"]:
            self.senses[k].append(gid)

    def link(self, child: int, parent: int) -> None:
        if child != parent:
            self.groups[child]["parents"].add(parent)
            self.groups[parent]["children"].add(child)

    def write(self, out: Path) -> dict[str, int]:
        """Keep groups that have members or explain sisters; renumber; write the three files."""
        for k, forms in self.forms.items():  # the spelling seen most often ("Hund", not "hund")
            self.display[k] = max(sorted(forms), key=lambda f: forms[f])
        for k in self.senses:
            del self.senses[k][MAX_SENSES:]
        useful = {gid for gids in self.senses.values() for gid in gids if self.groups[gid]["members"]}
        for gid in list(useful):
            for p in self.groups[gid]["parents"]:
                if len(self.groups[p]["children"]) <= MAX_CHILDREN:
                    useful.add(p)
        order = sorted(useful)
        new = {old: i for i, old in enumerate(order)}
        lines = []
        for old in order:
            g = self.groups[old]
            parents = sorted(new[p] for p in g["parents"] if p in new and len(self.groups[p]["children"]) <= MAX_CHILDREN)
            children = sorted(new[c] for c in g["children"] if c in new) if len(g["children"]) <= MAX_CHILDREN else []
            label = re.sub(r"\s+", " ", g["label"].replace("_", " ")).strip()
            members = [m for m in g["members"] if old in self.senses.get(key(m), ())]
            lines.append("\t".join([str(new[old]), g["pos"], label, ",".join(map(str, parents)),
                                    ",".join(map(str, children)), " ".join(members)]))
        (out / f"{self.lang}.groups.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        words = []
        for k in sorted(self.senses):
            gids = [new[g] for g in self.senses[k] if g in new]
            if not gids:
                continue
            ants = sorted(a for a in self.antonyms.get(k, ()) if a in self.senses and a != k)
            words.append("\t".join([k, self.display[k], f"{self.zipf(k):.2f}", ",".join(map(str, gids)),
                                    " ".join(ants)]))
        (out / f"{self.lang}.words.tsv").write_text("\n".join(words) + "\n", encoding="utf-8")
        (out / f"{self.lang}.block.txt").write_text("".join(f"{w}\n" for w in sorted(self.block)), encoding="utf-8")
        return {"groups": len(lines), "words": len(words), "blocked": len(self.block)}


def naughty_words(folder: Path | None, lang: str) -> set[str]:
    """Single words of the LDNOOBW list for ``lang`` (npm package ``naughty-words``)."""
    if folder is None:
        raise SystemExit("--naughty FOLDER is required (npm pack naughty-words; tar xzf naughty-words-*.tgz)")
    data = json.loads((folder / f"{lang}.json").read_text(encoding="utf-8"))
    return {key(w) for w in data if WORD.match(w.strip())}


def wordnet_reader():
    """nltk's WordNet reader on Debian's ``wordnet-base`` (copied: nltk refuses paths outside its data roots)."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    if not WORDNET.is_dir():
        raise SystemExit("WordNet not found: apt-get install wordnet-base")
    tmp = Path(tempfile.mkdtemp(prefix="wordnet-"))
    for f in WORDNET.iterdir():
        if f.is_file():
            shutil.copyfile(f, tmp / f.name)
    pos_num = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
    (tmp / "lexnames").write_text("".join(f"{i:02d}\t{n}\t{pos_num[n.split('.')[0]]}\n"
                                          for i, n in enumerate(LEXNAMES)), encoding="utf-8")
    nltk.data.path.append(str(tmp))

    class Reader(WordNetCorpusReader):
        # Debian's data files lack the "WordNet 3.0 Copyright" line nltk reads the version from.
        def get_version(self) -> str:
            return "3.0"

        def map_wn(self, version: str = "3.0"):
            return None

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Reader(str(tmp), None), tmp


def build_english(block: set[str]) -> Table:
    wn, tmp = wordnet_reader()
    try:
        for domain in OFFENSIVE_DOMAINS:
            for s in wn.synset(domain).in_usage_domains():
                block.update(key(l.name()) for l in s.lemmas() if WORD.match(l.name()))
        t = Table("en", block)
        gid_of: dict[str, int] = {}

        def gid(s) -> int:
            if s.name() not in gid_of:
                pos = "a" if s.pos() == "s" else s.pos()
                names = [l.name() for l in s.lemmas()]
                gid_of[s.name()] = t.group((s.name(),), pos, names[0], [n for n in names if n.islower()])
            return gid_of[s.name()]

        for s in wn.all_synsets():
            if key(s.lemmas()[0].name()) in block:
                continue
            g = gid(s)
            parents = s.hypernyms() + s.instance_hypernyms()
            if s.pos() == "s":
                parents += s.similar_tos()   # a satellite adjective's head: "warm" under "hot"
            for p in parents:
                t.link(g, gid(p))
        # Senses in WordNet's order (most frequent sense first), antonyms per lemma.
        for word in sorted(t.display):
            for s in wn.synsets(word.replace(" ", "_")):
                t.sense(word, gid(s))
                for lemma in s.lemmas():
                    if key(lemma.name()) == word:
                        t.antonyms[word].update(key(a.name()) for a in lemma.antonyms())
        return t
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _entry(item: str) -> tuple[str, str, bool]:
    """A thesaurus item -> (word without tags, tags, vulgar?)."""
    tags = " ".join(re.findall(r"\([^()]*\)", item))
    word = re.sub(r"\([^()]*\)", " ", item)
    return re.sub(r"\s+", " ", word).strip(), tags, bool(VULGAR_TAGS.search(tags))


THES_POS = {"nom": "n", "verbe": "v", "adjectif": "a", "adverbe": "r", "adj.": "a", "m.": "n", "f.": "n",
            "tr.": "v", "intr.": "v", "prnl.": "v", "adv.": "r"}


def build_thesaurus(lang: str, block: set[str]) -> Table:
    path = MYTHES / THESAURI[lang]
    if not path.exists():
        raise SystemExit(f"{path} not found: apt-get install mythes-{'pt-br' if lang == 'pt' else lang}")
    raw = path.read_bytes()
    encoding = raw.split(b"\n", 1)[0].decode("ascii").strip()
    lines = raw.decode({"ISO8859-1": "latin-1"}.get(encoding, encoding), errors="replace").splitlines()[1:]
    entries: list[tuple[str, list[tuple[str, list[str]]]]] = []
    vulgar, plain = set(), set()
    spellings: dict[str, dict[str, int]] = {}  # key -> spelling in sense lines -> count (headwords are lower case)
    i = 0
    while i < len(lines):
        head, _, count = lines[i].rpartition("|")
        i += 1
        try:
            n = int(count)
        except ValueError:
            continue
        senses = [lines[i + j].split("|") for j in range(n) if i + j < len(lines)]
        i += n
        entries.append((head, [(s[0], s[1:]) for s in senses]))
        for _, items in entries[-1][1]:
            for item in items:
                word, _, bad = _entry(item)
                (vulgar if bad else plain).add(key(word))
                spelled = spellings.setdefault(key(word), {})
                spelled[word] = spelled.get(word, 0) + 1
    block.update(w for w in vulgar - plain if WORD.match(w))
    t = Table(lang, block)
    hyper_gid: dict[str, int] = {}
    for head, senses in entries:
        head_word = _entry(head)[0]
        spelled = spellings.get(key(head_word))
        if spelled:  # German headwords are lower-cased: "dolch" is "Dolch" in the sense lines
            head_word = max(sorted(spelled), key=lambda w: spelled[w])
        for pos_field, items in senses:
            pos_tag = pos_field.split(")")[0].strip("(- ").lower()
            pos = "-"
            for tag in pos_tag.split():
                if tag in THES_POS:
                    pos = THES_POS[tag]
                    break
            if "ant" in pos_tag[:3] and lang == "pt":  # (Antônimo)
                for item in items:
                    t.antonyms[key(head_word)].add(key(_entry(item)[0]))
                continue
            members, parents = [head_word], []
            for item in items:
                word, tags, bad = _entry(item)
                if "Oberbegriff" in tags:
                    parents.append(word)
                elif "(Ant" in tags:
                    t.antonyms[key(head_word)].add(key(word))
                    t.antonyms[key(word)].add(key(head_word))
                elif not bad:
                    members.append(word)
            dedupe = (pos, tuple(sorted({key(m) for m in members})))
            label = members[1] if key(members[0]) == key(head_word) and len(members) > 1 and lang == "pt" else head_word
            g = t.group(dedupe, pos, label, members)
            for word in members:
                t.sense(word, g)
            for parent in parents:
                if parent not in hyper_gid:
                    hyper_gid[parent] = t.group(("^", parent), "-", parent, [])
                t.link(g, hyper_gid[parent])
    return t


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--naughty", type=Path, help="the unpacked npm package naughty-words (its folder)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for lang in args.langs.split(","):
        block = naughty_words(args.naughty, lang)
        table = build_english(block) if lang == "en" else build_thesaurus(lang, block)
        stats = table.write(args.out)
        print(lang, stats, file=sys.stderr)


if __name__ == "__main__":
    main()
