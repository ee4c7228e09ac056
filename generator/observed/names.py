"""What an observation is called in Python: ``client.widgets.get_widget``, ``Widget.colour``.

The names come from the IR (named once, in :mod:`generator.ir.naming`): the operation's
resource and method, the model that holds the field, the field's attribute. A field the document
does not have yet is named the way the naming pass would name a document's property
(:class:`~generator.ir.naming.PythonIdentifier`), so an untrusted name printed here is already
escaped as it will be in the package.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.ir.naming import PythonIdentifier
from generator.ir.types import DictOf, Family, ListOf, Model, ModelRef, TypeRef, UnionOf, ValueModel
from generator.observed.records import Observation


@dataclass(frozen=True)
class PyNames:
    """``call``: ``client.<resource>.<method>``; ``model``: class holding the field (or "")."""

    call: str
    model: str
    attribute: str

    @property
    def field(self) -> str:
        return f"{self.model}.{self.attribute}" if self.model else self.attribute or "(body)"


def py_names(family: Family, obs: Observation) -> PyNames:
    """The Python names of ``obs`` in ``family`` (the operation's path if it has none)."""
    for resource in family.resources:
        for op in resource.operations:
            if op.method == obs.method and op.path == obs.path:
                call = f"client.{resource.attr}.{op.py_name}"
                responses = [op.success, *op.errors]
                tp = next(
                    (r.type for r in responses if r.status == str(obs.status)), op.success.type
                )
                if op.pagination is not None and obs.tokens[
                    : len(op.pagination.items_path)
                ] == list(op.pagination.items_path):
                    return _walk(
                        family,
                        call,
                        op.pagination.item_type,
                        obs.tokens[len(op.pagination.items_path) + 1 :],
                    )
                return _walk(family, call, tp, obs.tokens)
    return PyNames(obs.operation, "", _attribute(obs.tokens[-1]) if obs.tokens else "")


def _attribute(name: str) -> str:
    return str(PythonIdentifier(name))


def _walk(family: Family, call: str, tp: TypeRef, tokens: list[str]) -> PyNames:
    models = {m.name: m for m in family.models}
    owner = ""
    for i, token in enumerate(tokens):
        last = i == len(tokens) - 1
        for _ in range(16):  # through value classes and unions to the container
            if isinstance(tp, ModelRef) and isinstance(models.get(tp.name), ValueModel):
                tp = models[tp.name].type  # type: ignore[union-attr]
            elif isinstance(tp, UnionOf):
                tp = next((m for m in tp.members if not _is_none(m)), tp.members[0])
            else:
                break
        if isinstance(tp, ListOf) and token == "-":
            tp = tp.item
            continue
        if isinstance(tp, DictOf) and token == "*":
            tp = tp.value
            continue
        model = models.get(tp.name) if isinstance(tp, ModelRef) else None
        if not isinstance(model, Model):
            return PyNames(call, owner, _attribute(token))
        owner = str(model.name)
        field = next((f for f in model.fields if f.name == token), None)
        if field is None or last:
            return PyNames(call, owner, str(field.py_name) if field else _attribute(token))
        tp = field.type
    return PyNames(call, owner, "")


def _is_none(tp: TypeRef) -> bool:
    return getattr(tp, "name", "") == "None"
