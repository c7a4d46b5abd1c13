import pytest

from rata.abilities import AbilityPattern, Grant, validate_ability
from rata.errors import ConfigError


@pytest.mark.parametrize(
    ("pattern", "ability", "expected"),
    [
        ("customers.view", "customers.view", True),
        ("customers.view", "customers.viewer", False),
        ("customers.*", "customers.view", True),
        ("customers.*", "customers.notes.add", True),
        ("customers.*", "customers", False),
        ("customers.*", "orders.view", False),
        ("*.view", "customers.view", True),
        ("*.view", "customers.notes.view", False),
        ("*", "anything.at.all", True),
        ("customers.*.add", "customers.notes.add", True),
    ],
)
def test_a_pattern_matches_abilities_segment_by_segment(pattern, ability, expected):
    assert AbilityPattern.parse(pattern).matches(ability) is expected


def test_a_grant_denies_everything_by_default():
    assert Grant().allows("customers.view") is False


def test_a_grant_never_allows_a_command_without_an_ability():
    assert Grant(["*"]).allows(None) is False


def test_a_grant_allows_what_one_of_its_patterns_matches():
    grant = Grant(["orders.view", "customers.*"])
    assert grant.allows("customers.delete")
    assert not grant.allows("orders.delete")


def test_a_grant_keeps_each_pattern_once_in_the_order_given():
    assert Grant(["b.*", "a.view", "b.*"]).texts() == ["b.*", "a.view"]


@pytest.mark.parametrize("bad", ["", "customers..view", "customers.v*", "customers view", 3])
def test_a_malformed_pattern_is_refused_with_a_fix(bad):
    with pytest.raises(ConfigError) as caught:
        Grant([bad])
    assert caught.value.hint


@pytest.mark.parametrize("bad", ["customers.*", "", "a b"])
def test_an_ability_name_has_no_wildcards_or_spaces(bad):
    with pytest.raises(ConfigError) as caught:
        validate_ability(bad, "command 'x'")
    assert "command 'x'" in caught.value.message
