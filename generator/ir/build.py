"""Document → IR: the one place that reads OpenAPI structure and produces :mod:`generator.ir.types`.

Input is a bundled, validated document (plain JSON data). Anything odd that can be generated is
generated and reported as a warning; nothing is silently dropped.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from typing import Any, TypeVar

from generator.diagnostics import Diagnostic, error, join_pointer, one_line, pointer
from generator.document.config import FamilyConfig
from generator.document.extensions import JOB, PAGINATION, JobSpec, PageSpec, PaginationSpec, parse
from generator.document.openapi_paths import ADDITIONAL, ITEM_SCHEMA_KEYS, path_operations
from generator.document.refs import Resolver
from generator.ir.contracts import client_members, resource_members
from generator.ir.models import build_models
from generator.ir.naming import ClassName, Namespace, PythonIdentifier, rename_reason
from generator.ir.schemas import SchemaCatalog, default_problem, property_of
from generator.ir.types import (
    ANY,
    NONE,
    Auth,
    BodyField,
    BodyKind,
    Family,
    Job,
    JsonLines,
    ListOf,
    Model,
    ModelKind,
    ModelRef,
    Operation,
    Pagination,
    Parameter,
    Primitive,
    RequestBody,
    Resource,
    Response,
    ResponseKind,
    Rule,
    ServerVariable,
    TypeRef,
    UnionOf,
)
from generator.words import pascal_case, snake_case

# Keyword arguments every method takes; operation parameters must not take these names.
RESERVED_ARGS = frozenset(
    {"self", "extra_headers", "extra_query", "extra_body", "timeout", "max_retries", "body"}
)
# Keyword arguments of every generated client constructor; server variables must not take them.
RESERVED_CLIENT_KWARGS = frozenset(
    {"base_url", "timeout", "max_retries", "http_client", "default_headers", "auth_scheme",
     "allow_http_loopback", "self"}
)  # fmt: skip
_PATH_PARAM = re.compile(r"\{([^{}]+)\}")
_UNSAFE_URL = re.compile(r"[\x00-\x1f\x7f]")  # a control character: no request line holds one
# A JSON-lines media type names the schema of one line (ITEM_SCHEMA_KEYS); these two extensions
# say how errors and the end are marked.
ERROR_LINE_EXTENSION = "x-cube-error-line"
FINAL_LINE_EXTENSION = "x-cube-final-line"
_K = TypeVar("_K", bound=str)


class FamilyBuilder:
    """Builds one :class:`~generator.ir.types.Family`; collects warnings in ``diagnostics``."""

    def __init__(self, doc: dict[str, Any], file: str, config: FamilyConfig) -> None:
        self.doc = doc
        self.file = file
        self.config = config
        self.resolver = Resolver(doc, file)
        self.catalog = SchemaCatalog(doc, file)
        self.diagnostics: list[Diagnostic] = []
        self._job_specs: dict[str, Any] = {}
        self._models: dict[ClassName, ModelKind] = {}

    def warn(self, id: str, ptr: str, message: str, level: str = "warning") -> None:
        self.diagnostics.append(Diagnostic(id, level, self.file, ptr, message))  # type: ignore[arg-type]

    # --- top level -------------------------------------------------------------------------

    def build(self, *, models: bool = True) -> Family:
        """The family's IR. ``models=False`` leaves the model IR out (drift's SDK index needs
        operations and class names only; job fields then keep their JSON names)."""
        groups: dict[str, list[Operation]] = {}
        tag_docs = {
            t["name"]: one_line(t.get("description", ""))
            for t in self.doc.get("tags", []) or []
            if isinstance(t, dict) and isinstance(t.get("name"), str)
        }
        op_ids: set[str] = set()
        for tag, op in self._operations(op_ids):
            groups.setdefault(tag, []).append(op)
        if isinstance(self.doc.get("webhooks"), dict) and self.doc["webhooks"]:
            self.warn(
                "webhooks-ignored",
                "/webhooks",
                "webhooks describe calls the server makes; no client methods are generated",
                "info",
            )
        built = build_models(self.catalog) if models else ()
        self._models = {m.name: m for m in built}
        resources = self._resources(groups, tag_docs)
        self.diagnostics.extend(self.catalog.diagnostics)
        info = _obj(self.doc.get("info"))
        url, variables = self._server()
        return Family(
            name=self.config.name,
            module=self.config.module,
            client_class=ClassName(self.config.client),
            title=one_line(info.get("title", self.config.name)),
            description=str(info.get("description", "")),
            server_url=url,
            server_variables=variables,
            base_url_env=self.config.base_url_env,
            auth=self._auth(),
            resources=resources,
            schemas={str(k): v for k, v in self.catalog.models.items()},
            models=built,
            source=self.file,
        )

    def _resources(
        self, groups: dict[str, list[Operation]], tag_docs: dict[str, str]
    ) -> tuple[Resource, ...]:
        attrs = Namespace(client_members())
        classes = Namespace()
        out = []
        for tag, raw_ops in groups.items():
            ops = self._link_jobs(raw_ops)
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
        if found:
            tags = self.doc.get("tags")
            index = next(
                (
                    i
                    for i, t in enumerate(tags or [])
                    if isinstance(t, dict) and t.get("name") == tag
                ),
                None,
            )
            self.warn(
                "tag-renamed",
                pointer("tags", str(index)) if index is not None else "/tags",
                f"tag {one_line(repr(tag), 80)} is generated as resource client.{attr}: {found[1]}",
                found[0],
            )

    def _link_jobs(self, ops: list[Operation]) -> list[Operation]:
        """Resolve each ``x-cube-job`` against the operations of the same resource."""
        by_id = {op.operation_id: op for op in ops}
        names = Namespace({op.py_name for op in ops} | resource_members())
        linked = []
        for op in ops:
            raw = self._job_specs.get(op.pointer)
            job = self._job(op, raw, by_id, names) if raw is not None else None
            linked.append(dataclasses.replace(op, job=job) if job else op)
        return linked

    def _job(
        self, op: Operation, raw: Any, by_id: dict[str, Operation], names: Namespace
    ) -> Job | None:
        at = join_pointer(op.pointer, JOB)
        spec = parse(JobSpec, raw, at)
        if isinstance(spec, tuple):
            self.warn("job-invalid", *spec)
            return None
        status = by_id.get(spec.status_operation)
        download = by_id.get(spec.download_operation) if spec.download_operation else None
        if status is None or op.success.kind != "json":
            self.warn(
                "job-invalid", at, "statusOperation must name a JSON operation of the same tag"
            )
            return None
        own = {p.name: p.py_name for p in op.path_params}
        args: list[PythonIdentifier | None] = []
        for p in status.path_params:
            if p.name == spec.path_param:
                args.append(None)
            elif p.name in own:
                args.append(own[p.name])
            else:
                self.warn("job-invalid", at, f"cannot supply path parameter {one_line(p.name, 40)}")
                return None
        if None not in args:
            self.warn(
                "job-invalid",
                at,
                f"idParam {one_line(spec.path_param, 40)} is not a path parameter",
            )
            return None
        if download is not None and [p.name for p in download.path_params] != [
            p.name for p in status.path_params
        ]:
            self.warn("job-invalid", at, "download and status operations take different paths")
            download = None
        return Job(
            method=names.identifier(op.py_name + "_job"),
            status_method=status.py_name,
            download_method=download.py_name if download else None,
            call_args=tuple(args),
            id_field=self._attribute(op.success.type, spec.id_field),
            status_field=self._attribute(status.success.type, spec.status_field),
            success_values=spec.success_values,
            failure_values=spec.failure_values,
            error_field=self._attribute(status.success.type, spec.error_field),
            expires_field=self._attribute(op.success.type, spec.expires_field),
            status_type=status.success.type,
        )

    def _attribute(self, t: TypeRef, wire: str) -> str:
        """The attribute a field named ``wire`` has in the model of ``t``; the JSON key itself
        when the response has no model or the model does not declare the field."""
        t = _strip_none(t)
        model = self._models.get(t.name) if isinstance(t, ModelRef) else None
        if isinstance(model, Model):
            for f in model.fields:
                if f.name == wire:
                    return f.py_name
        return wire

    def _resource_tag(self, tags: Any) -> str:
        """The tag naming an operation's resource: its first navigation tag (OpenAPI 3.2 tags of
        another ``kind``, such as badges, do not group) followed up its ``parent`` chain to the
        top, so nested tags share their root's resource; ``default`` without tags."""
        names = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
        known = {
            t["name"]: t
            for t in self.doc.get("tags", []) or []
            if isinstance(t, dict) and isinstance(t.get("name"), str)
        }
        nav = [n for n in names if _obj(known.get(n)).get("kind", "nav") == "nav"]
        tag = (nav or names or ["default"])[0]
        seen = {tag}
        parent = _obj(known.get(tag)).get("parent")
        while isinstance(parent, str) and parent in known and parent not in seen:
            seen.add(parent)
            tag, parent = parent, _obj(known[parent]).get("parent")
        return tag

    def _operations(self, op_ids: set[str]) -> Iterator[tuple[str, Operation]]:
        method_names: dict[str, Namespace] = {}
        found = list(self._each_operation())
        for _, _, _, op, tag, _ in found:  # an operationId that is a Python name keeps it
            op_id = op.get("operationId")
            if isinstance(op_id, str) and PythonIdentifier(op_id, prefix="call") == op_id:
                self._method_names(method_names, tag).keep_exact([op_id])
        for path, op_ptr, item, op, tag, method in found:
            names = self._method_names(method_names, tag)
            yield tag, self._operation(path, method, item, op, op_ptr, names, op_ids)

    @staticmethod
    def _method_names(by_tag: dict[str, Namespace], tag: str) -> Namespace:
        return by_tag.setdefault(snake_case(tag) or "resource", Namespace(resource_members()))

    def _each_operation(
        self,
    ) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any], str, str]]:
        """(path, operation pointer, path item, operation, resource tag, wire method) in
        document order."""
        paths = self.doc.get("paths") or {}
        for path, raw_item in paths.items():
            item_ptr = pointer("paths", path)
            item, _ = self.resolver.resolve(raw_item, item_ptr)
            if not isinstance(item, dict):
                continue
            for method, keys, op in path_operations(item):
                if not isinstance(op, dict):
                    continue
                tag = self._resource_tag(op.get("tags"))
                yield path, join_pointer(item_ptr, *keys), item, op, tag, method

    # --- one operation ---------------------------------------------------------------------

    def _operation(
        self,
        path: str,
        method: str,
        item: dict[str, Any],
        op: dict[str, Any],
        ptr: str,
        names: Namespace,
        op_ids: set[str],
    ) -> Operation:
        op_id = op.get("operationId")
        if not isinstance(op_id, str) or not op_id.strip():
            op_id = f"{method.lower()} {path}"
            self.warn(
                "operation-id-missing",
                ptr,
                f"no operationId; named from {one_line(method, 40)} {one_line(path, 80)}",
                "info",
            )
        duplicate = op_id in op_ids
        op_ids.add(op_id)
        py_name = names.identifier(op_id, prefix="call")
        if duplicate:
            self.warn(
                "operation-id-duplicate",
                join_pointer(ptr, "operationId"),
                f"operationId {one_line(op_id, 80)} is used twice; this one is method {py_name}",
            )
        elif op.get("operationId") == op_id:
            plain = PythonIdentifier(op_id, prefix="call")
            found = rename_reason(op_id, py_name, plain, names.owner(plain))
            if found:
                self.warn(
                    "operation-renamed",
                    join_pointer(ptr, "operationId"),
                    f"operationId {one_line(repr(op_id), 80)} is generated as method "
                    f"{py_name}: {found[1]}",
                    found[0],
                )
        args = Namespace(RESERVED_ARGS)
        hint = pascal_case(py_name) or "Operation"
        params = self._parameters(path, item, op, ptr, args, hint)
        body = self._request_body(op, ptr, args, hint)
        success, errors = self._responses(op, ptr, hint)
        if JOB in op:
            self._job_specs[ptr] = op[JOB]
        return Operation(
            operation_id=op_id,
            py_name=py_name,
            method=method,
            path=path,
            summary=one_line(op.get("summary", "")),
            description=str(op.get("description", "") or ""),
            deprecated=op.get("deprecated") is True,
            parameters=params,
            body=body,
            success=success,
            errors=errors,
            pointer=ptr,
            pagination=self._pagination(op, ptr, success),
        )

    def _parameters(
        self,
        path: str,
        item: dict[str, Any],
        op: dict[str, Any],
        ptr: str,
        args: Namespace,
        hint: str,
    ) -> tuple[Parameter, ...]:
        merged: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
        item_ptr = ptr.rsplit("/", 1)[0].removesuffix("/" + ADDITIONAL)
        for owner, owner_ptr in ((item, item_ptr), (op, ptr)):
            for i, raw in enumerate(owner.get("parameters", []) or []):
                p, p_ptr = self.resolver.resolve(raw, join_pointer(owner_ptr, "parameters", i))
                if (
                    isinstance(p, dict)
                    and isinstance(p.get("name"), str)
                    and isinstance(p.get("in"), str)
                ):
                    merged[(p["in"], p["name"])] = (p, p_ptr)
        template_names = _PATH_PARAM.findall(path)
        out: list[Parameter] = []
        for name in template_names:  # path parameters in template order
            found = merged.pop(("path", name), None)
            if found is None:
                self.warn(
                    "path-parameter-undeclared",
                    ptr,
                    f"path parameter {one_line(name, 60)} is not declared; typed as str",
                )
                p, p_ptr = (
                    {"name": name, "in": "path", "required": True, "schema": {"type": "string"}},
                    ptr,
                )
            else:
                p, p_ptr = found
                if p.get("required") is not True:
                    self.warn(
                        "path-parameter-optional", p_ptr, "path parameters are always required"
                    )
            out.append(self._parameter(p, p_ptr, args, hint, required=True))
        for (loc, name), (p, p_ptr) in merged.items():
            if loc == "path":
                self.warn(
                    "path-parameter-unused",
                    p_ptr,
                    f"path parameter {one_line(name, 60)} is not in the path; ignored",
                )
                continue
            if loc == "querystring" and not _form_query(p):
                media = one_line(next(iter(_obj(p.get("content"))), "no media type"), 60)
                self.warn(
                    "querystring-media-unsupported",
                    p_ptr,
                    f"a query string written as {media} is not supported (only "
                    "application/x-www-form-urlencoded); ignored",
                )
                continue
            if loc not in ("query", "querystring", "header", "cookie"):
                self.warn(
                    "parameter-location-unknown",
                    p_ptr,
                    f"parameter location {one_line(loc, 30)} is not supported; ignored",
                )
                continue
            out.append(self._parameter(p, p_ptr, args, hint, required=p.get("required") is True))
        return tuple(out)

    def _parameter(
        self, p: dict[str, Any], p_ptr: str, args: Namespace, hint: str, *, required: bool
    ) -> Parameter:
        schema = p.get("schema")
        if schema is None and isinstance(p.get("content"), dict) and p["content"]:
            schema = _obj(next(iter(p["content"].values()), {})).get("schema")
        type_ = self.catalog.type_of(schema, hint + pascal_case(p["name"]))
        problem = default_problem(schema)
        if problem:
            self.warn("default-invalid", join_pointer(p_ptr, "schema", "default"), problem)
        return Parameter(
            name=p["name"],
            py_name=args.identifier(p["name"], prefix="param"),
            location=p["in"],
            required=required,
            type=type_,
            description=one_line(p.get("description", "")),
            explode=p.get("explode", p.get("style", "form") == "form") is not False,
            default=_default_text(schema),
        )

    def _request_body(
        self, op: dict[str, Any], ptr: str, args: Namespace, hint: str
    ) -> RequestBody | None:
        if "requestBody" not in op:
            return None
        body, _ = self.resolver.resolve(op["requestBody"], join_pointer(ptr, "requestBody"))
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, dict) or not content:
            return None
        media, kind = _pick_media(list(content), _BODY_KINDS)
        schema = (content.get(media) or {}).get("schema")
        required = body.get("required") is True
        if kind in ("binary", "text"):
            t: TypeRef = Primitive("bytes") if kind == "binary" else Primitive("str")
            return RequestBody(media, kind, t, required, None)
        type_ = self.catalog.type_of(schema, hint + "Request")
        fields = None
        rule: Rule | None = None
        if isinstance(type_, ModelRef):
            model = self.catalog.models.get(type_.name)
            rule = body_rule(model)
            fields = self._body_fields(model, args, type_.name, rule is not None)
        return RequestBody(
            media,
            kind,
            type_,
            required,
            fields,
            type_.name if isinstance(type_, ModelRef) else None,
            validate=rule is not None and fields is not None,
            rule=rule if fields is not None else None,
        )

    def _body_fields(
        self, model: Any, args: Namespace, owner: ClassName, constrained: bool = False
    ) -> tuple[BodyField, ...] | None:
        """Flatten a plain object body into keyword arguments; unions and mixins stay whole.

        ``constrained`` bodies carry ``oneOf``/``anyOf`` rules that only pick required properties:
        they flatten too, and the generated method validates the payload against the model.
        """
        unions = (
            ("allOf", "discriminator")
            if constrained
            else ("allOf", "oneOf", "anyOf", "discriminator")
        )
        if not isinstance(model, dict) or any(k in model for k in unions):
            return None
        props = model.get("properties")
        if not isinstance(props, dict) or not props:
            return None
        req = model.get("required")
        required: list[Any] = req if isinstance(req, list) else []
        return tuple(
            BodyField(
                name=name,
                py_name=args.identifier(name, prefix="field"),
                required=name in required,
                type=self.catalog.type_of(sub, owner + pascal_case(name)),
                description=one_line(sub.get("description", "")) if isinstance(sub, dict) else "",
                default=_default_text(sub),
            )
            for name, sub in props.items()
        )

    def _responses(
        self, op: dict[str, Any], ptr: str, hint: str
    ) -> tuple[Response, tuple[Response, ...]]:
        raw = _obj(op.get("responses"))
        ordered = sorted(raw.items(), key=lambda kv: _status_rank(kv[0]))
        success: Response | None = None
        errors: list[Response] = []
        for status, resp in ordered:
            code = str(status).upper()
            r_ptr = join_pointer(ptr, "responses", status)
            if _status_rank(status)[0] >= 1000 and code != "DEFAULT":
                self.warn(
                    "response-status-invalid",
                    r_ptr,
                    f"{one_line(status, 40)} is not an HTTP status code; response ignored",
                )
                continue
            r, _ = self.resolver.resolve(resp, r_ptr)
            if not isinstance(r, dict):
                continue
            is_success = code.startswith("2") or (
                code == "DEFAULT"
                and success is None
                and not any(str(s).startswith("2") for s in raw)
            )
            name = hint + ("Response" if is_success else f"Error{code.title()}")
            response = self._response(code.lower() if code == "DEFAULT" else code, r, name, r_ptr)
            if is_success and success is None:
                success = response
            elif code[:1] in ("4", "5"):
                errors.append(response)
        if success is None:
            success = Response("200", "empty", None, NONE)
        return success, tuple(errors)

    def _response(self, status: str, r: dict[str, Any], name: str, ptr: str) -> Response:
        content = r.get("content")
        desc = one_line(r.get("description", ""))
        if not isinstance(content, dict) or not content:
            return Response(status, "empty", None, NONE, desc)
        lines = self._json_lines(status, content, name, desc, join_pointer(ptr, "content"))
        if lines is not None:
            return lines
        media, kind = _pick_media(list(content), _RESPONSE_KINDS)
        if kind != "json":
            t = Primitive("str") if kind in ("text", "event-stream") else Primitive("bytes")
            # Error bodies are JSON, so JSON stays acceptable at a lower preference.
            accept = ", ".join(m for m in content if _pick_media([m], _RESPONSE_KINDS)[1] == kind)
            accept += ", application/json;q=0.5"
            item_schema = _obj(content.get(media)).get("itemSchema")
            item = self.catalog.type_of(item_schema, name + "Item") if item_schema else ANY
            return Response(status, kind, media, t, desc, accept=accept, item_type=item)
        schema = (content.get(media) or {}).get("schema")
        return Response(status, "json", media, self.catalog.type_of(schema, name), desc)

    def _json_lines(
        self, status: str, content: dict[str, Any], name: str, desc: str, ptr: str
    ) -> Response | None:
        """A response whose body is one JSON value per line, typed by its media type's item
        schema. The other media types stay acceptable: servers often label such a body
        ``application/json``."""
        for media, raw in content.items():
            spec = _obj(raw)
            key = next((k for k in ITEM_SCHEMA_KEYS if k in spec), None)
            if key is None or _pick_media([media], _RESPONSE_KINDS)[1] == "event-stream":
                continue  # an event stream's itemSchema types its events, not lines
            at = join_pointer(ptr, media)
            item, _ = self.resolver.resolve(spec[key], join_pointer(at, key))
            error = _obj(spec.get(ERROR_LINE_EXTENSION))
            final = _obj(spec.get(FINAL_LINE_EXTENSION))
            without = error.get("without")
            rules = JsonLines(
                error_member=str(error.get("member", "")),
                error_without=tuple(str(w) for w in without) if isinstance(without, list) else (),
                final_member=str(final.get("member", "")),
            )
            hint = name.removesuffix("Response") + "Line"
            # The document's JSON media types stay acceptable, listed first: servers often label
            # the lines as JSON, and mock servers cannot write a JSON-lines media type.
            others = [
                m for m in content if m != media and _pick_media([m], _RESPONSE_KINDS)[1] == "json"
            ]
            accept = ", ".join([*others, media])
            return Response(
                status,
                "json-lines",
                media,
                self.catalog.type_of(item, hint),
                desc,
                accept=accept,
                lines=rules,
            )
        return None

    def _pagination(self, op: dict[str, Any], ptr: str, success: Response) -> Pagination | None:
        if PAGINATION not in op:
            return None
        spec = parse(PaginationSpec, op[PAGINATION], join_pointer(ptr, PAGINATION))
        if isinstance(spec, tuple):
            self.warn("pagination-invalid", spec[0], f"{spec[1]}; not paginated")
            return None
        primary = self._page(spec, success, None)
        alternatives = tuple(self._page(alt, success, primary) for alt in spec.alternatives)
        return dataclasses.replace(primary, alternatives=alternatives)

    def _page(self, spec: PageSpec, success: Response, primary: Pagination | None) -> Pagination:
        if spec.item_schema is not None:
            item_type = self.catalog.type_of(spec.item_schema, "PageItem")
        elif primary is not None:
            item_type = primary.item_type
        else:
            item_type = self._item_type(success.type, spec.items)
        return Pagination(
            style=spec.style,
            items_path=spec.items,
            item_type=item_type,
            total_path=spec.total,
            offset_param=spec.offset_param,
            limit_param=spec.limit_param,
            cursor_param=spec.cursor_param,
            next_cursor_path=spec.next_cursor,
            has_more_path=spec.has_more,
            default_limit=spec.default_limit,
            first_offset=spec.first_offset,
        )

    def _item_type(self, t: TypeRef, path: tuple[str, ...]) -> TypeRef:
        """The element type found by following ``path`` through the response's models."""
        for key in path:
            t = _strip_none(t)
            model = self.catalog.models.get(t.name) if isinstance(t, ModelRef) else None
            prop = property_of(self.catalog.models, model, key)
            if prop is None:
                return ANY
            t = self.catalog.type_of(prop, "PageItem")
        t = _strip_none(t)
        return t.item if isinstance(t, ListOf) else ANY

    # --- servers and credentials -----------------------------------------------------------

    def _server(self) -> tuple[str, tuple[ServerVariable, ...]]:
        servers = self.doc.get("servers")
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
            return "", ()
        server = servers[0]
        url = str(server.get("url", ""))
        if _UNSAFE_URL.search(url):
            raise error(
                "server-url-invalid",
                self.file,
                "/servers/0/url",
                f"server URL {one_line(repr(url), 80)} holds a control character (a line break, "
                "a tab); no client could call it",
            )
        names = Namespace(
            RESERVED_CLIENT_KWARGS | {self.config.auth.param if self.config.auth else "api_key"}
        )
        variables = []
        raw_vars = _obj(server.get("variables"))
        for var in _PATH_PARAM.findall(url):
            spec = _obj(raw_vars.get(var))
            variables.append(
                ServerVariable(
                    name=var,
                    py_name=names.identifier(var, prefix="var"),
                    default=str(spec.get("default", "")),
                    description=one_line(spec.get("description", "")),
                )
            )
        return url, tuple(variables)

    def _auth(self) -> Auth | None:
        cfg = self.config.auth
        if cfg is not None:
            choices = (
                ((cfg.scheme, cfg.prefix), *cfg.alternatives.items()) if cfg.alternatives else ()
            )
            return Auth(
                cfg.header,
                cfg.prefix,
                cfg.env,
                PythonIdentifier(cfg.param),
                cfg.description,
                tuple(choices),
            )
        schemes = (self.doc.get("components") or {}).get("securitySchemes") or {}
        for requirement in self.doc.get("security") or []:
            for name in requirement if isinstance(requirement, dict) else {}:
                scheme = schemes.get(name)
                if isinstance(scheme, dict) and "$ref" in scheme:
                    scheme, _ = self.resolver.resolve(
                        scheme, pointer("components", "securitySchemes", name)
                    )
                auth = self._auth_from_scheme(scheme if isinstance(scheme, dict) else {})
                if auth is not None:
                    return auth
        return None

    def _auth_from_scheme(self, scheme: dict[str, Any]) -> Auth | None:
        env = (self.config.name.upper() or "API") + "_API_KEY"
        env = re.sub(r"[^A-Z0-9_]", "_", env)
        param = PythonIdentifier("api_key")
        if scheme.get("type") == "http" and str(scheme.get("scheme", "")).lower() == "bearer":
            return Auth("Authorization", "Bearer ", env, param)
        if (
            scheme.get("type") == "apiKey"
            and scheme.get("in") == "header"
            and isinstance(scheme.get("name"), str)
        ):
            prefix = scheme.get("x-credential-prefix", "")
            return Auth(scheme["name"], str(prefix) if isinstance(prefix, str) else "", env, param)
        if scheme.get("type") in ("oauth2", "openIdConnect"):
            return Auth("Authorization", "Bearer ", env, param)
        return None


FORM_MEDIA = "application/x-www-form-urlencoded"
_BODY_KINDS: tuple[tuple[str, BodyKind], ...] = (
    ("json", "json"),
    (FORM_MEDIA, "form"),
    ("multipart/", "multipart"),
    ("text/", "text"),
    ("", "binary"),
)
_RESPONSE_KINDS: tuple[tuple[str, ResponseKind], ...] = (
    ("json", "json"),
    ("text/event-stream", "event-stream"),
    ("text/csv", "binary"),
    ("text/", "text"),
    ("", "binary"),
)


def _pick_media(media_types: list[str], kinds: tuple[tuple[str, _K], ...]) -> tuple[str, _K]:
    """Pick the media type a client should use: JSON first, then by the kind table's order."""
    for needle, kind in kinds:
        for media in media_types:
            m = media.lower().split(";")[0].strip()
            if needle == "json" and (m == "application/json" or m.endswith("+json") or m == "*/*"):
                return media, kind
            if needle != "json" and needle in m:
                return media, kind
    return media_types[0], kinds[-1][1]


def _form_query(p: dict[str, Any]) -> bool:
    """Whether an ``in: querystring`` parameter's one media type is a form encoding."""
    media = list(_obj(p.get("content")))
    return len(media) == 1 and media[0].split(";")[0].strip().lower() == FORM_MEDIA


def _status_rank(status: object) -> tuple[int, str]:
    s = str(status).upper()
    if s.isascii() and s.isdigit():
        return int(s), s
    if len(s) == 3 and s.endswith("XX") and s[0].isascii() and s[0].isdigit():
        return int(s[0]) * 100 + 99, s
    return 1000, s


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else an empty one: documents are untrusted in shape."""
    return value if isinstance(value, dict) else {}


def _strip_none(t: TypeRef) -> TypeRef:
    if isinstance(t, UnionOf):
        rest = [m for m in t.members if m != NONE]
        return rest[0] if len(rest) == 1 else t
    return t


_RULE_KEYS = ("oneOf", "anyOf", "allOf", "not")
_RULE_NOTES = frozenset({"description", "title", "$comment"})


def body_rule(model: Any) -> Rule | None:
    """The rule a request object's ``oneOf``/``anyOf``/``allOf``/``not`` keywords state about which
    of its own properties are sent together, or None when it has none (or states more than that).

    ``{properties: {a, b}, oneOf: [{required: [a]}, {required: [b]}]}`` is "exactly one of a, b".
    """
    schema = _obj(model)
    props = _obj(schema.get("properties"))
    if not props or not any(k in schema for k in _RULE_KEYS):
        return None
    parts = []
    for key in _RULE_KEYS:
        if key in schema:
            part = _rule({key: schema[key]}, frozenset(props))
            if part is None:
                return None
            parts.append(part)
    return parts[0] if len(parts) == 1 else Rule("allOf", rules=tuple(parts))


def _rule(node: Any, props: frozenset[str]) -> Rule | None:
    """A presence rule for a schema that only says which of ``props`` are required, else None."""
    if not isinstance(node, dict) or set(node) - _RULE_NOTES - {"required", *_RULE_KEYS}:
        return None
    parts: list[Rule] = []
    req = node.get("required")
    if req is not None:
        if not isinstance(req, list) or not all(isinstance(r, str) and r in props for r in req):
            return None
        parts.append(Rule("required", names=tuple(req)))
    if "not" in node:
        inner = _rule(node["not"], props)
        if inner is None:
            return None
        parts.append(Rule("not", rules=(inner,)))
    for key in ("oneOf", "anyOf", "allOf"):
        if key not in node:
            continue
        branches = node[key]
        if not isinstance(branches, list) or not branches:
            return None
        subs = [_rule(b, props) for b in branches]
        if any(s is None for s in subs):
            return None
        parts.append(Rule(key, rules=tuple(s for s in subs if s is not None)))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Rule("allOf", rules=tuple(parts))


def _default_text(schema: Any) -> str | None:
    """The schema's ``default`` as compact JSON text (documentation only), or None."""
    if not isinstance(schema, dict) or "default" not in schema:
        return None
    return one_line(json.dumps(schema["default"], ensure_ascii=False), 80)
