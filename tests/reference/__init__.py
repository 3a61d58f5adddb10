"""Hand-coded reference simulators, written in plain Python without trickkit.

Each module plays one shipped game from its rulebook, behind the same small interface
(``legal_actions()``, ``apply_action(a)``, ``is_terminal()``, scores) plus a ``play_loop``
where speed matters.  They serve twice: the differential tests play the YAML rulesets in
lockstep with them (tests/test_reference_games.py, tests/test_saqqara_model.py), and
``benchmarks/bench.py --baselines`` times them as the speed a game written by hand reaches.
Every module also runs as a script: ``--games N [--seed S] [--mode loop|api]`` prints
``games_per_s=... actions_per_s=...``.
"""
