"""Issue 48 item 3: words in any script are runs of letters and combining marks (Unicode L and
M), so Indic and other scripts keep whole words; a name's leading article is stripped in the
text's own language only; Korean names are kept, without the particle written on to them.
One test per script, with names unlike the issue's."""

import pytest

from neo4j_retag.checks.language import language, strip_particle
from neo4j_retag.index.concepts import extract_concepts
from neo4j_retag.text import TERM, WORD


def keys(text):
    return {c.key for c in extract_concepts(text)}


def names(text):
    return {c.name for c in extract_concepts(text) if c.kind == "name"}


def test_devanagari_hindi_keeps_vowel_signs_and_two_word_names():
    text = ("सुनीता कुमारी ने पुस्तकालय का उद्घाटन किया। पुस्तकालय में बच्चों के लिए किताबें हैं। "
            "सुनीता कुमारी ने शिक्षकों को धन्यवाद दिया।")
    got = keys(text)
    assert {"सुनीता कुमारी", "पुस्तकालय"} <= got
    assert not {"स", "प", "पुस्तक", "कुम"} & got  # never cut at a vowel sign


def test_devanagari_marathi_words_are_whole():
    # no Marathi stop-word list: no phrase is cut out, but every recurring word is whole
    text = ("पुणे महानगरपालिका नवीन उद्यान बांधणार. पुणे महानगरपालिका आयुक्त म्हणाले की उद्यान "
            "लवकर होईल.")
    got = keys(text)
    assert {"पुणे", "महानगरपालिका", "उद्यान"} <= got and not {"प", "म", "उद"} & got


def test_bengali_and_tamil_keep_their_marks():
    bengali = "শান্তিনিকেতন একটি শহর। শান্তিনিকেতন বিশ্বভারতী বিশ্ববিদ্যালয়ের জন্য পরিচিত।"
    assert "শান্তিনিকেতন" in keys(bengali)
    tamil = "மதுரை நகரம் பழமையானது. மதுரை மீனாட்சி கோயில் புகழ்பெற்றது. மதுரை அழகானது."
    assert "மதுரை" in keys(tamil)


def test_hebrew_and_arabic_with_points_stay_one_word():
    assert WORD.findall("שָׁלוֹם עוֹלָם") == ["שָׁלוֹם", "עוֹלָם"]
    assert WORD.findall("مَدْرَسَةٌ كَبِيرَةٌ") == ["مَدْرَسَةٌ", "كَبِيرَةٌ"]
    assert TERM.findall("सहायता 2024 केंद्र") == ["सहायता", "2024", "केंद्र"]


@pytest.mark.parametrize("text, name, glued", [
    ("Η Μαρία Κωνσταντίνου διευθύνει το νοσοκομείο. Η Μαρία Κωνσταντίνου μίλησε χθες.",
     "Μαρία Κωνσταντίνου", "Η Μαρία Κωνσταντίνου"),
    ("Το Υπουργείο Υγείας ανακοίνωσε μέτρα. Το Υπουργείο Υγείας θα τα εφαρμόσει σύντομα.",
     "Υπουργείο Υγείας", "Το Υπουργείο Υγείας"),
    ("Οι Αθηναίοι ψήφισαν. Οι Αθηναίοι και η Θεσσαλονίκη περιμένουν.", "Αθηναίοι",
     "Οι Αθηναίοι"),
])
def test_greek_articles_are_not_part_of_a_name(text, name, glued):
    got = names(text)
    assert name in got and glued not in got


def test_articles_stripped_in_the_texts_language_only():
    spanish = ("La Universidad de Salamanca abrió el curso. La Universidad de Salamanca es la "
               "más antigua de España y los estudiantes llegan en septiembre.")
    assert "Universidad de Salamanca" in names(spanish) and language(spanish) == "es"
    english = ("The team flew from Los Angeles to Las Vegas. Los Angeles was sunny, and the "
               "Las Vegas show was sold out.")
    got = names(english)
    assert {"Los Angeles", "Las Vegas"} <= got and language(english) == "en"
    german = ("Die Deutsche Bahn hat den Fahrplan geändert. Die Deutsche Bahn ist nicht "
              "pünktlich und die Kunden sind mit den Zügen unzufrieden.")
    assert "Deutsche Bahn" in names(german) and "Die Deutsche Bahn" not in names(german)


def test_hangul_names_are_kept_without_their_particles():
    text = ("이서준은 부산시청에서 근무한다. 이서준이 예산안을 제출했다. 시의회는 이서준의 "
            "예산안을 검토했다. 부산시청은 바다 근처에 있다.")
    got = keys(text)
    assert {"이서준", "부산시청", "예산안"} <= got
    assert not {"이서준은", "이서준이", "이서준의"} & got


@pytest.mark.parametrize("word, stem", [
    ("이서준은", "이서준"), ("부산에서", "부산"), ("서울", "서울"), ("아이", "아이"),
    ("학교를", "학교"), ("Seoul", "Seoul"),
])
def test_korean_particles(word, stem):
    assert strip_particle(word) == stem


def test_unspaced_scripts_pair_whole_characters_with_their_marks():
    # Thai: a consonant with its vowel and tone marks is one character of a bigram, so no
    # bigram starts with a dangling mark
    got = keys("เชียงใหม่เป็นเมืองเก่า เชียงใหม่มีวัดมาก")
    assert got and not any(0x0E31 <= ord(k[0]) <= 0x0E4E and k[0] not in "เแโใไ"
                           for k in got)
    assert "หม่" in got  # of ใหม่: ห, then ม with its tone mark
