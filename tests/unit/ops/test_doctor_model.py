"""doctor's model check: which model is served, its context, budgets; mismatches flagged."""

import pytest

from neo4j_retag.config import Settings
from neo4j_retag.ops import doctor

META = {"name": "Qwen2.5 Coder 1.5B Instruct GGUF", "architecture": "qwen2",
        "context_length": 32768, "chat_template": True}


@pytest.fixture(autouse=True)
def _whole_model(monkeypatch):
    """The model file is not read here: test_doctor_budgets checks a broken one."""
    monkeypatch.setattr(doctor.llm_local, "checked_model", lambda s: (None, META))


def status(model="qwen", ready=True, meta=META):
    return lambda s: {"ready": ready, "running": ready, "model": model,
                      "model_file": "/m/qwen.gguf", "gguf": meta, "n_ctx": s.services.llm_ctx}


def test_served_model_context_and_budgets(monkeypatch):
    monkeypatch.setattr(doctor.llm_local, "status", status())
    c = doctor._model(Settings(openai_base_url=None, openai_model="qwen", llm_ctx=16384))
    assert c.ok and "serving 'qwen'" in c.detail and "context 16384 tokens (trained 32768)" \
        in c.detail and "map 6000" in c.detail


def test_context_beyond_training_and_wrong_model_served(monkeypatch):
    monkeypatch.setattr(doctor.llm_local, "status", status())
    c = doctor._model(Settings(openai_base_url=None, openai_model="qwen", llm_ctx=65536))
    assert not c.ok and "LLM_CTX" in c.fix
    monkeypatch.setattr(doctor.llm_local, "status", status(model="smollm2"))
    c = doctor._model(Settings(openai_base_url=None, openai_model="qwen"))
    assert not c.ok and "llm stop" in c.fix
    monkeypatch.setattr(doctor.llm_local, "status", status(meta=None))
    assert not doctor._model(Settings(openai_base_url=None)).ok


def test_remote_endpoint_names_the_model():
    c = doctor._model(Settings(openai_base_url="http://x/v1", openai_model="gpt-x"))
    assert c.ok and "'gpt-x'" in c.detail and "map 8000" in c.detail
