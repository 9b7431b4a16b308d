"""A JSON Schema of the claim record format, for YAML editors (yaml-language-server and others).

It mirrors ``models.Claim.from_document``; a test checks that every key the loader accepts appears
here and that the example records validate."""

from __future__ import annotations

from .models import BOUNDS, CLAIM_KEYS, LABELS, ROUNDING

_TEXT = {"type": "string", "minLength": 1}


def claim_schema() -> dict:
    properties = {
        "id": {**_TEXT, "pattern": "^[a-z0-9][a-z0-9._/-]*$", "description": "Defaults to the path under claims/."},
        "said": {**_TEXT, "description": "The sentence as printed (a short quote)."},
        "figure": {**_TEXT, "description": "The number exactly as printed, then its unit: '196,608 B/token'."},
        "check": {**_TEXT, "description": "A relation the text asserts: 'vram > weights + cache'."},
        "label": {"enum": list(LABELS)},
        "inputs": {"type": "object", "description": "name: literal ('2 B'), source#key [unit], or claim:<id>.",
                   "propertyNames": {"pattern": "^[A-Za-z][A-Za-z0-9_]{0,63}$"},
                   "additionalProperties": {"type": ["string", "number"]}},
        "assumptions": {"type": "object", "description": "Why each literal input holds.",
                        "additionalProperties": _TEXT},
        "compute": {"type": "object", "description": "Named steps in order; the last is the result.",
                    "propertyNames": {"pattern": "^[A-Za-z][A-Za-z0-9_]{0,63}$"},
                    "additionalProperties": {"type": ["string", "number"]}},
        "round": {"enum": list(ROUNDING)},
        "within": {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*%\s*$"},
        "bound": {"enum": list(BOUNDS)},
        "reading": {**_TEXT, "description": "The unit the author meant, when it differs from the printed one."},
        "erratum": {"type": "object", "required": ["reason", "recomputed"], "additionalProperties": False,
                    "properties": {"reason": _TEXT, "recomputed": _TEXT}},
        "cites": {"type": "array", "items": {"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*#[A-Za-z0-9_.-]+$"}},
        "notes": _TEXT,
        "probe": {"type": "object", "description": "Which measurement probe applies (see docs/format.md)."},
    }
    assert set(properties) == CLAIM_KEYS, "schema and loader disagree"
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://workings.invalid/schema/claim.json",
        "title": "workings claim record",
        "type": "object",
        "required": ["said", "label"],
        "oneOf": [{"required": ["figure"]}, {"required": ["check"]}],
        "additionalProperties": False,
        "properties": properties,
    }
