"""The HTTP routes of the operations' table: one route per operation, its fields from the
path, the query string (GET) or the JSON body, read by the operation's own request model
(not FastAPI's per-parameter validation), so a bad value gets the words MCP's tool gets.
Their OpenAPI entries come from the same models."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from ..api.operations import OPERATIONS, InvalidRequest, Operation
from .served import call
from .service import Service


def add_operation_routes(app: FastAPI, service: Service) -> None:
    """Every operation of the table as a route of ``app``; `DELETE /documents/{id}` too (the
    one-document form of `POST /documents/delete`)."""
    for op in OPERATIONS.values():
        app.add_api_route(op.path, _endpoint(service, op), methods=[op.method],
                          name=op.name, summary=op.summary, response_model=op.response,
                          status_code=op.status, openapi_extra=_openapi(op))
    delete = OPERATIONS["delete_documents"]

    async def delete_one(doc_id: str) -> Response:
        return _json(await call(service, delete, {"ids": [doc_id]}), delete)

    app.add_api_route("/documents/{doc_id}", delete_one, methods=["DELETE"],
                      name="delete_document", response_model=delete.response,
                      summary="One document: `POST /documents/delete` with its id.")


def _endpoint(service: Service, op: Operation) -> Any:
    async def endpoint(request: Request) -> Response:
        raw: dict[str, Any] = dict(request.path_params)
        if op.method == "GET":
            raw.update(request.query_params)
        else:
            raw.update(await _body(request))
        return _json(await call(service, op, raw), op)
    endpoint.__name__ = op.name
    return endpoint


async def _body(request: Request) -> dict[str, Any]:
    data = await request.body()
    try:
        body = json.loads(data) if data.strip() else {}
    except ValueError:
        raise InvalidRequest("body: not JSON") from None
    if not isinstance(body, dict):
        raise InvalidRequest("body: Input should be a JSON object")
    return body


def _json(out: Any, op: Operation) -> Response:
    return JSONResponse(out.model_dump(mode="json"), status_code=op.status)


def _openapi(op: Operation) -> dict[str, Any]:
    """The request model as OpenAPI parameters (path and query) or a JSON body."""
    schema = op.request.model_json_schema()
    props, required = schema.get("properties", {}), set(schema.get("required", ()))
    if op.method != "GET":
        return {"requestBody": {"required": True, "content": {
            "application/json": {"schema": schema}}}} if props else {}
    return {"parameters": [
        {"name": name, "in": "path" if f"{{{name}}}" in op.path else "query",
         "required": name in required or f"{{{name}}}" in op.path,
         "description": prop.get("description", ""), "schema": prop}
        for name, prop in props.items()]}
