#!/usr/bin/env python3
"""Makes the expected output of math.c's "values" mode (scenarios/tests/crt/README.md):

    python3 scenarios/tests/crt/math_ref.py < OUTPUT > math.values.msvcrt.txt

reads the lines "name x [y] -> r" a build printed (x, y, r: a double's bits in hexadecimal) and
writes them again with r replaced by the correctly rounded value of name(x, y), computed with
mpmath at 2,400 bits (round to nearest, ties to even; denormals rounded once at their own
precision).  The results a build printed are not used.  A value within 2^-1000 of a tie between
two doubles is reported on stderr (none of the current arguments is)."""
import struct
import sys
from fractions import Fraction

import mpmath
from mpmath import mpf

mpmath.mp.prec = 2400


IND = struct.unpack('<d', bytes.fromhex('FFF8000000000000')[::-1])[0]


def to_f(h):
    return struct.unpack('<d', bytes.fromhex(h)[::-1])[0]


def to_h(d):
    return '%016X' % struct.unpack('<Q', struct.pack('<d', d))[0]


def exact(d):
    """an exact Fraction of a finite double"""
    return Fraction(d)


def round_fraction(v):
    """the double nearest to the Fraction v (ties to even), with infinities for overflow"""
    if v == 0:
        return 0.0
    neg = v < 0
    v = -v if neg else v
    # the exponent e with 2^e <= v < 2^(e+1)
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    q = max(e, -1022) - 52  # the last place
    scaled = v / (Fraction(2) ** q)
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = Fraction(n) * Fraction(2) ** q
    if r >= Fraction(2) ** 1024:
        d = float('inf')
    else:
        d = float(r)  # exact: r is a double
    return -d if neg else d


def round_mpf(v):
    """the double nearest to v (ties to even: reported, as none should occur)"""
    if mpmath.isinf(v):
        return float(v)
    if v == 0:
        return 0.0
    m, e = mpmath.frexp(v)  # v = m 2^e, 0.5 <= |m| < 1
    q = max(int(e) - 1, -1022) - 52  # the last place of the result
    scaled = mpmath.ldexp(abs(v), -q)
    n = int(mpmath.floor(scaled))
    frac = scaled - n
    half = mpf(1) / 2
    if abs(frac - half) < mpmath.ldexp(1, -1000):
        print('near a tie:', mpmath.nstr(v, 40), file=sys.stderr)
    if frac > half or (frac == half and n % 2 == 1):
        n += 1
    r = round_fraction(Fraction(n) * Fraction(2) ** q)
    return -r if v < 0 else r


def ref(name, x, y):
    X = mpf(x)
    Y = mpf(y) if y is not None else None
    if name == 'fmod':
        ex, ey = exact(x), abs(exact(y))
        r = abs(ex) - (abs(ex) // ey) * ey
        return round_fraction(r if ex >= 0 else -r) if r != 0 else (0.0 if x > 0 else -0.0)
    if name == 'remainder':
        ex, ey = exact(x), abs(exact(y))
        q = ex / ey
        n = q.numerator // q.denominator
        rem = q - n
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
            n += 1
        r = ex - n * ey
        return round_fraction(r) if r != 0 else (0.0 if x > 0 else -0.0)
    if name == 'sqrt':
        v = mpmath.sqrt(X)
    elif name == '_hypot':
        v = mpmath.sqrt(X * X + Y * Y)
    elif name == 'pow':
        if y == int(y) and abs(y) < 4000:  # exact: a rational power
            r = exact(x) ** int(y)
            return round_fraction(r)
        v = mpmath.power(X, Y) if x > 0 else None
    elif name == 'atan2':
        v = mpmath.atan2(X, Y)
    elif name == 'log10':
        v = mpmath.log10(X)
    elif name == 'log2':
        v = mpmath.log(X, 2)
    elif name == 'cbrt':  # the real root (mpmath's is the principal complex one)
        v = mpmath.cbrt(abs(X)) * (1 if x > 0 else -1)
    elif name == 'exp2':
        v = mpmath.power(2, X)
    else:
        v = getattr(mpmath, name)(X)
    if v is None or isinstance(v, mpmath.mpc):  # outside the domain: the indefinite NaN
        return IND
    return round_mpf(v)


for line in sys.stdin:
    line = line.rstrip('\r\n')
    parts = line.split()
    name, args = parts[0], parts[1:parts.index('->')]
    x = to_f(args[0])
    y = to_f(args[1]) if len(args) > 1 else None
    r = ref(name, x, y)
    print(' '.join([name] + args + ['->', to_h(r)]))
