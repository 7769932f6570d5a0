"""The bias-variance decomposition and its draws called with one flat list of keywords, as the tests
vary one at a time: the data keywords make the Friedman1 Problem, the models' the
BiasVarianceSettings, the rest is the run's own."""
from engine.app.page_models.draws import RunningBiasVariance, running_for
from engine.experiments.bias_variance import BiasVarianceSettings, run_bias_variance
from engine.experiments.problems import Problem


def _split(estimator, structure, n_train, n_test, n_outputs, noise, settings):
    problem = Problem(f"friedman1-{structure}", n_train=n_train, n_test=n_test, n_outputs=n_outputs, noise=noise)
    return problem, BiasVarianceSettings(estimator, **settings)


def run_bv(estimator, *, structure="group", n_train=300, n_test=2000, n_outputs=16, noise=1.0, seed=0,
           client=None, progress=None, stop=None, **settings):
    """run_bias_variance with flat keywords (the old defaults: 2000 test points)."""
    problem, bvs = _split(estimator, structure, n_train, n_test, n_outputs, noise,
                          {k: v for k, v in settings.items() if v is not None or k != "estimator_params"})
    return run_bias_variance(problem, bvs, seed=seed, client=client, progress=progress, stop=stop)


def running_bv(estimator, *, structure="group", n_train=300, n_test=500, n_outputs=16, noise=1.0, seed=0,
               **settings):
    """RunningBiasVariance with flat keywords."""
    problem, bvs = _split(estimator, structure, n_train, n_test, n_outputs, noise,
                          {k: v for k, v in settings.items() if v is not None or k != "estimator_params"})
    return RunningBiasVariance(problem, bvs, seed=seed)


def running_for_flat(estimator, *, structure="group", n_train=300, n_test=500, n_outputs=16, noise=1.0, seed=0,
                     **settings):
    """running_for with flat keywords."""
    problem, bvs = _split(estimator, structure, n_train, n_test, n_outputs, noise,
                          {k: v for k, v in settings.items() if v is not None or k != "estimator_params"})
    return running_for(problem, bvs, seed=seed)


def pair(estimator, *, structure="group", n_train=300, n_test=2000, n_outputs=16, noise=1.0, seed=None, **settings):
    """(Problem, BiasVarianceSettings) of flat keywords (a study's run; its seed is the study's: None here)."""
    return _split(estimator, structure, n_train, n_test, n_outputs, noise,
                  {k: v for k, v in settings.items() if v is not None or k != "estimator_params"})


def estimate_bv(estimator, **kwargs):
    """estimate_bias_variance_seconds with flat keywords."""
    from engine.app.page_models.cost import estimate_bias_variance_seconds

    return estimate_bias_variance_seconds(*pair(estimator, **kwargs))
