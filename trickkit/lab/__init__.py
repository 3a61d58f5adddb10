"""The design lab: tools that answer a rule author's questions about a ruleset.

* `trickkit.lab.stats`: confidence intervals and the seat-equality test (plain Python);
* `trickkit.lab.play`: plays one game while recording its length, rounds and lead changes;
* `trickkit.lab.compare`: variants played on the same seeds (``trickkit compare``);
* `trickkit.lab.coverage`: which rules fired (``trickkit simulate --coverage``);
* `trickkit.lab.report`: the terminal tables, CSV and the self-contained HTML report.

Layering: ``stats`` imports nothing of trickkit; ``play`` and ``coverage`` build on the
engine and `trickkit.lab.simulation`; ``compare`` on ``play``; ``report`` on all of them. The
engine never imports this package at module level (``simulation`` reads ``stats`` lazily).
"""
