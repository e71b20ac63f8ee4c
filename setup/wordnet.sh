#!/bin/sh
# WordNet 3.0 for the word-level chapter (Debian's wordnet-base), installed by `make setup`:
# nothing to do where /usr/share/wordnet has it; as root, apt-get installs the package; as any
# other user, the package is downloaded (apt-get download needs no root) and unpacked into
# DEST (default .venv/wordnet), where lmnotes.studies.words.paraphrase looks next.
#   setup/wordnet.sh [DEST]
set -e
dest=${1:-.venv/wordnet}
if [ -f /usr/share/wordnet/data.noun ] || [ -f "$dest/usr/share/wordnet/data.noun" ]; then exit 0; fi
if [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wordnet-base >/dev/null 2>&1 || \
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wordnet-base)
else
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download wordnet-base >/dev/null) || \
    { echo "could not download Debian's wordnet-base (apt-get download wordnet-base)"; rm -rf "$tmp"; exit 1; }
  mkdir -p "$dest" && dpkg-deb -x "$tmp"/wordnet-base_*.deb "$dest" && rm -rf "$tmp"
  echo "WordNet 3.0 unpacked for this user into $dest/usr/share/wordnet"
fi
test -f /usr/share/wordnet/data.noun || test -f "$dest/usr/share/wordnet/data.noun" || \
  { echo "wordnet-base did not install data.noun"; exit 1; }
