"""Concepts in any script (issue 32 item 1): letters of every script in names, title case
and acronyms; a table cell is a run of its own; ALL-CAPS text gives phrases, not one name per
sentence; unspaced scripts give recurring character bigrams."""

from neo4j_retag.index.concepts import extract_concepts


def names(text):
    return {c.name for c in extract_concepts(text) if c.kind == "name"}


def keys(text):
    return {c.key for c in extract_concepts(text)}


def test_accented_latin_names_are_whole():
    text = ("Die Hafenbehörde von Kleinmünster plant den Umbau. Der Bürgermeister Jürgen "
            "Müller sagte, die Hafenbehörde werde Fördermittel beantragen. We met at the "
            "Curlew Café. Later the Curlew Café closed.")
    got = names(text)
    assert {"Hafenbehörde", "Kleinmünster", "Curlew Café"} <= got
    assert not {"Hafenbeh", "Kleinm", "F", "M", "Curlew Caf"} & got


def test_cyrillic_and_greek_names():
    assert {"Иван Петров", "Москва"} <= names(
        "Министр Иван Петров посетил город. Петров сказал, что Москва готова. Москва ждёт. "
        "Иван Петров уехал.")
    assert "Αθήνα" in names("Ο Γιώργος επισκέφθηκε την Αθήνα. Η Αθήνα υποδέχθηκε τον Γιώργο.")


def test_caseless_scripts_give_concepts():
    arabic = "زار الوزير القاهرة. قال الوزير إن القاهرة مستعدة. القاهرة مدينة كبيرة."
    assert "القاهرة" in keys(arabic)
    chinese = "东京大学的研究团队发现了新的方法。东京大学表示，研究团队将继续研究。"
    got = keys(chinese)
    assert {"东京", "大学", "研究", "团队"} <= got  # recurring bigrams
    assert "的研" not in got  # once only: not kept
    assert keys("これは東京の話です。東京はとても大きい。") >= {"東京"}


def test_all_caps_text_is_not_one_name_per_sentence():
    text = ("THE HARBOUR BOARD MET ON MONDAY TO DISCUSS THE NEW QUAY. THE HARBOUR BOARD "
            "APPROVED THE PLAN FOR THE QUAY. THE PLAN WILL COST MONEY.")
    found = extract_concepts(text)
    assert not any(c.kind == "name" for c in found)
    assert all(len(c.key.split()) <= 3 for c in found) and "plan" in {c.key for c in found}
    assert "BBC" in names("The BBC said it would. Later the BBC agreed.")  # acronyms stay


def test_table_cells_are_not_joined_across_bars():
    got = names("| Name | City |\n|---|---|\n| Anna Schmidt | Hamburg |\n"
                "| Otto Weber | Bremen |")
    assert {"Anna Schmidt", "Otto Weber"} <= got
    assert not any("|" in n or "Schmidt Hamburg" in n for n in got)
