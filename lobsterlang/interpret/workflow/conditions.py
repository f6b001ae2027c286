"""Evaluate `when:`/`condition:` with the reference's JavaScript semantics (strict `==`, numeric `<`)."""

from __future__ import annotations

import math
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.values import UNDEFINED, is_number, to_number, truthy
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.refs import Results, lookup


class ConditionError(WorkflowError):
    """A condition the reference rejects when the step is reached (`Unsupported condition: …`)."""


def should_run(condition: ir.Condition | None, results: Results) -> bool:
    """Whether a step runs: no condition runs it; raises ConditionError or UnknownStep."""
    if condition is None:
        return True
    if isinstance(condition, ir.ConstCondition):
        return condition.value
    if isinstance(condition, ir.InvalidCondition):
        raise ConditionError(condition.message)
    return truthy(evaluate(condition.expr, results))


def evaluate(expr: ir.Expr, results: Results) -> Any:
    """The JavaScript value of an expression; both sides of `&&`/`||` are always evaluated."""
    if isinstance(expr, ir.Literal):
        return expr.value
    if isinstance(expr, ir.Ident):
        return expr.name
    if isinstance(expr, ir.StepRef):
        return lookup(results, expr)
    if isinstance(expr, ir.Not):
        return not truthy(evaluate(expr.operand, results))
    left, right = evaluate(expr.left, results), evaluate(expr.right, results)
    if isinstance(expr, ir.Logical):
        return (truthy(left) and truthy(right)) if expr.op == "&&" else (truthy(left) or truthy(right))
    return compare(expr.op, left, right)


def compare(op: str, left: Any, right: Any) -> bool:
    """`==`/`!=` deep-strict for objects and Object.is otherwise; `<`… only between numerics."""
    if op == "==":
        return deep_equal(left, right)
    if op == "!=":
        return not deep_equal(left, right)
    a, b = _numeric(left), _numeric(right)
    if a is None or b is None:
        return False
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _numeric(value: Any) -> float | None:
    if is_number(value):
        return None if math.isnan(value) else float(value)
    if isinstance(value, str) and value.strip():
        number = to_number(value)
        return None if math.isnan(number) else float(number)
    return None


def same_value(a: Any, b: Any) -> bool:
    """JavaScript `Object.is` for primitives: no coercion, NaN equals NaN, 0 differs from -0."""
    if is_number(a) and is_number(b):
        if math.isnan(a) and math.isnan(b):
            return True
        if a == 0 and b == 0:
            return math.copysign(1, a) == math.copysign(1, b)
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if a is None or b is None or a is UNDEFINED or b is UNDEFINED:
        return a is b
    return type(a) is type(b) and bool(a == b)


def deep_equal(a: Any, b: Any) -> bool:
    """`isDeepStrictEqual`: same shape, same keys in any order, primitives compared with Object.is."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    return same_value(a, b)
