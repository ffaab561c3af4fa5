"""`serve`'s own settings (environment variables or `.env`), apart from the library's."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class ServeSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8",
                                      extra="ignore", case_sensitive=False)

    serve_api_key: SecretStr | None = Field(
        None, description="bearer token every request must carry; required off loopback")
    serve_ingest_root: Path | None = Field(
        None, description="the only folder POST /ingest reads under (unset: no ingest)")
    serve_queue_limit: int = Field(
        32, ge=0, description="questions that may wait for a slot before 429")
    serve_max_body: int = Field(
        65_536, ge=1024, description="largest request body in bytes (413 beyond)")

    def key(self) -> str | None:
        """The API key, or None when unset or empty."""
        value = self.serve_api_key.get_secret_value() if self.serve_api_key else ""
        return value or None
