#!/usr/bin/env bash
# The AWS CLI a rehearsal member calls as `aws` (Amazon Linux 2023 ships one): awscli from PyPI,
# pinned, in a virtual environment of the distribution's /usr/bin/python3, so that the member's
# root (an overlay of this host's) runs it as it is. Idempotent; prints the venv's path.
#
#   tests/harness/install-awscli.sh [VENV]     (default $VOLBENCH_AWSCLI_VENV or /opt/volbench-rehearsal-awscli)
set -euo pipefail
AWSCLI_VERSION=1.45.11
venv="${1:-${VOLBENCH_AWSCLI_VENV:-/opt/volbench-rehearsal-awscli}}"
python=/usr/bin/python3

if [[ -x "$venv/bin/aws" ]] && "$venv/bin/aws" --version 2>&1 | grep -q "aws-cli/$AWSCLI_VERSION "; then
  echo "$venv"
  exit 0
fi
if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "awscli==$AWSCLI_VERSION" >&2
echo "$venv"
