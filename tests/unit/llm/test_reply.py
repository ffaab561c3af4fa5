"""Reply checks (llm/reply.py): envelope, sanitising, harmless repairs, truncation."""

import pytest

from neo4j_retag.llm.reply import (
    Reply,
    ReplyFault,
    check_text,
    parse_json,
    read_envelope,
    unclosed,
)


def body(content, finish="stop", usage=True):
    out = {"choices": [{"index": 0, "finish_reason": finish,
                        "message": {"role": "assistant", "content": content}}]}
    if usage:
        out["usage"] = {"prompt_tokens": 7, "completion_tokens": 3}
    return out


@pytest.mark.parametrize("text", [
    '```json\n{"a": 1}\n```',
    'Sure! Here it is: {"a": 1} hope that helps',
    '{"a": 1,}',
    'Sure! Here is the JSON you asked for:\n\n```json\n{"a": 1}\n```',
    '<think>first I think</think>\n{"a": 1}',
])
def test_harmless_defects_are_repaired(text):
    assert parse_json(text)["a"] == 1


@pytest.mark.parametrize("text", ['{"a": 1, "b": [1, 2', '{"title": "A report", "summary": "cut mi',
                                  '[{"a": 1}, {"b"'])
def test_json_cut_off_is_truncation_not_repaired(text):
    with pytest.raises(ReplyFault) as err:
        parse_json(text)
    assert err.value.reason == "truncated"


@pytest.mark.parametrize("text", ["I cannot do that.", "I'm sorry, I can't help with that.", ""])
def test_no_json_is_unparseable(text):
    with pytest.raises(ReplyFault) as err:
        parse_json(text)
    assert err.value.reason == "unparseable"


def test_unclosed_ignores_brackets_in_strings_and_text_after():
    assert not unclosed('{"a": "}{["} and then prose {')
    assert unclosed('{"a": "x\\"')


def test_lone_surrogates_are_dropped_and_text_is_nfc():
    value = parse_json('{"name": "Caf\\u0065\\u0301 \\ud83d", "k": ["\\udc00x"]}')
    assert value == {"name": "Caf\u00e9 ", "k": ["x"]}
    value["name"].encode("utf-8")  # would raise "surrogates not allowed" before


@pytest.mark.parametrize("raw,reason", [
    ({"error": {"message": "model overloaded"}}, "no_choices"),
    ({"choices": []}, "no_choices"),
    ({"object": "chat.completion"}, "no_choices"),
    ({"choices": [{"index": 0}]}, "no_message"),
    ({"choices": [{"message": {"content": {"a": 1}}}]}, "bad_content"),
    ({"choices": [{"message": {"content": "x"}, "finish_reason": "content_filter"}]},
     "content_filter"),
    (None, "no_choices"),
])
def test_envelope_faults_have_named_reasons(raw, reason):
    with pytest.raises(ReplyFault) as err:
        read_envelope(raw, "prompt", "cl100k_base")
    assert err.value.reason == reason


def test_usage_optional_and_both_spellings():
    r = read_envelope(body("hello"), "prompt", "cl100k_base")
    assert (r.prompt_tokens, r.completion_tokens, r.repairs) == (7, 3, [])
    b = body("hello", usage=False)
    b["usage"] = {"input_tokens": 11, "output_tokens": 2}
    assert read_envelope(b, "p", "cl100k_base").prompt_tokens == 11
    r = read_envelope(body("hello world", usage=False), "a longer prompt here", "cl100k_base")
    assert r.repairs == ["nousage"] and r.prompt_tokens > 0 and r.completion_tokens == 2


def test_think_prefix_is_stripped():
    r = read_envelope(body("<think>hmm</think>\nThe answer."), "p", "cl100k_base")
    assert r.text == "The answer." and "think" in r.repairs


@pytest.mark.parametrize("text,reason,finish", [
    ("", "empty", "stop"), ("   ", "empty", "stop"),
    ("I'm sorry, I can't help with that.", "refused", "stop"),
    ("A summary that was cut", "truncated", "length"),
])
def test_text_replies_checked(text, reason, finish):
    with pytest.raises(ReplyFault) as err:
        check_text(Reply(text, finish, 1, 1))
    assert err.value.reason == reason


def test_text_reply_chatter_stripped_and_truncation_allowed_when_asked():
    r = Reply("A summary.\n\nI hope this helps! Let me know if you need more.", "stop", 1, 1)
    assert check_text(r) == "A summary." and r.repairs == ["chatter"]
    r = Reply("YES", "length", 1, 1)
    assert check_text(r, truncation_ok=True) == "YES" and r.repairs == ["truncated_ok"]


def test_looping_tells_a_loop_from_long_text():
    from neo4j_retag.llm.reply import looping
    prose = " ".join(f"word{i} of the sentence number {i} goes here" for i in range(60))
    assert not looping(prose)
    names = ["Bob Cratchit", "Tiny Tim", "Fred", "Belle", "Fezziwig", "Jacob Marley", "Scrooge",
             "Mrs Cratchit", "Martha", "Peter", "Dick Wilkins", "Topper"]
    bullets = "\n".join(f"- {n} is a member of the Cratchit family and lives in Camden Town "
                        "[Data: Reports (1, 2)]." for n in names)
    table = "| entity | role |\n|---|---|\n" + "\n".join(
        f"| {n} | a character of the story who appears in stave one of the book |" for n in names)
    assert not looping(bullets) and not looping(table)  # templated, not looping
    assert looping("A start. " + "It repeats the same eight words over and over. " * 15)
    assert not looping("short. " * 3)  # too short to judge
