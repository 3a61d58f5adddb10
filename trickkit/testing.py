"""The conformance kit for authors' own test files: ``from trickkit.testing import ruleset_tests``.

The kit itself lives in the design lab (`trickkit.lab.conformance`); this module is its stable
public name. See the design lab page of the documentation.
"""

from trickkit.lab.conformance import (
    CHECKS,
    GameCase,
    IndexChooser,
    InvariantError,
    MissingHypothesis,
    check_one,
    check_ruleset,
    replay_case,
    ruleset_tests,
    run_check,
    shrink,
)

__all__ = [
    "CHECKS",
    "GameCase",
    "IndexChooser",
    "InvariantError",
    "MissingHypothesis",
    "check_one",
    "check_ruleset",
    "replay_case",
    "ruleset_tests",
    "run_check",
    "shrink",
]
