"""The JSON Schema that editors point at agrees with the loader: good records validate, and records
the loader refuses for their shape are refused by the schema too."""

from __future__ import annotations

import pytest
import yaml
from jsonschema import Draft202012Validator

from tests.conftest import FULL_WINDOW, PER_TOKEN
from workings.models import CLAIM_KEYS
from workings.schema import claim_schema

VALIDATOR = Draft202012Validator(claim_schema())


def test_the_schema_is_valid_and_names_every_key_the_loader_accepts():
    Draft202012Validator.check_schema(claim_schema())
    assert set(claim_schema()["properties"]) == CLAIM_KEYS


@pytest.mark.parametrize("text", [PER_TOKEN, FULL_WINDOW,
                                  'said: x\ncheck: a > b\nlabel: derived\nerratum: {reason: r, recomputed: "3"}\n'])
def test_good_records_validate(text):
    assert list(VALIDATOR.iter_errors(yaml.safe_load(text))) == []


@pytest.mark.parametrize("text", [
    "said: x\nlabel: derived\n",                              # neither figure nor check
    'said: x\nfigure: "3"\ncheck: a > b\nlabel: derived\n',   # both
    'said: x\nfigure: "3"\nlabel: certain\n',                 # unknown label
    'said: x\nfigure: "3"\nlabel: derived\ncomptue: {}\n',    # a typo'd key
    'said: x\nfigure: "3"\nlabel: derived\nround: up\n',
    'said: x\nfigure: "3"\nlabel: derived\nwithin: five\n',
])
def test_records_of_the_wrong_shape_are_refused(text):
    assert list(VALIDATOR.iter_errors(yaml.safe_load(text))) != []
