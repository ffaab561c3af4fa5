"""Written text held to its evidence, sentence by sentence (checks/support.py)."""

from neo4j_retag.checks.support import supported

EVIDENCE = ("Nokia said it would look at the reports. Owners of some Nokia smartphones are "
            "being warned to watch out for malicious wallpaper.")


def test_a_sentence_naming_what_the_evidence_does_not_hold_is_removed_and_counted():
    text = ("Nokia is a Finnish anti-virus company that produces mobile phones. Nokia warned "
            "owners of its smartphones about malicious wallpaper.")
    kept, removed = supported(text, EVIDENCE)
    assert removed == 1
    assert kept == "Nokia warned owners of its smartphones about malicious wallpaper."


def test_supported_text_is_kept_as_written():
    text = "Nokia will look at the reports.\nOwners of Nokia smartphones are warned."
    assert supported(text, EVIDENCE) == (text, 0)
