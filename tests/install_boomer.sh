#!/bin/sh
# Install BOOMER (mlrl-boomer, paper 004) for the real-data study and its tests, in a virtual
# environment of its own: its pins (pyproject.toml, extra "boomer") hold scikit-learn below the
# version this project runs on, so it must not go into the project's environment. The engine
# runs it as a subprocess (engine/estimators/boomer.py) and finds this environment at the same
# place: $RPO_BOOMER_VENV, default ~/.cache/rpo-explorer/boomer-<version>. Idempotent.
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}

# The pins, read from pyproject.toml (one place), and the version the engine expects.
pins=$("$PYTHON" - <<'PY'
try:
    import tomllib
    with open("pyproject.toml", "rb") as f:
        print(" ".join(tomllib.load(f)["project"]["optional-dependencies"]["boomer"]))
except ImportError:     # Python 3.10: the extra is a plain list of quoted strings
    import re
    block = re.search(r"^boomer = \[(.*?)\]", open("pyproject.toml").read(), re.S | re.M).group(1)
    print(" ".join(re.findall(r'"([^"]+)"', block)))
PY
)
version=$("$PYTHON" -c 'import re; print(re.search(r"BOOMER_VERSION = \"(.+?)\"", open("engine/estimators/boomer.py").read()).group(1))')
venv=${RPO_BOOMER_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rpo-explorer/boomer-$version}

if "$venv/bin/python" -I engine/estimators/boomer_worker.py version 2>/dev/null | grep -q "\"mlrl-boomer\": \"$version\""; then
    echo "install_boomer.sh: mlrl-boomer $version already in $venv"
    exit 0
fi
echo "install_boomer.sh: creating $venv with $pins"
rm -rf "$venv"
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
# shellcheck disable=SC2086
"$venv/bin/python" -m pip install --quiet $pins
"$venv/bin/python" -I engine/estimators/boomer_worker.py version
