"""The words that tell one product of a kind from another, and code holding every judge to them (issue 58).

"oat milk" names a plant drink and one word more: oat. A row of the kind that lacks such a word is not
the thing asked for, whatever a judge called it: at most a stand-in, with the reason on the row ("no
oat: almond milk"). The distinguishing words are the request's narrowing words that a lexicon knows as
food words (its source or base, animal or part, form: the kind alias's own words that are no kind's
name, "oat" of "oat milk", "havre" of "havredryck"; a word left over that Fineli's aligned names or the
catalogue translate, "lamb", "mansikka"), and plain against flavoured. A word the reader knows nothing
of ("osaltat") keeps the row a variant, as before: never enough to say "we do not sell that".

A word is found in the row's name, its categories ("en:rice-milks" holds rice) or, for a property, its
own data (a claim the product carries: a lactose-free fil is lactose-free fil whatever its word order).
Plain asked: a row naming a flavour is at most a stand-in. No flavour asked: a flavoured row is a
variant, after the plain ones ("sojamjölk": the plain soy drinks before the honey one).

``check_words`` runs after any judge (rules or HTTP) in ``ProductsEngine._judged``: the CLI, the
workbench, MCP, the Milvus-backed recall and the evaluation all pass there.
"""

from __future__ import annotations

from typing import Sequence

from engines.products.catalogue import Product
from engines.products.judge import Judgement
from engines.products.knowledge import KnowledgeMap, words
from engines.products.languages import Words
from engines.products.modifiers import ANIMAL_OF, ANIMALS, FORM_OF, FORM_WORDS, PROPERTY_OF, WHOLE_PAIRS
from engines.products.request import Request
from engines.products.vocabulary import AVOID_WORDS, STOPWORDS, negated_inside

# Plain, as buyers say it and as names say it (the demo catalogue's Italian and French names too).
PLAIN_WORDS = frozenset({"plain", "natural", "unflavoured", "unflavored", "maustamaton", "naturell", "osmaksatt",
                         "nature", "naturale", "naturel", "natur", "neutral"})
# A flavour in a name: said, it is the thing asked for; unsaid, the row is a flavoured variant. One group
# a flavour, its words in the catalogues' languages: a flavour the kind asked is named by is no flavour
# of it ("cacao" of a dark chocolate, "chocolat" of a chocolate spread, "suklaa" of a chocolate).
FLAVOURS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "flavoured flavored flavor flavour maustettu smaksatt gusto aromatizzato",
    "vanilla vanilja vanilj vaniglia vanille",
    "chocolate choco suklaa choklad cioccolato chocolat cacao cocoa kaakao kakao",
    "strawberry mansikka jordgubb jordgubbs fragola fraise",
    "honey hunaja honung miele miel",
    "maple vaahtera lonn",
    "banana banaani banan",
    "blueberry mustikka blabar mirtillo myrtille",
    "raspberry vadelma hallon lampone framboise",
    "caramel kinuski karamell caramello",
    "cinnamon kaneli kanel",
    "lemon sitruuna citron limone",
    "peach persikka persika pesca peche",
    "coffee mocha kahvi kaffe caffe",
    "hazelnut hasselpahkina hasselnot nocciola noisette noisettes",
    "mint minttu mynta menta",
    "jam hillo sylt",
    "berry marja",
    "fruit hedelma frukt",
))
FLAVOUR_OF: dict[str, frozenset[str]] = {w: g for g in FLAVOURS for w in g}
# "fruit" or "berry" said names every fruit or berry flavour: a strawberry yogurt is a fruit yogurt (issue 58:
# food_words dev "fruit yogurt" led with fruit snacks once the strawberry yogurt was called flavoured)
_BERRIES = ("strawberry", "blueberry", "raspberry", "berry")
FLAVOURS_NAMED: dict[str, frozenset[str]] = {
    w: frozenset(x for f in members for x in FLAVOUR_OF[f])
    for key, members in (("fruit", (*_BERRIES, "banana", "lemon", "peach", "fruit")), ("berry", _BERRIES))
    for w in FLAVOUR_OF[key]}
GENERIC_FLAVOUR = FLAVOURS[0]  # "flavor", "maustettu": a flavour is named beside it
FLAVOUR_WORDS = frozenset(FLAVOUR_OF)
# The words naming an allergen group as a whole (vocabulary.AVOID_WORDS): a row declaring the group holds
# what they name. Nuts, peanuts, eggs and sesame only: soy, milk and wheat are declared for a lecithin or a
# trace of whey in rows that are no soy, milk or wheat thing.
GROUP_OF: dict[str, str] = {w: group for group in ("nuts", "peanuts", "eggs", "sesame") for w in AVOID_WORDS[group]}
INFLECTIONS = ("s", "es", "en", "ar", "er", "t", "a")  # "oats" holds oat, "mandeln" mandel: enough to check by
DEMOTED, DEMOTED_SHARE = 0.6, 0.05  # a demoted match's confidence: 0.6 plus a twentieth of the judge's


class KindNames(frozenset):
    """Words that name a kind ("milk", "maito", "juoma", and a label's every word: "drink" of "plant drink");
    ``alone``: those a kind phrase of one word holds ("sugar", "kaura", "manteli"), foods of their own;
    ``uses``: the words of the knowledge map's use phrases ("matlagning", "steka", "salad" of "for salad")."""

    alone: frozenset[str] = frozenset()
    uses: frozenset[str] = frozenset()


def kind_words(knowledge: KnowledgeMap) -> KindNames:
    """Words that name a kind on their own ("milk", "maito", "juoma"): never what distinguishes within one."""
    single = {p[0] for p in knowledge.kind_phrases if len(p) == 1}
    labels = {w for kind in knowledge.kinds.values() for label in kind.labels.values() for w in words(label)}
    names = KindNames(single | labels)
    names.alone = frozenset(single)
    names.uses = frozenset(w for phrase in knowledge.use_phrases for w in phrase if w not in STOPWORDS)
    return names


def a_use(word: str, kind_names: frozenset[str]) -> bool:
    """The word says what the product is for, not what it is: a use phrase's word or its stem ("stek" of
    "stekolja": steka, stekning), no food of its own and no flavour. A row lacking it is no other thing:
    "Panna da cucina" is "matlagningsgrädde" (issue 58: food_words dev "matlagningsgrädde", "salad oil",
    "stekolja" were said "not sold")."""
    uses = getattr(kind_names, "uses", frozenset())
    if word in foods(kind_names) or word in FLAVOUR_OF or word in ANIMAL_OF:
        return False
    return word in uses or len(word) >= 4 and any(u.startswith(word) for u in uses)


def foods(kind_names: frozenset[str]) -> frozenset[str]:
    """The words naming a food of their own: a label's adjective ("fresh" of "fresh fruit", "tuoreet",
    "dried", "plant", "cold" of "cold cuts") names none, so a row lacking it is not another food (issue 58:
    food_words dev "fresh milk", "fresh cream" were said "not sold"). A plain set: every word counts."""
    return getattr(kind_names, "alone", kind_names)


def distinguishing(request: Request, languages: Words, kind_names: frozenset[str]) -> list[str]:
    """The words a row of the kind must carry to be the thing (plain and flavour words apart).

    A kind alias's words that narrow it: "oat" of "oat milk" and "oat drink", "basmati" of "basmati
    rice", a compound's parts before its head ("havre" of "havremjölk", "kaura" of "kaurajuoma"). A
    word that names a kind on its own said last is the head, a name for the kind ("milk" of "oat milk",
    "granola" of "nut-free granola", "tempeh", "yoghurt"), never a narrowing word: a synonym the rows do
    not use would make every row a stand-in and say "not sold" falsely. A word left over that Fineli's
    aligned names translate, or an animal, narrows it too ("lamb mince", "mansikkamaito")."""
    said = [w for w in request.said if w not in STOPWORDS and not w.isdigit()]  # content words: no pack, no code
    # a compound's last part is its head, the thing itself: "tahna" of "suklaatahna" (chocolate spread), "puikko"
    # of "kalapuikko" (fish sticks) name no narrowing (issue 58: kind aliases said whole were said "not sold");
    # a form, an animal or a flavour in the head still narrows ("kalkonbröst": bröst)
    heads = {ps[-1] for w in said for ps in (languages.parts(w),) if len(ps) > 1}
    heads -= set(FORM_OF) | set(ANIMAL_OF) | set(FLAVOUR_OF)
    out: list[str] = []
    for f in request.forms:
        if f in heads:
            continue
        parts = languages.parts(f)
        if len(parts) < 2 or languages.translations(f):  # a word the lexicon holds whole: "liquorice" is no liquor|ice
            if not (f in kind_names and said and f == said[-1]):
                out.append(f)
        else:
            out += list(parts[:-1]) + ([] if parts[-1] in kind_names else [parts[-1]])
    out = [w for w in out if w not in STOPWORDS and w not in PLAIN_WORDS and len(w) >= 3]
    for w in request.terms:
        if w in PLAIN_WORDS or w in STOPWORDS or w.isdigit() or len(w) < 3:
            continue
        if w in ANIMAL_OF or w in FORM_OF or mutual(w, languages):
            out.append(w)  # a food word Fineli's aligned names translate: a source, an animal, a fruit, a form
    if "whole" in out and any(p in out for p in WHOLE_PAIRS):  # "whole grain", "wholegrain" read as whole + grain
        out = [w for w in out if w not in WHOLE_PAIRS and w != "whole"] + ["wholegrain"]
    return list(dict.fromkeys(out))


def wants_plain(request: Request) -> bool:
    """Plain said, but not as a word of the brand said: "Nature Valley granola bars" asks no plain bar."""
    brand = set(words(request.brand or ""))
    return any(w in PLAIN_WORDS and w not in brand for w in (*request.terms, *request.forms, *words(request.text)))


def of_brand(product: Product, request: Request) -> bool:
    """The row is of the brand said: its flavours are the brand's products, never a variant of them ("Clif
    bar": every Clif bar names a flavour; issue 58, probing brands on the demo, fruit snacks led them)."""
    return bool(request.brand and product.brand and words(request.brand) == words(product.brand))


def flavour_of(product: Product, request: Request, own: frozenset[str] = frozenset()) -> str | None:
    """The first flavour its name says that the request did not; None for a plain row. ``own``: the
    words of the kinds asked ("suklaa" is no flavour of a chocolate)."""
    said = set(words(request.text)) | set(request.terms) | set(request.forms) | own
    said |= {a for alts in request.alternatives.values() for a in alts}
    said |= {f for w in list(said) for f in (*FLAVOUR_OF.get(w, ()), *FLAVOURS_NAMED.get(w, ()))}  # "noisettes"
    name = [w for n in product.all_names()[:1] for w in words(n)]
    if any(w in PLAIN_WORDS for w in name):
        return None
    named = {o for w in said for o in same_words(w)}  # "kana" said: "Chicken Flavor" names it
    # "flavor" after a word said names the flavour asked: "Cup Noodles Chicken Flavor" for "chicken noodles"
    # (issue 58: food_words dev, the noodles were variants and a chicken dish led)
    return next((w for i, w in enumerate(name) if w in FLAVOUR_WORDS and w not in said
                 and not (w in GENERIC_FLAVOUR and i > 0 and name[i - 1] in named)), None)


FIRST_INGREDIENT_WORDS = 4  # "corn syrup", "carne di tacchino": a longer first part is a sentence, not a name


def first_ingredient(product: Product) -> tuple[str, ...]:
    """The words of what a row is made of first, as its ingredients list it ("CORN SYRUP, HIGH FRUCTOSE...")."""
    text = product.ingredients.split(":", 1)[-1] if ":" in product.ingredients[:40] else product.ingredients
    head = next((part for part in text.replace("(", ",").replace("[", ",").replace(";", ",").split(",")
                 if part.strip()), "")
    found = words(head)
    return found if len(found) <= FIRST_INGREDIENT_WORDS else ()


def _held(product: Product, languages: Words) -> set[str]:
    name_words = {w for n in product.all_names() for w in words(n)}
    name_words |= {w for c in product.categories for w in words(c.split(":")[-1])}
    return name_words | {p for w in name_words for p in languages.parts(w) if len(p) >= 3}


def same_words(word: str) -> tuple[str, ...]:
    """The word and its other names where this module knows them: an animal's (modifiers.ANIMALS: "pollo"
    for "kyckling"), a form's (FORMS: "petto" for "bröst"), a flavour's ("flavor" for "flavour") or a
    property's (PROPERTIES: "integrale" for "täysjyvä")."""
    animal = ANIMAL_OF.get(word)
    return (word, *(ANIMALS[animal] if animal else ()), *FORM_OF.get(word, ()), *FLAVOUR_OF.get(word, ()),
            *FLAVOURS_NAMED.get(word, ()), *PROPERTY_OF.get(word, ()))


def carries_word(word: str, product: Product, request: Request, languages: Words, held: set[str]) -> bool:
    """A word is carried whole, inside a longer word (4 letters at least: "kaura" of "kaurajuoma"), or
    as the start of one ("mac" of "macaroni", "oat" of "oatmeal": an abbreviation, a compound's first part);
    a word naming an allergen group as a whole ("pähkinä", "nöt", "muna") by the row's declared allergens
    ("Hershey's Milk Chocolate with Almonds" is a nut chocolate; issue 58: food_words dev said "not sold")."""
    if GROUP_OF.get(word) in product.allergens:
        return True
    options = (*same_words(word), *request.alternatives.get(word, ()), *languages.translations(word))
    if any(o in held or (len(o) >= 4 and any(o in h and not negated_inside(o, h) for h in held))
           or (len(o) >= 3 and any(h.startswith(o) and not negated_inside(o, h) for h in held)) for o in options):
        return True
    # what the row is made of first, for a source: "Original Syrup" is corn syrup (issue 58, probing the
    # knowledge map's aliases: "corn syrup" was said "not sold"); never a form, chicken fingers made of
    # chicken breast are no chicken breast (words dev "kycklingbröst")
    made_of = set(first_ingredient(product)) if word not in FORM_OF else set()
    return bool(made_of) and any(o in made_of for o in options)


def checkable(word: str, request: Request, languages: Words, vocabulary) -> bool:
    """The catalogue's own words hold the word or one of its other-language words: its absence from a
    row then says something. "unsalted" over Fineli's Finnish names, "jauhettu" over the demo's
    English and Italian ones cannot be checked so: a row lacking them stays a variant, never a
    stand-in, and "not sold" is not said on their account (fineli dev "unsalted butter": VOI, SUOLATON)."""
    if word in ANIMAL_OF:
        return True  # an animal's every name in the catalogues' languages is known: none in a row says it is not there
    options = (*same_words(word), *mutual(word, languages))
    return any(o in vocabulary or any(o + end in vocabulary for end in INFLECTIONS) for o in options)


def mutual(word: str, languages: Words) -> list[str]:
    """Its translations that translate back to it: Fineli's alignment pairs "unsalted" with "lastenruoka"
    (baby food), which does not pair back; "oat" and "kaura" pair both ways."""
    return [t for t in languages.translations(word) if word in languages.translations(t)]


def check_words(request: Request, candidates: Sequence[Product], judgements: list[Judgement],
                languages: Words, kind_names: frozenset[str], vocabulary=frozenset(),
                label_parts: dict[str, set[str]] | None = None, kind_rows=None) -> list[Judgement]:
    """Every match (exact or variant) lacking a distinguishing word the catalogue can check becomes a
    stand-in with the reason (one lacking a word it cannot check, at most a variant); a flavoured row
    is a variant when no flavour was said, a stand-in when plain was. ``kind_rows``: (products, kind ->
    positions), for the words the kind's own rows state (unstated)."""
    if not request.kinds or request.code:
        return judgements
    wanted = distinguishing(request, languages, kind_names)
    strict = strict_words(request, wanted, languages, kind_names, vocabulary, kind_rows)
    own = frozenset(w for k in request.kinds for w in (label_parts or {}).get(k, ()))
    plain = wants_plain(request)
    out = []
    for product, j in zip(candidates, judgements):
        if j.label in ("exact", "variant"):
            held = _held(product, languages)
            lacking = [w for w in wanted if not carries_word(w, product, request, languages, held)]
            flavour = None if of_brand(product, request) else flavour_of(product, request, own)
            what = " ".join(words(product.name)[:3])
            # a match demoted leads the stand-ins (the knowledge map's are 0.6, words alone 0.35 at most):
            # for "oat milk" the almond drink before the cow's milk
            demoted = DEMOTED + DEMOTED_SHARE * j.confidence
            other = other_source(product, request, wanted, languages, kind_names)
            if any(w in strict for w in lacking):
                j = Judgement("standin", demoted, f"no {', '.join(lacking)}: {what}")
            elif other and any(w in strict for w in wanted):
                j = Judgement("standin", demoted, f"a {other}: {', '.join(wanted)} only its flavour")
            elif lacking and j.label == "exact":
                j = Judgement("variant", 0.7, f"'{', '.join(lacking)}' not found in its name")
            elif flavour and plain:
                j = Judgement("standin", demoted, f"not plain: {flavour}")
            elif flavour and j.label == "exact":
                j = Judgement("variant", 0.7, f"flavoured: {flavour}")
        out.append(j)
    return out


def strict_words(request: Request, wanted: Sequence[str], languages: Words, kind_names: frozenset[str],
                 vocabulary=frozenset(), kind_rows=None) -> list[str]:
    """The distinguishing words whose lack makes a match a stand-in (the others' lack, at most a variant):
    what check_words applies and what `understood` says of each word. Kept on the request: reading which
    words the kind's rows state is ~10 ms on Fineli's 3,738 rows ("viipaloitu leipä"), and both ask it."""
    key = (tuple(wanted), id(vocabulary), id(kind_rows[0]) if kind_rows else None)
    if key not in request.strict:
        request.strict[key] = _strict_words(request, wanted, languages, kind_names, vocabulary, kind_rows)
    return list(request.strict[key])


def _strict_words(request: Request, wanted: Sequence[str], languages: Words, kind_names: frozenset[str],
                  vocabulary, kind_rows) -> tuple[str, ...]:
    # a leftover word (no alias of the kind holds it) is strict only as a food of its own (a kind's name:
    # almond, kaura), an animal, a form or a flavour: "sour" of "sour cream" is Sweden's gräddfil, a word of its
    # own (fineli_sv dev said "not sold" for it)
    alone = foods(kind_names)
    not_stated = unstated(request, wanted, languages, *(kind_rows or ((), {})), kind_names=kind_names)
    return tuple(w for w in wanted if checkable(w, request, languages, vocabulary) and w not in not_stated
                 and not a_use(w, kind_names)
                 and (w not in request.terms or w in ANIMAL_OF or w in FLAVOUR_WORDS or w in FORM_WORDS
                      or w in alone or any(t in alone for t in mutual(w, languages))))  # almond: manteli


KIND_ROWS_READ = 400  # rows of a kind read for a word before it counts as unstated (the demo's kinds hold 3-18 rows)


def a_source(word: str, languages: Words, kind_names: frozenset[str]) -> bool:
    """A food of its own, an animal or a flavour: "oat" (kaura names a kind), "almond", "goat", "strawberry"."""
    alone = foods(kind_names)
    return (word in ANIMAL_OF or word in FLAVOUR_OF or word in alone
            or any(t in alone for t in mutual(word, languages)))


def unstated(request: Request, wanted: Sequence[str], languages: Words, products: Sequence[Product] = (),
             by_kind: dict[str, list[int]] | None = None, kind_names: frozenset[str] = frozenset()) -> set[str]:
    """The words asked that are no source (a form, a colour, a style: sliced, dried, white, basmati) and
    that no row of the kinds asked states, in any of the word's forms. Such a word tells rows apart where
    the kind's rows name it ("Sliced Monterey Jack" beside "Organic Monterey Jack", "Smoked Salmon Fillets"
    beside "Salmon fillets", basmati among the rices); where none does, a row lacking it says nothing of
    it, so it stays a variant and is no reason to say "not sold" (issue 58: food_words dev "sliced bread",
    "dried lentils", "white bread" were said "not sold"; the price: "white chocolate", where no chocolate
    says white, shows the milk chocolate as a variant saying so). A source is checked over the whole
    catalogue: "oat milk" is "not sold" whatever the plant drinks' names hold."""
    words_ = [w for w in wanted if not a_source(w, languages, kind_names)]
    if not words_ or not by_kind:
        return set()
    rows = [products[pos] for kind in request.kinds for pos in by_kind.get(kind, ())[:KIND_ROWS_READ]]
    helds = [(p, _held(p, languages)) for p in rows]
    return {w for w in words_ if not any(carries_word(w, p, request, languages, held) for p, held in helds)}


def other_source(product: Product, request: Request, wanted: list[str], languages: Words,
                 kind_names: frozenset[str]) -> str | None:
    """The name leads with another source's name for the kind ("RIISIJUOMA, RICE DREAM HASSELPÄHKINÄ-MANTELI"
    for "mantelijuoma": a rice drink, almond its flavour): a compound naming a kind whose first part is a
    food of its own (riisi) that is none of the words asked. "KASVIJUOMA, MANTELI" leads with no source."""
    lead = next((w for n in product.all_names()[:1] for w in words(n)), "")
    parts = languages.parts(lead)
    said = {*request.said, *request.terms, *request.forms, *wanted}
    if lead in said or len(parts) < 2 or lead not in kind_names:
        return None
    first = parts[0]
    if first in said or first not in kind_names or any(w in said for w in (*languages.translations(first),)):
        return None
    return lead


def led_by_other_source(request: Request, languages: Words, kind_names: frozenset[str]):
    """A test for not_sold.checked: a row led by another source's name is no variant to lift."""
    if not request.kinds or request.code:
        return lambda product: False
    wanted = distinguishing(request, languages, kind_names)
    return lambda product: bool(wanted) and other_source(product, request, wanted, languages, kind_names) is not None


KIND_ROWS = 5  # rows of the kind carrying every distinguishing word, judged even when recall ranked them past the pool


def carrying_rows(request: Request, products: Sequence[Product], by_kind: dict[str, list[int]], languages: Words,
                  kind_names: frozenset[str]) -> list[int]:
    """Positions of rows of the kinds asked that carry every distinguishing word: "not sold" is said only
    when there is none in the whole catalogue, not only in what recall ranked first ("rice milk": the
    demo's rice drinks are "Bevanda di riso", filed under en:rice-milks, past recall's first 40)."""
    wanted = distinguishing(request, languages, kind_names) if request.kinds and not request.code else []
    if not wanted:
        return []
    out = []
    for kind in request.kinds:
        for pos in by_kind.get(kind, ()):
            held = _held(products[pos], languages)
            if all(carries_word(w, products[pos], request, languages, held) for w in wanted):
                out.append(pos)
                if len(out) >= KIND_ROWS:
                    return out
    return out
