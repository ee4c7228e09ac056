"""Line breaking for generated code, decided by the renderer so no formatter runs afterwards.

Templates write each statement on one line. A statement that does not fit the generated
package's line length goes through :func:`fit`, which breaks it the way ruff's formatter does for
the shapes our templates write: bracketed sequences (calls, subscripts, collections, parameters),
``|`` unions and comparisons, assignments and annotated assignments, ``return``/``assert``
statements, and ``def``/``class`` headers. The statement is parsed with :mod:`ast` (our own
code, never document text: every string in it was escaped by ``py_str``), turned into a small
document of groups, and printed by the usual "fits flat, else break the outermost group" rule.
Tests hold the output to ``ruff format --check`` over every document the suite generates.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

LINE_LENGTH = 100


# --- the document: text, groups, line breaks -------------------------------------------------


@dataclass(slots=True)
class Group:
    parts: list[Doc]
    broken: bool = False  # set while printing
    flat: str | None = None  # the group on one line, made once, when first asked


@dataclass(slots=True)
class Indent:
    parts: list[Doc]


@dataclass(slots=True)
class Line:
    """A break: ``flat`` when the enclosing group fits, a new line when it breaks."""

    flat: str = ""


@dataclass(slots=True)
class IfBreak:
    """Text shown only when ``group`` (or the innermost enclosing group) is broken."""

    text: str
    group: Group | None = None


Doc = str | Group | Indent | Line | IfBreak


@dataclass
class _Printer:
    width: int
    out: list[str] = field(default_factory=list)
    column: int = 0

    def print(self, doc: Doc, indent: int) -> str:
        self.column = indent
        stack: list[tuple[int, bool, Group | None, Doc]] = [(indent, False, None, doc)]
        while stack:
            ind, flat, group, item = stack.pop()
            if isinstance(item, str):
                self.out.append(item)
                self.column += len(item)
            elif isinstance(item, Group):
                fits = flat or (not item.broken and self._fits(item, stack))
                item.broken = not fits
                if fits:  # everything inside prints flat: its one-line text, made once
                    text = _flat_text(item)
                    self.out.append(text)
                    self.column += len(text)
                else:
                    stack.extend((ind, False, item, p) for p in reversed(item.parts))
            elif isinstance(item, Indent):
                stack.extend((ind + 4, flat, group, p) for p in reversed(item.parts))
            elif isinstance(item, Line):
                if flat:
                    self.out.append(item.flat)
                    self.column += len(item.flat)
                else:
                    self.out.append("\n" + " " * ind)
                    self.column = ind
            elif (item.group or group) is not None and (item.group or group).broken:  # type: ignore[union-attr]
                self.out.append(item.text)
                self.column += len(item.text)
        return "".join(self.out)

    def _fits(self, group: Group, rest: list[tuple[int, bool, Group | None, Doc]]) -> bool:
        """Whether ``group`` printed flat, and what follows up to the next break, fits."""
        room = self.width - self.column - _flat_width(group)
        todo: list[tuple[bool, Group | None, Doc]] = []
        rest_at = len(rest)
        while room >= 0:
            if not todo:
                if not rest_at:
                    return True
                rest_at -= 1
                _, flat, owner, item = rest[rest_at]
                if isinstance(item, Line) and not flat:
                    return True
                todo.append((flat, owner, item))
                continue
            flat, owner, item = todo.pop()
            if isinstance(item, str):
                room -= len(item)
            elif isinstance(item, Group) and flat:
                room -= _flat_width(item)
            elif isinstance(item, Group):
                # a group after this one is measured as its context prints it: in a broken
                # context its first possible break ends the measure
                todo.extend((flat, item, p) for p in reversed(item.parts))
            elif isinstance(item, Indent):
                todo.extend((flat, owner, p) for p in reversed(item.parts))
            elif isinstance(item, Line):
                if not flat:
                    return True
                room -= len(item.flat)
            elif not flat and (item.group or owner) is not None and (item.group or owner).broken:  # type: ignore[union-attr]
                room -= len(item.text)
        return False


def _flat_width(doc: Doc) -> int:
    """The width of ``doc`` printed on one line."""
    return len(doc) if isinstance(doc, str) else len(_flat_text(doc))


def _flat_text(doc: Doc) -> str:
    """``doc`` printed on one line (kept on each group: groups nest, and the printer asks
    about the same group again for every group around it)."""
    if isinstance(doc, str):
        return doc
    if isinstance(doc, Line):
        return doc.flat
    if isinstance(doc, IfBreak):
        return ""  # a group on one line is not broken, nor is any group inside it
    if isinstance(doc, Group):
        if doc.flat is None:
            doc.flat = "".join([_flat_text(p) for p in doc.parts])
        return doc.flat
    return "".join([_flat_text(p) for p in doc.parts])


# --- from the syntax tree to the document -----------------------------------------------------


def _seq(open_: str, items: list[Doc], close: str, *, hug: bool, params: bool = False) -> Doc:
    """A bracketed, comma-separated sequence. Calls, subscripts and parameters first try all
    items on one indented line (``hug``); collection literals break one item per line. A
    single item gets a trailing comma added only as a parameter."""
    if not items:
        return open_ + close
    joined: list[Doc] = []
    for i, it in enumerate(items):
        if i:
            joined += [",", Line(" ")]
        joined.append(it)
    if len(items) > 1:
        if hug:
            inner = Group([])
            inner.parts = [*joined, IfBreak(",", inner)]
            body: list[Doc] = [inner]
        else:
            body = [*joined, IfBreak(",")]
    else:
        body = [*joined, IfBreak(",")] if params else joined
    return Group([open_, Indent([Line(), *body]), Line(), close])


_OPS = {
    ast.BitOr: "|",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.Lt: "<",
    ast.Gt: ">",
    ast.LtE: "<=",
    ast.GtE: ">=",
}


class _Builder:
    def __init__(self, source: str) -> None:
        self.source = source.encode()

    def text(self, node: ast.AST) -> str:
        start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        return self.source[start:end].decode()

    def chain(self, node: ast.expr) -> tuple[list[ast.expr], list[str]] | None:
        """Operands and operators of a ``|`` / ``+`` chain or a comparison, else None."""
        if isinstance(node, ast.Compare):
            return [node.left, *node.comparators], [_OPS[type(o)] for o in node.ops]
        if isinstance(node, ast.BoolOp):
            word = "and" if isinstance(node.op, ast.And) else "or"
            return list(node.values), [word] * (len(node.values) - 1)
        if isinstance(node, ast.IfExp):
            return [node.body, node.test, node.orelse], ["if", "else"]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            kind = type(node.op)
            operands: list[ast.expr] = []
            ops: list[str] = []
            cur: ast.expr = node
            while isinstance(cur, ast.BinOp) and type(cur.op) is kind:
                operands.append(cur.right)
                ops.append(_OPS[kind])
                cur = cur.left
            operands.append(cur)
            return operands[::-1], ops[::-1]
        return None

    def expr(self, node: ast.expr, in_parens: bool) -> Doc:
        """An expression; operators break only inside brackets (``in_parens``)."""
        match node:
            case ast.Call(func=func, args=args, keywords=keywords):
                items: list[ast.expr | ast.keyword] = [*args, *keywords]
                items.sort(key=lambda n: (n.lineno, n.col_offset))
                return Group(
                    [self.expr(func, in_parens), _seq("(", self.items(items), ")", hug=True)]
                )
            case ast.Subscript(value=value, slice=index):
                elts = (
                    index.elts
                    if isinstance(index, ast.Tuple) and not self._parenthesized(index)
                    else [index]
                )
                return Group(
                    [self.expr(value, in_parens), _seq("[", self.items(elts), "]", hug=True)]
                )
            case ast.Attribute(value=value, attr=attr) if isinstance(
                value, ast.Call | ast.Subscript
            ):
                return Group([self.expr(value, in_parens), "." + attr])
            case ast.List(elts=elts):
                return _seq("[", self.items(elts), "]", hug=False)
            case ast.Set(elts=elts):
                return _seq("{", self.items(elts), "}", hug=False)
            case ast.Tuple(elts=elts) if self._parenthesized(node) and len(elts) > 1:
                return _seq("(", self.items(elts), ")", hug=False)
            case ast.Dict(keys=keys, values=values):
                entries = [self.entry(k, v) for k, v in zip(keys, values, strict=True)]
                return _seq("{", entries, "}", hug=False)
            case ast.ListComp(elt=elt, generators=generators):
                comp: list[Doc] = [Line(), self.expr(elt, True)]
                for gen in generators:
                    comp += [Line(" "), "for ", self.text(gen.target), " in "]
                    comp.append(self.expr(gen.iter, True))
                    for cond in gen.ifs:
                        comp += [Line(" "), "if ", self.expr(cond, True)]
                return Group(["[", Indent(comp), Line(), "]"])
            case ast.Await(value=value):
                return Group(["await ", self.expr(value, in_parens)])
            case ast.Lambda(body=body):
                head = self.text(node)[: body.col_offset - node.col_offset]
                return Group([head, self.expr(body, in_parens)])
        parts = self.chain(node)
        if parts is None:
            return self.text(node)
        operands, ops = parts
        docs: list[Doc] = [self.expr(operands[0], in_parens)]
        for op, operand in zip(ops, operands[1:], strict=True):
            docs += [Line(" ") if in_parens else " ", op + " ", self.expr(operand, in_parens)]
        return Group(docs)

    def entry(self, key: ast.expr | None, value: ast.expr) -> Doc:
        """One dict entry: ``key: value``, or ``**value``."""
        if key is None:
            return Group(["**", self.expr(value, True)])
        return Group([self.expr(key, True), ": ", self.expr(value, True)])

    def items(self, nodes: Sequence[ast.expr | ast.keyword]) -> list[Doc]:
        out: list[Doc] = []
        for n in nodes:
            if isinstance(n, ast.keyword):
                prefix = f"{n.arg}=" if n.arg else "**"
                out.append(Group([prefix, self.expr(n.value, True)]))
            elif isinstance(n, ast.Starred):
                out.append(Group(["*", self.expr(n.value, True)]))
            else:
                out.append(self.expr(n, True))
        return out

    def _parenthesized(self, node: ast.expr) -> bool:
        return self.source[node.col_offset : node.col_offset + 1] == b"("

    def value(self, node: ast.expr) -> Doc:
        """A statement's right-hand side: its own last brackets break when it ends in them and
        has at most one operator; otherwise it is wrapped in parentheses if it breaks."""
        if self.omits_parentheses(node):
            return self.expr(node, False)
        return self.parenthesized(node)

    def parenthesized(self, node: ast.expr) -> Doc:
        """``node`` wrapped in parentheses, on lines of its own, when it does not fit."""
        wrap = Group([])
        wrap.parts = [
            IfBreak("(", wrap),
            Indent([Line(), self.expr(node, True)]),
            Line(),
            IfBreak(")", wrap),
        ]
        return wrap

    def omits_parentheses(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Await):
            return self.omits_parentheses(node.value)
        parts = self.chain(node)
        if parts is None:
            return not isinstance(node, ast.IfExp | ast.BoolOp | ast.BinOp)
        operands, ops = parts
        return len(ops) == 1 and _ends_in_brackets(operands[-1])

    # --- statements

    def statement(self, node: ast.stmt) -> Doc:
        match node:
            case ast.Assign(targets=[target], value=value):
                return Group([self.text(target), " = ", self.value(value)])
            case ast.AnnAssign(target=target, annotation=ann, value=None):
                return Group([self.text(target), ": ", self.value(ann)])
            case ast.AnnAssign(target=target, annotation=ann, value=value) if value is not None:
                return Group([self.text(target), ": ", self.value(ann), " = ", self.value(value)])
            case ast.Return(value=value) if value is not None:
                return Group(["return ", self.value(value)])
            case ast.Assert(test=test, msg=None):
                return Group(["assert ", self.value(test)])
            case ast.Expr(value=value):
                return self.value(value)
            case ast.FunctionDef() | ast.AsyncFunctionDef():
                return self.function(node)
            case ast.ClassDef(name=name, bases=bases, keywords=keywords) if bases or keywords:
                items = self.items([*bases, *keywords])
                return Group([f"class {name}", _seq("(", items, ")", hug=True), ":"])
        return self.text(node)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Doc:
        a = node.args
        positional = [*a.posonlyargs, *a.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults))
        defaults += a.defaults
        params: list[Doc] = [self.param(p, d) for p, d in zip(positional, defaults, strict=True)]
        if a.vararg:
            params.append(Group(["*", self.param(a.vararg, None)]))
        elif a.kwonlyargs:
            params.append("*")
        params += [self.param(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
        if a.kwarg:
            params.append(Group(["**", self.param(a.kwarg, None)]))
        head = ("async def " if isinstance(node, ast.AsyncFunctionDef) else "def ") + node.name
        returns: list[Doc] = [" -> ", self.expr(node.returns, False)] if node.returns else []
        return Group([head, _seq("(", params, ")", hug=True, params=True), *returns, ":"])

    def param(self, p: ast.arg, default: ast.expr | None) -> Doc:
        parts: list[Doc] = [p.arg]
        if p.annotation is not None:
            parts += [": ", self.expr(p.annotation, True)]
        if default is not None:
            parts += [" = " if p.annotation is not None else "=", self.expr(default, True)]
        return Group(parts)


_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.UnaryOp)


def _ends_in_brackets(node: ast.expr) -> bool:
    return isinstance(
        node, ast.Call | ast.Subscript | ast.List | ast.Dict | ast.Set | ast.Tuple | ast.ListComp
    )


def fit(statement: str, indent: int = 0, *, width: int = LINE_LENGTH) -> str:
    """``statement`` (one line, no indentation) broken as the formatter would at ``indent``.

    A ``def`` or ``class`` header is given with its trailing colon. Lines that fit come back
    unchanged without being parsed.
    """
    if indent + len(statement) <= width:
        return statement
    header = statement.startswith(("def ", "async def ", "class ")) and statement.endswith(":")
    if header and "(" not in statement:
        return statement  # ``class Name:`` has nothing to break
    try:
        tree = ast.parse(statement + " ..." if header else statement)
    except SyntaxError:  # not ours to judge here: the package's checks report it
        return statement
    node = tree.body[0]
    builder = _Builder(statement)
    value = getattr(node, "value", None)
    if isinstance(node, ast.AnnAssign) and value is None and isinstance(node.annotation, _ATOMS):
        value = node.annotation  # an annotation alone that cannot break goes in parentheses
    if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(value, _ATOMS):
        # an assignment of something that cannot break: its value goes in parentheses on a
        # line of its own when the rest and the value then fit (a value too long even there
        # stays where it is), before the left-hand side is broken
        head = statement[: value.col_offset]
        pad = " " * indent
        text = builder.text(value)
        # ...unless it would not fit there either: then it stays on the line, except after an
        # annotation with brackets (``X: ClassVar[Any] = b"..."``), which could break instead
        bracketed = isinstance(node, ast.AnnAssign) and not isinstance(node.annotation, _ATOMS)
        if indent + len(head) + 1 <= width:
            if bracketed or indent + 4 + len(text) <= width:
                return f"{head}(\n{pad}    {text}\n{pad})"
            return statement
    if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(value, ast.Call):
        # its own brackets break when the line up to them fits; else parentheses, unless
        # a line inside them still does not fit
        if indent + value.func.end_col_offset + 1 > width:  # type: ignore[operator]
            head = statement[: value.col_offset]
            wrapped = _Printer(width).print(Group([head, builder.parenthesized(value)]), indent)
            if fits_at(wrapped, indent, width=width):
                return wrapped
    return _Printer(width).print(builder.statement(node), indent)


def fits_at(text: str, indent: int, *, width: int = LINE_LENGTH) -> bool:
    """Whether every line of ``text``, its first placed at ``indent``, is within the width."""
    return all(len(line) <= width for line in (" " * indent + str(text)).splitlines())


def fit_return(annotation: str, indent: int, *, width: int = LINE_LENGTH) -> str:
    """The closing line of an exploded signature, ``) -> annotation:``, broken if too long."""
    line = f") -> {annotation}:"
    if indent + len(line) <= width:
        return line
    try:
        node = ast.parse(annotation, mode="eval").body
    except SyntaxError:  # not ours to judge here: the package's checks report it
        return line
    builder = _Builder(annotation)
    return _Printer(width).print(Group([") -> ", builder.value(node), ":"]), indent)


def fit_item(item: str, indent: int, *, kind: str = "arg", width: int = LINE_LENGTH) -> str:
    """One line of an exploded bracket (``kind``: a call's ``arg``, a ``param`` of a def, a
    dict ``entry``), given without its trailing comma; comes back with it."""
    if indent + len(item) + 1 <= width:
        return item + ","
    wrapper = {"arg": ("_(", ")"), "param": ("def _(", "): ..."), "entry": ("{", "}")}[kind]
    source = wrapper[0] + item + wrapper[1]
    try:
        node = ast.parse(source).body[0]
    except SyntaxError:  # not ours to judge here: the package's checks report it
        return item + ","
    builder = _Builder(source)
    doc: Doc
    if isinstance(node, ast.FunctionDef):
        a = node.args
        p = [*a.args, *a.kwonlyargs][0]
        given = [*a.defaults, *(x for x in a.kw_defaults if x is not None)]
        d = given[0] if given else None
        doc = builder.param(p, d)
    else:
        value = node.value  # type: ignore[attr-defined]
        if isinstance(value, ast.Call):
            doc = builder.items([*value.args, *value.keywords])[0]
        else:
            doc = builder.entry(value.keys[0], value.values[0])
    return _Printer(width).print(Group([doc, ","]), indent)
