"""engine.app.page_models.cost.estimate_real_data_seconds against a measured real-data study.

The Benchmark page's real-data mode shows this estimate on its Run button and refuses a study
estimated above its limit (pages/_real_data.py), so the estimate is compared with the CPU time of
the same small study run here (``time.thread_time``, in this process), within a factor.
"""
import time

import pytest

from engine.experiments.real_data import RealDataSettings, StudyData, run_real_data, study_work
from engine.names import REAL_DATA_METHODS
from engine.app.page_models.cost import estimate_real_data_seconds


@pytest.mark.slow
@pytest.mark.parametrize("datasets, methods", [
    (["edm", "emotions"], list(REAL_DATA_METHODS)),
    (["yeast"], ["gbmort", "gbrt-rpo-subsampled", "mo-rf", "st-rf"]),
])
def test_a_quick_study(datasets, methods):
    data, settings = StudyData(datasets), RealDataSettings(budget="quick", methods=methods)
    estimate = estimate_real_data_seconds(study_work(data, settings))
    t0 = time.thread_time()
    run_real_data(data, settings)
    measured = time.thread_time() - t0
    assert measured / 3 < estimate < measured * 3, f"estimated {estimate:.1f} s, measured {measured:.1f} s"


@pytest.mark.slow
def test_the_work_grows_with_the_budget_and_the_data():
    def work(datasets, methods, budget="quick"):
        return study_work(StudyData(datasets), RealDataSettings(budget=budget, methods=methods))

    small = estimate_real_data_seconds(work(["edm"], ["gbmort"]))
    assert estimate_real_data_seconds(work(["edm"], ["gbmort"], budget="moderate")) > small
    assert estimate_real_data_seconds(work(["edm", "yeast"], ["gbmort"])) > small
    assert estimate_real_data_seconds(work(["edm"], ["gbmort", "mo-rf"])) > small
    work = work(["emotions"], ["gbmort", "mo-rf"])[0]
    assert work["forest_fits"] == {"mo-rf": 2} and work["boosting_fits"] > 0
