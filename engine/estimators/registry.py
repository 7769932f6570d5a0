"""The paper's method names (:mod:`engine.names`) and the estimator configuration each stands for.

``make_estimator("gbrt-rpo-gaussian", learning_rate=0.2)`` gives the estimator
the paper calls gbrt-rpo-gaussian, with overrides. A boosting name sets every
hyper-parameter the papers rely on (:data:`PAPER_BOOSTING_SETTINGS`: 100 steps,
learning rate 0.1, stumps, mean leaves with the line search, q = 1, no early
stopping), not the estimators' defaults, which serve a first fit instead. Their
``n_iter_no_change`` is the estimators' 10 (unused while early stopping is off), so that
``make_estimator(name, early_stopping=True)`` stops as the defaults do. The dashboard, the
experiments and the command line all refer to estimators by these names.

``ESTIMATOR_NAMES`` are the boosting names (paper 002); ``FOREST_NAMES`` the
forests (paper 002's mo-rf / st-rf baselines and paper 003's random forests on
projected outputs); ``ALL_NAMES`` both. Forest names:

* ``mo-rf``: multi-output random forest (trees grown on Y);
* ``st-rf``: one single-output random forest per output;
* ``mo-et``: multi-output extra trees (random thresholds, no bootstrap);
* ``rf-<scheme>-per-tree`` (Algorithm 2 of paper 003) and ``rf-<scheme>-shared``
  (Algorithm 1) for the schemes subsampled, gaussian, achlioptas and sparse.
  q defaults to ``n_components="log"`` = max(1, round(ln d)), the size paper
  003 uses for its 24-data-set comparison (Table 1): small enough to show the
  speed-up, and with a new projection per tree it already matches the
  unprojected forest on most of those data sets. Override with an integer.
"""
from engine.estimators.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor
from engine.estimators.forest import ProjectedForestClassifier, ProjectedForestRegressor
from engine.estimators.per_output_forest import PerOutputForestClassifier, PerOutputForestRegressor
from engine.methods import BOOSTING, FORESTS, SCHEMES
from engine.names import ALIASES, BOOSTING_NAMES, FOREST_NAMES, TASKS, boosting_name
from engine.validation import check_choice

# The papers' settings (paper 002's teaching setting, the estimators' defaults before issue 34):
# every boosting name sets them explicitly, so the experiments, presets and pages that name a
# paper's method stay exact whatever the estimators' defaults (chosen for a first fit) become.
# n_iter_no_change is 10, not the None of before: unused with early stopping off, and with
# early_stopping=True (an override) it stops the fit, where None would refuse it.
PAPER_BOOSTING_SETTINGS = dict(n_projections=1, learning_rate=0.1, n_estimators=100,
                               max_leaf_nodes=2, max_depth=None, min_samples_leaf=1,
                               max_features=None, subsample=1.0, leaf_estimation="mean",
                               l2_regularization=1.0, early_stopping=False,
                               validation_fraction=0.1, n_iter_no_change=10, tol=1e-4)

# One configuration per name, read from the method table (engine/methods.py): a strategy's row
# makes one name, a projected one a name per scheme; the unprojected ones keep "subsample" (unused).
BOOSTING_CONFIGS = {}
for _strategy, _row in BOOSTING.items():
    for _scheme in (SCHEMES if _row.projected else (None,)):
        BOOSTING_CONFIGS[boosting_name(_strategy, _scheme)] = dict(
            PAPER_BOOSTING_SETTINGS, strategy=_strategy, projection=_scheme or "subsample")
BOOSTING_CONFIGS = {name: BOOSTING_CONFIGS[name] for name in BOOSTING_NAMES}   # in the names' order

FOREST_CONFIGS = {kind: dict(row.config) for kind, row in FORESTS.items() if not row.projected}
for _scheme in SCHEMES:
    for _kind, _row in FORESTS.items():
        if _row.projected:
            FOREST_CONFIGS[f"rf-{SCHEMES[_scheme].suffix}-{_kind}"] = dict(projection=_scheme, **_row.config)

ESTIMATOR_NAMES = BOOSTING_NAMES
ALL_NAMES = ESTIMATOR_NAMES + FOREST_NAMES


def make_estimator(name, *, task="regression", **overrides):
    """A fresh, unfitted estimator for one of ``ALL_NAMES`` (boosting or forest).

    task : "regression" gives a regressor (MultiOutputBoostingRegressor,
    ProjectedForestRegressor, PerOutputForestRegressor for st-rf),
    "multilabel" the matching classifier. ``overrides`` are estimator parameters.
    """
    if not isinstance(name, str):      # a list would fail the dict look-ups as "unhashable"
        raise ValueError(f"name must be one of {ALL_NAMES}, got {name!r}")
    name = ALIASES.get(name, name)
    if name not in BOOSTING_CONFIGS and name not in FOREST_CONFIGS:
        raise ValueError(f"name must be one of {ALL_NAMES}, got {name!r}")
    check_choice(task, "task", TASKS)
    regression = task == "regression"
    if name in BOOSTING_CONFIGS:
        cls = MultiOutputBoostingRegressor if regression else MultiLabelBoostingClassifier
        config = BOOSTING_CONFIGS[name]
    elif FORESTS.get(name) is not None and FORESTS[name].trees_per_tree == "d":   # st-rf
        cls = PerOutputForestRegressor if regression else PerOutputForestClassifier
        config = FOREST_CONFIGS[name]
    else:
        cls = ProjectedForestRegressor if regression else ProjectedForestClassifier
        config = FOREST_CONFIGS[name]
    params = {**config, **overrides}
    valid = cls().get_params()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"unknown parameter(s) for {name}: {unknown}; valid ones are {sorted(valid)}")
    return cls(**params)
