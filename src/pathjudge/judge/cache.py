"""SQLite verdict cache: every verdict is committed the moment it arrives, so a crash loses nothing.

Key: ``(backend, model, criterion hash, input hash, sample index)``. A rerun with the same items finds
every verdict here and makes zero calls. Only successful samples are cached; failures are retried by a
rerun. The database runs in WAL mode (readers never block the writer). It stores verdict records and
Message Batches bookkeeping only — never requests, headers or credentials.

Batches: :meth:`VerdictCache.reserve_batch` stores a chunk's ``custom_id`` → key map before it is sent,
:meth:`VerdictCache.bind_batch` attaches the batch id the API returned (or :meth:`VerdictCache.record_batch`
does both at once), so an interrupted run resumes polling it instead of resubmitting.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pathjudge.errors import JudgeError
from pathjudge.judge.verdict import SampleVerdict

__all__ = ["BatchEntry", "CacheKey", "OpenBatch", "VerdictCache", "input_hash"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    criterion_hash TEXT NOT NULL,
    input_hash TEXT NOT NULL,
    sample_index INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (backend, model, criterion_hash, input_hash, sample_index)
);
CREATE TABLE IF NOT EXISTS batches (
    batch_id TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL,
    created_order INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS batch_items (
    custom_id TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    key TEXT NOT NULL,
    meta TEXT NOT NULL,
    PRIMARY KEY (batch_id, custom_id)
);
"""


def input_hash(inputs: Mapping[str, Any]) -> str:
    """``sha256:`` + 24 hex digits of the canonical JSON of ``inputs`` (sorted keys, no whitespace)."""
    canonical = json.dumps(dict(inputs), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class CacheKey:
    """Identity of one sample: same key, same verdict."""

    backend: str
    model: str
    criterion_hash: str
    input_hash: str
    sample_index: int

    def as_text(self) -> str:
        """A stable text form (used to map batch ``custom_id`` s back to keys)."""
        return json.dumps(
            [self.backend, self.model, self.criterion_hash, self.input_hash, self.sample_index],
            separators=(",", ":"),
        )

    @classmethod
    def from_text(cls, text: str) -> CacheKey:
        backend, model, criterion, inputs, sample = json.loads(text)
        return cls(str(backend), str(model), str(criterion), str(inputs), int(sample))

    def custom_id(self) -> str:
        """A batch ``custom_id`` (≤ 64 chars, ``[A-Za-z0-9_-]``) derived from the key."""
        return "pj_" + hashlib.sha256(self.as_text().encode("utf-8")).hexdigest()[:40]


@dataclass(frozen=True)
class BatchEntry:
    """One request of a submitted batch: its cache key and who it is for."""

    key: CacheKey
    item_id: str
    criterion_id: str
    criterion_version: str


@dataclass(frozen=True)
class OpenBatch:
    """A submitted batch whose results are not collected yet, by ``custom_id``."""

    batch_id: str
    items: dict[str, BatchEntry]


_TABLES = {"verdicts", "batches", "batch_items"}
_VERDICT_COLUMNS = {
    "backend",
    "model",
    "criterion_hash",
    "input_hash",
    "sample_index",
    "item_id",
    "record",
}


def _non_empty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _check_is_cache(db: sqlite3.Connection, path: str) -> None:
    """Refuse (before changing anything) a SQLite file that is not a pathjudge verdict cache."""
    tables = {
        row[0]
        for row in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        if not str(row[0]).startswith("sqlite_")
    }
    columns = {row[1] for row in db.execute("PRAGMA table_info(verdicts)")}
    if not tables <= _TABLES or (tables and columns != _VERDICT_COLUMNS):
        shown = ", ".join(sorted(tables)[:5]) or "none"
        raise JudgeError(
            f"is not a pathjudge verdict cache (a SQLite database with other tables: {shown})",
            file=path,
            hint="pass another --cache path; pathjudge leaves this file as it is",
        )


class VerdictCache:
    """The verdict cache at ``path`` (created on first use). ``path=":memory:"`` keeps it in memory."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        existing = self.path != ":memory:" and _non_empty(Path(self.path))
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JudgeError(
                f"the verdict cache could not be opened ({exc})",
                file=self.path,
                hint="pass a file path in a writable folder as --cache",
            ) from None
        try:
            if existing:
                _check_is_cache(self._db, self.path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise JudgeError(
                f"is not a pathjudge verdict cache ({exc})"
                if existing
                else f"the verdict cache could not be opened ({exc})",
                file=self.path,
                hint="pass another --cache path (this file is left as it is)"
                if existing
                else "delete it or pass another --cache path",
            ) from None
        except JudgeError:
            self._db.close()
            raise

    def get(self, key: CacheKey) -> SampleVerdict | None:
        """The cached sample for ``key``, or None."""
        row = self._db.execute(
            "SELECT record FROM verdicts WHERE backend=? AND model=? AND criterion_hash=? AND input_hash=? "
            "AND sample_index=?",
            (key.backend, key.model, key.criterion_hash, key.input_hash, key.sample_index),
        ).fetchone()
        if row is None:
            return None
        return SampleVerdict.model_validate_json(row[0])

    def get_many(self, keys: Iterable[CacheKey]) -> dict[CacheKey, SampleVerdict]:
        """Cached samples for the keys that have one."""
        found: dict[CacheKey, SampleVerdict] = {}
        for key in keys:
            hit = self.get(key)
            if hit is not None:
                found[key] = hit
        return found

    def put(self, key: CacheKey, sample: SampleVerdict) -> None:
        """Store (or replace) one sample, committed immediately."""
        self._db.execute(
            "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                key.backend,
                key.model,
                key.criterion_hash,
                key.input_hash,
                key.sample_index,
                sample.item_id,
                sample.model_dump_json(),
            ),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    # -- batches -------------------------------------------------------------------------------------
    def record_batch(
        self,
        batch_id: str,
        backend: str,
        model: str,
        items: Mapping[str, BatchEntry],
        *,
        status: str = "submitted",
    ) -> None:
        """Remember a submitted batch and its ``custom_id`` → key map (one transaction)."""
        order = int(
            self._db.execute("SELECT COALESCE(MAX(created_order), 0) + 1 FROM batches").fetchone()[
                0
            ]
        )
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT OR REPLACE INTO batches VALUES (?, ?, ?, ?, ?)",
                (batch_id, backend, model, status, order),
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO batch_items VALUES (?, ?, ?, ?)",
                [
                    (
                        custom_id,
                        batch_id,
                        entry.key.as_text(),
                        json.dumps([entry.item_id, entry.criterion_id, entry.criterion_version]),
                    )
                    for custom_id, entry in items.items()
                ],
            )

    def reserve_batch(self, backend: str, model: str, items: Mapping[str, BatchEntry]) -> str:
        """Record a chunk about to be submitted (status ``submitting``); returns its reservation id.

        Bind it to the API's batch id with :meth:`bind_batch` as soon as the API answers.
        """
        reservation = f"pending:{uuid.uuid4().hex}"
        self.record_batch(reservation, backend, model, items, status="submitting")
        return reservation

    def bind_batch(self, reservation: str, batch_id: str) -> None:
        """Attach the API's ``batch_id`` to a reserved chunk and mark it submitted (one transaction)."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "UPDATE batches SET batch_id=?, status='submitted' WHERE batch_id=?",
                (batch_id, reservation),
            )
            self._db.execute(
                "UPDATE batch_items SET batch_id=? WHERE batch_id=?", (batch_id, reservation)
            )

    def abandoned_submissions(self, backend: str, model: str) -> int:
        """Requests of chunks reserved but never bound to a batch id (a crash while submitting)."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM batch_items WHERE batch_id IN (SELECT batch_id FROM batches "
            "WHERE backend=? AND model=? AND status='submitting')",
            (backend, model),
        ).fetchone()
        return int(row[0])

    def drop_abandoned_submissions(self, backend: str, model: str) -> None:
        """Forget the chunks :meth:`abandoned_submissions` counts (their requests are sent again)."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "DELETE FROM batch_items WHERE batch_id IN (SELECT batch_id FROM batches "
                "WHERE backend=? AND model=? AND status='submitting')",
                (backend, model),
            )
            self._db.execute(
                "DELETE FROM batches WHERE backend=? AND model=? AND status='submitting'",
                (backend, model),
            )

    def open_batches(self, backend: str, model: str) -> list[OpenBatch]:
        """Batches submitted for ``backend``/``model`` whose results were not collected, oldest first."""
        rows = self._db.execute(
            "SELECT batch_id FROM batches WHERE backend=? AND model=? AND status='submitted' ORDER BY created_order",
            (backend, model),
        ).fetchall()
        batches = []
        for (batch_id,) in rows:
            items: dict[str, BatchEntry] = {}
            for custom_id, key, meta in self._db.execute(
                "SELECT custom_id, key, meta FROM batch_items WHERE batch_id=?", (batch_id,)
            ).fetchall():
                item_id, criterion_id, criterion_version = json.loads(meta)
                items[str(custom_id)] = BatchEntry(
                    CacheKey.from_text(key), str(item_id), str(criterion_id), str(criterion_version)
                )
            batches.append(OpenBatch(batch_id=str(batch_id), items=items))
        return batches

    def close_batch(self, batch_id: str, status: str = "collected") -> None:
        """Mark a batch as done so it is not polled again."""
        self._db.execute("UPDATE batches SET status=? WHERE batch_id=?", (status, batch_id))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> VerdictCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
