# Runs inside the NVMe lab's guest with a namespace formatted with protection information
# (scripts/nvme-lab.sh --pi: 4 KiB blocks, 8 bytes of Type 1 PI each in a separate metadata
# buffer). Each section's stdout, then "--- stderr" and its stderr, is framed by "=== NAME" and
# "=== rc NAME STATUS" for crates/cli/tests/pi_lab.rs to take apart.
run() { name=$1; shift; echo "=== $name"; "$@" 2>/tmp/stderr; rc=$?; echo "--- stderr"; cat /tmp/stderr; echo "=== rc $name $rc"; }
j="--filename=/dev/ng0n1 --ioengine=io_uring_cmd --cmd_type=nvme --bs=16k --size=4m --output-format=json"
host="--pi_act=0 --pi_chk=GUARD,REFTAG,APPTAG --md_per_io_size=32"
run idns sh -c 'nvme id-ns /dev/nvme0n1 | grep -E "^(flbas|dps)"'
# The drive inserts the PI (PRACT) and checks guard and reference tag on the way.
run iolab_write_act iolab run --name=w $j --rw=write --pi_act=1 --pi_chk=GUARD,REFTAG --allow-destroy
run iolab_read_act iolab run --name=r $j --rw=read --pi_act=1 --pi_chk=GUARD,REFTAG
run fio_read_act fio-3.42 --name=r $j --rw=read --pi_act=1 --pi_chk=GUARD,REFTAG
# iolab computes the PI (guard, application tag, reference tag); fio 3.42 and iolab read it
# back with every check, the drive's and their own.
run iolab_write_host iolab run --name=w $j --rw=write $host --apptag=0x4242 --allow-destroy
run fio_read_host fio-3.42 --name=r $j --rw=read $host --apptag=0x4242
run iolab_read_host iolab run --name=r $j --rw=read $host --apptag=0x4242
# And the other way round, in the next 4 MiB.
run fio_write_host fio-3.42 --name=w $j --offset=4m --rw=write $host --apptag=0x5151
run iolab_read_fios iolab run --name=r $j --offset=4m --rw=read $host --apptag=0x5151
run iolab_wrong_apptag iolab run --name=r $j --offset=4m --rw=read $host --apptag=0x5152
# Block 10 gets other data behind iolab's back (nvme-cli, no PI checks, its old PI kept).
head -c 4096 /dev/urandom >/tmp/junk; printf '\x12\x34\x42\x42\x00\x00\x00\x0a' >/tmp/md
run corrupt nvme write /dev/nvme0n1 --start-block=10 --block-count=0 --data-size=4096 --data=/tmp/junk --metadata-size=8 --metadata=/tmp/md --prinfo=0
run iolab_read_corrupt iolab run --name=r $j --rw=read --pi_act=1 --pi_chk=GUARD,REFTAG
run fio_read_corrupt fio-3.42 --name=r $j --rw=read --pi_act=1 --pi_chk=GUARD,REFTAG
run iolab_read_unchecked iolab run --name=r $j --rw=read --pi_act=1
run small_md iolab run --name=r $j --rw=read --pi_act=0 --md_per_io_size=8
