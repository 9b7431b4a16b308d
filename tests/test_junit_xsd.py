"""verify's JUnit XML against the Jenkins JUnit schema (junit-10.xsd of Jenkins' xunit plugin), read
with xmlschema.

The schema comes from PyPI: pytest's sdist ships it (testing/example_scripts/junit-10.xsd, what
pytest validates its own reports against); ``scripts/install-validators.sh`` downloads that sdist at
the version and sha256 pinned in .ci/pypi/junit-xsd.txt and takes the one file out, into a cache
folder outside the repository. Skips where it is missing, unless ``WORKINGS_REQUIRE_VALIDATORS=1``.

The schema has no ``file`` or ``line`` on a testcase; verify writes both on purpose (GitLab links a
failure to its file with them, as pytest's legacy "xunit1" reports do). Those two attributes are the
only departures: the test holds every other part of the report to the schema.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from render_ledger import write_ledger
from validator_tools import INSTALL, REPO, missing, tools

xmlschema = pytest.importorskip("xmlschema")

KEPT_ON_PURPOSE = {"file", "line"}  # on each testcase, for GitLab


@pytest.fixture(scope="module")
def schema():
    xsd = tools() / "junit" / "junit-10.xsd"
    if not xsd.is_file():
        missing(f"the JUnit schema is not installed at {xsd} ({INSTALL})")
    return xmlschema.XMLSchema(str(xsd))


def junit_of(root: Path, out: Path) -> Path:
    done = subprocess.run([sys.executable, "-m", "workings", "verify", "--root", str(root), "--json",
                           str(out / "ledger.json"), "-q"], capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1, 2), done.stderr
    return out / "junit.xml"


def departures(schema, path: Path) -> list[str]:
    """What the schema refuses in the report, less the testcases' file and line; and checks that
    with those two removed, the report is valid."""
    tree = ET.parse(path)
    found = []
    for error in schema.iter_errors(str(path)):
        attribute = next((a for a in KEPT_ON_PURPOSE if f"'{a}' attribute not allowed" in error.reason), None)
        if attribute is None or error.elem is None or error.elem.tag != "testcase":
            found.append(f"{error.path}: {error.reason}")
    stripped = copy.deepcopy(tree.getroot())
    for case in stripped.iter("testcase"):
        for attribute in KEPT_ON_PURPOSE:
            case.attrib.pop(attribute, None)
    found += [f"(without file/line) {e.path}: {e.reason}" for e in schema.iter_errors(stripped)]
    return found


def test_a_report_with_drift_errors_and_unchecked_claims_fits_the_schema(schema, tmp_ledger, tmp_path):
    write_ledger(tmp_ledger)
    tmp_ledger.claim("kv/control", 'said: "A bell\\x07 in 7 bytes."\nfigure: "7 B"\nvalue: {input: "7 B"}\n')
    path = junit_of(tmp_ledger.root, tmp_path)
    root = ET.parse(path).getroot()
    kinds = {child.tag for case in root.iter("testcase") for child in case}
    assert {"failure", "error", "skipped"} <= kinds  # every kind of outcome is in what is checked
    assert all(case.get("file") and case.get("line") for case in root.iter("testcase"))
    assert departures(schema, path) == []


def test_this_repository_report_fits_the_schema(schema, tmp_path):
    path = junit_of(REPO, tmp_path)
    assert len(list(ET.parse(path).getroot().iter("testcase"))) > 100
    assert departures(schema, path) == []


def test_the_schema_refuses_what_it_should(schema, tmp_path):
    """It really checks: a testcase without a name and a testsuite without counts are refused."""
    bad = tmp_path / "bad.xml"
    bad.write_text('<testsuites><testsuite name="x"><testcase classname="c"><failure/></testcase>'
                   "</testsuite></testsuites>", encoding="utf-8")
    reasons = " ".join(e.reason for e in schema.iter_errors(str(bad)))
    assert "'name'" in reasons and "'tests'" in reasons
