#!/usr/bin/env bash
# The Emacs oracle (spec/tests/emacs_oracle.rs, issue 10) needs GNU Emacs: install Debian's
# emacs-nox (Emacs 28.2 on bookworm) when `emacs` is missing. The oracle tests fail under CI
# without it.
set -euo pipefail
if ! command -v emacs >/dev/null 2>&1; then
    echo "== apt-get install emacs-nox (Emacs oracle)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # Pinned to bookworm's build; a point release that replaced it still has to be 28.2.
    apt-get install -y -qq --no-install-recommends "emacs-nox=1:28.2+1-15+deb12u4" >/dev/null \
        || apt-get install -y -qq --no-install-recommends emacs-nox >/dev/null
fi
version="$(emacs --version | head -n 1)"
echo "== emacs: $version"
case "$version" in
    "GNU Emacs 28.2"*) ;;
    *) echo "the Emacs oracle's expectations are Emacs 28.2's, found: $version"; exit 1 ;;
esac
