"""Operations appearing, disappearing or being deprecated, and what names them in the client."""

from __future__ import annotations

from collections.abc import Iterator

from generator.diagnostics import join_pointer, one_line
from generator.drift.context import DocumentPair, OperationPair
from generator.drift.model import Change
from generator.drift.registry import define, document_check, operation_check

OPERATION_ADDED = define(
    "operation-added",
    "info",
    """A new method on the client; nothing that exists changes.""",
)
OPERATION_REMOVED = define(
    "operation-removed",
    "breaking",
    """The generated method disappears (AttributeError, mypy error) and the server no longer
    serves the URL. Operations are matched by method and full URL path, so moving a base path
    between the server URL and the path keys, or renaming a path parameter, is not a removal.""",
)
OPERATION_DEPRECATED = define(
    "operation-deprecated",
    "warning",
    """Still works, and the generated method now warns: callers should plan to move off it.""",
)
OPERATION_UNDEPRECATED = define(
    "operation-undeprecated",
    "info",
    """The deprecation was withdrawn; nothing for callers to do.""",
)
OPERATION_ID_CHANGED = define(
    "operation-id-changed",
    "breaking",
    """The generated method is named after the operationId: a new id renames the method and
    every call site breaks, unless an overlay pins the old name (then this is noise to confirm).""",
)
OPERATION_TAG_CHANGED = define(
    "operation-tag-changed",
    "warning",
    """Methods are grouped into resources by their first tag: a new first tag can move the
    method to another resource attribute (``client.a.x()`` to ``client.b.x()``).""",
)
PATH_PARAMETER_RENAMED = define(
    "path-parameter-renamed",
    "info",
    """Same position in the same URL, new name: the request on the wire is identical. Keyword
    callers of the generated method would see the argument renamed, which is why path
    parameters are positional in the generated methods; listed so the rename is visible.""",
)


@document_check
def operation_set(docs: DocumentPair) -> Iterator[Change]:
    for identity, new in docs.new_ops.items():
        if identity not in docs.old_ops:
            yield docs.change(OPERATION_ADDED, new.pointer, "operation added", new.label)
    for identity, old in docs.old_ops.items():
        if identity not in docs.new_ops:
            notes = []
            if isinstance(old.node.get("operationId"), str):
                notes.append(f"operationId {one_line(old.node['operationId'], 80)}")
            if old.node.get("deprecated") is True:
                notes.append("was deprecated")
            message = "operation removed" + (f" ({'; '.join(notes)})" if notes else "")
            yield docs.change(OPERATION_REMOVED, old.pointer, message, old.label)


@operation_check
def deprecation(op: OperationPair) -> Iterator[Change]:
    was = op.old.node.get("deprecated") is True
    now = op.new.node.get("deprecated") is True
    if now and not was:
        yield op.change(
            OPERATION_DEPRECATED, join_pointer(op.new.pointer, "deprecated"), "operation deprecated"
        )
    elif was and not now:
        yield op.change(OPERATION_UNDEPRECATED, op.new.pointer, "operation no longer deprecated")


@operation_check
def naming(op: OperationPair) -> Iterator[Change]:
    old_id, new_id = op.old.node.get("operationId"), op.new.node.get("operationId")
    if isinstance(old_id, str) and isinstance(new_id, str) and old_id != new_id:
        yield op.change(
            OPERATION_ID_CHANGED,
            join_pointer(op.new.pointer, "operationId"),
            f"operationId changed from {one_line(old_id, 80)} to {one_line(new_id, 80)}",
        )
    old_tags, new_tags = op.old.node.get("tags"), op.new.node.get("tags")
    old_first = old_tags[0] if isinstance(old_tags, list) and old_tags else None
    new_first = new_tags[0] if isinstance(new_tags, list) and new_tags else None
    if isinstance(old_first, str) and isinstance(new_first, str) and old_first != new_first:
        yield op.change(
            OPERATION_TAG_CHANGED,
            join_pointer(op.new.pointer, "tags", 0),
            f"first tag changed from {one_line(old_first, 80)} to {one_line(new_first, 80)}",
        )
    for index, (old_name, new_name) in enumerate(
        zip(op.old.path_params, op.new.path_params, strict=False)
    ):
        if old_name != new_name:
            param = op.new.parameters.get(("path", str(index)))
            yield op.change(
                PATH_PARAMETER_RENAMED,
                param.pointer if param else op.new.pointer,
                f"path parameter {index + 1} renamed from {one_line(old_name, 60)}"
                f" to {one_line(new_name, 60)}",
            )
