"""Parking the long-lived heap outside the cyclic garbage collector while a long job runs.

Shared by the judge runner (calls in flight) and the grading pool (workers forked from this
process); see :func:`frozen_heap`.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

from pathjudge._nesting import Nesting

__all__ = ["frozen_heap"]

_blocks = Nesting()


@contextlib.contextmanager
def frozen_heap(*, enabled: bool = True) -> Iterator[None]:
    """Move the objects alive now out of the garbage collector's reach for the ``with`` block.

    :func:`gc.freeze` parks the pre-job heap (imported modules, pydantic schemas, the suite) in the
    permanent generation, so a full collection scans only what the job allocates, and the garbage the
    job makes is still collected; a process forked inside the block inherits the parked heap, and its
    collections never write to those objects' pages (which copy-on-write would then copy). On exit
    (of the outermost of nested blocks) :func:`gc.unfreeze` hands the parked objects back. Does
    nothing when ``enabled`` is false, the collector is disabled, or something else has frozen
    objects already (its freeze is left alone).
    """
    if not enabled or not gc.isenabled() or (_blocks.depth == 0 and gc.get_freeze_count()):
        yield
        return
    with _blocks.hold(gc.freeze, gc.unfreeze):
        yield
