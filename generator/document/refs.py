"""``$ref`` handling: bundle other files into one document, resolve local references safely.

After :func:`bundle`, every reference is local (``#/...``): schemas from other files become
``components/schemas`` entries, anything else (path items, parameters, responses) is inlined.
Documents are untrusted, so references are sandboxed: they reach regular files inside the root
document's folder tree only (after ``..`` and symlinks are resolved); absolute paths, URLs of any
scheme, network-path references (``//host/...``), device files and anything outside the tree are
refused, because whatever a reference reads ends up in generated, published code.
:class:`Resolver` follows local references (for the builder and for drift) and reports cycles and
dangling targets as diagnostics instead of recursing forever.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urlsplit

from generator.diagnostics import (
    CodegenError,
    Diagnostic,
    error,
    one_line,
    pointer,
    resolve_pointer,
    split_pointer,
)
from generator.document.loader import load_document
from generator.document.sandbox import inside, refuse
from generator.words import pascal_case

_SCHEMA_KEYS = frozenset(
    {"schema", "schemas", "properties", "items", "allOf", "anyOf", "oneOf", "not",
     "additionalProperties", "prefixItems", "$defs", "definitions", "patternProperties",
     "contains", "if", "then", "else", "dependentSchemas", "propertyNames", "unevaluatedItems",
     "unevaluatedProperties", "contentSchema"}
)  # fmt: skip


def _is_schema_position(path: tuple[str, ...]) -> bool:
    return any(p in _SCHEMA_KEYS for p in path)


class _Bundler:
    def __init__(self, root_file: Path, root: Any, ref_root: Path | None = None) -> None:
        self.root_file = root_file.resolve()
        self.sandbox = (ref_root or root_file.parent).resolve()
        self.root = root
        self.docs: dict[Path, Any] = {self.root_file: root}
        self.schema_names: dict[tuple[Path, str], str] = {}
        comps = root.get("components") if isinstance(root, dict) else None
        schemas = comps.get("schemas") if isinstance(comps, dict) else None
        self.taken = {str(k).lower() for k in schemas} if isinstance(schemas, dict) else set()
        self.new_schemas: dict[str, Any] = {}
        self.inlining: set[tuple[Path, str]] = set()
        self.repairs: list[Diagnostic] = []

    def doc(self, file: Path, referrer: str) -> Any:
        if file not in self.docs:
            if not file.is_file():
                raise error("ref-dangling", referrer, "", f"$ref names missing file {file.name}")
            self.docs[file] = load_document(file)
        return self.docs[file]

    def target(self, ref: str, base: Path, at: str) -> tuple[Path, str]:
        url, frag = urldefrag(ref)
        if not url:
            return base, unquote(frag)
        shown = one_line(ref, 80)
        if url.startswith(("http://", "https://")):
            raise error("ref-remote", str(base), at, f"remote $ref {shown} is not fetched")
        reason = _refused_form(url)
        if reason:
            raise _refuse(base, at, f"$ref {shown} is refused: {reason}")
        file = inside(
            self.sandbox, base.parent / unquote(url), file=str(base), at=at, what=f"$ref {shown}"
        )
        return file, unquote(frag)

    def schema_ref(self, file: Path, frag: str, referrer: str, at: str) -> str:
        key = (file, frag)
        if key not in self.schema_names:
            if frag and not frag.startswith("/"):
                raise error(
                    "ref-invalid",
                    referrer,
                    at,
                    f"$ref fragment {one_line(frag, 80)} is not a pointer",
                )
            hint = split_pointer(frag)[-1] if frag.strip("/") else file.stem
            base = pascal_case(hint) or "Schema"
            name, n = base, 1
            while name.lower() in self.taken:
                n += 1
                name = f"{base}{n}"
            self.taken.add(name.lower())
            self.schema_names[key] = name
            if not file.is_file():  # as a missing component is: the document is broken
                raise error(
                    "ref-dangling",
                    referrer,
                    at,
                    f"$ref names missing file {one_line(file.name, 80)}",
                )
            node = self._fetch(file, frag, referrer, at)
            self.new_schemas[name] = self.rewrite(node, file, ("schema",))
        return "#/components/schemas/" + self.schema_names[key]

    def _fetch(self, file: Path, frag: str, referrer: str, at: str) -> Any:
        try:
            return resolve_pointer(self.doc(file, referrer), frag)
        except (KeyError, ValueError):
            raise error(
                "ref-dangling", referrer, at, f"$ref target {file.name}#{frag} does not exist"
            ) from None

    def rewrite(self, node: Any, base: Path, path: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [self.rewrite(v, base, (*path, str(i))) for i, v in enumerate(node)]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            at = pointer(*path)
            file, frag = self.target(ref, base, at + "/$ref")
            if file == self.root_file:  # ``#/x``, or the root's own file name
                return {**node, "$ref": "#" + frag}
            if _is_schema_position(path) or "/schemas/" in frag or "/definitions/" in frag:
                return {**node, "$ref": self.schema_ref(file, frag, str(base), at)}
            key = (file, frag)
            if key in self.inlining:
                raise error("ref-cycle", str(base), at, f"cyclic $ref {one_line(ref, 80)}")
            self.inlining.add(key)
            try:
                target = self.rewrite(self._fetch(file, frag, str(base), at), file, path)
            finally:
                self.inlining.discard(key)
            return target
        out = {k: self.rewrite(v, base, (*path, k)) for k, v in node.items()}
        disc = out.get("discriminator")
        if _is_schema_position(path) and isinstance(disc, dict):
            mapping = disc.get("mapping")
            if isinstance(mapping, dict):
                out["discriminator"] = {**disc, "mapping": self._mapping(mapping, base, path)}
        return out

    def _mapping(self, mapping: dict[str, Any], base: Path, path: tuple[str, ...]) -> Any:
        """Discriminator mapping values that are references into other files become local."""
        out: dict[str, Any] = {}
        at = pointer(*path, "discriminator", "mapping")
        for key, value in mapping.items():
            if isinstance(value, str) and _is_file_ref(value, base == self.root_file):
                file, frag = self.target(value, base, at + pointer(key))
                if file == self.root_file:
                    out[key] = "#" + frag
                else:
                    out[key] = self.schema_ref(file, frag, str(base), at)
            else:
                out[key] = value
        return out


def _refuse(base: Path, at: str, message: str) -> CodegenError:
    return refuse(str(base), at, message)


def _refused_form(url: str) -> str:
    """Why a reference's file part is refused before it is resolved, or ``""``."""
    if url.startswith("//"):
        return "network-path references (//host/...) are not followed"
    if urlsplit(url).scheme or ":" in url.split("/", 1)[0]:
        return "only relative file references are followed (no URL schemes such as file:)"
    if url.startswith("/") or unquote(url).startswith("/"):
        return "absolute paths are not followed; write a path relative to the document"
    return ""


def _is_file_ref(value: str, in_root: bool) -> bool:
    """A mapping value that names a schema by reference (not by bare component name)."""
    if value.startswith("#"):
        return not in_root
    return "#" in value or value.endswith((".yaml", ".yml", ".json"))


def bundle(
    root: Any, root_file: str, *, ref_root: Path | None = None
) -> tuple[Any, list[Diagnostic]]:
    """A copy of ``root`` whose references are all local (other files are read on demand), and a
    warning for each reference that could only be worked around. Referenced files must lie
    inside ``ref_root`` (default: the root document's folder)."""
    if not _has_external_refs(root):
        return root, []
    b = _Bundler(Path(root_file), root, ref_root)
    out = b.rewrite(root, b.root_file, ())
    if b.new_schemas:
        comps = out.setdefault("components", {})
        if not isinstance(comps, dict) or not isinstance(comps.setdefault("schemas", {}), dict):
            raise error(
                "document-invalid", root_file, "/components", "components.schemas must be objects"
            )
        comps["schemas"] = {**comps["schemas"], **b.new_schemas}
    return out, b.repairs


def _has_external_refs(node: Any) -> bool:
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            ref = cur.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                return True
            if _maps_files(cur.get("discriminator")):
                return True
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
    return False


def _maps_files(discriminator: Any) -> bool:
    """Whether a discriminator's mapping names a schema in another file."""
    mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
    return isinstance(mapping, dict) and any(
        isinstance(v, str) and _is_file_ref(v, True) for v in mapping.values()
    )


class Resolver:
    """Follows local (``#/...``) references inside one parsed document, for the builder and drift.

    Lookups are memoised per reference, so a schema referenced from three hundred operations is
    found once. A reference to another file is not followed (:meth:`lookup` gives ``None``): the
    builder only sees bundled documents, and drift compares such references by their text. Every
    failure is a :class:`CodegenError` with the file and pointer of the reference; ``error_id``
    replaces the ids (``ref-dangling``, ``ref-cycle``, ...) for callers that report their own.
    """

    def __init__(self, doc: Any, file: str, *, error_id: str | None = None) -> None:
        self.doc = doc
        self.file = file
        self._error_id = error_id
        self._memo: dict[str, tuple[Any, str]] = {}

    def _fail(self, id: str, ptr: str, message: str) -> CodegenError:
        return error(self._error_id or id, self.file, ptr, message)

    def lookup(self, ref: str, where: str) -> tuple[Any, str] | None:
        """The node a local reference names, and its pointer; ``None`` for a non-local one."""
        if not ref.startswith("#"):
            return None
        hit = self._memo.get(ref)
        if hit is None:
            try:
                hit = self._target(ref)
            except ValueError:
                raise self._fail(
                    "ref-invalid", where, f"$ref {one_line(ref, 80)} is not a JSON pointer"
                ) from None
            except KeyError:
                raise self._fail(
                    "ref-dangling", where, f"$ref {one_line(ref, 80)} names nothing"
                ) from None
        return hit

    def _target(self, ref: str) -> tuple[Any, str]:
        """The node a local reference names and its pointer, remembered; ``KeyError`` or
        ``ValueError`` when it names nothing."""
        target = unquote(ref)[1:]
        hit = self._memo[ref] = (resolve_pointer(self.doc, target), target)
        return hit

    def resolve(self, node: Any, at: str) -> tuple[Any, str]:
        """Follow a (possibly chained) reference to the object it names, and its pointer."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen:
                raise self._fail("ref-cycle", at, f"cyclic $ref {one_line(ref, 80)}")
            seen.add(ref)
            target = self.lookup(ref, at)
            if target is None:
                break
            node, at = target
        return node, at

    def check_all(self, *, local_only: bool = False) -> None:
        """Fail on the first reference (in document order) that names nothing, so a broken
        document is refused whole; with ``local_only`` a reference to another file fails too."""
        stack: list[Any] = [self.doc]
        while stack:
            cur = stack.pop()
            if isinstance(cur, dict):
                ref = cur.get("$ref")
                if isinstance(ref, str):
                    if local_only and not ref.startswith("#"):
                        raise self._fail(
                            "ref-unresolved",
                            self._where(cur),
                            f"$ref {one_line(ref, 80)} not bundled",
                        )
                    if ref.startswith("#") and ref not in self._memo:
                        try:
                            self._target(ref)
                        except (KeyError, ValueError):
                            self.lookup(ref, self._where(cur) + "/$ref")  # raises, naming it
                elif ref is not None and local_only:
                    raise self._fail(
                        "ref-invalid", self._where(cur) + "/$ref", "$ref must be a string"
                    )
                stack.extend(v for v in reversed(cur.values()) if isinstance(v, (dict, list)))
            elif isinstance(cur, list):
                stack.extend(v for v in reversed(cur) if isinstance(v, (dict, list)))

    def check_self_contained(self) -> bool:
        """Whether the document refers to no other file, in one walk: then every reference
        is checked, as :meth:`check_all` with ``local_only`` checks the bundled document, and
        the first in document order that names nothing fails. False, as soon as a reference
        or a discriminator mapping names another file: the document is bundled first."""
        stack: list[Any] = [self.doc]
        broken = False
        while stack:
            cur = stack.pop()
            if isinstance(cur, dict):
                ref = cur.get("$ref")
                if ref is not None:
                    if not isinstance(ref, str):
                        broken = True
                    elif not ref.startswith("#"):
                        return False
                    elif not broken and ref not in self._memo:
                        try:
                            self._target(ref)
                        except (KeyError, ValueError):
                            broken = True
                if _maps_files(cur.get("discriminator")):
                    return False
                stack.extend(cur.values())
            elif isinstance(cur, list):
                stack.extend(cur)
        if broken:  # the walk above is not in document order: name the first one
            self.check_all(local_only=True)
        return True

    def _where(self, node: Any) -> str:
        """The pointer of ``node``, found by identity in document order (pointers are spelled
        only for a reference that fails, not for every node walked)."""
        stack: list[tuple[Any, str]] = [(self.doc, "")]
        while stack:
            cur, at = stack.pop()
            if cur is node:
                return at
            if isinstance(cur, dict):
                stack.extend((v, at + pointer(k)) for k, v in reversed(cur.items()))
            elif isinstance(cur, list):
                stack.extend((v, f"{at}/{i}") for i, v in reversed(list(enumerate(cur))))
        return ""
