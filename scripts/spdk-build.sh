#!/usr/bin/env bash
# Builds SPDK (the user-space NVMe driver behind iolab's `spdk` engine and spdk_nvme_perf) from
# the sources in ../shared/sources/, once per machine: into ~/.cache/iolab/spdk/<version>/
# (IOLAB_SPDK_CACHE=DIR picks another place), linked from target/spdk/<version> in this
# checkout, so a clean checkout on the same machine (CI's) builds nothing again.
#
#   bash scripts/spdk-build.sh [--print-dir]
#
# SPDK is in no package registry this project reaches. Its tarball, with ISA-L and ISA-L-crypto
# (which unpack into its isa-l/ and isa-l-crypto/ submodule directories), is built against
# Debian's DPDK (libdpdk-dev) as shared libraries, with everything iolab does not use turned
# off: no apps but spdk_nvme_perf. `cargo build --features spdk` links the libraries through
# the pkg-config files in build/lib/pkgconfig; the NVMe lab copies them into its guest.
#
# Missing apt packages are installed (as root). A finished build is kept and not redone: its
# `built` stamp names the tarballs and the recipe. --print-dir prints the SPDK directory (the
# cache) on stdout and nothing else there; progress goes to stderr.
# SPDK_SOURCES=DIR picks the tarballs' directory (default: ../shared/sources beside the repo).
# Exit status: 0 built or cached; 125 when it cannot be built here (why is on stderr).
set -euo pipefail

die() { echo "spdk-build: $*" >&2; exit 125; }
print_dir=0
case "${1:-}" in
  --print-dir) print_dir=1 ;;
  -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  '') ;;
  *) echo "spdk-build: unknown option $1 (see --help)" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
sources=${SPDK_SOURCES:-$(cd "$repo/.." && pwd)/shared/sources}
spdk_tar=$(ls "$sources"/spdk-v*.tar.gz 2>/dev/null | sort -V | tail -1)
isal_tar=$(ls "$sources"/isa-l-v*.tar.gz 2>/dev/null | sort -V | tail -1)
crypto_tar=$(ls "$sources"/isa-l-crypto-v*.tar.gz 2>/dev/null | sort -V | tail -1)
[ -n "$spdk_tar" ] || die "no spdk-v*.tar.gz in $sources"
[ -n "$isal_tar" ] || die "no isa-l-v*.tar.gz in $sources"
[ -n "$crypto_tar" ] || die "no isa-l-crypto-v*.tar.gz in $sources (configure checks for it even --without-crypto)"
version=$(basename "$spdk_tar" .tar.gz)
# One build per machine, outside any checkout (a clean checkout, as CI's, finds it there);
# target/spdk/<version> in the checkout links to it, where cargo's build scripts look.
base=${IOLAB_SPDK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iolab/spdk}
cache="$base/$version"
link="$repo/target/spdk/$version"
stamp="$(basename "$spdk_tar") $(basename "$isal_tar") $(basename "$crypto_tar") $(stat -c %s "$spdk_tar") shared rpath dpdk-22.11.11 noapps"
link_cache() {
  mkdir -p "$repo/target/spdk"
  [ "$link" -ef "$cache" ] || { rm -rf "$link"; ln -s "$cache" "$link"; }
}

if [ -f "$cache/built" ] && [ "$(cat "$cache/built")" = "$stamp" ]; then
  link_cache
  [ $print_dir = 1 ] && echo "$cache"
  exit 0
fi

# --- apt dependencies (Debian's DPDK, the build's python modules and tools) ---
need=()
for p in libdpdk-dev python3-jinja2 python3-tabulate python3-yaml python3-pyelftools nasm \
  libnuma-dev uuid-dev libssl-dev libaio-dev libncurses-dev libjson-c-dev pkg-config make gcc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "needs ${need[*]} (apt-get install as root)"
  echo "spdk-build: installing ${need[*]}" >&2
  { apt-get install -y -qq "${need[@]}" || { apt-get update -qq && apt-get install -y -qq "${need[@]}"; }; } \
    >/dev/null 2>&1 </dev/null || die "could not install ${need[*]}"
fi

# --- unpack and configure (only the NVMe driver, its DPDK environment and spdk_nvme_perf) ---
t0=$(date +%s)
rm -rf "$cache"; mkdir -p "$base"
tmp=$(mktemp -d "$base/unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$spdk_tar" -C "$tmp"
tar -xzf "$isal_tar" -C "$tmp"
tar -xzf "$crypto_tar" -C "$tmp"
[ -d "$tmp/spdk" ] || die "$spdk_tar did not unpack into spdk/"
mv "$tmp/spdk" "$cache"
cd "$cache"
echo "spdk-build: configuring $version in $cache" >&2
# Debian's python3 first: SPDK's build scripts import jinja2, yaml and elftools from it.
export PATH="/usr/bin:$PATH"
# Every library and program finds its siblings without LD_LIBRARY_PATH: SPDK's own RUNPATH
# names only ISA-L, and a RUNPATH serves just the object that carries it.
LDFLAGS="-Wl,-rpath=$cache/build/lib" ./configure --with-dpdk --with-shared --without-crypto --without-vhost --without-virtio \
  --without-fio --without-xnvme --without-ocf --without-uring --without-rdma --without-vfio-user \
  --without-nvme-cuse --disable-tests --disable-unit-tests --disable-examples --disable-apps >"$cache/configure.log" 2>&1 \
  || die "configure failed (see $cache/configure.log)"
# Debian's DPDK carries IPSec_MB, which makes SPDK build a submodule the tarball lacks.
sed -i 's/^CONFIG_IPSEC_MB?=y/CONFIG_IPSEC_MB?=n/' mk/config.mk
grep -q '^CONFIG_IPSEC_MB?=n' mk/config.mk || die 'mk/config.mk has no CONFIG_IPSEC_MB?=y to turn off'
# SPDK v25.09 trusts DPDK 22.11 only up to 22.11.4, "as LTS minor releases could change private
# ABI" (lib/env_dpdk/pci_dpdk.c); Debian 12 ships 22.11.11. The private headers SPDK keeps for
# 22.11 (lib/env_dpdk/22.11/: bus_pci_driver.h, dev_driver.h, bus_driver.h, rte_bus.h,
# rte_dev.h, rte_bus_pci.h) match DPDK 22.11.11's struct for struct (one internal function,
# rte_pci_pasid_set_state, was added), so the check is widened to 22.11.11 here.
dpdk=$(pkg-config --modversion libdpdk 2>/dev/null || echo unknown)
case "$dpdk" in
  22.11.[0-9]|22.11.1[01])
    sed -i 's/if (minor > 4) {/if (minor > 11) {/' lib/env_dpdk/pci_dpdk.c
    grep -q 'if (minor > 11) {' lib/env_dpdk/pci_dpdk.c || die "lib/env_dpdk/pci_dpdk.c has no 22.11 minor check to widen" ;;
  *) echo "spdk-build: DPDK $dpdk: SPDK's own version check decides" >&2 ;;
esac
echo "spdk-build: building (make -j$(nproc)); the log is $cache/make.log" >&2
# The libraries, then the one program wanted of SPDK's apps (configured out: targets, tools).
{ make -j"$(nproc)" && make -j"$(nproc)" -C app/spdk_nvme_perf; } >"$cache/make.log" 2>&1 \
  || { tail -20 "$cache/make.log" >&2; die "make failed (see $cache/make.log)"; }
[ -x build/bin/spdk_nvme_perf ] || die "make left no build/bin/spdk_nvme_perf"
[ -f build/lib/pkgconfig/spdk_nvme.pc ] || die "make left no build/lib/pkgconfig/spdk_nvme.pc"
echo "$stamp" >"$cache/built"
link_cache
echo "spdk-build: $version built in $(( $(date +%s) - t0 )) s" >&2
[ $print_dir = 1 ] && echo "$cache"
exit 0
