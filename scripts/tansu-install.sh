#!/usr/bin/env bash
# Installs the dev broker, tansu 0.6.0, unless `tansu --version` already says
# 0.6.0 (about 12 minutes on two cores, once per machine; newer releases need
# a newer compiler). Progress goes to stderr.
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"
if ! tansu --version 2>/dev/null | grep -q '0\.6\.0'; then
  echo "installing tansu 0.6.0 (once per machine)..." >&2
  cargo install tansu@0.6.0 --locked --features libsql >&2
fi
