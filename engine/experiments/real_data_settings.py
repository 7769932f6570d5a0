"""What the real-data study (:func:`engine.experiments.real_data.run_real_data`) runs on, with what,
and where: three objects, each checked once when it is built (a ``ValueError`` naming the argument),
so that a bad argument is refused before any work and before anything is written.

* :class:`StudyData`: the data sets (of sample_data/, or of a researcher's own folder);
* :class:`RealDataSettings`: the budget, the methods, the seed, refit and the second-order rows:
  what decides the numbers;
* :class:`StudyExecution`: where the cells run (in this process, joblib's workers, a dask cluster)
  and where the finished ones are kept (``out``): what decides only how fast they come.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from engine.datasets import list_datasets, load_dataset
from engine.estimators.boomer import boomer_status
from engine.experiments.settings import check_flag, check_names, check_seed
from engine.experiments.study_cells import PAPER_NAME, STUDY_DATASETS
from engine.names import ALIASES, BOOMER_NAMES, REAL_DATA_METHODS, SECOND_ORDER_METHODS
from engine.validation import check_choice, check_n_jobs

__all__ = ["BACKENDS", "BUDGET_ALIASES", "STUDY_BUDGETS", "RealDataSettings", "StudyData", "StudyExecution",
           "available_study_datasets"]

STUDY_BUDGETS = {
    "quick": dict(grid=dict(learning_rate=(0.2,), max_leaf_nodes=(2, 8), max_features=(1.0,), loss="all"),
                  n_splits=2, forest_trees=10, boomer_max_rules={"boomer": 50, "boomer-non-decomposable": 20},
                  max_steps=1000),
    "moderate": dict(grid=dict(learning_rate=(0.5, 0.1), max_leaf_nodes=(2, 8), max_features=("sqrt", 1.0),
                               loss="all"),
                     n_splits=5, forest_trees=100, boomer_max_rules={"boomer": None, "boomer-non-decomposable": 100},
                     max_steps=10_000),
    "paper": dict(grid=dict(learning_rate=(1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01), max_leaf_nodes=tuple(range(2, 9)),
                            max_features=("sqrt", 0.1, 0.2, 0.5, 1.0), loss="all"),
                  n_splits=5, forest_trees=100, boomer_max_rules={"boomer": None, "boomer-non-decomposable": None},
                  max_steps=10_000),
}
BUDGET_ALIASES = {"full": "paper"}
BACKENDS = ("joblib", "dask")


def available_study_datasets():
    """The data sets of the paper's list that sample_data/ ships, in the paper's order."""
    shipped = {d["name"] for d in list_datasets()}
    return [name for name in STUDY_DATASETS if name in shipped]


def _available(data_dir):
    """(names of the data sets of ``data_dir`` or of sample_data/, the words that name the place)."""
    if data_dir is None:
        return [d["name"] for d in list_datasets()], "sample_data/"
    if not isinstance(data_dir, (str, Path)) or not Path(data_dir).is_dir():
        raise ValueError(f"data_dir: {str(data_dir)!r} is not a folder")
    try:
        return [d["name"] for d in list_datasets(data_dir)], f"data_dir {str(data_dir)!r}"
    except ValueError as exc:
        raise ValueError(f"data_dir: {str(exc).removeprefix('root: ')}") from None


@dataclass(frozen=True)
class StudyData:
    """The data sets of a study, checked (and a researcher's own ones read once) when built.

    datasets : names of data set folders: of sample_data/ (the paper's CAL500 and water-quality are
        accepted for cal500 and wq; None = the paper's sets it ships, ``available_study_datasets()``),
        or with ``data_dir`` of that folder (None = all of its data sets). A data set the paper's
        Tables 2-3 list (by name) is split with the paper's train/test ratio and shown beside the
        paper's scores; any other is split 50/50, with no paper column. Kept as a tuple of our names.
    data_dir : a folder of the researcher's own data sets, laid out as sample_data/ (one sub-folder
        per data set: meta.json with task, n_samples, n_features, n_targets, compact_file, and that
        file); kept as its absolute path
    """

    datasets: tuple | None = None
    data_dir: str | None = None

    def __post_init__(self):
        available, where = _available(self.data_dir)
        if self.datasets is None:
            names = available if self.data_dir is not None else available_study_datasets()
        else:
            papers = {paper: mine for mine, paper in PAPER_NAME.items() if mine in available}
            asked = check_names(self.datasets, "datasets", available + [p for p in papers if p not in available],
                                f"data set of {where}")
            names = [name if name in available else papers[name] for name in asked]
            if len(set(names)) != len(names):
                raise ValueError(f"datasets lists a data set twice: {asked}")
        object.__setattr__(self, "datasets", tuple(names))
        if self.data_dir is not None:
            object.__setattr__(self, "data_dir", str(Path(self.data_dir).resolve()))
            for name in names:        # a bad file is named before any work
                try:
                    load_dataset(name, root=self.data_dir)
                except (ValueError, OSError, KeyError) as exc:
                    raise ValueError(f"datasets: {name!r} in data_dir {self.data_dir!r} cannot be read: {exc}") from None


def _check_methods(methods):
    """The methods asked for, as our names (br-gbrt / br-rf accepted), BOOMER's only where installed."""
    python, _, message = boomer_status()
    known = REAL_DATA_METHODS + BOOMER_NAMES + SECOND_ORDER_METHODS
    asked = check_names(methods, "methods", known + tuple(a for a, m in ALIASES.items() if m in known), "method")
    out = [ALIASES.get(name, name) for name in asked]
    if len(set(out)) != len(out):
        raise ValueError(f"methods lists a method twice: {asked}")
    boomer = next((name for name, ours in zip(asked, out) if ours in BOOMER_NAMES), None)
    if boomer is not None and python is None:
        raise ValueError(f"methods: {boomer!r} asked for, but {message}")
    return tuple(out)


@dataclass(frozen=True)
class RealDataSettings:
    """What decides a study's numbers, checked when built.

    budget : "quick", "moderate" or "paper" (``STUDY_BUDGETS``; "full" = "paper"), kept as its name
    methods : names from ``REAL_DATA_METHODS`` (br-gbrt / br-rf accepted), ``BOOMER_NAMES`` (where
        BOOMER is installed) and ``SECOND_ORDER_METHODS``, kept as our names; None = the eight
        methods, BOOMER's two rows when it is installed (else a note says why not) and, with
        ``second_order``, the second-order rows: extra rows with Newton leaves, outside the paper's
        ranks (which stay over its eight methods)
    seed : int >= 0 (splits and models)
    refit : whether the study ranks the chosen boosting setting fitted again on the whole training
        set (see :mod:`engine.experiments.real_data`)
    second_order : whether methods=None includes the second-order rows
    """

    budget: str = "quick"
    methods: tuple | None = None
    seed: int = 0
    refit: bool = False
    second_order: bool = True

    def __post_init__(self):
        check_choice(BUDGET_ALIASES.get(self.budget, self.budget) if isinstance(self.budget, str) else self.budget,
                     "budget", STUDY_BUDGETS)
        object.__setattr__(self, "budget", BUDGET_ALIASES.get(self.budget, self.budget))
        if self.methods is not None:
            object.__setattr__(self, "methods", _check_methods(self.methods))
        check_seed(self.seed)
        check_flag(self.refit, "refit")
        check_flag(self.second_order, "second_order")

    def method_names(self):
        """(the methods of the study as a list, notes on the rows left out)."""
        if self.methods is not None:
            return list(self.methods), []
        python, _, message = boomer_status()
        out = list(REAL_DATA_METHODS) + (list(BOOMER_NAMES) if python is not None else [])
        notes = [] if python is not None else [f"BOOMER rows left out: {message}"]
        return out + (list(SECOND_ORDER_METHODS) if self.second_order else []), notes


def _check_out(out):
    """``out`` as a Path whose cache folder exists and can be written (None stays None)."""
    if out is None:
        return None
    path = Path(out)
    try:
        (path / "cache").mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path / "cache", prefix=".write-test-"):
            pass
    except OSError as exc:
        raise ValueError(f"out: cannot write to {str(out)!r} ({exc.strerror or exc})") from None
    return path


def _client(backend, client):
    """The dask.distributed client of a run (None: joblib): ``client``, or the current one for "dask"."""
    if client is not None or backend != "dask":
        return client
    try:
        from distributed import get_client
        return get_client()
    except (ImportError, ValueError) as exc:
        raise ValueError("backend 'dask' needs a dask.distributed cluster: pass client= or start a Client "
                         f"first ({exc})") from None


@dataclass(frozen=True)
class StudyExecution:
    """Where a study's cells run and where the finished ones are kept, checked when built (the
    numbers do not depend on it).

    out : folder for the cache of finished cells (None: nothing kept on disk); a stopped or crashed
        run started again with the same data and settings resumes from it. Created when built.
    n_jobs : joblib workers (-1 = all cores); 1: in this process, where a stop reaches inside a fit
    backend : "joblib" or "dask" (``client``, or the current dask.distributed client, resolved when
        built); a ``client`` given runs the cells on it whatever the backend
    """

    out: Path | None = None
    n_jobs: int = 1
    backend: str = "joblib"
    client: object = None

    def __post_init__(self):
        check_n_jobs(self.n_jobs, allow_none=False)
        check_choice(self.backend, "backend", BACKENDS)
        object.__setattr__(self, "client", _client(self.backend, self.client))
        object.__setattr__(self, "out", _check_out(self.out))
