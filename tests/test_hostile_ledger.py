"""Hostile records, second wave (issue 11, the records side): each case builds its hostile input here
and asserts the exact outcome: exit code, the message naming file, line and key, no traceback, work
bounded by the size of the input (counted, never timed), and nothing written outside the ledger."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FULL_WINDOW, PER_TOKEN, TmpLedger

# literal inputs only: an estimate, the label that may rest on a stated assumption alone
OK = 'said: "It is 1 B."\nfigure: "1 B"\nlabel: estimate\ninputs:\n  b: 1 B\nassumptions: {b: y}\ncompute:\n  a: b\n'


def run(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess (a hang would stop at the timeout and fail the test)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1] / "src"),
                                                        os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "workings", *args, "--root", str(root)], capture_output=True,
                          text=True, timeout=60, cwd=cwd or root, env=env)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]
    assert "this is a bug in workings" not in done.stdout
    return done


def ledger(tmp_path: Path, **claims: str) -> TmpLedger:
    led = TmpLedger(tmp_path / "root")
    led.claim("t/ok", OK)
    for name, text in claims.items():
        led.claim(f"t/{name}", text)
    return led


def files_under(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


# --- unit powers: one parser with the cap, wherever a record writes a unit ---------------------------

POWER = "unit {unit!r}: a unit may be raised only to a whole power between -8 and 8 (B^2, B**2), written once"

POWER_CASES = {
    # name: (record, line, key, unit)
    "figure": ('said: "x is 1."\nfigure: "1 kB^100000000/B^100000000"\nlabel: estimate\ninputs:\n  b: 1 B\n'
               "assumptions: {b: y}\ncompute:\n  a: b / B\n", 2, "figure", "kB^100000000/B^100000000"),
    "figure-token-power": ('said: "x is 1."\nfigure: "1 B/token**1000"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                           "assumptions: {b: y}\ncompute:\n  a: b\n", 2, "figure", "B/token**1000"),
    "figure-power-of-power": ('said: "x is 1."\nfigure: "1 B^(9^9^9)"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                              "assumptions: {b: y}\ncompute:\n  a: b\n", 2, "figure", "B^(9^9^9)"),
    "figure-grouped-power": ('said: "x is 1."\nfigure: "1 (B^8)^8"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                             "assumptions: {b: y}\ncompute:\n  a: b\n", 2, "figure", "(B^8)^8"),
    "figure-fractional-power": ('said: "x is 1."\nfigure: "1 B^0.5"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                                "assumptions: {b: y}\ncompute:\n  a: b\n", 2, "figure", "B^0.5"),
    "literal-input": ('said: "x is 1."\nfigure: "1"\nlabel: estimate\ninputs:\n  b: 1 kB^100000000/B^100000000\n'
                      "assumptions: {b: y}\ncompute:\n  a: b\n", 5, "inputs.b", "kB^100000000/B^100000000"),
    "source-key-unit": ('said: "x is 1."\nfigure: "1"\nlabel: derived\ninputs:\n'
                        "  b: qwen#num_hidden_layers kB^100000000/B^100000000\ncompute:\n  a: b\n",
                        5, "inputs.b", "kB^100000000/B^100000000"),
    "reading": ('said: "x is 1."\nfigure: "1 kB"\nlabel: derived\nreading: kB^100000000/B^99999999\ninputs:\n'
                "  b: 1 kB\nassumptions: {b: y}\ncompute:\n  a: b\n", 4, "reading", "kB^100000000/B^99999999"),
    "erratum-recomputed": ('said: "x is 2."\nfigure: "2 B"\nlabel: estimate\ninputs:\n  b: 1 B\nassumptions: {b: y}\n'
                           "compute:\n  a: b\nerratum:\n  reason: a slip\n  recomputed: 1 kB^100000000/B^99999999\n",
                           11, "erratum.recomputed", "kB^100000000/B^99999999"),
}


@pytest.mark.parametrize("case", sorted(POWER_CASES))
def test_a_huge_unit_power_is_one_error_at_its_key(tmp_path, case):
    record, line, key, unit = POWER_CASES[case]
    led = ledger(tmp_path, h=record)
    led.source("qwen")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"claims/t/h.yaml:{line}: {key}: {POWER.format(unit=unit)}" in done.stdout
    assert "1 claims" not in done.stdout and "verified" in done.stdout  # the good claim still verifies


def test_a_source_value_with_a_huge_unit_power_is_refused_at_its_key(tmp_path):
    led = ledger(tmp_path)
    name = led.snapshot(b"The cache takes 890 bytes per token in total.\n", "txt")
    led.source("prose", f"title: t\ngrade: transcription\nsnapshot: {name}\nvalues:\n"
                        "  v: {value: 890 B^99/token, passage: 890 bytes per token in total}\n")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"ledger/sources/prose.yaml:5: values.v.value: {POWER.format(unit='B^99/token')}" in done.stdout


def test_a_huge_unit_power_ends_show_render_and_check_draft_too(tmp_path):
    record = POWER_CASES["figure"][0]
    led = ledger(tmp_path, h=record)
    shown = run(led.root, "show", "t/h")
    assert shown.returncode == 2 and "(claims/t/h.yaml:2 figure)" in shown.stdout
    assert "error: unit 'kB^100000000/B^100000000': a unit may be raised" in shown.stdout
    site = tmp_path / "site"
    rendered = run(led.root, "render", "--out", str(site))
    assert rendered.returncode == 0 and (site / "index.html").is_file()
    assert "a unit may be raised only to a whole power" in (site / "claims" / "t--h.html").read_text()
    led.claim("t/two", 'said: "Each value takes 2 bytes."\nfigure: "2 B"\nlabel: estimate\ninputs:\n  b: 2 B\n'
                       "assumptions: {b: BF16}\ncompute:\n  a: b\n")
    draft = tmp_path / "draft.md"
    draft.write_text("Each value takes 2 bytes.<!-- claim: t/two -->\n")
    checked = run(led.root, "check-draft", str(draft))
    assert checked.returncode == 0 and "1 figures: 1 backed" in checked.stdout, checked.stdout


def test_a_squared_unit_against_a_plain_one_is_a_dimension_error_not_a_bug(tmp_path):
    """B^2 against B used to end in 'this is a bug in workings' (pint cannot format Fraction powers)."""
    led = ledger(tmp_path, h='said: "x is 1."\nfigure: "1 B^2"\nlabel: estimate\ninputs:\n  b: 1 B\n'
                             "assumptions: {b: y}\ncompute:\n  a: b\n")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert "claims/t/h.yaml:2: figure: B cannot be compared with B^2 (information vs information^2)" in done.stdout


def test_a_step_that_squares_a_unit_under_the_cap_still_works(tmp_path):
    led = ledger(tmp_path, h='said: "x is 4."\nfigure: "4 B^2"\nlabel: estimate\ninputs:\n  b: 2 B\n'
                             "assumptions: {b: y}\ncompute:\n  a: b * b\n")
    done = run(led.root, "verify")
    assert done.returncode == 0, done.stdout
    assert "2 claims: 2 verified" in done.stdout


# --- a long chain of claims is linear work ---------------------------------------------------------

CONFIG = b'{"hidden_size": 5120, "num_attention_heads": 40}\n'


def chain(root: Path, n: int) -> None:
    """``n`` claims, each built on the one before, all resting on one source."""
    led = TmpLedger(root)
    led.source("cfg", raw=CONFIG)
    led.claim("c/c0", 'said: "128"\nfigure: "128"\nlabel: derived\ninputs:\n  h: cfg#hidden_size\n'
                      "  n: cfg#num_attention_heads\ncompute:\n  d: h / n\n")
    for i in range(1, n):
        led.claim(f"c/c{i}", f'said: "128"\nfigure: "128"\nlabel: derived\ninputs:\n  p: claim:c/c{i - 1}\n'
                             "compute:\n  d: p\n")


def calls(fn) -> int:
    """The function calls (Python and C) that ``fn()`` makes: work done, independent of the machine's load."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def _per_claim(work) -> tuple[float, float]:
    """Marginal calls per claim from 100 to 200 claims, and from 200 to 400: equal when linear (a first
    run of 50 fills the caches that every later run finds full)."""
    work(50)
    w100, w200, w400 = work(100), work(200), work(400)
    return (w200 - w100) / 100, (w400 - w200) / 200


def test_a_chain_of_claims_verifies_in_linear_work(tmp_path):
    """Each claim's upstream sources used to be walked again for every claim (5,000 claims: 96 s)."""
    from workings.engine import verify

    def work(n):
        root = tmp_path / f"chain{n}"
        chain(root, n)
        return calls(lambda: verify(root))

    first, second = _per_claim(work)
    assert second < 1.15 * first, (first, second)  # quadratic work gave 1.5 times more per claim
    report = verify(tmp_path / "chain400")
    assert report.summary["verified"] == 400 and report.exit_code == 0
    last = report.claim("c/c399")
    assert last.sources == ("cfg",) and last.grade == "copy"  # upstream sources still reach the last claim


def test_a_chain_of_claims_renders_and_shows_in_linear_work(tmp_path):
    from workings.engine import verify
    from workings.render import render_site
    from workings.show import derivation

    def render_work(n):
        root = tmp_path / f"chain{n}"
        chain(root, n)
        report = verify(root)
        return calls(lambda: render_site(report, root, tmp_path / f"site{n}"))

    first, second = _per_claim(render_work)
    assert second < 1.15 * first, (first, second)

    def show_work(n):
        report = verify(tmp_path / f"chain{n}")
        return calls(lambda: [derivation(report, c) for c in report.claims])

    first, second = _per_claim(show_work)
    assert second < 1.15 * first, (first, second)


# --- duplicate ids: no record silently replaces another ----------------------------------------------

def _qwen_ledger(tmp_path: Path) -> TmpLedger:
    return TmpLedger(tmp_path / "root").qwen()


@pytest.mark.parametrize("second", ["sub/qwen.yaml", "qwen.yml", "deeper/still/qwen.yml"])
def test_a_second_source_record_with_the_same_id_is_an_error_naming_both(tmp_path, second):
    led = _qwen_ledger(tmp_path)
    sources = led.root / "ledger" / "sources"
    (sources / second).parent.mkdir(parents=True, exist_ok=True)
    (sources / second).write_text((sources / "qwen.yaml").read_text().replace("grade: copy", "grade: primary"))
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    first_file, second_file = sorted(["ledger/sources/qwen.yaml", f"ledger/sources/{second}"])
    for this, other in ((first_file, second_file), (second_file, first_file)):
        assert (f"ERROR     {this}: duplicate source id 'qwen' (also {other}): neither record is used; keep one"
                in done.stdout)
    assert "claims/kv/per-token.yaml:5: inputs.layers: unknown source 'qwen' (its record is invalid)" in done.stdout
    assert "primary" not in done.stdout


def test_claim_twins_yaml_and_yml_are_both_refused_and_listed_apart(tmp_path):
    led = _qwen_ledger(tmp_path)
    twin = led.root / "claims" / "kv" / "per-token.yml"
    twin.write_text((led.root / "claims" / "kv" / "per-token.yaml").read_text())
    done = run(led.root, "verify", "-q", "--json", str(tmp_path / "r.json"))
    assert done.returncode == 2
    assert ("claims/kv/per-token.yaml: duplicate claim id 'kv/per-token' (also claims/kv/per-token.yml): "
            "none of them is used; keep one") in done.stdout
    assert ("claims/kv/per-token.yml: duplicate claim id 'kv/per-token' (also claims/kv/per-token.yaml): "
            "none of them is used; keep one") in done.stdout
    import json

    ids = [c["id"] for c in json.loads((tmp_path / "r.json").read_text())["claims"]]
    assert sorted(ids) == ["kv/full-window", "kv/per-token.yaml", "kv/per-token.yml"]  # one entry per record


def test_an_id_that_repeats_another_claims_path_never_takes_it_over_whatever_sorts_first(tmp_path):
    """``claims/kv/a.yaml`` sorts before ``claims/kv/per-token.yaml``: it used to win, and the real record
    erred. (An id of another group is refused first: its folder is its group.)"""
    led = _qwen_ledger(tmp_path)
    led.claim("kv/a", 'id: kv/per-token\nsaid: "x is 3."\nfigure: "3"\nlabel: derived\ninputs: {a: 3}\n'
                      "assumptions: {a: y}\ncompute:\n  r: a\n")
    done = run(led.root, "verify")
    assert done.returncode == 2
    assert "claims/kv/a.yaml:1: id: duplicate claim id 'kv/per-token' (also claims/kv/per-token.yaml)" in done.stdout
    assert "ok               196,608 B/token  196,608 B/token" in done.stdout
    assert "3 claims: 2 verified, 1 error" in done.stdout


# --- links, dangling links and pipes: each named, never skipped or followed ---------------------------

def test_a_symlinked_claims_group_is_an_error_not_eleven_claims_gone(tmp_path):
    led = _qwen_ledger(tmp_path)
    outside = tmp_path / "outside" / "group"
    outside.mkdir(parents=True)
    for i in range(11):
        (outside / f"c{i}.yaml").write_text(OK)
    before = files_under(tmp_path / "outside")
    (led.root / "claims" / "linked").symlink_to(outside)
    done = run(led.root, "verify")
    assert done.returncode == 2
    assert ("ERROR     claims/linked: is a symbolic link to a folder; links are not followed in the ledger: "
            "put the files themselves here") in done.stdout
    assert done.stdout.endswith("2 claims: 2 verified; 1 input problems\n")
    assert files_under(tmp_path / "outside") == before


@pytest.mark.parametrize("folder", ["ledger/sources", "ledger", "claims", "ledger/measurements"])
def test_a_symlinked_ledger_folder_is_an_error_naming_it(tmp_path, folder):
    led = _qwen_ledger(tmp_path)
    real = led.root / folder
    moved = tmp_path / "moved"
    if real.exists():
        real.rename(moved)
    else:
        moved.mkdir()
    real.symlink_to(moved)
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert (f"ERROR     {folder}: is a symbolic link; folders of the ledger must be plain folders inside it, "
            "so nothing under it is read") in done.stdout


def test_a_symlinked_snapshots_folder_is_not_read_through(tmp_path):
    led = _qwen_ledger(tmp_path)
    snapshots = led.root / "ledger" / "snapshots"
    snapshots.rename(tmp_path / "elsewhere")
    snapshots.symlink_to(tmp_path / "elsewhere")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert ("ledger/sources/qwen.yaml:4: snapshot: ledger/snapshots is a symbolic link; snapshots are read only "
            "from the ledger's own folder") in done.stdout


@pytest.mark.parametrize("name, message", [
    ("notes", "is a symbolic link to nothing (a dangling link); links are not followed in the ledger: "
              "put the files themselves here"),
    ("gone.yaml", "is a symbolic link; records and snapshots must be plain files in the ledger"),
])
def test_a_dangling_link_is_an_error_naming_it(tmp_path, name, message):
    led = _qwen_ledger(tmp_path)
    (led.root / "claims" / "kv" / name).symlink_to(tmp_path / "nothing-here")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"claims/kv/{name}: {message}" in done.stdout
    assert "kv/per-token" not in done.stdout  # the good claims still verify (only failing ones are listed)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("where, message", [
    ("claims/kv/pipe", "is neither a plain file nor a folder (a pipe, device or socket); it is not read"),
    ("claims/kv/pipe.yaml", "is not a plain file"),
    ("ledger/sources/pipe.yaml", "is not a plain file"),
    ("ledger/snapshots/pipe.json", "is neither a plain file nor a folder (a pipe, device or socket); it is not read"),
])
def test_a_pipe_is_an_error_naming_it_and_nothing_waits_on_it(tmp_path, where, message):
    led = _qwen_ledger(tmp_path)
    os.mkfifo(led.root / where)
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"{where}: {message}" in done.stdout
    assert "1 input problems" in done.stdout or "error" in done.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_the_other_readers_of_records_do_not_wait_on_a_pipe_or_follow_a_link(tmp_path):
    """Siblings: the measurement reader and refresh's search for snapshots still in use read records
    too; a pipe named like a record used to block them, and a link to /dev/zero never ends."""
    from workings.loader import load_ledger
    from workings.refresh.archive import referenced_snapshots

    led = _qwen_ledger(tmp_path)
    measurements = led.root / "ledger" / "measurements" / "kv"
    measurements.mkdir(parents=True)
    os.mkfifo(measurements / "per-token--cpu--2026-01-01.yaml")
    os.mkfifo(led.root / "ledger" / "sources" / "pipe.yaml")
    if os.path.exists("/dev/zero"):
        (led.root / "ledger" / "sources" / "zero.yaml").symlink_to("/dev/zero")
    ledger = load_ledger(led.root)  # the one reader of measurement records
    found = ledger.measurements
    problems = [p for p in ledger.problems if p.file.startswith("ledger/measurements/")]
    assert found == [] and [(p.file, p.message) for p in problems] == [
        ("ledger/measurements/kv/per-token--cpu--2026-01-01.yaml", "is not a plain file")]
    snapshot = (led.root / "ledger" / "sources" / "qwen.yaml").read_text().split("snapshot: ")[1].split()[0]
    assert referenced_snapshots(led.root) == {snapshot}
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert "ledger/measurements/kv/per-token--cpu--2026-01-01.yaml: is not a plain file" in done.stdout


# --- duplicate keys: JSON snapshots, and YAML merge keys ---------------------------------------------

def test_a_json_snapshot_with_a_key_twice_is_an_error_not_the_last_value(tmp_path):
    led = TmpLedger(tmp_path / "root")
    raw = (b'{\n  "hidden_size": 5120,\n  "num_attention_heads": 40,\n  "num_hidden_layers": 48,\n'
           b'  "num_key_value_heads": 8,\n  "max_position_embeddings": 1010000,\n  "num_hidden_layers": 50\n}\n')
    led.source("qwen", raw=raw)
    led.claim("kv/per-token", PER_TOKEN)
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    name = f"{hashlib.sha256(raw).hexdigest()}.json"
    assert (f"ledger/sources/qwen.yaml:4: snapshot: snapshot {name}: key 'num_hidden_layers' appears twice in one "
            "object (lines 4, 7); JSON readers disagree on which value counts, so neither is used") in done.stdout
    assert "claims/kv/per-token.yaml:5: inputs.layers: unknown source 'qwen' (its record is invalid)" in done.stdout


@pytest.mark.parametrize("record, line, where", [
    ('said: "x"\n<<: {said: "y", figure: "3"}\nlabel: derived\n', 2, "claims/t/h.yaml"),
    ('said: "x is 3."\nfigure: "3"\nlabel: derived\ninputs:\n  <<: {a: 3}\nassumptions: {a: y}\ncompute:\n  r: a\n',
     5, "claims/t/h.yaml"),
])
def test_a_yaml_merge_key_is_refused_at_its_line(tmp_path, record, line, where):
    led = ledger(tmp_path, h=record)
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"{where}:{line}: merge keys (<<) are not allowed in records: write each key out" in done.stdout
    assert done.stdout.endswith("2 claims: 1 verified, 1 error; 1 input problems\n")


def test_a_merge_key_in_a_source_record_is_refused_too(tmp_path):
    led = _qwen_ledger(tmp_path)
    path = led.root / "ledger" / "sources" / "qwen.yaml"
    path.write_text(path.read_text() + "<<: {grade: primary}\n")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert "ledger/sources/qwen.yaml:6: merge keys (<<) are not allowed in records: write each key out" in done.stdout


# --- digits of other scripts, and digits grouped with spaces ----------------------------------------

def _per_token_with(figure: str) -> str:
    return PER_TOKEN.replace("figure: 196,608 B/token", f'figure: "{figure}"')


@pytest.mark.parametrize("figure, digit, name", [
    ("١٩٦,٦٠٨ B/token", "١", "ARABIC-INDIC DIGIT ONE"),
    ("１９６,６０８ B/token", "１", "FULLWIDTH DIGIT ONE"),
    ("196,6٠8 B/token", "٠", "ARABIC-INDIC DIGIT ZERO"),
    ("१९६,६०८ B/token", "१", "DEVANAGARI DIGIT ONE"),
])
def test_a_figure_in_another_scripts_digits_is_refused_not_read_as_196608(tmp_path, figure, digit, name):
    led = TmpLedger(tmp_path / "root").qwen()
    led.claim("kv/per-token", _per_token_with(figure))
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert (f"claims/kv/per-token.yaml:2: figure: '{figure}' has the digit '{digit}' ({name}), not one of 0-9: "
            "write the figure's number in ASCII digits (said keeps the sentence as printed)") in done.stdout
    assert "verified" not in done.stdout.splitlines()[0]


@pytest.mark.parametrize("figure, mark", [
    ("196\u202f608 B/token", "'\\u202f' (U+202F NARROW NO-BREAK SPACE)"),
    ("196\u00a0608 B/token", "'\\xa0' (U+00A0 NO-BREAK SPACE)"),
    ("196 608 B/token", "a space"),
    ("196'608 B/token", "\"'\" (U+0027 APOSTROPHE)"),
])
def test_a_figure_grouped_with_a_space_says_so_not_unknown_unit(tmp_path, figure, mark):
    led = TmpLedger(tmp_path / "root").qwen()
    led.claim("kv/per-token", _per_token_with(figure))
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert (f"claims/kv/per-token.yaml:2: figure: {figure!r}: the number's digits are grouped with {mark}; "
            "write it as 196,608 or without grouping (said keeps the sentence as printed)") in done.stdout
    assert "unknown unit" not in done.stdout


@pytest.mark.parametrize("where, text, line, key", [
    ("literal", "  value_bytes: ٢ B\n", 9, "inputs.value_bytes"),
    ("within", "within: ٥%\n", 15, "within"),
])
def test_other_scripts_digits_are_refused_in_inputs_and_tolerances_too(tmp_path, where, text, line, key):
    led = TmpLedger(tmp_path / "root").qwen()
    record = PER_TOKEN.replace("  value_bytes: 2 B\n", text) if where == "literal" else PER_TOKEN + text
    led.claim("kv/per-token", record)
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"claims/kv/per-token.yaml:{line}: {key}: " in done.stdout


def test_a_text_snapshot_value_in_other_digits_is_not_read_as_a_number(tmp_path):
    led = TmpLedger(tmp_path / "root")
    led.source("qwen", raw='{"num_hidden_layers": ٤٨}\n'.encode(), fmt="text")
    led.claim("kv/layers", 'said: "It has 48 layers."\nfigure: "48"\nlabel: quoted\ninputs:\n'
                           "  layers: qwen#num_hidden_layers\ncompute:\n  n: layers\n")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert "claims/kv/layers.yaml:5: inputs.layers: key 'num_hidden_layers' is not in snapshot" in done.stdout


def test_a_step_with_a_full_width_digit_in_a_name_is_refused(tmp_path):
    led = ledger(tmp_path, h='said: "x is 1."\nfigure: "1 B"\nlabel: derived\ninputs:\n  x1: 1 B\nassumptions: {x1: y}\n'
                             "compute:\n  a: x１\n")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert ("claims/t/h.yaml:8: compute.a: '１' (FULLWIDTH DIGIT ONE) is not an ASCII letter or digit: names and "
            "numbers in steps are written in ASCII") in done.stdout


# --- an erratum acknowledged coarsely ----------------------------------------------------------------

WRONG_WINDOW = FULL_WINDOW.replace("198.6 GB", "150.0 GB") + \
    "erratum:\n  reason: printed before the window was checked\n  recomputed: \"{acknowledged}\"\n"


@pytest.mark.parametrize("acknowledged, message", [
    ("0.0 PB", "the acknowledged value is in PB, not in the figure's unit (GB): write it in that unit, to at least "
               "the figure's 1 decimal, so that a later change still shows"),
    ("0.2 TB", "the acknowledged value is in TB, not in the figure's unit (GB): write it in that unit, to at least "
               "the figure's 1 decimal, so that a later change still shows"),
    ("198.6 GiB", "the acknowledged value is in GiB, not in the figure's unit (GB): write it in that unit, to at "
                  "least the figure's 1 decimal, so that a later change still shows"),
])
def test_an_erratum_acknowledged_in_a_coarser_unit_is_refused(tmp_path, acknowledged, message):
    led = TmpLedger(tmp_path / "root").qwen()
    led.claim("kv/full-window", WRONG_WINDOW.format(acknowledged=acknowledged))
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert f"claims/kv/full-window.yaml:11: erratum.recomputed: {message}" in done.stdout


def test_an_erratum_at_the_figures_precision_holds_and_still_shows_a_later_change(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    led.claim("kv/full-window", WRONG_WINDOW.format(acknowledged="198.6 GB"))
    done = run(led.root, "verify")
    assert done.returncode == 0 and "ERRATUM" in done.stdout
    led.claim("kv/full-window", WRONG_WINDOW.format(acknowledged="198.57 GB"))
    assert run(led.root, "verify").returncode == 0
    # the window moves by a few thousand tokens: "0.0 PB" would still have held; 198.6 GB does not
    led.source("qwen", raw=b'{"hidden_size": 5120, "max_position_embeddings": 1020000, "num_attention_heads": 40,'
                           b' "num_hidden_layers": 48, "num_key_value_heads": 8}\n')
    led.claim("kv/full-window", WRONG_WINDOW.format(acknowledged="198.6 GB"))
    moved = run(led.root, "verify", "-q")
    assert moved.returncode == 1
    assert ("claims/kv/full-window.yaml:11: erratum.recomputed: the erratum acknowledged 198.6 GB, but the recomputed "
            "value is now 200.54016 GB") in moved.stdout


def test_an_erratum_written_to_fewer_decimals_than_the_figure_is_refused(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    led.claim("kv/full-window", WRONG_WINDOW.replace("150.0 GB", "150.00 GB").format(acknowledged="198.6 GB"))
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert ("claims/kv/full-window.yaml:11: erratum.recomputed: the acknowledged value is written to 1 decimal, "
            "coarser than the figure (2 decimals): it would hide a later change; write the recomputed value to at "
            "least the figure's precision") in done.stdout


def test_a_relations_erratum_needs_two_significant_digits(tmp_path):
    record = ('said: "Pro costs ten times Flash."\ncheck: "gap >= 10"\nlabel: derived\ninputs:\n  pro: 33 USD\n'
              "  flash: 10 USD\nassumptions: {pro: y, flash: y}\ncompute:\n  gap: pro / flash\n"
              'erratum:\n  reason: the gap is 3.3\n  recomputed: "{acknowledged}"\n')
    led = ledger(tmp_path, h=record.replace("{acknowledged}", "0.0"))
    done = run(led.root, "verify", "-q")
    assert done.returncode == 2
    assert ("claims/t/h.yaml:12: erratum.recomputed: the acknowledged value shows fewer than two significant digits, "
            "so it would hide a later change: write the recomputed value with more digits (or exactly)") in done.stdout
    led.claim("t/h", record.replace("{acknowledged}", "3.3"))
    assert run(led.root, "verify").returncode == 0


# --- a measurement that disagrees with its estimate fails verify, and is listed even with -q ------------

def _measured(led: TmpLedger, result: str, estimate: str = "196608") -> None:
    from tests.test_measured_beside import MEASUREMENT, SHAPE

    folder = led.root / "ledger" / "measurements" / "kv"
    folder.mkdir(parents=True, exist_ok=True)
    text = MEASUREMENT.format(claim="kv/per-token", estimate=estimate, shape=SHAPE).replace(
        "result: {unit: B/token, value: '196608'}", f"result: {{unit: B/token, value: '{result}'}}").replace(
        "measured_bytes: 196608,", f"measured_bytes: {result},").replace(  # samples whose fit is the result
        "measured_bytes: 393216,", f"measured_bytes: {2 * int(result)},")
    (folder / "per-token--cpu--2026-11-29.yaml").write_text(text)


def test_a_disagreeing_measurement_fails_verify_and_is_listed_with_q(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    _measured(led, result="204800")
    done = run(led.root, "verify", "-q", "--junit", str(tmp_path / "junit.xml"))
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith("ok               196,608 B/token  196,608 B/token")
    assert "measured 204,800 B/token on CPU (not a GPU measurement): DISAGREES" in done.stdout
    assert done.stdout.endswith("2 claims: 2 verified; 1 measurement disagrees\n")
    junit = (tmp_path / "junit.xml").read_text()
    assert 'failures="1"' in junit and '<failure type="measurement" message="measured 204,800 B/token' in junit
    annotated = subprocess.run([sys.executable, "-m", "workings", "verify", "-q", "--root", str(led.root)],
                               capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=""))
    assert "::error file=claims/kv/per-token.yaml,line=1::kv/per-token: measured 204,800 B/token" in annotated.stdout


def test_a_stale_measurement_is_shown_with_q_but_does_not_fail(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    _measured(led, result="204800", estimate="204800")  # measured against an estimate the claim no longer computes
    done = run(led.root, "verify", "-q")
    assert done.returncode == 0
    assert "measured 204,800 B/token on CPU (not a GPU measurement): stale" in done.stdout
    assert done.stdout.endswith("2 claims: 2 verified\n")


def test_an_agreeing_measurement_stays_quiet_with_q(tmp_path):
    led = TmpLedger(tmp_path / "root").qwen()
    _measured(led, result="196608")
    done = run(led.root, "verify", "-q")
    assert done.returncode == 0 and done.stdout.endswith("\n2 claims: 2 verified\n") and "measured" not in done.stdout
