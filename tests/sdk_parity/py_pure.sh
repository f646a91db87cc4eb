#!/bin/sh
# The project's a2a-sdk 1.3.0 with protobuf's pure-Python backend instead of upb (what a caller
# gets under PyPy, or with PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python set), for
# `sdk_parity.py --second-py tests/sdk_parity/py_pure.sh` (see sdk_parity.mk).
PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python exec "$(dirname "$0")/../../.tools/py/bin/python" "$@"
