#!/usr/bin/env bash
# The Python package as a user installs it: a fresh virtual environment in
# build/venv, `pip install ./python` (linked with the C library already built
# in build/, JETFILTER_BUILD_DIR), then its tests from outside the source tree.
# NumPy, pytest, SciPy and vermin come from PyPI (kept in pip's cache).
#   scripts/python-test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$(cd "${1:-build}" && pwd)
venv=$build/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip > /dev/null
"$venv/bin/python" -m pip install -q numpy pytest scipy vermin
JETFILTER_BUILD_DIR=$build "$venv/bin/python" -m pip install -q "$root/python"
cd "$(mktemp -d)"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
echo "python-test: the package installed from python/ and its tests passed ($("$venv/bin/python" --version))"
