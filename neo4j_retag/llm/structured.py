"""A structured reply held to the schema we sent, on our side: servers accept a schema without
enforcing it. The text is read as JSON (or, for a model that has one, in
another format it may answer in: GraphRAG's tuples), conformed to the schema sent (wrong field
names are invalid; lists and strings over their bounds cut, counted as repairs), then
validated by the pydantic model. Anything else is an ``invalid`` ReplyFault: retried with the
error, then the item fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .reply import DEGENERATE, INVALID, ReplyFault, parse_json
from .schema import JSON, Shape, conform, first_error

M = TypeVar("M", bound=BaseModel)


def validator(model: type[M], stage: str, sent: JSON,
              context: JSON | None = None) -> Callable[[str, list[str]], M]:
    """The ``validate`` `LLM.complete` takes for replies of ``model`` to a request that sent
    the schema ``sent``; it appends the harmless defects it repaired to ``repairs``.
    ``context`` goes to the model's validation (a model's own bounds: `LLM.structured`)."""
    salvage = getattr(model, "from_text", None)  # another format the model may answer in
    own = getattr(model, "OWN_BOUNDS", False)  # cuts its text fields itself (context's bounds)

    def validate(text: str, repairs: list[str]) -> M:
        try:
            if salvage is not None and (data := salvage(text)) is not None:
                repairs.append("tuples")  # records we built: the model checks them itself
                return model.model_validate(data, context=context)
            data = parse_json(text, repairs)
            # held to the schema sent: wrong field names are invalid, overlong text cut (by a
            # model with its own bounds itself, counted with its other cuts)
            held = conform(data, sent, repairs, strings=not own)
            return model.model_validate(held, context=context)
        except Shape as err:
            raise ReplyFault(INVALID, f"{stage}: wrong shape ({err})", text) from err
        except ValidationError as err:
            raise ReplyFault(INVALID, f"{stage}: wrong shape ({first_error(err)})",
                             text) from err

    return validate


def accepted(validate: Callable[[str, list[str]], Any], accept: Callable[[Any], str | None] | None,
             stage: str) -> Callable[[str, list[str]], Any]:
    """``validate`` followed by ``accept``: a parsed result it rejects is ``degenerate``."""
    if accept is None:
        return validate

    def check(text: str, repairs: list[str]) -> Any:
        result = validate(text, repairs)
        if (why := accept(result)) is not None:
            raise ReplyFault(DEGENERATE, f"{stage}: {why}", text)
        return result
    return check
