"""run_model_selection called with one flat list of keywords (as the tests vary one at a time): the
data keywords make the Problem, the protocol's the SelectionSettings, the rest is the run's own."""
from engine.experiments.model_selection import SelectionSettings, run_model_selection, selection_problem


def select(dataset, estimators, *, budget="quick", n_repeats=5, refit=True, n_jobs=1, n_noisy_outputs=0, **run):
    """run_model_selection with flat keywords."""
    return run_model_selection(selection_problem(dataset, n_noisy_outputs),
                               SelectionSettings(budget, n_repeats=n_repeats, refit=refit, n_jobs=n_jobs), estimators,
                               **run)


def estimate(dataset, estimators, *, budget="quick", n_repeats=5, n_noisy_outputs=0, **kwargs):
    """estimate_model_selection_cost with flat keywords."""
    from engine.app.page_models.cost import estimate_model_selection_cost

    return estimate_model_selection_cost(selection_problem(dataset, n_noisy_outputs),
                                         SelectionSettings(budget, n_repeats=n_repeats), estimators, **kwargs)
