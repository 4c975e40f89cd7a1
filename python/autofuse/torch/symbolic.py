"""Torch's symbolic sizes (sympy expressions of SymInts) as autofuse shape expressions.

autofuse's expression syntax (lib/symbolic/src/parse.rs): integers, symbol names,
``+ - *``, ``/`` as floor division, and the calls ``floor(a/b)``, ``ceil(a/b)``,
``mod(a, b)``, ``min(...)``, ``max(...)``. Dynamo's symbols (``s0``, ``s33``) keep their
names, so the compiled graph's symbols are the guards' symbols.
"""

from __future__ import annotations

import sympy


class Unsupported(Exception):
    """Something the FX graph holds that autofuse cannot take: the graph runs on torch,
    with this reason in the report."""


def expr_text(value) -> str:
    """An int, a SymInt or a sympy expression as autofuse expression text."""
    if isinstance(value, bool):
        raise Unsupported(f"a boolean where a size is expected: {value}")
    if isinstance(value, int):
        return str(value)
    node = getattr(value, "node", None)
    if node is not None and hasattr(node, "expr"):
        return _sympy_text(node.expr)
    if isinstance(value, sympy.Basic):
        return _sympy_text(value)
    raise Unsupported(f"a size of type {type(value).__name__}: {value!r}")


def _sympy_text(e) -> str:
    if isinstance(e, sympy.Integer):
        return str(int(e))
    if isinstance(e, sympy.Symbol):
        return e.name
    name = type(e).__name__
    args = [_sympy_text(a) for a in e.args]
    if isinstance(e, sympy.Add):
        return "(" + " + ".join(args) + ")"
    if isinstance(e, sympy.Mul):
        if any(isinstance(a, sympy.Rational) and not isinstance(a, sympy.Integer) for a in e.args):
            raise Unsupported(f"a size with a fraction: {e}")
        return "(" + "*".join(args) + ")"
    if isinstance(e, sympy.Pow):
        base, exponent = e.args
        if isinstance(exponent, sympy.Integer) and int(exponent) >= 1:
            return "(" + "*".join([_sympy_text(base)] * int(exponent)) + ")"
        raise Unsupported(f"a size with a power: {e}")
    if name == "FloorDiv":
        return f"floor(({args[0]})/({args[1]}))"
    if name == "CeilDiv":
        return f"ceil(({args[0]})/({args[1]}))"
    if name in ("Mod", "PythonMod"):
        return f"mod({args[0]}, {args[1]})"
    if name == "Max":
        return f"max({', '.join(args)})"
    if name == "Min":
        return f"min({', '.join(args)})"
    raise Unsupported(f"a size expression autofuse does not model: {e} ({name})")


def evaluate(text: str, values: dict[str, int]) -> int:
    """Evaluates an autofuse expression text for concrete symbol values (the bindings
    of a call's shapes), with autofuse's meaning of ``/`` (floor division)."""
    return _Evaluator(text, values).run()


class _Evaluator:
    def __init__(self, text: str, values: dict[str, int]):
        self.text = text
        self.values = values
        self.pos = 0

    def run(self) -> int:
        v = self.expr()
        self.skip()
        if self.pos != len(self.text):
            raise ValueError(f"trailing text in size expression {self.text!r}")
        return v

    def skip(self):
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expr(self) -> int:
        v = self.term()
        while self.peek() in ("+", "-"):
            op = self.text[self.pos]
            self.pos += 1
            r = self.term()
            v = v + r if op == "+" else v - r
        return v

    def term(self) -> int:
        v = self.unary()
        while self.peek() in ("*", "/"):
            op = self.text[self.pos]
            self.pos += 1
            r = self.unary()
            v = v * r if op == "*" else v // r
        return v

    def unary(self) -> int:
        if self.peek() == "-":
            self.pos += 1
            return -self.unary()
        return self.primary()

    def primary(self) -> int:
        c = self.peek()
        if c == "(":
            self.pos += 1
            v = self.expr()
            self.expect(")")
            return v
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] == "_"):
            self.pos += 1
        word = self.text[start:self.pos]
        if not word:
            raise ValueError(f"bad size expression {self.text!r}")
        if word.isdigit():
            return int(word)
        if self.peek() == "(":
            return self.call(word)
        if word not in self.values:
            raise KeyError(word)
        return self.values[word]

    def expect(self, ch: str):
        if self.peek() != ch:
            raise ValueError(f"expected {ch!r} in size expression {self.text!r}")
        self.pos += 1

    def call(self, name: str) -> int:
        self.expect("(")
        if name in ("floor", "ceil"):
            # The argument ends in a division: a/b with autofuse's floor division
            # replaced by the exact quotient's floor or ceiling.
            num, den = self.division()
            self.expect(")")
            return num // den if name == "floor" else -((-num) // den)
        args = [self.expr()]
        while self.peek() == ",":
            self.pos += 1
            args.append(self.expr())
        self.expect(")")
        if name == "mod":
            return args[0] % args[1]
        if name == "align":
            return -((-args[0]) // args[1]) * args[1]
        if name == "min":
            return min(args)
        if name == "max":
            return max(args)
        raise ValueError(f"unknown call {name} in size expression {self.text!r}")

    def division(self) -> tuple[int, int]:
        # The argument is a product ending in a division: its numerator is everything
        # before the last '/', evaluated exactly (earlier divisions floor as usual).
        num = self.unary()
        den = None
        while self.peek() in ("*", "/"):
            op = self.text[self.pos]
            self.pos += 1
            r = self.unary()
            if den is not None:
                num, den = num // den, None
            if op == "*":
                num *= r
            else:
                den = r
        return num, (1 if den is None else den)
