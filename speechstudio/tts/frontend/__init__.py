"""The English text front end of synthesis: sentences (:mod:`.text`), numbers, dates, codes, abbreviations,
markup and what a voice can say (:mod:`.sayable`). Pure Python, no model."""
