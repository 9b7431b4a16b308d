"""A claim's line of the JSON report, made from the JSON text of its parts.

``written.dump(claim.to_dict())`` is the contract: sorted keys, no spaces, text made safe. Made
that way, each of 10,000 lines built a tree of about 60 dicts and lists and encoded all of it,
though most of a claim is shared with other claims: an input read from a source is one
``InputResult`` for every record that writes it, a displayed value one ``Quantity`` for every step
that shows it. Here each shared part is encoded once and kept on its (frozen) object, and a line
is those texts joined in the same order with the same separators: JSON without spaces is the
concatenation of its parts' texts, so the line is byte for byte what encoding the whole tree gives.
``safetext.json_text`` is applied to the whole line, as before. ``tests/test_json_line.py`` holds
the two equal on this repository's ledger, generated ledgers and broken records, and holds the keys
written here to ``to_dict``'s.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring as _e
from typing import TYPE_CHECKING, Any

from . import safetext

if TYPE_CHECKING:
    from .dependence import Dependence
    from .report import ClaimResult, Comparison, InputResult, Quantity, StepResult

# json.dumps with these arguments builds a JSONEncoder per call; one made once encodes the same
_encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def value(item: Any) -> str:
    """``item``'s JSON text, as ``json.dumps(item, sort_keys=True, ensure_ascii=False,
    separators=(",", ":"))`` writes it (text and None without the encoder's set-up)."""
    if type(item) is str:
        return _e(item)
    if item is None:
        return "null"
    if type(item) is int:
        return int.__repr__(item)  # as the encoder writes an int
    if type(item) is bool:
        return "true" if item else "false"
    return _encode(item)


def quantity(q: Quantity | None) -> str:
    if q is None:
        return "null"
    made = q.__dict__.get("_json")  # once per Quantity: the engine shares one between records
    if made is None:
        made = q.__dict__["_json"] = '{"display":%s,"exact":%s,"unit":%s,"value":%s}' % _top(q)
    return made


def input_result(i: InputResult) -> str:
    made = i.__dict__.get("_json")  # once per InputResult: records that write the same input share one
    if made is None:
        made = i.__dict__["_json"] = (
            f'{{"assumption":{value(i.assumption)},"claim":{value(i.claim)},'
            f'"claim_status":{value(i.claim_status)},"grade":{value(i.grade)},"key":{value(i.key)},'
            f'"kind":{value(i.kind)},"name":{value(i.name)},"passage":{value(i.passage)},'
            f'"result":{quantity(i.result)},"source":{value(i.source)},"text":{value(i.text)}}}')
    return made


def step(s: StepResult) -> str:
    made = s.__dict__.get("_json")  # once per StepResult: records that compute a step alike share one
    if made is None:
        made = s.__dict__["_json"] = (f'{{"expression":{_e(s.expression)},"line":{value(s.line)},'
                                      f'"name":{_e(s.name)},"result":{quantity(s.result)}}}')
    return made


def comparison(c: Comparison | None) -> str:
    if c is None:
        return "null"
    return (f'{{"holds":{value(c.holds)},"printed":{_e(c.printed)},"recomputed":{quantity(c.recomputed)},'
            f'"rule":{_e(c.rule)},"unit":{_e(c.unit)}}}')


def dependence(d: Dependence | None) -> str:
    if d is None:
        return "null"
    made = d.__dict__.get("_json")  # once per Dependence: claims that compute alike share one (``dependence.analyse``)
    if made is None:
        made = d.__dict__["_json"] = (f'{{"assumed":{_texts(d.assumed)},"basis":{_e(d.basis)},'
                                      f'"sourced":{_texts(d.sourced)},"stating":{_texts(d.stating)},'
                                      f'"unused":{_texts(d.unused)}}}')
    return made


def _texts(items) -> str:
    """A list of texts (names, ids, sentences): json's C function for each (TypeError for anything else)."""
    return f"[{','.join(map(_e, items))}]" if items else "[]"


def _list(texts) -> str:
    return f"[{','.join(texts)}]"


def _dicts(items) -> str:
    return _list(_encode(item.to_dict()) for item in items) if items else "[]"


def claim_text(c: ClaimResult) -> str:
    """The claim's JSON text before ``safetext.json_text``: ``json.dumps(c.to_dict(), ...)``.

    Its text fields are encoded by json's own C function, called inline (``_e``; "null" for None); a
    field holding anything else raises TypeError there, and ``claim_line`` encodes that claim's
    whole tree instead."""
    r = c.result
    top = _NO_RESULT if r is None else _top(r)
    return (
        f'{{"about":{"null" if c.about is None else _e(c.about)},"also_said":{_texts(c.also_said)},"basis":{_e(c.basis)},'
        f'"check":{"null" if c.check is None else _e(c.check)},"cites":{_dicts(c.cites)},'
        f'"comparison":{comparison(c.comparison)},"dependence":{dependence(c.dependence)},'
        f'"display":{top[0]},"erratum":{value(c.erratum)},"exact":{top[1]},'
        f'"figure":{"null" if c.figure is None else _e(c.figure)},"file":{_e(c.file)},'
        f'"grade":{"null" if c.grade is None else _e(c.grade)},"group":{_e(c.group)},'
        f'"id":{_e(c.id)},"inputs":{_list(map(input_result, c.inputs))},'
        f'"label":{"null" if c.label is None else _e(c.label)},'
        f'"line":{value(c.line)},"measurements":{_dicts(c.measurements)},"messages":{_dicts(c.messages)},'
        f'"notes":{"null" if c.notes is None else _e(c.notes)},"reason":{_e(c.reason)},'
        f'"said":{"null" if c.said is None else _e(c.said)},'
        f'"sources":{_texts(c.sources)},"status":{_e(c.status)},'
        f'"steps":{_list(map(step, c.steps))},"unit":{top[2]},'
        f'"used_by":{_texts(c.used_by)},"uses":{_texts(c.uses)},'
        f'"value":{top[3]}}}')


_NO_RESULT = ("null",) * 4


def _top(r: Quantity) -> tuple[str, str, str, str]:
    """The texts of a Quantity's display, exact, unit and value (``Quantity.to_dict``, in its keys'
    order): its JSON, and the claim's own display, exact, unit and value for its result."""
    made = r.__dict__.get("_top")
    if made is None:
        d = r.to_dict()
        made = r.__dict__["_top"] = (value(d["display"]), value(d["exact"]), value(d["unit"]), value(d["value"]))
    return made


def claim_line(c: ClaimResult) -> bytes:
    """The claim's line of the JSON report, UTF-8, without its comma and newline."""
    try:
        text = claim_text(c)
    except TypeError:  # a field that is not what its type says: the whole tree, as json.dumps writes it
        text = _encode(c.to_dict())
    return safetext.json_text(text).encode("utf-8")
