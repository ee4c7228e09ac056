"""Names and words made from a document's identifiers."""

from __future__ import annotations

import pytest

from generator.naming import sentence


@pytest.mark.parametrize(
    ("identifier", "words"),
    [
        (
            "createDeploymentEnvironmentTokenForMetaSync",
            "Create deployment environment token for meta sync.",
        ),
        ("getSCIMUser", "Get SCIM user."),
        ("list_api_keys", "List api keys."),
        ("uploadFile", "Upload file."),
        ("GitHubConnect", "Github connect."),  # a brand word stays one word
        ("", ""),
        ("__", ""),
    ],
)
def test_sentence_reads_an_identifier_as_words(identifier: str, words: str) -> None:
    assert sentence(identifier) == words
