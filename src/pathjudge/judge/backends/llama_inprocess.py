"""llama-cpp-python in process as a judge (the optional ``llama`` extra, imported lazily).

The model is loaded once; calls run one at a time in a worker thread (a ``Llama`` object is not
thread-safe) with the Verdict JSON schema as a grammar (``response_format`` json_object + schema), and the
same validate / re-ask loop as the OpenAI-compatible backend. Usage is recorded per call; cost is 0.
``repeat_penalty`` defaults to 1.3: small models otherwise tend to repeat list items (the evidence
quotes) until they hit ``max_tokens``.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from pathjudge._optional import require
from pathjudge.errors import JudgeError
from pathjudge.judge.backends.base import BackendReply, JudgeBackend, TransientError
from pathjudge.judge.backends.openai_compat import judge_by_chat
from pathjudge.judge.prompt import JudgePrompt
from pathjudge.judge.verdict import Verdict

__all__ = ["LlamaBackend"]


class LlamaBackend(JudgeBackend):
    """Judge with a local GGUF model through ``llama_cpp.Llama`` (see the module docstring)."""

    name = "llama"

    def __init__(
        self,
        *,
        model_path: str | Path,
        n_ctx: int = 4096,
        max_tokens: int = 512,
        reasks: int = 2,
        repeat_penalty: float = 1.3,
    ) -> None:
        llama_cpp = require("llama_cpp", "llama", "the in-process llama judge backend")
        path = Path(model_path)
        if not path.is_file():
            raise JudgeError(
                "model file not found", file=path, hint="pass --model PATH to a .gguf file"
            )
        self.model = path.name
        self.max_tokens = max_tokens
        self.reasks = reasks
        self.repeat_penalty = repeat_penalty
        self._lock = threading.Lock()
        try:
            self._llama = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise JudgeError(
                f"could not load the model ({type(exc).__name__})", file=path
            ) from None

    def _complete(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        with self._lock:
            result = self._llama.create_chat_completion(
                messages=messages,
                max_tokens=self.max_tokens,
                repeat_penalty=self.repeat_penalty,
                response_format={"type": "json_object", "schema": Verdict.model_json_schema()},
            )
        return dict(result)

    async def judge(self, prompt: JudgePrompt, *, timeout: float | None) -> BackendReply:
        async def send(messages: list[dict[str, str]]) -> dict[str, Any]:
            try:
                return await asyncio.to_thread(self._complete, messages)
            except (ValueError, RuntimeError) as exc:
                raise TransientError(
                    "server_error", f"llama.cpp failed ({type(exc).__name__})"
                ) from None

        return await judge_by_chat(
            send, prompt, backend=self.name, model=self.model, reasks=self.reasks
        )
