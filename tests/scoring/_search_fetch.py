"""The search/fetch suite head and step strategy that the grading pin tests share: defaults touching
every deterministic check family, and a factual task with two references; each test adds its tasks."""

from __future__ import annotations

from hypothesis import strategies as st

from pathjudge.agent.trajectory import Step

SUITE_HEAD = """\
defaults:
  tools: {required: [search], forbidden: [delete], first_call: search}
  steps: {budget: 3, loop_threshold: 2}
  arguments: [{tool: search, args: {q: {$regex: "\\\\S"}}}]
tasks:
  - id: fact
    kind: factual
    success: {kind: contains_all, values: ["429"]}
    references:
      - {mode: strict, steps: [{tool: search, args: {q: rate}}, {tool: fetch}]}
      - {mode: unordered, steps: [{tool: fetch}, {tool: search}]}
    surface: [doc1]
"""
"""Everything after the suite's ``name:`` line up to the tests' own tasks."""

STEPS = st.builds(
    Step,
    tool=st.sampled_from(["search", "fetch", "delete"]),
    arguments=st.sampled_from([{}, {"q": "rate"}, {"q": " Rate "}, {"q": ""}, {"q": 5}]),
    result=st.sampled_from([None, "doc1", [{"id": "doc1"}], "Error: boom"]),
    is_error=st.booleans(),
)
"""One call to search, fetch or delete, with the arguments and results the suite's checks tell apart."""
