"""The learning-curve experiments called with one flat list of keywords, for tests that vary one
setting at a time: the keywords are split into the Problem's (data), the BoostingSettings' (model)
and the run's own, and the experiment gets ``(problem, settings)`` as every caller does."""
from dataclasses import fields

from engine.experiments import BoostingSettings, Problem, run_convergence, run_projection_schemes

PROBLEM_KEYS = {f.name for f in fields(Problem)} - {"dataset", "data"}
BOOSTING_KEYS = {f.name for f in fields(BoostingSettings)}


def split(dataset, kwargs):
    """(Problem, BoostingSettings, the run's own keywords) of one flat call."""
    kwargs = dict(kwargs)
    data = {k: kwargs.pop(k) for k in list(kwargs) if k in PROBLEM_KEYS}
    model = {k: kwargs.pop(k) for k in list(kwargs) if k in BOOSTING_KEYS}
    problem = dataset if isinstance(dataset, Problem) else Problem(dataset, **data)
    return problem, BoostingSettings(**model), kwargs


def run_curves(dataset, estimators, **kwargs):
    """run_convergence with flat keywords."""
    problem, boosting, run = split(dataset, kwargs)
    return run_convergence(problem, boosting, estimators, **run)


def run_schemes(dataset, **kwargs):
    """run_projection_schemes with flat keywords."""
    problem, boosting, run = split(dataset, kwargs)
    return run_projection_schemes(problem, boosting, **run)
