"""Numbers written for people: one helper for every sentence, label and caption.

Python's ``g`` format writes 2100 as "2.1e+03" and 6.1875 trees as "6.1875": a student reads the
first as a formula and the second as false precision. :func:`fmt_number` writes whole digits in
full with thin groups of three ("2 100", "10 020"), rounds to a few significant digits
("6.2", "0.0123") and keeps powers of ten for very small magnitudes only ("3.1 × 10⁻⁶").
"""

from __future__ import annotations

import math

__all__ = ["fmt_number", "GROUP"]

GROUP = "\u00a0"       # a no-break space between groups of three digits: "2 100" never wraps
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
SMALLEST_PLAIN = 1e-4  # below this magnitude: a power of ten ("0.00001234" is hard to count)


def _grouped(digits: str) -> str:
    head, _, tail = digits.partition(".")
    sign = "-" if head.startswith("-") else ""
    head = head.lstrip("-")
    groups = []
    while len(head) > 3:
        head, groups = head[:-3], [head[-3:], *groups]
    head = GROUP.join([head, *groups])
    return sign + head + (f".{tail}" if tail else "")


def fmt_number(x, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits, never fewer than its whole digits.

    2100.4 -> "2 100", 10020 -> "10 020", 6.1875 -> "6.19" (digits=2: "6.2"), 0.012345 -> "0.0123",
    5.0 -> "5", 3.1e-6 -> "3.1 × 10⁻⁶"; NaN or None -> "–". Trailing zeros are dropped.
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be a positive integer, got {digits!r}")
    if x is None:
        return "–"
    x = float(x)
    if math.isnan(x):
        return "–"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    a = abs(x)
    if a < SMALLEST_PLAIN:
        mantissa, exponent = f"{x:.{max(digits - 1, 0)}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    decimals = max(digits - 1 - math.floor(math.log10(a)), 0)
    text = f"{round(x, decimals):.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return _grouped("0" if text in ("-0", "") else text)
