"""An average of M randomized models fitted with different seeds (thesis 001, eq. 4.28).

Averaging M models whose randomness theta is independent divides the
algorithm variance E_L Var_theta f by M and leaves the bias and the
learning-set variance unchanged: the experiment of thesis Figure 4.2, here for
boosting on random output projections.
"""
import inspect
import numbers

import numpy as np

from engine.estimators.registry import make_estimator


def _callback_kwarg(estimator, callback):
    """``{"callback": callback}`` when the estimator's fit takes one (forests do not)."""
    if "callback" in inspect.signature(estimator.fit).parameters:
        return {"callback": callback}
    return {}


class AveragedEstimator:
    """Average of M copies of a randomized estimator fitted with different seeds.

    ``AveragedEstimator("gbrt-rpo-gaussian", n_models=4, n_estimators=50)``
    fits 4 gbrt-rpo-gaussian models on the same data, with random states drawn
    from ``random_state``, and predicts their mean: the f_{L,theta_1..theta_M}
    of the thesis, eq. 4.28. ``staged_predict`` averages the members' stages.
    """

    def __init__(self, estimator="gbrt-rpo-gaussian", *, n_models=2, random_state=None, **params):
        self.estimator = estimator
        self.n_models = n_models
        self.random_state = random_state
        self.params = params

    def get_params(self, deep=False):
        return {"estimator": self.estimator, "n_models": self.n_models,
                "random_state": self.random_state, **self.params}

    def set_params(self, **params):
        for key in ("estimator", "n_models", "random_state"):
            if key in params:
                setattr(self, key, params.pop(key))
        self.params.update(params)
        return self

    def check_params(self):
        """The checks ``fit`` makes on the parameters alone (n_models and the member's), without
        data; returns self."""
        self._validate_params()
        return self

    def _validate_params(self):
        if isinstance(self.n_models, bool) or not isinstance(self.n_models, numbers.Integral) \
                or self.n_models < 1:
            raise ValueError(f"n_models must be an integer >= 1, got {self.n_models!r}")
        self.member()._validate_params()

    def member(self, random_state=None):
        """One unfitted member (the configured estimator with this random_state)."""
        return make_estimator(self.estimator, **self.params, random_state=random_state)

    def fit(self, X, Y, callback=None):
        """Fit the members; ``callback(steps_done, self)`` as in the boosting estimators.

        Steps are counted over all members (member m's step k is step
        m * n_estimators + k); returning True stops the fit (the members fitted
        so far are kept).
        """
        self._validate_params()
        rng = np.random.default_rng(self.random_state)
        seeds = rng.integers(0, 2**31 - 1, size=self.n_models)
        self.estimators_ = []
        done = 0
        for s in seeds:
            member = self.member(int(s))
            if callback is None:
                self.estimators_.append(member.fit(X, Y))
                continue
            stopped = []

            def relay(n_done, _est, offset=done):
                if callback(offset + n_done, self):
                    stopped.append(True)
                return bool(stopped)

            self.estimators_.append(member.fit(X, Y, **_callback_kwarg(member, relay)))
            done += getattr(member, "n_steps_", member.n_estimators)
            # A member without a per-step callback (a forest) reports once, when fitted.
            if stopped or callback(done, self):
                break
        return self

    @property
    def n_estimators(self):
        """Steps of the whole fit (members x steps each), for progress fractions."""
        return self.n_models * self.member().n_estimators

    def predict(self, X):
        return np.mean([e.predict(X) for e in self.estimators_], axis=0)

    def staged_predict(self, X):
        for stages in zip(*(e.staged_predict(X) for e in self.estimators_)):
            yield np.mean(stages, axis=0)

    def check_data_shape(self, n_samples, n_features, n_outputs):
        """The members' checks against the data's shape, before any fit."""
        self._validate_params()
        self.member().check_data_shape(n_samples, n_features, n_outputs)

    def is_randomized(self, n_samples, n_features):
        """An average of several models is as randomized as its members."""
        return self.member().is_randomized(n_samples, n_features)
