"""The engine's invariants, checked with hypothesis on any ruleset: ``trickkit test`` and an author's tests.

A rule author's ``test_my_game.py`` is three lines::

    from trickkit.lab.conformance import check_ruleset

    def test_my_game():
        check_ruleset("my_game.yaml")

`check_ruleset` plays many random games (hypothesis draws the seat count, the shuffle seed
and the seed of the random choices among the legal actions) and checks, at every decision, the invariants
every ruleset must keep (`CHECKS`):

- ``termination``: a seat always has a legal action until the game ends, and it ends within
  ``max_actions`` actions, with a score per seat and at least one winner;
- ``conservation``: every card of the deck is in exactly one place (a zone or the trick);
- ``illegal_actions``: texts that are not legal now (garbage, other cards, actions legal
  earlier) raise `trickkit.IllegalActionError` and leave the state exactly as it was;
- ``determinism``: the same seed and the same actions give the same game;
- ``clone``: a clone plays on without changing the original, and like it;
- ``json_round_trip``: ``game.state_from_json(state.to_json())`` is the same state;
- ``hidden_information``: swapping cards a seat cannot see (in every zone it may not see,
  respecting ``seen_by`` and what reveals showed it), or changing the values of variables it may
  not see, leaves its observation, its observation tensor (if the state has one), and its view
  of the actions and history unchanged; a zone shows its cards exactly as its ``visibility``,
  ``public_when`` and ``seen_by`` say, each seat is shown exactly the cards reveals showed it,
  and no variable value it may not see;
- ``agent_samples``: for two states with the same information set for a seat (two cards it never
  saw exchanged in the deal, the same actions), the seat's `trickkit.agents.InformationSetSampler`
  with the same seed draws the same determinizations, each looks to the seat like the real state,
  and none fails.

A failure is made smaller by `shrink` (a counted number of replays) and reported as an `InvariantError`
naming the check, the seat count, parameters, seed and the actions up to the failure,
with a ``trickkit test ... --replay JSON`` command that replays exactly that game (see
`GameCase`, `replay_case`).

hypothesis draws and shrinks the games: it is a dependency of trickkit, so ``pip install trickkit``
is enough. In an environment where it is missing all the same, `check_ruleset` raises
`MissingHypothesis` saying so; `replay_case` does not need it.

The kit, module by module: `case` (names of the checks, `GameCase`, `InvariantError`),
`driver` (one game played for one check, `IndexChooser`), `checks`, `hidden` and `samples` (the invariants),
`replay` (`run_check`, `replay_case`, `shrink`), `hypothesis_glue` (`check_ruleset`, `check_one`,
`ruleset_tests`).
"""

from trickkit.lab.conformance.case import CHECKS, GameCase, InvariantError, MissingHypothesis
from trickkit.lab.conformance.driver import IndexChooser
from trickkit.lab.conformance.hypothesis_glue import DEFAULT_EXAMPLES as DEFAULT_EXAMPLES
from trickkit.lab.conformance.hypothesis_glue import check_one, check_ruleset, ruleset_tests
from trickkit.lab.conformance.replay import SHRINK_BUDGET as SHRINK_BUDGET
from trickkit.lab.conformance.replay import replay_case, run_check, shrink

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
