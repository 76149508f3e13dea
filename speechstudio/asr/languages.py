"""Whisper's languages: openai/whisper's ``tokenizer.LANGUAGES`` (ISO 639-1; ``yue``, ``haw`` 639-3) in
token order, as plain data so the GUI needs no faster-whisper."""
from __future__ import annotations

from speechstudio.errors import UsageError

LANGUAGES: dict[str, str] = {
    "en": "English", "zh": "Chinese", "de": "German", "es": "Spanish", "ru": "Russian", "ko": "Korean",
    "fr": "French", "ja": "Japanese", "pt": "Portuguese", "tr": "Turkish", "pl": "Polish", "ca": "Catalan",
    "nl": "Dutch", "ar": "Arabic", "sv": "Swedish", "it": "Italian", "id": "Indonesian", "hi": "Hindi",
    "fi": "Finnish", "vi": "Vietnamese", "he": "Hebrew", "uk": "Ukrainian", "el": "Greek", "ms": "Malay",
    "cs": "Czech", "ro": "Romanian", "da": "Danish", "hu": "Hungarian", "ta": "Tamil", "no": "Norwegian",
    "th": "Thai", "ur": "Urdu", "hr": "Croatian", "bg": "Bulgarian", "lt": "Lithuanian", "la": "Latin",
    "mi": "Maori", "ml": "Malayalam", "cy": "Welsh", "sk": "Slovak", "te": "Telugu", "fa": "Persian",
    "lv": "Latvian", "bn": "Bengali", "sr": "Serbian", "az": "Azerbaijani", "sl": "Slovenian", "kn": "Kannada",
    "et": "Estonian", "mk": "Macedonian", "br": "Breton", "eu": "Basque", "is": "Icelandic", "hy": "Armenian",
    "ne": "Nepali", "mn": "Mongolian", "bs": "Bosnian", "kk": "Kazakh", "sq": "Albanian", "sw": "Swahili",
    "gl": "Galician", "mr": "Marathi", "pa": "Punjabi", "si": "Sinhala", "km": "Khmer", "sn": "Shona",
    "yo": "Yoruba", "so": "Somali", "af": "Afrikaans", "oc": "Occitan", "ka": "Georgian", "be": "Belarusian",
    "tg": "Tajik", "sd": "Sindhi", "gu": "Gujarati", "am": "Amharic", "yi": "Yiddish", "lo": "Lao",
    "uz": "Uzbek", "fo": "Faroese", "ht": "Haitian Creole", "ps": "Pashto", "tk": "Turkmen", "nn": "Nynorsk",
    "mt": "Maltese", "sa": "Sanskrit", "lb": "Luxembourgish", "my": "Myanmar", "bo": "Tibetan", "tl": "Tagalog",
    "mg": "Malagasy", "as": "Assamese", "tt": "Tatar", "haw": "Hawaiian", "ln": "Lingala", "ha": "Hausa",
    "ba": "Bashkir", "jw": "Javanese", "su": "Sundanese", "yue": "Cantonese",
}

#: Whisper's own aliases (openai/whisper ``TO_LANGUAGE_CODE``) on top of the English names.
_ALIASES = {"burmese": "my", "valencian": "ca", "flemish": "nl", "haitian": "ht", "letzeburgesch": "lb",
            "pushto": "ps", "panjabi": "pa", "moldavian": "ro", "moldovan": "ro", "sinhalese": "si",
            "castilian": "es", "mandarin": "zh"}

AUTO = "auto"


def normalize_language(text: str | None) -> str | None:
    """A Whisper language code from ``"fr"``, ``"French"``; ``None`` for ``auto`` / empty. Raises
    ``UsageError`` for anything else."""
    key = str(text or "").strip().lower().replace("_", "-")
    if key in ("", AUTO, "detect"):
        return None
    base = key.split("-")[0]          # "en", and "en-us", "pt-br" -> the language
    if base in LANGUAGES:
        return base
    by_name = {name.lower(): code for code, name in LANGUAGES.items()} | _ALIASES
    if key in by_name:
        return by_name[key]
    raise UsageError(f"--language {text}: not a Whisper language (use auto, or a code such as en, de, fr, ja, "
                     "or a name such as French)")


def language_name(code: str | None) -> str:
    """English name of a language code (``"fr"`` -> ``"French"``); the code itself if unknown."""
    return LANGUAGES.get(code, code) if code else "unknown"
