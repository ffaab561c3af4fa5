import json

import pytest

from neo4j_retag.errors import Failure
from neo4j_retag.index.documents import Document, decode, read_path
from neo4j_retag.text import clean


def test_clean_nfc_and_controls():
    assert clean("e\u0301\x00a\x07b\r\nc\ud800") == "\u00e9ab\nc"


def test_decode_bom_latin1_and_binary():
    assert decode("\ufeffhé".encode()) == "hé"
    assert decode("hé".encode("utf-16")) == "hé"
    text = "Café crème à la française, déjà vu. " * 20
    assert decode(text.encode("cp1252")) == text
    assert decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR") is None


def test_read_folder_records_and_skips(tmp_path):
    (tmp_path / "a.txt").write_text("Scrooge met Marley.")
    (tmp_path / "empty.md").write_text("   \n")
    (tmp_path / "img.txt").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "news.jsonl").write_text(
        json.dumps({"title": "T1", "body": "Body one.", "category": "tech"}) + "\n"
        + json.dumps({"title": "T2", "text": "Body two."}) + "\n")
    (tmp_path / "bad.json").write_text("{not json")
    items = list(read_path(tmp_path))
    docs = [i for i in items if isinstance(i, Document)]
    skipped = {i.item.split("/")[-1]: i for i in items if isinstance(i, Failure)}
    assert {d.title for d in docs} == {"a", "T1", "T2"}
    assert next(d for d in docs if d.title == "T1").metadata == {"title": "T1", "category": "tech"}
    assert (skipped["empty.md"].reason, skipped["empty.md"].error) == ("empty", "empty document")
    assert (skipped["img.txt"].reason, skipped["img.txt"].error) == ("binary", "binary file")
    assert skipped["bad.json"].reason == "malformed" and "malformed" in skipped["bad.json"].error


def test_same_content_same_id(tmp_path):
    (tmp_path / "x.txt").write_text("Same text.")
    (tmp_path / "y.txt").write_text("Same text.\n")
    ids = {d.id for d in read_path(tmp_path) if isinstance(d, Document)}
    assert len(ids) == 1


def test_decode_central_european_not_forced_to_cp1252():
    text = "Zażółć gęślą jaźń, mówiła pani. " * 10
    assert decode(text.encode("cp1250")) == text


def test_nothing_to_ingest_is_a_user_error(tmp_path):
    # a newcomer's `ingest photo.png` and `ingest empty-folder/` printed a summary, exit 0
    from neo4j_retag.errors import InputError
    from neo4j_retag.index.documents import check_inputs
    pdf = tmp_path / "photo.png"
    pdf.write_bytes(b"\x89PNG")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"nothing to ingest in .*photo\.png: no \.csv"):
        check_inputs([pdf])
    with pytest.raises(InputError, match="nothing to ingest"):
        check_inputs([tmp_path / "empty"])
    with pytest.raises(InputError, match="no such file or folder"):
        check_inputs([tmp_path / "missing.txt"])
    (tmp_path / "empty" / "notes.md").write_text("The harbour plan.")
    check_inputs([pdf, tmp_path / "empty"])  # one readable file: the pdf is skipped as before
    check_inputs([])  # no paths: finish what earlier runs left


@pytest.mark.parametrize(("text", "enc"), [
    ("La Señora dijo «adiós» y pagó £5… a 20°C.", "cp1252"),
    ("Der Bürgermeister sagt: «Die Straße ist 5° kälter» …", "cp1252"),
    ("Ça coûte 3 £ et il fait 12° à Noël… «Très bien»", "cp1252"),
    ("Mañana", "cp1252"), ("Café “quoted” – dash €5", "cp1252"),
    ("Café crème à la française, déjà vu. " * 20, "cp1252"),
    ("Привет, как дела? Москва — столица.", "cp1251"),
    ("Zażółć gęślą jaźń. Łódź i Kraków.", "cp1250"),
    ("Příliš žluťoučký kůň úpěl ďábelské ódy.", "cp1250"),
    ("Καλημέρα, η Αθήνα είναι μεγάλη πόλη.", "cp1253"),
])
def test_legacy_code_pages_decode_by_the_detectors_evidence(text, enc):
    # issue 32: «», £, ° and … in cp1252 were read as cp1250 ("Seńora")
    assert decode(text.encode(enc)) == text
