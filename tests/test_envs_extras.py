"""An RL adapter whose framework is not installed says which extra to install (and stays a
ModuleNotFoundError of the missing module, so ``pytest.importorskip`` and ``except ImportError``
still work)."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.mark.parametrize(
    ("adapter", "frameworks", "extra"),
    [
        ("trickkit.envs.pettingzoo", ("gymnasium", "pettingzoo"), "pettingzoo"),
        ("trickkit.envs.gym", ("gymnasium",), "pettingzoo"),
        ("trickkit.envs.openspiel", ("pyspiel",), "openspiel"),
    ],
)
def test_a_missing_framework_names_the_extra(monkeypatch, adapter, frameworks, extra):
    for framework in frameworks:  # as if not installed (whether it is or not): its import fails
        monkeypatch.setitem(sys.modules, framework, None)
    monkeypatch.delitem(sys.modules, adapter, raising=False)  # imported afresh
    with pytest.raises(ModuleNotFoundError) as caught:
        importlib.import_module(adapter)
    missing = caught.value.name
    assert missing in frameworks
    message = str(caught.value)
    assert f'pip install "trickkit[{extra}]"' in message and adapter in message and repr(missing) in message
