"""Measure check-draft on the outside corpus (tests/corpus/): finder recall and precision against the
hand labels, and how many figures the ledger is said to back or to contradict. Used by
tests/test_draft_corpus.py; run as a script to print the numbers for the README:

    PYTHONPATH=src:tests python tests/corpus_measure.py [ROOT]
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from workings.draft.article import front_matter
from workings.draft.check import check_text

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass
class Measured:
    labelled: int = 0            # figures in the labels
    found: int = 0               # figures the finder reported (plus equations whose result is a label)
    matched: int = 0             # labels the finder found
    false_backed: list = field(default_factory=list)
    false_drift: list = field(default_factory=list)      # drift or ambiguous on correct text
    missed: list = field(default_factory=list)           # labels not found
    extra: list = field(default_factory=list)            # found figures that are no label
    equations_labelled: int = 0
    equations_checked: int = 0   # labelled equations the check found and judged as labelled

    @property
    def recall(self) -> float:
        return self.matched / self.labelled if self.labelled else 1.0

    @property
    def precision(self) -> float:
        return (self.found - len(self.extra)) / self.found if self.found else 1.0


def texts() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*.md") if p.name != "README.md")


def labels(path: Path) -> dict:
    return yaml.safe_load(path.with_suffix(".labels.yaml").read_text(encoding="utf-8"))


def line_of(text: str, on: str) -> int:
    hits = [n for n, line in enumerate(text.split("\n"), start=1) if on in line]
    if len(hits) != 1:
        raise AssertionError(f"label line {on!r} found {len(hits)} times")
    return hits[0]


def check(path: Path, report, text: str | None = None):
    text = path.read_text(encoding="utf-8") if text is None else text
    plain = front_matter(text, file=str(path)).format == "plain"
    return check_text(text, report, file=str(path), markdown=not plain, front_matter=True)


def _norm(s: str) -> str:
    return s.replace("\u2009", " ").replace(" ", "").lower()


def measure(report, paths: list[Path] | None = None) -> Measured:
    m = Measured()
    for path in paths or texts():
        text = path.read_text(encoding="utf-8")
        want = labels(path)
        result = check(path, report, text)
        figures = [f for f in result.figures if f.kind not in ("equation", "relation", "set-aside figure")]
        equations = [f for f in result.figures if f.kind == "equation"]
        used: set[int] = set()
        for label in want.get("figures") or []:
            m.labelled += 1
            line = line_of(text, label["at"])
            number = _norm(str(label["number"]))
            hit = next((i for i, f in enumerate(figures) if i not in used and f.line == line
                        and number in _norm(f.text)), None)
            if hit is None:  # an equation's printed result counts as finding the figure
                digits = re.match(r"[\d.,]*", number).group()
                hit = next((("eq", i) for i, e in enumerate(equations) if ("eq", i) not in used
                            and e.line <= line and digits and _norm(e.text).endswith(digits)), None)
                if hit is not None:
                    m.found += 1
            if hit is None:
                m.missed.append(f"{path.name}:{line}: {label['number']} ({label['what']})")
                continue
            used.add(hit)
            m.matched += 1
        for i, f in enumerate(figures):
            m.found += 1
            if i not in used:
                m.extra.append(f"{path.name}:{f.line}: {f.text}")
            if f.status == "backed":
                m.false_backed.append(f"{path.name}:{f.line}: {f.text} by {f.claim}")
            if f.status in ("drift", "ambiguous"):
                m.false_drift.append(f"{path.name}:{f.line}: {f.text} {f.status} ({f.claim}): {f.reason}")
        holding = {line_of(text, e["at"]) for e in want.get("equations") or [] if e["holds"]}
        m.equations_labelled += len(want.get("equations") or [])
        for e in equations:
            if e.status != "holds" and e.line in holding:
                m.false_drift.append(f"{path.name}:{e.line}: equation {e.text}: {e.reason}")
        m.equations_checked += sum(1 for e in want.get("equations") or []
                                   if any(q.line == line_of(text, e["at"]) for q in equations))
    return m


def main(root: str = ".") -> None:
    from workings.engine import verify

    m = measure(verify(Path(root)))
    print(f"figures {m.labelled}, found {m.matched} (recall {m.recall:.1%}), reported {m.found}, "
          f"precision {m.precision:.1%}; false backed {len(m.false_backed)}, false drift/ambiguous "
          f"{len(m.false_drift)}; equations labelled {m.equations_labelled}, found {m.equations_checked}")
    for name in ("missed", "extra", "false_backed", "false_drift"):
        for item in getattr(m, name):
            print(f"  {name}: {item}")


if __name__ == "__main__":
    main(*sys.argv[1:])
