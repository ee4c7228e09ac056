"""Naming, done once: every Python name in the output is built here, from untrusted text.

``PythonIdentifier`` and ``ClassName`` are ``str`` subclasses that sanitise, case and dodge reserved
words when constructed; :class:`Namespace` hands out unique names within one scope. The IR stores
these types, so templates never compute a name.
"""

from __future__ import annotations

import builtins
import functools
import keyword

from generator.diagnostics import one_line
from generator.ir.contracts import model_module_names, resource_annotation_names
from generator.words import pascal_case, snake_case

# A schema class named like a name the models module imports (``Open``, ``Field``, ``Literal``)
# or the generated tests use (``Unknown``) would shadow it and break the module: such class
# names get a suffix (generator.ir.contracts.model_module_names).
RESOURCE_ANNOTATION_NAMES = resource_annotation_names()
_BUILTINS = frozenset(dir(builtins))
_MAX_NAME = 80
_MAX_CLEAN = 200  # a name that needs no change is kept up to this length


# ``self``/``cls`` would shadow a method's first argument; a lone ``l`` is a name the linter
# refuses as ambiguous (E741). (``O`` and ``I``, the other two, are lower-cased by then.)
_NOT_ARGUMENTS = frozenset({"self", "cls", "l"})
# The same three letters as class names (E742); ``O`` is the one PascalCase leaves standing.
_AMBIGUOUS_CLASSES = frozenset({"l", "O", "I"})
_AMBIGUOUS_MODELS = frozenset(f"{c}Model" for c in _AMBIGUOUS_CLASSES)


class PythonIdentifier(str):
    """A snake_case identifier that is valid Python, not a keyword, and safe as an argument."""

    __slots__ = ()

    def __new__(
        cls, text: str, *, prefix: str = "field", avoid_builtins: bool = False
    ) -> PythonIdentifier:
        return super().__new__(cls, identifier_text(text, prefix, avoid_builtins))

    @classmethod
    def unchecked(cls, value: str) -> PythonIdentifier:
        """Wrap a name this module already made (a claimed ``name_2``): no re-sanitising."""
        return super().__new__(cls, value)


class ClassName(str):
    """A PascalCase class name that shadows nothing a generated module imports."""

    __slots__ = ()

    def __new__(cls, text: str, *, prefix: str = "Model") -> ClassName:
        return super().__new__(cls, _class_name(text, prefix, model_module_names()))

    @classmethod
    def unchecked(cls, value: str) -> ClassName:
        """Wrap a name this module already made (a claimed ``Name2``): no re-sanitising."""
        return super().__new__(cls, value)


# A document repeats its names (a property in many schemas): each spelling is made once per
# run. The reserved class names are part of the key: they are read from the templates, and a
# stub render (generator.ir.bound_names) sees none.
@functools.lru_cache(maxsize=65536)
def identifier_text(text: str, prefix: str, avoid_builtins: bool) -> str:
    """The text of ``PythonIdentifier(text, prefix=prefix, avoid_builtins=avoid_builtins)``
    (for a caller that changes it further before it is one)."""
    value = snake_case(text)
    if value != text or len(value) > _MAX_CLEAN:  # a clean name (``name_2``) is kept whole
        value = value[:_MAX_NAME].rstrip("_")
    value = value or prefix
    if value[0].isdigit():
        value = f"{prefix}_{value}"
    if keyword.iskeyword(value) or keyword.issoftkeyword(value) or value in _NOT_ARGUMENTS:
        value += "_"
    elif avoid_builtins and value in _BUILTINS:
        value += "_"
    return value


@functools.lru_cache(maxsize=65536)
def _class_name(text: str, prefix: str, reserved: frozenset[str]) -> str:
    """The text of ``ClassName(text, prefix=prefix)`` when ``reserved`` are the names the
    models module binds."""
    value = pascal_case(text)
    if value != text or len(value) > _MAX_CLEAN:
        value = value[:_MAX_NAME]
    value = value or prefix
    if value[0].isdigit():
        value = prefix + value
    if (
        value in reserved
        or value in _BUILTINS
        or keyword.iskeyword(value)
        or value in _AMBIGUOUS_CLASSES
    ):
        value += prefix if not value.endswith(prefix) else "Schema"
    return value


@functools.lru_cache(maxsize=64)
def _lowered(reserved: frozenset[str]) -> frozenset[str]:
    """A reserved set in lower case, made once per set (a namespace per model takes the same
    few hundred names)."""
    return frozenset(r.lower() for r in reserved)


class Namespace:
    """Allocates unique names in one scope; collisions are compared case-insensitively.

    Case-insensitive because two models ``Pet`` and ``pet`` would otherwise become module members
    that differ only in case, which breaks on case-insensitive file systems and confuses readers.
    """

    def __init__(
        self,
        reserved: set[str] | frozenset[str] = frozenset(),
        *,
        dodge: frozenset[str] = frozenset(),
    ) -> None:
        self._taken: set[str] = set(_lowered(frozenset(reserved)))
        self._dodge = dodge  # names an identifier steps off with a ``_`` suffix (``str_``)
        self._kept: set[str] = set()  # held for the text that spells them exactly
        self._owners: dict[str, str] = {}  # claimed name (lower case) → the text it was made from

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._taken

    def keep_exact(self, texts: list[str]) -> None:
        """Hold each name for the one text that is already exactly that name.

        ``FooBar`` stays ``FooBar`` even when ``foo-bar`` comes first in the document and would
        otherwise take the name; ``foo-bar`` becomes ``FooBar2``.
        """
        for text in texts:
            if text.lower() not in self._taken:
                self._kept.add(text.lower())
                self._owners[text.lower()] = text

    def owner(self, name: str) -> str | None:
        """The text (schema name, operationId) a name was claimed for, when one was given."""
        return self._owners.get(name.lower())

    def claim(self, name: str, *, sep: str = "", exact: bool = False, owner: str = "") -> str:
        """``name``, else the first free ``<stem><sep><n>`` (n = 2, 3, …). One suffix rule: the
        stem is the name without the trailing underscores a dodge gave it, so a taken ``cast_``
        becomes ``cast_2`` as a taken ``timeout`` becomes ``timeout_2`` (never ``cast__2``)."""
        candidate, n = name, 1
        stem = (name.rstrip("_") or name) if sep == "_" else name
        taken, kept = self._taken, self._kept
        low = name.lower()
        if exact and low in kept:
            kept.discard(low)
        while low in taken or low in kept:
            n += 1
            candidate = f"{stem}{sep}{n}"
            low = candidate.lower()
        taken.add(low)
        if owner:
            self._owners[low] = owner
        return candidate

    def identifier(self, text: str, **kwargs: bool | str) -> PythonIdentifier:
        base = PythonIdentifier(text, **kwargs)  # type: ignore[arg-type]
        if base in self._dodge:
            base = PythonIdentifier.unchecked(base + "_")
        return PythonIdentifier.unchecked(self.claim(base, sep="_", exact=base == text, owner=text))

    def class_name(self, text: str) -> ClassName:
        base = ClassName(text)
        return ClassName.unchecked(self.claim(base, exact=base == text, owner=text))


def rename_reason(
    text: str, made: str, plain: str, taker: str | None = None
) -> tuple[str, str] | None:
    """Why ``text`` became ``made`` (``plain`` is what the spelling rules alone give) as
    ``(level, reason)``: a collision or a reserved word is a warning, a spelling change (``foo-bar``
    → ``FooBar``) is information; ``None`` when the name is the document's own."""
    if made != plain:
        by = f"by {one_line(repr(taker), 80)}" if taker else "by a name of the generated code"
        return "warning", f"`{plain}` is taken {by}"
    if made == text:
        return None
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or text in _BUILTINS:
        return "warning", "it is a Python keyword or built-in name"
    if text in model_module_names():
        return "warning", "it would shadow a name the generated module imports"
    if not text.isidentifier():
        return "info", "it is not a valid Python name"
    if made == "l_":
        return "info", "a lone `l` reads like `1` or `I` (the linter refuses it as a name)"
    if made in _AMBIGUOUS_MODELS:
        letter = made[0]
        return (
            "info",
            f"a lone `{letter}` reads like a digit (the linter refuses it as a class name)",
        )
    return None  # only respelled in Python's conventions (``getPet`` → ``get_pet``)
