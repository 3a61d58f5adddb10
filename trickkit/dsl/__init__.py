"""The rules DSL: a small expression and effect language, compiled to Python.

Pipeline: text -> lark parse tree (``parser``, with the lean LALR driver ``lalr`` over the stored
``parser_tables``) -> names resolved and types checked against a namespace of typed symbols ->
Python source generated (``compiler``) -> checked by the AST allow-list (``allowlist``) -> compiled
once per game. Every name resolves through one registry of built-ins (``builtins``); generated code
calls only the helpers of ``runtime``; ``hooks`` wraps generated functions as located rule hooks.
Author text never reaches ``eval``; only allow-listed generated modules are compiled.

May import: the root modules (``errors``, ``randomness``) only. Knows nothing of rulesets.
"""
