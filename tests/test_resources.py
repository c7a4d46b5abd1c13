"""`rata.resources`: URI templates (matching is total: any text matches or not, nothing raises) and URI checks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rata.errors import CodegenError
from rata.resources import MAX_URI, UriTemplate, check_uri, mime_of, template_problem

TEMPLATE = UriTemplate("test://template/{id}/data")
TWO = UriTemplate("app://orders_show/{customer}/{order}")


def test_a_uri_matches_with_its_percent_decoded_values():
    assert TEMPLATE.match("test://template/123/data") == {"id": "123"}
    assert TEMPLATE.match("test://template/a%2Fb%20c/data") == {"id": "a/b c"}
    assert TWO.match("app://orders_show/%C3%A9/7") == {"customer": "é", "order": "7"}


@pytest.mark.parametrize(
    "uri", ["test://template//data", "test://template/1/2/data", "test://template/1/data/", "test://template/%FF/data", "x", "test://template/1?q/data"]
)
def test_what_is_no_instance_does_not_match(uri):
    assert TEMPLATE.match(uri) is None


def test_a_uri_over_the_bound_never_matches():
    assert TEMPLATE.match("test://template/" + "1" * MAX_URI + "/data") is None


@given(st.text(max_size=300))
def test_matching_any_text_answers_values_or_none(text):
    for template in (TEMPLATE, TWO):
        for uri in (text, f"test://template/{text}/data", f"app://orders_show/{text}"):
            values = template.match(uri)
            assert values is None or all(isinstance(v, str) and v for v in values.values())


@given(st.text(min_size=1, max_size=50), st.text(min_size=1, max_size=50))
def test_expand_then_match_gives_the_values_back(customer, order):
    values = {"customer": customer, "order": order}
    assert TWO.match(TWO.expand(values)) == values


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ("a://{+path}", "operator '+'"),
        ("a://{#frag}", "operator '#'"),
        ("a://x{?q}", "operator '?'"),
        ("a://{a-b}", "not a plain name"),
        ("a://{}", "empty expression"),
        ("a://{a}{b}", "touch"),
        ("a://{a", "brace"),
    ],
)
def test_templates_clients_cannot_parse_are_named(template, problem):
    assert problem in template_problem(template)
    with pytest.raises(CodegenError):
        UriTemplate(template)


def test_plain_templates_have_no_problem():
    assert template_problem("app://customers_show/{id}") is None


@given(st.text(max_size=100))
def test_check_uri_accepts_or_raises_a_codegen_error(text):
    try:
        assert check_uri(text, "here") == text
    except CodegenError as error:
        assert error.hint


def test_mime_types_come_from_a_fixed_table():
    assert (mime_of("a/guide.MD"), mime_of("x.png"), mime_of("x.unknown"), mime_of("noext")) == (
        "text/markdown", "image/png", "application/octet-stream", "application/octet-stream",
    )  # fmt: skip
