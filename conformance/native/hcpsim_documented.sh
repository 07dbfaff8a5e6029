#!/bin/sh
# make test: hcpcheck inside hcpsim, documented semantics (hcpsim.sh).
exec sh "$(dirname "$0")/hcpsim.sh" documented
