"""Which of the service's changelog entries the overlays cover: ``overlay check --changelog``.

The changelog (MDX, one ``<Update ... description="vX.Y.Z">`` block per release, bullets under
``### Added`` / ``Changed`` / ...) records releases the snapshot's document may not have reached.
The document carries no release number (``info.version`` stays ``1.0.0``), so its release is
inferred: the newest release whose added paths and named new schemas are all in the document.

An overlay action says which releases it comes from in a YAML comment, ``# changelog v0.17.0``
(several may be listed, ``# changelog v0.15.0, v0.17.0``), on the lines before its ``-`` or inside
it. An entry after the document's release is covered by the actions that name its release and add
one of the things the entry names in backticks: a path, a schema, a field or an operation id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.diagnostics import one_line

_RELEASE = re.compile(r'<Update\b[^>]*\bdescription="v(\d+\.\d+\.\d+)"[^>]*>(.*?)</Update>', re.S)
_SECTION = re.compile(r"^\s*###\s+(\w+)", re.M)
_BULLET = re.compile(r"^\s*- ", re.M)
_CODE = re.compile(r"`([^`]+)`")
_PATH = re.compile(r"(?:^|\s)(/(?:api|build)/[^\s`]*)")
_NEW_SCHEMAS = re.compile(r"New schemas?: ([^.]*)")
_COMMENT = re.compile(r"#\s*changelog\s+(v\d+\.\d+\.\d+(?:\s*,\s*v\d+\.\d+\.\d+)*)", re.I)
_ITEM = re.compile(r"^(\s*)- ")
_IDENT = re.compile(r"[A-Za-z_][\w-]*")
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.lstrip("v").split("."))


@dataclass(frozen=True, slots=True)
class Entry:
    """One bullet of one release: its kind (Added, Changed, Removed, ...) and the names it cites."""

    release: str
    kind: str
    number: int
    text: str
    names: frozenset[str]
    paths: tuple[str, ...]
    new_schemas: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"v{self.release} {self.kind} #{self.number}"


@dataclass(frozen=True, slots=True)
class Release:
    version: str
    entries: tuple[Entry, ...]


def parse_changelog(text: str) -> list[Release]:
    """Releases newest first, as the changelog lists them."""
    releases: list[Release] = []
    for m in _RELEASE.finditer(text):
        version, body = m.group(1), m.group(2)
        entries: list[Entry] = []
        sections = list(_SECTION.finditer(body))
        for i, section in enumerate(sections):
            end = sections[i + 1].start() if i + 1 < len(sections) else len(body)
            chunk = body[section.end() : end]
            bullets = [b.strip() for b in _BULLET.split(chunk)[1:] if b.strip()]
            for n, bullet in enumerate(bullets, 1):
                entries.append(_entry(version, section.group(1), n, bullet))
        releases.append(Release(version, tuple(entries)))
    return releases


def _entry(version: str, kind: str, number: int, bullet: str) -> Entry:
    names: set[str] = set()
    paths: list[str] = []
    for code in _CODE.findall(bullet):
        found = _PATH.findall(" " + code)
        paths += [p.rstrip("/") or p for p in found]
        if found or "/" in code:
            continue  # a path: matched as a path, its parameter names are no evidence
        for word in re.split(r"[\s.:,()/{}|'\"=]+", code):
            if _IDENT.fullmatch(word) and len(word) > 2 and word.upper() != word:
                names.add(word)
    schemas: list[str] = []
    for m in _NEW_SCHEMAS.finditer(bullet):
        listed = re.sub(r"\([^)]*\)", "", m.group(1))  # `Schema` (`field`, ...): fields aside
        schemas += [c for c in _CODE.findall(listed) if _IDENT.fullmatch(c) and c[0].isupper()]
    text = " ".join(bullet.split())
    return Entry(version, kind, number, text, frozenset(names), tuple(paths), tuple(schemas))


def document_release(document: Any, releases: Sequence[Release]) -> str | None:
    """The newest release whose new endpoints and new schemas are all in ``document`` (releases
    that name neither are no evidence either way and are passed over)."""
    have_paths = {p.rstrip("/") for p in (document.get("paths") or {})}
    have_schemas = set((document.get("components") or {}).get("schemas") or {})
    for release in releases:
        paths = [p for e in release.entries if _introduces(e) for p in e.paths if "…" not in p]
        schemas = [s for e in release.entries if e.kind == "Added" for s in e.new_schemas]
        if not paths and not schemas:
            continue
        if all(p in have_paths for p in paths) and all(s in have_schemas for s in schemas):
            return release.version
    return None


_SUBJECT = re.compile(r"^`(?:(?:GET|PUT|POST|DELETE|PATCH)\b|/)")


def _introduces(entry: Entry) -> bool:
    """An added entry whose subject is an endpoint (it starts with one, or says it adds one):
    its paths are new in that release. A field added to an existing endpoint is not evidence."""
    if entry.kind != "Added":
        return False
    return bool(_SUBJECT.match(entry.text)) or "endpoint" in entry.text.lower()


@dataclass(frozen=True, slots=True)
class ActionRef:
    """One overlay action as coverage sees it: where it is, its releases, the names it adds."""

    file: str
    index: int
    releases: frozenset[str]
    names: frozenset[str]
    paths: frozenset[str]

    @property
    def label(self) -> str:
        return f"{self.file}#{self.index}"


def action_releases(text: str) -> dict[int, set[str]]:
    """Action index → releases its ``# changelog`` comments name, read from the overlay's text."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.rstrip() == "actions:")
    except StopIteration:
        return {}
    indent: int | None = None
    index, found = -1, {}
    pending: set[str] = set()
    for line in lines[start + 1 :]:
        item = _ITEM.match(line)
        if item and (indent is None or len(item.group(1)) == indent):
            indent = len(item.group(1))
            index += 1
            found[index] = set(pending)
            pending = set()
        releases = {
            v.strip().lstrip("v") for m in _COMMENT.finditer(line) for v in m.group(1).split(",")
        }
        if not releases:
            continue
        if line.lstrip().startswith("#") and not item:
            pending |= releases  # a comment line before the next action belongs to it
        elif index >= 0:
            found[index] |= releases
    if pending and index >= 0:
        found[index] |= pending
    return found


def action_refs(overlay: Any, text: str) -> list[ActionRef]:
    """The actions of a loaded overlay with the releases its comments name."""
    releases = action_releases(text)
    refs = []
    for action in overlay.actions:
        names: set[str] = set()
        paths: set[str] = set()
        target = action.target.strip()
        update = action.update
        if target.endswith((".schemas", ".properties")) and isinstance(update, dict):
            update = {"properties": update}  # the update's keys are the members it adds
        elif target.endswith(".enum") and isinstance(update, list):
            update = {"enum": update}
        _collect(update, names, paths, top=target == "$.paths")
        refs.append(
            ActionRef(
                overlay.file,
                action.index,
                frozenset(releases.get(action.index, set())),
                frozenset(names),
                frozenset(paths),
            )
        )
    return refs


_CONDITIONS = frozenset({"if", "then", "else", "not"})


def _collect(value: Any, names: set[str], paths: set[str], *, top: bool) -> None:
    """The members an update adds: paths (on ``$.paths``), operation ids, schema and property
    names, enum values and referenced components; structural keywords and conditions are not."""
    if isinstance(value, list):
        for child in value:
            _collect(child, names, paths, top=False)
        return
    if not isinstance(value, dict):
        return
    for key, child in value.items():
        if top and key.startswith("/"):
            paths.add(key.rstrip("/"))
        elif key in _CONDITIONS:
            continue
        elif key == "operationId" and isinstance(child, str):
            names.add(child)
        elif key == "enum" and isinstance(child, list):
            names.update(v for v in child if isinstance(v, str))
        elif key == "$ref" and isinstance(child, str):
            names.add(child.rsplit("/", 1)[-1])
        elif key in ("properties", "schemas"):
            if isinstance(child, dict):
                names.update(child)
        _collect(child, names, paths, top=False)


def covers(action: ActionRef, entry: Entry) -> bool:
    """Whether the action names the entry's release and adds something the entry names."""
    if entry.release not in action.releases:
        return False
    for path in entry.paths:
        if any(_same_path(path, mine) for mine in action.paths):
            return True
    return bool(entry.names & action.names)


def _same_path(theirs: str, mine: str) -> bool:
    """``…/scheduled-tasks/{taskId}`` abbreviates the front of a path the overlay spells out."""
    for ellipsis in ("…", "..."):
        if ellipsis in theirs:
            return mine.endswith(theirs.split(ellipsis, 1)[1])
    return theirs == mine


@dataclass(frozen=True, slots=True)
class Coverage:
    """Entries after the document's release, each with the actions covering it."""

    since: str | None
    rows: tuple[tuple[Entry, tuple[str, ...]], ...] = field(default=())

    @property
    def covered(self) -> list[Entry]:
        return [e for e, actions in self.rows if actions]

    @property
    def uncovered(self) -> list[Entry]:
        return [e for e, actions in self.rows if not actions]

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "entries": [
                {"entry": e.label, "text": e.text, "actions": list(actions)}
                for e, actions in self.rows
            ],
            "covered": len(self.covered),
            "uncovered": len(self.uncovered),
        }

    def lines(self) -> list[str]:
        if self.since is None:
            return ["changelog: no release matches the document; give --since"]
        out = [f"changelog entries after v{self.since}, the document's release:"]
        for entry, actions in self.rows:
            status = "covered" if actions else "NOT COVERED"
            out.append(f"{status:<12} {entry.label}: {one_line(entry.text, 110)}")
            out += [f"{'':<12}   {a}" for a in actions]
        out.append(
            f"{len(self.rows)} entr{'y' if len(self.rows) == 1 else 'ies'}: "
            f"{len(self.covered)} covered, {len(self.uncovered)} not covered"
        )
        return out


def coverage(
    changelog: str,
    document: Any,
    overlays: Iterable[tuple[Any, str]],
    *,
    since: str | None = None,
) -> Coverage:
    """Coverage of ``changelog``'s entries after ``since`` (default: the document's release) by
    ``overlays``, given as (loaded overlay, its file's text) pairs."""
    releases = parse_changelog(changelog)
    since = since.lstrip("v") if since else document_release(document, releases)
    if since is None:
        return Coverage(None)
    refs = [ref for overlay, text in overlays for ref in action_refs(overlay, text)]
    rows = []
    for release in sorted(releases, key=lambda r: version_key(r.version)):
        if version_key(release.version) <= version_key(since):
            continue
        for entry in release.entries:
            rows.append((entry, tuple(r.label for r in refs if covers(r, entry))))
    return Coverage(since, tuple(rows))


def read_overlays(paths: Sequence[Path], load: Any) -> list[tuple[Any, str]]:
    return [(load(p), p.read_text(encoding="utf-8")) for p in paths]
