"""JSON Schemas of the record formats, for YAML editors (yaml-language-server and others) and for
check-jsonschema in CI: claims, sources and measurements.

Each mirrors its loader (``models.Claim.from_document``, ``sources.Source.from_document``,
``measurements.Measurement.from_dict``) and is built from the loader's own constants, so a key or a
choice added there shows up here. Editors read YAML 1.2, where ``no`` and ``on`` are strings; the
loader reads YAML 1.1, where they are booleans, so text fields refuse those words here too (quote
them). A schema cannot see quotes, so a quoted ``"no"`` is refused here though the loader takes
it: the one place where the two verdicts differ, and on the safe side. ``tests/test_schema.py`` holds schema and loader to the same verdict on a corpus of records.

Each schema has a stable ``$id`` (``SCHEMA_BASE`` + name): an identifier, not a download address.
"""

from __future__ import annotations

from typing import Any

from .measurements import DEVICE_TYPES, PROBES, RELATIONS
from .measurements import FORMAT as MEASUREMENT_FORMAT
from .models import BOUNDS, CLAIM_ID, CLAIM_KEYS, GRADES, LABELS, ROUNDING
from .probespec import KINDS as PROBE_KINDS
from .sources import FORMATS, SOURCE_KEYS

SCHEMA_BASE = "https://workings.invalid/schema/"
KINDS = ("claim", "source", "measurement")

# Plain words that YAML 1.1 (the loader) reads as booleans; a YAML 1.2 editor would take them as text.
_YAML11_BOOLEANS = ["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE",
                    "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"]
_TEXT = {"type": "string", "pattern": r"\S", "not": {"enum": _YAML11_BOOLEANS}}
_NAME = {"pattern": "^[A-Za-z][A-Za-z0-9_]{0,63}$"}
# A figure starts with its number (ASCII digits: other scripts are refused by the loader).
_FIGURE_PATTERN = r"^\s*[-+−]?([0-9]|\.[0-9])"


def _text(description: str | None = None, **extra: Any) -> dict[str, Any]:
    out = {**_TEXT, **extra}
    if description:
        out["description"] = description
    return out


def _document(kind: str, title: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{SCHEMA_BASE}{kind}.json",
            "title": title, **body}


def claim_schema() -> dict[str, Any]:
    properties = {
        "id": _text("Defaults to the path under claims/.", pattern=f"^{CLAIM_ID.pattern}$"),
        "said": _text("The sentence as printed (a short quote)."),
        "also_said": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 2000},
                      "description": "Other sentences of the text, as printed, that repeat this very figure."},
        "about": _text("The model the claim is about, as named, with its version or size ('DeepSeek-V4.1-Flash'), "
                       "where the id names none: check-draft holds a draft's sentence to that model.", maxLength=120,
                       pattern=r"^(?=[^\n]*[A-Za-z])(?=[^\n]*\d)[^\n]{2,120}$"),
        "figure": _text("The number exactly as printed, then its unit: '196,608 B/token'.",
                        allOf=[{"pattern": _FIGURE_PATTERN}]),
        "check": _text("A relation the text asserts: 'vram > weights + cache'."),
        "label": {"enum": list(LABELS)},
        "inputs": {"type": "object", "description": "name: literal ('2 B'), source#key [unit], dtype:source#key (bytes per value), or claim:<id>.",
                   "propertyNames": _NAME, "additionalProperties": {"type": ["string", "number"]}},
        "assumptions": {"type": "object", "description": "Why each literal input holds.",
                        "propertyNames": _NAME, "additionalProperties": _TEXT},
        "compute": {"type": "object", "description": "Named steps in order; the last is the result.",
                    "propertyNames": _NAME, "additionalProperties": {"type": ["string", "number"]}},
        "round": {"enum": list(ROUNDING)},
        "within": {"type": "string", "pattern": r"^\s*0*(20(\.0+)?|1?[0-9](\.[0-9]+)?)\s*%\s*$",
                   "description": "A tolerance, at most 20% (models.MAX_WITHIN)."},
        "bound": {"enum": list(BOUNDS)},
        "reading": _text("The unit the author meant, when it differs from the printed one."),
        "erratum": {"type": "object", "required": ["reason", "recomputed"], "additionalProperties": False,
                    "properties": {"reason": _TEXT, "recomputed": _TEXT}},
        "cites": {"type": "array", "items": {"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*#[A-Za-z0-9_.-]+$"}},
        "notes": _TEXT,
        "probe": {"type": "object", "description": "Which measurement probe applies (see docs/format.md).",
                  "required": ["kind"], "properties": {"kind": {"enum": list(PROBE_KINDS)}}},
    }
    assert set(properties) == CLAIM_KEYS, "schema and loader disagree"
    return _document("claim", "workings claim record", {
        "type": "object",
        "required": ["said", "label"],
        "oneOf": [{"required": ["figure"]}, {"required": ["check"]}],
        "not": {"required": ["within", "bound"]},  # the loader: give either within: or bound:, not both
        "additionalProperties": False,
        "properties": properties,
    })


def source_schema() -> dict[str, Any]:
    properties = {
        "title": _text("What the source is, as a reader would name it."),
        "publisher": _text(),
        "date": _text("When the source was published, where known."),
        "url": {"type": "string", "pattern": "^https?://", "description": "Where the source lives (http or https)."},
        "hub": {"type": "object", "required": ["repo", "file"], "additionalProperties": False,
                "properties": {"repo": _TEXT, "file": _TEXT, "revision": _TEXT}},
        "grade": {"enum": list(GRADES), "description": "How sure: what was seen and archived (most to least certain)."},
        "retrieved": {"type": "object", "additionalProperties": False,
                      "properties": {"on": _TEXT, "how": _TEXT,
                                     "commit": {"type": "string", "pattern": "^([0-9a-f]{40}|[0-9a-f]{64})$",
                                                "description": "The commit the archived bytes were read at."},
                                     "url": {"type": "string", "pattern": "^https?://"}}},
        "snapshot": {"type": "string", "pattern": "^[0-9a-f]{64}\\.[a-z0-9]{1,10}$",
                     "description": "<sha256 of the archived bytes>.<ext>, a file in ledger/snapshots/."},
        "format": {"enum": list(FORMATS)},
        "values": {"type": "object", "description": "Numbers read from prose, each with the passage that states it.",
                   "propertyNames": {"pattern": "^[A-Za-z0-9_.-]+$"},
                   "additionalProperties": {"type": "object", "required": ["value", "passage"],
                                            "additionalProperties": False,
                                            "properties": {"value": {"type": ["string", "number"]},
                                                           "passage": _TEXT}}},
        "passages": {"type": "object", "propertyNames": {"pattern": "^[A-Za-z0-9_.-]+$"},
                     "additionalProperties": _TEXT},
        "notes": _TEXT,
        "safetensors": {"type": "object", "description": "Written by refresh: parameter counts by dtype."},
    }
    assert set(properties) == SOURCE_KEYS, "schema and loader disagree"
    return _document("source", "workings source record", {
        "type": "object",
        "required": ["title", "grade"],
        "additionalProperties": False,
        "properties": properties,
        # an unarchived source has no snapshot, values or passages; every other grade needs a snapshot
        "if": {"properties": {"grade": {"const": "unarchived"}}},
        "then": {"not": {"anyOf": [{"required": ["snapshot"]}, {"required": ["values"]}, {"required": ["passages"]}]}},
        "else": {"required": ["snapshot"]},
        # the official bytes are pinned: a primary source names the commit they were read at
        "allOf": [{"if": {"properties": {"grade": {"const": "primary"}}},
                   "then": {"required": ["retrieved"], "properties": {"retrieved": {"required": ["commit"]}}}}],
    })


def measurement_schema() -> dict[str, Any]:
    value = {"type": "object", "required": ["value", "unit"], "additionalProperties": False,
             "properties": {"value": {"type": ["string", "integer"], "pattern": "^-?[0-9]{1,200}(/[1-9][0-9]{0,199})?$"},
                            "unit": {"type": "string"}}}
    return _document("measurement", "workings measurement record (written by workings probe)", {
        "type": "object",
        "required": ["format", "claim", "probe", "measures", "result", "estimate", "relation", "device",
                     "software", "command", "date", "samples"],
        "additionalProperties": False,
        "properties": {
            "format": {"const": MEASUREMENT_FORMAT},
            "claim": {"type": "string", "pattern": f"^{CLAIM_ID.pattern}$"},
            "probe": {"enum": list(PROBES)},
            "measures": _TEXT,
            "result": value,
            "estimate": value,
            "relation": {"enum": list(RELATIONS)},
            "tolerance": {"type": ["string", "integer"]},
            "device": {"type": "object", "required": ["type", "name", "allocator"], "additionalProperties": False,
                       "properties": {"type": {"enum": list(DEVICE_TYPES)}, "name": _TEXT,
                                      "memory_bytes": {"type": ["integer", "null"]}, "allocator": _TEXT}},
            "software": {"type": "object", "required": ["torch", "python"], "additionalProperties": False,
                         "properties": {"torch": _TEXT, "python": _TEXT, "cuda": {"type": ["string", "null"]},
                                        "driver": {"type": ["string", "null"]}}},
            "command": _TEXT,
            "date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "samples": {"type": "array", "minItems": 1, "items": {"type": "object"}},
            "details": {"type": "object"},
        },
    })


def schema_for(kind: str) -> dict[str, Any]:
    return {"claim": claim_schema, "source": source_schema, "measurement": measurement_schema}[kind]()



def dumps(kind: str) -> str:
    """The schema as the committed file holds it (schemas/<kind>.json)."""
    import json

    return json.dumps(schema_for(kind), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
