"""The settings an experiment runs with, beside the problem it runs on: one object per family,
validated once when it is built (a ``ValueError`` naming the argument), and the argument checks
the experiments share (one per concept: a list of names, a list of q, a flag, a seed).

* :class:`BoostingSettings`: what every boosting model of a run is fitted with (paper 002);
* :class:`ForestSettings`: what every forest of a run is grown with (paper 003).

What depends on the problem (a loss the task refuses, q above d for output sub-sampling,
``max_features`` above p) is checked by ``settings.check(task, n_outputs)`` once the problem's
shape is known, still before any data are drawn.

q, the size of the random output projection, is ``q`` here and in every experiment (and
``q_values`` where a run sweeps a list of them); the estimators keep their scikit-learn-style
parameter names (``n_projections`` for boosting, ``n_components`` for forests, as
``sklearn.random_projection`` names it) and :meth:`BoostingSettings.model_kwargs` /
``ForestSettings``'s plans translate in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.estimators.registry import BOOSTING_CONFIGS, make_estimator
from engine.methods import BOOSTING, SCHEMES
from engine.names import ALIASES, LEAF_ESTIMATIONS, LOSSES, PROJECTIONS
from engine.projections import check_projection
from engine.validation import check_choice, check_in_interval, check_int, check_n_jobs

__all__ = ["BoostingSettings", "ForestSettings", "check_kind", "check_names", "check_q_values", "check_flag",
           "check_seed"]

ALL_LOSSES = tuple(dict.fromkeys(LOSSES["regression"] + LOSSES["multilabel"]))


# --------------------------------------------------------------------------
# The shared argument checks
# --------------------------------------------------------------------------


def _as_list(values, name, what):
    """``values`` as a non-empty list (one value alone is a list of one); ValueError naming ``name``."""
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        values = [values]
    try:
        values = list(values)
    except TypeError:
        raise ValueError(f"{name} must be a list of {what}s") from None
    if not values:
        raise ValueError(f"{name} is empty: give at least one {what}")
    return values


def check_names(values, name, known, what="name"):
    """A list of distinct names from ``known`` (one name alone is a list of one)."""
    values = _as_list(values, name, what)
    for v in values:
        if not isinstance(v, str) or v not in known:
            raise ValueError(f"{name}: unknown {what} {v!r}; valid ones are {tuple(known)}")
    if len(set(values)) != len(values):
        raise ValueError(f"{name} lists a {what} twice: {values}")
    return values


def check_flag(value, name):
    """True or False (numpy's bools too), as a Python bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_kind(value, name, kind):
    """``value`` when it is a ``kind`` (a settings object built, hence checked, by the caller)."""
    if not isinstance(value, kind):
        raise ValueError(f"{name} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def check_seed(seed, name="seed"):
    """The seed of an experiment: an integer >= 0 (it seeds the data and every model)."""
    return check_int(seed, name, 0)


def check_q_values(q_values, name="q_values", words=("log",)):
    """A sweep of q: distinct integers >= 1 or the words ``"log"`` (round(ln d), paper 003's Table 1)
    and ``"d"`` (where allowed), as a tuple in the given order. Checked against d by :func:`resolve_q`."""
    raw = _as_list(q_values, name, "projected dimension q")
    out = []
    for q in raw:
        if isinstance(q, str):
            if q not in words:
                raise ValueError(f"{name} must hold integers >= 1" + "".join(f", {w!r}" for w in words)
                                 + f", got {q!r}")
            out.append(q)
        else:
            out.append(check_int(q, name, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"{name} lists a value twice: {raw}")
    return tuple(out)


def q_of(q, d):
    """One q as an integer: "log" -> max(1, round(ln d)), "d" -> d."""
    if q == "log":
        return max(1, int(round(np.log(d))))
    return int(d) if q == "d" else int(q)


def resolve_q(q_values, projection, d, name="q_values", skip_too_large=False):
    """The q of a sweep as sorted distinct integers for a problem with d outputs; q > d with output
    sub-sampling is an error (left out with ``skip_too_large``)."""
    qs = sorted({q_of(q, d) for q in q_values})
    if projection is not None:
        if skip_too_large and SCHEMES[projection].q_at_most_d:       # output sub-sampling
            return [q for q in qs if q <= d]
        for q in qs:
            try:
                check_projection(projection, q, d)
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None
    return qs


# --------------------------------------------------------------------------
# Boosting
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class BoostingSettings:
    """The boosting settings of a run: every model of it is fitted with them (and its own strategy
    and projection scheme).

    n_steps : boosting steps of every model
    learning_rate, max_leaf_nodes, max_features : as in :func:`engine.make_estimator`
    loss : None (the task's default: square loss for regression, logistic for multi-label) or a
        name of ``engine.names.LOSSES[task]``
    leaf_estimation : None (the papers' "mean", which ``make_estimator`` sets) or "newton"
        (second-order leaves, an extension beyond paper 002)
    q : the number of random projections of gbrt-relabel-rpo (Algorithm 4); the other strategies
        do not take it (gbrt-rpo projects on one direction, q = 1)
    """

    n_steps: int
    learning_rate: float = 0.1
    max_leaf_nodes: int | None = 2
    max_features: object = None
    loss: str | None = None
    leaf_estimation: str | None = None
    q: int = 1

    def __post_init__(self):
        check_int(self.n_steps, "n_steps", 1)
        check_in_interval(self.learning_rate, "learning_rate", 0.0, 1.0, low_open=True)
        if self.max_leaf_nodes is not None:
            check_int(self.max_leaf_nodes, "max_leaf_nodes", 2)
        if self.loss is not None:
            check_choice(self.loss, "loss", ALL_LOSSES)
        if self.leaf_estimation is not None:
            check_choice(self.leaf_estimation, "leaf_estimation", LEAF_ESTIMATIONS)
        check_int(self.q, "q", 1)
        # max_features: the estimator checks it (it knows the accepted forms).
        make_estimator("gbmort", task="regression", max_features=self.max_features).check_params()

    def check(self, task, n_outputs, n_features=None):
        """ValueError naming the first setting a ``task`` problem with ``n_outputs`` outputs (and
        ``n_features`` inputs, when known) refuses."""
        if self.loss is not None and self.loss not in LOSSES[task]:
            raise ValueError(f"loss must be None or one of {LOSSES[task]} for a {task} problem, got {self.loss!r}")
        mf = self.max_features
        if n_features is not None and isinstance(mf, (int, np.integer)) and not isinstance(mf, bool) \
                and mf > n_features:
            raise ValueError(f"max_features = {mf} exceeds the number of inputs ({n_features})")

    def check_q(self, name, n_outputs, q=None, argument="q"):
        """q (this run's, or ``q``, an element of ``argument``) against d for estimator ``name``
        (output sub-sampling needs q <= d)."""
        config = BOOSTING_CONFIGS.get(ALIASES.get(name, name))
        if config is not None and BOOSTING[config["strategy"]].takes_q:           # gbrt-relabel-rpo
            try:
                check_projection(config["projection"], self.q if q is None else q, n_outputs)
            except ValueError as exc:
                raise ValueError(f"{argument}: {exc}") from None

    def model_kwargs(self, name=None, q=None) -> dict:
        """What the estimator ``name`` is made with: the shared settings (``loss`` and
        ``leaf_estimation`` only when chosen) and, for gbrt-relabel-rpo, q (``q`` or this run's) as
        the estimator's ``n_projections``. Without ``name``: the shared settings alone."""
        kw = dict(learning_rate=self.learning_rate, max_leaf_nodes=self.max_leaf_nodes, max_features=self.max_features)
        if self.loss is not None:
            kw["loss"] = self.loss
        if self.leaf_estimation is not None:
            kw["leaf_estimation"] = self.leaf_estimation
        config = None if name is None else BOOSTING_CONFIGS.get(ALIASES.get(name, name))
        if config is not None and BOOSTING[config["strategy"]].takes_q:          # gbrt-relabel-rpo
            kw["n_projections"] = int(self.q if q is None else q)
        return kw

    def params(self) -> dict:
        """The settings as plain JSON values (a result's ``params``)."""
        return dict(n_steps=self.n_steps, learning_rate=self.learning_rate, max_leaf_nodes=self.max_leaf_nodes,
                    max_features=self.max_features, loss=self.loss, leaf_estimation=self.leaf_estimation, q=self.q)


# --------------------------------------------------------------------------
# Forests
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ForestSettings:
    """The forests of a run (paper 003): every forest is grown with these settings, at each q.

    n_estimators : trees per forest
    max_features : features drawn per node: None (the task's default: "sqrt" for multi-label,
        1.0 for regression), an integer k, a fraction of p, "sqrt" or "log2"
    projection : the random projection scheme (``engine.names.PROJECTIONS``)
    q_values : the projected dimensions q swept: integers >= 1, "log" (round(ln d)) and "d"
    n_repeats : fits per point, each repeat with its own seed shared by every series
    n_jobs : threads of one forest fit
    """

    n_estimators: int = 10
    max_features: object = None
    projection: str = "gaussian"
    q_values: tuple = (1, 2, 4)
    n_repeats: int = 1
    n_jobs: int = 1

    def __post_init__(self):
        check_int(self.n_estimators, "n_estimators", 1)
        check_choice(self.projection, "projection", PROJECTIONS)
        object.__setattr__(self, "q_values", check_q_values(self.q_values, words=("log", "d")))
        check_int(self.n_repeats, "n_repeats", 1)
        check_n_jobs(self.n_jobs)
        if self.max_features is not None:
            from engine.estimators.forest import ProjectedForestRegressor
            try:
                ProjectedForestRegressor(max_features=self.max_features).check_params()
            except ValueError as exc:
                raise ValueError(str(exc)) from None

    def features(self, task):
        """max_features with the task's default filled in."""
        if self.max_features is not None:
            return self.max_features
        return "sqrt" if task == "multilabel" else 1.0

    def qs(self, n_outputs, projection=None, skip_too_large=False):
        """The q swept, as sorted integers for a problem with ``n_outputs`` outputs (ValueError when
        ``projection``, by default this one, cannot draw one of them)."""
        return resolve_q(self.q_values, self.projection if projection is None else projection, n_outputs,
                         skip_too_large=skip_too_large)

    def params(self) -> dict:
        return dict(n_estimators=self.n_estimators, max_features=self.max_features, projection=self.projection,
                    q_values=list(self.q_values), n_repeats=self.n_repeats, n_jobs=self.n_jobs)
