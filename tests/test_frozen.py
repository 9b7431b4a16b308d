"""``@frozen`` builds classes that behave as ``@dataclass(frozen=True)`` builds them.

Each example writes one class (fields with and without defaults, default factories, keyword-only
fields, fields left out of repr, comparison or hash) into two modules, once under each decorator,
and holds everything a caller can see to be the same: the signature and its errors, the doc, the
fields and parameters ``dataclasses`` reports, repr, equality, hash, ``replace``, ``asdict``,
pickling, and the errors of assigning or deleting a field.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workings import frozen as frozen_module
from workings.frozen import frozen

VALUES = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", ""]), st.none(), st.tuples(st.integers(0, 2)))
FIELD = st.fixed_dictionaries({
    "default": st.sampled_from(["none", "none", "value", "factory"]),
    "repr": st.booleans(), "compare": st.booleans(), "hash": st.sampled_from([None, None, True, False]),
    "kw_only": st.sampled_from([None, None, True]), "type": st.sampled_from(["int", "str | None", "tuple[int, ...]"]),
})


def build(decorator: str, fields: list[dict], *, kw_only: bool, eq: bool, doc: bool, extra: str = "") -> type:
    """The class ``C`` with ``fields`` under ``decorator``, in a module of its own."""
    lines = ["from __future__ import annotations", "from dataclasses import dataclass, field",
             "from workings.frozen import frozen", "",
             f"@{decorator}(kw_only={kw_only}, eq={eq})" if decorator == "frozen" else
             f"@dataclass(frozen=True, kw_only={kw_only}, eq={eq})", "class C:"]
    if doc:
        lines.append('    """A class."""')
    for index, spec in enumerate(fields):
        options = []
        if spec["default"] == "value":
            options.append(f"default={index!r}")
        elif spec["default"] == "factory":
            options.append("default_factory=list")
        for key in ("repr", "compare", "hash", "kw_only"):
            if spec[key] is not None and (key != "repr" or not spec[key]) and (key != "compare" or not spec[key]):
                options.append(f"{key}={spec[key]!r}")
        lines.append(f"    f{index}: {spec['type']} = field({', '.join(options)})" if options else
                     f"    f{index}: {spec['type']}")
    if not fields and not doc:
        lines.append("    pass")
    lines.extend("    " + line for line in extra.splitlines())
    name = f"frozen_example_{decorator}_{abs(hash(tuple(lines)))}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile("\n".join(lines), name, "exec"), module.__dict__)  # noqa: S102 - the test's own text
    return module.C


def outcome(call):
    try:
        return ("ok", call())
    except Exception as exc:  # noqa: BLE001 - the same exception, with the same message, is the point
        return (type(exc).__name__, str(exc))


def described(cls: type) -> tuple:
    return (str(inspect.signature(cls)), cls.__doc__, getattr(cls, "__match_args__", None),
            repr(cls.__dataclass_params__), dataclasses.is_dataclass(cls),
            [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare, f.kw_only,
              dict(f.metadata)) for f in dataclasses.fields(cls)],
            {name: getattr(cls, name, "absent") for name in cls.__dataclass_fields__})


def instances(cls: type, rows: list[list]) -> list:
    made = []
    for row in rows:
        params = list(inspect.signature(cls).parameters.values())
        args = [v for p, v in zip(params, row) if p.kind is p.POSITIONAL_OR_KEYWORD]
        kwargs = {p.name: v for p, v in zip(params, row) if p.kind is p.KEYWORD_ONLY}
        made.append(cls(*args, **kwargs))
    return made


def behaviour(cls: type, rows: list[list]) -> list:
    seen: list = [described(cls)]
    made = instances(cls, rows)
    for a in made:
        seen.append(repr(a).replace(cls.__module__, "M"))
        # eq=False keeps object's hash (by identity: the same function, not the same number)
        seen.append(outcome(lambda a=a: hash(a)) if cls.__dataclass_params__.eq else type(a).__hash__ is object.__hash__)
        seen.append(dataclasses.asdict(a))
        seen.append(dataclasses.astuple(a))
        seen.append(repr(dataclasses.replace(a)) == repr(a))
        seen.append(pickle.loads(pickle.dumps(a, protocol=5)) == a)
        seen.append(copy.deepcopy(a) == a)
        for name in [*cls.__dataclass_fields__, "other"]:
            seen.append(outcome(lambda a=a, name=name: setattr(a, name, 1)))
            seen.append(outcome(lambda a=a, name=name: delattr(a, name)))
        seen.append([a == b for b in made] + [a != b for b in made] + [a == 1, a.__eq__(object())])
    seen.append(outcome(lambda: repr(cls())))
    seen.append(outcome(lambda: repr(cls(1, 2, 3, 4, 5, 6, 7, 8))))
    seen.append(outcome(lambda: repr(cls(nonsense=1))))
    return seen


@settings(max_examples=300, deadline=None)
@given(fields=st.lists(FIELD, max_size=6), kw_only=st.booleans(), eq=st.booleans(), doc=st.booleans(),
       rows=st.lists(st.lists(VALUES, min_size=6, max_size=6), min_size=1, max_size=3))
def test_frozen_behaves_as_dataclass(fields, kw_only, eq, doc, rows):
    made = {}
    for decorator in ("dataclass", "frozen"):
        made[decorator] = outcome(lambda decorator=decorator: build(decorator, fields, kw_only=kw_only, eq=eq, doc=doc))
    assert made["dataclass"][0] == made["frozen"][0]
    if made["dataclass"][0] != "ok":
        assert made["dataclass"] == made["frozen"]  # a non-default argument after a default one
        return
    reference, ours = made["dataclass"][1], made["frozen"][1]
    assert ours.__init__ is not reference.__init__
    assert behaviour(ours, rows) == behaviour(reference, rows)


def test_post_init_explicit_methods_and_a_mutable_default():
    extra = "def __post_init__(self):\n    object.__setattr__(self, 'seen', True)\ndef __repr__(self):\n    return 'mine'"
    fields = [{"default": "none", "repr": True, "compare": True, "hash": None, "kw_only": None, "type": "int"}]
    for decorator in ("dataclass", "frozen"):
        cls = build(decorator, fields, kw_only=True, eq=True, doc=True, extra=extra)
        made = cls(f0=1)
        assert made.seen is True and repr(made) == "mine" and hash(made) == hash((1,))
    bad = "from __future__ import annotations\nfrom workings.frozen import frozen\n@frozen\nclass C:\n    x: list = []"
    with pytest.raises(ValueError, match="mutable default <class 'list'> for field x is not allowed"):
        exec(compile(bad, "bad", "exec"), {"__name__": "bad"})  # noqa: S102


def test_what_it_does_not_cover_is_handed_to_dataclasses():
    """A dataclass base, or a ClassVar: built by ``dataclasses`` itself, all its methods compiled."""
    @dataclasses.dataclass(frozen=True)
    class Base:
        a: int

    @frozen
    class Derived(Base):
        b: int = 2

    assert Derived(1) == Derived(1, 2) and [f.name for f in dataclasses.fields(Derived)] == ["a", "b"]
    assert Derived.__init__.__code__.co_filename == Base.__init__.__code__.co_filename


def test_the_classes_commands_import_are_built_by_it():
    """The point of the module: the results and records every command builds use it (a class moved
    back to ``@dataclass`` would cost its import time again, and this says which)."""
    from workings import figures, models, report, sources
    from workings.draft import finder

    for cls in (report.ClaimResult, report.Report, models.Claim, models.Input, sources.Source, figures.Figure,
                finder.Figure):
        assert cls.__setattr__.__module__ == frozen_module.__name__, cls


def test_classes_of_one_shape_share_compiled_code_yet_keep_their_own_names():
    """``__init__`` is compiled once per shape with stand-in names: two classes of one shape each get
    their own field names (in errors and keywords), and fields named like the stand-ins or the
    text's own names are compiled from their own text, behaving as ``dataclasses`` does."""
    text = ("from __future__ import annotations\nfrom dataclasses import dataclass, field\n"
            "from workings.frozen import frozen\n\n"
            "@{d}\nclass One:\n    alpha: int\n    beta: list = field(default_factory=list)\n\n"
            "@{d}\nclass Two:\n    gamma: int\n    delta: list = field(default_factory=list)\n\n"
            "@{d}\nclass Odd:\n    _f1: int\n    _f0: int = 2\n    MISSING: int = 3\n    _dflt__f0: list = field(default_factory=list)\n")
    seen = {}
    for decorator in ("frozen", "dataclass(frozen=True)"):
        module = types.ModuleType(f"shape_example_{abs(hash(decorator))}")
        sys.modules[module.__name__] = module
        exec(compile(text.format(d=decorator), module.__name__, "exec"), module.__dict__)  # noqa: S102
        rows = []
        for cls in (module.One, module.Two, module.Odd):
            rows.append(str(inspect.signature(cls)))
            rows.append(cls.__init__.__code__.co_varnames)
            rows.append(outcome(lambda cls=cls: repr(cls())).__repr__().replace(module.__name__, "M"))
            rows.append(outcome(lambda cls=cls: repr(cls(1))).__repr__().replace(module.__name__, "M"))
            rows.append(outcome(lambda cls=cls: repr(cls(1, 2, 3, 4, 5))).__repr__().replace(module.__name__, "M"))
            rows.append(outcome(lambda cls=cls: repr(cls(1, alpha=1, gamma=1))).__repr__().replace(module.__name__, "M"))
        first, second = module.One(1), module.One(1)
        rows.append(first.beta is not second.beta)
        seen[decorator] = rows
    assert seen["frozen"] == seen["dataclass(frozen=True)"]
    assert frozen_module._init_code.cache_info().hits > 0
