"""Telling a Ctrl-C apart from a ``KeyboardInterrupt`` that a check raised.

Grading guards every check: whatever a check (or a user callable) raises becomes that check's
``error`` result, ``KeyboardInterrupt`` included, so a callable cannot stop the grading. A Ctrl-C
arrives as the same exception, in whatever frame is running, which is nearly always inside a check;
swallowed there, it would never stop ``pathjudge score``.

While :func:`watching_interrupts` is active in the main thread, a SIGINT sets a flag before raising
``KeyboardInterrupt`` as Python's own handler does. :func:`stops_grading` then tells the guards which
interrupts must go through:

- a ``KeyboardInterrupt`` after a SIGINT arrived: a Ctrl-C, it stops the grading;
- one raised in the main thread while the watch is on and no SIGINT arrived: raised by code, an error;
- one raised in another thread: signals are only delivered to the main thread, so raised by code;
- one in the main thread with no watch (the program installed its own SIGINT handler, or grades
  outside the entry points that watch): it cannot be told apart, so it stops the grading — a Ctrl-C
  is never lost.

The handler is only installed over Python's default one and is restored when the outermost watch
ends. It behaves as the default one does (it raises ``KeyboardInterrupt``), plus the flag.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from pathjudge._nesting import Nesting

__all__ = ["stops_grading", "watching_interrupts"]

_watches = Nesting()  # nested watches in the main thread
_installed = False  # whether the outermost watch installed the handler
_signalled = False  # a SIGINT arrived during the watch


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _signalled
    _signalled = True
    raise KeyboardInterrupt


@contextmanager
def watching_interrupts() -> Iterator[None]:
    """Within this block, a ``KeyboardInterrupt`` a check raises is told apart from a Ctrl-C (see the
    module docstring). Nests; a no-op outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with _watches.hold(_install, _restore):
        yield


def _install() -> None:
    """As the outermost watch starts: our handler over Python's default one, no SIGINT seen yet."""
    global _installed, _signalled
    _signalled = False
    current = signal.getsignal(signal.SIGINT)
    _installed = current is signal.default_int_handler or current is _on_sigint
    if current is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)


def _restore() -> None:
    """As the outermost watch ends: Python's default handler back (unless another one replaced ours)."""
    global _installed, _signalled
    if signal.getsignal(signal.SIGINT) is _on_sigint:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _installed = False
    _signalled = False


def stops_grading(exc: BaseException) -> bool:
    """Whether ``exc``, caught by a check's guard, must be raised again (a Ctrl-C) instead of becoming
    the check's ``error`` result."""
    if not isinstance(exc, KeyboardInterrupt):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    if _signalled:
        return True
    return not (_watches.depth and _installed)
