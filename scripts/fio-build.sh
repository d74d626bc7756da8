#!/usr/bin/env bash
# Builds fio 3.42 (fio's newest release, April 2026) from ../shared/sources/, once per machine:
# into ~/.cache/iolab/fio/<version>/ (IOLAB_FIO_CACHE=DIR picks another place), linked from
# target/fio/<version> in this checkout, so a clean checkout on the same machine (CI's) builds
# nothing again.
#
#   bash scripts/fio-build.sh [--print-dir]
#
# Debian ships fio 3.33, built without fio's arithmetic in values (`size=(4k+512)` is an error
# there: no lex/yacc at its build). The differential tests of fio's value grammar compare with
# this build too, which has it (bison and flex installed first). Missing apt packages are
# installed (as root); without libaio-dev fio's configure drops the libaio engine silently.
# A finished build is kept: its `built` stamp names the tarball and the recipe. --print-dir
# prints the fio directory (its binary is ./fio) on stdout and nothing else there.
# FIO_SOURCES=DIR picks the tarball's directory (default: ../shared/sources beside the repo).
# Exit status: 0 built or cached; 125 when it cannot be built here (why is on stderr).
set -euo pipefail

die() { echo "fio-build: $*" >&2; exit 125; }
print_dir=0
case "${1:-}" in
  --print-dir) print_dir=1 ;;
  -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  '') ;;
  *) echo "fio-build: unknown option $1 (see --help)" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
sources=${FIO_SOURCES:-$(cd "$repo/.." && pwd)/shared/sources}
tarball=$(ls "$sources"/fio-3*.tar.gz 2>/dev/null | sort -V | tail -1)
[ -n "$tarball" ] || die "no fio-3*.tar.gz in $sources"
version=$(basename "$tarball" .tar.gz)
base=${IOLAB_FIO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iolab/fio}
cache="$base/$version"
link="$repo/target/fio/$version"
stamp="$(basename "$tarball") $(stat -c %s "$tarball") arith libaio portable"
link_cache() {
  mkdir -p "$repo/target/fio"
  [ "$link" -ef "$cache" ] || { rm -rf "$link"; ln -s "$cache" "$link"; }
}

if [ -f "$cache/built" ] && [ "$(cat "$cache/built")" = "$stamp" ]; then
  link_cache
  [ $print_dir = 1 ] && echo "$cache"
  exit 0
fi

need=()
for p in bison flex libaio-dev zlib1g-dev libnuma-dev make gcc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "needs ${need[*]} (apt-get install as root)"
  echo "fio-build: installing ${need[*]}" >&2
  { apt-get install -y -qq "${need[@]}" || { apt-get update -qq && apt-get install -y -qq "${need[@]}"; }; } \
    >/dev/null 2>&1 </dev/null || die "could not install ${need[*]}"
fi

t0=$(date +%s)
rm -rf "$cache"; mkdir -p "$base"
tmp=$(mktemp -d "$base/unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
src=$(ls -d "$tmp"/fio-* | head -1)
[ -d "$src" ] || die "$tarball did not unpack into fio-*/"
mv "$src" "$cache"
cd "$cache"
echo "fio-build: configuring $version in $cache" >&2
./configure --disable-native >"$cache/configure.log" 2>&1 || die "configure failed (see $cache/configure.log)"
grep -q '^lex/yacc for arithmetic .*yes' "$cache/configure.log" || die "configure found no lex/yacc: fio would lack its arithmetic"
grep -q '^Linux AIO support .*yes' "$cache/configure.log" || die "configure found no libaio"
echo "fio-build: building (make -j$(nproc) fio); the log is $cache/make.log" >&2
make -j"$(nproc)" fio >"$cache/make.log" 2>&1 || { tail -20 "$cache/make.log" >&2; die "make failed (see $cache/make.log)"; }
./fio --version | grep -q "^$version\$" || die "./fio --version is not $version"
echo "$stamp" >"$cache/built"
link_cache
echo "fio-build: $version built in $(( $(date +%s) - t0 )) s" >&2
[ $print_dir = 1 ] && echo "$cache"
exit 0
