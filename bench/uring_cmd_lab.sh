# io_uring_cmd QD1 4 KiB random reads on the NVMe lab's /dev/ng0n1, iolab beside fio 3.42,
# interleaved five times; run inside the lab:
#   bash scripts/nvme-lab.sh -- "$(cat bench/uring_cmd_lab.sh)"
j="--name=b --filename=/dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme --rw=randread --bs=4k --iodepth=1 --size=256m --runtime=4 --time_based --norandommap --output-format=json"
fio-3.42 --name=w --filename=/dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme --rw=write --bs=128k --size=256m >/dev/null 2>&1
for r in 1 2 3 4 5; do
  echo "iolab $(iolab run $j 2>/dev/null | sed -n '/^{/,$p' | tr -d '\n' | grep -o '"read" *: *{[^}]*"iops" *: *[0-9.]*' | grep -o '[0-9.]*$')"
  echo "fio $(fio-3.42 $j 2>/dev/null | tr -d '\n' | grep -o '"read" *: *{[^}]*"iops" *: *[0-9.]*' | grep -o '[0-9.]*$')"
done
