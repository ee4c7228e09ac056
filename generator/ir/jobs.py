"""``x-cube-job``: an operation that starts a job, linked to the status (and download) operations
of the same resource, so the client can offer ``<method>_job`` that waits for it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from generator.diagnostics import join_pointer, one_line
from generator.document.extensions import JOB, JobSpec
from generator.ir.context import BuildContext, strip_none
from generator.ir.contracts import resource_members
from generator.ir.naming import ClassName, Namespace, PythonIdentifier
from generator.ir.types import Job, Model, ModelKind, ModelRef, Operation, TypeRef


def link_jobs(
    ctx: BuildContext,
    ops: list[Operation],
    specs: Mapping[str, Any],
    models: Mapping[ClassName, ModelKind],
) -> list[Operation]:
    """Resolve each ``x-cube-job`` (``specs``, by operation pointer) against ``ops``."""
    by_id = {op.operation_id: op for op in ops}
    names = Namespace({op.py_name for op in ops} | resource_members())
    linked = []
    for op in ops:
        raw = specs.get(op.pointer)
        job = _job(ctx, op, raw, by_id, names, models) if raw is not None else None
        token_job = op.token_job
        if token_job is not None:  # its ``<method>_job`` is named among its resource's
            named = names.identifier(op.py_name + "_job")
            token_job = dataclasses.replace(token_job, method=named)
        linked.append(dataclasses.replace(op, job=job or op.job, token_job=token_job))
    return linked


def _job(
    ctx: BuildContext,
    op: Operation,
    raw: Any,
    by_id: dict[str, Operation],
    names: Namespace,
    models: Mapping[ClassName, ModelKind],
) -> Job | None:
    at = join_pointer(op.pointer, JOB)
    spec = ctx.extension(JobSpec, raw, at, "job-invalid")
    if spec is None:
        return None
    status = by_id.get(spec.status_operation)
    if status is None or op.success.kind != "json":
        ctx.warn("job-invalid", at, "statusOperation must name a JSON operation of the same tag")
        return None
    args = _call_args(ctx, op, status, spec, at)
    if args is None:
        return None
    download = by_id.get(spec.download_operation) if spec.download_operation else None
    if download is not None and [p.name for p in download.path_params] != [
        p.name for p in status.path_params
    ]:
        ctx.warn("job-invalid", at, "download and status operations take different paths")
        download = None
    return Job(
        method=names.identifier(op.py_name + "_job"),
        status_method=status.py_name,
        download_method=download.py_name if download else None,
        call_args=args,
        id_field=_attribute(models, op.success.type, spec.id_field),
        status_field=_attribute(models, status.success.type, spec.status_field),
        success_values=spec.success_values,
        failure_values=spec.failure_values,
        error_field=_attribute(models, status.success.type, spec.error_field),
        expires_field=_attribute(models, op.success.type, spec.expires_field),
        status_type=status.success.type,
    )


def _call_args(
    ctx: BuildContext, op: Operation, status: Operation, spec: JobSpec, at: str
) -> tuple[PythonIdentifier | None, ...] | None:
    """The status call's path arguments: the starting call's own, and None for the job id."""
    own = {p.name: p.py_name for p in op.path_params}
    args: list[PythonIdentifier | None] = []
    for p in status.path_params:
        if p.name == spec.path_param:
            args.append(None)
        elif p.name in own:
            args.append(own[p.name])
        else:
            ctx.warn("job-invalid", at, f"cannot supply path parameter {one_line(p.name, 40)}")
            return None
    if None not in args:
        ctx.warn(
            "job-invalid", at, f"idParam {one_line(spec.path_param, 40)} is not a path parameter"
        )
        return None
    return tuple(args)


def _attribute(models: Mapping[ClassName, ModelKind], t: TypeRef, wire: str) -> str:
    """The attribute a field named ``wire`` has in the model of ``t``; the JSON key itself
    when the response has no model or the model does not declare the field."""
    t = strip_none(t)
    model = models.get(t.name) if isinstance(t, ModelRef) else None
    if isinstance(model, Model):
        for f in model.fields:
            if f.name == wire:
                return f.py_name
    return wire
