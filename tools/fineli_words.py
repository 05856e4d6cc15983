"""Write engines/products/words.json and the knowledge map's Fineli names from Fineli's aligned food names.

Fineli (THL, CC BY 4.0) names each of its foods in Finnish, Swedish and English under one FOODID:
a trilingual word list nobody here wrote. From ../shared/data/products/fineli/foodname_{FI,SV,EN}.csv:

- the lexicon: every Finnish and Swedish word of the names (and its simplemma base form), and the
  knowledge map's Finnish and Swedish words: what engines/products/compounds.py splits against;
- translations: for each word (base form; Finnish and Swedish compounds also by their parts), the
  words of the other two languages that stand beside it in the same foods' names most consistently
  (Dice coefficient over foods, at least MIN_FOODS foods, at least MIN_DICE, the TOP best a language);
- the knowledge map's Fineli classes: a food class (its Finnish and Swedish names, as a wholesaler's
  category column holds them) is read as the kind most of its foods' names say, for a product whose
  own name says none (``fineli_classes``);
- the knowledge map's Finnish and Swedish names: a kind whose English label is the whole
  first part of a food's English name ("HONEY", "OAT DRINK, ...") gets, as ``fineli`` names, the first
  part of that food's Finnish and Swedish names (the most common one where several foods agree).

Deterministic (sorted input, sorted output); run from the repository root:

    python tools/fineli_words.py [--fineli ../shared/data/products/fineli]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.lexical import fold  # noqa: E402
from engines.products.compounds import Splitter  # noqa: E402
from engines.products.knowledge import default_knowledge_path, naming_words, words  # noqa: E402
from engines.products.languages import WORDS_FILE, lemmatize  # noqa: E402

MIN_FOODS = 2  # a pair seen in one food only is as likely chance as meaning
MIN_DICE = 0.4  # "oat"/"kaura" 0.8, "drink"/"juoma" 0.6; at 0.3 "honey" took "monster" and "puffs" (a cereal's name)
TOP = 2  # translations kept per word and language
CLASS_FOODS = 3  # a class's kind needs this many of its foods named as that kind
CLASS_SHARE = 0.5  # ... and this share of all its foods ("Marjat" took snack bar from 4 of 30 named ones)
TAIL_HEADS = 3  # "puuro" follows kaura, riisi, ohra, manna, ruis...; two heads let chance pairs in
# An English phrase is kept as a translation of a Finnish or Swedish word only where it says that word at
# least as well as any of its own words does ("whole milk" -> täysmaito Dice 0.59, "whole" alone 0.36;
# "butter milk" -> kirnupiimä 1.0, "butter" alone 0.1), and only its best word a language: the second
# best of "oat drink" was "lisätty" (added, of "calcium added"), of "chicken sauce" "strimlor" (strips)
PHRASE_WORDS = (2, 3)
PHRASE_DICE = 0.5  # at 0.4 "minced beef" took perunasoselaatikko (a casserole made with it, 0.44)
PHRASE_GAIN = 0.1  # over its best word: at 0 "rainbow trout" took kirjolohifilee (trout fillet) from "trout"
# A qualifier is a preparation word when Fineli puts it only on a cooked, dried, smoked... form of a food
# that it also lists raw, for PREPARED_FOODS different foods ("KUIVATTU": OMENA, LUUMU, APRIKOOSI...), and
# at most RAW_SHARE of its uses are on raw foods; 3 foods keep brands and recipe parts out (fazer, vaasan)
PREPARED_FOODS = 3
RAW_SHARE = 0.1
NOT_PREPARED = ("RAW", "IND", "MIX", "X")  # Fineli's PROCESS codes of foods as they come
_WORD = re.compile(r"[^\W\d_]+")


def read_names(folder: Path) -> dict[str, dict[str, str]]:
    names: dict[str, dict[str, str]] = defaultdict(dict)
    for lang in ("FI", "SV", "EN"):
        with open(folder / f"foodname_{lang}.csv", encoding="iso-8859-1", newline="") as handle:
            for row in csv.reader(handle, delimiter=";"):
                if len(row) >= 2 and row[0].isdigit():
                    names[row[0]][lang.lower()] = row[1]
    return {k: v for k, v in sorted(names.items(), key=lambda kv: int(kv[0])) if len(v) == 3}


def tokens(name: str, lang: str) -> list[str]:
    """Folded words of a name (3+ letters) and their base forms; English by its base form alone (one
    count for "MEATBALL" and "MEATBALLS": the plural alone took "mummo", a brand's grandma, as its pair)."""
    out = []
    for typed in _WORD.findall(name.lower()):
        lemma = fold(lemmatize(typed, lang))
        for w in ((lemma,) if lang == "en" else dict.fromkeys((fold(typed), lemma))):
            if len(w) >= 3:
                out.append(w)
    return out


def build(folder: Path, knowledge: dict) -> tuple[dict, dict[str, dict[str, list[str]]]]:
    foods = read_names(folder)
    toks = {fid: {lang: tokens(n, lang) for lang, n in names.items()} for fid, names in foods.items()}
    lexicon = {w for t in toks.values() for lang in ("fi", "sv") for w in t[lang]}
    for kind in knowledge["kinds"]:
        for phrase in [kind.get("fi", ""), kind.get("sv", ""), *kind.get("aliases", ())]:
            lexicon.update(w for w in words(phrase) if len(w) >= 3 and w.isalpha())
    lexicon |= shared_tails(lexicon)
    splitter = Splitter(lexicon)
    # a food's words by language, Finnish and Swedish compounds with their parts
    bags: list[dict[str, set[str]]] = []
    for t in toks.values():
        bag = {lang: set(t[lang]) for lang in ("fi", "sv", "en")}
        # a word in two languages' names of one food is a brand or left untranslated ("HONEY MONSTER
        # PUFFS" in the Finnish name too): it says nothing about what translates what
        shared = (bag["fi"] & bag["en"]) | (bag["sv"] & bag["en"]) | (bag["fi"] & bag["sv"])
        bag = {lang: ws - shared for lang, ws in bag.items()}
        for lang in ("fi", "sv"):
            bag[lang] |= {p for w in t[lang] for p in splitter.split(w) if len(p) >= 3}
        bags.append(bag)
    freq: dict[str, Counter] = {lang: Counter() for lang in ("fi", "sv", "en")}
    pair: Counter = Counter()
    same: Counter = Counter()  # two words side by side in one language's name of one food
    for bag in bags:
        for lang, ws in bag.items():
            freq[lang].update(ws)
            same.update((lang, x, y) for x in ws for y in ws if x != y)
        for a in ("fi", "sv", "en"):
            for b in ("fi", "sv", "en"):
                if a < b:
                    for x in bag[a]:
                        for y in bag[b]:
                            pair[(a, x, b, y)] += 1
    best: dict[tuple[str, str], dict[str, list[tuple[float, str]]]] = defaultdict(lambda: defaultdict(list))
    for (a, x, b, y), c in pair.items():
        # a pair that also stands side by side within one language's names is a phrase, no translation
        # ("dog" beside "hot": HOT DOG kept whole in a Swedish name); folding makes the Swedish "äpple"
        # and the English "apple" one word, so the languages themselves cannot tell
        if c < MIN_FOODS or x == y or 2 * max(same[(a, x, y)], same[(b, x, y)]) >= c:
            continue
        dice = 2 * c / (freq[a][x] + freq[b][y])
        if dice >= MIN_DICE:
            best[(a, x)][b].append((-dice, y))
            best[(b, y)][a].append((-dice, x))
    translations: dict[str, set[str]] = defaultdict(set)
    for (a, x), by_lang in best.items():
        for b, found in by_lang.items():
            translations[x].update(y for _, y in sorted(found)[:TOP])
    for names, t in zip(foods.values(), toks.values()):
        # a food named by one English word Fineli uses nowhere else ("BILBERRY", "LICORICE LIQUORICE"): no
        # Dice can be had from one food, but a name of one word beside a one-word Finnish and Swedish name
        # is that word ("MUSTIKKA, METSÄMUSTIKKA" -> mustikka; "LAKRITSI", "LAKRITS")
        english = t["en"]
        if "," in names["en"] or not 1 <= len(english) <= 2 or any(freq["en"][x] >= MIN_FOODS for x in english):
            continue  # every word of it rare: "CHILI PEANUTS" is no name of chili
        for x in english:
            # never an English word written closed of two known ones ("LOWFAT CREAM", "MILKFREE DIP MIX")
            closed = any(freq["en"][x[:cut]] and freq["en"][x[cut:]] for cut in range(3, len(x) - 2))
            if not closed and not translations.get(x):
                translations[x].update(w for w in (one_word(names["fi"]), one_word(names["sv"])) if w)
    table = {w: sorted(fold(y) for y in t - {w}) for w, t in sorted(translations.items()) if t - {w}}
    words_json = {"about": "Written by tools/fineli_words.py from Fineli's aligned food names (THL, CC BY 4.0); "
                           "do not edit by hand.",
                  "lexicon": sorted(lexicon), "translations": table,
                  "phrases": english_phrases(foods, toks, bags, freq, pair),
                  "preparation": preparation_words(folder, foods)}
    return words_json, fineli_names(foods, knowledge)


def english_phrases(foods, toks, bags, freq, pair) -> dict[str, list[str]]:
    """English phrase (2-3 words of one comma part, base forms, no stopwords) -> the Finnish and Swedish
    words it says: Fineli writes "WHOLE MILK", "SOURED BUTTER MILK", "OVEN-BAKED PANCAKE" where Finnish
    and Swedish write one compound (TÄYSMAITO, KIRNUPIIMÄ, PANNUKAKKU). Kept where the phrase is in
    MIN_FOODS foods with the word, Dice >= PHRASE_DICE and PHRASE_GAIN above any of its own words'
    Dice with that word; the best a language (Finnish first)."""
    from engines.products.vocabulary import STOPWORDS

    grams: list[set[str]] = []
    for names in foods.values():
        found = set()
        for part in names["en"].lower().split(","):
            seq = [fold(lemmatize(w, "en")) for w in _WORD.findall(part)]
            for n in PHRASE_WORDS:
                for i in range(len(seq) - n + 1):
                    run = seq[i:i + n]
                    if all(len(w) >= 3 and w not in STOPWORDS for w in run):
                        found.add(" ".join(run))
                        if n == 3:  # and its ends, apart: "OVEN-BAKED PANCAKE" is asked for as "oven pancake"
                            found.add(f"{run[0]} * {run[2]}")
        grams.append(found)
    gram_freq: Counter = Counter(g for found in grams for g in found)
    together: Counter = Counter()
    naming: Counter = Counter()  # ... and the word names the food (is in its naming words) in MIN_FOODS of them
    for found, bag, t, names in zip(grams, bags, toks.values(), foods.values()):
        for g in found:
            if gram_freq[g] >= MIN_FOODS:  # whole words of the names, no compound's part ("hel" of helmjölk)
                for lang in ("fi", "sv"):
                    ys = bag[lang] & set(t[lang])
                    together.update((g, lang, y) for y in ys)
                    # "rainbow trout fillet" took "matlagningcreme" from "... I MATLAGNINGCREME" (in cream)
                    naming.update((g, lang, y) for y in ys & set(naming_words(names[lang])))
    best: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    for (g, lang, y), c in together.items():
        if " * " in g and gram_freq[g.replace(" * ", " ")]:
            continue  # ends apart only for a phrase never said with them together ("white bread" is said)
        if c < MIN_FOODS or naming[(g, lang, y)] < MIN_FOODS:
            continue
        dice = 2 * c / (gram_freq[g] + freq[lang][y])
        alone = max(2 * pair[("en", w, lang, y)] / (freq["en"][w] + freq[lang][y])
                    if freq["en"][w] else 0.0 for w in g.split() if w != "*")
        if dice >= PHRASE_DICE and dice >= alone + PHRASE_GAIN:
            best[g].append((lang, -dice, y))
    out = {}
    for g, found in sorted(best.items()):
        kept = [min(f for f in found if f[0] == lang)[2] for lang in ("fi", "sv") if any(f[0] == lang for f in found)]
        out[g] = list(dict.fromkeys(kept))
    return out


def preparation_words(folder: Path, foods: dict[str, dict[str, str]]) -> list[str]:
    """Qualifier words that say a food was prepared (KUIVATTU dried, KEITETTY boiled, SAVUSTETTU smoked;
    TORKAD, KOKT; DRIED, BOILED): from Fineli's PROCESS codes, words after the first comma part of the
    names of prepared foods whose first part Fineli also lists raw, in PREPARED_FOODS foods, rarely on raw
    ones. A request that names no preparation is answered by the plain food before them ("omenat":
    OMENA, KOTIMAINEN before OMENA, KUIVATTU). Empty without food.csv."""
    from engines.products.vocabulary import STOPWORDS

    path = folder / "food.csv"
    if not path.is_file():
        return []
    with open(path, encoding="iso-8859-1", newline="") as handle:
        process = {row["FOODID"]: row["PROCESS"] for row in csv.DictReader(handle, delimiter=";")}
    out: set[str] = set()
    for lang in ("fi", "sv", "en"):
        groups: dict[tuple[str, ...], list[tuple[str, set[str]]]] = defaultdict(list)
        for fid, names in foods.items():
            first, *rest = names[lang].split(",")
            groups[words(first)].append((process.get(fid, "X"), {w for p in rest for w in words(p)
                                                                  if w.isalpha() and len(w) >= 4}))
        on_raw: Counter = Counter()
        uses: Counter = Counter()
        foods_of: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        for naming, group in groups.items():
            raw = [q for p, q in group if p == "RAW"]
            for p, q in group:
                uses.update(q)
                on_raw.update(q if p == "RAW" else ())
                if raw and p not in NOT_PREPARED:
                    for w in q - set().union(*raw):
                        foods_of[w].add(naming)
        out |= {w for w, ns in foods_of.items() if len(ns) >= PREPARED_FOODS and on_raw[w] <= RAW_SHARE * uses[w]
                and w not in STOPWORDS}
    return sorted(out)


def shared_tails(lexicon: set[str]) -> set[str]:
    """Heads of compounds that never stand alone in a name ("puuro": kaura|puuro, riisi|puuro, ohra|puuro):
    a tail of 4+ letters that follows at least TAIL_HEADS different known words."""
    heads: dict[str, set[str]] = defaultdict(set)
    for w in lexicon:
        for cut in range(3, len(w) - 3):
            if w[:cut] in lexicon:
                heads[w[cut:]].add(w[:cut])
    return {tail for tail, hs in heads.items() if len(hs) >= TAIL_HEADS and tail.isalpha()}


def first_part(name: str) -> str:
    return " ".join(words(name.split(",")[0]))


def one_word(name: str) -> str | None:
    """The first part of a name when it is one word of letters ("KAURAJUOMA, MAIDOTON" -> "kaurajuoma"), lower case."""
    part = name.split(",")[0].strip().lower()
    return part if part.isalpha() and len(part) >= 3 else None


def fineli_names(foods: dict[str, dict[str, str]], knowledge: dict) -> dict[str, dict[str, list[str]]]:
    """kind id -> {"fi": [...], "sv": [...]}: the first parts of the Finnish and Swedish names of the
    foods whose English name's first part is the kind's English label."""
    by_en: dict[str, list[dict[str, str]]] = defaultdict(list)
    name_words: dict[str, set[str]] = {"fi": set(), "sv": set()}
    for names in foods.values():
        by_en[first_part(names["en"])].append(names)
        for lang in ("fi", "sv"):
            name_words[lang].update(words(names[lang]))
    known = set()
    for kind in knowledge["kinds"]:
        for phrase in [kind.get("en", ""), kind.get("fi", ""), kind.get("sv", ""), *kind.get("aliases", ())]:
            known.add(" ".join(words(phrase)))
    out: dict[str, dict[str, list[str]]] = {}
    for kind in knowledge["kinds"]:
        # the English label only: an alias is often a narrower or looser name ("hamburger" under minced
        # meat took Fineli's HAMPURILAINEN, a burger, as a name of minced meat)
        english = [" ".join(words(kind.get("en", "")))]
        found: dict[str, Counter] = {"fi": Counter(), "sv": Counter()}
        for phrase in dict.fromkeys(e for e in english if e):
            for names in by_en.get(phrase, ()):
                for lang in ("fi", "sv"):
                    part = one_word(names[lang])
                    if part:
                        found[lang][part] += 1
        # the names most foods agree on, two at most a language (one food's odd name is no kind's name)
        new = {lang: sorted(p for p, n in c.most_common(2) if " ".join(words(p)) not in known
                            and (n >= 2 or len(c) == 1)) for lang, c in found.items()}
        # and the base form of a one-word Finnish or Swedish name where Fineli's names use it ("omenat":
        # OMENA, "tomater": TOMAT)
        for phrase in [kind.get("fi", ""), kind.get("sv", ""), *kind.get("aliases", ())]:
            if phrase.isalpha():
                for lang in ("fi", "sv"):
                    lemma = lemmatize(phrase.lower(), lang).lower()
                    if lemma != phrase.lower() and fold(lemma) in name_words[lang] and fold(lemma) not in known:
                        new[lang] = sorted(set(new[lang]) | {lemma})
        if any(new.values()):
            out[kind["id"]] = {lang: ps for lang, ps in new.items() if ps}
    return out


def class_kinds(folder: Path, foods: dict[str, dict[str, str]], knowledge: dict) -> dict[str, str]:
    """Fineli food class name (Finnish and Swedish, as a wholesaler's category column holds it) -> the kind
    its English name is, else the kind most of its foods' names say, where at least CLASS_SHARE of its
    foods and CLASS_FOODS of them agree:
    "Kasvikset, tuoreet" -> fresh vegetables, so PORKKANA (carrot), which no kind's name holds, is one."""
    from engines.products.knowledge import KnowledgeMap

    kmap = KnowledgeMap(knowledge)
    with open(folder / "food.csv", encoding="iso-8859-1", newline="") as handle:
        food_class = {row["FOODID"]: row["FUCLASS"] for row in csv.DictReader(handle, delimiter=";")}
    described: dict[str, list[str]] = defaultdict(list)
    english: dict[str, str] = {}
    for lang in ("FI", "SV", "EN"):
        with open(folder / f"fuclass_{lang}.csv", encoding="iso-8859-1", newline="") as handle:
            for row in csv.reader(handle, delimiter=";"):
                if len(row) >= 2 and row[0] != "THSCODE":
                    if lang == "EN":
                        english[row[0]] = row[1]
                    else:
                        described[row[0]].append(row[1])
    # a class whose English name is a kind's English label or alias ("Fruits": fruit; "Berries": berries)
    base = lambda text: " ".join(fold(lemmatize(w, "en")) for w in _WORD.findall(text.lower()))  # noqa: E731
    by_english = {}
    for kind in knowledge["kinds"]:
        for phrase in [kind.get("en", ""), *kind.get("aliases", ())]:
            if phrase.isascii():
                by_english.setdefault(base(phrase), kind["id"])
    counts: dict[str, Counter] = defaultdict(Counter)
    for fid, names in foods.items():
        kinds, _ = kmap.kinds_of((), [names["fi"], names["sv"]])
        counts[food_class.get(fid, "")][kinds[0] if kinds else None] += 1
    out: dict[str, str] = {}
    for code, c in sorted(counts.items()):
        named = {k: n for k, n in c.items() if k}
        kind = by_english.get(base(english.get(code, "")))
        if kind is None and named:
            kind, n = max(sorted(named.items()), key=lambda kv: kv[1])
            if n < CLASS_FOODS or n < CLASS_SHARE * sum(c.values()):
                kind = None
        if kind and code:
            for name in described.get(code, ()):
                out[name] = kind
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fineli", type=Path, default=ROOT.parent / "shared" / "data" / "products" / "fineli")
    args = parser.parse_args(argv)
    knowledge_path = default_knowledge_path()
    knowledge = json.loads(knowledge_path.read_text(encoding="utf-8"))
    words_json, names = build(args.fineli, knowledge)
    WORDS_FILE.write_text(json.dumps(words_json, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    for kind in knowledge["kinds"]:
        kind.pop("fineli", None)
        if kind["id"] in names:
            kind["fineli"] = names[kind["id"]]
    knowledge.pop("fineli_classes", None)
    knowledge["fineli_classes"] = class_kinds(args.fineli, read_names(args.fineli), knowledge)
    knowledge_path.write_text(json.dumps(knowledge, ensure_ascii=False, indent=1), encoding="utf-8")  # its own layout
    print(f"{WORDS_FILE.relative_to(ROOT)}: {len(words_json['lexicon'])} words, "
          f"{len(words_json['translations'])} with translations; "
          f"{knowledge_path.relative_to(ROOT)}: Fineli names for {len(names)} kinds, "
          f"{len(knowledge['fineli_classes'])} Fineli class names read as kinds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
