"""The design lab: tools that answer a rule author's questions about a ruleset.

Its modules, one job each:

* `trickkit.lab.simulation`: many games played by agents, summarised (``trickkit simulate``,
  `trickkit.simulate`); `trickkit.lab.workers` hands their chunks to worker processes or Ray;
* `trickkit.lab.play`: plays one game while recording its length, rounds and lead changes;
* `trickkit.lab.stats`: confidence intervals and the seat-equality test (plain Python);
* `trickkit.lab.compare`: variants played on the same seeds (``trickkit compare``);
* `trickkit.lab.coverage`: which rules fired (``trickkit simulate --coverage``);
* `trickkit.lab.report`: the terminal tables, CSV and the self-contained HTML report;
* `trickkit.lab.scenario_files` reads scenario files, `trickkit.lab.scenarios` runs them
  (``trickkit check``);
* `trickkit.lab.conformance`: the engine's invariants checked on any ruleset (``trickkit test``,
  `trickkit.testing`), a package: checks, game driver, replay and shrinking, hypothesis glue;
* `trickkit.lab.lint`: things that load fine but are probably mistakes (``trickkit lint``);
* `trickkit.lab.diff`: two rulesets' differences in plain words (``trickkit diff``).

Layering: the lab may import the engine, agents, envs, rules, dsl and the root modules; it never
imports `trickkit.cli` (the command line sits on top of it). Inside the lab, ``stats`` imports
nothing of trickkit; ``play`` and ``coverage`` build on `trickkit.lab.simulation`; ``compare`` on
``play``; ``report`` on all of them; lint, diff, scenarios and conformance are independent of each
other. The engine never imports this package at module level (``simulation`` reads ``stats`` lazily).
"""
