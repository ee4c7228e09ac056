"""Model classes load module by module: a family's models module imports a class's module (the
class and those hoisted from inside its schema) the first time the class is named, and binds the
classes their annotations name. Importing every model of a large API at the first call would
cost hundreds of milliseconds."""

from __future__ import annotations

import importlib
import threading
import types
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["bind", "lazy_classes"]

_bind_lock = threading.RLock()


def lazy_classes(
    namespace: dict[str, Any], package: str, modules: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A models module's ``__getattr__`` and ``__dir__``: a class is imported from its module
    (``package.<module>``) the first time it is named, with the classes it reaches bound where
    they are named; no class of another module is built.

    The classes report the models module as theirs (``__module__``), so pydantic resolves their
    annotations in its namespace: binding a class module also copies its names there."""

    def get(name: str) -> Any:
        if name == "__all__":  # what ``import *`` takes: every class, loaded or not
            return sorted(modules)
        module_name = modules.get(name)
        if module_name is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{module_name}")
        bind(module, namespace)
        value = getattr(module, name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted({*modules, *(n for n in namespace if n.startswith("__"))})

    return get, names


def bind(module: types.ModuleType, public: dict[str, Any]) -> None:
    """Give ``module`` and every class module it reaches the classes their annotations name
    (listed in ``_REFS``), so pydantic can resolve them when it builds a validator; and copy
    each one's names into ``public``, the namespace of the models module the classes name as
    theirs, where pydantic looks them up."""
    with _bind_lock:
        stack = [module]
        while stack:
            space = vars(stack.pop())
            if space.get("_BOUND"):
                continue
            space["_BOUND"] = True
            for name, sub in space.get("_REFS", {}).items():
                target = importlib.import_module(f"{space['__package__']}.{sub}")
                space.setdefault(name, getattr(target, name))
                stack.append(target)
            for name, value in space.items():
                if not name.startswith("_"):
                    public.setdefault(name, value)
