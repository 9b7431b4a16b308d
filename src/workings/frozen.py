"""``@frozen``: ``@dataclass(frozen=True)`` at a fraction of its cost at import.

Every command imports some fifty frozen dataclasses (results, records, a draft's figures), and
``dataclasses`` builds each one's methods by compiling generated source, six functions a class
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``): about
0.7 ms a class, a tenth of what the repository's own ledger costs above the floor. Here only
``__init__`` is compiled (it builds every object, so it stays the code ``dataclasses`` writes,
with ``object.__setattr__`` bound once rather than looked up for every field); the other methods
are shared functions that read the class's field names, with ``dataclasses``' behaviour: the same
``repr``, equality and hash over the same fields (those with ``compare``, ``repr``, ``hash``), the
same ``FrozenInstanceError`` messages.

The class is a dataclass to everything that asks: ``dataclasses.fields``, ``replace``, ``asdict``,
``is_dataclass`` and ``__match_args__`` work as on one built by ``@dataclass(frozen=True)``, with
the same ``Field`` objects and parameters (``__dataclass_params__``). What this does not cover
(base classes that are dataclasses, ``order``, ``ClassVar``, ``InitVar``, ``KW_ONLY``, a field
with ``init=False``) is handed to ``dataclasses.dataclass`` unchanged. ``tests/test_frozen.py``
holds both to the same behaviour.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import operator
import reprlib
import sys
from dataclasses import MISSING, Field, FrozenInstanceError
from typing import Any, dataclass_transform

__all__ = ["frozen"]


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: type | None = None, /, *, kw_only: bool = False, eq: bool = True):  # noqa: ANN201
    """``@dataclass(frozen=True, kw_only=..., eq=...)``, built cheaply (see the module's doc)."""

    def wrap(cls: type) -> type:
        return _build(cls, kw_only, eq)

    return wrap if cls is None else wrap(cls)


@functools.cache
def _template(kw_only: bool, eq: bool) -> tuple[Any, Any]:
    """``dataclasses``' own parameters object and field kind for these options, taken from a
    one-field class it builds (once per combination), so that none of ``dataclasses``' private
    constants (``_FIELD``, ``_DataclassParams``) is named here; a ``Field``'s own ``_field_type`` slot
    is read here and set in ``_build``, as ``dataclasses`` itself sets it."""
    options = {"frozen": True, "kw_only": kw_only, "eq": eq}
    template: Any = dataclasses.dataclass(**options)(type("Template", (), {"__annotations__": {"x": "int"}, "x": 0}))
    return template.__dataclass_params__, template.__dataclass_fields__["x"]._field_type


_SPECIAL = ("ClassVar", "InitVar", "KW_ONLY", "typing.ClassVar", "dataclasses.InitVar", "dataclasses.KW_ONLY")


def _build(cls: Any, kw_only: bool, eq: bool) -> Any:
    annotations = cls.__dict__.get("__annotations__", {})
    plain = (all(getattr(b, "__dataclass_fields__", None) is None for b in cls.__mro__[1:])
             and all(isinstance(t, str) and not t.startswith(_SPECIAL) for t in annotations.values())
             and not any(isinstance(getattr(cls, name, None), Field) and not getattr(cls, name).init
                         for name in annotations))
    if not plain:
        return dataclasses.dataclass(cls, frozen=True, kw_only=kw_only, eq=eq)
    params, kind = _template(kw_only, eq)
    fields: dict[str, Any] = {}
    for name, annotation in annotations.items():
        default = cls.__dict__.get(name, MISSING)
        f: Any = default if isinstance(default, Field) else dataclasses.field(default=default)
        f.name, f.type, f._field_type = name, annotation, kind
        if f.kw_only is MISSING:
            f.kw_only = kw_only
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        fields[name] = f
        if isinstance(default, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    cls.__dataclass_params__ = params
    cls.__dataclass_fields__ = fields
    for name in ("__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    _set(cls, "__init__", _init(cls, list(fields.values())))
    _set(cls, "__repr__", _repr([f.name for f in fields.values() if f.repr]))
    if eq:
        compared = [f.name for f in fields.values() if f.compare]
        key = _key(compared)
        _set(cls, "__eq__", _eq(key))
        hashed = [f.name for f in fields.values() if (f.compare if f.hash is None else f.hash)]
        class_hash = cls.__dict__.get("__hash__", MISSING)
        if class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__):
            cls.__hash__ = _hash(_key(hashed))
    names = frozenset(fields)
    cls.__setattr__ = _setattr(cls, names)
    cls.__delattr__ = _delattr(cls, names)
    if not getattr(cls, "__doc__"):
        cls.__doc__ = cls.__name__ + _signature_text(list(fields.values()))
    _set(cls, "__match_args__", tuple(f.name for f in fields.values() if not f.kw_only))
    abc.update_abstractmethods(cls)
    return cls


def _signature_text(fields: list[Any]) -> str:
    """``str(inspect.signature(cls))`` less its `` -> None``, the doc ``dataclasses`` gives a class
    without one, written out (``inspect.signature`` was a third of building a class): each field's
    annotation is a string here, which ``inspect`` shows as its repr."""

    def one(f: Any) -> str:
        if f.default is not MISSING:
            return f"{f.name}: {f.type!r} = {f.default!r}"
        if f.default_factory is not MISSING:
            return f"{f.name}: {f.type!r} = {_HAS_DEFAULT_FACTORY!r}"
        return f"{f.name}: {f.type!r}"

    keyword = [one(f) for f in fields if f.kw_only]
    return "(" + ", ".join([one(f) for f in fields if not f.kw_only] + (["*", *keyword] if keyword else [])) + ")"


def _set(cls: Any, name: str, value: Any) -> None:
    if name not in cls.__dict__:
        if callable(value) and hasattr(value, "__qualname__"):
            value.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, value)


_HAS_DEFAULT_FACTORY = type("_HAS_DEFAULT_FACTORY_CLASS", (), {"__repr__": lambda self: "<factory>"})()


def _init(cls: Any, fields: list[Any]) -> Any:
    """``__init__`` as ``dataclasses`` writes it for a frozen class: the same parameters, annotations,
    defaults and body, so its signature and errors are the same; only ``object.__setattr__``, which
    the body calls for every field, is a variable of the closure, not looked up on ``object`` each
    time (the same function; about a quarter of building a claim's 22-field record).

    Compiling that text was most of building a class (about 0.2 ms each, some fifty classes at every
    start), and it differs between classes only in the fields' names: the code is compiled once per
    shape (which fields are keyword-only, which have a default factory, ``__post_init__``, the name
    of ``self``) with stand-in names, and each class's function gets its fields' names in the code's
    locals and constants, its annotations and its defaults. A field whose name could meet the
    text's own names is compiled from its own text (``_init_text``), as before."""
    names = [f.name for f in fields]
    if any(n.startswith(("_dflt_", "_type_", "__dataclass_", "_f")) or n in _INIT_NAMES for n in names):
        return _init_text(cls, fields)
    self_name = "__dataclass_self__" if "self" in names else "self"
    seen_default = False
    for f in fields:
        if not f.kw_only:
            defaulted = f.default is not MISSING or f.default_factory is not MISSING
            if not defaulted and seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            seen_default = seen_default or defaulted
    shape = (self_name, tuple((bool(f.kw_only), f.default_factory is not MISSING) for f in fields),
             hasattr(cls, "__post_init__"))
    closure: dict[str, object] = {"__dataclass_setattr__": object.__setattr__,
                                  "_HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY}
    closure.update({f"_dflt__f{i}": f.default_factory for i, f in enumerate(fields) if f.default_factory is not MISSING})
    module = sys.modules.get(cls.__module__)
    namespace: dict[str, Any] = {}
    exec(_init_code(shape), module.__dict__ if module is not None else {}, namespace)  # noqa: S102 - see _init_code
    function = namespace["__create_fn__"](**closure)
    real = {f"_f{i}": name for i, name in enumerate(names)}
    code = function.__code__
    function.__code__ = code.replace(
        co_varnames=tuple(real.get(n, n) for n in code.co_varnames),
        co_consts=tuple(real.get(c, c) if type(c) is str else c for c in code.co_consts),
        co_freevars=tuple("_dflt_" + real[n[6:]] if n.startswith("_dflt__f") else n for n in code.co_freevars))
    positional = [f for f in fields if not f.kw_only]
    keyword = [f for f in fields if f.kw_only]

    def default(f: Any) -> object:
        return _HAS_DEFAULT_FACTORY if f.default_factory is not MISSING else f.default

    defaults = tuple(default(f) for f in positional if f.default is not MISSING or f.default_factory is not MISSING)
    function.__defaults__ = defaults or None
    function.__kwdefaults__ = {f.name: default(f) for f in keyword
                               if f.default is not MISSING or f.default_factory is not MISSING} or None
    function.__annotations__ = {**{f.name: f.type for f in positional + keyword}, "return": None}
    return function


_INIT_NAMES = frozenset({"MISSING", "_HAS_DEFAULT_FACTORY", "_return_type"})


@functools.lru_cache(maxsize=None)
def _init_code(shape: tuple[str, tuple[tuple[bool, bool], ...], bool]) -> Any:
    """The code of ``_init``'s text for one shape, field ``i`` named ``_f{i}``: the parameters and
    body ``dataclasses`` writes, without the annotations and defaults (``_init`` sets them)."""
    self_name, kinds, post_init = shape
    positional = [f"_f{i}" for i, (kw_only, _) in enumerate(kinds) if not kw_only]
    keyword = [f"_f{i}" for i, (kw_only, _) in enumerate(kinds) if kw_only]
    body = []
    factories = []
    for i, (_, factory) in enumerate(kinds):
        value = f"_dflt__f{i}() if _f{i} is _HAS_DEFAULT_FACTORY else _f{i}" if factory else f"_f{i}"
        if factory:
            factories.append(f"_dflt__f{i}")
        body.append(f"__dataclass_setattr__({self_name},'_f{i}',{value})")
    if post_init:
        body.append(f"{self_name}.__post_init__()")
    params = ",".join([self_name, *positional, *(["*", *keyword] if keyword else [])])
    outer = ", ".join(["__dataclass_setattr__", "_HAS_DEFAULT_FACTORY", *factories])
    text = (f"def __create_fn__({outer}):\n def __init__({params}):\n"
            + "\n".join(f"  {line}" for line in body or ["pass"]) + "\n return __init__")
    return compile(text, "<string>", "exec", dont_inherit=True)


def _init_text(cls: Any, fields: list[Any]) -> Any:
    """``__init__`` as ``dataclasses`` writes it for a frozen class, the same text (so its signature,
    annotations, defaults and errors are the same; ``object.__setattr__`` bound once, as in
    ``_init``), compiled for this class alone."""
    self_name = "__dataclass_self__" if "self" in {f.name for f in fields} else "self"
    local: dict[str, object] = {f"_type_{f.name}": f.type for f in fields}
    local.update({"MISSING": MISSING, "_HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY,
                  "__dataclass_setattr__": object.__setattr__})
    positional, keyword, body, seen_default = [], [], [], False
    for f in fields:
        if f.default_factory is not MISSING:
            local[f"_dflt_{f.name}"] = f.default_factory
            param, value = f"{f.name}:_type_{f.name}=_HAS_DEFAULT_FACTORY", \
                f"_dflt_{f.name}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}"
        elif f.default is not MISSING:
            local[f"_dflt_{f.name}"] = f.default
            param, value = f"{f.name}:_type_{f.name}=_dflt_{f.name}", f.name
        else:
            param, value = f"{f.name}:_type_{f.name}", f.name
        if f.kw_only:
            keyword.append(param)
        else:
            if "=" not in param and seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            seen_default = seen_default or "=" in param
            positional.append(param)
        body.append(f"__dataclass_setattr__({self_name},{f.name!r},{value})")
    if hasattr(cls, "__post_init__"):
        body.append(f"{self_name}.__post_init__()")
    local["_return_type"] = None
    params = ",".join([self_name, *positional, *(["*", *keyword] if keyword else [])])
    text = (f"def __create_fn__({', '.join(local)}):\n def __init__({params})->_return_type:\n"
            + "\n".join(f"  {line}" for line in body or ["pass"]) + "\n return __init__")
    namespace: dict[str, Any] = {}
    module = sys.modules.get(cls.__module__)
    # compiled as dataclasses compiles it: not under this module's ``from __future__ import annotations``
    code = compile(text, "<string>", "exec", dont_inherit=True)
    exec(code, module.__dict__ if module is not None else {}, namespace)  # noqa: S102 - dataclasses' own text
    return namespace["__create_fn__"](**local)


def _key(names: list[str]):
    if not names:
        return lambda self: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda self: (one(self),)
    return operator.attrgetter(*names)


def _repr(names: list[str]):
    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"

    return __repr__


def _eq(key):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _hash(key):
    def __hash__(self) -> int:
        return hash(key(self))

    return __hash__


def _setattr(cls: Any, names: frozenset[str]):
    def __setattr__(self, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    return __setattr__


def _delattr(cls: Any, names: frozenset[str]):
    def __delattr__(self, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __delattr__
