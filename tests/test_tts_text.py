"""Text front end: sentence splitting, English normalisation, empty / symbol-only text."""
import pytest

from speechstudio.errors import SpeechStudioError
from speechstudio.tts.frontend.text import (
    EmptyTextError,
    check_speakable,
    has_speakable,
    iter_paragraph_sentences,
    normalize_english,
)


def test_split_keeps_abbreviations_and_numbers():
    text = ("Dr. Smith paid $3.50 for 2.5 kg of apples at 10 a.m. on Jan. 5. Then he left! "
            "Did he? The U.S. economy grew 3.2% in 2023.")
    assert list(iter_paragraph_sentences(text)) == [
        "Dr. Smith paid $3.50 for 2.5 kg of apples at 10 a.m. on Jan. 5.",
        "Then he left!",
        "Did he?",
        "The U.S. economy grew 3.2% in 2023.",
    ]
    assert list(iter_paragraph_sentences("Pres. Lincoln spoke. He left.")) == ["Pres. Lincoln spoke.", "He left."]
    # a unit's dot before a lower-case word ended the sentence: "Heat 2 tbsp." / "oil in a skillet."
    recipe = "Heat 2 tbsp. oil in a pan. Cook 5 min. or until golden. Rest 5 min. Then serve."
    assert list(iter_paragraph_sentences(recipe)) == ["Heat 2 tbsp. oil in a pan.", "Cook 5 min. or until golden.",
                                                      "Rest 5 min.", "Then serve."]
    assert normalize_english("Go to Elm Dr. today, 10 Downing St, London. Dr. Smith and St Paul.") == (
        "Go to Elm drive today, ten Downing street, London. doctor Smith and St Paul.")   # was "Elm doctor"
    # Markdown emphasis pasted as text was read "asterisk asterisk important colon asterisk asterisk"
    assert normalize_english("**Important:** read the _docs_ first, *really*; my_var stays.") == (
        "Important: read the docs first, really; my_var stays.")
    assert normalize_english(recipe) == ("Heat two tablespoons oil in a pan. Cook five minutes or until golden. "
                                         "Rest five minutes. Then serve.")


def test_paragraph_break_ends_sentence_and_symbol_lines_dropped():
    text = "A heading without a full stop\n\nFirst sentence here. Second one.\n\n* * *\n\nLast."
    assert list(iter_paragraph_sentences(text)) == ["A heading without a full stop", "First sentence here.",
                                                    "Second one.", "Last."]


def test_long_sentence_is_cut_at_commas():
    text = ", ".join(["this is a clause of a very long sentence"] * 40) + "."
    parts = list(iter_paragraph_sentences(text, max_chars=200))
    assert len(parts) > 5 and all(len(p) <= 200 for p in parts)
    assert " ".join(parts).replace("  ", " ") == text


def test_iterable_of_lines_is_lazy():
    consumed = []

    def lines():
        for i in range(1000):
            consumed.append(i)
            yield f"Sentence number {i} is here.\n"
            if i % 3 == 2:
                yield "\n"

    it = iter_paragraph_sentences(lines())
    assert next(it) == "Sentence number 0 is here."
    assert len(consumed) < 10  # only the first paragraph was read


@pytest.mark.parametrize("text,expected", [
    ("$3.50", "three dollars and fifty cents"),
    ("It costs $1", "It costs one dollar"),
    ("the 2nd time", "the second time"),
    ("at 10:30", "at ten thirty"),
    ("at 7:05", "at seven oh five"),
    ("50% off", "fifty percent off"),
    ("in 1999", "in nineteen ninety nine"),
    ("1,250 people", "one thousand, two hundred and fifty people"),
    ("2.5 kg", "two point five kilograms"),
    ("Dr. Who & Mr. Smith", "doctor Who and mister Smith"),
    ("-4 degrees", "minus four degrees"),
    # "No." / "St." only where they apply; an abbreviation's dot that ends the sentence is kept
    ("The answer is no.", "The answer is no."),
    ("No. I will not.", "No. I will not."),
    ("He is No. 5 on the list.", "He is number five on the list."),
    ("St. Louis is big.", "Saint Louis is big."),
    ("Go to 5th St. now", "Go to fifth street now"),
    ("He lives on Main St.", "He lives on Main street."),
    ("Apples, pears etc.", "Apples, pears et cetera."),
    # were left to espeak-ng: "Co." /kˈoʊ/, "Bros." /bɹˈoʊz/, "Mfg." "em ef gee", "Pres." a sentence of its own
    ("Acme Co. and Warner Bros. Intl. Assn.", "Acme company and Warner brothers international association."),
    ("Pres. Lincoln saw the Mfg. plant.", "president Lincoln saw the manufacturing plant."),
    # weekdays were left to espeak-ng: "Mon–Fri" /mˈɑːn fɹˈaɪ/, "Tue." /tˈuː/, "Thu." /θˈɜːɹ/
    ("On Mon., Tue. and Thu.; open Mon–Fri, Sat 5 May.", "On Monday, Tuesday and Thursday; open Monday to Friday, Saturday the fifth of May."),
    ("Sun, sand and sea. He sat. We wed.", "Sun, sand and sea. He sat. We wed."),
    # glued am/pm, decades, ISO dates, currency with K/M/B and a leading minus
    ("Meet at 7:05am.", "Meet at seven oh five AM."),  # "am" would be said as the word
    ("Open 9 am to 5pm, or 9am-5pm daily.", "Open nine AM to five PM, or nine AM to five PM daily."),
    # comparisons glued to their operands were taken for a key name "<5 and y>" and their signs dropped
    ("Go A -> B => C, a <= b.", "Go A to B to C, a less than or equal to b."),  # was "A - greater than B equals ..."
    ("If x<5 and y>3, press <Enter>.", "If x less than five and y greater than three, press Enter."),
    ("At 10.30pm, or 9.30 am-5.45pm; 10.30 kg.", "At ten thirty PM, or nine thirty AM to five forty five PM; ten point three zero kilograms."),
    ("In the 1990s and the 2000s.", "In the nineteen nineties and the two thousands."),
    ("Music of the '90s.", "Music of the nineties."),
    ("Due 2024-01-15.", "Due January fifteenth, twenty twenty four."),
    ("It cost $2.5M.", "It cost two point five million dollars."),
    ("A loss of -$5 today.", "A loss of minus five dollars today."),
    ("$10K a year", "ten thousand dollars a year"),
])
def test_normalize_english(text, expected):
    assert normalize_english(text) == expected


def test_empty_and_symbol_only_text_are_clear_errors():
    for bad in ("", "   \n\t ", "!!! --- ???", "* * *"):
        with pytest.raises(EmptyTextError) as info:
            check_speakable(bad)
        assert isinstance(info.value, SpeechStudioError)
        assert "\n" not in str(info.value)
    assert not has_speakable("?!.,;:")
    assert has_speakable("ok") and has_speakable("42") and has_speakable("日本")
