"""The unit registry and unit helpers.

One registry for the whole process, built from ``units.txt`` beside this file with exact
``Fraction`` magnitudes. Parsing a unit string is cached: a ledger names the same few units
thousands of times.
"""

from __future__ import annotations

import functools
import re
import sys
from fractions import Fraction
from importlib import resources

from types import ModuleType
from typing import TYPE_CHECKING, Any

from .errors import UnitError


def _import_pint() -> ModuleType:
    """pint, imported without NumPy and SciPy: pint imports them when they are installed (for array
    magnitudes; with them its import costs about twice as much, a tenth of a second and more of every
    command), and the ledger's magnitudes are only ever exact Fractions, which pint handles the same
    way without them. Each is hidden only while pint is imported, and only if nothing imported it
    first: a later ``import numpy`` (torch, in ``workings probe``) gets the real one.

    So too importlib.metadata, unless something imported it first: pint and the two libraries it
    imports ask it for their own version (``__version__``), which costs its import and a scan of
    ``sys.path`` each, about 30 ms. While pint is imported, ``importlib.metadata`` is a stand-in
    whose ``version`` reads the ``.dist-info`` folder's name (``installed.version``: the same
    answer) and which hands anything else to the real module, imported then."""
    if "pint" in sys.modules:
        import pint
        return pint
    hidden = [name for name in ("numpy", "scipy") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # "import numpy" raises ImportError
    stand_in = None if "importlib.metadata" in sys.modules else _metadata_stand_in()
    if stand_in is not None:
        sys.modules["importlib.metadata"] = stand_in
    try:
        import pint
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
        if stand_in is not None and sys.modules.get("importlib.metadata") is stand_in:
            del sys.modules["importlib.metadata"]
    return pint


def _metadata_stand_in() -> ModuleType:
    """``importlib.metadata`` for pint's import: ``version`` from the ``.dist-info`` folder's name,
    anything else (and a version not found so) from the real module, which is then imported and
    takes the stand-in's place for every later import."""
    from . import installed

    stand_in = ModuleType("importlib.metadata")

    def real() -> ModuleType:
        if sys.modules.get("importlib.metadata") is stand_in:
            del sys.modules["importlib.metadata"]
        import importlib.metadata

        return importlib.metadata

    def version(name: str) -> str:
        found = installed.dist_info_version(name)
        return found if found is not None else str(real().version(name))

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of any module (__path__, __spec__)
            raise AttributeError(name)
        return getattr(real(), name)

    stand_in.version = version  # type: ignore[attr-defined]
    stand_in.__getattr__ = __getattr__  # type: ignore[method-assign]
    return stand_in


if TYPE_CHECKING:
    import pint as pint  # ``units.pint``: expr takes pint from here


def __getattr__(name: str) -> Any:
    """``units.pint``, imported on first use rather than with this module: a verify that finds every
    result in its cache formats no value, parses no unit and never imports pint (pint's import and
    registry are about three fifths of the floor's instructions). The registry imports it when it
    is first built."""
    if name == "pint":
        return _pint()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _pint() -> ModuleType:
    module = _import_pint()
    globals()["pint"] = module  # later reads of units.pint are plain attribute reads
    return module

if TYPE_CHECKING:
    from .figures import Figure

# pint's Quantity and Unit types are generic over the magnitude and the registry, and its arithmetic
# is typed loosely; here a quantity is always one of registry()'s, with a Fraction magnitude, and a
# "value" is such a quantity or a plain Fraction (a pure number). The aliases say which is meant.
Quantity = Any
Unit = Any
Value = Any

# "KB" is printed often and means kB (1000 B) or KiB (1024 B) depending on the author.
AMBIGUOUS_PREFIX = {"K": ("k", "Ki")}
# Names that may be printed with an SI prefix and read by an author as IEC, or the reverse.
SI_TO_IEC = {"k": "Ki", "M": "Mi", "G": "Gi", "T": "Ti", "P": "Pi"}
IEC_TO_SI = {v: k for k, v in SI_TO_IEC.items()}
# The characters a unit expression may hold (ASCII names, numbers, * / ^ ( ) and spaces); anything
# else is refused before pint's parser sees it.
_UNIT_TEXT = re.compile(r"[A-Za-z0-9_%$*/^(). \t]+")
# A power in unit text: ``^`` or ``**`` then a whole number of one or two digits, not raised again.
# Checked before pint sees the text, whose parser would compute ``B^(9^9^9)`` (a hang), and after
# parsing, on the powers that result (``(B^8)^8`` is B^64).
_POWER_OPERATOR = re.compile(r"\^|\*\*")
_POWER_ARGUMENT = re.compile(r"\s*(?:-?\d{1,2}|\(\s*-?\d{1,2}\s*\))(?![\w.(]|\s*(?:\^|\*\*))")
MAX_UNIT_POWER = 8  # B**2 is a fine intermediate; B**64 is an attack (steps share this cap)
_PREFIXED_BYTES = re.compile(r"(?<![A-Za-z])(Ki|Mi|Gi|Ti|Pi|k|K|M|G|T|P)(B|bit)(?![A-Za-z])")


@functools.cache
def registry() -> pint.UnitRegistry[Any]:
    text = resources.files("workings").joinpath("units.txt").read_text(encoding="utf-8")
    reg: pint.UnitRegistry[Any] = _pint().UnitRegistry(None, non_int_type=Fraction, cache_folder=None, autoconvert_offset_to_baseunit=False)
    reg.load_definitions(text.splitlines())
    reg.define("Mtoken = 1000000 * token")
    return reg


@functools.lru_cache(maxsize=4096)
def parse_unit(text: str) -> Unit:
    """The pint unit for ``text`` (``"B/token"``, ``"GiB"``, ``""`` for a pure number)."""
    text = text.strip()
    if not text:
        return registry().dimensionless
    if has_ambiguous_prefix(text):
        raise UnitError(f"unit {text!r} is ambiguous: 'KB' may mean kB (1000 B) or KiB (1024 B)")
    if not _UNIT_TEXT.fullmatch(text):
        raise UnitError(f"unknown unit {text!r}")
    for match in _POWER_OPERATOR.finditer(text):
        if not _POWER_ARGUMENT.match(text, match.end()):
            raise UnitError(_power_message(text))
    try:
        unit = registry().parse_units(text)
    except Exception as exc:  # pint's parser raises several kinds (even AssertionError) on odd text
        raise UnitError(f"unknown unit {text!r}") from exc
    for power in unit._units.values():  # pint types a power as any number: an int or a Fraction here
        exact = Fraction(power) if isinstance(power, (int, Fraction)) else None
        if exact is None or exact.denominator != 1 or abs(exact) > MAX_UNIT_POWER:
            raise UnitError(_power_message(text))
    return unit


def _power_message(text: str) -> str:
    return (f"unit {text!r}: a unit may be raised only to a whole power between -{MAX_UNIT_POWER} and "
            f"{MAX_UNIT_POWER} (B^2, B**2), written once")


@functools.lru_cache(maxsize=16384)  # a figure's text is read again by each record printing it (frozen: shared)
def read_quantity(text: str, *, printed: bool = False) -> Figure:
    """A number then a unit, as a record writes it (a figure, a literal input, a declared value, an
    erratum's recomputed value): the ``figures.Figure``, its unit parsed here so that the cap on powers
    and every unit check hold wherever a record writes a quantity. ``printed``: a figure as printed,
    whose ``KB`` is tried under each reading; elsewhere an ambiguous unit is refused."""
    from .figures import read_figure

    figure = read_figure(text)
    for unit in (readings(figure.unit) if printed else [figure.unit]):
        parse_unit(unit)
    return figure


def has_ambiguous_prefix(text: str) -> bool:
    return any(m.group(1) in AMBIGUOUS_PREFIX for m in _PREFIXED_BYTES.finditer(text))


def readings(text: str) -> list[str]:
    """The unit strings a printed unit could stand for: ``KB`` gives ``kB`` and ``KiB``."""
    if not has_ambiguous_prefix(text):
        return [text]
    out = []
    for i in range(2):
        out.append(_PREFIXED_BYTES.sub(
            lambda m: (AMBIGUOUS_PREFIX[m.group(1)][i] if m.group(1) in AMBIGUOUS_PREFIX else m.group(1)) + m.group(2),
            text))
    return out


def other_reading(text: str) -> str | None:
    """The same unit with SI and IEC byte prefixes swapped (``GB`` -> ``GiB``), or None."""
    swapped = _PREFIXED_BYTES.sub(
        lambda m: (SI_TO_IEC.get(m.group(1)) or IEC_TO_SI.get(m.group(1)) or m.group(1)) + m.group(2), text)
    return swapped if swapped != text else None


def _fraction(value: Value) -> Fraction:
    return value if type(value) is Fraction else Fraction(value)


def quantity(magnitude: Fraction | int | str, unit_text: str = "") -> Quantity:
    from .quick import quantity as build  # pint's Quantity, built without its constructor's checks

    return build(magnitude, unit_text)


def dimensionless(magnitude: Fraction | int) -> Quantity:
    return _quantity_class()(_fraction(magnitude), _dimensionless_unit())


@functools.cache
def _quantity_class() -> Any:
    return registry().Quantity


def is_quantity(value: object) -> bool:
    kind = type(value)
    if kind is Fraction or kind is int:  # the pure numbers of a run, answered without the ABC check
        return False
    return kind is _quantity_class() or isinstance(value, _quantity_class())


def same_dimension(a: Quantity, b: Quantity) -> bool:
    return bool(a.dimensionality == b.dimensionality)


def convert(value: Value, unit_text: str) -> Fraction:
    """``value`` expressed in ``unit_text``, as an exact fraction; UnitError on a dimension mismatch.

    pint converts; the factor from one unit to another is pint's conversion of 1, taken once per pair
    (the registry has no offset units, so pint's conversion is that multiplication, exactly; its
    error for a mismatch names only the units, so a mismatch raises the same message either way)."""
    if not is_quantity(value):
        value = dimensionless(value)
    magnitude = value._magnitude
    if type(magnitude) is Fraction:
        return magnitude * _factor(value._units, unit_text)
    return _convert(value, unit_text)


@functools.lru_cache(maxsize=4096)
def _factor(container: Any, unit_text: str) -> Fraction:
    return _convert(_quantity_class()(Fraction(1), container), unit_text)


def _convert(value: Quantity, unit_text: str) -> Fraction:
    try:
        return Fraction(value.to(parse_unit(unit_text)).magnitude)
    except _pint().errors.DimensionalityError as exc:
        raise UnitError(
            f"{unit_label(value)} cannot be compared with {unit_text or 'a pure number'}"
            f" ({describe_dimension(value.dimensionality)} vs "
            f"{describe_dimension(parse_unit(unit_text).dimensionality)})") from exc


@functools.cache
def _dimensionless_unit() -> Unit:
    return registry().dimensionless


@functools.lru_cache(maxsize=4096)
def _display_form(container: Any) -> tuple[str, Fraction]:
    """For a unit (its hashable container): the unit label to show and the factor into it.

    Mixed units are reduced (GiB*token/B is shown as token) and like ratios cancel (GiB/GB is a pure
    number), computed once per distinct unit: display is on the hot path of every step."""
    one = registry().Quantity(Fraction(1), container).to_reduced_units()
    if one.dimensionless:
        return "", Fraction(one.to(_dimensionless_unit()).magnitude)
    power = dict(one._units).get("bit")
    if power:  # reducing B*token/token can leave bits; show bytes, as the ledger's figures do
        one = one.to(one.units / registry().bit ** power * registry().byte ** power)
    return _label(one._units), Fraction(one.magnitude)


def _label(container: Any) -> str:
    """``B/token``, ``B^2``, ``USD/Mtoken``: symbols, positive powers first, then ``/`` and the rest.

    Written here rather than with pint's formatter, which cannot format Fraction exponents."""
    reg = registry()
    up: list[str] = []
    down: list[str] = []
    for name, power in sorted(container.items()):
        symbol = reg.get_symbol(name)
        power = Fraction(power)
        text = symbol if abs(power) == 1 else f"{symbol}^{abs(power)}"
        (up if power > 0 else down).append(text)
    label = "*".join(up) or ("1" if down else "")
    return label + "".join(f"/{d}" for d in down)


def display_form(value: Value) -> tuple[Fraction, str]:
    """``value`` as (magnitude, unit label) for display: reduced, ratios cancelled, exact."""
    if not is_quantity(value):
        return _fraction(value), ""
    label, factor = _display_form(value._units)
    magnitude = _fraction(value.magnitude)
    return (magnitude if factor == 1 else magnitude * factor), label


def unit_label(value: Value) -> str:
    """A short unit string for display: ``B/token``, ``GiB``; empty for a pure number."""
    return display_form(value)[1]


def describe_dimension(dims: Any) -> str:
    """``information / token``, ``information^2``; written here because pint's formatter cannot
    format the Fraction powers this registry uses (B^2 vs B ended in a TypeError)."""
    items = sorted(dict(dims).items())
    if not items:
        return "a pure number"

    def word(name: str, power: Fraction | int) -> str:
        power = Fraction(power)
        name = name.strip("[]")
        return name if abs(power) == 1 else f"{name}^{abs(power)}"

    up = [word(n, p) for n, p in items if p > 0]
    down = [word(n, p) for n, p in items if p < 0]
    return " * ".join(up or ["1"]) + "".join(f" / {d}" for d in down)
