"""20 everyday English sentences: the TTS intelligibility test and the TTS benchmark use the same set."""

SENTENCES = [  # everyday sentences, no digits (numbers are normalised on both sides anyway)
    "The weather is nice today, so we are going to the park.",
    "Please turn off the lights when you leave the room.",
    "I would like a cup of coffee with milk and sugar.",
    "The train to the city leaves in ten minutes.",
    "My sister is reading a book about the history of music.",
    "We need to buy bread, eggs and cheese at the store.",
    "The children are playing football in the garden.",
    "Can you help me carry these boxes upstairs?",
    "The meeting has been moved to next Tuesday afternoon.",
    "She opened the window to let some fresh air in.",
    "He forgot his umbrella and got wet in the rain.",
    "The doctor told him to drink more water every day.",
    "Our flight was delayed because of the snow storm.",
    "The restaurant on the corner serves excellent pasta.",
    "Remember to call your mother on her birthday.",
    "The teacher asked the students to write a short story.",
    "It is getting late, so I think we should go home.",
    "The new library will open at the end of the summer.",
    "Thank you very much for your kind letter.",
    "The dog ran across the field to catch the ball.",
]
