from __future__ import annotations

import pytest

from falcon_airflow.server.prism.colos import (
    Colo,
    ColoNotApplicable,
    PrismConfigurationError,
    PrismSettings,
    parse_colos,
    selected,
    server_mode,
)


def test_colos_are_read_in_the_order_given_without_trailing_slashes() -> None:
    assert parse_colos(" east=http://a:8080/falcon/ , west=https://b/falcon") == (
        Colo("east", "http://a:8080/falcon"), Colo("west", "https://b/falcon"))


@pytest.mark.parametrize(("text", "problem"), [
    ("", "names no colo"),
    ("east", "is not <colo>=<url>"),
    ("east=ftp://a", r"is not http\(s\)://host"),
    ("east=http://a,east=http://b", "names colo east twice"),
    ("e st=http://a", "is not <colo>=<url>"),
])
def test_a_wrong_colo_list_names_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(PrismConfigurationError, match=problem):
        parse_colos(text)


def test_settings_read_the_colos_and_the_timeout() -> None:
    values = {("falcon", "prism_colos"): "east=http://a/falcon", ("falcon", "prism_timeout"): "2.5"}
    settings = PrismSettings.from_config(lambda section, key: values.get((section, key)))
    assert settings.names == ("east",) and settings.timeout == 2.5
    with pytest.raises(PrismConfigurationError, match="prism_timeout"):
        PrismSettings.from_config(lambda section, key: {**values, ("falcon", "prism_timeout"): "soon"}
                                  .get((section, key)))


def test_the_mode_is_embedded_unless_prism_is_asked_and_a_misspelling_is_an_error() -> None:
    assert server_mode(None) == "embedded" and server_mode(" Prism ") == "prism"
    with pytest.raises(PrismConfigurationError, match="mode must be one of"):
        server_mode("prims")


@pytest.mark.parametrize(("expression", "expected"), [
    (None, ("east", "west")), ("", ("east", "west")), ("*", ("east", "west")), ("west", ("west",)),
    ("west, east,west", ("west", "east")),
])
def test_the_colo_expression_picks_among_the_applicable_colos(expression: str | None,
                                                               expected: tuple[str, ...]) -> None:
    assert selected(expression, ("east", "west")) == expected


def test_a_colo_the_request_does_not_apply_to_is_refused() -> None:
    with pytest.raises(ColoNotApplicable, match="not applicable for entity operation: north"):
        selected("east,north", ("east", "west"))
