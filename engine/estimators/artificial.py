"""artificial-gbrt: the boosting oracle that knows the Friedman1 output structure.

Paper 002 (section 4.2.3, Table 4) compares the methods with an estimator
that is told how the outputs relate:

* chain: model output 1 alone (the least noisy one) and copy its prediction;
* group: model the mean of the outputs (averaging filters the noise) and copy;
* ind: single target (every output on its own).

Purely noisy outputs (section 4.2.3) are predicted by their training mean.
The copied models are fitted on one output, where st-gbrt and gbmort are the
same algorithm.
"""
import numpy as np

from engine.estimators.registry import make_estimator
from engine.names import STRUCTURES



class ArtificialGBRT:
    """Boosting on the output the structure says is worth modelling.

    Parameters
    ----------
    structure : {"chain", "group", "ind"}
    n_real : int
        The first ``n_real`` outputs follow the structure; any later ones are noise.
    **params
        Parameters of the inner boosting estimator (n_estimators, learning_rate, ...).
    """

    def __init__(self, structure, n_real, **params):
        if structure not in STRUCTURES:
            raise ValueError(f"structure must be one of {STRUCTURES}, got {structure!r}")
        if not isinstance(n_real, (int, np.integer)) or n_real < 1:
            raise ValueError(f"n_real must be an integer >= 1, got {n_real!r}")
        self.structure = structure
        self.n_real = int(n_real)
        self.params = params

    def modelled_target(self, Y):
        """What the inner model is fitted on."""
        Y = np.asarray(Y, dtype=np.float64)
        if self.structure == "ind":
            return Y[:, : self.n_real]
        if self.structure == "chain":
            return Y[:, 0]
        return Y[:, : self.n_real].mean(axis=1)

    def fit(self, X, Y, eval_set=None, callback=None):
        """Fit the inner model; with ``eval_set`` set ``eval_score_`` (macro-r2 over all outputs)."""
        Y = np.asarray(Y, dtype=np.float64)
        if Y.ndim != 2 or Y.shape[1] < self.n_real:
            raise ValueError(f"Y must have at least n_real = {self.n_real} output columns")
        self.n_outputs_ = Y.shape[1]
        self.noise_mean_ = Y[:, self.n_real:].mean(axis=0)
        self.inner_ = make_estimator("st-gbrt", **self.params)
        self.inner_.fit(X, self.modelled_target(Y), callback=callback)
        self.n_steps_ = self.inner_.n_steps_
        self.fit_times_ = self.inner_.fit_times_
        self.train_score_ = self.inner_.train_score_
        if eval_set is not None:
            X_val, Y_val = eval_set
            Y_val = np.asarray(Y_val, dtype=np.float64)
            sst = ((Y_val - Y_val.mean(axis=0)) ** 2).sum(axis=0)
            scores = []
            for F in self.staged_predict(X_val):
                sse = ((Y_val - F) ** 2).sum(axis=0)
                with np.errstate(divide="ignore", invalid="ignore"):
                    ratio = np.where(sst > 0, sse / sst, (sse > 0).astype(float))
                scores.append(1.0 - ratio.mean())
            self.eval_score_ = np.asarray(scores)
        return self

    def expand(self, F):
        """Inner predictions -> predictions of every output."""
        F = np.asarray(F, dtype=np.float64).reshape(len(F), -1)
        if self.structure != "ind":
            F = np.repeat(F, self.n_real, axis=1)
        if self.n_outputs_ > self.n_real:
            F = np.hstack([F, np.tile(self.noise_mean_, (F.shape[0], 1))])
        return F

    def predict(self, X):
        return self.expand(self.inner_.predict(X))

    def staged_predict(self, X):
        for F in self.inner_.staged_predict(X):
            yield self.expand(F)
