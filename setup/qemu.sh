#!/bin/sh
# qemu-user, for the test that computes the book's arithmetic under emulated AMD and Intel CPUs
# (tests/test_same_bits.py): Debian's package, installed when this runs as root; elsewhere the
# test skips its emulated CPUs with a line saying what to install.
command -v qemu-x86_64 >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  if apt-get install -y -qq qemu-user >/dev/null 2>&1 ||
     { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq qemu-user >/dev/null 2>&1; }; then
    echo "qemu-user installed (for tests/test_same_bits.py)"
    exit 0
  fi
fi
echo "qemu-user is not installed (as root: apt-get install qemu-user); tests/test_same_bits.py will skip its emulated CPUs"
