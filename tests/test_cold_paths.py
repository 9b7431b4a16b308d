"""The shortcuts of a cold verify held to the plain ways they replace (their outputs must not move)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from workings import engine, loader

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import bench  # noqa: E402


def test_a_claim_with_its_links_is_what_dataclasses_replace_makes(tmp_ledger):
    tmp_ledger.qwen()
    led = loader.load_ledger(tmp_ledger.root)
    done = engine.evaluate_claims(led)
    for result, _ in done.values():
        linked = engine._with_links(result, led, frozenset({"qwen", "a"}), ["x/y"], ())
        plain = replace(result, used_by=("x/y",), sources=("a", "qwen"), grade=linked.grade, measurements=())
        assert linked == plain and linked.__dict__ == plain.__dict__ and type(linked) is type(plain)
        assert linked.grade is not None and result.used_by == ()  # the result itself is untouched


def test_the_walk_sorts_records_as_paths_sort(tmp_path):
    names = ["a/x.yaml", "a-b/x.yaml", "a.b/x.yaml", "a/b/c.yaml", "A/x.yaml", "a b/x.yaml", "ab.yaml", "a.yaml",
             "a/x.yml", "z/é.yaml", "_/x.yaml"]
    for name in names:
        (tmp_path / "claims" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "claims" / name).write_text("said: x\n")
    found = loader._yaml_files(loader.Ledger(root=tmp_path), "claims")
    assert found == sorted(found) and len(found) == len(names)  # PurePath's own order
    walked = loader.Ledger(root=tmp_path)
    assert loader._walk(walked, "claims") == [str(p) for p in found]  # the texts the Paths were made of
    assert walked.plain == {str(p) for p in found}


def test_the_walk_takes_the_names_pathlib_gives_a_record_suffix(tmp_path):
    names = ["x.yaml", "x.yml", ".yaml", ".yml", "x.yaml.", "x.YAML", "x.yaml.bak", "x.tar.yaml", "x..yaml", "x.",
             "yaml", "x_yaml", ".x.yaml", "x.yaml~", "d.yaml/inner.yml"]
    for name in names:
        (tmp_path / "claims" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "claims" / name).write_text("said: x\n")
    files = [p for p in (tmp_path / "claims").rglob("*") if p.is_file()]
    expected = sorted(p for p in files if p.suffix in loader.RECORD_SUFFIXES)
    assert loader._walk(loader.Ledger(root=tmp_path), "claims") == [str(p) for p in expected]
    assert len(expected) == 6  # x.yaml, x.yml, x.tar.yaml, x..yaml, .x.yaml, d.yaml/inner.yml
    for name in names:
        assert (loader._suffix(f"claims/{name}") == Path(name).suffix), name


def test_a_record_is_read_whole_at_every_size_around_the_reads(tmp_path):
    path = tmp_path / "r.yaml"
    for size in (0, 1, 4095, 4096, 65535, 65536, 65537, 200_000):
        data = bytes(i % 251 for i in range(size))
        path.write_bytes(data)
        assert loader.read_plain_file(path, 1_000_000) == data



def test_claim_lines_are_parsed_each_time_and_kept_in_no_cache(tmp_path):
    from workings import models

    bench.make_ledger(tmp_path, 30, "b")
    models._GOOD_INPUTS.clear()
    models._parse_input.cache_clear()
    led = loader.load_ledger(tmp_path)
    assert len(led.claims) == 30 and not led.problems
    chained = [i for c in led.claims.values() for i in c.inputs if i.kind == "claim"]
    assert len(chained) == 27 and all(i.claim for i in chained)  # each c1..c9 of a chain reads the one before
    kept = list(models._GOOD_INPUTS.values())
    assert kept and not [i for i in kept if i.kind == "claim"]  # the unique lines are not held after the run
    assert models._parse_input.cache_info().currsize == len(kept) == 13  # 4 source lines for each of 3 configs, "2 B"


def test_a_recomputed_value_shown_in_the_figures_unit_is_shared_and_what_it_was_made_as():
    from fractions import Fraction

    from workings import compare, units
    from workings.figures import format_number
    from workings.report import Quantity

    for figure, value, unit in (("196,608 B/token", 196608, "B/token"), ("1.5 GB", Fraction(3, 2), "GB"),
                                ("2024", 2024, ""), ("0.333", Fraction(1, 3), ""), ("147 KB/token", 147456, "B/token")):
        first = compare.compare_figure(figure, units.quantity(value, unit)).comparison.recomputed
        again = compare.compare_figure(figure, units.quantity(value, unit)).comparison.recomputed
        assert again is first  # one Quantity for every claim recomputing it
        whole = figure.split()[0].lstrip("+-").split(".")[0]
        made = Quantity(value=first.value, unit=first.unit,
                        display=f"{format_number(first.value, grouping=',' in figure or len(whole) <= 3)} {first.unit}".strip())
        assert first == made and (first.value, first.unit, first.display) == (made.value, made.unit, made.display)


def test_a_step_is_evaluated_once_for_the_very_values_it_reads_and_gives_what_it_gave(tmp_path, monkeypatch):
    import shutil

    from workings import expr

    repo = Path(__file__).resolve().parent.parent
    shutil.copytree(repo / "claims", tmp_path / "claims")
    shutil.copytree(repo / "ledger", tmp_path / "ledger")
    bench.make_ledger(tmp_path, 60, "b", group_prefix="gen")
    (tmp_path / "claims" / "gen0" / "c5.yaml").write_text(  # a step that fails: reported by each record
        (tmp_path / "claims" / "gen0" / "c5.yaml").read_text().replace("hidden / heads", "hidden / (heads - 40)"))
    led = loader.load_ledger(tmp_path)
    calls = []
    real = expr.evaluate
    monkeypatch.setattr(expr, "evaluate", lambda tree, env: calls.append(tree) or real(tree, env))
    done = engine.evaluate_claims(led)
    shared = len(calls)
    calls.clear()
    alone: dict = {}  # each claim with nothing kept from the others' steps
    for claim_id in done:
        alone[claim_id] = engine._evaluate_contained(led, led.claims[claim_id], alone, {}, {})
    # 60 generated claims on 6 configs: their head size and bytes per token once per config (and
    # again for c5's chain), not once per claim
    assert shared < len(calls) - 100
    for claim_id, (result, value) in done.items():
        assert alone[claim_id][0] == result, claim_id
        assert alone[claim_id][1] == value, claim_id
    assert done["gen0/c5"][0].status == "error" and "division by zero" in done["gen0/c5"][0].reason


def test_what_a_value_depends_on_is_worked_out_once_for_the_very_trees_and_values(tmp_path, monkeypatch):
    """``dependence.held``: the claims computing one model's figure from its config the same way ask
    ``depends_on`` once per run; each claim's result (its basis among it) is the one it gets alone."""
    import shutil

    from workings import dependence

    repo = Path(__file__).resolve().parent.parent
    shutil.copytree(repo / "claims", tmp_path / "claims")
    shutil.copytree(repo / "ledger", tmp_path / "ledger")
    monkeypatch.setattr(bench, "CONFIGS", 5)  # 20 chains of 10 claims on 5 configs: each figure computed 4 times
    bench.make_ledger(tmp_path, 200, "b", group_prefix="gen")
    (tmp_path / "claims" / "gen0" / "c107.yaml").write_text(  # a step the result does not use: one input fewer
        (tmp_path / "claims" / "gen0" / "c107.yaml").read_text().replace("total: prev + per_token", "total: prev + 0 * per_token"))
    for name in ("c9", "c59"):  # the same value of the same config: a figure in a unit it cannot be in, twice
        record = tmp_path / "claims" / "gen0" / f"{name}.yaml"
        record.write_text(record.read_text().replace(" B/token", " B"))
    for name in ("c18", "c68"):  # and one that drifts, twice
        record = tmp_path / "claims" / "gen0" / f"{name}.yaml"
        record.write_text(record.read_text().replace("1,769,472", "1,769,473"))
    for name, rule in (("c77", "round: floor"), ("c86", "within: 5%"), ("c95", "bound: at-least")):
        record = tmp_path / "claims" / "gen0" / f"{name}.yaml"  # as c27, c36 and c45 print, with a rule of their own
        text = record.read_text().replace(f"Synthetic claim {name[1:]} is ", f"Synthetic claim {name[1:]} is at least ")
        record.write_text((text if rule.startswith("bound") else record.read_text()) + rule + "\n")
    led = loader.load_ledger(tmp_path)
    calls, compared = [], []
    real, real_compare = dependence.depends_on, engine.compare_figure
    monkeypatch.setattr(dependence, "depends_on", lambda *args: calls.append(args) or real(*args))
    monkeypatch.setattr(engine, "compare_figure", lambda *args, **kw: compared.append(args) or real_compare(*args, **kw))
    done = engine.evaluate_claims(led)
    shared, shared_compared = len(calls), len(compared)
    calls.clear()
    compared.clear()
    alone: dict = {}
    for claim_id in done:
        alone[claim_id] = engine._evaluate_contained(led, led.claims[claim_id], alone, {}, {})
    assert len(calls) > len(led.claims) - 10 and shared < len(calls) - 140
    assert len(compared) > len(led.claims) - 10 and shared_compared < len(compared) - 140  # _Evaluation.compared
    for claim_id, (result, _) in done.items():
        assert alone[claim_id][0] == result, claim_id
    for plain, ruled in (("c27", "c77"), ("c36", "c86"), ("c45", "c95")):
        assert done[f"gen0/{plain}"][0].comparison.rule != done[f"gen0/{ruled}"][0].comparison.rule
    for name in ("c9", "c59"):  # what fails is not kept: each record reports its own error
        result = done[f"gen0/{name}"][0]
        assert result.status == "error" and result.messages[0].file.endswith(f"{name}.yaml"), result.messages
    for name in ("c18", "c68"):
        result = done[f"gen0/{name}"][0]
        assert result.status == "drift" and result.messages[0].file.endswith(f"{name}.yaml"), result.messages
    assert done["gen0/c107"][0].basis == "recomputed"
    assert sorted(done["gen0/c107"][0].dependence.unused) == ["heads", "hidden", "kv", "layers", "value_bytes"]


def test_held_shares_only_the_very_trees_values_inputs_and_output():
    from fractions import Fraction

    from workings import dependence, expr, units

    steps = [("per", expr.parse("a * b")), ("total", expr.parse("per + 0 * c"))]
    a, b, c = (units.quantity(Fraction(n), "B") for n in (3, 5, 7))
    known: dict = {}
    asked = []

    def held(steps, env, inputs, output):
        before = len(known)
        got = dependence.held(known, steps, env, inputs, output)
        asked.append(len(known) > before)
        assert got == dependence.depends_on(steps, env, inputs, [output])
        return got

    assert held(steps, {"a": a, "b": b, "c": c}, ["a", "b", "c"], "total") == {"a", "b"}
    held(steps, {"a": a, "b": b, "c": c}, ["a", "b", "c"], "total")  # the very same: known
    held(steps, {"a": units.quantity(Fraction(3), "B"), "b": b, "c": c}, ["a", "b", "c"], "total")  # equal, not the same
    held(steps, {"a": a, "b": b, "c": c}, ["a", "b", "c"], "per")  # another output
    held(steps, {"a": a, "b": b, "c": c}, ["a", "b"], "total")  # other inputs asked of
    held([("per", expr.parse("a * b")), steps[1]], {"a": a, "b": b, "c": c}, ["a", "b", "c"], "total")  # another tree
    held(steps, {"b": b, "a": a, "c": c}, ["a", "b", "c"], "total")  # the same values under other names' order
    assert asked == [True, False, True, True, True, True, True]


def test_the_three_walks_of_claims_take_the_same_records(tmp_path):
    """verify's walk (``loader._walk``), the cache's (``cache._plain_records``) and show's and
    check-draft's (``neighbourhood.record_files``) list the same records: a name is a record by
    pathlib's suffix in each, so a file named ``.yaml`` (no suffix to pathlib) is in none of them."""
    from workings import cache, neighbourhood

    names = ["t/x.yaml", "t/.yaml", "t/.yml", "t/x.yaml.", "t/x..yml", ".x.yaml", "t/x.YAML", "u/.yaml", "a-b/c.yaml",
             "a/c.yaml"]
    for name in names:
        (tmp_path / "claims" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "claims" / name).write_text("said: x\n")
    walked = loader._walk(loader.Ledger(root=tmp_path), "claims")
    assert sorted(walked) == sorted(neighbourhood.record_paths(tmp_path))
    plain = cache._plain_records(tmp_path)
    assert plain is not None and [str(tmp_path / rel) for rel, _ in plain] == walked  # the same order too
    assert sorted(Path(p).relative_to(tmp_path / "claims").as_posix() for p in walked) == [
        ".x.yaml", "a-b/c.yaml", "a/c.yaml", "t/x..yml", "t/x.yaml"]


def test_a_claims_dependence_is_shared_only_for_the_very_trees_values_and_what_classify_reads(monkeypatch):
    """``dependence.analyse`` with a run's memory: one Dependence for claims whose steps, input values
    (the very objects), input kinds, upstream bases, citations and measurement agree; each answer is
    the one it gets with no memory."""
    from fractions import Fraction
    from types import SimpleNamespace as NS

    from workings import dependence, expr, units

    steps = (NS(name="per", tree=expr.parse("a * b")), NS(name="total", tree=expr.parse("per * 1")))
    a, b = units.quantity(Fraction(3), "B"), units.quantity(Fraction(5))
    known: dict = {}
    measured_now = [False]
    monkeypatch.setattr(dependence, "_measured", lambda measurements, pairs, steps_: measured_now[0])

    def claim(kinds=("source", "literal")):
        inputs = [NS(name=n, kind=k, claim="up/x" if k == "claim" else None) for n, k in zip("ab", kinds)]
        return NS(compute=steps, check_tree=None, check=None, inputs=inputs, label="derived")

    answers = []

    def analyse(c, env, *, upstream=None, cites=()):
        before = len(known)
        values = {**env, "per": a * b, "total": a * b}
        got = dependence.analyse(c, env, values, upstream=upstream or {}, cites=cites, known=known)
        alone = dependence.analyse(c, env, values, upstream=upstream or {}, cites=cites)
        assert got == alone
        answers.append((len(known) > before, got.basis))
        return got

    env = {"a": a, "b": b}
    first = analyse(claim(), env)
    assert analyse(claim(), dict(env)) is first  # the very same: one Dependence
    analyse(claim(), {"a": units.quantity(Fraction(3), "B"), "b": b})  # equal, not the same
    analyse(claim(kinds=("literal", "literal")), env)  # other kinds
    analyse(claim(kinds=("claim", "literal")), env, upstream={"up/x": "recomputed"})  # a claim input...
    analyse(claim(kinds=("claim", "literal")), env, upstream={"up/x": "assumptions-only"})  # ...of another basis
    stating = NS(source="s", passage_id="p", states=True)
    analyse(claim(kinds=("literal", "literal")), env, cites=(stating,))  # a cited passage states it
    analyse(claim(kinds=("literal", "literal")), env, cites=(NS(source="s", passage_id="p", states=False),))
    measured_now[0] = True
    analyse(claim(kinds=("literal", "literal")), env)  # a measurement agrees
    assert answers == [(True, "recomputed"), (False, "recomputed"), (True, "recomputed"),
                       (True, "assumptions-only"), (True, "recomputed"), (True, "assumptions-only"),
                       (True, "restated"), (True, "assumptions-only"), (True, "measured")]
