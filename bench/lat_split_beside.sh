#!/bin/bash
# Does a long split run keep joining while another split run shares its disk for a while?
# A 90 s QD1 libaio random read with lat_split=1 on a 1 GiB file (written, so every read is a
# device request), pinned to CPU 1; from 20 s to 35 s a second iolab splits a QD32 random
# read of another file on the same disk. Prints the share of the first run's reads joined.
# Run as root from the repository:  bash bench/lat_split_beside.sh [IOLAB] [OTHER_IOLAB]
set -eu
I=${1:-target/release/iolab}
OTHER=${2:-$I}
dir=${DIR:-/var/tmp/iolab-beside}
mkdir -p "$dir"
[ -s "$dir/a.dat" ] || dd if=/dev/urandom of="$dir/a.dat" bs=1M count=1024 oflag=direct status=none
[ -s "$dir/b.dat" ] || dd if=/dev/urandom of="$dir/b.dat" bs=1M count=512 oflag=direct status=none
(sleep 20; "$OTHER" run --name=beside --filename="$dir/b.dat" --rw=randread --direct=1 \
    --ioengine=libaio --iodepth=32 --runtime=15 --time_based --lat_split=1 \
    --output=/dev/null 2>/dev/null) &
taskset -c 1 "$I" run --name=long --filename="$dir/a.dat" --rw=randread --direct=1 \
    --ioengine=libaio --iodepth=1 --runtime=90 --time_based --lat_split=1 \
    --output-format=json --output="$dir/long.json" 2>/dev/null
wait
python3 -c "
import json
s = json.load(open('$dir/long.json'))['jobs'][0]['iolab']['lat_split']['read']
print(f\"joined {s['joined_ios']} of {s['issued_ios']} = {100 * s['joined_ios'] / s['issued_ios']:.2f} %\")
"
