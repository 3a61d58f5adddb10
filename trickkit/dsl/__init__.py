"""The rules DSL: a small expression and effect language, compiled to Python source.

Passes, one module each: text -> lark parse tree (``parser``, with the lean LALR driver ``lalr``
over the stored ``parser_tables``) -> names resolved and types checked against a namespace of
typed symbols (``types``: the type language, ``Symbol``, ``Namespace``, ``Val``; ``scope``: locals;
``gen_names``: names and definitions) -> Python source generated (``gen_base``, ``gen_expr``,
``gen_operators``, ``gen_aggregates``, ``gen_effects``, and ``card_filters`` for the passes over a
hand or an action's choices, building a ``body.Body``) -> checked by the AST allow-list
(``allowlist``) -> loaded: compiled once per source and run in the generated module's own
namespace (``load``). ``compiler`` is the facade the rules layer uses (``Compiler``, ``Splice``).
Every name resolves through one registry of built-ins (``builtins``); generated code calls only
the helpers of ``runtime``; ``hooks`` wraps generated functions as located rule hooks;
``coverage`` counts which rule parts ran. Author text never reaches ``eval``; only allow-listed
generated modules are compiled.

May import: the root modules (``errors``, ``randomness``) only. Knows nothing of rulesets.
"""
