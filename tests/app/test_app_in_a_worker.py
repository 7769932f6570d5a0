"""app.py run without a Streamlit session: what a "spawn" worker of a process that ran the app does.

multiprocessing's spawn start method (dask's LocalCluster workers, joblib's loky) re-runs the
parent's ``__main__`` file as ``__mp_main__``; after an AppTest of app.py that file is app.py.
It must not raise there (a session-scoped cache raised, and the workers never started).
"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_app_runs_as_a_spawned_workers_main_without_a_session():
    code = "import runpy; runpy.run_path('app.py', run_name='__mp_main__')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
