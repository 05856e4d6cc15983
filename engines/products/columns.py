"""Which column is which: a catalogue's headers, in Finnish, Swedish or English, mapped to product fields.

Headers are compared folded (case, accents) with spaces, underscores and punctuation dropped, so
"Tuote nimi", "tuote_nimi" and "TUOTENIMI" are one header. A name column with a language marker
("Tuotenimi ruotsiksi", "name_sv", "namn på finska", "nimi (ruotsi)") is that language's name. The
main name's language is guessed from the headers' own language (Finnish headers -> Finnish names).
A ``catalogue.toml`` beside the file, or ``[products.columns]`` in config.toml, overrides any guess:

    language = "fi"          # the main name column's language
    [columns]
    name = "Tuote"           # field = "header as written"
    name_sv = "Ruotsiksi"
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from engines.lexical import fold

# field -> (language or "" for words every language uses, header spellings, compared folded and squeezed)
FIELD_HEADERS: dict[str, dict[str, tuple[str, ...]]] = {
    "code": {"en": ("code", "ean", "gtin", "sku", "productcode", "productnumber", "itemnumber", "itemno",
                    "articlenumber", "barcode", "ean13", "id", "productid"),
             "fi": ("tuotenumero", "tuotekoodi", "koodi", "nimikenumero", "viivakoodi", "tuotetunnus"),
             "sv": ("artikelnummer", "artikelnr", "artnr", "produktnummer", "produktkod", "streckkod", "kod")},
    "name": {"en": ("name", "productname", "product", "title", "itemname"),
             "fi": ("nimi", "tuotenimi", "tuote", "nimike", "nimitys", "tuotteennimi", "tuotekuvaus"),
             "sv": ("benamning", "produktnamn", "namn", "produkt", "artikelnamn", "varunamn", "artikel")},
    "brand": {"en": ("brand", "brandname", "manufacturer", "maker", "supplier"),
              "fi": ("merkki", "tuotemerkki", "brandi", "valmistaja", "toimittaja"),
              "sv": ("marke", "varumarke", "tillverkare", "leverantor")},
    "size": {"en": ("size", "packsize", "packagesize", "quantity", "netcontent", "netweight", "volume", "weight"),
             "fi": ("pakkauskoko", "koko", "maara", "nettopaino", "paino", "tilavuus", "sisalto"),
             "sv": ("storlek", "forpackningsstorlek", "vikt", "nettovikt", "volym", "mangd", "innehall")},
    "category": {"en": ("category", "categories", "productgroup", "group", "department"),
                 "fi": ("tuoteryhma", "ryhma", "kategoria", "osasto", "tuoteluokka"),
                 "sv": ("varugrupp", "kategori", "produktgrupp", "grupp", "avdelning")},
    "allergens": {"en": ("allergens", "allergen", "allergeninfo", "contains"),
                  "fi": ("allergeenit", "allergeeni", "allergiatiedot", "sisaltaa"),
                  "sv": ("allergener", "allergen", "innehaller")},
    "traces": {"en": ("maycontain", "traces", "mayconatintraces", "maycontaintraces"),
               "fi": ("saattaasisaltaa", "voisisaltaa", "jaamia", "saattaasisaltaajaamia"),
               "sv": ("kaninnehalla", "kaninnehallaspar", "spar", "sparav")},
    "labels": {"en": ("labels", "label", "claims", "claim", "certifications", "diets"),
               "fi": ("merkinnat", "merkinta", "ominaisuudet", "ruokavaliot", "erityisruokavaliot"),
               "sv": ("markning", "markningar", "egenskaper", "specialkost")},
    "ingredients": {"en": ("ingredients", "ingredient", "ingredientlist"),
                    "fi": ("ainesosat", "ainekset", "ainesosaluettelo", "raakaaineet"),
                    "sv": ("ingredienser", "ingrediensforteckning", "innehallsforteckning")},
}
FIELDS = tuple(FIELD_HEADERS)

# Words that mark a column's language ("ruotsiksi", "på svenska", "_sv"), folded.
LANGUAGE_WORDS: dict[str, tuple[str, ...]] = {
    "fi": ("fi", "fin", "suomi", "suomeksi", "suomenkielinen", "finska", "finsk", "finnish"),
    "sv": ("sv", "se", "swe", "ruotsi", "ruotsiksi", "ruotsinkielinen", "svenska", "svensk", "swedish"),
    "en": ("en", "eng", "englanti", "englanniksi", "englanninkielinen", "engelska", "english"),
}
_FILLER = {"pa", "in", "i", "of", "paa"}  # "namn på finska" (folded "pa"), "name in english"
_WORD = re.compile(r"[a-z0-9]+")
HEADER_SCAN_ROWS = 20  # title rows above a spreadsheet's header: exports seen put 1-4 there


def squeeze(header: str) -> str:
    return "".join(_WORD.findall(fold(header)))


_LOOKUP: dict[str, tuple[str, str]] = {}  # squeezed header -> (field, language of the word)
for _field, _by_language in FIELD_HEADERS.items():
    for _language, _spellings in _by_language.items():
        for _spelling in _spellings:
            _LOOKUP.setdefault(_spelling, (_field, _language))
_LANGUAGE_OF = {w: lang for lang, words in LANGUAGE_WORDS.items() for w in words}


def recognise(header: str) -> tuple[str, str, str] | None:
    """(field, name language or "", header language or "") for one header, None when it means nothing known.

    "Tuotenimi ruotsiksi" -> ("name", "sv", "fi"); "Tuotenumero" -> ("code", "", "fi").
    """
    squeezed = squeeze(header)
    if not squeezed:
        return None
    if squeezed in _LOOKUP:
        field_, language = _LOOKUP[squeezed]
        return field_, "", language
    words = _WORD.findall(fold(header))
    marked = [w for w in words if w in _LANGUAGE_OF]
    rest = "".join(w for w in words if w not in _LANGUAGE_OF and w not in _FILLER)
    if marked and rest in _LOOKUP and _LOOKUP[rest][0] == "name":
        return "name", _LANGUAGE_OF[marked[-1]], _LOOKUP[rest][1]
    return None


@dataclass
class Mapping:
    """field -> column index, and the language each name column holds."""

    columns: dict[str, int] = field(default_factory=dict)  # "code", "name", "brand", ... -> index
    names: dict[str, int] = field(default_factory=dict)  # language ("" unknown) -> index of that name column
    header: list[str] = field(default_factory=list)
    language: str = ""  # the main name column's language
    guessed_language: bool = True
    overridden_by: str = ""  # "catalogue.toml" / "config.toml [products.columns]" / ""

    def describe(self) -> list[str]:
        """"Tuotenimi -> name (fi)" lines, in the header's order, and the columns left as attributes."""
        used = {i: f for f, i in self.columns.items() if f != "name"}
        used.update({i: f"name ({lang or 'language unknown'})" for lang, i in self.names.items()})
        lines = [f"{' '.join(self.header[i].split())} -> {used[i]}" for i in sorted(used)]
        rest = [" ".join(h.split()) for i, h in enumerate(self.header) if i not in used and h.strip()]
        if rest:
            lines.append(f"kept as attributes: {', '.join(rest)}")
        return lines


class MappingError(ValueError):
    """No name column: the one line asking for it."""


def guess(header: list[str], where: str, overrides: "Overrides | None" = None) -> Mapping:
    overrides = overrides or Overrides()
    mapping = Mapping(header=list(header), overridden_by=overrides.source)
    votes: dict[str, int] = {}
    main_name: int | None = None
    for i, text in enumerate(header):
        found = recognise(text)
        if not found:
            continue
        field_, name_language, header_language = found
        if header_language and squeeze(text) not in ("id", "code"):
            votes[header_language] = votes.get(header_language, 0) + 1
        if field_ == "name" and name_language:
            mapping.names.setdefault(name_language, i)
        elif field_ == "name":
            # a header that says "name" beats one that may be a name ("Artikel;Produktnamn": the second)
            if main_name is None or (_names_it(text) and not _names_it(header[main_name])):
                main_name = i
        elif field_ not in mapping.columns:
            mapping.columns[field_] = i
    by_header = {squeeze(h): i for i, h in enumerate(header)}
    for field_, wanted in overrides.columns.items():
        index = by_header.get(squeeze(wanted))
        if index is None:
            raise MappingError(f"{Path(where).name}: {overrides.source} names column {wanted!r} for {field_}, but the "
                               f"columns are {seen(header)}")
        if field_ == "name":
            main_name = index
        elif field_.startswith("name_"):
            mapping.names[field_[5:]] = index
        else:
            mapping.columns[field_] = index
    if main_name is None and mapping.names:
        language = next(iter(mapping.names))  # a file with only "name_fi": that is its main name
        main_name = mapping.names.pop(language)
        mapping.language, mapping.guessed_language = language, False
    if main_name is None:
        raise MappingError(f"{Path(where).name}: no name column among {seen(header)}; "
                           f"say which in catalogue.toml ([columns] name = \"...\")")
    if overrides.language:
        mapping.language, mapping.guessed_language = overrides.language, False
    elif not mapping.language:
        ranked = sorted(votes.items(), key=lambda kv: -kv[1])
        if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            mapping.language = ranked[0][0]
    mapping.columns["name"] = main_name
    mapping.names = {mapping.language: main_name, **{k: v for k, v in mapping.names.items() if v != main_name
                                                      and k != mapping.language}}
    return mapping


_NAMING = ("nam", "nimi", "nimike", "nimitys", "benamning", "title")


def _names_it(header: str) -> bool:
    """The header says "name" (produktnamn, tuotenimi, benämning, item name), not only "product" or "article"."""
    return any(n in squeeze(header) for n in _NAMING)


def seen(header: list[str], most: int = 15) -> str:
    """The headers as a message names them: one line, each cut short, the first ``most`` of them."""
    said = [" ".join(h.split())[:40] for h in header if h.strip()]
    return (", ".join(said[:most]) + (f" and {len(said) - most} more" if len(said) > most else "")) or "(no headers)"


def header_score(row: list[str]) -> int:
    """How many of a row's cells are known headers: the header row of a sheet is the best-scoring one."""
    return sum(1 for cell in row if cell and recognise(cell))


def pick_header(rows: list[list[str]]) -> int:
    """The first of the best-scoring rows among the first ones (title rows above it score 0 or 1)."""
    best, best_score = 0, -1
    for i, row in enumerate(rows[:HEADER_SCAN_ROWS]):
        score = header_score(row)
        if score > best_score:
            best, best_score = i, score
    if best_score <= 0:  # nothing recognised: the first non-empty row, so the "no name column" line names it
        best = next((i for i, row in enumerate(rows) if any(row)), 0)
    return best


@dataclass
class Overrides:
    columns: dict[str, str] = field(default_factory=dict)  # field -> header as written
    language: str = ""
    delimiter: str = ""
    encoding: str = ""
    source: str = ""
    problem: str = ""  # a catalogue.toml that could not be read


def overrides_for(path: Path) -> Overrides:
    """``catalogue.toml`` beside the file (or in the folder) first, then config.toml's ``[products.columns]``."""
    beside = (path if path.is_dir() else path.parent) / "catalogue.toml"
    if beside.is_file():
        try:
            data = tomllib.loads(beside.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            return Overrides(problem=f"{beside}: not read ({' '.join(str(exc).split())[:120]}); columns guessed")
        return _overrides(data, data.get("columns"), str(beside))
    return overrides_from_config()


def overrides_from_config() -> Overrides:
    """``[products.columns]`` (and ``language`` etc. in ``[products.catalogue]``) in config.toml."""
    from engines.settings import read_config

    section = read_config().section("products") or {}
    if isinstance(section, dict) and (section.get("columns") or section.get("catalogue")):
        extra = section.get("catalogue") if isinstance(section.get("catalogue"), dict) else {}
        return _overrides(extra, section.get("columns"), "config.toml [products.columns]")
    return Overrides()


def _overrides(top: dict, columns, source: str) -> Overrides:
    columns = columns if isinstance(columns, dict) else {}
    return Overrides({str(k): str(v) for k, v in columns.items() if isinstance(v, str)},
                     str(top.get("language") or ""), str(top.get("delimiter") or ""), str(top.get("encoding") or ""),
                     source)
