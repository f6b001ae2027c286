"""JavaScript value semantics the reference exposes: `undefined`, String(), Number(), `==`, `<`, JSON.stringify."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from lobsterlang.interpret.jsorder import js_ordered, may_reorder


class _Undefined:
    """JavaScript's `undefined`: omitted from JSON objects, `null` inside JSON arrays."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Final = _Undefined()

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|Infinity)")
_RADIX = {"0x": 16, "0o": 8, "0b": 2}
_JS_SPACE = " \t\n\r\v\f\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_object(value: Any) -> bool:
    """A JavaScript object: a dict or a list."""
    return isinstance(value, (dict, list))


def number_str(value: float) -> str:
    """`String(n)` for a JavaScript number."""
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"  # -0 too, as String(-0) prints it
    text = repr(value)
    mantissa, _, exp = text.partition("e")
    if not exp:
        return text.removesuffix(".0")
    power = int(exp)
    if -7 < power < 21:
        from decimal import Decimal

        return format(Decimal(text), "f")
    return f"{mantissa.removesuffix('.0')}e{'+' if power > 0 else '-'}{abs(power)}"


def _integral(value: float) -> int:
    """The integer JavaScript prints for an integral float (shortest digits, then zeros)."""
    if abs(value) < 2**53:
        return int(value)
    from decimal import Decimal

    return int(Decimal(repr(value)))


def js_string(value: Any) -> str:
    """`String(v)`."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return number_str(value)
    if isinstance(value, list):
        return ",".join("" if v is None or v is UNDEFINED else js_string(v) for v in value)
    return "[object Object]"


def to_number(value: Any) -> float:
    """`Number(v)`: NaN when the value is not numeric."""
    if isinstance(value, bool):
        return 1 if value else 0
    if is_number(value):
        return value  # type: ignore[no-any-return]
    if value is None:
        return 0
    if isinstance(value, str):
        return _string_to_number(value)
    if isinstance(value, list):
        return _string_to_number(js_string(value))
    return math.nan


def _string_to_number(text: str) -> float:
    text = text.strip(_JS_SPACE)
    if not text:
        return 0
    base = _RADIX.get(text[:2].lower())
    if base is not None:
        try:
            return int(text[2:], base) if text[2:].isalnum() else math.nan
        except ValueError:
            return math.nan
    if not _DECIMAL.fullmatch(text):
        return math.nan
    number = float(text.replace("Infinity", "inf"))
    return int(number) if number.is_integer() and abs(number) < 2**53 and "." not in text and "e" not in text.lower() else number


def truthy(value: Any) -> bool:
    """JavaScript truthiness (objects and lists are always true)."""
    if is_object(value):
        return True
    if is_number(value):
        return bool(value) and not math.isnan(value)
    return bool(value)


def _primitive(value: Any) -> Any:
    return js_string(value) if is_object(value) else value


def loose_equal(a: Any, b: Any) -> bool:
    """JavaScript `a == b`."""
    nullish_a, nullish_b = a is None or a is UNDEFINED, b is None or b is UNDEFINED
    if nullish_a or nullish_b:
        return nullish_a and nullish_b
    if is_object(a) or is_object(b):
        if is_object(a) and is_object(b):
            return a is b
        return loose_equal(_primitive(a), _primitive(b))
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, bool) and isinstance(b, bool):
        return a is b
    return to_number(a) == to_number(b)


def compare(op: str, a: Any, b: Any) -> bool:
    """JavaScript `a <op> b` for `==`, `!=`, `<`, `<=`, `>`, `>=`."""
    if op == "==":
        return loose_equal(a, b)
    if op == "!=":
        return not loose_equal(a, b)
    if op in ("<", ">"):
        return (_less(a, b) if op == "<" else _less(b, a)) is True
    result = _less(b, a) if op == "<=" else _less(a, b)
    return result is False


def _less(a: Any, b: Any) -> bool | None:
    """Abstract relational comparison: None stands for JavaScript's `undefined` (a NaN was involved)."""
    pa, pb = _primitive(a), _primitive(b)
    if isinstance(pa, str) and isinstance(pb, str):
        return utf16_key(pa) < utf16_key(pb)
    na = math.nan if pa is UNDEFINED else to_number(pa)
    nb = math.nan if pb is UNDEFINED else to_number(pb)
    if math.isnan(na) or math.isnan(nb):
        return None
    return na < nb


def utf16_length(text: str) -> int:
    """JavaScript's `text.length`: UTF-16 code units (2 for a character beyond U+FFFF)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_prefix(text: str, units: int) -> str:
    """JavaScript's `text.slice(0, units)`: may end in half of a surrogate pair, as JavaScript's does."""
    if text.isascii():
        return text[:units]
    return text.encode("utf-16-le", "surrogatepass")[: 2 * max(0, units)].decode("utf-16-le", "surrogatepass")


def utf16_key(text: str) -> bytes:
    """A sort key that orders strings by UTF-16 code units, as JavaScript does."""
    return text.encode("utf-16-be", "surrogatepass")


def to_json_data(value: Any) -> Any:
    """Plain JSON data as JSON.stringify would see it (undefined removed, floats as JavaScript prints them)."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return _integral(value) if value.is_integer() and abs(value) < 1e21 else value
    if isinstance(value, dict):
        return {str(k): to_json_data(v) for k, v in value.items() if v is not UNDEFINED}
    if isinstance(value, list):
        return [None if v is UNDEFINED else to_json_data(v) for v in value]
    return None if value is UNDEFINED else value


def _needs_conversion(value: Any) -> bool:
    if isinstance(value, float) or value is UNDEFINED:
        return True
    if isinstance(value, dict):
        return any(_needs_conversion(v) for v in value.values())
    if isinstance(value, list):
        return any(_needs_conversion(v) for v in value)
    return False


def stringify(value: Any, indent: int | None = None, *, sort_keys: bool = False) -> str:
    """`JSON.stringify(value, null, indent)`; `undefined` at the top prints as `null`."""
    data = to_json_data(value) if _needs_conversion(value) else value
    text = _dumps(data, indent, sort_keys)
    if not sort_keys and may_reorder(text):
        text = _dumps(js_ordered(data), indent, sort_keys)
    if not text.isascii() and _SURROGATE.search(text):
        text = _escape_lone_surrogates(text)
    return _fix_exponents(text) if "e-0" in text or "e+" in text else text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_lone_surrogates(text: str) -> str:
    """JSON text as JavaScript's JSON.stringify writes it: a pair of surrogates (split across two characters
    here, e.g. by a template) is the one character it encodes; a lone surrogate is written as `\\udXXX`."""
    paired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", paired)


def _dumps(data: Any, indent: int | None, sort_keys: bool) -> str:
    if indent is None:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
    return json.dumps(data, indent=indent, ensure_ascii=False, sort_keys=sort_keys)


_STRING_OR_EXPONENT = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?e[+-]\d+')


def _fix_exponents(text: str) -> str:
    """Rewrite Python float exponents (`1e-07`) in JSON text as JavaScript writes them (`1e-7`)."""
    return _STRING_OR_EXPONENT.sub(_js_token, text)


def _js_token(match: re.Match[str]) -> str:
    token = match.group(0)
    return token if token.startswith('"') else number_str(float(token))
