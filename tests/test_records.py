"""Records: round-trip, sources and snapshots, values read from prose, units."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import FULL_WINDOW, PER_TOKEN
from workings import units
from workings.errors import UnitError
from workings.models import Claim
from workings.sources import normalise
from workings.yamlio import load


@pytest.mark.parametrize("text", [PER_TOKEN, FULL_WINDOW])
def test_a_claim_round_trips(text):
    claim, problems = Claim.from_document(load(text.encode(), "claims/kv/x.yaml"), "kv/x")
    assert problems == []
    again, problems = Claim.from_document(load(yaml.safe_dump(claim.to_dict(), allow_unicode=True, sort_keys=False).encode(),
                                               "claims/kv/x.yaml"), "kv/x")
    assert problems == [] and again == claim
    assert claim.to_dict() == yaml.safe_load(text)


def test_lines_of_nested_keys_are_exact():
    doc = load(PER_TOKEN.encode(), "f.yaml")
    assert doc.line("figure") == 2
    assert doc.line("inputs", "heads") == 8
    assert doc.line("compute", "per_token") == 14
    assert doc.line("inputs", "nothing") == 4  # the nearest ancestor


def test_values_from_prose_need_their_passage_in_the_bytes(tmp_ledger):
    raw = "The report says: to 890 bytes per token, roughly 1/4 of V4-Flash.\n".encode()
    tmp_ledger.source("report", raw=raw, fmt="text", grade="transcription",
                      extra="values:\n  kv:\n    value: 890 B/token\n    passage: to 890 bytes per token\n"
                            "  ratio:\n    value: 1/4\n    passage: roughly 1/4 of V4-Flash\n")
    tmp_ledger.claim("d/kv", 'said: "890 bytes per token"\nfigure: 890 B/token\nlabel: vendor\n'
                     "inputs:\n  kv: report#kv\n  ratio: report#ratio\ncompute:\n  r: kv * ratio * 4\n")
    report = tmp_ledger.verify()
    claim = report.claim("d/kv")
    assert claim.status == "verified"
    assert claim.inputs[0].passage == "to 890 bytes per token" and claim.inputs[0].grade == "transcription"
    assert claim.grade == "transcription"


def test_a_text_excerpt_is_read_by_key_and_a_key_with_two_values_is_refused(tmp_ledger):
    tmp_ledger.source("cfg", raw=b'| "num_hidden_layers": 48, | |\n"hidden_size": 5120', fmt="text")
    tmp_ledger.source("two", raw=b'"num_hidden_layers": 48\n"num_hidden_layers": 50\n', fmt="text")
    tmp_ledger.claim("c/a", 'said: x is 48.\nfigure: "48"\nlabel: quoted\ninputs:\n  n: cfg#num_hidden_layers\ncompute:\n  r: n\n')
    tmp_ledger.claim("c/b", 'said: x is 48.\nfigure: "48"\nlabel: quoted\ninputs:\n  n: two#num_hidden_layers\ncompute:\n  r: n\n')
    report = tmp_ledger.verify()
    assert report.claim("c/a").status == "verified"
    assert report.claim("c/b").reason.startswith("key 'num_hidden_layers' has several values in snapshot")


def test_json_paths(tmp_ledger):
    tmp_ledger.source("idx", raw=b'{"metadata": {"total_size": 29540067328}, "weight_map": {}}')
    tmp_ledger.claim("w/gb", 'said: x is 29.5.\nfigure: 29.5 GB\nlabel: derived\ninputs:\n  size: idx#metadata.total_size B\n'
                     "compute:\n  r: size\n")
    assert tmp_ledger.verify().claim("w/gb").status == "verified"


def test_passages_compare_with_typography_normalised():
    assert normalise("“at least 320GB VRAM” — total\u00a0across  GPUs") == '"at least 320GB VRAM" - total across GPUs'


def test_units_are_dimensions_of_their_own():
    assert units.convert(units.quantity(192, "KiB/token"), "B/token") == 196608
    assert units.convert(units.quantity(1, "GB"), "B") == 10**9
    assert units.convert(units.quantity(1, "GiB"), "B") == 2**30
    assert units.convert(units.quantity(1, "byte"), "bit") == 8
    with pytest.raises(UnitError, match="ambiguous"):
        units.parse_unit("KB")
    with pytest.raises(UnitError):
        units.convert(units.quantity(1, "B"), "token")
    with pytest.raises(UnitError):
        units.convert(units.quantity(1, "parameter"), "")


def test_retrieved_on_must_be_quoted_and_the_error_says_so(tmp_ledger):
    tmp_ledger.source("s", "title: t\ngrade: unarchived\nretrieved: {on: 2026-11-01, how: x}\n")
    problems = [str(p) for p in tmp_ledger.verify().problems]
    assert problems == ["ledger/sources/s.yaml:3: retrieved: a key was read by YAML as the boolean True "
                        "(yes/no/on/off are booleans in YAML 1.1); put the key in quotes"]


def test_parameter_counts_kept_by_refresh_are_inputs(tmp_ledger):
    tmp_ledger.source("idx", raw=b'{"metadata": {"total_size": 29540067328}}',
                      extra="safetensors:\n  parameters:\n    BF16: 14770033664\n")
    tmp_ledger.claim("w/params", 'said: x is 14.8.\nfigure: 14.8 Gparameter\nlabel: derived\ninputs:\n'
                     "  n: idx#safetensors.parameters.BF16 parameter\ncompute:\n  r: n\n")
    tmp_ledger.claim("w/bytes", 'said: x is 29.5.\nfigure: 29.5 GB\nlabel: derived\ninputs:\n'
                     "  n: idx#safetensors.parameters.BF16 parameter\n  b: 2 B\nassumptions:\n  b: BF16\n"
                     "compute:\n  r: n * b / parameter\n")
    report = tmp_ledger.verify()
    assert report.claim("w/params").status == "verified"
    assert report.claim("w/bytes").status == "verified"


def test_a_value_needs_more_of_its_passage_than_the_number(tmp_ledger):
    tmp_ledger.source("bare", raw=b"hidden 5120 here", fmt="text", extra="values:\n  h:\n    value: 5120\n    passage: '5120'\n")
    assert [str(p) for p in tmp_ledger.verify().problems] == [
        "ledger/sources/bare.yaml:9: values.h.passage: quote the words around the number too, so a reader can "
        "see what it counts"]


def test_a_paraphrase_is_below_a_transcription_and_every_claim_on_one_shows_it(tmp_ledger):
    from workings.models import GRADES

    assert GRADES.index("transcription") < GRADES.index("paraphrase") < GRADES.index("unarchived")
    tmp_ledger.source("words", raw=b"The report says: to 890 bytes per token.\n", fmt="text", grade="transcription",
                      extra="values:\n  kv: {value: 890 B/token, passage: to 890 bytes per token}\n")
    tmp_ledger.source("note", raw=b"A note: the derivation gives 890 bytes per token in all.\n", fmt="text",
                      grade="paraphrase", extra="values:\n  kv: {value: 890 B/token, passage: 890 bytes per token in all}\n")
    tmp_ledger.claim("d/words", 'said: "890"\nfigure: 890 B/token\nlabel: vendor\ninputs:\n  kv: words#kv\ncompute:\n  r: kv\n')
    tmp_ledger.claim("d/both", 'said: "890"\nfigure: 890 B/token\nlabel: vendor\ninputs:\n  a: words#kv\n'
                     "  b: claim:d/note\ncompute:\n  r: (a + b) / 2\n")
    tmp_ledger.claim("d/note", 'said: "890"\nfigure: 890 B/token\nlabel: vendor\ninputs:\n  kv: note#kv\ncompute:\n  r: kv\n')
    report = tmp_ledger.verify()
    assert report.claim("d/words").grade == "transcription"
    assert report.claim("d/note").grade == "paraphrase"
    assert report.claim("d/both").grade == "paraphrase"  # through the claim it is built on


@pytest.mark.parametrize("on, ok", [("2026-11-29", True), ("2026-11-29T10:04:05Z", True), ("unknown", True),
                                    ("late 2026", False), ("sometime", False)])
def test_when_a_source_was_retrieved_is_a_date_or_unknown(tmp_ledger, on, ok):
    name = tmp_ledger.snapshot(b'"num_hidden_layers": 48\n', "txt")
    tmp_ledger.source("s", f'title: t\ngrade: copy\nsnapshot: {name}\nretrieved:\n  "on": "{on}"\n  how: x\n')
    problems = [p for p in tmp_ledger.verify().problems if p.file.endswith("s.yaml")]
    if ok:
        assert problems == []
    else:
        assert [(p.line, p.key) for p in problems] == [(5, "retrieved.on")]
        assert "'unknown'" in problems[0].message


def test_the_six_paraphrased_sources_of_this_ledger_are_graded_so():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "ledger" / "sources"
    six = ["deepseek-v41-flash-890-derivation", "deepseek-v4-flash-kv-table", "qwen25-14b-weights-total-size",
           "deepseek-api-pricing", "deepseek-price-summary-2026-10-27", "deepseek-v41-flash-inference"]
    assert {s: yaml.safe_load((root / f"{s}.yaml").read_text())["grade"] for s in six} == dict.fromkeys(six, "paraphrase")
