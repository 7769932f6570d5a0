"""The paper's estimator names and the configurations they stand for.

``make_estimator("gbrt-rpo-gaussian", learning_rate=0.2)`` gives the estimator
the paper calls gbrt-rpo-gaussian, with overrides. The dashboard, the
experiments and the command line all refer to estimators by these names.
"""
from engine.boosting import MultiLabelBoostingClassifier, MultiOutputBoostingRegressor

# The paper writes "subsampled" in names and "sub-sampling" in prose.
_SCHEME_OF_SUFFIX = {"subsampled": "subsample", "gaussian": "gaussian",
                     "achlioptas": "achlioptas", "sparse": "sparse"}

BOOSTING_CONFIGS = {
    "st-gbrt": dict(strategy="single_target"),
    "gbmort": dict(strategy="multi_output"),
}
for _suffix, _scheme in _SCHEME_OF_SUFFIX.items():
    BOOSTING_CONFIGS[f"gbrt-rpo-{_suffix}"] = dict(strategy="projected", projection=_scheme)
    BOOSTING_CONFIGS[f"gbrt-relabel-rpo-{_suffix}"] = dict(
        strategy="projected_relabel", projection=_scheme)

# Binary relevance is the multi-label name of single target.
ALIASES = {"br-gbrt": "st-gbrt"}

ESTIMATOR_NAMES = tuple(BOOSTING_CONFIGS)
TASKS = ("regression", "multilabel")


def make_estimator(name, *, task="regression", **overrides):
    """A fresh, unfitted estimator for one of ``ESTIMATOR_NAMES``.

    task : "regression" gives a MultiOutputBoostingRegressor, "multilabel" a
    MultiLabelBoostingClassifier. ``overrides`` are estimator parameters.
    """
    name = ALIASES.get(name, name)
    if name not in BOOSTING_CONFIGS:
        raise ValueError(f"name must be one of {ESTIMATOR_NAMES}, got {name!r}")
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    cls = MultiOutputBoostingRegressor if task == "regression" else MultiLabelBoostingClassifier
    params = {**BOOSTING_CONFIGS[name], **overrides}
    valid = cls().get_params()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"unknown parameter(s) for {name}: {unknown}; valid ones are {sorted(valid)}")
    return cls(**params)
