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
    'said: x is 3.\nfigure: "3"\ncheck: a > b\nlabel: derived\n',   # both
    'said: x is 3.\nfigure: "3"\nlabel: certain\n',                 # unknown label
    'said: x is 3.\nfigure: "3"\nlabel: derived\ncomptue: {}\n',    # a typo'd key
    'said: x is 3.\nfigure: "3"\nlabel: derived\nround: up\n',
    'said: x is 3.\nfigure: "3"\nlabel: derived\nwithin: five\n',
])
def test_records_of_the_wrong_shape_are_refused(text):
    assert list(VALIDATOR.iter_errors(yaml.safe_load(text))) != []


# --- every schema, held to the loader's verdict both ways -------------------------------------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from click.testing import CliRunner  # noqa: E402

from workings.cli import main  # noqa: E402
from workings.schema import KINDS, dumps, schema_for  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
VALIDATORS = {kind: Draft202012Validator(schema_for(kind)) for kind in KINDS}


def _yaml(path: Path):
    """As the loader reads it (dates stay text, as a YAML 1.2 editor reads them)."""
    from workings.yamlio import load

    return load(path.read_bytes(), str(path)).data


@pytest.mark.parametrize("kind", KINDS)
def test_each_schema_is_valid_has_a_stable_id_and_is_committed_as_printed(kind):
    schema = schema_for(kind)
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"https://workings.invalid/schema/{kind}.json"
    assert (REPO / "schemas" / f"{kind}.json").read_text(encoding="utf-8") == dumps(kind), \
        f"schemas/{kind}.json is stale: workings schema {kind} > schemas/{kind}.json"
    result = CliRunner().invoke(main, ["schema", kind])
    assert result.exit_code == 0 and json.loads(result.output) == schema


def test_every_record_of_this_repository_validates():
    """The loader accepts every record here (verify exits 0 in CI), so the schemas must too."""
    folders = {"claim": "claims", "source": "ledger/sources", "measurement": "ledger/measurements"}
    seen = 0
    for kind, folder in folders.items():
        for path in sorted((REPO / folder).rglob("*.yaml")):
            errors = [e.message for e in VALIDATORS[kind].iter_errors(_yaml(path))]
            assert errors == [], f"{path.relative_to(REPO)}: {errors}"
            seen += 1
    assert seen > 100


def test_the_editor_settings_map_each_folder_to_its_schema():
    settings = json.loads((REPO / ".vscode" / "settings.json").read_text(encoding="utf-8"))
    mapping = settings["yaml.schemas"]
    assert mapping == {"./schemas/claim.json": "claims/**/*.yaml", "./schemas/source.json": "ledger/sources/*.yaml",
                       "./schemas/measurement.json": "ledger/measurements/**/*.yaml"}
    for schema_path in mapping:
        assert (REPO / schema_path).is_file()


# Claim records the loader refuses for their shape; the schema must refuse each too.
REFUSED_BY_BOTH = [
    'said: "   "\nfigure: 196,608 B/token\nlabel: derived\ninputs: {layers: qwen#num_hidden_layers}\ncompute: {r: layers}\n',
    'said: x is 3.\nfigure: "3"\nlabel: bound\nwithin: 5%\nbound: at-most\ninputs: {layers: qwen#num_hidden_layers}\n'
    'compute: {r: layers}\n',
    'said: x is 48.\nfigure: "48"\nlabel: derived\nprobe: {kind: guess}\ninputs: {layers: qwen#num_hidden_layers}\n'
    'compute: {r: layers}\n',
    'said: x\nfigure: about one hundred\nlabel: derived\ninputs: {layers: qwen#num_hidden_layers}\ncompute: {r: layers}\n',
    'said: x is 48.\nfigure: "48"\nlabel: derived\nnotes: no\ninputs: {layers: qwen#num_hidden_layers}\ncompute: {r: layers}\n',
    'id: a/../b\nsaid: x is 48.\nfigure: "48"\nlabel: derived\ninputs: {layers: qwen#num_hidden_layers}\ncompute: {r: layers}\n',
    'said: x is 48.\nfigure: "48"\nlabel: derived\ninputs: {layers: qwen#num_hidden_layers}\ncompute: {r: layers}\nround: up\n',
    'said: x is 48.\nfigure: "48"\nlabel: derived\ninputs: {layers: qwen#num_hidden_layers}\ncompute: {r: layers}\n'
    'within: 100%\n',  # no approximation: anything from 0 to twice the figure would hold
]
ACCEPTED_BY_BOTH = [
    'said: "Its config.json gives 48 layers."\nfigure: "48"\nlabel: quoted\ninputs: {layers: qwen#num_hidden_layers}\n'
    'compute: {r: layers}\nnotes: "Read from the config."\n',
    'said: "48 layers, at most."\nfigure: "48"\nlabel: bound\nbound: at-most\ninputs: {layers: qwen#num_hidden_layers}\n'
    'compute: {r: layers}\n',
    'said: "48 layers, roughly."\nfigure: "48"\nlabel: estimate\nwithin: 5%\ninputs: {layers: qwen#num_hidden_layers}\n'
    'compute: {r: layers}\n',
]


def _loader_refuses(tmp_ledger, text: str) -> bool:
    tmp_ledger.source("qwen")
    tmp_ledger.claim("kv/case", text)
    report = tmp_ledger.verify()
    return report.claim("kv/case") is None or report.claim("kv/case").status == "error" or bool(report.problems)


@pytest.mark.parametrize("text", REFUSED_BY_BOTH)
def test_schema_and_loader_both_refuse(tmp_ledger, text):
    assert list(VALIDATORS["claim"].iter_errors(yaml.safe_load(text))) != []
    assert _loader_refuses(tmp_ledger, text)


@pytest.mark.parametrize("text", ACCEPTED_BY_BOTH)
def test_schema_and_loader_both_accept(tmp_ledger, text):
    assert [e.message for e in VALIDATORS["claim"].iter_errors(yaml.safe_load(text))] == []
    assert not _loader_refuses(tmp_ledger, text)


@pytest.mark.parametrize("text, refused", [
    ("title: t\ngrade: copy\n", True),                                   # a copy needs its snapshot
    ("title: t\ngrade: unarchived\nurl: https://example.org/a\n", False),
    ("title: t\ngrade: unarchived\nurl: ftp://example.org/a\n", True),   # http(s) only
    ("title: t\ngrade: official\nurl: https://example.org/a\n", True),   # unknown grade
    ("title: t\ngrade: unarchived\nretrieved: {on: 2026-11-30}\n", True),  # YAML 1.1: bare on is true
    (f"title: t\ngrade: primary\nsnapshot: {'a' * 64}.txt\n", True),    # primary names its commit
    (f"title: t\ngrade: primary\nsnapshot: {'a' * 64}.txt\nretrieved: {{commit: abc123}}\n", True),
])
def test_source_schema_and_loader_agree(tmp_ledger, text, refused):
    assert bool(list(VALIDATORS["source"].iter_errors(yaml.safe_load(text)))) == refused
    tmp_ledger.source("case", text)
    report = tmp_ledger.verify()
    assert bool([p for p in report.problems if "case.yaml" in p.file]) == refused


def test_check_jsonschema_agrees_on_this_repository_and_refuses_a_bad_record(tmp_path):
    """The ecosystem's own validator (check-jsonschema, as editors' CI runs it) on the committed schemas."""
    import subprocess
    import sys

    def check(kind: str, files: list[Path]) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "check_jsonschema", "--schemafile",
                               str(REPO / "schemas" / f"{kind}.json"), *map(str, files)], capture_output=True, text=True)

    for kind, folder in {"claim": "claims", "source": "ledger/sources", "measurement": "ledger/measurements"}.items():
        done = check(kind, sorted((REPO / folder).rglob("*.yaml")))
        assert done.returncode == 0, done.stdout + done.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text('said: x\nfigure: about one hundred\nlabel: derived\nnotes: no\n', encoding="utf-8")
    done = check("claim", [bad])
    assert done.returncode == 1 and "bad.yaml" in done.stdout
