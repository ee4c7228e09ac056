"""A model field's statements as the class body and its TypedDict twin write them, built in one
call each from the field's IR (the class templates insert them as they are)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.emit.imports import used_names
from generator.emit.model_fields import (
    FIELDS,
    class_fields,
    described,
    field_statement,
    functional_twin,
    twin_items,
    typed_dict_entry,
)
from generator.emit.sanitize import docstring_body, py_str
from generator.emit.type_text import ItemTypes
from generator.ir.naming import ClassName, PythonIdentifier
from generator.ir.types import (
    NONE,
    ListOf,
    LiteralOf,
    Model,
    ModelField,
    ModelRef,
    Primitive,
    UnionOf,
)

STR = Primitive("str")


def _field(name: str, py_name: str, type_: object, **kw: object) -> ModelField:
    return ModelField(name, PythonIdentifier.unchecked(py_name), type_, **kw)  # type: ignore[arg-type]


def test_a_plain_required_field_is_its_name_and_type() -> None:
    assert field_statement(_field("id", "id", STR, required=True)) == "id: str"


def test_an_optional_field_takes_its_default_and_an_open_enum() -> None:
    status = UnionOf((LiteralOf(("open", "closed")), NONE))
    f = _field("status", "status", status, required=False)
    assert field_statement(f) == 'status: Open[Literal["open", "closed"]] | None = None'
    f = _field("limit", "limit", Primitive("int"), required=False, default=10)
    assert field_statement(f) == "limit: int = 10"


def test_alias_constraints_and_description_go_into_field_in_that_order() -> None:
    f = _field(
        "max-items",
        "max_items",
        Primitive("int"),
        required=True,
        description='Up to "many".\x07',
        constraints=(("ge", 1), ("le", 5)),
    )
    assert field_statement(f) == (
        'max_items: Annotated[int, Field(alias="max-items", ge=1, le=5, '
        "description='Up to \"many\".')]"
    )


def test_a_long_statement_is_broken_as_the_formatter_would_at_the_class_body_indent() -> None:
    f = _field(
        "x", "x", STR, required=True, description="word " * 12, constraints=(("max_length", 5000),)
    )
    assert field_statement(f) == (
        "x: Annotated[\n"
        "        str,\n"
        "        Field(\n"
        "            max_length=5000,\n"
        f'            description="{("word " * 12).strip()}",\n'
        "        ),\n"
        "    ]"
    )


def test_typed_dict_items_name_the_twin_and_mark_optional_keys() -> None:
    ref = ModelRef(ClassName.unchecked("Card"))
    items = ItemTypes({"Card": "CardParam"}, {})
    f = _field("card-list", "card_list", ListOf(ref), required=False)
    assert typed_dict_entry(f, items) == ('"card-list": "NotRequired[Sequence[Card | CardParam]]",')
    g = _field("card", "card", ref, required=True)
    h = _field("cards", "cards", ListOf(ref), required=False)
    twin = Model(ClassName.unchecked("Wallet"), (g, h), input_name=ClassName.unchecked("WP"))
    text, names = twin_items(twin, items)
    assert text == "card: Card | CardParam\n    cards: NotRequired[Sequence[Card | CardParam]]"
    assert names == used_names(text) == {"Card", "CardParam", "NotRequired", "Sequence"}
    # each type written once for the family: the same text again, from memory
    assert twin_items(twin, items) == (text, names)
    assert items(ref) == "Card | CardParam" and len(items._memo) == 2
    # a wire name no class body can write: the functional syntax, whose types are strings
    odd = Model(ClassName.unchecked("Odd"), (f,), input_name=ClassName.unchecked("OddParam"))
    assert twin_items(odd, items) == (typed_dict_entry(f, items), frozenset())


def test_the_functional_twin_is_chosen_by_wire_names_and_described_keeps_order() -> None:
    a = _field("a", "a", STR, required=True, description="first")
    b = _field("b", "b", STR, required=True)
    c = _field("class", "class_", STR, required=True, description="last")
    name = ClassName.unchecked("Thing")
    assert not functional_twin(Model(name, (a, b)))
    assert functional_twin(Model(name, (a, c)))
    assert described((a, b, c)) == [a, c]


def test_the_stub_declares_names_types_and_defaults_and_the_class_module_the_rest() -> None:
    name = ClassName.unchecked("Gadget")
    label = _field("label-text", "label_text", STR, required=True, constraints=(("max_length", 9),))
    count = _field("count", "count", Primitive("int"), required=False, default=3, description="N.")
    model = Model(name, (label, count), extra_allowed=True)
    ours, stub = class_fields(model)
    assert ours[0].split("\n    ") == [
        'model_config = ConfigDict(populate_by_name=True, protected_namespaces=(), extra="allow")',
        'label_text: Annotated[str, Field(alias="label-text", max_length=9)]',
        'count: Annotated[int, Field(description="N.")] = 3',
    ]
    assert stub[0].split("\n    ") == ["label_text: str", "count: int = 3"]
    # a class of no fields keeps its configuration line in the stub: its body is never empty
    empty = Model(name, ())
    assert (
        class_fields(empty)[1][0]
        == class_fields(empty)[0][0]
        == ("model_config = ConfigDict(populate_by_name=True, protected_namespaces=())")
    )


def test_no_document_text_can_stand_for_the_place_of_the_fields() -> None:
    """The marker is a NUL, which the escaping point never lets through into a body."""
    assert "\x00" in FIELDS
    hostile = f"a{FIELDS}b\x00"
    assert "\x00" not in py_str(hostile)
    assert "\x00" not in docstring_body(hostile, 4)


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=30),
)
_TYPES = st.sampled_from(
    [
        STR,
        Primitive("int"),
        UnionOf((LiteralOf(("a", "b")), NONE)),
        ListOf(ModelRef(ClassName.unchecked("Card"))),
        UnionOf((ModelRef(ClassName.unchecked("Card")), Primitive("datetime"), NONE)),
    ]
)
_CODE_LIKE = st.sampled_from(["", "Card", "os.system('x')", 'x"""y', "Field(", "\\", "a\nb: c"])


@st.composite
def _fields(draw: st.DrawFn) -> ModelField:
    py_name = draw(st.sampled_from(["value", "class_", "card_list", "model_config_"]))
    wire = draw(st.one_of(st.just(py_name), st.text(max_size=20), _CODE_LIKE))
    required = draw(st.booleans())
    return _field(
        wire,
        py_name,
        draw(_TYPES),
        required=required,
        default=None if required else draw(_VALUES),
        description=draw(st.one_of(_CODE_LIKE, st.text(max_size=40))) or None,
        constraints=tuple(
            draw(
                st.lists(
                    st.tuples(st.sampled_from(["ge", "max_length", "pattern"]), _VALUES),
                    max_size=3,
                    unique_by=lambda kv: kv[0],
                )
            )
        ),
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(_fields(), max_size=5), st.booleans())
def test_the_names_given_with_the_fields_are_those_their_text_uses(
    fields: list[ModelField], extra: bool
) -> None:
    """Names are taken from each statement without its alias and description (string literals):
    they must be exactly what scanning the whole text finds, whatever the document wrote."""
    model = Model(ClassName.unchecked("Thing"), tuple(fields), extra_allowed=extra)
    for text, names in class_fields(model):
        assert names == used_names(text), text
