"""Paper 002's real-data study (section 4.4; Tables 8-12, Figures 7-8), with BOOMER beside it.

:func:`run_real_data` runs the protocol of section 4.1 on the shipped data sets
of the paper's list (:data:`~engine.experiments.study_cells.STUDY_DATASETS`),
or on any data set folder: another of sample_data/, or one of a researcher's
own folder (``StudyData.data_dir``, laid out as sample_data/); its three
arguments, the data, the settings and the execution, are checked when they
are built (:mod:`engine.experiments.real_data_settings`). The paper's train/test
sizes where its Tables 2-3 give them (by the data set's name), 50/50
otherwise; the paper's scores beside ours only where the paper has them.

* the eight methods of section 4.4 (``REAL_DATA_METHODS``): st-gbrt (br-gbrt
  in multi-label), gbmort, gbrt-rpo-{gaussian,subsampled} and
  gbrt-relabel-rpo-{gaussian,subsampled} (q = 1, the paper's setting outside
  section 4.3.2), mo-rf and st-rf (br-rf) with the defaults of section 4.1.2
  (100 trees; k = sqrt(p), fully grown in classification; k = p/3, n_min = 5
  in regression);
* boosting: every setting of the budget's grid (learning rate, max leaves, k,
  loss) fitted on 80% of the training set for the number of steps its time
  budget allows (:mod:`~engine.experiments.study_cells`), the setting and the
  number of steps chosen on the other 20%; then the chosen model is fitted
  again on the whole training set (``test-refit``) and on the 80%
  (``test-no-refit``), both scored on the test set; ``refit`` picks which one
  the study ranks (the paper does not say; default False, the choice that
  matched the paper's Table 4 better, see ``engine.experiments.published.REPRODUCTION_REFIT``);
* forests and BOOMER (``BOOMER_NAMES``: the real mlrl-boomer with its defaults
  and with its non-decomposable logistic loss; multi-label only, skipped on
  regression with a note) have nothing to select: fitted on the whole
  training set;
* ``n_splits`` random splits (5 in the paper) preserving the paper's
  train/test ratio.
* second-order rows (``SECOND_ORDER_METHODS``, with ``second_order`` and an
  engine whose boosting estimators take ``leaf_estimation``): gbmort and
  gbrt-relabel-rpo-gaussian with Newton leaves, the same grid without the
  absolute loss, an extension beyond the paper; they are left out of the
  paper's rank statistics (which stay over its eight methods) and ranked with
  them apart (:func:`engine.reports.real_data.comparisons`).

Budgets (:data:`STUDY_BUDGETS`): ``"quick"`` (CI and a first look: 2 splits, 4
settings, 10-tree forests, BOOMER with at most 50 rules, 20 with its
non-decomposable loss), ``"moderate"`` (5 splits, learning rate {0.5, 0.1} x
max leaves {2, 8} x k {sqrt p, p} x both losses = 16 settings, the paper's
forests, BOOMER's defaults but at most 100 rules for its non-decomposable
loss, whose cost grows quickly with the number of labels: 20 rules took 18 s
on CAL500 here, the default 1000 about 10 minutes) and ``"paper"`` (the full grid of section 4.1.2: 490 settings,
BOOMER's defaults). Every boosting setting gets the paper's time budget (100 T
in classification, 500 T in regression), at most ``max_steps`` steps; T and
every setting's time per step are CPU seconds of the fitting thread, so a
loaded machine does not starve the costly settings
(:func:`~engine.experiments.study_cells.step_seconds`).

What the selection picked is in the cells: every ``validation`` row is one
candidate setting (its best validation score, ``best_step`` the step where
it is reached, ``n_steps`` the steps its time budget allowed, ``selected``
True for the chosen one), and every ``test-refit`` / ``test-no-refit`` row
carries ``selected_params``, the chosen setting as JSON text (learning rate,
leaves, k, loss, the chosen number of steps, the step budget, its validation
score, the runner-up's). ``RealDataResult.selection_frame`` gathers them per
data set, method and split, with ``at_step_budget``: the best step is the
last one the budget allowed, i.e. the curve was still rising when the time
ran out.

Every cell (data set x method x split x setting) is an independent,
deterministic call (:mod:`~engine.experiments.study_cells`) run through
:func:`~engine.experiments.runner.ordered_map`: in this process, on joblib's
workers (``StudyExecution.n_jobs``) or on a ``dask.distributed`` cluster
(``backend="dask"`` or ``client=``). With ``out``, finished cells (and the timing probes that fix
the numbers of steps) are kept in ``out/cache`` (:class:`CellCache`), so a
stopped or crashed run resumes where it stopped with nothing recomputed; a
corrupt cache line is computed again. A stop returns the cells finished so far
as a valid result flagged ``partial``.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from engine.datasets import SAMPLE_DATA_DIR, list_datasets
from engine.estimators.boomer import boomer_memory_check, machine_memory_bytes
from engine.experiments import model_selection as ms
from engine.experiments.cell_cache import CellCache
from engine.experiments.engine_version import engine_version
from engine.experiments.real_data_result import RealDataResult
from engine.experiments.real_data_settings import (
    BACKENDS,
    STUDY_BUDGETS,
    RealDataSettings,
    StudyData,
    StudyExecution,
    available_study_datasets,
)
from engine.experiments.runner import Runner, Stopped, check_callbacks, ordered_map
from engine.experiments.settings import check_flag, check_kind
from engine.estimators.second_order import split_leaf_variant
from engine.experiments.worker import FitWorker
from engine.experiments.study_cells import (
    dataset_id,
    final_cell,
    grid_cell,
    paper_dataset,
    split_sizes,
    step_seconds,
)
from engine.names import BOOMER_NAMES

__all__ = ["BACKENDS", "STUDY_BUDGETS", "RealDataResult", "RealDataSettings", "StudyData", "StudyExecution",
           "available_study_datasets", "run_real_data", "study_work"]

# Bump when a change of the protocol or of the estimators' Python code makes cached cells of
# earlier versions wrong (the compiled core and the package version are in every key already:
# engine.experiments.engine_version).
# 2: the timing probes count the fitting thread's CPU seconds, not wall seconds (issue 33).
PROTOCOL_VERSION = 2
# Section 4.1.2: the training time of every boosting setting, in units of T.
TIME_FACTOR = {"multilabel": 100, "regression": 500}
FOREST_METHODS = ("mo-rf", "st-rf")


def _plan(data, settings, execution):
    """The study's plan from its three checked arguments (ValueError when one is not of its kind)."""
    for value, name, kind in ((data, "data", StudyData), (settings, "settings", RealDataSettings),
                              (execution, "execution", StudyExecution)):
        check_kind(value, name, kind)
    methods, notes = settings.method_names()
    return dict(datasets=list(data.datasets), methods=methods, budget=settings.budget, seed=settings.seed,
                refit=settings.refit, out=execution.out, n_jobs=execution.n_jobs, client=execution.client,
                notes=notes, data_dir=data.data_dir)


# --------------------------------------------------------------------------
# The study
# --------------------------------------------------------------------------


def _dataset_plan(name, budget, data_dir):
    meta = next(d for d in list_datasets(data_dir) if d["name"] == name)
    task, p = meta["task"], meta["n_features"]
    n_train, n_test = split_sizes(name, meta["n_samples"])
    grid = ms.resolve_budget(dict(STUDY_BUDGETS[budget]["grid"], n_steps=1), task)
    return dict(name=name, id=dataset_id(name, data_dir), paper_name=paper_dataset(name), task=task,
                n_samples=meta["n_samples"], n_features=p, n_outputs=meta["n_outputs"], n_train=n_train,
                n_test=n_test, n_validation=int(round(ms.VALIDATION_FRACTION * n_train)),
                configs=ms.grid_configurations(grid, p), data=_fingerprint(name, data_dir))


def _fingerprint(name, data_dir):
    """sha256 (12 hex) of a data set's files: cells of a changed or another same-named data set miss."""
    folder = Path(dataset_id(name, data_dir)) if data_dir is not None else SAMPLE_DATA_DIR / name
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def _configs(info, method):
    """The grid of one method: Newton leaves have no absolute loss (no second derivative)."""
    if split_leaf_variant(method)[1]:
        return [c for c in info["configs"] if c["loss"] != "absolute_error"]
    return info["configs"]


def _setting_text(config):
    if not config:
        return ""
    short = {"learning_rate": "lr", "max_leaf_nodes": "leaves", "max_features": "k", "n_trees": "trees"}
    return " ".join(f"{short.get(k, k)}={v}" for k, v in config.items())


class _Study:
    """One run: the plan, the cache, the runner; ``cells`` collects the rows of the result."""

    def __init__(self, plan, progress, stop, report_partial):
        self.plan, self.settings = plan, STUDY_BUDGETS[plan["budget"]]
        self.cache = CellCache(None if plan["out"] is None else plan["out"] / "cache")
        self.datasets = [_dataset_plan(name, plan["budget"], plan["data_dir"]) for name in plan["datasets"]]
        self.cells, self.notes = [], list(plan["notes"])     # notes known before any work
        self.too_large = self._boomer_too_large()
        self.selections = {}        # (data set, method, split) -> the chosen setting, for selected_params
        self.n_computed = self.n_cached = 0
        self.started = time.perf_counter()
        self.report_partial = report_partial
        n_units = sum(self._n_units(info) for info in self.datasets)
        self.runner = Runner(progress, stop, n_units)
        self.done = 0.0
        self.local = plan["n_jobs"] == 1 and plan["client"] is None
        # in this process with a stop flag: every cell and timing probe in a worker process that a
        # stop ends at once (a forest or BOOMER fit cannot be interrupted; a boosting fit only
        # between chunks of steps)
        self.worker = FitWorker(stop if self.local else None)
        self.engine = engine_version()      # in every key: an upgraded engine never reads old cells

    def _boomer_too_large(self):
        """{data set name: BOOMER rows left out} where a BOOMER fit would not fit in this machine's
        memory (its non-decomposable loss keeps n d (d + 1) / 2 statistics: about 50 GB on delicious).

        Decided from the machine's total memory less a fifth for the study's own processes, so that
        a resumed run plans the same cells; each one left out gets a note.
        """
        total = machine_memory_bytes()
        out = {}
        for info in self.datasets:
            for method in BOOMER_NAMES:
                if method not in self.plan["methods"] or info["task"] != "multilabel" or total is None:
                    continue
                loss = "logistic-non-decomposable" if method == "boomer-non-decomposable" else None
                why = boomer_memory_check(info["n_train"], info["n_outputs"], loss, memory=0.8 * total)
                if why is not None:
                    out.setdefault(info["name"], []).append(method)
                    self.notes.append(f"{method} left out on {info['name']}: {why} (less a fifth kept for the "
                                      "study's own processes).")
        return out

    def _methods(self, info):
        left_out = self.too_large.get(info["name"], [])
        if info["task"] == "multilabel":
            return [m for m in self.plan["methods"] if m not in left_out]
        return [m for m in self.plan["methods"] if m not in BOOMER_NAMES]

    def _boosting(self, info):
        return [m for m in self._methods(info) if m not in FOREST_METHODS + BOOMER_NAMES]

    def _n_units(self, info):
        boosting, n = self._boosting(info), self.settings["n_splits"]
        probes = 1 + sum(len(self._probe_settings(info, m)) for m in boosting)
        finals = n * (2 * len(boosting) + len(self._methods(info)) - len(boosting))
        return probes + n * sum(len(_configs(info, m)) for m in boosting) + finals

    def _key(self, info, method, kind, **extra):
        return dict(dataset=info["name"], method=method, kind=kind, seed=self.plan["seed"],
                    version=PROTOCOL_VERSION, engine=self.engine, data=info["data"], **extra)

    def _tick(self, message):
        self.done += 1
        self.runner.report(self.done, message)

    # ------------------------------------------------------------ time budget

    @staticmethod
    def _probe_settings(info, method):
        return list(dict.fromkeys((c["max_leaf_nodes"], c["max_features"], c["loss"]) for c in _configs(info, method)))

    def _seconds(self, info, method, leaves, k, loss):
        key = self._key(info, method, "step-seconds", setting=dict(max_leaf_nodes=leaves, max_features=k, loss=loss))
        cached = self.cache.get(key)
        if cached is None:
            config = dict(learning_rate=0.1, max_leaf_nodes=leaves, max_features=k, loss=loss)
            cached = dict(seconds=self.worker.call(step_seconds, info["id"], method, config, self.plan["seed"]))
            self.cache.put(key, cached)
        self._tick(f"{info['name']}: timing {method} (leaves {leaves}, k {k}, {loss})")
        return cached["seconds"]

    def steps(self, info):
        """n_steps per (method, setting): the time budget factor * T over the setting's time per step."""
        T = self._seconds(info, "gbmort", 2, info["n_features"], "squared_error")
        info["T_seconds"] = T
        budget = TIME_FACTOR[info["task"]] * T
        out = {}
        for method in self._boosting(info):
            for leaves, k, loss in self._probe_settings(info, method):
                if self.runner.stopped():
                    return None
                t = self._seconds(info, method, leaves, k, loss)
                out[method, leaves, k, loss] = int(np.clip(np.floor(budget / t), 1, self.settings["max_steps"]))
                info.setdefault("step_cpu_seconds", {})[f"{method} leaves={leaves} k={k} loss={loss}"] = t
        return out

    # ------------------------------------------------------------ cells

    def _record(self, info, method, split, kind, config, n_steps, result, cached):
        cell = dict(dataset=info["name"], task=info["task"], method=method, split=split, kind=kind,
                    setting=_setting_text(config), n_steps=n_steps, score=result["score"],
                    seconds=result["seconds"], cpu_seconds=result.get("cpu_seconds", np.nan), cached=cached,
                    best_step=result.get("n_best"), selected=None, selected_params="")
        if kind in ("test-refit", "test-no-refit"):
            cell["selected_params"] = json.dumps(self.selections[info["name"], method, split])
        self.cells.append(cell)

    def _run(self, info, jobs, fn):
        """jobs: (key, record args, fn args); cached ones are taken, the others computed in order.
        Returns False if stopped."""
        todo = []
        for key, record, args in jobs:
            result = self.cache.get(key)
            if result is None:
                todo.append((key, record, args))
                continue
            self.n_cached += 1
            self._record(info, *record, result, True)
            self._tick(f"{info['name']}: cached")
        if not todo or self.runner.stopped():
            return not self.runner.stopped()
        labels = [f"{info['name']}: {r[0]} split {r[1] + 1}, {r[2]}" for _, r, _ in todo]
        local = ([dict(callback=self.runner.fit_callback(self.done + i, label)) for i, label in enumerate(labels)]
                 if self.local else None)
        if self.worker.stop is not None:
            results = (self.worker.call(fn, *a, **kw) for (_, _, a), kw in zip(todo, local))
        else:
            results = ordered_map(fn, [a for _, _, a in todo], n_jobs=self.plan["n_jobs"],
                                  client=self.plan["client"], local_kwargs=local)
        try:
            for (key, record, _), label, result in zip(todo, labels, results):
                if self.runner.cut:         # a fit stopped half way: its result is not kept
                    return False
                self.cache.put(key, result)
                self.cache.drop_scratch(key)
                self.n_computed += 1
                self._record(info, *record, result, False)
                self._tick(label)
                if self.runner.stopped():
                    return False
        except Stopped:             # the worker was ended in the middle of a cell
            return False
        finally:
            results.close()
        return True

    def grid(self, info, steps):
        jobs = []
        for method in self._boosting(info):
            for split in range(self.settings["n_splits"]):
                for config in _configs(info, method):
                    n = steps[method, config["max_leaf_nodes"], config["max_features"], config["loss"]]
                    key = self._key(info, method, "validation", split=split, setting=config, n_steps=n)
                    jobs.append((key, (method, split, "validation", config, n),
                                 (info["id"], method, split, config, n, self.plan["seed"])))
        return self._run(info, jobs, grid_cell)

    def _chosen(self, info, method, split):
        """(config, n_steps) with the best validation score (ties: the first setting, the fewest steps).

        Marks the candidates' ``selected`` and keeps what was chosen (``self.selections``) for the
        ``selected_params`` of the test rows.
        """
        best, runner_up, candidates = None, None, []
        for cell in self.cells:
            if (cell["dataset"], cell["method"], cell["split"], cell["kind"]) == (info["name"], method, split,
                                                                                   "validation"):
                candidates.append(cell)
                if best is None or cell["score"] > best["score"]:
                    best, runner_up = cell, best
                elif runner_up is None or cell["score"] > runner_up["score"]:
                    runner_up = cell
        config = next(c for c in _configs(info, method) if _setting_text(c) == best["setting"])
        n_best = self.cache.get(self._key(info, method, "validation", split=split, setting=config,
                                          n_steps=best["n_steps"]))["n_best"]
        for cell in candidates:
            cell["selected"] = cell is best
        self.selections[info["name"], method, split] = dict(
            config, n_steps=int(n_best), step_budget=int(best["n_steps"]), validation_score=best["score"],
            n_candidates=len(candidates),
            runner_up=None if runner_up is None else dict(setting=runner_up["setting"],
                                                          validation_score=runner_up["score"]))
        return config, n_best

    def finals(self, info):
        jobs, seed = [], self.plan["seed"]
        for method in self._methods(info):
            for split in range(self.settings["n_splits"]):
                if method in FOREST_METHODS + BOOMER_NAMES:
                    if method in FOREST_METHODS:
                        config, n, rules = dict(n_trees=self.settings["forest_trees"]), self.settings["forest_trees"], None
                    else:
                        rules = self.settings["boomer_max_rules"][method]
                        config, n = dict(max_rules=rules or "default"), None
                    key = self._key(info, method, "test", split=split, setting=config, n_steps=n)
                    scratch = None if method != "st-rf" else self.cache.scratch_path(key)
                    jobs.append((key, (method, split, "test", config, n),
                                 (info["id"], method, split, {}, n, seed, "train", rules, scratch)))
                    continue
                config, n = self._chosen(info, method, split)
                for kind, on in (("test-refit", "train"), ("test-no-refit", "fit")):
                    key = self._key(info, method, kind, split=split, setting=config, n_steps=n)
                    jobs.append((key, (method, split, kind, config, n), (info["id"], method, split, config, n, seed, on)))
        return self._run(info, jobs, final_cell)

    def result(self, partial):
        datasets = [{k: v for k, v in info.items() if k not in ("configs", "id")} for info in self.datasets]
        notes = list(self.notes)
        for info in self.datasets:
            if info["task"] == "regression" and any(m in BOOMER_NAMES for m in self.plan["methods"]):
                notes.append(f"BOOMER skipped on {info['name']}: a regression data set "
                             "(BOOMER is a multi-label classifier).")
        if self.cache.n_corrupt:
            notes.append(f"{self.cache.n_corrupt} corrupt cache line(s) were not trusted: their cells were "
                              "computed again.")
        settings = dict(self.settings, grid={k: list(v) if isinstance(v, tuple) else v
                                             for k, v in self.settings["grid"].items()},
                        time_factor=TIME_FACTOR, seed=self.plan["seed"], refit=self.plan["refit"],
                        protocol_version=PROTOCOL_VERSION, engine_version=self.engine, n_jobs=self.plan["n_jobs"],
                        backend="dask" if self.plan["client"] is not None else "joblib")
        return RealDataResult(budget=self.plan["budget"], settings=settings, datasets=datasets,
                              methods=list(self.plan["methods"]), cells=list(self.cells), notes=notes,
                              refit=self.plan["refit"], partial=partial, n_computed=self.n_computed,
                              n_cached=self.n_cached, n_corrupt=self.cache.n_corrupt,
                              total_time=time.perf_counter() - self.started)


def study_work(data, settings=None):
    """What :func:`run_real_data` will fit on ``data`` (a :class:`StudyData`) with ``settings`` (a
    :class:`RealDataSettings`; None: its defaults), without fitting anything (for a cost estimate).

    One dict per data set: its ``name``, ``task``, ``n_samples``, ``n_features``, ``n_outputs``,
    ``n_train``, ``n_test``; ``boosting_fits`` (grid and final fits of the boosting methods, each
    trained for ``time_factor`` units T: one gbmort stump step), ``probes`` (timing probes),
    ``forest_fits`` ({method: fits of ``forest_trees`` trees}) and ``boomer_fits``.
    """
    study = _Study(_plan(data, settings or RealDataSettings(), StudyExecution()), None, None, False)
    work = []
    for info in study.datasets:
        boosting, n = study._boosting(info), study.settings["n_splits"]
        methods_here = study._methods(info)
        work.append(dict(
            {k: info[k] for k in ("name", "task", "n_samples", "n_features", "n_outputs", "n_train", "n_test")},
            boosting_fits=n * sum(len(_configs(info, m)) + 2 for m in boosting),
            probes=1 + sum(len(study._probe_settings(info, m)) for m in boosting),
            time_factor=TIME_FACTOR[info["task"]], max_steps=study.settings["max_steps"],
            forest_fits={m: n for m in methods_here if m in FOREST_METHODS}, forest_trees=study.settings["forest_trees"],
            boomer_fits=n * sum(m in BOOMER_NAMES for m in methods_here)))
    return work


def run_real_data(data, settings=None, execution=None, *, progress=None, stop=None,
                  report_partial=False) -> RealDataResult:
    """Run the real-data study of paper 002 (section 4.4); see the module doc.

    Parameters
    ----------
    data : :class:`StudyData`, the data sets (of sample_data/ or of a researcher's own folder).
    settings : :class:`RealDataSettings` (budget, methods, seed, refit, second-order rows); None:
        its defaults.
    execution : :class:`StudyExecution` (where the cells run, where the finished ones are kept);
        None: in this process, nothing kept on disk.
    progress, stop, report_partial : as in :func:`~engine.experiments.run_model_selection`
        (``report_partial``: the result so far after every data set).
    """
    plan = _plan(data, settings or RealDataSettings(), execution or StudyExecution())
    check_callbacks(progress, stop)
    check_flag(report_partial, "report_partial")
    study = _Study(plan, progress, stop, report_partial)
    complete = True
    with study.worker:
        for i, info in enumerate(study.datasets):
            try:
                steps = None if study.runner.stopped() else study.steps(info)
            except Stopped:
                steps = None
            if steps is None or not study.grid(info, steps) or not study.finals(info):
                complete = False
                break
            if report_partial and i < len(study.datasets) - 1:
                study.runner.report(study.done, f"{info['name']} done", partial=study.result(True))
    result = study.result(not complete)
    study.runner.finish(complete)
    return result
