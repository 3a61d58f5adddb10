"""From ruleset text to the typed, compiled rules of one game.

A ruleset travels ``YAML text -> located document (source) -> merged extends chain (inherit)
-> JSON Schema check (schema_check) -> typed rules (ruleset: meaning checks, every DSL text
compiled through trickkit.dsl)``. The shipped rulesets are found by ``shipped``; ``catalog``
reads a document by name or path.

May import: ``trickkit.dsl`` and the root modules (``errors``, ``jsonsafe``, ``randomness``).
Never imports ``engine`` or anything above it: steps are planned when a Game is built.
"""
