"""The one safe expression language of the project, evaluated with numpy.

Used by design-space files (``set:`` and ``where:`` of :mod:`accelgen.ppa.dse`) and by fitted-model
features (:mod:`accelgen.fit.model`). An expression is parsed once, every node checked against a
whitelist, and turned into nested Python closures; nothing is ever passed to ``eval``, so a space
or model file cannot run code.

Allowed: numbers, strings and booleans; names (the ``names`` given to :func:`compile_expr`);
``+ - * / // % **``, ``&``, ``|``; unary ``-``, ``+`` and ``not``; comparisons (chains allowed);
``and``/``or``; and calls of the :data:`FUNCTIONS` by name with positional arguments. Nothing
else: no attributes, subscripts, lambdas, comprehensions or keyword arguments.

Names may be numpy arrays (one value per design point or model input); arrays broadcast.
``and``, ``or``, ``not`` and chained comparisons work element-wise (``np.logical_and``/``_or``/
``_not``), every operand is evaluated, and a comparison yields a numpy bool (array).

A problem is a :class:`ValueError` naming the expression: ``feature 'a_width.real': Attribute is
not allowed in an expression``.
"""

from __future__ import annotations

import ast
import functools
import operator
from typing import Any, Callable, Iterable, Mapping

import numpy as np


def _to_int(x):
    return np.asarray(x).astype(np.int64)


#: the functions an expression may call
FUNCTIONS: dict[str, Callable] = {
    "min": np.minimum, "max": np.maximum, "minimum": np.minimum, "maximum": np.maximum,
    "log2": np.log2, "log": np.log, "exp": np.exp, "sqrt": np.sqrt, "abs": np.abs,
    "ceil": np.ceil, "floor": np.floor, "int": _to_int, "where": np.where,
}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_UNARY = (ast.USub, ast.UAdd, ast.Not)
_BOOL = (ast.And, ast.Or)

Env = Mapping[str, Any]


class Expr:
    """A checked expression: ``expr(env)`` evaluates it on the values (scalars or arrays) in ``env``."""

    __slots__ = ("text", "names", "_fn")

    def __init__(self, text: str, names: frozenset[str], fn: Callable[[Env], Any]):
        self.text, self.names, self._fn = text, names, fn

    def __call__(self, env: Env) -> Any:
        return self._fn(env)

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"


def compile_expr(text: str, names: Iterable[str], *, what: str = "expression") -> Expr:
    """Parse and check ``text`` over ``names``; ``what`` ("feature", ...) starts every error message."""
    names = frozenset(names)
    return _compile(text, names, what)


@functools.lru_cache(maxsize=4096)
def _compile(text: str, names: frozenset[str], what: str) -> Expr:
    label = f"{what} {text!r}"
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"{label} is not a valid expression: {exc.msg}") from None
    return Expr(text, names, _build(tree.body, names, label))


def _build(node: ast.AST, names: frozenset[str], label: str) -> Callable[[Env], Any]:
    """Check ``node`` and return the closure that evaluates it."""
    if isinstance(node, ast.Constant):
        value = node.value
        if not isinstance(value, (bool, int, float, str)):
            raise ValueError(f"{label}: the constant {value!r} is not allowed in an expression")
        return lambda env: value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ValueError(f"{label}: unknown name {node.id!r}; allowed: {', '.join(sorted(names))}")
        key = node.id
        return lambda env: env[key]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        op, left, right = _BINARY[type(node.op)], _build(node.left, names, label), _build(node.right, names, label)
        return lambda env: op(left(env), right(env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNARY):
        operand = _build(node.operand, names, label)
        if isinstance(node.op, ast.Not):
            return lambda env: np.logical_not(operand(env))
        if isinstance(node.op, ast.USub):
            return lambda env: -operand(env)
        return operand
    if isinstance(node, ast.BoolOp) and isinstance(node.op, _BOOL):
        parts = [_build(v, names, label) for v in node.values]
        combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        return lambda env: functools.reduce(combine, [p(env) for p in parts])
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        first = _build(node.left, names, label)
        chain = [(_COMPARE[type(op)], _build(c, names, label)) for op, c in zip(node.ops, node.comparators)]

        def compare(env):
            left, out = first(env), True
            for op, comparator in chain:
                right = comparator(env)
                out = np.logical_and(out, op(left, right))
                left = right
            return out

        return compare
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
            raise ValueError(f"{label}: only {', '.join(FUNCTIONS)} may be called (positional arguments only)")
        fn = FUNCTIONS[node.func.id]
        args = [_build(a, names, label) for a in node.args]
        return lambda env: fn(*[a(env) for a in args])
    bad = [op for op in getattr(node, "ops", ()) if type(op) not in _COMPARE]
    kind = type(bad[0] if bad else getattr(node, "op", None) or node).__name__
    raise ValueError(f"{label}: {kind} is not allowed in an expression")
