"""Loads one of the tools' scripts (tools/bench, tools/cluster, tools/chaos: files without a .py
suffix) as a module, so that their tests call its functions without running its main()."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType


def load_script(path: Path) -> ModuleType:
    """The script at `path` as a module named after it (`<name>_script`)."""
    name = f"{path.name}_script"
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
