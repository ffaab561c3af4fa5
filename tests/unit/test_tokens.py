import pytest

from neo4j_retag import tokens
from neo4j_retag.errors import ConfigError


def test_offline_encoding_counts():
    assert tokens.count("hello world") == 2


def test_split_sizes_and_overlap():
    text = " ".join(f"word{i}" for i in range(3000))
    units = tokens.split(text, 600, 100)
    assert len(units) > 1
    assert all(tokens.count(u) <= 600 for u in units)
    # consecutive units share text (100-token overlap)
    assert units[0].split()[-5] in units[1]


def test_split_never_breaks_multibyte_characters():
    text = "日本語のテキスト。" * 500 + "😀" * 300
    for unit in tokens.split(text, 50, 10):
        assert "\ufffd" not in unit


def test_split_rejects_overlap_not_below_size():
    import pytest
    with pytest.raises(ConfigError, match="OVERLAP"):
        tokens.split("x", 100, 100)


def test_short_and_empty_text():
    assert tokens.split("just a few words", 600, 100) == ["just a few words"]
    assert tokens.split("", 600, 100) == []


def test_cached_ranks_give_the_same_encoding(tmp_path, monkeypatch):
    monkeypatch.setenv("NEO4J_RETAG_HOME", str(tmp_path))
    tokens.encoding.cache_clear()
    try:
        first = tokens.encoding()  # parses the BPE file, writes the cache
        cached = list((tmp_path / "tiktoken").glob("*.marshal"))
        assert len(cached) == 1
        tokens.encoding.cache_clear()
        second = tokens.encoding()  # from the cache
        text = "Scrooge's counting-house, 1843: 日本語 😀 <|endoftext|>"
        assert second.encode(text, disallowed_special=()) == first.encode(
            text, disallowed_special=())
        assert second.n_vocab == first.n_vocab
        cached[0].write_bytes(b"not marshal")  # a damaged cache is rebuilt, not trusted
        tokens.encoding.cache_clear()
        assert tokens.encoding().encode("hello world") == first.encode("hello world")
    finally:
        tokens.encoding.cache_clear()


def test_offline_tokenizer_is_one_line_naming_the_fix(tmp_path, monkeypatch):
    # no network (a proxy that refuses), an empty tiktoken cache: o200k_base cannot be fetched
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))
    monkeypatch.setenv("NEO4J_RETAG_HOME", str(tmp_path))
    tokens.encoding.cache_clear()
    try:
        with pytest.raises(ConfigError) as e:
            tokens.count("hello", "o200k_base")
        with pytest.raises(ConfigError, match="not a tiktoken encoding"):
            tokens.count("hello", "o300k_nonsense")
    finally:
        tokens.encoding.cache_clear()
    msg = str(e.value)
    assert "ENCODING=o200k_base" in msg and "ENCODING=cl100k_base" in msg and "\n" not in msg


def _table(n: int) -> str:
    rows = "\n".join(f"| {2000 + i} | {i * 10} readers borrowed books that year |"
                     for i in range(n))
    return f"| Year | Readers |\n|---|---|\n{rows}"


def test_split_cuts_tables_between_rows_and_repeats_the_header():
    text = "The library's visits by year.\n\n" + _table(40) + "\n\nVisits rose every year."
    spans = tokens.split_spans(text, 80, 10)
    table_units = [u for u, _, _ in spans if "| Year |" in u]
    assert len(table_units) > 2
    for unit in table_units:
        lines = unit[unit.index("| Year |"):].split("\n")
        assert lines[:2] == ["| Year | Readers |", "|---|---|"]  # every part has the header
        rows = [line for line in lines[2:] if line.startswith("|")]
        assert rows and all(line.startswith("| 2") and line.endswith(" year |")
                            for line in rows)  # no row cut
    rows = [line for u in table_units for line in u.split("\n")[2:] if line.startswith("| 2")]
    assert rows == _table(40).split("\n")[2:]  # every row once, in order
    # the spans cover the text in order: each unit's text comes from its span
    for unit, start, end in spans:
        assert unit.split("\n")[-1].strip() in text[start:end]
    assert spans[-1][0].endswith("Visits rose every year.")


def test_split_keeps_a_short_table_with_its_prose():
    text = "Opening hours.\n\n| Day | Hours |\n|---|---|\n| Mon | 9-5 |\n\nClosed on Sunday."
    assert tokens.split(text, 600, 100) == [text]


def test_split_without_tables_is_unchanged():
    # the windows of a text without tables, as split() always made them
    text = " ".join(f"word{i}" for i in range(2000))
    enc = tokens.encoding()
    toks = enc.encode(text)
    old = [enc.decode(toks[s:s + 300]).strip() for s in range(0, len(toks) - 50, 250)]
    assert tokens.split(text, 300, 50) == old


def test_a_recurring_text_is_counted_once():
    text = "The Harbour Trust raised the docking fees. " * 40
    tokens.count_recurring.cache_clear()
    assert tokens.count_recurring(text) == tokens.count(text)
    assert tokens.count_recurring(text) == tokens.count(text)
    assert tokens.count_recurring.cache_info().hits == 1


def test_split_cuts_a_code_fence_between_lines_and_reopens_it():
    # a fence was cut mid-line, the next text unit starting inside the code without its
    # opener
    code = "\n".join(f"    berth_{i} = compute_fee(length={i}, season='winter')"
                     for i in range(60))
    text = f"The fee script.\n\n```python\n{code}\n```\n\nThe script runs nightly."
    spans = tokens.split_spans(text, 80, 10)
    fenced = [u for u, _, _ in spans if "berth_" in u]
    assert len(fenced) > 2
    lines: list[str] = []
    for unit in fenced:
        body = unit[unit.index("```python"):].split("\n")
        assert body[0] == "```python" and body[-1] == "```", unit  # opened and closed
        assert all(line in code.split("\n") for line in body[1:-1]), unit  # no line cut
        lines += body[1:-1]
    assert lines == code.split("\n")  # every line once, in order
    for unit, start, end in spans:  # each unit's span holds its text's last code line
        assert unit.split("\n")[-2 if unit.endswith("```") else -1].strip() in text[start:end]
    assert spans[0][0].startswith("The fee script.")
    assert spans[-1][0].endswith("The script runs nightly.")


def test_a_table_inside_a_fence_is_code():
    text = "```\n| a | b |\n|---|---|\n| 1 | 2 |\n```"
    assert tokens.split(text, 600, 100) == [text]
