"""Numbers are never changed: every class of number in ``normalize_english`` / ``spell_numbers``.

Table of written form -> spoken form, several cases per class (issue 14 item 1).
"""
from __future__ import annotations

import pytest

from speechstudio.tts.frontend.numbers import spell_numbers
from speechstudio.tts.frontend.text import normalize_english

CASES = {
    "roman numeral": [  # piper1-gpl#135: "Henry Roman 8"
        ("Henry VIII had six wives.", "Henry the Eighth had six wives."),
        ("Louis XIV's court and Elizabeth I.", "Louis the Fourteenth's court and Elizabeth the First."),
        ("World War II ended in 1945.", "World War two ended in nineteen forty five."),
        ("Read Chapter IV before Part III.", "Read Chapter four before Part three."),
        ("Act I, Scene II of Super Bowl LVII.", "Act one, Scene two of Super Bowl fifty seven."),
        ("Malcolm X met Washington DC and I left.", "Malcolm X met Washington DC and I left."),
        # an empty numeral read "zero" ("Mark zeroCuban"); the pronoun after a name was "the First"
        ("Mark Cuban and Mark IV; Table Mountain.", "Mark Cuban and Mark four; Table Mountain."),
        ("I told Peter I would come; Charles I of England.", "I told Peter I would come; Charles the First of England."),
        ("Elizabeth I never married.", "Elizabeth the First never married."),    # a name opening its sentence
        # a title or a sequel is no king: were "Apollo the Eleventh", "Rocky the Second"
        ("Apollo XI, Rocky II and Final Fantasy VII.", "Apollo eleven, Rocky two and Final Fantasy seven."),
        ("King Mswati III and Pharaoh Seti I met Ramesses II.", ("King Mswati the Third and Pharaoh Seti the First met "
         "Ramesses the Second.")),
    ],
    "identifier": [  # dialled and labelled numbers are names, not amounts
        ("Call 911 now.", "Call nine one one now."),
        # were "four hundred and eighty two thousand ...", "sixty two thousand, seven hundred and four"
        ("Your code is 482913; the account is 3000 short.", ("Your code is four eight two nine one three; the account "
         "is three thousand short.")),
        ("Springfield, IL 62704 or DC 20500-0003.", ("Springfield, IL six two seven zero four or DC two zero five zero "
         "zero zero zero zero three.")),
        ("Dial 999 or extension 4021.", "Dial nine nine nine or extension four zero two one."),
        ("Room 101 and gate 7.", "Room one oh one and gate seven."),
        ("Flight 1549 and flight 370.", "Flight fifteen forty nine and flight three seventy."),
        ("He lives at 221B Baker St.", "He lives at two twenty one B Baker street."),
        ("Gate 221A, seat 14C.", "Gate two twenty one A-, seat fourteen C."),
        ("Python 3.11 and HTTP 1.1.", "Python three point eleven and HTTP one point one."),
    ],
    "year or count": [
        ("In the 1990s and in 1984.", "In the nineteen nineties and in nineteen eighty four."),
        ("He paid 1984 dollars.", "He paid one thousand, nine hundred and eighty four dollars."),
        ("Over 2000 people came in 2000.", "Over two thousand people came in two thousand."),
        ("A 512B file.", "A five hundred and twelve bytes file."),
        ("There were 1984 people and 1350 men.", ("There were one thousand, nine hundred and eighty four people and "
         "one thousand, three hundred and fifty men.")),      # a plural without -s: was "nineteen eighty four people"
    ],
    "time and kitchen units": [  # espeak said "secs" /sˈɛks/, "mins" /mˈɪnz/, "wks" "double-u kay ess", "yrs" /ɚz/
        ("It took 2 wks, 3 hrs, 5 mins and 10 secs.", "It took two weeks, three hours, five minutes and ten seconds."),
        ("Add 2 tbsp sugar and 1 tsp salt.", "Add two tablespoons sugar and one teaspoon salt."),
        ("He is 5 yrs old; 1 yr and 1 wk.", "He is five years old; one year and one week."),
    ],
    "rate": [  # the "/" was said "slash" and "km/day" left unread: "five dollars slash month", "twenty km slash day"
        ("Only $5/month or $50/year.", "Only five dollars per month or fifty dollars per year."),
        ("Pay $10/hr, €2/kg, £3.50/lb.", "Pay ten dollars per hour, two euros per kilogram, three pounds and fifty pence per pound."),
        ("Drive 20 km/day, 3 times/week, 100 km/h.", "Drive twenty kilometers per day, three times per week, one hundred kilometers per hour."),
        ("Open 24/7, 3 and/or 4.", "Open twenty four seven, three and/or four."),
        ("A dose of 5%/year, 3.5%/month.", "A dose of five percent per year, three point five percent per month."),
    ],
    "decade": [  # "the 50s and 60s" was "the fifty seconds and sixty seconds", "1950's" "nineteen fifty's"
        ("Music of the 50s and 60s.", "Music of the fifties and sixties."),
        ("The 1950's, her 30s, the mid-70s.", "The nineteen fifties, her thirties, the mid-seventies."),
        ("In the early 20s, 40s, or 50s; a lap in 50s.", "In the early twenties, forties, or fifties; a lap in fifty seconds."),
    ],
    "feet and inches": [  # "in" was read as the word: "five feet three in tall"
        ("She is 5 ft 3 in tall.", "She is five foot three tall."),
        ("He is 6ft 1in. Really.", "He is six foot one. Really."),
        ("A 5 feet 3 in board, 5 feet 3 in a row.", "A five foot three board, five feet three in a row."),
    ],
    "approximate": [  # "~" was said "tilde"
        ("About ~50 people came.", "About about fifty people came."),
        ("It took ~2 hours (~ 3.5 km).", "It took about two hours (about three point five kilometers)."),
        ("Costs ~$5; see ~/notes.", "Costs about five dollars; see home slash notes."),
    ],
    "dimension or factor": [  # the "x" was said as the letter: "nineteen twenty ex ..."
        ("A 1920x1080 screen.", "A nineteen twenty by one thousand and eighty screen."),
        ("Cut a 2 x 4 board into 3x3 squares.", "Cut a two by four board into three by three squares."),
        ("It is 3x faster, even 10x.", "It is three times faster, even ten times."),
        ("Not hex 0x1F or 3 x 10^5.", "Not hex zero X one F or three times ten to the power of five."),
    ],
    "year with an era": [  # a year, and the era as letters: espeak says "AD" as the word "ad"
        ("Caesar died in 44 BC.", "Caesar died in forty four B.C."),
        ("Hastings, 1066 AD; Rome, AD 476.", "Hastings, ten sixty six A.D; Rome, A.D four seventy six."),
        ("From 2500 BCE to 1492 CE.", "From twenty five hundred B.C.E to fourteen ninety two C.E."),
        ("From 3000 B.C. to A.D. 79.", "From three thousand B.C. to A.D. seventy nine."),
    ],
    "leading zeros": [
        ("Enter code 0042 now.", "Enter code zero zero four two now."),
        ("Agent 007 is here.", "Agent zero zero seven is here."),
        ("Part B0815 fits.", "Part B zero eight one five fits."),
    ],
    "phone": [
        ("Ring 0161 496 0000 today.", "Ring zero one six one, four nine six, zero zero zero zero today."),
        ("Dial +44 20 7946 0958.", "Dial plus four four, two zero, seven nine four six, zero nine five eight."),
        ("Call (555) 019-4321 now.", "Call five five five, zero one nine, four three two one now."),
        ("Or 555-0199.", "Or five five five, zero one nine nine."),
        # a leading zero, or Tel. / Phone / Fax before it: every group digit by digit (was "one million, ...")
        ("Tel. 030 1234567", "telephone zero three zero, one two three four five six seven"),
        ("Call 030/1234567 or fax +49 (0)30 1234568.",
         "Call zero three zero, one two three four five six seven or fax plus four nine, zero, three zero, "
         "one two three four five six eight."),
        ("Phone: 555 1234 for 12 days.", "Phone: five five five, one two three four for twelve days."),
    ],
    "code groups": [  # three or more hyphen-joined groups are a code, never a range ("978 to 3-16")
        ("ISBN 978-3-16-148410-0", "ISBN nine seven eight, three, one six, one four eight four one zero, zero"),
        ("ISBN 9783161484100.", "ISBN nine seven eight three one six one four eight four one zero zero."),
        ("Call 1-800-FLOWERS", "Call one eight hundred FLOWERS"),
        ("A 3-4-3 formation.", "A three four three formation."),
    ],
    "time and ratio": [  # seconds and ratios were "twenty three:fifty nine:fifty nine", "three:one"
        ("It ends at 23:59:59.", "It ends at twenty three fifty nine and fifty nine seconds."),
        ("At 09:05:01 and 10:30.", "At nine oh five and one second and ten thirty."),
        ("They won 3:1 on a 16:9 screen.", "They won three to one on a sixteen to nine screen."),
        # a duration was a clock ("two o'clock and thirty five seconds"); "seventeen o'clock", "three o'clock PM"
        ("The record is 2:00:35; it runs 0:03:45.", ("The record is two hours and thirty five seconds; it runs three "
         "minutes and forty five seconds.")),
        ("Open 9:00 to 17:00, from 3:00 PM.", "Open nine o'clock to seventeen hundred, from three PM."),
        ("It took 1h 30m.", "It took one hour thirty minutes."),                  # was "thirty meters"
        ("Read John 3:16.", "Read John three, sixteen."),
    ],
    "symbols between numbers": [  # were left as "six'two\"", "ten*three", "mc^two"
        ("He is 6'2\" and she is 5′11″.", "He is six foot two and she is five foot eleven."),
        ("A 12\" pizza, but \"call 5\".", "A twelve inches pizza, but \"call five\"."),
        ("So 10*3 = 30.", "So ten times three equals thirty."),
        ("E=mc^2, 2^10 and 5 m^2.", "E equals m c squared, two to the power of ten and five square meters."),
    ],
    "superscript powers": [  # NFKC made them digits: "twenty M two", "km three", "mc two", "X four"
        ("The room is 20 m² and the tank 3 km³.", "The room is twenty square meters and the tank three cubic kilometers."),
        ("E = mc².", "E equals m c squared."),
        ("Compute x⁴ and (x+1)².", "Compute x to the fourth and (x plus one) squared."),
        ("It costs 5 dollars per m², 10⁻³ of it.", "It costs five dollars per square meter, ten to the power of minus "
                                                   "three of it."),
        ("As Einstein¹ said, 1 ft² is enough.", "As Einstein one said, one square foot is enough."),
    ],
    "version": [
        ("Install 2.7.18 first.", "Install two point seven point eighteen first."),
        ("We ship v4.0.1 soon.", "We ship version four point zero point one soon."),
        ("Use v1.2, not 10.4.0.", "Use version one point two, not ten point four point zero."),
    ],
    "ip address": [
        ("Open 192.168.4.20 now.", "Open one nine two dot one six eight dot four dot two zero now."),
        ("Try 127.0.0.1:5000.", "Try one two seven dot zero dot zero dot one port five thousand."),
        ("DNS is 8.8.4.4.", "DNS is eight dot eight dot four dot four."),
    ],
    "date": [
        ("Due 2023-11-09.", "Due November ninth, twenty twenty three."),
        ("Due 03/04/2021.", "Due March fourth, twenty twenty one."),  # en-US: month first
        ("Due 31/01/2022.", "Due the thirty first of January, twenty twenty two."),  # first field > 12
        ("On 7-4-1776 they met.", "On July fourth, seventeen seventy six they met."),
        ("By 12.10.2025 at last.", "By December tenth, twenty twenty five at last."),
        ("Not 14/14/2020.", "Not fourteen slash fourteen slash two thousand and twenty."),
        # an amount before a month is money, not a day: was "$the fifth of May", "pounds the twentieth of March"
        ("The fee was $5 May and £20 June 3rd.", "The fee was five dollars May and twenty pounds June third."),
        # a capitalised "The" before the day is not read twice; "May." and a final "Jan." keep the full stop
        ("The 3rd of May.", "The third of May."),
        ("The 2nd of Dec. 2024 and the 4th of Jan.", "The second of December, twenty twenty four and the fourth of "
         "January."),
        ("We met on 3 May. Then on 4 Jan.", "We met on the third of May. Then on the fourth of January."),
        # ISO date and time: was "two thousand and twenty four to zero three-fifteen T ten:thirty:zero zero Z"
        ("Logged 2024-03-15T10:30:00Z, sent 2024-03-15 09:05:12+05:30.", ("Logged March fifteenth, twenty twenty four, "
         "at ten thirty UTC, sent March fifteenth, twenty twenty four, at nine oh five and twelve seconds UTC plus "
         "five thirty.")),
        # a short word after the day was taken for a unit ("March fifteen was"); a unit still is not a day
        ("March 15 was the deadline; Nov 5 saw fireworks.", "March fifteenth was the deadline; November fifth saw "
         "fireworks."),
        ("May 5 km on June 3 in Paris.", "May five kilometers on June third in Paris."),
    ],
    "punctuation after": [
        ("In 1984, things changed.", "In nineteen eighty four, things changed."),
        ("The total was 512.", "The total was five hundred and twelve."),
        ("Was it 33?", "Was it thirty three?"),
        ("Count: 7; then 8!", "Count: seven; then eight!"),
    ],
    "year": [
        ("Born in 1962 in Ohio.", "Born in nineteen sixty two in Ohio."),
        ("Since 2008 it grew.", "Since two thousand and eight it grew."),
        ("In 1805 and 2019.", "In eighteen oh five and twenty nineteen."),
    ],
    "unit": [
        ("A delay of 35 ms.", "A delay of thirty five milliseconds."),
        ("Sampled at 44.1 kHz.", "Sampled at forty four point one kilohertz."),
        ("It needs 256 MB and 1 GB.", "It needs two hundred and fifty six megabytes and one gigabyte."),
        ("Drive at 80 km/h.", "Drive at eighty kilometers per hour."),
        ("It copies at 2 GB/s and 1 MB/s.", "It copies at two gigabytes per second and one megabyte per second."),
        ("It is 37°C inside.", "It is thirty seven degrees Celsius inside."),
        ("Only 15% left.", "Only fifteen percent left."),
        ("It costs $12.99 now.", "It costs twelve dollars and ninety nine cents now."),
        ("It cost $5m, then €2mn and £3bn; $2tn later.",       # the newspaper scales (was "five dollarsm")
         "It cost five million dollars, then two million euros and three billion pounds; two trillion dollars later."),
        ("A 5m pole and $5 more.", "A five meters pole and five dollars more."),
        ("Wait 1 s.", "Wait one second."),
        ("Room 4 B and a 4B file.", "Room four B and a four bytes file."),
    ],
    "range": [
        ("Pages 12-18 are missing.", "Pages twelve to eighteen are missing."),
        ("From 3–9 years.", "From three to nine years."),
        ("Between 200-400 Hz.", "Between two hundred to four hundred hertz."),
        ("The 1914–1918 war.", "The nineteen fourteen to nineteen eighteen war."),
        # a year and the next one's last digits is a season, not a fraction ("twenty fifths")
        ("The 2024/25 season and 1999/00.", "The twenty twenty four to twenty five season and nineteen ninety nine "
         "to two thousand."),
        ("Budgets 2008-09 and 2019/2020.", "Budgets two thousand and eight to oh nine and twenty nineteen to twenty "
         "twenty."),
    ],
    "fraction": [
        ("Add 2/3 cup.", "Add two thirds cup."),
        ("About 1/8 of it.", "About one eighth of it."),
        ("Take 2 1/4 hours.", "Take two and one quarter hours."),
        ("Half is 1/2.", "Half is one half."),
        # fraction characters (NFKC alone made "1⁄2" "one two" and "2¾" "twenty three four")
        ("Add ½ cup of milk.", "Add one half cup of milk."),
        ("Add 2¾ cups, 3⅛ inches.", "Add two and three quarters cups, three and one eighth inches."),
        ("A ⅓ share, 1⁄2 of it.", "A one third share, one half of it."),
    ],
    "negative": [
        ("It fell to -12 today.", "It fell to minus twelve today."),
        ("Set it to −3.5 now.", "Set it to minus three point five now."),
        ("A gain of -0.25 dB.", "A gain of minus zero point two five decibels."),
    ],
    "ordinal": [
        ("The 3rd day.", "The third day."),
        ("Her 101st birthday.", "Her one hundred and first birthday."),
        ("On the 42nd floor.", "On the forty second floor."),
    ],
    "scientific": [
        ("About 3e8 m/s.", "About three times ten to the power of eight meters per second."),
        ("A mass of 9.1E-31 kg.", "A mass of nine point one times ten to the power of minus thirty one kilograms."),
        ("Roughly 6x10^23 atoms.", "Roughly six times ten to the power of twenty three atoms."),
    ],
    "decimal": [
        ("Pi is 3.1416.", "Pi is three point one four one six."),
        ("It is 0.05 thick.", "It is zero point zero five thick."),
        ("Only .75 of it.", "Only point seven five of it."),
        ("Exactly 4.10 now.", "Exactly four point one zero now."),
    ],
    "circa": [  # espeak read "c." as "see": "born see eighteen fifty"
        ("Born c. 1850 in Ohio.", "Born circa eighteen fifty in Ohio."),
        ("Built c.1200, rebuilt ca. 1480.", "Built circa twelve hundred, rebuilt circa fourteen eighty."),
        ("Died c. 1066; take vitamin C. 3 tablets.", "Died circa ten sixty six; take vitamin C. three tablets."),
    ],
    "year before 1100": [  # a year after "in", "since", "the year", "circa" (was "one thousand and sixty six")
        ("In 1066 the Normans came.", "In ten sixty six the Normans came."),
        ("In the year 1066, and in 950 they left.", "In the year ten sixty six, and in nine fifty they left."),
        ("Rome fell in 476; it stood since 753.", "Rome fell in four seventy six; it stood since seven fifty three."),
        # counts: a unit or plural noun, "of", "one in", "by" (a factor) or no year word
        ("Done in 250 steps, in 500 ms, in 2000 files.", ("Done in two hundred and fifty steps, in five hundred "
         "milliseconds, in two thousand files.")),
        ("One in 250 people; in 250 of them; multiply by 250.", ("One in two hundred and fifty people; in two hundred "
         "and fifty of them; multiply by two hundred and fifty.")),
        ("We had 1066 of them; shot in 720p.", "We had one thousand and sixty six of them; shot in seven twenty p."),
    ],
    "magnitude suffix": [  # was "one point two k units", "three point four M views"
        ("It has 1.2k units and 3.4M views.", "It has one point two thousand units and three point four million views."),
        ("Now 10K followers, 3bn people, 1.5B parameters.", ("Now ten thousand followers, three billion people, one "
         "point five billion parameters.")),
        ("A 5K run, a 4K TV and a 4B file.", "A five K run, a four K TV and a four bytes file."),
        ("It raised $2.5B.", "It raised two point five billion dollars."),
        ("We had 2M requests, a 2M file.", "We had two million requests, a two M file."),  # was "two M requests"
    ],
    "score": [  # was "three point five/five", "ten tenths"
        ("Rated 3.5/5 stars.", "Rated three point five out of five stars."),
        ("A 10/10, would buy again; I gave it a 4/5.", ("A ten out of ten, would buy again; I gave it a four out of "
         "five.")),
        ("Rated 9/10; 9/10 dentists; it scored 95/100.", ("Rated nine out of ten; nine out of ten dentists; it scored "
         "ninety five out of one hundred.")),
        ("A 50/50 chance, the 80/20 rule; he got 9/10.", ("A fifty fifty chance, the eighty twenty rule; he got nine "
         "out of ten.")),                               # was "fifty fiftieths", "eighty twentieths", "nine tenths"
        ("Add 3/10 of a cup, 1/2 of it, 4 out of 5 on 10/10/2024.", ("Add three tenths of a cup, one half of it, four "
         "out of five on October tenth, twenty twenty four.")),
    ],
    "date without a year": [  # was "ten out of ten", "five out of five", "twelve thirty firsts"
        ("See you on 10/10, due 5/5.", "See you on October tenth, due May fifth."),
        ("Open until 12/31 and since 1/2.", "Open until December thirty first and since January second."),
        ("Cut by 1/3, from 1/2 to 3/4 cup; on 3/4 of days, a 10/10.", ("Cut by one third, from one half to three "
         "quarters cup; on three quarters of days, a ten out of ten.")),
    ],
    "arithmetic and money ranges": [  # the minus was silent, "/" said "slash", "ten dollars-twenty dollars"
        ("We know that 10 - 3 = 7 and 8 / 2 = 4.", "We know that ten minus three equals seven and eight divided by two "
         "equals four."),
        ("Prices range from $10-$20 or £5 – £8.", "Prices range from ten dollars to twenty dollars or five pounds to "
         "eight pounds."),
        ("Pages 3-5 and 10 - 20.", "Pages three to five and ten - twenty."),   # no "=": a spaced dash stays a pause
    ],
    "thousands": [
        ("We sold 12,500 units.", "We sold twelve thousand, five hundred units."),
        ("A crowd of 3,000,000.", "A crowd of three million."),
        ("About 7\u202f250 words.", "About seven thousand, two hundred and fifty words."),
    ],
}


@pytest.mark.parametrize("cls,text,expected", [(c, t, e) for c, rows in CASES.items() for t, e in rows])
def test_every_number_class(cls, text, expected):
    assert normalize_english(text) == expected


def test_every_class_has_several_cases():
    assert all(len(rows) >= 3 for rows in CASES.values())


@pytest.mark.parametrize("text,gb,us", [
    ("03/04/2021", "the third of April, twenty twenty one", "March fourth, twenty twenty one"),
    ("10/11/12", "the tenth of November, twelve", "October eleventh, twelve"),
    ("12/25/2024", "December twenty fifth, twenty twenty four", "December twenty fifth, twenty twenty four"),
    ("2024-02-01", "February first, twenty twenty four", "February first, twenty twenty four"),
    ("due 10/12", "due the tenth of December", "due October twelfth"),
])
def test_date_order_follows_the_locale(text, gb, us):
    assert spell_numbers(text, "en-GB") == gb
    assert spell_numbers(text, "en_US") == us


def test_no_digit_survives_and_words_are_kept():
    text = ("Order 0042 of v3.2.1 on 2024-05-06 at 10:45 cost $1,250.75 (15% off), 3-5 kg, "
            "call 0161 496 0000, host 10.1.2.3, 1e-9 s, 7/8, -2, 4th, 1990s.")
    spoken = normalize_english(text)
    assert not any(ch.isdigit() for ch in spoken), spoken
    assert "Order" in spoken and "cost" in spoken and "call" in spoken
