"""Run many ``pathjudge`` commands in one interpreter, each between ``@@@BEGIN``/``@@@END`` markers.

Usage: ``python -u _harness.py COMMANDS.json`` where the file holds ``[[name, [argv...]], ...]``.
Used by ``test_rendering.py`` so every layout costs one interpreter start, not one per command.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    import os

    from pathjudge.cli import main as pathjudge_main

    commands = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    for name, argv, *rest in commands:
        env = rest[0] if rest else {}
        saved = {key: os.environ.get(key) for key in env}
        os.environ.update(env)  # this command's environment only (e.g. the judge's API key)
        sys.stdout.write(f"\n@@@BEGIN {name}\n")
        sys.stdout.flush()
        try:
            code = pathjudge_main(argv)
        except SystemExit as exc:  # pragma: no cover - main() returns codes
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout.write(f"\n@@@END {name} {code}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
