#!/usr/bin/env bash
# The NVMe lab: boots Debian's kernel under QEMU's software emulation (no KVM) with an emulated
# NVMe drive that has poll queues, and runs one shell command inside with iolab, fio and blkzone on PATH.
#
#   bash scripts/nvme-lab.sh [--zoned|--fdp|--pi|--atomic] [--spdk] [--backports] [--timeout SECONDS] [--size SIZE] [--] COMMAND...
#   bash scripts/nvme-lab.sh [--backports] --install   (installs the lab's packages, nothing else)
#
# The guest is bookworm's kernel (6.1) under bookworm's QEMU (7.2). --backports boots
# bookworm-backports' Linux 6.12 under its QEMU 10 instead: the kernel installed when missing
# (the suite added beside bookworm's, which stays the default), QEMU 10 unpacked into
# target/nvme-lab/qemu-10 so that bookworm's stays the system's. QEMU 10's controller says it
# can share namespaces, so the guest puts a native multipath head (nvme0n1) over the path
# (nvme0c0n1); two of the lab's tests still fail there (poll queues taken away at run time,
# which the head's io_poll does not show, and the latency split's join on the head).
# QEMU 10's NVMe has FDP and protection information; the 6.12 guest has RWF_ATOMIC, with the
# controller's atomic write unit on the namespace's own block device (--atomic: Linux 6.12
# does not carry atomic write limits up to a multipath head).
# fio 3.42, where scripts/fio-build.sh built it, is in the guest as fio-3.42.
#
# NVME_LAB_BACKPORTS=1 in the environment is --backports for every boot (to run a lab test
# suite there: NVME_LAB_BACKPORTS=1 cargo test --release -p iolab --test nvme_lab).
#
# --fdp (implies --backports): the drive's subsystem has Flexible Data Placement on (reclaim
# units of 16 MiB, one reclaim group, 8 reclaim unit handles, all of them the namespace's).
#
# --atomic (implies --backports): QEMU 10's controller-wide atomic write unit (AWUN and AWUPF,
# 0's based, of 4 KiB: 16 KiB) and the guest's nvme_core without native multipath, so that
# the namespace's block device is the controller's own and carries its atomic write limits.
#
# --pi: the namespace is formatted with end-to-end protection information: 4 KiB blocks, each
# with 8 bytes of metadata in a buffer of its own, holding Type 1 PI (guard, application tag,
# reference tag), which the drive checks where a command asks.
#
# Inside the guest: /dev/nvme0n1 (the namespace's block device, `nvme poll_queues=2`),
# /dev/ng0n1 (its passthrough char device), debugfs at /sys/kernel/debug, a tmpfs at /tmp (the
# working directory), zram loadable with `modprobe zram`, nvme-cli's `nvme`, `strace`. COMMAND runs with `/bin/sh -c`; its
# stdout comes back on this script's stdout, and the script exits with COMMAND's status. The
# guest's console (kernel log, COMMAND's stderr) and the lab's timings go to stderr.
#
# The drive is a sparse file in a temporary directory, removed afterwards: the lab never
# touches the host's disks. Every boot is bounded by --timeout (default 900 s): polled I/O the
# block layer must split can hang the guest for good, so a hung guest ends with exit 124.
# Figures are emulation speed: compare ratios and behaviour, never absolute numbers.
#
# --spdk: the guest is ready for SPDK's user-space driver: 256 hugepages of 2 MiB mounted at
# /dev/hugepages, uio_pci_generic loaded, QEMU's `-cpu max` (DPDK wants SSE4.2 and more),
# spdk_nvme_perf on PATH from scripts/spdk-build.sh's build, and a second controller of the
# same model (its own sparse drive) handed over with `iolab spdk bind` before COMMAND runs: its
# address in $SPDK_TRADDR (0000:00:05.0), the kernel's controller's namespace in $KERNEL_NVME.
# COMMAND gives it back to the kernel with `iolab spdk unbind "$SPDK_TRADDR"` (and binds it
# again) to compare the two paths.
# IOLAB must then be built with the feature `spdk`.
#
# IOLAB=/path/to/iolab picks the binary (default: target/release/iolab, built when missing).
# Exit status: COMMAND's; 2 for bad use; 124 on timeout; 125 when the lab cannot be set up.
set -euo pipefail

usage() { sed -n '2,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "nvme-lab: $*" >&2; exit 125; }

zoned=0 fdp=0 pi=0 atomic=0 spdk=0 timeout_s=900 size=1G install_only=0 backports=${NVME_LAB_BACKPORTS:-0}
while [ $# -gt 0 ]; do
  case "$1" in
    --zoned) zoned=1; shift ;;
    --fdp) fdp=1 backports=1; shift ;;
    --pi) pi=1; shift ;;
    --atomic) atomic=1 backports=1; shift ;;
    --install) install_only=1; shift ;;
    --backports) backports=1; shift ;;
    --spdk) spdk=1; shift ;;
    --timeout) timeout_s=${2:?--timeout needs seconds}; shift 2 ;;
    --size) size=${2:?--size needs a size such as 1G}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "nvme-lab: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || [ "$install_only" = 1 ] || { echo "nvme-lab: no command to run (see --help)" >&2; exit 2; }
case "$timeout_s" in ''|*[!0-9]*) echo "nvme-lab: --timeout takes whole seconds, not '$timeout_s'" >&2; exit 2 ;; esac
command="$*"

repo=$(cd "$(dirname "$0")/.." && pwd)
cache="$repo/target/nvme-lab"
t0=$(date +%s.%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# --- parts: installed with apt when missing (as root) ---
# --backports: Linux 6.12 installed from bookworm-backports (the suite added when missing), and
# its QEMU 10 unpacked into the lab's cache (apt-get download, dpkg -x): bookworm's QEMU stays
# the system's, so the other labs keep it.
add_backports() {
  grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
  [ "$(id -u)" = 0 ] || die "needs the bookworm-backports suite in /etc/apt (as root)"
  # The same Debian registry bookworm's packages come from.
  local uri
  uri=$(grep -rhs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '!/security/ && !u { u = $2 } END { print u }')
  [ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
  [ -n "$uri" ] || die "no bookworm source in /etc/apt to add bookworm-backports beside"
  printf '%s\n' 'Types: deb' "URIs: $uri" 'Suites: bookworm-backports' \
    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
    >/etc/apt/sources.list.d/bookworm-backports.sources
  apt-get update -qq >/dev/null 2>&1 </dev/null || die "apt-get update failed"
}
qemu=qemu-system-x86_64 qemu_data=()
if [ "$backports" = 1 ]; then
  if ! ls /boot/vmlinuz-*+deb* >/dev/null 2>&1; then
    add_backports
    echo "nvme-lab: installing Linux 6.12 from bookworm-backports" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports linux-image-amd64 \
      >/dev/null 2>&1 </dev/null || die "could not install linux-image-amd64 from bookworm-backports"
  fi
  q10="$cache/qemu-10"
  if [ ! -x "$q10/usr/bin/qemu-system-x86_64" ]; then
    add_backports
    echo "nvme-lab: unpacking QEMU 10 from bookworm-backports into $q10" >&2
    debs=$(mktemp -d); chmod 755 "$debs"
    (cd "$debs" && apt-get download -t bookworm-backports qemu-system-x86 qemu-system-common \
       qemu-system-data seabios >/dev/null 2>&1 </dev/null) || die "apt-get download of QEMU 10 failed"
    rm -rf "$q10.tmp"; mkdir -p "$q10.tmp"
    for d in "$debs"/*.deb; do dpkg -x "$d" "$q10.tmp"; done
    rm -rf "$debs" "$q10"; mv "$q10.tmp" "$q10"
  fi
  qemu="$q10/usr/bin/qemu-system-x86_64"
  "$qemu" --version | grep -q '^QEMU emulator version 1[0-9]' || die "$qemu is not QEMU 10"
  # No sound: a default audio backend would load a module the unpacked QEMU does not have.
  qemu_data=(-L "$q10/usr/share/qemu" -L "$q10/usr/share/seabios" -audiodev none,id=noaudio)
  # Its own modules (accelerators, block drivers), never the system QEMU's.
  export QEMU_MODULE_DIR="$q10/usr/lib/x86_64-linux-gnu/qemu"
fi
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v busybox >/dev/null && busybox --list 2>/dev/null | grep -x stty >/dev/null || need+=(busybox-static)
ls /boot/vmlinuz-* >/dev/null 2>&1 || need+=(linux-image-amd64)
command -v fio >/dev/null || need+=(fio)
command -v cpio >/dev/null || need+=(cpio)
command -v blkzone >/dev/null || need+=(util-linux)
command -v nvme >/dev/null || need+=(nvme-cli)
command -v strace >/dev/null || need+=(strace)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "needs ${need[*]} (apt-get install as root)"
  echo "nvme-lab: installing ${need[*]}" >&2
  { apt-get install -y -qq "${need[@]}" || { apt-get update -qq && apt-get install -y -qq "${need[@]}"; }; } \
    >/dev/null 2>&1 </dev/null || die "could not install ${need[*]}"
fi
[ "$install_only" = 0 ] || exit 0
busybox=$(command -v busybox)
ldd "$busybox" >/dev/null 2>&1 && die "$busybox is not static (install busybox-static)"
# Backports' kernels carry a '+' in their names (6.12.95+deb12-amd64); bookworm's do not.
if [ "$backports" = 1 ]; then
  vmlinuz=$(ls /boot/vmlinuz-*+deb* | sort -V | tail -1)
else
  vmlinuz=$( (ls /boot/vmlinuz-* | grep -v '+' || ls /boot/vmlinuz-*) | sort -V | tail -1)
fi
kver=${vmlinuz#/boot/vmlinuz-}
[ -d "/lib/modules/$kver" ] || die "no /lib/modules/$kver for $vmlinuz"

iolab=${IOLAB:-$repo/target/release/iolab}
if [ -z "${IOLAB:-}" ] && [ ! -x "$iolab" ]; then
  echo "nvme-lab: building iolab (cargo build --release)" >&2
  (cd "$repo" && cargo build --release -q --bin iolab) || die "cargo build failed"
fi
[ -x "$iolab" ] || die "no iolab binary at $iolab"

# --- the base initramfs (busybox, fio and its libraries, modules), cached per kernel ---
mkdir -p "$cache"
base="$cache/base-$kver.cpio.gz"
add_with_libs() { # copy binary $1 and every library ldd names into root $2
  local root=$2 lib
  mkdir -p "$root$(dirname "$1")"; cp -L "$1" "$root$1"
  for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$lib")"; cp -Ln "$lib" "$root$lib"
  done
}
if [ ! -s "$base" ] || [ "$0" -nt "$base" ] || [ "$(command -v fio)" -nt "$base" ]; then
  root=$(mktemp -d); trap 'rm -rf "$root"' EXIT
  mkdir -p "$root"/{bin,sbin,usr/bin,proc,sys,dev,tmp,etc,lib64}
  cp "$busybox" "$root/bin/busybox"
  for a in $("$busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"; done
  add_with_libs "$(command -v fio)" "$root"
  # util-linux's blkzone: the zoned namespace's write pointers, read by a tool not iolab's.
  add_with_libs "$(command -v blkzone)" "$root"
  # nvme-cli: the host's side of the drive (Set Features, e.g. a lowered temperature threshold).
  add_with_libs "$(command -v nvme)" "$root"
  # strace: which flags each write carried (RWF_ATOMIC), seen from outside iolab.
  add_with_libs "$(command -v strace)" "$root"
  # scsi_debug and sd_mod: a SCSI disk whose write cache MODE SELECT sets, and whose commands
  # can be delayed at will (the restore tests of the PTS lab).
  for m in nvme zram uio_pci_generic ext4 crc32c_generic scsi_debug sd_mod; do
    for ko in $(modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'); do
      mkdir -p "$root$(dirname "$ko")"; cp -n "$ko" "$root$ko"
    done
  done
  cp /lib/modules/"$kver"/modules.{dep,alias,symbols,builtin,order} "$root/lib/modules/$kver/" 2>/dev/null || true
  (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$base.tmp" && mv "$base.tmp" "$base"
  rm -rf "$root"; trap - EXIT
  echo "nvme-lab: base initramfs for $kver built ($(du -h "$base" | cut -f1)) in $(elapsed) s" >&2
fi

# --- this run: iolab (debug info stripped, cached by its identity), /init and the command ---
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stamp=$(stat -c '%s-%Y' "$iolab")
stripped="$cache/iolab-$stamp"
if [ ! -x "$stripped" ]; then
  rm -f "$cache"/iolab-*
  objcopy --strip-debug "$iolab" "$stripped.tmp" 2>/dev/null || cp "$iolab" "$stripped.tmp"
  mv "$stripped.tmp" "$stripped"
fi
mkdir -p "$work/root/usr/bin" "$work/root/lab"
cp "$stripped" "$work/root/usr/bin/iolab"
for lib in $(ldd "$iolab" 2>/dev/null | grep -o '/[^ ]*'); do
  mkdir -p "$work/root$(dirname "$lib")"; cp -Ln "$lib" "$work/root$lib"
done
# libblkid, which iolab loads at run time (no ldd line) to look for signatures: without it
# iolab refuses to write any device.
blkid_lib=$(ldconfig -p | awk '/libblkid\.so\.1 .*x86-64/ && !f { f = $NF } END { print f }')
[ -n "$blkid_lib" ] || die "no libblkid.so.1 on this machine (util-linux)"
mkdir -p "$work/root$(dirname "$blkid_lib")"; cp -Ln "$blkid_lib" "$work/root$blkid_lib"
printf '%s\n' "$command" >"$work/root/lab/command"
fio342="$repo/target/fio/fio-3.42/fio"
if [ -x "$fio342" ]; then
  add_with_libs "$fio342" "$work/root"
  ln -sf "$fio342" "$work/root/usr/bin/fio-3.42"
fi
cpu=qemu64 append=""
[ "$atomic" = 1 ] && touch "$work/root/lab/no-multipath"
if [ "$spdk" = 1 ]; then
  ldd "$iolab" | grep -q libspdk_nvme || die "$iolab is not built with the feature spdk (cargo build --release --features spdk)"
  spdk_dir=$(bash "$repo/scripts/spdk-build.sh" --print-dir) || die "SPDK could not be built (scripts/spdk-build.sh)"
  perf="$spdk_dir/build/bin/spdk_nvme_perf"
  add_with_libs "$perf" "$work/root"
  ln -sf "$perf" "$work/root/usr/bin/spdk_nvme_perf"
  # SPDK loads OpenSSL's configuration when it starts (NVMe in-band authentication).
  mkdir -p "$work/root/usr/lib/ssl"
  cp -L /usr/lib/ssl/openssl.cnf "$work/root/usr/lib/ssl/openssl.cnf"
  touch "$work/root/lab/spdk"
  # The TSC as a server has it (invariant, trusted by the kernel): SPDK's perf times with it
  # whatever the kernel thinks, and iolab does when the kernel's clocksource is the TSC; the
  # guest would otherwise read HPET, which TCG emulates at microseconds a read.
  cpu=max append="hugepages=256 tsc=reliable"
fi
cat >"$work/root/init" <<'INIT'
#!/bin/sh
export PATH=/usr/bin:/bin:/sbin:/usr/sbin HOME=/tmp
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug; mount -t tmpfs -o size=512m tmp /tmp
echo "nvme-lab: guest up at $(cut -d' ' -f1 /proc/uptime) s"
[ -e /lab/no-multipath ] && modprobe nvme_core multipath=N
modprobe nvme poll_queues=2 || echo "nvme-lab: modprobe nvme failed"
i=0; while [ ! -b /dev/nvme0n1 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/nvme0n1 ] || echo "nvme-lab: no /dev/nvme0n1"
echo "nvme-lab: nvme ready at $(cut -d' ' -f1 /proc/uptime) s: $(dmesg | grep -o 'nvme0: [0-9/]* default/read/poll queues')"
if [ -e /lab/spdk ]; then
  mkdir -p /dev/hugepages /var/run /var/tmp && mount -t hugetlbfs nodev /dev/hugepages
  modprobe uio_pci_generic || echo "nvme-lab: modprobe uio_pci_generic failed"
  i=0; while [ "$(cat /sys/class/nvme/nvme*/serial 2>/dev/null | grep -c iolab)" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  for c in /sys/class/nvme/nvme*; do
    case "$(cat "$c/serial")" in
      *iolabspdk*) SPDK_TRADDR=$(basename "$(readlink -f "$c/device")") ;;
      *) KERNEL_NVME=/dev/$(basename "$c")n1 ;;
    esac
  done
  export SPDK_TRADDR KERNEL_NVME
  iolab spdk bind "$SPDK_TRADDR" >&2 || echo "nvme-lab: iolab spdk bind $SPDK_TRADDR failed"
  echo "nvme-lab: SPDK ready at $(cut -d' ' -f1 /proc/uptime) s: $SPDK_TRADDR, $(grep HugePages_Free /proc/meminfo)"
fi
cd /tmp
/bin/sh -c "$(cat /lab/command)" >/tmp/lab.out </dev/null
status=$?
stty -F /dev/ttyS1 raw -echo 2>/dev/null
cat /tmp/lab.out >/dev/ttyS1
echo "nvme-lab-exit: $status bytes: $(wc -c </tmp/lab.out) at $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
INIT
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/run.cpio.gz"
cat "$base" "$work/run.cpio.gz" >"$work/initramfs.cpio.gz"

# --- the drive and the boot ---
truncate -s "$size" "$work/nvme.img"
if [ "$zoned" = 1 ]; then
  drive=(-device nvme,id=nvme0,serial=iolabz1
         -device nvme-ns,drive=nvm,bus=nvme0,nsid=1,zoned=true,zoned.zone_size=64M,zoned.max_open=0,zoned.max_active=0)
elif [ "$fdp" = 1 ]; then
  drive=(-device nvme-subsys,id=fdpsubsys,nqn=iolabfdp,fdp=on,fdp.runs=16M,fdp.nrg=1,fdp.nruh=8
         -device nvme,id=nvme0,serial=iolabf1,subsys=fdpsubsys
         -device "nvme-ns,drive=nvm,bus=nvme0,nsid=1,fdp.ruhs=0-7")
elif [ "$atomic" = 1 ]; then
  drive=(-device nvme,id=nvme0,serial=iolaba1,atomic.dn=off,atomic.awun=3,atomic.awupf=3
         -device nvme-ns,drive=nvm,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096)
elif [ "$pi" = 1 ]; then
  drive=(-device nvme,id=nvme0,serial=iolabp1
         -device nvme-ns,drive=nvm,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096,ms=8,mset=0,pi=1,pil=0)
else
  drive=(-device nvme,serial=iolab01,drive=nvm)
fi
if [ "$spdk" = 1 ]; then
  # A second controller of the same model for SPDK, so the kernel's paths keep theirs.
  truncate -s "$size" "$work/spdk.img"
  drive+=(-drive "file=$work/spdk.img,if=none,id=spdk,format=raw" -device nvme,serial=iolabspdk,drive=spdk)
fi
echo "nvme-lab: booting $kver (TCG, 2 CPUs) with ${size} $([ $zoned = 1 ] && echo zoned)$([ $fdp = 1 ] && echo FDP)$([ $pi = 1 ] && echo PI) NVMe; set up in $(elapsed) s" >&2
set +e
timeout --kill-after=10 "$timeout_s" "$qemu" "${qemu_data[@]}" -cpu "$cpu" -m 2048 -smp 2 \
  -display none -monitor none -no-reboot -serial stdio -serial "file:$work/out" \
  -kernel "$vmlinuz" -initrd "$work/initramfs.cpio.gz" \
  -append "console=ttyS0 rdinit=/init quiet panic=-1 $append" \
  -drive "file=$work/nvme.img,if=none,id=nvm,format=raw" "${drive[@]}" \
  </dev/null 2>&1 | tr -d '\r' | tee "$work/console" >&2
qemu=${PIPESTATUS[0]}
set -e
[ "$qemu" = 124 ] || [ "$qemu" = 137 ] && { echo "nvme-lab: guest did not finish within ${timeout_s} s" >&2; exit 124; }
line=$(grep -a '^nvme-lab-exit: ' "$work/console" | tail -1)
[ -n "$line" ] || die "the guest ended without running the command (qemu exit $qemu)"
status=$(echo "$line" | awk '{ print $2 }')
bytes=$(echo "$line" | awk '{ print $4 }')
got=$(stat -c %s "$work/out" 2>/dev/null || echo 0)
[ "$got" = "$bytes" ] || die "the command's output was cut short ($got of $bytes bytes came back)"
cat "$work/out"
echo "nvme-lab: done in $(elapsed) s, command exit $status" >&2
exit "$status"
