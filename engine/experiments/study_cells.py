"""The cells of the real-data study: data, splits, time budgets, and the independent units of work.

Every cell (data set x method x split x setting) is a module-level function
of plain arguments (names and numbers): it loads its data set and makes its
split itself (cached per process), so the same call gives the same numbers in
this process, on joblib's workers or on a ``dask.distributed`` cluster.

* Data (paper 002, section 4.1.3): the shipped copy of each data set, or a
  data set of a researcher's folder laid out as sample_data/ (its cells name
  it by :func:`dataset_id`: the folder's path, a plain string a worker can
  load from); the regression outputs are standardized (zero mean, unit
  variance over the data set: "All outputs in these datasets were normalized").
* Splits (section 4.1.2): random train/test splits "preserving the
  training-testing set size ratio" of the paper's Tables 2-3 (n_LS : n_TS),
  found by the data set's name (so a paper set such as enron in a user's
  folder gets the paper's ratio); where the paper gives no test size, or does
  not know the data set, 50% of the samples test (its 40% / 10% / 50%). So
  yeast, for which the paper gives none, is split 50/50 although Mulan ships a
  1500/917 split. 20% of the training set validates.
* Time budget (section 4.1.2): T is the time of one gbmort step with stumps
  and the square loss (k = p) on the data set; every boosting setting gets
  ``factor * T`` seconds of training (factor 100 in classification, 500 in
  regression), i.e. ``n_steps = floor(factor * T / t_step)`` where t_step is
  that setting's own time per step (it does not depend on the learning rate:
  measured at 0.1), at most ``max_steps``. Both are measured here, on the
  fit part of the first split, by :func:`step_seconds`; the study keeps them
  so that a resumed run uses the same numbers of steps. They are **CPU
  seconds of the fitting thread** (``time.thread_time``; the study's fits run
  on one thread, ``n_jobs=None``), not wall-clock seconds: on a loaded machine
  (other workers, other users) wall time stretches unevenly between the
  probes, and a costly setting probed in a busy moment would get fewer steps
  than its budget (starved); CPU time counts only the work of the fit. The
  cells' ``cpu_seconds`` are measured the same way (``seconds`` stays wall time),
  but for st-rf's, whose trees grow in threads (``ST_RF_THREADS``): the CPU
  seconds of the whole process there.
"""
from __future__ import annotations

import functools
import os
import time
import zlib
from pathlib import Path

import numpy as np

from engine.datasets import load_dataset
from engine.estimators.boomer import boomer_fit_score
from engine.estimators.second_order import split_leaf_variant
from engine.experiments import model_selection as ms
from engine.experiments.published import PAPER002_DATASETS, PAPER002_SHIPPED_NAMES
from engine.metrics import lrap, macro_r2
from engine.names import BOOMER_NAMES

__all__ = ["PAPER_NAME", "STUDY_DATASETS", "StepClock", "dataset_id", "dataset_name", "final_cell", "grid_cell",
           "paper_dataset", "per_output_forest_scores", "split_sizes", "step_seconds", "study_data", "study_split"]

# Our name -> the paper's name, for the shipped data sets of the paper's list.
PAPER_NAME = {PAPER002_SHIPPED_NAMES.get(name, name): name for name in PAPER002_DATASETS}
# The shipped data sets of the paper's list (sample_data/ may not have all yet).
STUDY_DATASETS = ("cal500", "bibtex", "birds", "corel5k", "delicious", "emotions", "genbase", "medical", "scene",
                  "yeast",
                  "atp1d", "atp7d", "edm", "oes97", "scm20d", "wq")
# Section 4.1.3: without a test size, 50% of the samples test.
TEST_FRACTION = 0.5
# A timing probe runs until its steps took at least this long (the loop's own clock).
PROBE_SECONDS = 0.03
MAX_PROBE_STEPS = 5000
# A long st-rf cell writes the columns it has to its scratch file this often (wall seconds).
SCRATCH_SECONDS = 60.0
# st-rf's cells are the study's longest (about 37 CPU minutes each on delicious) and come last
# but for short ones, so the last of them often runs alone: their trees grow in as many threads
# as this process may use, and where several run at once the system shares the cores. The
# forests do not depend on the number of threads (engine.estimators.forest).
ST_RF_THREADS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def dataset_id(name, data_dir=None):
    """How cells name a data set: its name when shipped, else the path of its folder in ``data_dir``."""
    return name if data_dir is None else str(Path(data_dir).resolve() / name)


def dataset_name(ident):
    """The data set's name (the last part of a :func:`dataset_id`)."""
    return Path(ident).name


def paper_dataset(name):
    """The paper's name of a data set of its Tables 2-3 (CAL500 for cal500), or None."""
    paper = PAPER_NAME.get(name, name)
    return paper if paper in PAPER002_DATASETS else None


@functools.lru_cache(maxsize=4)
def study_data(ident):
    """(X, Y, task) of a data set (a :func:`dataset_id`); regression outputs standardized."""
    path = Path(ident)
    data = load_dataset(ident) if path.name == ident else load_dataset(path.name, root=path.parent)
    Y = data.Y
    if data.task == "regression":
        std = Y.std(axis=0)
        Y = (Y - Y.mean(axis=0)) / np.where(std > 0, std, 1.0)
    return data.X, Y, data.task


def split_sizes(name, n_samples):
    """(n_train, n_test) with the paper's train/test ratio for this data set (by name), 50/50
    where the paper gives no test size or does not have the data set."""
    paper = paper_dataset(name)
    n_ls, n_ts = (None, None) if paper is None else PAPER002_DATASETS[paper][:2]
    if n_ts is None:
        n_test = int(round(TEST_FRACTION * n_samples))
    else:
        n_test = int(round(n_samples * n_ts / (n_ls + n_ts)))
    return n_samples - n_test, n_test


@functools.lru_cache(maxsize=64)
def study_split(ident, seed, split):
    """Row indices of split ``split`` (train, test, fit, validation) and its model seed.

    Drawn from (seed, split, the data set's name), so a data set's splits do not
    depend on which other data sets or methods a run includes, nor on its folder.
    """
    X, _, _ = study_data(ident)
    name = dataset_name(ident)
    n = X.shape[0]
    n_train, _ = split_sizes(name, n)
    rng = np.random.default_rng([int(seed), int(split), zlib.crc32(name.encode())])
    perm = rng.permutation(n)
    train, test = perm[:n_train], perm[n_train:]
    inner = rng.permutation(n_train)
    n_val = int(round(ms.VALIDATION_FRACTION * n_train))
    return dict(train=train, test=test, fit=train[inner[n_val:]], validation=train[inner[:n_val]],
                random_state=int(rng.integers(1, 2**31 - 1)))


def _rows(name, seed, split, part):
    X, Y, task = study_data(name)
    rows = study_split(name, seed, split)[part]
    return X[rows], Y[rows], task


class StepClock:
    """A fit callback that reads the fitting thread's CPU clock after each chunk of steps.

    ``cpu_per_step()``: CPU seconds per step between the first and the last
    callback, so the setup before the loop (binning, presorting) and the first
    chunk (one step) are left out, as ``fit_times_`` leaves out the setup. The
    engine's boosting loop calls back after its first step and then about every
    50 ms, so any fit of two steps or more gives two readings.
    """

    def __init__(self, clock=time.thread_time):
        self.clock = clock
        self.readings = []          # (steps done, CPU seconds)

    def __call__(self, n_steps_done, estimator):
        self.readings.append((int(n_steps_done), self.clock()))
        return False

    def measured(self):
        """(CPU seconds, steps) between the first and the last reading; (0, 0) with fewer than two."""
        if len(self.readings) < 2:
            return 0.0, 0
        (n0, t0), (n1, t1) = self.readings[0], self.readings[-1]
        return max(t1 - t0, 0.0), n1 - n0


def step_seconds(name, method, config, seed):
    """CPU seconds per boosting step of ``method`` with ``config`` on the fit part of split 0.

    The fitting thread's CPU time (:class:`StepClock`), not wall time, so that
    a busy machine does not shrink a setting's number of steps. Fits more steps
    until the measured steps took ``PROBE_SECONDS`` of CPU (setup such as
    presorting is not counted).
    """
    X, Y, task = _rows(name, seed, 0, "fit")
    method, leaves = split_leaf_variant(method)
    n = 8
    while True:
        est = ms.make_method(method, task, None, Y.shape[1], dict(config, **leaves, n_estimators=n, random_state=1))
        clock = StepClock()
        started = clock.clock()
        est.fit(X, Y, callback=clock)
        seconds, steps = clock.measured()
        if steps == 0:          # fewer than two readings: the whole fit, setup included
            seconds, steps = clock.clock() - started, max(int(est.n_steps_), 1)
        if seconds >= PROBE_SECONDS or n >= MAX_PROBE_STEPS:
            return seconds / steps
        per_step = max(seconds / steps, 1e-9)
        n = min(MAX_PROBE_STEPS, max(n + 1, int(np.ceil(1.5 * PROBE_SECONDS / per_step)) + 1))


def grid_cell(name, method, split, config, n_steps, seed, callback=None):
    """Fit one setting on the fit part (80%), read its validation curve: the best score and step.

    ``name`` is a :func:`dataset_id`; ``method`` may be a "<method> (newton)" row (Newton leaves).
    """
    X_fit, Y_fit, task = _rows(name, seed, split, "fit")
    X_val, Y_val, _ = _rows(name, seed, split, "validation")
    random_state = study_split(name, seed, split)["random_state"]
    method, leaves = split_leaf_variant(method)
    started, cpu = time.perf_counter(), time.thread_time()
    score, n_best = ms.evaluate_configuration(method, task, None, Y_fit.shape[1], dict(config, **leaves), n_steps,
                                              random_state, X_fit, Y_fit, X_val, Y_val, callback=callback)
    return dict(score=float(score), n_best=int(n_best), seconds=time.perf_counter() - started,
                cpu_seconds=time.thread_time() - cpu)


def final_cell(name, method, split, config, n_steps, seed, on, boomer_max_rules=None, scratch=None,
               callback=None):
    """Fit the final model on ``on`` ("train": the whole training set, "fit": the 80%) and score the test set.

    ``config`` is the chosen setting of a boosting method with its chosen
    ``n_steps``; for a forest ``n_steps`` is its number of trees; BOOMER
    takes ``boomer_max_rules`` (None = its default). st-rf keeps its work in
    progress in ``scratch`` (a path, or None): :func:`per_output_forest_scores`.
    """
    X_tr, Y_tr, task = _rows(name, seed, split, on)
    X_test, Y_test, _ = _rows(name, seed, split, "test")
    random_state = study_split(name, seed, split)["random_state"]
    if method == "st-rf":
        est = ms.make_method(method, task, None, Y_tr.shape[1], dict(config, n_estimators=n_steps,
                                                                     random_state=random_state))
        est.set_params(n_jobs=ST_RF_THREADS)
        scores, seconds, cpu_seconds = per_output_forest_scores(est, X_tr, Y_tr, X_test, scratch, callback)
        if scores is None:              # stopped: the runner does not keep this result
            score = np.nan
        else:
            score = lrap(Y_test, scores) if task == "multilabel" else macro_r2(Y_test, scores)
        return dict(score=float(score), seconds=seconds, cpu_seconds=cpu_seconds)
    started, cpu = time.perf_counter(), time.thread_time()
    if method in BOOMER_NAMES:
        loss = "logistic-non-decomposable" if method == "boomer-non-decomposable" else None
        out = boomer_fit_score(X_tr, Y_tr, X_test, loss=loss, max_rules=boomer_max_rules,
                               random_state=random_state)
        # LRAP from predict_proba: with the decomposable loss the ranking of the raw scores (a
        # per-label sigmoid), with the non-decomposable one BOOMER's marginal probabilities, which
        # rank the labels better than its raw joint scores (emotions, 50 rules: 0.733 vs 0.705).
        return dict(score=float(lrap(Y_test, out.proba)), seconds=out.fit_seconds,
                    cpu_seconds=time.thread_time() - cpu)
    method, leaves = split_leaf_variant(method)
    score, _ = ms.refit_and_score(method, task, None, Y_tr.shape[1], dict(config, **leaves), n_steps, random_state,
                                  X_tr, Y_tr, X_test, Y_test, 0, callback=callback)
    return dict(score=float(score), seconds=time.perf_counter() - started, cpu_seconds=time.thread_time() - cpu)


def per_output_forest_scores(est, X, Y, X_test, scratch=None, callback=None):
    """Test scores of a per-output forest (st-rf) fitted on (X, Y), kept output by output in ``scratch``.

    Returns (scores, wall seconds, CPU seconds of the process: ``est`` may grow
    its trees in threads): the (n_test, d) decision
    function of a classifier (2 P - 1, what the study ranks labels by) or the
    predictions of a regressor (None when ``callback`` stopped the fit),
    equal to those of ``est.fit(X, Y)``, bit for
    bit (``est.output_forests`` grows the same forests). st-rf on delicious
    fits 983 forests of 100 trees, about an hour of CPU: every
    ``SCRATCH_SECONDS`` the columns done so far, with the time they took, go
    to ``scratch`` (an ``.npz`` path, written whole and then renamed into
    place), and a call that finds the file there starts after them, so a
    stopped study loses at most that much of the cell. The seconds returned
    include those of the earlier, stopped calls. A scratch file that does not
    load or does not fit (other shapes) is ignored.
    """
    n_test, d = X_test.shape[0], Y.shape[1]
    done, spent = _read_scratch(scratch, n_test, d)
    columns = list(done.T)
    started, cpu = time.perf_counter(), time.process_time()
    saved = started

    def spent_now():
        return spent[0] + time.perf_counter() - started, spent[1] + time.process_time() - cpu

    for j, forest in est.output_forests(X, Y, start=len(columns), callback=callback):
        columns.append(forest.decision_function(X_test) if hasattr(forest, "decision_function")
                       else forest.predict(X_test))
        if scratch is not None and j + 1 < d and time.perf_counter() - saved >= SCRATCH_SECONDS:
            scratch = _write_scratch(scratch, np.column_stack(columns), spent_now())
            saved = time.perf_counter()
    if len(columns) < d:                # stopped: keep what is done for the next call
        if scratch is not None and columns:
            _write_scratch(scratch, np.column_stack(columns), spent_now())
        return None, *spent_now()
    return np.column_stack(columns), *spent_now()


def _read_scratch(path, n_test, d):
    """(columns (n_test, j), [seconds, cpu seconds]) from a scratch file; none when absent or unfit."""
    empty = np.empty((n_test, 0)), (0.0, 0.0)
    if path is None or not Path(path).exists():
        return empty
    try:
        with np.load(path) as f:
            columns, spent = f["columns"], tuple(float(v) for v in f["spent"])
    except (OSError, ValueError, KeyError, TypeError):
        return empty
    if columns.ndim != 2 or columns.shape[0] != n_test or columns.shape[1] > d or len(spent) != 2:
        return empty
    return columns, spent


def _write_scratch(path, columns, spent):
    """Write the scratch file; returns its path, or None when it cannot be written (a dask worker
    on a machine without the study's folder): the cell then goes on without one."""
    path = Path(path)
    part = path.with_name(path.name + ".part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(part, "wb") as f:
            np.savez(f, columns=columns, spent=np.asarray(spent, dtype=float))
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, path)
    except OSError:
        return None
    return path
