"""engine.bench.first_views: its page list, and one view timed on a live server through the agent API."""
import re

import pytest

from apptest_runs import open_app
from engine.bench.first_views import Server, registered_pages, url_path


@pytest.mark.slow
def test_the_bench_reads_app_py_s_pages():
    at = open_app()
    assert tuple(registered_pages()) == at.session_state["app_registered_pages"]
    assert url_path("pages/home.py") == "" and url_path("pages/bias_variance.py") == "bias_variance"


@pytest.mark.slow
def test_a_view_is_timed_until_its_run_is_drawn_and_a_second_session_gets_the_cache(tmp_path):
    view = {"label": "bv", "page": "pages/bias_variance.py", "query_params": {}}
    home = {"label": "home", "page": "pages/home.py", "query_params": {}}
    with Server(str(tmp_path), warm=False) as server:
        assert server.open_view(home)[1] == "no run"
        seconds, how = server.open_view(view)
        assert how == "computed" and seconds > 0
        assert re.search(r"run bv: session-\d+ done after", server.log())
        assert server.open_view(view)[1] == "from the cache"        # the store's cache, a new session
    assert "start-up fill" not in server.log()                      # RPO_WARM=0: no fill
