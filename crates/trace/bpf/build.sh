#!/bin/sh
# Builds the latency split's BPF object from its C source: clang's BPF target, BTF kept for
# CO-RE, DWARF stripped so the object depends on nothing but the source and the compiler.
# Usage: build.sh [OUT]   (default: the committed object beside this script)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/lat_split.bpf.o}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cd "$here"
clang -O2 -g -fdebug-prefix-map="$here"=. -target bpf -D__TARGET_ARCH_x86 -I/usr/include/x86_64-linux-gnu \
    -c lat_split.bpf.c -o "$tmp"
llvm-strip -g "$tmp"
cp "$tmp" "$out"
