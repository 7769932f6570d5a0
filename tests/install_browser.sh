#!/bin/sh
# Install the browser the browser tests drive: Debian's chromium (+ fonts-liberation so text
# renders with real metrics). Idempotent: does nothing when /usr/bin/chromium exists.
# Never use `playwright install`: it downloads its own browser build, which fails here.
set -eu

CHROMIUM=/usr/bin/chromium

if [ ! -x "$CHROMIUM" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        SUDO=""
    elif command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install_browser.sh: $CHROMIUM is missing and I am neither root nor able to sudo" >&2
        exit 1
    fi
    echo "install_browser.sh: installing chromium and fonts-liberation with apt-get"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-liberation
fi

# Debian's wrapper may also print a harmless "[: ...: unexpected operator" line.
"$CHROMIUM" --version
