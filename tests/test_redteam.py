"""A corpus of hostile and broken records, each with the exact place its error must be reported.

Every record here gets one clear error naming file and line; the other claims still verify;
nothing in a record is executed; the run never hangs (each case runs in well under a second)."""

from __future__ import annotations

import pytest

from tests.conftest import PER_TOKEN

GOOD = "kv/per-token"

CORPUS = [
    ("invalid-yaml", "said: [unclosed\nfigure: 1 B\n",
     "claims/x/invalid-yaml.yaml:2: invalid YAML: did not find expected ',' or ']'"),
    ("alias-bomb", 'a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\nd: [*c,*c]\n',
     "claims/x/alias-bomb.yaml:1: anchors and aliases (&, *) are not allowed in records"),
    ("not-utf8", b"said: \xff\xfe\nfigure: 1 B\n",
     "claims/x/not-utf8.yaml:1: not UTF-8 (byte 6: 0xff)"),
    ("empty", "", "claims/x/empty.yaml:1: empty file: expected a mapping of keys"),
    ("a-list", "- said\n- figure\n", "claims/x/a-list.yaml:1: expected a mapping of keys, got a list"),
    ("unknown-unit", "said: x is 3.\nfigure: 3 B\nlabel: derived\ninputs:\n  a: 3 bogons\nassumptions:\n  a: y\ncompute:\n  r: a\n",
     "claims/x/unknown-unit.yaml:5: inputs.a: unknown unit 'bogons'"),
    ("dimension", "said: x is 3.\nfigure: 3 B\nlabel: derived\ninputs:\n  a: 3 B\nassumptions:\n  a: y\ncompute:\n  r: a + 2 * token\n",
     "claims/x/dimension.yaml:9: compute.r: step 'r': units do not agree: information and token"),
    ("figure-dimension", "said: x is 3.\nfigure: 3 B\nlabel: derived\ninputs:\n  a: 3 B\nassumptions:\n  a: y\ncompute:\n  r: a / token\n",
     "claims/x/figure-dimension.yaml:2: figure: B/token cannot be compared with B (information / token vs information)"),
    ("missing-source", "said: x is 3.\nfigure: '3'\nlabel: derived\ninputs:\n  a: nowhere#key\ncompute:\n  r: a\n",
     "claims/x/missing-source.yaml:5: inputs.a: unknown source 'nowhere' (no such source in ledger/sources/)"),
    ("missing-key", "said: x is 3.\nfigure: '3'\nlabel: derived\ninputs:\n  a: qwen#num_layers\ncompute:\n  r: a\n",
     "claims/x/missing-key.yaml:5: inputs.a: key 'num_layers' is not in snapshot"),
    ("import", "said: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  r: __import__('os').system('touch pwned')\n",
     "claims/x/import.yaml:5: compute.r: only these calls are allowed: abs, ceil, floor, max, min, round"),
    ("dunder-call", "said: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  r: __import__('os')\n",
     "claims/x/dunder-call.yaml:5: compute.r: only these calls are allowed: abs, ceil, floor, max, min, round"),
    ("attribute", "said: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  r: (1).__class__\n",
     "claims/x/attribute.yaml:5: compute.r: Attribute is not allowed in an expression"),
    ("huge-exponent", "said: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  r: 9 ** 9 ** 9\n",
     "claims/x/huge-exponent.yaml:5: compute.r: step 'r': exponents must be whole numbers between -64 and 64"),
    ("growth", "said: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  a: 10 ** 64\n  b: a ** 64\n",
     "claims/x/growth.yaml:6: compute.b: step 'b': the numbers grow beyond 4096 bits"),
    ("zero-division", "said: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  r: 1 / (2 - 2)\n",
     "claims/x/zero-division.yaml:5: compute.r: step 'r': division by zero"),
    ("wrong-type", "said: x is 196608.\nfigure: 196608\nlabel: derived\ncompute:\n  r: 1\n",
     "claims/x/wrong-type.yaml:2: figure: expected text (YAML read it as the number 196608; put the value in quotes)"),
    ("yaml11-no", "said: no\nfigure: '3'\nlabel: derived\ncompute:\n  r: 3\n",
     "claims/x/yaml11-no.yaml:1: said: expected text (YAML read it as a boolean; put the value in quotes)"),
    ("unknown-key", "said: x is 3.\nfigure: '3'\nlabel: derived\ncomptue:\n  r: 3\n",
     "claims/x/unknown-key.yaml:4: comptue: unknown key (expected one of: about, also_said, assumptions, bound, check, cites, "
     "compute, erratum, figure, id, inputs, label, notes, probe, reading, round, said, within)"),
    ("bad-label", "said: x is 3.\nfigure: '3'\nlabel: certain\n",
     "claims/x/bad-label.yaml:3: label: expected one of derived, quoted, estimate, bound, vendor, measured; got 'certain'"),
    ("literal-without-assumption", "said: x is 3.\nfigure: 3 B\nlabel: derived\ninputs:\n  a: 3 B\ncompute:\n  r: a\n",
     "claims/x/literal-without-assumption.yaml:5: inputs.a: a literal input needs an assumption saying why (assumptions: a: ...)"),
    ("duplicate-id", f"id: {GOOD}\nsaid: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  r: 3\n",
     "claims/x/duplicate-id.yaml:1: id: 'kv/per-token' is of the group 'kv', but the record is in 'x': a claim's "
     "group is its folder"),
    ("duplicate-key", "said: x\nsaid: y\nfigure: '3'\nlabel: derived\n",
     "claims/x/duplicate-key.yaml:2: key 'said' appears twice"),
    ("unknown-name", "said: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  r: layers * 2\n",
     "claims/x/unknown-name.yaml:5: compute.r: step 'r': unknown name 'layers': not an input, an earlier step or a unit"),
    ("missing-claim", "said: x is 3.\nfigure: '3'\nlabel: derived\ninputs:\n  a: claim:x/nothing\ncompute:\n  r: a\n",
     "claims/x/missing-claim.yaml:5: inputs.a: claim:x/nothing: no such claim"),
    ("both-figure-and-check", "said: x is 3.\nfigure: '3'\ncheck: a > 1\nlabel: derived\n",
     "claims/x/both-figure-and-check.yaml:1: expected exactly one of 'figure' (a number as printed) and 'check' (a relation)"),
    ("ambiguous-input-unit", "said: x is 3.\nfigure: '3'\nlabel: derived\ninputs:\n  a: 3 KB\nassumptions:\n  a: y\ncompute:\n  r: a\n",
     "claims/x/ambiguous-input-unit.yaml:5: inputs.a: unit 'KB' is ambiguous: 'KB' may mean kB (1000 B) or KiB (1024 B)"),
    ("deep-nesting", "said: x is 3.\nfigure: '3'\nlabel: derived\ncompute:\n  r: " + "-" * 80 + "1\n",
     "claims/x/deep-nesting.yaml:5: compute.r: expression is nested deeper than 50 levels"),
    ("unused-input", "said: x is 3.\nfigure: '3'\nlabel: derived\ninputs:\n  a: qwen#num_hidden_layers\n  b: qwen#hidden_size\ncompute:\n  r: a\n",
     "claims/x/unused-input.yaml:6: inputs.b: no step and no check uses this input (a typo, or left over?)"),
    ("bad-cite", "said: x is 3.\nfigure: '3'\nlabel: derived\ncites: [qwen#nothing]\ncompute:\n  r: 3\n",
     "claims/x/bad-cite.yaml:4: cites.0: cites qwen#nothing: source 'qwen' has no passage 'nothing'"),
]


@pytest.mark.parametrize("name,text,expected", CORPUS, ids=[c[0] for c in CORPUS])
def test_each_broken_record_names_its_place_and_the_rest_still_verifies(tmp_ledger, name, text, expected):
    tmp_ledger.source("qwen")
    tmp_ledger.claim(GOOD, PER_TOKEN)
    tmp_ledger.claim(f"x/{name}", text)
    report = tmp_ledger.verify()
    good = report.claim(GOOD)
    assert good is not None and good.status == "verified"
    assert report.exit_code == 2
    bad = [c for c in report.claims if c.file == f"claims/x/{name}.yaml"]
    assert len(bad) == 1 and bad[0].status == "error"
    errors = [f"{m.file}:{m.line}: {m.key + ': ' if m.key else ''}{m.text}" for m in bad[0].messages if m.kind == "error"]
    assert any(e.startswith(expected) for e in errors), errors
    assert not (tmp_ledger.root / "pwned").exists()


def test_a_cycle_is_an_error_for_every_claim_on_it(tmp_ledger):
    tmp_ledger.claim("c/a", "said: x is 3.\nfigure: '3'\nlabel: derived\ninputs:\n  b: claim:c/b\ncompute:\n  r: b\n")
    tmp_ledger.claim("c/b", "said: x is 3.\nfigure: '3'\nlabel: derived\ninputs:\n  a: claim:c/a\ncompute:\n  r: a\n")
    report = tmp_ledger.verify()
    assert {c.id: c.reason for c in report.claims} == {
        "c/a": "claims form a cycle: c/a -> c/b -> c/a", "c/b": "claims form a cycle: c/a -> c/b -> c/a"}


SOURCE_CORPUS = [
    ("bad-sha", lambda t: t.source("bad", "title: t\ngrade: copy\nsnapshot: " + "0" * 64 + ".json\n"),
     "ledger/sources/bad.yaml:3: snapshot: no file ledger/snapshots/" + "0" * 64 + ".json"),
    ("tampered", None, "ledger/sources/tampered.yaml:3: snapshot: snapshot "),
    ("passage-missing", lambda t: t.source("passage-missing", extra="passages:\n  p: not in the bytes\n"),
     "ledger/sources/passage-missing.yaml:7: passages.p: passage does not occur in the snapshot"),
    ("javascript-url", lambda t: t.source("javascript-url", "title: t\ngrade: unarchived\nurl: javascript:alert(1)\n"),
     "ledger/sources/javascript-url.yaml:3: url: expected an http(s) URL; got 'javascript:alert(1)'"),
    ("value-not-in-passage", lambda t: t.source("value-not-in-passage", raw=b"we store 890 bytes per token", fmt="text",
                                                 extra="values:\n  v:\n    value: 980 B/token\n    passage: 890 bytes per token\n"),
     "ledger/sources/value-not-in-passage.yaml:9: values.v.passage: the passage does not state the number 980"),
    ("grade", lambda t: t.source("grade", "title: t\ngrade: official\n"),
     "ledger/sources/grade.yaml:2: grade: expected one of primary, copy, transcription, paraphrase, unarchived; got 'official'"),
]


@pytest.mark.parametrize("name,write,expected", SOURCE_CORPUS, ids=[c[0] for c in SOURCE_CORPUS])
def test_broken_sources_name_their_place(tmp_ledger, name, write, expected):
    tmp_ledger.qwen()
    if write is None:  # a snapshot whose bytes changed after it was named
        snap = tmp_ledger.snapshot(b'{"a": 1}')
        (tmp_ledger.root / "ledger" / "snapshots" / snap).write_bytes(b'{"a": 2}')
        tmp_ledger.source(name, f"title: t\ngrade: copy\nsnapshot: {snap}\nformat: json\n")
    else:
        write(tmp_ledger)
    report = tmp_ledger.verify()
    assert [str(p) for p in report.problems if str(p).startswith(expected)], [str(p) for p in report.problems]
    assert report.claim(GOOD).status == "verified"
    assert report.exit_code == 2


def test_a_claim_on_a_broken_source_is_an_error_naming_it(tmp_ledger):
    tmp_ledger.qwen()
    (tmp_ledger.root / "ledger" / "sources" / "qwen.yaml").write_text("title: t\ngrade: nonsense\n")
    report = tmp_ledger.verify()
    assert report.claim(GOOD).reason == "unknown source 'qwen' (its record is invalid)"
    assert report.claim("kv/full-window").reason == "input claim 'kv/per-token' has an error"
