"""Document → IR: the one entry that turns a bundled, validated document into a
:class:`~generator.ir.types.Family`.

Class names come first, from :mod:`~generator.ir.naming_pass`; then the parts, which live beside
it, one module each: :mod:`~generator.ir.operations` (with
:mod:`~generator.ir.parameters` and :mod:`~generator.ir.responses`), :mod:`~generator.ir.paging`,
:mod:`~generator.ir.jobs`, :mod:`~generator.ir.servers` and :mod:`~generator.ir.models`. Anything
odd that can be generated is generated and reported as a warning; nothing is silently dropped.
"""

from __future__ import annotations

from typing import Any

from generator.diagnostics import Diagnostic, one_line, pointer
from generator.document.config import FamilyConfig
from generator.ir.context import BuildContext, obj
from generator.ir.contracts import client_members
from generator.ir.jobs import link_jobs
from generator.ir.models import build_models, recursion_limit
from generator.ir.naming import ClassName, Namespace, PythonIdentifier, rename_reason
from generator.ir.naming_pass import name_classes
from generator.ir.operations import named_operations, operations
from generator.ir.renames import renames
from generator.ir.request_ids import data_result_warnings
from generator.ir.sample_book import sample_book
from generator.ir.servers import auth, server
from generator.ir.types import Family, FamilySamples, ModelKind, Operation, Resource
from generator.words import pascal_case


class FamilyBuilder:
    """Builds one :class:`~generator.ir.types.Family`; collects warnings in ``diagnostics``."""

    def __init__(self, doc: dict[str, Any], file: str, config: FamilyConfig) -> None:
        self.ctx = BuildContext.of(doc, file, config)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What building worked around so far (the context's list, filled as the build runs)."""
        return self.ctx.diagnostics

    def build(self, *, models: bool = True) -> Family:
        """The family's IR. ``models=False`` leaves the model IR out (drift's SDK index needs
        operations and class names only; job fields then keep their JSON names)."""
        groups: dict[str, list[Operation]] = {}
        job_specs: dict[str, Any] = {}
        named = named_operations(self.ctx)
        typed = name_classes(self.ctx, named, models=models)
        for tag, op in operations(self.ctx, named, typed.operations, job_specs):
            groups.setdefault(tag, []).append(op)
        if isinstance(self.ctx.doc.get("webhooks"), dict) and self.ctx.doc["webhooks"]:
            self.ctx.warn(
                "webhooks-ignored",
                "/webhooks",
                "webhooks describe calls the server makes; no client methods are generated",
                "info",
            )
        data_result_warnings(self.ctx)
        built = build_models(self.ctx.types, typed.classes, typed.inputs) if models else ()
        by_name: dict[ClassName, ModelKind] = {m.name: m for m in built}
        resources = self._resources(groups, job_specs, by_name)
        self.ctx.diagnostics.extend(self.ctx.catalog.diagnostics)
        info = obj(self.ctx.doc.get("info"))
        url, variables = server(self.ctx)
        family = Family(
            name=self.ctx.config.name,
            module=self.ctx.config.module,
            client_class=ClassName(self.ctx.config.client),
            title=one_line(info.get("title", self.ctx.config.name)),
            description=str(info.get("description", "")),
            server_url=url,
            server_variables=variables,
            base_url_env=self.ctx.config.base_url_env,
            auth=auth(self.ctx),
            resources=resources,
            models=built,
            recursion_limit=recursion_limit(built),
            source=self.ctx.file,
            samples=self._samples(resources) if models else FamilySamples(),
        )
        self.ctx.diagnostics.extend(renames(family, self.ctx.catalog.pointers))
        return family

    def _samples(self, resources: tuple[Resource, ...]) -> FamilySamples:
        catalog = self.ctx.catalog
        schemas = {str(name): schema for name, schema in catalog.models.items()}
        return sample_book(schemas, catalog.facts, resources)

    def _resources(
        self,
        groups: dict[str, list[Operation]],
        job_specs: dict[str, Any],
        models: dict[ClassName, ModelKind],
    ) -> tuple[Resource, ...]:
        tag_docs = {
            t["name"]: one_line(t.get("description", ""))
            for t in self.ctx.doc.get("tags", []) or []
            if isinstance(t, dict) and isinstance(t.get("name"), str)
        }
        attrs = Namespace(client_members())
        classes = Namespace()
        out = []
        for tag, raw_ops in groups.items():
            ops = link_jobs(self.ctx, raw_ops, job_specs, models)
            attr = attrs.identifier(tag, prefix="resource")
            self._report_tag_rename(tag, attr, attrs)
            out.append(
                Resource(
                    name=tag,
                    attr=attr,
                    module=attr,
                    class_name=ClassName(classes.claim(pascal_case(tag) or "Default") + "Resource"),
                    description=tag_docs.get(tag, ""),
                    operations=tuple(ops),
                )
            )
        return tuple(out)

    def _report_tag_rename(self, tag: str, attr: str, attrs: Namespace) -> None:
        """A tag whose resource attribute is not the name its spelling gives (a collision with
        the client's own members, a keyword) is reported like a renamed schema or operation:
        ``client.<attr>`` is what code must write."""
        plain = PythonIdentifier(tag, prefix="resource")
        found = rename_reason(tag, attr, plain, attrs.owner(plain))
        if not found:
            return
        tags = self.ctx.doc.get("tags")
        index = next(
            (i for i, t in enumerate(tags or []) if isinstance(t, dict) and t.get("name") == tag),
            None,
        )
        self.ctx.warn(
            "tag-renamed",
            pointer("tags", str(index)) if index is not None else "/tags",
            f"tag {one_line(repr(tag), 80)} is generated as resource client.{attr}: {found[1]}",
            found[0],
        )
