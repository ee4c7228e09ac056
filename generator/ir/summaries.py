"""A summary in our own words for an operation its document (after overlays) leaves without one.

Made from structure alone, never from the service's prose: the method, the path's literal
segments and whether the answer is a list. ``GET /deployments/{id}/environments`` lists
environments of a deployment; ``POST .../report-deliveries/{id}/pause`` pauses a report
delivery. Path segments go through the one word splitter, so only ASCII words reach the text.
"""

from __future__ import annotations

import re

from generator.words import ascii_words

# A last path segment that starts (or, after ``bulk``, ends) with one of these names an action
# on what precedes it: ``POST .../{id}/pause``, ``POST .../workspace/bulk-move``.
ACTIONS = frozenset(
    "abort activate advance approve archive cancel check clone close commit complete connect "
    "copy deactivate delete deploy disable download duplicate enable execute export finish "
    "generate import initiate invite lock login logout merge mint move pause preview publish "
    "pull refresh reject rename reopen reset resolve restart restore resume retry revoke "
    "rollback rotate run search send share start stop submit subscribe suspend sync test "
    "trigger unlock unpublish unshare unsubscribe upload validate verify".split()
)
# What a GET may name as its action (a read): anything else after GET is a thing to get.
_READ_ACTIONS = frozenset({"check", "download", "export", "preview", "search", "validate"})
# ``bulk-move``: an action on many (``dbt-sync`` is a thing a POST creates).
_QUALIFIERS = frozenset({"batch", "bulk", "mass"})
# Spelled as written in prose rather than capitalised as words.
_UPPER = frozenset("ai api csv id jwt json pdf saml scim sdk sql sso url".split())
_PREFIX = re.compile(r"^(api|v\d+(\.\d+)*)$", re.IGNORECASE)
_NO_PLURAL = ("ss", "us", "is", "settings", "status")


def derived_summary(method: str, path: str, *, listing: bool) -> str:
    """``Verb object`` for one operation (``listing``: its answer is a list or pages)."""
    segments = [s for s in path.split("/") if s and not _PREFIX.match(s)]
    literals = [i for i, s in enumerate(segments) if not _is_param(s)]
    verb = method.upper()
    if not literals:
        return f"{_verb_word(verb)} {'an item' if segments else 'the root'}"
    last = literals[-1]
    words = _words(segments[last])
    item = last < len(segments) - 1  # a parameter names one of them
    action = _action_word(verb, words) if last > 0 and not item else None
    if action is not None:
        return _action(words, action, segments, last)
    if words in (["bulk"], ["batch"]) and last > 0 and not _is_param(segments[last - 1]):
        many = " ".join(_words(segments[last - 1]))  # ``POST /users/bulk``
        return f"{'Create' if verb == 'POST' else _verb_word(verb)} {many} in {words[0]}"
    if item and words[:1] == ["by"] and last > 0:  # ``reports/by-public-id/{publicId}``
        noun = _singular(" ".join(_words(segments[last - 1])) or "item")
        phrase, owner = f"{_article(noun)} {' '.join(words)}", _owner(segments, last - 1)
    else:
        noun = " ".join(words) or "item"
        owner = _owner(segments, last)
        if item or verb == "POST":
            phrase = _article(_singular(noun))
        else:
            phrase = noun if listing and verb == "GET" else f"the {noun}"
    link = " for " if verb == "POST" and not item else " of "
    tail = f"{link}{owner}" if owner else ""
    if verb == "GET":
        head = "List" if listing and not item else "Get"
    elif verb == "POST" and not item:
        head = "Create"
    else:
        head = _verb_word(verb)
    return _capital(f"{head} {phrase}{tail}")


def _action_word(verb: str, words: list[str]) -> int | None:
    """Where the action word of a last segment is (its first or last word), if it names one."""
    allowed = _READ_ACTIONS if verb == "GET" else ACTIONS if verb in ("POST", "PUT") else ()
    if words and words[0] in allowed:
        return 0
    if len(words) > 1 and words[0] in _QUALIFIERS and words[-1] in allowed:
        return len(words) - 1
    return None


def _action(words: list[str], at: int, segments: list[str], last: int) -> str:
    """``POST /report-deliveries/{id}/pause`` → ``Pause a report delivery``."""
    before = last - 1
    if _is_param(segments[before]):
        thing = _owner(segments, last) or "an item"
    else:
        owner = _owner(segments, before)
        thing = "the " + " ".join(_words(segments[before])) + (f" of {owner}" if owner else "")
    if at == 0:  # ``run-now`` → ``Run a report delivery now``
        rest = " ".join(words[1:])
        return _capital(f"{words[0]} {thing}" + (f" {rest}" if rest else ""))
    return _capital(f"{' '.join(words)} in {thing}")  # ``bulk-move`` → ``Bulk move in ...``


def _owner(segments: list[str], index: int) -> str:
    """What the segment at ``index`` belongs to: ``a deployment`` after ``deployments/{id}``
    (any parameters in between), or ``the data model of a deployment`` after
    ``deployments/{id}/data-model`` (a literal that itself belongs to something)."""
    at = index - 1
    if at >= 0 and _is_param(segments[at]):
        while at >= 0 and _is_param(segments[at]):
            at -= 1
        return _article(_singular(" ".join(_words(segments[at])) or "item")) if at >= 0 else ""
    if at >= 0:
        above = _owner(segments, at)
        return f"the {' '.join(_words(segments[at]))} of {above}" if above else ""
    return ""


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def _words(segment: str) -> list[str]:
    return [w.upper() if w.lower() in _UPPER else w.lower() for w in ascii_words(segment)]


def _singular(noun: str) -> str:
    head, _, last = noun.rpartition(" ")
    if last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "xes", "sses")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith(_NO_PLURAL) and len(last) > 2:
        last = last[:-1]
    return f"{head} {last}" if head else last


def _article(noun: str) -> str:
    first = noun.split(" ", 1)[0]
    vowel = first[:1].lower() in "aeio" or (first.isupper() and first[:1] in "AEFHILMNORSX")
    return f"{'an' if vowel else 'a'} {noun}"


def _verb_word(method: str) -> str:
    return {"PUT": "Update", "PATCH": "Update", "DELETE": "Delete", "GET": "Get"}.get(
        method, f"Send {method} to"
    )


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
