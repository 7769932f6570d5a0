"""The projection of a boosting step's gradient, T = G Phi^T (split_targets.pyx, projection_kernels.h).

Oracles: numpy's product (the kernels sum in other orders, so within rounding: 1e-12 of the
sum of the terms' magnitudes), numpy emulating the dense kernel's documented summation order
one rounded operation at a time (the portable version must match it to the bit), and a column
gather for sub-sampling (to the bit: one product by 1 per entry).
"""
import numpy as np
import pytest
import scipy.sparse as sp

from engine import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine._core import testing as _hooks
from engine.names import PROJECTIONS
from engine.projections import DENSE_SCHEMES, draw_projections, to_csr

MODES = ("portable", "avx2")
# (n, d, q): rows not a multiple of the 4-row block, d with and without a tail after its
# multiples of 4, odd q (a projection left after the pairs), d = 1.
SHAPES = [(1, 1, 1), (3, 2, 1), (5, 3, 3), (9, 4, 2), (13, 7, 5), (37, 18, 20), (64, 983, 20),
          (11, 983, 3)]


@pytest.fixture(params=MODES)
def mode(request):
    used = _hooks.set_projection_mode(request.param)
    yield used
    _hooks.set_projection_mode("avx2")          # the module's default (the best this CPU has)


def _project(G, phi, dense, n_threads=1):
    return _hooks.project_on_arrays(G, *to_csr(phi[None]), dense=dense, n_threads=n_threads)


def _problem(n, d, q, kind, seed):
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0, size=(1, d))
    phi = draw_projections(kind, 1, min(q, d) if kind == "subsample" else q, d, rng)[0]
    return G, phi


@pytest.mark.parametrize("kind", PROJECTIONS)
@pytest.mark.parametrize("n, d, q", SHAPES)
def test_equals_numpy_product_within_rounding(mode, kind, n, d, q):
    G, phi = _problem(n, d, q, kind, seed=n * 1000 + d + q)
    want = G @ phi.T
    scale = np.abs(G) @ np.abs(phi).T           # the sum of the terms' magnitudes
    for dense in (kind in DENSE_SCHEMES, True, False):   # the scheme's path, then each path
        got = _project(G, phi, dense)
        assert got.shape == want.shape
        assert np.all(np.abs(got - want) <= 1e-12 * scale), (kind, dense)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * scale.max())


def _documented_order(G, phi):
    """The kernel's order in numpy, one rounded operation at a time: four lane sums over
    k = l, l + 4, ... < d4, then (a0 + a1) + (a2 + a3), then the tail k = d4 .. d - 1."""
    n, d = G.shape
    d4 = d - d % 4
    lanes = np.zeros((4, n, phi.shape[0]))
    for k in range(0, d4, 4):
        for lane in range(4):
            lanes[lane] += G[:, k + lane, None] * phi[None, :, k + lane]
    total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
    for k in range(d4, d):
        total += G[:, k, None] * phi[None, :, k]
    return total


@pytest.mark.parametrize("n, d, q", SHAPES)
def test_portable_kernel_sums_in_its_documented_order(n, d, q):
    G, phi = _problem(n, d, q, "gaussian", seed=q)
    assert _hooks.set_projection_mode("portable") == "portable"
    try:
        np.testing.assert_array_equal(_project(G, phi, dense=True), _documented_order(G, phi))
    finally:
        _hooks.set_projection_mode("avx2")


def test_subsampling_is_a_column_gather():
    G, phi = _problem(50, 30, 7, "subsample", seed=4)
    np.testing.assert_array_equal(_project(G, phi, dense=False), G[:, phi.argmax(axis=1)])


@pytest.mark.parametrize("dense", (True, False))
def test_result_does_not_depend_on_threads(mode, dense):
    """More rows than one block of row_blocks.pxd, so two threads share them."""
    G, phi = _problem(9000, 37, 5, "achlioptas", seed=5)
    np.testing.assert_array_equal(_project(G, phi, dense, n_threads=2), _project(G, phi, dense))


def test_an_empty_projection_row_gives_a_zero_column(mode):
    G, phi = _problem(10, 6, 3, "gaussian", seed=6)
    phi[1] = 0.0
    for dense in (True, False):
        got = _project(G, phi, dense)
        np.testing.assert_array_equal(got[:, 1], 0.0)
        np.testing.assert_allclose(got, G @ phi.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bad", ["rows", "index"])
def test_refuses_arrays_that_do_not_fit(bad):
    G = np.ones((4, 3))
    indptr, indices, data = to_csr(np.eye(3)[None])
    if bad == "rows":
        indptr = indptr.copy()
        indptr[-1] += 1
    else:
        indices = indices.copy()
        indices[0] = 3
    with pytest.raises(ValueError):
        _hooks.project_on_arrays(G, indptr, indices, data, True)
    with pytest.raises(ValueError, match="mode"):
        _hooks.set_projection_mode("sse9")


# ---------------------------------------------------------------- models: both kernel versions

def _fit(mode, cls, X, Y, **params):
    assert _hooks.set_projection_mode(mode) in (mode, "portable")
    w = params.pop("_w", None)
    try:
        return cls(**params).fit(X, Y, sample_weight=w)
    finally:
        _hooks.set_projection_mode("avx2")


@pytest.mark.parametrize("case", ["logistic-csr-weights", "square-masked", "rpo-entry-weights"])
def test_models_of_both_kernel_versions_agree(case):
    """The AVX2 (FMA) and portable kernels differ by rounding only, so do the models they
    give, under row weights, CSR input, missing targets and per-entry weights."""
    rng = np.random.default_rng(8)
    X = rng.uniform(size=(150, 6))
    Y = X @ rng.normal(size=(6, 9)) + 0.2 * rng.normal(size=(150, 9))
    base = dict(n_estimators=15, max_leaf_nodes=4, learning_rate=0.3, random_state=2,
                n_jobs=1, projection="gaussian", n_projections=3, leaf_estimation="mean",
                early_stopping=False)
    if case == "logistic-csr-weights":
        cls, X, Y = MultiLabelBoostingClassifier, sp.csr_matrix(np.where(X < 0.3, 0, X)), Y > 0
        params = dict(base, strategy="projected_relabel", projection="achlioptas",
                      _w=rng.uniform(0.5, 2.0, size=150))
    elif case == "square-masked":
        Y = Y.copy()
        Y[rng.uniform(size=Y.shape) < 0.2] = np.nan
        cls, params = MultiOutputBoostingRegressor, dict(base, strategy="projected_relabel",
                                                        missing_targets="ignore")
    else:
        cls, params = MultiOutputBoostingRegressor, dict(base, strategy="projected",
                                                        n_projections=1,
                                                        _w=rng.uniform(0.2, 2.0, size=Y.shape))
    fits = [_fit(m, cls, X, Y, **dict(params)) for m in MODES]
    raw = [f._raw_predict(X) for f in fits]
    np.testing.assert_allclose(raw[0], raw[1], rtol=1e-9, atol=1e-9)
    assert np.all(np.isfinite(raw[0])) and np.ptp(raw[0]) > 0
