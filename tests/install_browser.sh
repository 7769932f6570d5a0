#!/bin/sh
# Install what the browser tests drive: Debian's chromium, with fonts-liberation (real text
# metrics) and fonts-noto-color-emoji (the page icons). Idempotent: installs only what is
# missing. Never use `playwright install`: it downloads its own browser build, which fails here.
set -eu

missing=""
for package in chromium fonts-liberation fonts-noto-color-emoji; do
    dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        SUDO=""
    elif command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install_browser.sh: missing$missing, and I am neither root nor able to sudo" >&2
        exit 1
    fi
    echo "install_browser.sh: installing$missing with apt-get"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

# Debian's wrapper may also print a harmless "[: ...: unexpected operator" line.
/usr/bin/chromium --version
