"""The word lists of postal addresses (used by :mod:`~redaction.minimise.addresses`).

Address cues, address words, street words (before the street's name, as in "Calle Mayor 5",
or after it, as in "14 Harrow Lane"), one-word street-name endings, unit words, post-office
box phrases and the prepositions of German street names ("Am Sonnenhang 4"). The lists
cover the support languages and their ordinary address words; no street or town is listed.
"""

from __future__ import annotations

from redaction.minimise.pieces import word_set

ADDRESS_CUES = word_set(
    "adresim bezorgadres lieferadresse moro vivo wohne wohnen wohnt habito woon woont wonen "
    "mieszkam mieszkamy mieszka alamat habite habitons vivimos viviamo abito abitiamo "
    "bydliště bydlím bydlí bydlisko bývam naishi nakatira μένω μένει"
)
"""Words that start an address: the rest of the clause is dropped."""

ADDRESS_WORDS = word_set(
    "address adres adresse indirizzo dirección direccion endereço anschrift adresu adresa "
    "adrese adresas aadress osoite címem cím adreça helbidea cyfeiriad heimilisfang"
)
"""Address words that start one only after "my", "her"... or before ":" or "is"."""

POSSESSIVES = word_set(
    "my his her our their mi mis su mon ma mes son sa mein meine meinen sein seine ihr ihre "
    "meu minha seu sua mijn zijn haar mio mia suo moje mój jego jej ship deliver send"
)

ADDRESS_CUES_OTHER = (
    "배송지", "주소", "पता", "住所", "地址", "адрес", "عنوان", "διεύθυνσ", "כתובת", "ที่อยู่",
    # 2026-12-04, round 8: Sinhala, Kazakh, Uzbek and Kyrgyz, Tamil, Bengali
    "ලිපිනය", "мекенжай", "манзил", "дарек", "முகவரி", "ঠিকানা",
)  # fmt: skip
"""Address words of uncased scripts (and Greek and Cyrillic stems), found inside a piece."""

ADDRESS_PHRASES = (
    ("địa", "chỉ"), ("live", "at"), ("lives", "at"), ("living", "at"), ("reside", "at"),
    ("resides", "at"), ("residing", "at"),
)  # fmt: skip
"""Two-word address cues ("địa chỉ", Vietnamese; "I live at"): the clause after them is
dropped."""

STREET_WORDS = word_set(
    "rua rue calle c/ avenida avda avda. av. avenue ave ave. boulevard bd bd. bulevar via viale "
    "piazza piazzale corso vicolo largo strada lungomare straße strasse str. weg gasse platz "
    "allee laan straat plein gracht kade singel steeg dijk paseo plaza camino carrer ronda "
    "travesía praça travessa estrada alameda impasse chemin allée quai cours caddesi cad. "
    "sokak sok. mahallesi ulica ul. aleja al. plac pl. osiedle os. rynek улица ул. проспект "
    "пр. вулиця вул. ngõ phố đường hẻm ngách náměstí nám. ulice třída nábřeží námestie "
    "οδός οδό οδ. λεωφόρος λεωφόρο λεωφ. πλατεία "
    # 2026-12-04: Bulgarian, Russian, Serbian, Kazakh, Mongolian, Swahili, Malay and
    # Indonesian, Albanian, Maltese, Baltic, Slovene, Irish, Welsh, Basque, Icelandic,
    # Estonian, Turkic street words
    "бул. бул булевард бульвар шоссе переулок пер. проезд площадь пл. булевар улица "
    "көшесі көше даңғылы гудамж өргөн_чөлөө mtaa barabara jalan jl. jln. lorong "
    "rruga rr. bulevardi triq iela gatvė prospektas ulica sráid bóthar heol ffordd "
    "stryd kalea etorbidea stræti vegur tänav mnt. maantee küçəsi prospekti "
    "ko'chasi ko\u02bbchasi caddesi улице улицу переулке проспекте бульваре"
)
"""Street words before the street's name, or on either side of it ("Calle Mayor 5",
"ul. Marszałkowska 84", "12 rue des Lilas"): capitalised or abbreviated, near a number."""

AFTER_NAME_STREET_WORDS = word_set(
    "street st st. road rd rd. lane ln ln. drive dr dr. close court ct ct. way crescent cres "
    "cres. place pl square sq sq. grove terrace ter terr gardens mews parkway pkwy pkwy. "
    "highway hwy hwy. circle cir cir. trail trl row walk boulevard blvd blvd. avenue ave ave."
)
"""English street words, written after the street's name: an address only with a house
number before that name ("14 Harrow Lane", "88 Birchwood Blvd"), so that "Street Fighter 6"
or "Google Drive 85.0" is no address."""

UNCASED_STREET_WORDS = (
    "רחוב", "شارع", "ถนน", "ซอย", "ქუჩა", "გამზირი", "შესახვევი", "փողոց", "պողոտա",
    "சாலை", "தெரு", "मार्ग", "गली", "रोड", "সড়ক", "রোড", "මාවත", "ຖະໜົນ", "خیابان", "کوچه",
    "بلوار", "መንገድ", "ጎዳና", "පාර", "වීදිය",
)  # fmt: skip
"""Street words of uncased scripts (Hebrew, Arabic, Thai), found inside a piece."""

LOWER_STREET_WORDS = word_set(
    "rua calle avenida avenue rue boulevard viale piazza piazzale corso vicolo largo strada "
    "straße strasse gasse allee laan straat plein gracht kade caddesi sokak mahallesi ulica "
    "aleja plac osiedle rynek carrer paseo plaza camino impasse chemin allée quai praça "
    "travessa estrada улица проспект вулиця náměstí ulice třída οδός οδό λεωφόρος λεωφόρο "
    "улице улицу переулок переулке проспекте бульвар бульваре булевард площади шоссе"
)
"""Street words that start an address in lower case too ("rue des Lilas"); not "via" or "way"."""

STREET_ENDINGS = (
    "straße", "strasse", "str", "allee", "damm", "ufer", "chaussee", "steig", "pfad", "platz",
    "gasse", "straat", "gracht", "laan", "plein", "singel", "weg", "gatan", "gata", "vägen",
    "väg", "gränd", "torget", "gade", "vej", "veien", "veg", "gaten", "katu", "utca",
)  # fmt: skip
"""Endings of one-word street names in the Germanic, Nordic, Finnish and Hungarian
languages ("Lindenstraße", "Hauptstr.", "Kungsgatan", "Nørrevej"), near a number."""

UNIT_WORDS = word_set(
    "flat apt apt. apartment appartement apartamento apto apto. wohnung whg. lgh lägenhet "
    "leilighet lejlighed piso dpto dpto. кв. квартира"
)
"""Words for a flat or apartment, before its number ("Flat 2", "Whg. 5")."""

TITLE_UNIT_WORDS = word_set("unit suite")
"""Unit words that are ordinary words in lower case ("test suite 3"): capitalised only."""

UNCASED_UNIT_WORDS = ("דירה", "شقة")

PO_BOXES = (
    ("po", "box"), ("p.o.", "box"), ("p.o", "box"), ("postfach",), ("postbus",), ("postbox",),
    ("bp",), ("b.p.",), ("boîte", "postale"), ("apartado",), ("casilla",), ("c.p.",),
    ("casella", "postale"), ("caixa", "postal"), ("skrytka", "pocztowa"), ("postboks",),
    ("box",), ("абонентский", "ящик"), ("\u0430/\u044f",),
)  # fmt: skip
"""Post-office box phrases ("PO Box 3381", "Postfach 10 12 34", "Apartado de Correos 441"):
with a number after them, the clause from the phrase on is dropped. "Box" and the short
abbreviations count only capitalised or in capitals."""

STREET_PREPOSITIONS = word_set("am an auf im in zum zur unter hinter vor beim op aan")
"""German (and Dutch) prepositions that start a street name ("Am Sonnenhang 4", "An der
Alster 12"): capitalised inside a sentence, before a capitalised word and a house number."""

STREET_ARTICLES = word_set("der dem den die het de")

ABBREVIATIONS = word_set(
    "str ave avda blvd rd dr ln st apt dpto whg nr no pl os al ul bd cad sok cres sq ter "
    "pkwy hwy cir trl av vul ул кв пр бул пер пл jl jln rr mnt вул пров просп int apto esc izq "
    "dcha piso lok"
)
"""Abbreviations whose full stop does not end an address clause ("Hauptstr. 7a, Köln")."""

CLAUSE_CONJUNCTIONS = word_set("y e and et und en i ve")

UNIT_ABBREVIATIONS = word_set("ap apt app apto shk bl blk kv kat et fl lgh whg dpto pt lok nr no")
"""Abbreviations of a flat, block, floor or number inside an address, before a number ("Shk.
2, Ap. 7", "kv. 12"): the clause goes on past their full stop."""

NETWORK_WORDS = word_set("ip ipv4 ipv6 mac web e-mail email dns url ethernet wan lan")
"""Words before an uncased address word that make it a network's or a mailbox's address
("MAC мекенжайы", "IP-адрес"), not a postal one."""
