# Runs inside the NVMe lab's guest with Flexible Data Placement (scripts/nvme-lab.sh --fdp: one
# reclaim group, 8 reclaim unit handles of 16 MiB); each section's stdout is framed by
# "=== NAME" and "=== rc NAME STATUS" for crates/cli/tests/fdp_lab.rs to take apart. After each
# job, `nvme fdp status` gives every handle's Reclaim Unit Available Media Writes (in logical
# blocks): a handle a job wrote to has that many blocks fewer.
run() { name=$1; shift; echo "=== $name"; "$@"; echo "=== rc $name $?"; }
ruamw() { nvme fdp status /dev/nvme0n1 | awk '/^Placement Identifier/ { id = $3 + 0 }
  /RUAMW/ { print id, $NF }'; }
w="--filename=/dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme --rw=write --bs=64k --size=8m --output-format=json"
run start ruamw
run iolab_rr iolab run --name=rr $w --fdp=1 --plids=0,3 --plid_select=roundrobin --allow-destroy
run after_iolab_rr ruamw
# fio's stderr apart, so its JSON stays whole; printed as a section of its own.
run fio_rr fio-3.42 --name=rr $w --fdp=1 --plids=1,5 --plid_select=roundrobin 2>/tmp/fio_rr.err
run fio_rr_stderr cat /tmp/fio_rr.err
run after_fio_rr ruamw
run iolab_random iolab run --name=rnd $w --dataplacement=fdp --fdp_pli=2,6 --fdp_pli_select=random --allow-destroy
run after_iolab_random ruamw
printf '0,4194304,4\n4194304,8388608,7\n' >/tmp/scheme
run iolab_scheme iolab run --name=sch $w --fdp=1 --plid_select=scheme --dp_scheme=/tmp/scheme --allow-destroy
run after_iolab_scheme ruamw
run past_the_list iolab run --name=bad $w --fdp=1 --plids=8 --allow-destroy 2>&1
run not_fdp_engine iolab run --name=bad --filename=/dev/nvme0n1 --rw=write --size=1m --fdp=1 --allow-destroy 2>&1
