"""Free text split into ASCII words and joined as ``snake_case`` or ``PascalCase``: the one word
splitter, used by naming and by the bundler's component keys alike."""

from __future__ import annotations

import functools
import re
import unicodedata

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")

# Brand words that camel-case splitting would cut in two ("GitHub" → "git_hub").
_WHOLE_WORDS = re.compile(
    r"GitHub|GitLab|OAuth|OpenAPI|OpenID|GraphQL|JavaScript|TypeScript|PostgreSQL|MySQL|DevOps"
)


def ascii_words(text: str) -> list[str]:
    """Split free text into ASCII words, on case changes and on anything not alphanumeric.

    One scan of the whole text: a word is made of letters and digits only, and the one
    look-ahead of :data:`_WORD` looks at letters and digits only, so anything else between two
    words parts them as if the text were cut there first."""
    folded = (
        text
        if text.isascii()  # NFKD leaves ASCII as it is
        else unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    )
    if _WHOLE_WORDS.search(folded):
        folded = _WHOLE_WORDS.sub(lambda m: " " + m.group().capitalize() + " ", folded)
    return _WORD.findall(folded)


# A document repeats its names (a property in many schemas, a parameter in many operations):
# each spelling is worked out once per run.
@functools.lru_cache(maxsize=65536)
def snake_case(text: str) -> str:
    if _SNAKE.fullmatch(text):  # each run of letters and digits is one lower-case word
        return text
    return "_".join(w.lower() for w in ascii_words(text))


@functools.lru_cache(maxsize=65536)
def pascal_case(text: str) -> str:
    if _PASCAL.fullmatch(text) and not _WHOLE_WORDS.search(text):
        return text  # every word already starts upper case (or with a digit): a class name
    return "".join(w[:1].upper() + w[1:] for w in ascii_words(text))


# Texts each function gives back as they are (made of its own words already): only a word that
# starts the text or follows a character other than a letter or digit can start lower case.
_SNAKE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")
_PASCAL = re.compile(r"[A-Z][A-Za-z0-9]*")
