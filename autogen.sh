#!/bin/sh
# Regenerates the autotools build files: ./autogen.sh && ./configure && make
set -e
cd "$(dirname "$0")"
autoreconf -fi
