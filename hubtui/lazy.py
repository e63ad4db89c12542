"""A package's names imported when first asked for (PEP 562): the one ``__getattr__`` of every
package that offers its parts' names without loading the parts (``hubtui.api``, and the core's
``store``, ``people`` and ``presenting``). Standard library only, below every layer."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def names_from(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each name of ``exports`` from the module it maps to,
    imported when first asked for; any other name is an ``AttributeError``, as Python says it."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__
