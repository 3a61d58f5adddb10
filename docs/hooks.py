"""mkdocs hooks: generate the reference pages from the code at build time.

Registered in ``mkdocs.yml`` under ``hooks:``. The pages are created in memory
(``File.generated``), never written into ``docs/``, so they cannot go stale.
"""

from __future__ import annotations

from mkdocs.structure.files import File, Files

from trickkit.cli import docgen

GENERATED = {
    "reference/ruleset.md": docgen.schema_reference,
    "reference/dsl.md": docgen.dsl_reference,
    "reference/cli.md": docgen.cli_reference,
    "reference/observation.md": docgen.observation_reference,
    "reference/spaces.md": docgen.spaces_reference,
}


def on_files(files: Files, config) -> Files:
    for path, build in GENERATED.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=build()))
    return files
