"""What a reviewer attacking the ledger's honesty found on 3 Dec 2026: records a stranger's pull request
could write so that verify, show, the page or check-draft said something stronger than what backs it.
Each case fails on the code before its fix; each is run through the real CLI or the library, no mocks."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from tests.conftest import TmpLedger
from tests.test_hostile_ledger import run


def _ledger(tmp_path: Path) -> TmpLedger:
    return TmpLedger(tmp_path / "root").qwen()


def test_an_unarchived_source_cannot_hold_a_passage_that_backs_a_figure(tmp_path):
    """The grade table says an unarchived source 'can back no value'; its passage backed "12,345 GB"
    (restated, verified) on nothing but its author's word."""
    led = _ledger(tmp_path)
    led.source("talk", "title: A talk nobody recorded\nurl: https://example.com/talk\ngrade: unarchived\n"
                       'passages:\n  says: "The model needs 12,345 GB of memory."\n')
    led.claim("rt/unarch", 'said: "The model needs 12,345 GB of memory."\nfigure: 12,345 GB\nlabel: quoted\n'
                           "compute:\n  v: 12345 * GB\ncites: [talk#says]\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("ledger/sources/talk.yaml:4: passages: an unarchived source cannot hold passages: no archived text "
            "checks them (say what it said in notes:)") in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/unarch" in line)


def test_a_record_cannot_name_itself_into_another_group(tmp_path):
    """``claims/rt/sneak.yaml`` with ``id: kv/sneak`` was a claim of the group kv, whose articles
    check-draft and the page back from their own group's claims, from a folder a reviewer of kv never reads."""
    led = _ledger(tmp_path)
    led.claim("rt/sneak", 'id: kv/sneak\nsaid: "x is 3."\nfigure: "3"\nlabel: estimate\ninputs: {a: 3}\n'
                          "assumptions: {a: y}\ncompute:\n  r: a\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("claims/rt/sneak.yaml:1: id: 'kv/sneak' is of the group 'kv', but the record is in 'rt': a claim's "
            "group is its folder") in done.stdout
    assert "kv/sneak" not in done.stdout.replace("id: 'kv/sneak'", "")


def test_a_source_cannot_have_been_read_after_today(tmp_path):
    """``retrieved.on: 2099-01-01`` was shown on the source's page as when it was read."""
    led = _ledger(tmp_path)
    led.source("later", (led.root / "ledger/sources/qwen.yaml").read_text()
               + 'retrieved:\n  "on": 2099-01-01\n  how: from a forum post\n')
    led.claim("rt/later", 'said: "It has 48 layers."\nfigure: "48"\nlabel: quoted\n'
                          "inputs:\n  n: later#num_hidden_layers\ncompute:\n  v: n\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert "ledger/sources/later.yaml:7: retrieved.on: '2099-01-01' is after today (" in done.stdout
    assert "UTC): a source cannot have been read in the future" in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/later" in line)


def test_a_primary_source_names_the_commit_its_bytes_were_read_at(tmp_path):
    """The grade table says primary is "the official bytes (a Hub file at a resolved commit, a file of the
    publisher's repository at a commit)"; a random mirror's URL with no commit was shown as primary."""
    led = _ledger(tmp_path)
    plain = (led.root / "ledger/sources/qwen.yaml").read_text()
    led.source("mirror", plain.replace("grade: copy", "grade: primary")
               .replace("https://example.org/qwen", "https://random-mirror.example/qwen/config.json"))
    led.source("pinned", plain.replace("grade: copy", "grade: primary")
               + "retrieved:\n  commit: 24544163a9013ea385ca43dc31aa23458ca2008b\n")
    for source in ("mirror", "pinned"):
        led.claim(f"rt/{source}", 'said: "It has 48 layers."\nfigure: "48"\nlabel: quoted\n'
                                  f"inputs:\n  n: {source}#num_hidden_layers\ncompute:\n  v: n\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("ledger/sources/mirror.yaml:2: grade: a primary source records the commit its bytes were read at "
            "(retrieved.commit, 40 or 64 hex digits); without one, grade it by what was seen (copy)") in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/mirror" in line)
    assert "ok " in next(line for line in done.stdout.splitlines() if "rt/pinned" in line)
    assert "pinned.yaml" not in done.stdout


def test_within_is_an_approximation_not_any_number(tmp_path):
    """``within: 100%`` accepted anything from 0 to twice the value: "1,000,000 layers" verified 48."""
    led = _ledger(tmp_path)
    led.claim("rt/within", 'said: "Qwen2.5-14B has 1,000,000 layers."\nfigure: "1,000,000"\nlabel: quoted\n'
                           "within: 100%\ninputs:\n  n: qwen#num_hidden_layers\ncompute:\n  v: n\n")
    led.claim("rt/about", 'said: "Qwen2.5-14B has about 50 layers."\nfigure: "50"\nlabel: quoted\n'
                          "within: 5%\ninputs:\n  n: qwen#num_hidden_layers\ncompute:\n  v: n\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("claims/rt/within.yaml:4: within: 100% is no approximation: at most 20% (100% holds for anything from "
            "0 to twice the figure); print the figure as the value rounds, or use bound:") in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/within" in line)
    assert "ok " in next(line for line in done.stdout.splitlines() if "rt/about" in line)


def test_a_bound_is_a_bound_the_sentence_prints(tmp_path):
    """``bound: at-most`` on "Qwen2.5-14B has 4,800 layers." verified 48: the reader is told 4,800,
    plainly. A bound needs its words beside the figure, in its direction."""
    led = _ledger(tmp_path)
    rest = "inputs:\n  n: qwen#num_hidden_layers\ncompute:\n  v: n\n"
    led.claim("rt/plain", f'said: "Qwen2.5-14B has 4,800 layers."\nfigure: "4,800"\nlabel: quoted\n'
                          f"bound: at-most\n{rest}")
    led.claim("rt/wrong-way", f'said: "It has more than 4,800 layers."\nfigure: "4,800"\nlabel: quoted\n'
                              f"bound: at-most\n{rest}")
    led.claim("rt/no-more", f'said: "It has no more than 4,800 layers."\nfigure: "4,800"\nlabel: quoted\n'
                            f"bound: at-least\n{rest}")
    led.claim("rt/up-to", f'said: "It has up to 4,800 layers."\nfigure: "4,800"\nlabel: quoted\nbound: at-most\n{rest}')
    led.claim("rt/or-more", f'said: "It has 40 layers or more."\nfigure: "40"\nlabel: quoted\nbound: at-least\n{rest}')
    led.claim("rt/also", f'said: "It has 40 layers."\nalso_said: ["At least 40 layers, that is."]\nfigure: "40"\n'
                         f"label: quoted\nbound: at-least\n{rest}")
    led.claim("rt/range", f'said: "It has 40 to 60 layers."\nfigure: "40"\nlabel: quoted\nbound: at-least\n{rest}')
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    upper = "(at most, up to, less than, under, ≤, 'or less')"
    lower = "(at least, more than, over, ≥, '90+', 'or more')"
    for claim, bound, side, words in (("plain", "at-most", "an upper", upper),
                                      ("wrong-way", "at-most", "an upper", upper),
                                      ("no-more", "at-least", "a lower", lower)):
        assert (f"claims/rt/{claim}.yaml:4: bound: {bound} compares the figure as {side} bound, but no sentence "
                f"prints 4,800 as one {words}: a figure stated plainly is compared as printed") in done.stdout
        assert "ok " not in next(line for line in done.stdout.splitlines() if f"rt/{claim}" in line)
    for claim in ("up-to", "or-more", "also", "range"):  # a range's low end, as `new --from-draft` writes it
        assert "ok " in next(line for line in done.stdout.splitlines() if f"rt/{claim}" in line), claim


GPU_MEASUREMENT = """\
claim: {claim}
command: workings probe --device cuda
date: '2026-12-01'
details:
  shape: {{batch: 1, dtype: bfloat16, head_dim: 128, heads: 40, kv_heads: {kv_heads}, layers: {layers}}}
device: {{allocator: cuda-caching, memory_bytes: 150109880320, name: NVIDIA H200, type: cuda}}
estimate: {{unit: B/token, value: '{value}'}}
format: 1
measures: per_token
probe: kv-bytes
relation: equal
result: {{unit: B/token, value: '{value}'}}
samples: [{{tokens: 1024, requested_bytes: {one}, measured_bytes: {one}, rounding_bytes: 0}}, {{tokens: 2048, requested_bytes: {two}, measured_bytes: {two}, rounding_bytes: 0}}]
software: {{cuda: '13.0', driver: 580.159.04, python: 3.12.3, torch: 2.11.0+cu130}}
tolerance: '0'
"""


def _measurement(led: TmpLedger, claim: str, *, value: str = "196608", layers: int = 48, kv_heads: int = 8,
                 edit: tuple[str, str] = ("", "")) -> str:
    name = f"ledger/measurements/{claim}--cuda-nvidia-h200--2026-12-01.yaml"
    path = led.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    per = Fraction(value)  # samples whose exact fit is the result, as the probe writes them
    one, two = (str(per * n) for n in (1024, 2048))
    text = GPU_MEASUREMENT.format(claim=claim, value=value, layers=layers, kv_heads=kv_heads, one=one, two=two)
    path.write_text(text.replace(*edit) if edit[0] else text)
    return name


def test_a_gpu_measurement_whose_own_fields_say_cpu_is_refused(tmp_path):
    """``type: cuda`` beside ``cuda: 'none'``, a ``+cpu`` torch or ``--device cpu`` was shown as measured
    "on GPU (NVIDIA H200)"."""
    for edit, line, key, message in (
            (("cuda: '13.0'", "cuda: 'none'"), 14, "software.cuda",
             "a cuda measurement records the CUDA version it ran with (12.8); 'none' says it had none"),
            (("torch: 2.11.0+cu130", "torch: 2.13.0+cpu"), 14, "software.torch",
             "torch 2.13.0+cpu is a build without CUDA: it cannot have measured on a GPU"),
            (("--device cuda", "--device cpu"), 2, "command",
             "the command ran the probe with --device cpu: it is not a GPU measurement")):
        led = TmpLedger(tmp_path / key).qwen()
        name = _measurement(led, "kv/per-token", edit=edit)
        done = run(led.root, "verify", "--no-cache")
        assert done.returncode == 2, key
        assert f"{name}:{line}: {key}: {message}" in done.stdout
        assert "on GPU" not in done.stdout


def test_a_measurement_counts_only_for_a_claim_whose_probe_it_measured(tmp_path):
    """A measurement filed for a claim with no ``probe:`` made a typed number 'measured' and verified;
    a real one copied with its ``claim:`` changed measured another claim's cache."""
    led = _ledger(tmp_path)
    led.claim("rt/typed", 'said: "Llama-X keeps 999,424 bytes per token."\nfigure: 999,424 B/token\n'
                          "label: measured\ncompute:\n  per_token: 999424 * B / token\n")
    typed = _measurement(led, "rt/typed", value="999424")
    # the per-token formula kv-bytes measures without a probe: key; this cache has 24 layers of 16 KV
    # heads, another model's, whose bytes per token are the same 196,608
    other = _measurement(led, "kv/per-token", layers=24, kv_heads=16)
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert (f"{typed}:1: claim: this measurement is not of this claim: 'rt/typed' has no probe: key (nor is it "
            "the per-token formula over layers, kv_heads, head_dim and value_bytes that kv-bytes measures without "
            "one): nothing says what a measurement of it builds, so none counts for it") in done.stdout
    assert (f"{other}:5: details.shape.layers: this measurement is not of this claim: the measured cache has "
            "layers 24, but the claim's probe builds 48: it measured another model's cache") in done.stdout
    for claim in ("rt/typed", "kv/per-token"):
        row = next(line for line in done.stdout.splitlines() if line.rstrip().endswith(claim))
        assert row.startswith("ERROR") and "measured" not in row, row
    assert "on GPU" not in done.stdout


def test_the_measurement_of_a_claim_s_own_probe_still_counts(tmp_path):
    """The same record, of the claim's own cache, is beside it and agrees."""
    led = _ledger(tmp_path)
    _measurement(led, "kv/per-token")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 0, done.stdout
    assert "measured 196,608 B/token on GPU (NVIDIA H200): agrees, exactly as estimated" in done.stdout


def test_a_declared_value_is_in_the_unit_its_passage_states(tmp_path):
    """``{value: "1,010,000 GB", passage: "... Full 1,010,000 tokens"}`` backed a figure in GB: the
    passage's number was checked, its unit never."""
    led = _ledger(tmp_path)
    name = led.snapshot(b"Context Length: Full 1,010,000 tokens and generation 8192 tokens. It has 48 layers.\n",
                        "txt")
    led.source("card", f"title: A model card\nurl: https://example.org/card\ngrade: transcription\nsnapshot: {name}\n"
                       "values:\n"
                       '  memory: {value: "1,010,000 GB", passage: "Context Length: Full 1,010,000 tokens"}\n'
                       '  depth: {value: "48 GB", passage: "It has 48 layers."}\n'
                       '  window: {value: "1,010,000 token", passage: "Context Length: Full 1,010,000 tokens"}\n')
    led.claim("rt/memory", 'said: "The model needs 1,010,000 GB of memory."\nfigure: 1,010,000 GB\nlabel: quoted\n'
                           "inputs:\n  m: card#memory\ncompute:\n  v: m\n")
    done = run(led.root, "verify", "--no-cache")
    assert done.returncode == 2
    assert ("ledger/sources/card.yaml:6: values.memory.value: the passage prints 1,010,000 tokens (token), not GB "
            "(information): a value is in the unit its passage states it in") in done.stdout
    assert ("ledger/sources/card.yaml:7: values.depth.value: the passage prints 48 layers (a count of layers), "
            "not GB (information): a value is in the unit its passage states it in") in done.stdout
    assert "values.window" not in done.stdout
    assert "ok " not in next(line for line in done.stdout.splitlines() if "rt/memory" in line)
