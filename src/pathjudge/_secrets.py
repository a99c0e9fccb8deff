"""Keeping credentials out of everything pathjudge prints, logs or stores.

- :func:`redact` removes the values of the API-key environment variables, any extra secrets given,
  anything shaped like an API key (``sk-ant-...``, ``sk-...``, ``Bearer ...``) and the user-info of
  URLs (``http://user:KEY@host``).
- :func:`mask_url` hides the user-info of one URL (``http://***@host``), for display and cache keys.
- :func:`install_log_redaction` puts a :class:`RedactingFilter` on the loggers of the SDKs the judge
  and the agent use (anthropic, instructor, httpx, httpx2, httpcore, openai): with ``ANTHROPIC_LOG``
  set, instructor and the SDK log raw request and response bodies, and a proxy that echoes the key
  would otherwise print it on stderr.
"""

from __future__ import annotations

import logging
import os
import re
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "SDK_LOGGERS",
    "RedactingFilter",
    "install_log_redaction",
    "mask_url",
    "redact",
]

SECRET_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "PATHJUDGE_API_KEY")
SDK_LOGGERS = ("anthropic", "instructor", "httpx", "httpx2", "httpcore", "httpcore2", "openai")

KEY_SHAPE = re.compile(
    r"\b(?:sk-ant-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{8,}|(?:Bearer|bearer)\s+[A-Za-z0-9._~+/\-]{12,}=*)"
)
_URL_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.\-]*://)(?P<info>[^/@\s]+)@")


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every known secret, key-shaped string and URL user-info replaced."""
    for secret in (*secrets, *(os.environ.get(name) for name in SECRET_ENV)):
        if secret and len(secret) >= 8 and secret in text:
            text = text.replace(secret, "[redacted]")
    if "sk-" in text or "earer" in text:
        text = KEY_SHAPE.sub("[redacted]", text)
    if "@" in text:
        text = _URL_USERINFO.sub(r"\g<scheme>[redacted]@", text)
    return text


def mask_url(url: str) -> str:
    """A URL with its user-info (``user:password@``) replaced by ``***@``; other text unchanged."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit(parts._replace(netloc=f"***@{host}"))


class RedactingFilter(logging.Filter):
    """Rewrites each record's message (arguments merged in) through :func:`redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to the logging machinery
            return True
        cleaned = redact(message)
        if cleaned != message or record.args:
            record.msg = cleaned
            record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            # the formatted traceback would repeat the message; keep only the redacted text
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


_FILTER = RedactingFilter()
_INSTALLED: list[bool] = []


def _is_sdk(name: str) -> bool:
    return name.partition(".")[0] in SDK_LOGGERS


def install_log_redaction() -> None:
    """Redact every log record of the SDK loggers (and their children), however it is handled.

    A filter on a logger does not see records of its child loggers (``anthropic._base_client``), and
    ``ANTHROPIC_LOG`` adds its handler to the root logger, so the redaction is done where records are
    made: a log record factory chained in front of the current one. Idempotent.
    """
    if _INSTALLED:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _is_sdk(record.name):
            _FILTER.filter(record)
        return record

    logging.setLogRecordFactory(factory)
    _INSTALLED.append(True)
