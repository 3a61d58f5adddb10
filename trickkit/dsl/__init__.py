"""The rules DSL: a small expression and effect language compiled to Python closures.

Pipeline: text -> lark parse tree (`trickkit.dsl.parser`) -> typed closures
(`trickkit.dsl.compiler`), with every name resolved through one registry of
built-ins (`trickkit.dsl.builtins`). No ``eval``/``exec`` is used anywhere.
"""
