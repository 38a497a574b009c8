#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh BUILD: the main job on the built-in demo.
set -eu
bin=${1:-build}/stallscope
"$bin" --version
