"""Numbers in English text to the words a voice says, never changing the number: we classify (dates,
versions, currency, units, ranges, ordinals...), num2words (LGPL-2.1) gives the words. Table and sources:
docs/tts.md, Text front end."""
from __future__ import annotations

import re

DAY_FIRST_LOCALES = frozenset({"en-gb", "en-au", "en-ie", "en-in", "en-nz", "en-za"})
_DIGIT = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS_IN = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

#: Unit symbol -> (singular, plural). Case matters ("mm" millimetres, "Mm" not a unit; "B" bytes).
UNITS: dict[str, tuple[str, str]] = {
    "ms": ("millisecond", "milliseconds"), "µs": ("microsecond", "microseconds"),
    "us": ("microsecond", "microseconds"), "ns": ("nanosecond", "nanoseconds"), "s": ("second", "seconds"),
    "sec": ("second", "seconds"), "min": ("minute", "minutes"), "h": ("hour", "hours"), "hr": ("hour", "hours"),
    "hrs": ("hours", "hours"), "secs": ("seconds", "seconds"), "mins": ("minutes", "minutes"),
    "wk": ("week", "weeks"), "wks": ("weeks", "weeks"), "yr": ("year", "years"), "yrs": ("years", "years"),
    "tsp": ("teaspoon", "teaspoons"), "tbsp": ("tablespoon", "tablespoons"),
    "Hz": ("hertz", "hertz"), "kHz": ("kilohertz", "kilohertz"), "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"),
    "B": ("byte", "bytes"), "kB": ("kilobyte", "kilobytes"), "KB": ("kilobyte", "kilobytes"),
    "MB": ("megabyte", "megabytes"), "GB": ("gigabyte", "gigabytes"), "TB": ("terabyte", "terabytes"),
    "KiB": ("kibibyte", "kibibytes"), "MiB": ("mebibyte", "mebibytes"), "GiB": ("gibibyte", "gibibytes"),
    "kB/s": ("kilobyte per second", "kilobytes per second"), "KB/s": ("kilobyte per second", "kilobytes per second"),
    "MB/s": ("megabyte per second", "megabytes per second"), "GB/s": ("gigabyte per second", "gigabytes per second"),
    "kbps": ("kilobit per second", "kilobits per second"), "Mbps": ("megabit per second", "megabits per second"),
    "Gbps": ("gigabit per second", "gigabits per second"),
    "nm": ("nanometer", "nanometers"), "mm": ("millimeter", "millimeters"), "cm": ("centimeter", "centimeters"),
    "m": ("meter", "meters"), "km": ("kilometer", "kilometers"), "km/h": ("kilometer per hour", "kilometers per hour"),
    "kph": ("kilometer per hour", "kilometers per hour"), "mph": ("mile per hour", "miles per hour"),
    "m/s": ("meter per second", "meters per second"), "ft": ("foot", "feet"), "mi": ("mile", "miles"),
    "mg": ("milligram", "milligrams"), "g": ("gram", "grams"), "kg": ("kilogram", "kilograms"),
    "lb": ("pound", "pounds"), "lbs": ("pounds", "pounds"), "oz": ("ounce", "ounces"),
    "ml": ("milliliter", "milliliters"), "mL": ("milliliter", "milliliters"), "L": ("liter", "liters"),
    "°C": ("degree Celsius", "degrees Celsius"), "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"), "%": ("percent", "percent"),
    "V": ("volt", "volts"), "mV": ("millivolt", "millivolts"), "W": ("watt", "watts"), "kW": ("kilowatt", "kilowatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"), "mA": ("milliamp", "milliamps"),
    "dB": ("decibel", "decibels"), "px": ("pixel", "pixels"), "fps": ("frame per second", "frames per second"),
}
_CURRENCY = {"$": ("dollar", "dollars", "cent", "cents"), "£": ("pound", "pounds", "penny", "pence"),
             "€": ("euro", "euros", "cent", "cents"), "¥": ("yen", "yen", "sen", "sen")}
_SCALES = {"K": "thousand", "k": "thousand", "M": "million", "m": "million", "mn": "million", "B": "billion",
           "bn": "billion", "tn": "trillion",
           "thousand": "thousand", "million": "million", "billion": "billion", "trillion": "trillion"}

# A number as written: thousands groups, or plain digits; optional decimals.
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
# A unit after a number: "°C" / "%" may be glued, word units end at a word boundary.
_UNIT = rf"(?:{_UNIT_ALT})(?![\w/])"
_NO_UNIT_AFTER = r"(?!\s?" + _UNIT + ")"
# A rate: "$5/month", "20 km/day", "3 times/week", "£2/kg" -> "... per month", "... per kilogram".
_PER_RE = re.compile(r"(?<![\w/.])([$£€¥]?\d[\d,]*(?:\.\d+)?(?:\s?(?:" + _UNIT_ALT + r"|times))?)/"
                     r"([A-Za-z]+)\b(?![/.]\w)")


def _n2w(value, **kw) -> str:
    from num2words import num2words

    return num2words(value, lang="en", **kw).replace("-", " ")


def digits_words(digits: str) -> str:
    """``"0031"`` -> ``"zero zero three one"`` (non-digits are dropped)."""
    return " ".join(_DIGIT[int(d)] for d in digits if d.isdigit())


def identifier_words(digits: str) -> str:
    """A number that names something (room, flight, gate) as people say it: ``"101"`` -> "one oh one",
    ``"1549"`` -> "fifteen forty nine" (num2words' year reading); a leading zero or 5+ digits digit by digit."""
    if (len(digits) > 1 and digits.startswith("0")) or len(digits) >= 5:
        return digits_words(digits)
    return _n2w(int(digits), to="year")


def cardinal(raw: str, year_ok: bool = False) -> str:
    """A written integer or decimal (``"1,234"``, ``"-3"``, ``"2.50"``, ``".5"``) in words; leading
    zeros and runs over 15 digits digit by digit; ``year_ok``: 1100-2099 as years."""
    raw = raw.replace("\u2212", "-")
    neg = raw.startswith("-")
    body = raw.lstrip("+-")
    whole, _, frac = body.partition(".")
    plain = whole.replace(",", "")
    minus = "minus " if neg else ""
    if frac or body.startswith("."):
        head = _n2w(int(plain)) if plain else ""
        return (minus + head + " point " + digits_words(frac)).replace("  ", " ").strip()
    if (len(plain) > 1 and plain.startswith("0")) or len(plain) > 15:
        return minus + digits_words(plain)
    value = int(plain)
    if year_ok and not neg and "," not in whole and len(plain) == 4 and 1100 <= value <= 2099:
        return _n2w(value, to="year")
    return minus + _n2w(value)


def ordinal(n: int) -> str:
    """``21`` -> ``"twenty first"``."""
    return _n2w(int(n), to="ordinal")


def phone_words(raw: str) -> str:
    """A phone number read group by group, digit by digit: ``"+1 (555) 014-2"`` -> ``"plus one, ..."``."""
    spoken = ", ".join(digits_words(g) for g in re.findall(r"\d+", raw))
    return ("plus " if raw.lstrip().startswith("+") else "") + spoken


def date_words(year: int | None, month: int, day: int | None, day_first: bool = False,
               year_text: str | None = None) -> str:
    """``(2024, 3, 7)`` -> ``"March seventh, twenty twenty four"`` (``day_first``: ``"the seventh of
    March, twenty twenty four"``). ``year_text``: the year as written (two digits stay two digits)."""
    month_name = _MONTHS[month - 1]
    if day is None:
        head = month_name
    elif day_first:
        head = f"the {ordinal(day)} of {month_name}"
    else:
        head = f"{month_name} {ordinal(day)}"
    if year is None:
        return head
    text = year_text if year_text is not None else str(year)
    spoken = _n2w(int(text), to="year") if len(text) == 4 else cardinal(text)
    return f"{head}, {spoken}"


def _valid(month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= _DAYS_IN[month - 1]


# ----------------------------------------------------------------------------- the classes
_SCI_RE = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)(?:[eE]([+-]?\d+)|\s?[x×]\s?10\^([+-]?\d+))(?![\w]|\.\d)"
                     r"(?:\s?(" + _UNIT + r"))?")
# Feet and inches ("6'2\"", "5′11″", "5 ft 3 in"; NFKC: ″ is two ′), inches alone outside quotes ("a 12\" pizza").
_FEET_INCHES_RE = re.compile(r"(?<![\w.'′])(\d{1,2})(?:['′]\s?|\s?(?:ft|feet)\.?\s?)(\d{1,2}(?:\.\d+)?)"
                             r"(?:\"|''|′′|\s?in\b(?!\s+(?:a|an|the)\b))")
_INCHES_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:\"|′′)(?!\w)")
# "1920x1080", "2 x 4": "by"; "3x faster", "10x": "times" (not hex "0x1F"; "×" between numbers stays "times").
_BY_RE = re.compile(r"(?<![\w.])(?!0x)(\d+(?:\.\d+)?)(?:\s?x\s?(?=\d(?!\d*\^))|x(?=[\s,;:.!?)]|$))")
_TIMES_RE = re.compile(r"(?<=[\d)])\s?\*\s?(?=[-−]?\.?\d|\()")
_SIGNED = r"(?:(?<![\w.,])[-−])?" + _NUM
_AREA_UNITS = ("mm", "cm", "m", "km", "nm", "ft", "mi")
_AREA_RE = re.compile(r"(?<![\w.,/])(" + _SIGNED + r")\s?(" + "|".join(_AREA_UNITS) + r")\^([23])(?!\w|\.\d)")
_POWER_RE = re.compile(r"(\b[A-Za-z]{1,3})?\s?\^\s?([-−]?\d+(?:\.\d+)?|[A-Za-z]\b)")
# Superscript exponents ("m²", "x⁻¹", "xⁿ") after a number, ")" or a word of up to three letters (a variable,
# a product "mc" or a unit); after a longer word it is a footnote mark and left to NFKC.
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ⁿ", "0123456789-+n")
_SUPERSCRIPT_RE = re.compile(r"([A-Za-z]+|[\d)])([⁻⁺]?(?:[⁰¹²³⁴⁵⁶⁷⁸⁹]+|ⁿ))")
_IP_RE = re.compile(r"(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?::(\d{1,5}))?(?![\w]|\.\d)")
# ISO 8601 date and time ("2024-03-15T10:30:00Z", "2024-03-15 10:30+02:00"): the date, "at" the clock, the zone.
_ISO_DATETIME_RE = re.compile(r"(?<![\w./-])(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
                              r"(Z|[+-]\d{2}:?\d{2})?(?![\w:])")
_ISO_DATE_RE = re.compile(r"(?<![\w./-])(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?![\w/-]|\.\d)")
# A day and month without a year after a word that asks for a date ("on 10/10", "due 5/5", "until 12/31"); elsewhere
# "10/10" is a score and "3/4" a fraction ("by" and "from" are left out: "cut by 1/3", "from 1/2 to 3/4 cup").
_SHORT_DATE_RE = re.compile(r"(?i:\b(on|due|until|till|since|before|after|through|dated|starting|ending)\s+)"
                            r"(\d{1,2})/(\d{1,2})(?![\w/]|[.,]?\d|\s+of\b)")
_DATE_RE = re.compile(r"(?<![\w./-])(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\w/-]|\.\d)"
                      r"|(?<![\w./-])(\d{1,2})\.(\d{1,2})\.(\d{4})(?![\w]|\.\d)")
_VERSION_RE = re.compile(r"(?<![\w.])(?:([vV])(\d+(?:\.\d+)+)|(\d+(?:\.\d+){2,}))(?![\w]|\.\d)")
_PHONE_RE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]\d{2,4}){1,4}"  # +44 20 7946 0958
    r"|\(\d{3}\)\s?\d{3}[ .-]\d{4}"  # (555) 014-2368
    r"|\d{2,5}(?:[ -]\d{2,4}){2,4}"  # 0900 555 010, 555-014-2368 (dates were read before)
    r"|0\d{1,4}[ /-]\d{3,8}"  # 030 1234567, 0800/123456 (a leading zero; 7+ digits: ``_phone``)
    r"|\d{3}-\d{4})"  # 555-0142
    r"(?![\w.,]?\d)" + _NO_UNIT_AFTER)
_CURRENCY_RE = re.compile(r"((?<!\w)-)?([$£€¥])\s?(" + _NUM + r")(?:\s?[-–]\s?(" + _NUM + r"))?"
                          r"(?:\s?(million|billion|trillion|thousand|bn|mn|tn|[KkMBm])\b)?")
# A glued magnitude ("1.2k", "3.4M", "10K followers"): a scale after a decimal or before a plural noun ("5K run",
# "4K TV", "a 4B file" stay letters or a unit).
_SCALE_RE = re.compile(r"(?<![\w.,/])(" + _NUM + r")(bn|mn|tn|[kKMB])(?!\w|\.\d)")
_TIME_RE = re.compile(r"(?<![\w.:])(\d{1,2})(?::|\.(?=\d\d [AP]M\b))(\d{2})(?![\d:])")  # "10:30", "10.30pm"
_CLOCK_SECONDS_RE = re.compile(r"(?<![\w.:])(\d{1,2}):(\d{2}):(\d{2})(?![\d:]|[.,]\d)")
# What is left of "a:b(:c)" after the times: a ratio or a score ("3:1" "three to one", "16:9").
_RATIO_RE = re.compile(r"(?<![\w.:])(\d+(?::\d+)+)(?![\w:]|[.,]\d)")
#: Books a "chapter:verse" follows ("John 3:16", "Genesis 1:1"): read "one, one", not a time or a ratio.
_BIBLE_BOOKS = ("Genesis|Exodus|Leviticus|Deuteronomy|Joshua|Ruth|Samuel|Kings|Chronicles|Ezra"
                "|Nehemiah|Esther|Psalms?|Proverbs|Ecclesiastes|Isaiah|Jeremiah|Lamentations|Ezekiel|Daniel"
                "|Hosea|Joel|Amos|Jonah|Micah|Matthew|Luke|John|Romans|Corinthians|Galatians|Ephesians"
                "|Philippians|Colossians|Thessalonians|Timothy|Titus|Hebrews|James|Peter|Jude|Revelation")
_VERSE_RE = re.compile(r"\b((?:" + _BIBLE_BOOKS + r")\s+)(\d{1,3}):(\d{1,3})(?![\w:]|[.,]\d)")
# "9am", "9 am" -> "9 AM" (espeak says the word "am" once the digits are words); "9am-5pm": "9 AM to 5 PM".
_AMPM_RE = re.compile(r"(?<=\d)\s?([ap])m\b(\s?[-–]\s?(?=\d))?", re.IGNORECASE)
_RANGE_RE = re.compile(r"(?<![\w.,/-])(" + _SIGNED + r")(?:-|\s?[–—]\s?)(" + _NUM + r")(?![\w.,/]?\d)"
                       r"(?:\s?(" + _UNIT + r"))?")
# A season or span of years: "2024/25", "1998-99", "2019/2020" (the second year within ten after the first).
_SEASON_RE = re.compile(r"(?<![\w./-])(1[1-9]\d\d|20\d\d)([/–-])(\d{2}|\d{4})(?![\w/]|[.,]?\d)" + _NO_UNIT_AFTER)
_UNIT_RE = re.compile(r"(?<![\w.,/])(" + _SIGNED + r")\s?(" + _UNIT + r")")
_FRACTION_RE = re.compile(r"(?<![\w./])(?:(\d+)\s)?(\d+(?:\.\d+)?)/(\d+)(?![\w/]|\.\d)")
# A score out of 5, 10 or 100 ("3.5/5", "10/10", "rated 9/10", "9/10 dentists"), not a fraction ("3/10 of a mile").
_SCORE_BEFORE_RE = re.compile(r"(?i:\b(?:rated?|rating|scored?|scores|grade|review|verdict|give|gave|gives|got|gets)\b"
                              r"\D{0,12})$")
_ORDINAL_RE = re.compile(r"(?<![\w.])(\d+)(st|nd|rd|th)\b", re.IGNORECASE)
# Decades: "1990s", "1950's", "'80s"; "the 50s and 60s", "her 30s" (a bare "50s" is fifty seconds).
_DECADE_RE = re.compile(r"(?<![\w.])(?:1[1-9]\d0|20[0-9]0)['’]?s\b|['’][2-9]0s\b|\b(?:(?i:the|her|his|their|my"
                        r"|our|your|early|mid|late)[\s-]+)(?:'?[2-9]0['’]?s(?:,?\s+(?:and|or|to)\s+|\s?[-–,]\s?|\b))+")
# A year with its era ("44 BC", "AD 79", "1492 CE"): read as a year, the era as letters (espeak says "AD" "ad").
_ERA_RE = re.compile(r"(?<![\w.,])(\d{1,4})\s?(BCE|BC|AD|CE|B\.C\.E\.|B\.C\.|A\.D\.|C\.E\.)(?!\w)"
                     r"|\b(AD|A\.D\.)\s?(\d{1,4})(?![\w.,]?\d)")
_NUMBER_RE = re.compile(r"(?:(?<![\w.,])[-−+])?(?<![\d.])(?:" + _NUM + r"|\.\d+)(?![\d])")

# "$10-$20", "£5 – £8": the dash is "to" (the amounts are read after).
_MONEY_RANGE_RE = re.compile(r"(?<![\w.])([$£€¥]\d[\d,]*(?:\.\d+)?)\s?[-–—]\s?(?=[$£€¥]\d)")
_ARITHMETIC_RE = re.compile(r"(?<=\d)\s+([-−–/])\s+(?=[-−]?\d)")
# Roman numerals: a strict numeral (no "IIII", "IC"), upper case only.
_ROMAN = r"(?=[MDCLXVI])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
_ROMAN_VALUE = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
#: Words after which a Roman numeral is a cardinal ("Chapter IV" -> "Chapter four", "World War Two").
_COUNTED_BY = ("chapter|part|volume|vol\\.|book|act|scene|section|article|appendix|episode|phase|stage|type"
               "|class|level|grade|title|canto|psalm|round|series|mark|mk\\.?|annex|schedule|plate|figure|table"
               "|world war|super bowl|vatican|division|corps|army|fleet|symphony|opus|op\\.")
_COUNTED_ROMAN_RE = re.compile(r"\b((?i:" + _COUNTED_BY + r")\s+)(" + _ROMAN + r")\b(?!['’]\w\w|-\w)")
#: Names a one-letter numeral follows as a regnal number ("Elizabeth I", "Henry V", "Pius X"); a
#: numeral of two or more letters (II-XXXIX) follows any capitalised name ("Louis XIV", "Ramesses II").
REGNAL_NAMES = frozenset(
    "Henry Edward George William Richard James Charles John Louis Philip Elizabeth Mary Anne Peter Catherine "
    "Frederick Napoleon Alexander Nicholas Ivan Pius Leo Gregory Benedict Innocent Clement Boniface Paul Urban "
    "Alfonso Ferdinand Isabella Wilhelm Otto Rudolf Francis Joseph Ludwig Gustav Christian Haakon Olaf Harald "
    "Carl Felipe Constantine Justinian Ramesses Thutmose Amenhotep Ptolemy Darius Xerxes Cyrus David "
    "Robert Michael Leopold Maximilian Sigismund Casimir Sancho Pedro Manuel Afonso Sebastian Mehmed Suleiman "
    "Selim Murad Stephen Edmund Harold Sixtus Julius Adrian Hadrian Martin Victor Umberto Frederik Valdemar "
    "Eric Erik Magnus Sverre Jaime Juan Carlos Amadeus Baldwin Godfrey Tiberius Theodosius Basil Romanus".split())
#: A ruler's title before the name makes any name regnal ("King Mswati III", "Pharaoh Seti I").
_TITLE_BEFORE_RE = re.compile(r"\b(?:King|Queen|Pope|Emperor|Empress|Tsar|Czar|Tsarina|Pharaoh|Sultan|Shah|Emir|Prince|"
                              r"Princess|Duke|Duchess|Count|Countess|Earl|Saint|St\.?|Lord|Lady|Grand Duke)\s+$")
_REGNAL_RE = re.compile(r"\b([A-Z][a-z]+)\s+([IVX]{1,6})\b(?!['’](?!s\b)|-\w|\.\w)")
_NOT_A_NAME = frozenset("The A An In On At Of For To By And Or But If As So Than Then With From Is Was Are "
                        "Were Be Do Did Has Had Have My Your His Her Our Their Its This That These Those "
                        "When While After Before Now Here There Yes No Not".split())
#: Words after which a number is a label ("room 101", "flight 1549", "gate 7"): ``identifier_words``.
LABEL_WORDS = ("room|rm|apartment|apt|flat|suite|ste|unit|gate|seat|platform|bay|block|building|bldg|floor|level"
               "|row|section|lot|locker|cabin|ward|bed|terminal|pier|dock|box|route|bus|exit|house|door|stand"
               "|stall|desk|office|hall|studio|lab|court|track|cell|aisle|zone|wing|berth|carriage|coach|car|bunk"
               "|flight|train|tram|highway|interstate|channel|station|locomotive|engine|squadron")
_LABELLED_RE = re.compile(r"\b((?i:" + LABEL_WORDS + r")\.?\s+(?i:no\.?\s*|number\s+|#\s*)?)(\d{1,5})"
                          r"(?![\w,.:/-]?\d|\w|\s?(?:" + _UNIT_ALT + r")(?![\w/]))")
# Numbers dialled or keyed in, read digit by digit ("call 911", "extension 4021", "PIN 8765").
_DIALLED_RE = re.compile(r"\b((?i:call|dial|dialled|dialed|ring|phone|text|ext\.?|extension|pin|passcode|code"
                         r"|account|zip(?:\s+code)?|postcode|serial|id)\s+(?i:no\.?\s*|number\s+|#\s*)?"
                         r"|(?i:code|pin|passcode|zip(?:\s+code)?|postcode|serial number|extension)(?:\s+is|:)\s+)"
                         r"(\d{3,})(?![\w,.:/-]?\d|\w)")
# A US ZIP code after its state's two letters ("Springfield, IL 62704", "DC 20500-0003"): digit by digit.
_ZIP_RE = re.compile(r"\b((?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]"
                     r"|T[NX]|UT|V[AT]|W[AIVY]),?\s+)(\d{5})(?:-(\d{4}))?(?![\w-])")
# Three or more hyphen-joined groups are a code, never a range: "978-3-16-148410-0", "3-4-3", "1-800-FLOWERS".
_DIGIT_GROUPS_RE = re.compile(r"(?<![\w.,/-])(\d+(?:-\d+){2,}|\d+-\d+-[A-Z]{2,}\b)(?![\w.,/]?\d|-\w)")
_BOOK_CODE_RE = re.compile(r"\b((?:ISBN|ISSN|EAN|UPC|GTIN)(?:-1[03])?:?\s*)(\d[\d -]*\d(?:[ -]?X)?)\b")
# Every digit group after "Tel.", "Phone:", "Fax", "Mobile", ... is dialled: digit by digit, whatever the grouping.
_PHONE_CONTEXT_RE = re.compile(
    r"\b((?i:tel|telephone|phone|fax|mobile|cell(?:\s?phone)?|hotline|helpline|whatsapp)\.?:?\s*"
    r"(?i:no\.?\s*|number:?\s*|#\s*)?)"
    r"(\+?\(?\d[\d()]*(?:(?:[./-]|\)\s?|\s(?=\(|\d{2}))\(?\d[\d()]*)*)(?![\w,.]?\d|\w)" + _NO_UNIT_AFTER)
_EMERGENCY_RE = re.compile(r"(?<![\w.,$£€#-])(911|999|112)(?=\s+(?:call|calls|operator|dispatcher|dispatch)\b)"
                           r"|(?<![\w.,$£€#-])911(?![\w,.]?\d|\w)")
#: Software and standards a two-part version follows ("Python 3.11", "HTTP 1.1"): each part a cardinal.
_VERSIONED = ("Python|Java|Node|Ruby|Perl|PHP|Rust|Golang|Swift|Kotlin|Scala|Julia|Lua|Qt|GTK|Django|Flask|React"
              "|Angular|Vue|Rails|iOS|iPadOS|macOS|OS X|Android|Windows|Ubuntu|Debian|Fedora|Linux|kernel|GCC"
              "|LLVM|Clang|CUDA|PyTorch|TensorFlow|NumPy|Firefox|Chrome|Safari|Excel|Office|Photoshop"
              "|Blender|HTTP|TLS|SSL|USB|Bluetooth|Wi-Fi|HTML|CSS|OpenGL|Vulkan|DirectX|Unicode|IPv|Piper"
              "|version|release|build|update|patch|firmware|v\\.")
_TWO_PART_VERSION_RE = re.compile(r"\b((?:" + _VERSIONED + r")\s+)(\d+)\.(\d+)(?![\w.]?\d|\w)")
# Before a 4-digit number a year is written ("in 1984", "the 1990s"); before a plural noun a count is. A year
# before 1100 only after the words of ``_EARLY_YEAR_BEFORE`` ("in 950", not "by 950" or "one in 250").
_YEAR_BEFORE = frozenset("in since until till by of from year years before after circa during around "
                         "summer winter spring autumn fall early late mid".split())
_EARLY_YEAR_BEFORE = frozenset({"in", "since", "until", "till", "year", "circa", "during"})
_COUNT_AFTER_RE = re.compile(r"\s+(?:(?!(?:is|was|has|does|as|us|this|its|his|hers|yes|thus|plus|minus|versus)\b)"
                             r"[a-z]{2,}(?<!ss)s|people|men|women|children|feet|teeth|mice|geese|sheep|deer|cattle)\b")


def _sci(m: re.Match) -> str:
    exp = m.group(2) if m.group(2) is not None else m.group(3)
    unit = f" {UNITS[m.group(4)][1]}" if m.group(4) else ""
    return f"{cardinal(m.group(1))} times ten to the power of {cardinal(exp.lstrip('+'))}{unit}"


def _inches(m: re.Match) -> str:
    if len(re.findall(r'(?<!\d)"', m.string[: m.start()])) % 2:
        return m.group(0)  # the end of a quotation: "call 5" (quotes after a digit are inches)
    return f"{cardinal(m.group(1))} {'inch' if m.group(1) == '1' else 'inches'}"


def superscript_powers(text: str) -> str:
    """Superscript exponents as ``^`` powers, before NFKC makes "m²" "m2": "20 m²" -> "20 m^2", "mc²" -> "mc^2",
    "x⁴" -> "x^4", "10⁻³" -> "10^-3" (``spell_numbers`` reads them); after a word of four letters or more (a
    footnote mark, "Einstein¹") the superscript is left as it is."""
    if not any("\u2070" <= ch <= "\u207f" or ch in "¹²³" for ch in text):
        return text

    def power(m: re.Match) -> str:
        if m.group(1)[0].isalpha() and len(m.group(1)) > 3:
            return m.group(0)
        return f"{m.group(1)}^{m.group(2).translate(_SUPERSCRIPTS)}"

    return _SUPERSCRIPT_RE.sub(power, text)


def _power(m: re.Match) -> str:
    """"mc^2" -> "m c squared", "x^4" -> "x to the fourth", "10^6" -> "10 to the power of six" (the base is read
    later), "per m^2" -> "per square meter" (a number before it: ``_AREA_RE``)."""
    base, exp = m.group(1) or "", m.group(2).replace("−", "-")
    if base in _AREA_UNITS and exp in ("2", "3"):
        return f"{'square' if exp == '2' else 'cubic'} {UNITS[base][0]}"
    if base and base not in UNITS:
        base = " ".join(base)  # a product of variables: "mc", "ab"
    if exp in ("2", "3"):
        said = "squared" if exp == "2" else "cubed"
    elif base and exp.isdigit() and int(exp) < 100:
        said = "to the " + ordinal(int(exp))  # a variable's power: "x to the fourth"
    else:
        said = "to the power of " + (cardinal(exp) if exp[-1].isdigit() else exp)
    return f"{base} {said}" if base else f" {said}"


def _ip(m: re.Match) -> str:
    parts = m.group(1).split(".")
    if any(int(p) > 255 for p in parts):
        return " point ".join(cardinal(p) for p in parts)  # not an address: a dotted number list
    spoken = " dot ".join(digits_words(p) for p in parts)
    return spoken + (f" port {cardinal(m.group(2))}" if m.group(2) else "")


def _iso_datetime(m: re.Match) -> str:
    year, month, day, hours, minutes, seconds, zone = m.groups()
    if not _valid(int(month), int(day)) or int(hours) > 23 or int(minutes) > 59:
        return m.group(0)
    clock = f"{hours}:{minutes}" + (f":{seconds}" if seconds and seconds != "00" else "")  # read by the times after
    if zone and zone != "Z" and zone[1:].replace(":", "") != "0000":
        h, mins = int(zone[1:3]), int(zone[-2:])
        zone = f" UTC {'plus' if zone[0] == '+' else 'minus'} {_n2w(h)}" + (f" {_n2w(mins)}" if mins else "")
    elif zone:
        zone = " UTC"
    return f"{date_words(int(year), int(month), int(day))}, at {clock}{zone or ''}"


def _fields_date(a: str, b: str, year: str, day_first: bool, sep: str) -> str:
    x, y = int(a), int(b)
    if day_first and y > 12:
        day_first = False  # 12/25/2024 in a day-first locale is still unambiguous
    elif not day_first and x > 12:
        day_first = True
    day, month = (x, y) if day_first else (y, x)
    if not _valid(month, day):
        return _fields(sep.join((a, b, year)), sep) if year else f"{a}{sep}{b}"
    return date_words(int(year) if year else None, month, day, day_first, year_text=year or None)


def _fields(raw: str, sep: str) -> str:
    """Fields of something that is not a valid date, read as numbers: "2024-13-45" -> "... dash ..."."""
    word = {"/": " slash ", "-": " dash ", ".": " dot "}[sep]
    return word.join(cardinal(f) for f in raw.split(sep))


def group_words(raw: str) -> str:
    """Hyphen / space joined groups of a code, each digit by digit ("978-3-16" -> "nine seven eight, three,
    one six"; one-digit groups without pauses: "3-4-3" -> "three four three"); letter groups stay as written
    ("1-800-FLOWERS" -> "one eight hundred FLOWERS": "800" and "900" after a "1" as said)."""
    groups = re.findall(r"\d+|[A-Za-z]+", raw)
    if all(len(g) == 1 and g.isdigit() for g in groups):
        return digits_words("".join(groups))
    spoken = []
    for i, g in enumerate(groups):
        if not g.isdigit():
            spoken[-1:] = [spoken[-1] + " " + g] if spoken else [g]
        elif i == 1 and groups[0] == "1" and g in ("800", "900"):
            spoken[-1] += " " + _n2w(int(g))
        else:
            spoken.append(digits_words(g))
    return ", ".join(spoken)


def _phone(m: re.Match) -> str:
    raw = m.group(0)
    digits = sum(ch.isdigit() for ch in raw)
    # Space/dash groups are a phone number only with a leading + or 0, "(", a 3-4 dash form or >= 7 digits.
    if raw[0] == "0" and len(re.findall(r"\d+", raw)) == 2 and digits < 7:
        return raw  # "05-10", "05/2024": not a phone number
    if raw[0] in "+(0" or re.fullmatch(r"\d{3}-\d{4}", raw) or digits >= 7:
        return phone_words(raw)
    return raw


def _currency(m: re.Match) -> str:
    sign, symbol, first, second, scale = m.groups()
    one, many, sub_one, sub_many = _CURRENCY[symbol]
    minus = "minus " if sign else ""
    if scale or second:
        scale_word = f" {_SCALES[scale]}" if scale else ""
        amount = cardinal(first) + (f" to {cardinal(second)}" if second else "")
        return f"{minus}{amount}{scale_word} {many}"  # a range or a scale: always the plural
    whole, _, frac = first.partition(".")
    value = int(whole.replace(",", ""))
    if frac and len(frac) != 2:  # "$2.5" or "$1.234": a decimal amount, every digit read
        return f"{minus}{cardinal(first)} {many}"
    cents = int(frac) if frac else 0
    if value == 0 and cents:
        return f"{minus}{_n2w(cents)} {sub_one if cents == 1 else sub_many}"
    words = f"{minus}{cardinal(whole)} {one if value == 1 else many}"
    if cents:
        words += f" and {_n2w(cents)} {sub_one if cents == 1 else sub_many}"
    return words


#: One-letter units that are also common labels ("Room 4 B", "Plan 9 V"): units only when glued ("4B")
#: and not part of a name ("221B Baker Street": a capitalised word follows).
GLUED_ONLY_UNITS = frozenset({"B", "V", "W", "L", "g"})
_NAME_FOLLOWS_RE = re.compile(r"\s+[A-Z][a-z]")


def _unit(m: re.Match) -> str:
    number, unit = m.group(1), m.group(2)
    if unit == "m" and re.search(r"\d\s?(?:h|hrs?|hours?)\s*$", m.string[:m.start()]):
        return f"{cardinal(number)} minute{'' if number == '1' else 's'}"    # "1h 30m"
    if unit in GLUED_ONLY_UNITS and m.group(0)[len(number)].isspace():
        return f"{cardinal(number)} {unit}"
    if unit in GLUED_ONLY_UNITS and number.isdigit() and _NAME_FOLLOWS_RE.match(m.string, m.end()):
        return f"{identifier_words(number)} {unit.upper()}"
    return f"{cardinal(number)} {UNITS[unit][0 if number.lstrip('+-−') == '1' else 1]}"


def _time(m: re.Match) -> str:
    hours, minutes = int(m.group(1)), m.group(2)
    if hours > 24 or int(minutes) > 59:
        return f"{cardinal(m.group(1))} {cardinal(minutes)}"
    if minutes == "00" and hours > 12:
        return f"{_n2w(hours)} hundred"     # "17:00": seventeen hundred, not "seventeen o'clock"
    if minutes == "00":
        return _n2w(hours) + ("" if re.match(r"\s?[AaPp]\.?[Mm]\b", m.string[m.end():]) else " o'clock")
    return f"{_n2w(hours)} " + ("oh " if minutes[0] == "0" else "") + _n2w(int(minutes))


def _time_with_seconds(m: re.Match) -> str:
    """"at 23:59:59" -> "twenty three fifty nine and fifty nine seconds" (a clock after "at", "ends at", ...);
    elsewhere a duration: "2:00:35" -> "two hours and thirty five seconds"; not a time: a ratio."""
    if int(m.group(1)) > 24 or int(m.group(2)) > 59 or int(m.group(3)) > 59:
        return _ratio(m)
    seconds = int(m.group(3))
    if re.search(r"(?i:\b(?:at|until|till|from|by|since)\s+)$", m.string[:m.start()]):
        return f"{_time(m)} and {_n2w(seconds)} second{'' if seconds == 1 else 's'}"
    parts = [f"{_n2w(int(v))} {unit}{'' if int(v) == 1 else 's'}" for v, unit in zip(m.groups(), ("hour", "minute",
                                                                                                    "second")) if int(v)]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else (parts or ["zero seconds"])[0]


def _ratio(m: re.Match) -> str:
    return " to ".join(cardinal(p) for p in m.group(0).split(":"))


def _range(m: re.Match) -> str:
    a, b, unit = m.groups()
    years = all(len(x.lstrip("-−")) == 4 for x in (a, b)) and not unit
    spoken = f"{cardinal(a, year_ok=years)} to {cardinal(b, year_ok=years)}"
    return spoken + (f" {UNITS[unit][1]}" if unit else "")


def _season(m: re.Match) -> str:
    first, second = int(m.group(1)), m.group(3)
    later = int(second) if len(second) == 4 else first - first % 100 + int(second)
    later += 100 if len(second) == 2 and later < first else 0  # "1999/00"
    if not 1 <= later - first <= 9:
        return m.group(0)
    if len(second) == 4 or later % 100 == 0:
        tail = _n2w(later, to="year")
    else:
        tail = ("oh " if second[0] == "0" else "") + _n2w(later % 100)
    return f"{_n2w(first, to='year')} to {tail}"


def _fraction(m: re.Match) -> str:
    whole, num_s, den_s = m.groups()
    num, den = float(num_s), int(den_s)
    if (num_s, den_s) == ("24", "7"):
        return "twenty four seven"  # "open 24/7"
    if not whole and num_s.isdigit() and num + den == 100 and num % 10 == den % 10 == 0 and not re.match(
            r"\s+of\b", m.string[m.end():]):
        return f"{cardinal(num_s)} {cardinal(den_s)}"  # a split: "a 50/50 chance", "the 80/20 rule"
    if not whole and den in (5, 10, 100) and not re.match(r"\s+of\b", m.string[m.end():]) and (
            "." in num_s or num >= den or _COUNT_AFTER_RE.match(m.string, m.end())
            or _SCORE_BEFORE_RE.search(m.string, 0, m.start())):
        return f"{cardinal(num_s)} out of {cardinal(den_s)}"
    if den == 0 or num_s.startswith("0") or den_s.startswith("0"):
        return " ".join(x for x in (cardinal(whole) if whole else "", cardinal(num_s), "slash", cardinal(den_s)) if x)
    if den == 1 or den > 100 or "." in num_s:
        spoken = f"{cardinal(num_s)} over {cardinal(den_s)}"
    else:
        word = {2: "half", 4: "quarter"}.get(den) or ordinal(den)
        spoken = f"{_n2w(int(num))} {word if num == 1 else 'halves' if den == 2 else word + 's'}"
    return f"{cardinal(whole)} and {spoken}" if whole else spoken


def _plural_number(words: str) -> str:
    """"nineteen ninety" -> "nineteen nineties", "two thousand" -> "two thousands"."""
    return words[:-1] + "ies" if words.endswith("y") else words + "s"


def _roman_value(numeral: str) -> int:
    values = [_ROMAN_VALUE[ch] for ch in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _regnal(m: re.Match) -> str:
    name, numeral = m.groups()
    titled = _TITLE_BEFORE_RE.search(m.string, 0, m.start())
    ruler = name in REGNAL_NAMES or titled
    if name in _NOT_A_NAME or not re.fullmatch(_ROMAN, numeral) or (len(numeral) == 1 and not ruler):
        return m.group(0)
    # the pronoun: "I told Peter I would come", "with David I went"; a name that opens its sentence or follows
    # "of", "by", "under" or a title is the ruler ("Elizabeth I never married", "Charles I of England")
    if (numeral == "I" and not titled and re.match(r"\s+(?!of\b|and\b)[a-z]", m.string[m.end():])
            and not re.search(r"(?:^|[.!?:;]\s*|\b(?:of|by|under)\s+)$", m.string[:m.start()])):
        return m.group(0)
    value = _roman_value(numeral)
    if not ruler:
        return f"{name} {_n2w(value)}"     # a title or a sequel: "Apollo XI", "Rocky II", "Final Fantasy VII"
    return f"{name} the {ordinal(value).title()}" if value < 40 else m.group(0)


def read_roman_numerals(text: str) -> str:
    """Roman numerals by context: a cardinal after "Chapter", "Part", "Volume", "Act", "World War", ...
    (``"World War II"`` -> ``"World War two"``), a regnal ordinal after a ruler's name (``REGNAL_NAMES`` or a
    title before it: ``"Henry VIII"`` -> ``"Henry the Eighth"``, ``"King Mswati III"``), a cardinal after any
    other capitalised word (``"Apollo XI"`` -> ``"Apollo eleven"``, ``"Rocky II"``); a one-letter numeral only
    after a ruler's name, so "Malcolm X" and "Windows X" stay. Other capitals stay as written."""
    if not re.search(r"[IVXLCDM]", text):
        return text
    # (an empty numeral is no numeral: "Mark Cuban", "Table Mountain" read "zero")
    text = _COUNTED_ROMAN_RE.sub(lambda m: m.group(1) + _n2w(_roman_value(m.group(2))) if m.group(2) else m.group(0),
                                 text)
    return _REGNAL_RE.sub(_regnal, text)


def _plain(m: re.Match) -> str:
    raw = m.group(0)
    # "in 1984" a year, "1984 dollars" a count: a count when a plural noun follows, unless a year preposition is before
    preceding = m.string[max(0, m.start() - 16): m.start()].lower().split() or [""]
    counted = _COUNT_AFTER_RE.match(m.string, m.end()) or re.match(r"\s+of\b", m.string[m.end():])
    year_ok = preceding[-1] in _YEAR_BEFORE or not counted
    odds = preceding[-1] == "in" and len(preceding) > 1 and (preceding[-2] == "one" or preceding[-2].isdigit())
    if re.fullmatch(r"[1-9]\d\d|10\d\d", raw) and preceding[-1] in _EARLY_YEAR_BEFORE and not (counted or odds):
        words = _n2w(int(raw), to="year")  # "in 950", "the year 1066"; not "one in 250", "in 250 steps"
    else:
        words = "plus " + cardinal(raw[1:], year_ok=year_ok) if raw.startswith("+") else cardinal(raw, year_ok=year_ok)
    before, after = m.string[m.start() - 1: m.start()], m.string[m.end(): m.end() + 1]
    # Digits glued to letters ("mp3", "A0031", "H2O"): keep the words apart from the letters.
    return (" " if before.isalpha() else "") + words + (" " if after.isalpha() else "")


def join_digit_groups(text: str) -> str:
    """SI thousands groups with a (narrow) no-break or thin space ("1\u202f234\u202f567") -> "1,234,567"."""
    return re.sub(r"(?<=\d)[\u00a0\u202f\u2009](?=\d{3}(?!\d))", ",", text)


def spell_numbers(text: str, locale: str = "en-us") -> str:
    """Every number in English ``text`` as words (other text stays); ``locale`` ("en-us", "en_GB") orders
    ambiguous numeric dates."""
    day_first = locale.lower().replace("_", "-") in DAY_FIRST_LOCALES
    text = join_digit_groups(text)
    text = read_roman_numerals(text.replace("\u2212", "-"))
    text = _SCI_RE.sub(_sci, text)
    if "^" in text:
        text = _AREA_RE.sub(lambda m: f"{cardinal(m.group(1))} {'square' if m.group(3) == '2' else 'cubic'} "
                                      f"{UNITS[m.group(2)][0 if m.group(1) == '1' else 1]}", text)
        text = _POWER_RE.sub(_power, text)
    text = _TIMES_RE.sub(" times ", text)
    if "=" in text:                     # arithmetic: "10 - 3 = 7", "8 / 2 = 4" (a spaced dash elsewhere is a pause)
        text = _ARITHMETIC_RE.sub(lambda m: " minus " if m.group(1) in "-−–" else " divided by ", text)
    text = _PER_RE.sub(lambda m: f"{m.group(1)} per {UNITS[m.group(2)][0] if m.group(2) in UNITS else m.group(2)}",
                       text)
    text = re.sub(r"(?<![\w~/])~\s?(?=[-+]?[$£€¥]?\.?\d)", "about ", text)  # "~50": not "tilde fifty"
    text = _BY_RE.sub(lambda m: m.group(1) + (" by " if m.string[m.end():m.end() + 1].isdigit() else " times"), text)
    text = _FEET_INCHES_RE.sub(lambda m: f"{cardinal(m.group(1))} foot {cardinal(m.group(2))}", text)
    text = _INCHES_RE.sub(_inches, text)
    text = _IP_RE.sub(_ip, text)
    text = _ISO_DATETIME_RE.sub(_iso_datetime, text)
    text = _ISO_DATE_RE.sub(lambda m: date_words(int(m.group(1)), int(m.group(3)), int(m.group(4)))
                            if _valid(int(m.group(3)), int(m.group(4))) else _fields(m.group(0), m.group(2)),
                            text)
    text = _DATE_RE.sub(lambda m: _fields_date(m.group(1), m.group(3), m.group(4), day_first, m.group(2))
                        if m.group(1) else _fields_date(m.group(5), m.group(6), m.group(7), day_first, "."), text)
    text = _SHORT_DATE_RE.sub(lambda m: f"{m.group(1)} {_fields_date(m.group(2), m.group(3), '', day_first, '/')}", text)
    text = _VERSION_RE.sub(lambda m: ("version " if m.group(1) else "") + " point ".join(
        cardinal(p) for p in (m.group(2) or m.group(3)).split(".")), text)
    text = _TWO_PART_VERSION_RE.sub(lambda m: f"{m.group(1)}{_n2w(int(m.group(2)))} point {_n2w(int(m.group(3)))}", text)
    text = _BOOK_CODE_RE.sub(lambda m: m.group(1) + group_words(m.group(2)), text)
    text = _DIGIT_GROUPS_RE.sub(lambda m: group_words(m.group(1)), text)
    text = _PHONE_CONTEXT_RE.sub(lambda m: m.group(1) + phone_words(m.group(2))
                                 if sum(ch.isdigit() for ch in m.group(2)) >= 3 else m.group(0), text)
    text = _PHONE_RE.sub(_phone, text)
    text = _EMERGENCY_RE.sub(lambda m: digits_words(m.group(0)), text)
    text = _DIALLED_RE.sub(lambda m: m.group(1) + digits_words(m.group(2)), text)
    text = _ZIP_RE.sub(lambda m: m.group(1) + digits_words(m.group(2)) + (f" {digits_words(m.group(3))}"
                                                                          if m.group(3) else ""), text)
    text = _LABELLED_RE.sub(lambda m: m.group(1) + identifier_words(m.group(2)), text)
    text = _MONEY_RANGE_RE.sub(r"\1 to ", text)
    text = _CURRENCY_RE.sub(_currency, text)
    text = _SCALE_RE.sub(lambda m: f"{cardinal(m.group(1))} {_SCALES[m.group(2)]}" if "." in m.group(1) or len(
        m.group(2)) > 1 or _COUNT_AFTER_RE.match(m.string, m.end()) else m.group(0), text)
    text = _ERA_RE.sub(lambda m: " ".join(_n2w(int(x), to="year") if x[0].isdigit() else x if "." in x else ".".join(x)
                                          for x in filter(None, m.groups())), text)
    text = _DECADE_RE.sub(lambda m: re.sub(r"['’]?(\d+)['’]?s\b", lambda d: _plural_number(
        _n2w(int(d[1]), to="year")), m.group(0)), text)
    text = _AMPM_RE.sub(lambda m: f" {m.group(1).upper()}M" + (" to " if m.group(2) else ""), text)
    text = _VERSE_RE.sub(lambda m: f"{m.group(1)}{cardinal(m.group(2))}, {cardinal(m.group(3))}", text)
    text = _CLOCK_SECONDS_RE.sub(_time_with_seconds, text)
    text = _TIME_RE.sub(_time, text)
    text = _RATIO_RE.sub(_ratio, text)
    text = _SEASON_RE.sub(_season, text)
    text = _RANGE_RE.sub(_range, text)
    text = _UNIT_RE.sub(_unit, text)
    text = _FRACTION_RE.sub(_fraction, text)
    text = _ORDINAL_RE.sub(lambda m: ordinal(int(m.group(1))), text)
    text = _NUMBER_RE.sub(_plain, text)
    return text


# ----------------------------------------------------------------------------- month names
_MONTH_NUMBERS = {name: i for i, name in enumerate(_MONTHS, 1)} | {
    "Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Sept": 9, "Oct": 10, "Nov": 11,
    "Dec": 12}
# An abbreviated month's dot ("Jan. 5"), not a full stop after "May" or one that ends the sentence ("on 3 Jan.").
_MONTH = (r"(" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True))
          + r")(?:(?:(?<=[A-Z][a-z]{2})(?<!May)|(?<=Sept))\.(?!\s*$))?")
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4})(?![\d:]))?"
# After the day: not a digit, unit, time or decimal ("May 5 km", "June 3:30", "June 3.5"); a short word is no unit
# ("March 15 was", "June 3 is").
_END = r"(?![\d:]|\.\d|\s?(?:%|" + _UNIT + "))"
_MONTH_DAY_RE = re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r"\b" + _END + _YEAR)
_DAY_MONTH_RE = re.compile(r"(?<![\w.,/$£€¥-])" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r"(?![A-Za-z])" + _YEAR)


def _month_date(month_name: str, day: str, year: str | None, day_first: bool, raw: str) -> str:
    month = _MONTH_NUMBERS[month_name]
    if not _valid(month, int(day)):
        return raw
    return date_words(int(year) if year else None, month, int(day), day_first, year_text=year)


def read_month_dates(text: str) -> str:
    """Dates with a month name in ``text`` read with an ordinal day, in the order written ("March 3rd, 2024" ->
    "March third, twenty twenty four", "4 June" -> "the fourth of June"; piper#492): a capitalised month, a valid
    day, no unit or time after it. Other text unchanged."""
    text = _MONTH_DAY_RE.sub(lambda m: _month_date(m.group(1), m.group(2), m.group(3), False, m.group(0)), text)
    return _DAY_MONTH_RE.sub(_day_month, text)


def _day_month(m: re.Match) -> str:
    said = _month_date(m.group(2), m.group(1), m.group(3), True, m.group(0))
    if said.startswith("the ") and re.search(r"\bthe\s+$", m.string[: m.start()], re.IGNORECASE):
        return said[4:]  # "The 3rd of May": one "the"
    return said
