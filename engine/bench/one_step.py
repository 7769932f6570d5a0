"""How long the teaching interactions take: the One step page and the Convergence tree strip.

    python -m engine.bench --interactions [--repeats 3]

The target (issue 22) is an answer within 1 s at the teaching size; the engine's share of each
interaction is timed here (best of ``repeats``), without Streamlit's rendering:

* "first view": new settings, a fresh run at step 1 (one step fitted and read back; the data
  are drawn once and cached by the page, so they are drawn outside the timing here);
* "Step": one more warm-started step and its view (residuals, tree, brute-force rejected splits,
  scores); "Back": an earlier step re-read from the kept model;
* "shared link at step 50": a fresh run rebuilt to step 50 and its view (a URL opened anew);
* "tree strip": the first 8 trees of a 300-sample, 100-step run read from its store;
* "Draw 1": one more learning set on the Bias–variance page at its defaults (Friedman1-group,
  300 samples, 300 test points, d = 16): gbmort with 300 stumps, and the projected forests of 100
  trees at q = 1 (the Appendix C grid: 16 single trees and 8 forests per draw).
"""
import sys

from engine.bench.timing import best_time
from engine.app.page_models import one_step as os_
from engine.app.page_models.draws import running_for
from engine.experiments.bias_variance import BiasVarianceSettings
from engine.experiments.problems import Problem

TARGET_SECONDS = 1.0
PROBLEMS = ("friedman1-chain", "emotions")
# The Bias–variance page's draws at its defaults (the sweep's last value).
DRAWS = {"gbmort": dict(learning_rate=0.1, n_estimators=300, max_leaf_nodes=2),
         "rf-gaussian-shared": dict(n_estimators=100, n_components=1),
         "rf-gaussian-per-tree": dict(n_estimators=100, n_components=1)}


def _settings(problem, method, n_train=80):
    return os_.OneStepSettings(problem=problem, n_train=n_train, method=method,
                               q=4 if method == "gbrt-relabel-rpo" else 1)


def measure(repeats=3):
    """``[(problem, method, interaction, seconds)]``."""
    rows = []
    for problem in PROBLEMS:
        data = os_.load_problem(problem, 80, 0)
        for method in os_.METHODS:
            s = _settings(problem, method)
            rows.append((problem, method, "first view", best_time(lambda: os_.OneStepRun(s, data).view(1), repeats)))
            run = os_.OneStepRun(s, data)
            run.view(1)
            steps = iter(range(2, 2 + repeats))
            rows.append((problem, method, "Step", best_time(lambda: run.view(next(steps)), repeats)))
            rows.append((problem, method, "Back", best_time(lambda: run.view(1), repeats)))
            rows.append((problem, method, "shared link at step 50",
                         best_time(lambda: os_.OneStepRun(s, data).view(50), repeats)))
    from engine.estimators.registry import make_estimator
    from engine.experiments.problems import Problem
    drawn = Problem("friedman1-chain", n_train=300, n_test=10).draw(0)
    X, Y = drawn.X_train, drawn.Y_train
    for name in ("st-gbrt", "gbrt-rpo-gaussian"):
        model = make_estimator(name, n_estimators=100, max_leaf_nodes=4, random_state=0).fit(X, Y)
        rows.append(("friedman1-chain n=300", name, "tree strip (8 trees)",
                     best_time(lambda: os_.first_trees(model), repeats)))
    problem = Problem("friedman1-group", n_train=300, n_test=300)
    for name, params in DRAWS.items():
        running = running_for(problem, BiasVarianceSettings(name, estimator_params=params, n_seeds=1), seed=0)
        rows.append(("friedman1-group n=300", name, "Draw 1", best_time(lambda: running.draw(1), repeats)))
    return rows


def run(repeats=3, out=None):
    """Print the table (to ``out``, default stdout); return the rows and whether every interaction
    met TARGET_SECONDS."""
    out = sys.stdout if out is None else out
    rows = measure(repeats)
    print(f"Teaching interactions (engine side, best of {repeats}; target {TARGET_SECONDS:g} s each)", file=out)
    print(f"{'problem':<24}{'method':<20}{'interaction':<26}{'ms':>9}", file=out)
    for problem, method, what, seconds in rows:
        print(f"{problem:<24}{method:<20}{what:<26}{1000 * seconds:>9.1f}", file=out)
    slowest = max(rows, key=lambda r: r[3])
    ok = slowest[3] <= TARGET_SECONDS
    print(f"slowest: {slowest[2]} of {slowest[1]} on {slowest[0]}, {1000 * slowest[3]:.0f} ms "
          f"({'within' if ok else 'ABOVE'} the {TARGET_SECONDS:g} s target)", file=out)
    return rows, ok
