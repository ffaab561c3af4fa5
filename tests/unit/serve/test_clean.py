"""Control characters (Unicode Cc) and lone surrogates are refused wherever a client's text
enters serve: the URL path (none at all), the query string and every string of a JSON body
(tab, line feed, carriage return allowed), each naming the field; text in any script,
emoji and joiners pass."""

import pytest

from neo4j_retag.errors import InputError
from neo4j_retag.serve.clean import bad_char, check_json, check_request


def test_bad_char_finds_c0_del_c1_and_surrogates():
    for text, found in (("a\x00b", "U+0000"), ("\x1b[31mred", "U+001B"), ("x\x7f", "U+007F"),
                        ("line\x85next", "U+0085"), ("half \ud83d", "U+D83D"),
                        ("bell\x07", "U+0007"), ("form\x0cfeed", "U+000C")):
        assert bad_char(text) == found, text
    for text in ("two\nlines\r\n\tindented", "सहकारी समिति", "Ο Γιώργος", "김민준",
                 "🎄 Christmas", "a\u200db", "\u202eevil", "مرحبا"):
        assert bad_char(text) is None, text
    assert bad_char("a\nb", frozenset()) == "U+000A"  # none at all where asked


def test_json_strings_and_keys_named_by_their_path():
    check_json({"question": "What changed?\n\tIn 2024?", "level": 0, "refine": None})
    with pytest.raises(InputError, match=r"^paths\.1: control character U\+001F"):
        check_json({"paths": ["ok.txt", "unit\x1fsep.txt"], "topics": True})
    with pytest.raises(InputError, match=r"^a\.b\.0: control character U\+0000"):
        check_json({"a": {"b": ["\x00"]}})
    with pytest.raises(InputError, match=r"^body: control character U\+0008"):
        check_json({"back\x08space": 1})
    with pytest.raises(InputError, match=r"^body: control character U\+0001"):
        check_json("\x01")


def test_a_request_path_query_and_body():
    check_request("/text-units/ab12", b"q=fee%0Afees&k=3", b'{"question": "x"}')
    cases = [("/documents/ab\x00cd", b"", None, "path"),
             ("/reports/search", b"q=Marley%7F&k=2", None, "q"),
             ("/reports/search", b"q%01=x", None, "query"),
             ("/reports/search", b"q=%FF%FE", None, "query: not UTF-8"),
             ("/ask", b"", b'{"question": "Why\\u0000?"}', "question"),
             # raw control bytes inside a JSON string (invalid strict JSON) are named too
             ("/ask", b"", b'{"question": "Why\x1b?"}', "question"),
             ("/ask", b"", b'{"question": "\\ud800 lone"}', "question")]
    for path, query, body, where in cases:
        with pytest.raises(InputError, match=rf"^{where}"):
            check_request(path, query, body)
    check_request("/ask", b"", b"not json at all \x00")  # left to the route (422)


def test_integers_beyond_64_bits_and_deep_nesting():
    check_json({"level": 2**63 - 1, "top_p": -(2**63), "dynamic": True})
    with pytest.raises(InputError, match=r"^report_id: 9223372036854775808 is beyond"):
        check_json({"report_id": 2**63})
    with pytest.raises(InputError, match="nested deeper than 32 levels"):
        check_request("/ask", b"", b"[" * 40 + b"]" * 40)
    with pytest.raises(InputError, match="nested deeper than 32 levels"):
        check_request("/ask", b"", b"[" * 100_000 + b"]" * 100_000)  # beyond Python's stack
