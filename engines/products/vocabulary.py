"""The fixed words of a food request: claims and allergens, as products state them and as buyers say them.

Claims are read from product data (Open Food Facts label and category tags, or the maker's own name
for the product, "latte senza lattosio") and from the buyer's words in English, Finnish and Swedish.
Allergens use the fourteen EU groups; every spelling a data source uses is mapped onto one id.
"""

from __future__ import annotations

# claim id -> how an answer names it
CLAIMS: dict[str, str] = {
    "vegan": "vegan",
    "vegetarian": "vegetarian",
    "gluten_free": "gluten-free",
    "lactose_free": "lactose-free",
    "organic": "organic",
    "palm_oil_free": "palm-oil-free",
    "no_added_sugar": "no added sugar",
    "fair_trade": "fair trade",
    "kosher": "kosher",
    "halal": "halal",
    "non_gmo": "non-GMO",
    "low_fat": "low-fat",
    # salt: two promises, never one ("no salt added" is not "reduced sodium"); an unsalted row is also low
    # in salt (off.claims_of), a low-sodium row is never called unsalted (issue 58: "suolaton voi")
    "unsalted": "unsalted",
    "low_sodium": "low-sodium",
}

# Open Food Facts label/category tags that carry a claim.
CLAIM_TAGS: dict[str, tuple[str, ...]] = {
    "vegan": ("en:vegan", "en:vegan-society-vegan-logo", "en:certified-vegan", "en:eu-vegan"),
    "vegetarian": ("en:vegetarian", "en:eu-vegetarian", "en:vegetarian-society-approved"),
    "gluten_free": ("en:gluten-free", "en:no-gluten", "en:products-without-gluten", "en:crossed-grain-symbol"),
    "lactose_free": ("en:no-lactose", "en:lactose-free", "en:lactose-free-milk"),
    "organic": ("en:organic", "en:eu-organic", "en:usda-organic", "fr:ab-agriculture-biologique", "en:bio"),
    "palm_oil_free": ("en:no-palm-oil", "en:palm-oil-free"),
    "no_added_sugar": ("en:no-added-sugar", "en:no-sugar-added"),
    "fair_trade": ("en:fair-trade", "en:fairtrade-international", "en:max-havelaar", "en:fairtrade"),
    "kosher": ("en:kosher", "en:orthodox-union-kosher", "en:organized-kashrut-kosher"),
    "halal": ("en:halal",),
    "non_gmo": ("en:no-gmos", "en:non-gmo-project", "en:non-gmo-project-verified"),
    "low_fat": ("en:low-fat", "en:low-or-no-fat", "en:no-fat", "en:reduced-fat"),
    # the tags the OFF files carry (2016 US: no-salt-added, no-salt, unsalted-butter; 2021 IT: unsalted-butters)
    "unsalted": ("en:no-salt-added", "en:no-salt", "en:no-added-salt", "en:unsalted", "en:salt-free",
                 "en:unsalted-butter", "en:unsalted-butters", "en:butter-82-fat-unsalted",
                 "en:unsalted-butter-with-82-fat"),
    "low_sodium": ("en:low-sodium", "en:low-salt", "en:low-or-no-salt", "en:reduced-sodium", "en:reduced-salt",
                   "en:25-less-sodium", "en:less-sodium", "en:very-low-sodium", "en:sodium-free", "en:low-in-salt"),
}
CLAIM_TAG_PREFIXES: dict[str, tuple[str, ...]] = {"organic": ("en:it-bio-", "en:fr-bio-", "en:de-oko-", "en:eg-oko")}

# Phrases in a product's own name that state a claim (folded: no accents, lower case).
CLAIM_NAME_PHRASES: dict[str, tuple[str, ...]] = {
    "lactose_free": ("senza lattosio", "lactose free", "lactose-free", "sans lactose", "laktosfri", "laktoositon",
                     "delattosato", "zero lattosio", "laktosfria", "laktosfritt"),
    "gluten_free": ("senza glutine", "gluten free", "gluten-free", "sans gluten", "glutenfri", "gluteeniton",
                    "glutenfritt", "glutenfria"),
    "vegan": ("vegan", "vegano", "vegana", "vegetalien", "vegaaninen"),
    "organic": ("organic", "biologico", "biologica", "luomu", "ekologisk"),
    "no_added_sugar": ("no added sugar", "senza zuccheri aggiunti", "sans sucres ajoutes", "ei lisattya sokeria",
                       "ej tillsatt socker", "utan tillsatt socker", "sokeriton", "sockerfri",
                       # a name saying unsweetened states it too (issue 58: food_words dev "almond drink without
                       # sugar" found only rice drinks, "Almond Milk Unsweetened" carried no claim)
                       "unsweetened", "osotad", "makeuttamaton", "senza zucchero", "non zuccherato", "non sucre"),
    "low_fat": ("low fat", "low-fat", "fat free", "fat-free", "rasvaton", "vaharasvainen", "fettfri", "fettsnal"),
    # Fineli's names: "VOI, SUOLATON", "SMÖR OSALTAT", "KOKT UTAN SALT", "COOKED WITHOUT SALT"; never "salted"
    "unsalted": ("unsalted", "no salt added", "no added salt", "without added salt", "without salt", "salt free",
                 "salt-free", "senza sale", "sans sel", "suolaton", "ilman lisattya suolaa", "osaltat", "osaltad",
                 "osaltade", "utan salt", "utan tillsatt salt", "saltfri", "saltfritt"),
    "low_sodium": ("low sodium", "low-sodium", "reduced sodium", "less sodium", "sodium free", "low salt",
                   "low-salt", "reduced salt", "lightly salted", "vahasuolainen", "saltreducerad", "saltreducerat",
                   "lattsaltad", "lattsaltat", "natriumfattig", "saltfattig", "vahennetty suola"),
}

# A claim that holds wherever another does, never the other way: vegan food is vegetarian; no salt added is
# low in salt, while a low-sodium row is never called unsalted (issue 58: "suolaton voi").
IMPLIED_CLAIMS = {"vegan": "vegetarian", "unsalted": "low_sodium"}


def with_implied(found: dict[str, str]) -> dict[str, str]:
    """``found`` (claim -> evidence) with every claim that follows from one in it, saying from which."""
    for claim, implied in IMPLIED_CLAIMS.items():
        if claim in found and implied not in found:
            found[implied] = f"follows from {claim} ({found[claim]})"
    return found


# Claims read only as said, never by the nearest spelling: one letter from their opposite ("saltad" is
# salted, "osaltad" unsalted; "suolattu", "suolaton").
NEAR_SPELLING_NEVER = frozenset({"unsalted"})
# A word inside a longer one that says it is absent is not carried: "salted" in "unsalted", "salt" in
# "osaltat" and "saltfri", "suola" in "suolaton", "laktoosi" in "laktoositon" (issue 58: "salted butter"
# called Unsalted Butter exact).
NEGATING_PREFIXES = ("un", "non", "o")
NEGATING_SUFFIXES = ("ton", "fri", "free", "less")


def negated_inside(part: str, whole: str) -> bool:
    """``part`` stands in ``whole`` only with a prefix or suffix that says it is absent."""
    at = whole.find(part)
    if at < 0:
        return False
    before, after = whole[:at], whole[at + len(part):]
    return before in NEGATING_PREFIXES or (not before and after.startswith(NEGATING_SUFFIXES))


# What a buyer says for a claim (folded). One entry per phrase; misspellings are read by fuzzy match.
CLAIM_WORDS: dict[str, tuple[str, ...]] = {
    "vegan": ("vegan", "vegaaninen", "vegaani", "vegansk", "veganska", "vegano", "vegana"),
    "vegetarian": ("vegetarian", "vegetaarinen", "vegetarisk", "veggie", "kasvis"),
    "gluten_free": ("gluten free", "gluten-free", "glutenfree", "gluteeniton", "gluteenittomat", "glutenfri",
                    "glutenfritt", "glutenfria", "senza glutine", "coeliac", "celiac", "keliakia"),
    "lactose_free": ("lactose free", "lactose-free", "lactosefree", "laktoositon", "laktoosittomat", "laktoositonta",
                     "laktosfri", "laktosfritt", "laktosfria", "senza lattosio", "no lactose"),
    "organic": ("organic", "luomu", "ekologisk", "ekologiskt", "ekologiska", "eko", "bio", "biologico"),
    "palm_oil_free": ("palm oil free", "palm-oil-free", "palmuoljyton", "utan palmolja", "no palm oil",
                      "without palm oil"),
    "no_added_sugar": ("no added sugar", "sugar free", "sugar-free", "sokeriton", "sockerfri", "sockerfritt",
                       "without sugar", "utan socker", "ilman sokeria", "lisaamaton", "without added sugar",
                       "no sugar added", "ilman lisattya sokeria", "ei lisattya sokeria", "sokeroimaton",
                       "utan tillsatt socker", "ej tillsatt socker", "inget tillsatt socker", "sokerittomat",
                       "sockerfria"),
    "fair_trade": ("fair trade", "fairtrade", "reilu kauppa", "reilun kaupan", "rattvisemarkt"),
    "kosher": ("kosher",),
    "halal": ("halal",),
    "non_gmo": ("non gmo", "non-gmo", "gmo free", "gmo-free"),
    "low_fat": ("low fat", "low-fat", "vaharasvainen", "rasvaton", "fettsnal", "fat free", "fat-free"),
    # "ilman suolaa", "without salt" stay words kept out of the search (request.py), no claim
    "unsalted": ("unsalted", "no salt added", "no added salt", "without added salt", "salt free", "salt-free",
                 "saltfree", "suolaton", "suolatonta", "suolattomat", "suolattoman", "ilman lisattya suolaa",
                 "osaltat", "osaltad", "osaltade", "osaltet", "saltfri", "saltfritt", "saltfria",
                 "utan tillsatt salt", "senza sale"),
    "low_sodium": ("low sodium", "low-sodium", "reduced sodium", "less sodium", "sodium free", "lower sodium",
                   "low salt", "low-salt", "reduced salt", "vahasuolainen", "vahasuolaista", "vahasuolaiset",
                   "vahasuolaisempi", "saltreducerad", "saltreducerat", "saltreducerade", "natriumfattig",
                   "saltfattig", "natriumsnal"),
    # "lightly salted", "lättsaltat" are not claims a buyer asks: they ask for salt, and an unsalted butter
    # (low in salt) is no lightly salted one
}

# The fourteen EU allergen groups (plus coconut, which US labels declare).
ALLERGENS: dict[str, str] = {
    "gluten": "gluten", "crustaceans": "crustaceans", "eggs": "eggs", "fish": "fish", "peanuts": "peanuts",
    "soy": "soy", "milk": "milk", "nuts": "tree nuts", "celery": "celery", "mustard": "mustard",
    "sesame": "sesame", "sulphites": "sulphites", "lupin": "lupin", "molluscs": "molluscs", "coconut": "coconut",
}

# Data spellings (tags and free text, folded) -> allergen id.
ALLERGEN_TAGS: dict[str, str] = {
    "en:gluten": "gluten", "en:wheat": "gluten", "en:wheat-gluten": "gluten", "en:wheat-flour": "gluten",
    "en:unbleached-wheat-flour": "gluten", "en:barley": "gluten", "en:rye": "gluten", "en:oats": "gluten",
    "en:spelt": "gluten", "de:weizenprotein": "gluten",
    "en:crustaceans": "crustaceans", "en:crustacean-shellfish": "crustaceans", "en:shellfish": "crustaceans",
    "en:eggs": "eggs", "en:egg": "eggs", "de:huhnereiweiss": "eggs",
    "en:fish": "fish", "en:peanuts": "peanuts", "en:peanut": "peanuts", "en:peanut-butter": "peanuts",
    "en:soybeans": "soy", "en:soy": "soy", "en:soya": "soy", "en:soy-lecithin": "soy",
    "en:milk": "milk", "en:milkfat": "milk", "en:buttermilk": "milk", "en:lactose": "milk", "en:whey": "milk",
    "en:cream": "milk", "en:butter": "milk", "en:cheese": "milk", "it:burro": "milk", "de:wheyprotein": "milk",
    "de:wheyproteinkonzentrat": "milk", "en:lactic-acid": None,
    "en:nuts": "nuts", "en:tree-nuts": "nuts", "en:tree-nut": "nuts", "en:treenuts": "nuts", "en:almonds": "nuts",
    "en:hazelnuts": "nuts", "en:walnuts": "nuts", "en:cashews": "nuts", "en:pistachios": "nuts",
    "en:pecans": "nuts", "en:macadamia-nuts": "nuts", "en:brazil-nuts": "nuts",
    "en:celery": "celery", "en:mustard": "mustard", "en:sesame-seeds": "sesame", "en:sesame": "sesame",
    "en:sulphur-dioxide-and-sulphites": "sulphites", "en:sulfur-dioxide": "sulphites", "en:sulphites": "sulphites",
    "en:lupin": "lupin", "en:molluscs": "molluscs", "en:coconut": "coconut",
}

# Words in an ingredients list that declare an allergen even where the maker's tags are missing.
# Deliberately broad ("coconut milk" reads as milk): a false alarm only hides a product from an
# "avoid" request, a miss would show a product that breaks it.
INGREDIENT_WORDS: dict[str, tuple[str, ...]] = {
    "soy": ("soy", "soya", "soja", "soia", "soybean", "soybeans", "edamame", "tofu"),
    "milk": ("milk", "whey", "lactose", "butter", "cream", "cheese", "casein", "caseinate", "latte", "siero",
             "burro", "panna", "formaggio", "lait", "beurre", "creme", "fromage", "lactoserum", "yogurt",
             "yoghurt", "ghee", "milch", "mjolk", "maito", "kerma"),
    "eggs": ("egg", "eggs", "uova", "uovo", "oeuf", "oeufs", "albumen", "albumin"),
    "gluten": ("wheat", "barley", "rye", "spelt", "gluten", "frumento", "grano", "orzo", "segale", "farro",
               "ble", "seigle", "malt", "semolina", "semola", "durum"),
    "nuts": ("almond", "almonds", "hazelnut", "hazelnuts", "walnut", "walnuts", "cashew", "cashews", "pecan",
             "pecans", "pistachio", "pistachios", "macadamia", "mandorle", "mandorla", "nocciole", "nocciola",
             "noci", "pistacchi", "amande", "amandes", "noisette", "noisettes", "tree nuts"),
    "peanuts": ("peanut", "peanuts", "arachidi", "arachide", "cacahuete", "cacahuetes"),
    "fish": ("fish", "anchovy", "anchovies", "tuna", "salmon", "cod", "pesce", "tonno", "acciughe", "poisson"),
    "crustaceans": ("shrimp", "prawn", "prawns", "crab", "lobster", "gamberi", "crevettes"),
    "molluscs": ("mussel", "mussels", "oyster", "squid", "clam", "cozze", "vongole"),
    "sesame": ("sesame", "sesamo", "sesam", "tahini"),
    "celery": ("celery", "sedano", "celeri"),
    "mustard": ("mustard", "senape", "moutarde"),
    "lupin": ("lupin", "lupine", "lupini"),
    "sulphites": ("sulphite", "sulphites", "sulfite", "sulfites", "sulphur dioxide", "sulfur dioxide",
                  "solfiti", "metabisulfite", "metabisulphite"),
}

# What a buyer says for an allergen (folded), in phrases like "without X", "X-free", "ilman X", "utan X".
AVOID_WORDS: dict[str, tuple[str, ...]] = {
    "soy": ("soy", "soya", "soja", "soia", "soija", "soijaa", "soijan"),
    "milk": ("milk", "dairy", "maito", "maitoa", "maidon", "mjolk", "latte", "milk products", "maitotuotteet"),
    "eggs": ("egg", "eggs", "kananmuna", "kananmunaa", "muna", "munaa", "agg", "uova"),
    "nuts": ("nut", "nuts", "tree nuts", "tree nut", "pahkina", "pahkinaa", "pahkinat", "pahkinoita", "notter",
             "not", "noci"),
    "peanuts": ("peanut", "peanuts", "maapahkina", "maapahkinaa", "maapahkinat", "jordnot", "jordnotter"),
    "gluten": ("gluten", "wheat", "vehna", "vehnaa", "vete", "gluteeni", "gluteenia"),
    "fish": ("fish", "kala", "kalaa", "fisk"),
    "crustaceans": ("shellfish", "crustaceans", "ayriaiset", "ayriaisia", "skaldjur"),
    "sesame": ("sesame", "seesami", "seesamia", "sesam"),
    "celery": ("celery", "selleri", "selleria"),
    "mustard": ("mustard", "sinappi", "sinappia", "senap"),
    "lupin": ("lupin", "lupiini", "lupin"),
    "sulphites": ("sulphites", "sulfites", "sulfiitit"),
}
# Finnish "-ton/-tön" and Swedish "-fri" compounds: "pähkinätön", "nötfri", "soijaton" (folded stems).
AVOID_STEMS: dict[str, tuple[str, ...]] = {
    "soy": ("soija", "soja", "soy", "soya"),
    "milk": ("maido", "maito", "mjolk", "dairy", "milk"),
    "eggs": ("muna", "kananmuna", "agg", "egg"),
    "nuts": ("pahkina", "not", "nut"),
    "peanuts": ("maapahkina", "jordnot", "peanut"),
    "gluten": ("vehna", "vete", "wheat", "gluteeni", "gluten"),
    "fish": ("kala", "fisk", "fish"),
    "sesame": ("seesami", "sesam", "sesame"),
    "celery": ("selleri", "celery"),
    "mustard": ("sinappi", "sinapi", "senap", "mustard"),
}
# An avoid-rule on nuts also keeps peanuts out: buyers who say "nut-free" rarely mean "peanuts are fine".
AVOID_ALSO: dict[str, tuple[str, ...]] = {"nuts": ("peanuts",)}

# "without X" in the three languages (folded), and the suffixes of "X-free".
WITHOUT_WORDS = ("without", "no", "free from", "free of", "ilman", "utan", "senza", "sans", "not containing",
                 "ei sisalla", "innehaller inte", "does not contain")
FREE_SUFFIXES = ("free", "ton", "fri", "fritt", "fria", "tonta", "ttomat", "vapaa", "vapaat", "vapaata")
# Finnish "-ton/-tön", "-vapaa" and Swedish "-fri" written as one word with what they keep out
FREE_WORD_SUFFIXES = ("ttomat", "tonta", "ton", "vapaat", "vapaata", "vapaa", "fritt", "fria", "fri")

STOPWORDS = frozenset(
    "a an the and or of for to in on with some something any me i want need looking find buy please "
    "ja tai jotain joku jokin haluan etsin tarvitsen kanssa "
    "och eller nagot nagon jag vill soker behover med en ett "
    "di e il la per con".split()
)

# Phrases in an ingredients list that look like an allergen word but are not one (removed before reading).
NOT_ALLERGEN_PHRASES = ("cocoa butter", "cacao butter", "burro di cacao", "beurre de cacao", "shea butter",
                        "coconut milk", "coconut cream", "cream of tartar", "buckwheat", "latte di cocco",
                        "lait de coco", "butternut", "nutmeg")
