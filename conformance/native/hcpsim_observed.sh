#!/bin/sh
# make test: hcpcheck inside hcpsim, observed semantics (hcpsim.sh).
exec sh "$(dirname "$0")/hcpsim.sh" observed
