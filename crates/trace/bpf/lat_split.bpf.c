// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// iolab's latency split, kernel side: one record per block request on the devices iolab asked
// for, stamped when the request is issued to the driver (block_rq_issue) and when the block
// layer completes it (block_rq_complete). User space joins each record with iolab's own submit
// and reap stamps of the same I/O; this program only stamps, so it stays small and cheap.
//
// Raw tracepoints need no tracefs mount; the request's fields are read with CO-RE, so the
// offsets come from the running kernel's BTF (the loader says so when a kernel has none).
//
// Built by crates/trace/bpf/build.sh (clang -target bpf); the object is committed beside this
// file and embedded in iolab, and the test command checks that it is this source's build.

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

// The few kernel fields read, relocated against the kernel's own layout at load time.
struct gendisk {
	int major;
	int first_minor;
} __attribute__((preserve_access_index));

struct request_queue {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

struct request {
	struct request_queue *q;
	__u32 cmd_flags;
	unsigned int __data_len;
	__u64 __sector;
} __attribute__((preserve_access_index));

struct bpf_raw_tracepoint_args_ {
	__u64 args[3];
};

// What one request looked like when it was issued.
struct issued {
	__u64 issue_ns;
	__u64 sector;
	__u32 dev;
	__u32 bytes;
	__u32 op;
	__u32 pad;
};

// One completed request, as user space reads it (crates/trace/src/record.rs mirrors it).
struct split_event {
	__u64 issue_ns;
	__u64 complete_ns;
	__u64 sector;
	__u32 dev;
	__u32 bytes;
	__u32 done_bytes;
	__u32 op;
};

// The devices to watch (the kernel's dev_t: major << 20 | minor), filled by the loader.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

// Requests issued and not yet completed, by the request's address. LRU, so a request whose
// completion was never seen (a requeue, a reset) cannot fill the map.
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct issued);
} in_flight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

// Records the ring buffer had no room for: [0] lost completions, [1] issues the LRU evicted.
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void count_lost(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&lost, &which);
	if (n)
		*n += 1;
}

static __always_inline __u32 request_dev(struct request *rq)
{
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
	if (!disk)
		return 0;
	__u32 major = BPF_CORE_READ(disk, major);
	__u32 minor = BPF_CORE_READ(disk, first_minor);
	return (major << 20) | minor;
}

SEC("raw_tracepoint/block_rq_issue")
int block_rq_issue(struct bpf_raw_tracepoint_args_ *ctx)
{
	struct request *rq = (struct request *)ctx->args[0];
	__u32 dev = request_dev(rq);
	if (!bpf_map_lookup_elem(&targets, &dev))
		return 0;
	struct issued v = {
		.issue_ns = bpf_ktime_get_ns(),
		.sector = BPF_CORE_READ(rq, __sector),
		.dev = dev,
		.bytes = BPF_CORE_READ(rq, __data_len),
		.op = BPF_CORE_READ(rq, cmd_flags) & 0xff,
	};
	__u64 key = (__u64)rq;
	bpf_map_update_elem(&in_flight, &key, &v, BPF_ANY);
	return 0;
}

SEC("raw_tracepoint/block_rq_complete")
int block_rq_complete(struct bpf_raw_tracepoint_args_ *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 key = ctx->args[0];
	struct issued *v = bpf_map_lookup_elem(&in_flight, &key);
	if (!v)
		return 0;
	struct split_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost(0);
		bpf_map_delete_elem(&in_flight, &key);
		return 0;
	}
	e->issue_ns = v->issue_ns;
	e->complete_ns = now;
	e->sector = v->sector;
	e->dev = v->dev;
	e->bytes = v->bytes;
	e->done_bytes = (__u32)ctx->args[2];
	e->op = v->op;
	// No wake-up: the reader drains on its own clock, so no I/O pays for a reader's wake-up.
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	bpf_map_delete_elem(&in_flight, &key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
