"""The exp of the logistic passes (engine/_core/exp_kernels.h): accurate, saturating like libm's.

Oracle: numpy's exp in extended precision (x86's 80-bit long double, 11 more
bits than a double), rounded to double, is the correctly rounded exp but for
rare ties; the polynomial must be within 1 ulp of it everywhere (the header's
error analysis: under 0.6 ulp; measured at most 1 ulp apart on 2 million
points). Where long double is no wider than double, numpy's own exp is the
oracle, within 2 ulp (its error plus ours).
"""
import numpy as np
import pytest

from engine._core import testing as _hooks

EXTENDED = np.finfo(np.longdouble).nmant >= 63
MODES = ("portable", "avx2")


@pytest.fixture(params=MODES)
def mode(request):
    used = _hooks.set_exp_mode(request.param)
    yield used
    _hooks.set_exp_mode("avx2")          # the module's default (the best this CPU has)


def _oracle(x):
    if EXTENDED:
        with np.errstate(over="ignore"):
            return np.exp(x.astype(np.longdouble)).astype(np.float64), 1.0
    with np.errstate(over="ignore"):
        return np.exp(x), 2.0


def _ulps(got, want):
    finite = np.isfinite(want) & (want > 0)
    assert np.array_equal(got[~finite], want[~finite], equal_nan=True)
    return np.abs(got[finite] - want[finite]) / np.spacing(want[finite])


def test_within_one_ulp_over_the_whole_range(mode):
    rng = np.random.default_rng(0)
    x = np.concatenate([
        rng.uniform(-745.2, 709.8, 400_000),        # every result from 0 to the largest double
        rng.uniform(-1.0, 1.0, 200_000),            # where the loss lives
        rng.normal(0.0, 1e-8, 20_000),              # tiny arguments: exp = 1 + x
        np.linspace(-0.3466, 0.3466, 20_001),       # r across the reduced range
        np.arange(-1000, 1000) * np.log(2.0),       # k ln 2: r near 0, results near powers of 2
        (np.arange(-1000, 1000) + 0.5) * np.log(2.0),   # r at +-ln(2)/2, where k flips
    ])
    want, bound = _oracle(x)
    ulps = _ulps(_hooks.exp_array(x), want)
    assert ulps.max() <= bound, (mode, ulps.max())


def test_extremes_saturate_like_libm(mode):
    """0, tiny, the limits of the polynomial's range, subnormal results, 0, inf and NaN."""
    x = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-300, 1e-17, -1e-17,
                  -708.0, -708.0000001, -707.9999999, 709.0, 709.0000001, 708.9999999,
                  -709.1, -720.0, -744.4, -745.13, -745.14, -746.0, -1e4, -1e308,
                  709.78, 709.79, 710.0, 1e4, 1e308, -np.inf, np.inf, np.nan])
    got = _hooks.exp_array(x)
    libm_mode = _hooks.set_exp_mode("libm")
    assert libm_mode == "libm"
    libm = _hooks.exp_array(x)
    _hooks.set_exp_mode(mode)
    outside = ~((x >= -708.0) & (x <= 709.0))      # libm's own values there, bit for bit
    assert np.array_equal(got[outside], libm[outside], equal_nan=True)
    assert got[x == 0].tolist() == [1.0, 1.0]
    assert got[-3] == 0.0 and got[-2] == np.inf and np.isnan(got[-1])
    assert np.all(got[(x > 709.79) & np.isfinite(x)] == np.inf)
    assert np.all(got[x < -745.14] == 0.0)
    want, bound = _oracle(x)
    assert _ulps(got, want).max() <= bound


def test_a_value_does_not_depend_on_its_place_in_the_array(mode):
    """The tail is padded to a full vector: the same argument gives the same double anywhere."""
    x = np.random.default_rng(1).uniform(-30.0, 30.0, 37)
    whole = _hooks.exp_array(x)
    for start in range(8):
        np.testing.assert_array_equal(_hooks.exp_array(x[start:]), whole[start:])
    np.testing.assert_array_equal(np.concatenate([_hooks.exp_array(x[k:k + 1]) for k in range(37)]),
                                  whole)


def test_set_exp_mode_names_its_argument():
    with pytest.raises(ValueError, match="mode"):
        _hooks.set_exp_mode("fast")
    assert _hooks.set_exp_mode("avx2") in MODES
