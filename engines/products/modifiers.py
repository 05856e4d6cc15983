"""What narrows a kind once it is found: the animal a product comes from, and the words Sweden and Finland
write differently for one food.

``ANIMALS``: the animal (or bird) a meat comes from, by the words that name it in Swedish (Sweden's and
Finland's), Finnish (base and genitive, the form a Finnish name puts before the meat: "naudan jauheliha")
and English, folded; Italian and French too, the languages of the demo catalogue's Open Food Facts
names ("macinato bovino", "petto di pollo"). A request that names one ("nötfärs": nöt, "kycklingbröst": kyckling) is for that
animal: a product naming another is a stand-in, one naming that and another too (pork-beef mince for
beef mince) a variant, never the thing (judge.py). Fish are left out: their names nest ("kirjolohi",
rainbow trout, holds "lohi", salmon; "regnbågslax" holds "lax").

``REGIONAL``: one food, two everyday words, Sweden's first and Finland-Swedish (the word Fineli's Swedish
names use) second; read both ways, as a whole word or as a compound's part ("havregryn": havre|gryn, read
also as havre|flingor, Fineli's HAVREFLINGOR). Written by hand for this project (no list found whose
licence allows shipping it; Wiktionary's is CC BY-SA): each Finland-Swedish side is a word of Fineli's
Swedish names (THL, CC BY 4.0), each Sweden side the word Swedish shops and Livsmedelsverket use.
"""

from __future__ import annotations

from typing import Callable, Iterable

MEAT_FAMILIES = ("meat",)  # where the animal decides what the thing is

ANIMALS: dict[str, tuple[str, ...]] = {
    "beef": ("not", "notkott", "ox", "oxe", "oxkott", "nauta", "naudan", "naudanliha", "harka", "beef", "cattle",
             "bovino", "manzo", "boeuf"),
    "veal": ("kalv", "kalvkott", "vasikka", "vasikan", "veal", "vitello", "veau"),
    "pork": ("gris", "griskott", "flask", "flaskkott", "svin", "sika", "sian", "sianliha", "porsas", "porsaan",
             "pork", "suino", "maiale", "porc"),
    "lamb": ("lamm", "lammkott", "far", "farkott", "lammas", "lampaan", "lampaanliha", "lamb", "mutton", "agnello", "agneau"),
    "chicken": ("kyckling", "hons", "broiler", "broileri", "broilerin", "kana", "kanan", "chicken", "pollo", "poulet"),
    "turkey": ("kalkon", "kalkkuna", "kalkkunan", "turkey", "tacchino", "dinde"),
    "duck": ("anka", "ank", "ankka", "ankan", "duck", "anatra", "canard"),
    "goose": ("gas", "hanhi", "hanhen", "goose"),
    "elk": ("alg", "algkott", "hirvi", "hirven", "hirvenliha", "elk", "moose"),
    "reindeer": ("ren", "renkott", "poro", "poron", "poronliha", "reindeer"),
    "deer": ("hjort", "hjortkott", "peura", "peuran", "venison", "deer"),
    "wild boar": ("vildsvin", "villisika", "villisian", "boar"),
    "horse": ("hast", "hastkott", "hevonen", "hevosen", "horse", "cavallo", "cheval"),
    "rabbit": ("kanin", "kani", "rabbit", "coniglio", "lapin"),  # "kanin": Swedish, and the Finnish genitive of kani
    "goat": ("get", "vuohi", "vuohen", "kuttu", "kutun", "goat", "capra", "caprino", "chevre"),
}
ANIMAL_OF: dict[str, str] = {w: animal for animal, ws in ANIMALS.items() for w in ws}

# A form a buyer says (and understood.words calls a form): strict like a source, never a mere word. One
# group a form, its words in the languages the catalogues name things in (English, Finnish, Swedish,
# Italian, French): a row carrying any of them carries the form ("kycklingbröst" over "petto di pollo").
FORMS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "fillet fillets filee file filet filets filetto filetti filete",
    "breast breasts rinta rintafilee brost brostfile petto poitrine",
    "mince minced ground jauheliha fars macinato macinata hache tritato",
    "flakes hiutale hiutaleet flingor gryn fiocchi flocons",
    "sliced viipale viipaloitu skivad affettato affettati tranches",
    "powder jauhe pulver polvere poudre",
    "smoked savustettu savu rokt affumicato affumicata fume",
    "dried kuivattu torkad essiccato essiccati seche seches",
    "frozen pakaste fryst surgelato surgelati surgele",
    "canned sailyke konserv",
    "whole kokonainen hel",
))
FORM_OF: dict[str, frozenset[str]] = {w: g for g in FORMS for w in g}
FORM_WORDS = frozenset(FORM_OF)

# A property a name states in the catalogues' languages, one group a property: a row carrying any of its
# words carries it ("täysjyväriisi" over "riso integrale"; issue 58: food_words dev said "not sold" for
# wholegrain rice, bread and crackers the demo catalogue names in Italian). "whole grain" said in two
# words is read as one (distinguishing.py).
PROPERTIES: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "wholegrain wholemeal wholewheat taysjyva fullkorn fullkorns integrale integrali integral",
))
PROPERTY_OF: dict[str, frozenset[str]] = {w: g for g in PROPERTIES for w in g}
WHOLE_PAIRS = ("grain", "grains", "wheat", "meal")  # "whole grain", "whole wheat", "whole meal": wholegrain

REGIONAL: tuple[tuple[str, str], ...] = (
    ("gryn", "flingor"),  # havregryn / havreflingor (rolled oats)
    ("mellanmjolk", "lattmjolk"),  # 1.5 % milk: Sweden's lättmjölk is 0.5 %, Finland's 1.5 %
    ("standardmjolk", "helmjolk"),
    ("filmjolk", "fil"),
    ("kvarg", "kvark"),
    ("kanelbulle", "orfil"),
    ("strosocker", "socker"),
    ("nypotatis", "farskpotatis"),
    ("flask", "gris"),  # fläskfärs / köttfärs av gris, fläskkotlett / griskotlett
    ("ox", "not"), ("oxe", "not"),
    ("hushallsost", "ost"),
    ("havregrynsgrot", "havregrot"),  # oat porridge
)
_REGIONAL: dict[str, tuple[str, ...]] = {}
for _sweden, _finland in REGIONAL:
    _REGIONAL.setdefault(_sweden, ())
    _REGIONAL[_sweden] += (_finland,)
    _REGIONAL.setdefault(_finland, ())
    _REGIONAL[_finland] += (_sweden,)


def regional(word: str) -> tuple[str, ...]:
    """The other region's word for a folded word: "kvarg" -> kvark, "lattmjolk" -> mellanmjolk."""
    return _REGIONAL.get(word, ())


def regional_compounds(word: str, parts: Callable[[str], tuple[str, ...]]) -> tuple[str, ...]:
    """The word with one of its compound parts said the other region's way: "havregryn" -> havreflingor."""
    split = parts(word)
    out = list(regional(word))
    if len(split) > 1:
        for i, part in enumerate(split):
            for other in regional(part):
                out.append("".join((*split[:i], other, *split[i + 1:])))
    return tuple(dict.fromkeys(w for w in out if w != word))


def animals_named(words: Iterable[str], parts: Callable[[str], tuple[str, ...]]) -> frozenset[str]:
    """The animals a run of folded words names, whole or as a compound's part ("notkottfars": beef)."""
    found = set()
    for w in words:
        if w in ANIMAL_OF:
            found.add(ANIMAL_OF[w])
            continue
        for p in parts(w):
            if p in ANIMAL_OF:
                found.add(ANIMAL_OF[p])
    return frozenset(found)
