// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// iolab's latency split, kernel side: one record per block request on the devices iolab asked
// for, stamped when the request is issued to the driver (block_rq_issue) and when the block
// layer completes it (block_rq_complete). User space joins each record with iolab's own submit
// and reap stamps of the same I/O; this program only stamps, so it stays small and cheap.
//
// BTF-typed tracepoints (tp_btf) need no tracefs mount and hand the program the request
// itself, whose fields it reads with plain loads; their offsets are relocated (CO-RE) against
// the running kernel's BTF, so a kernel without BTF cannot load it (the loader says so).
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

struct blk_mq_hw_ctx {
	unsigned int queue_num;
} __attribute__((preserve_access_index));

struct request {
	struct request_queue *q;
	struct blk_mq_hw_ctx *mq_hctx;
	int tag;
	__u32 cmd_flags;
	unsigned int __data_len;
	__u64 __sector;
} __attribute__((preserve_access_index));


// What one request looked like when it was issued, and which request it was.
struct issued {
	__u64 rq;
	__u64 issue_ns;
	__u64 driver_done_ns;
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
	// The NVMe driver's own completion (nvme_complete_rq), before the block layer's; 0 where
	// the nvme module's tracepoint is not there.
	__u64 driver_done_ns;
	__u64 sector;
	__u32 dev;
	__u32 bytes;
	__u32 done_bytes;
	__u32 op;
};

// The disks to watch (the kernel's dev_t: major << 20 | minor), set by the loader before
// loading: a few compares cost less per request than a map lookup.
#define MAX_TARGETS 8
volatile const __u32 target_devs[MAX_TARGETS] = {};
volatile const __u32 n_targets = 0;

// Requests issued and not yet completed, in the slot of their driver tag: a tag is one
// request's while it is in flight, so an array (no hashing, no lock) holds them. Only requests
// that move data are kept (a flush may complete by another path).
#define TAGS_PER_QUEUE 1024
#define QUEUES 64
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TAGS_PER_QUEUE * QUEUES);
	__type(key, __u32);
	__type(value, struct issued);
} in_flight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

// Requests lost: [0] completions the ring buffer had no room for, [1] issues whose tag or
// queue is past the array.
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

// The request's slot in `in_flight`, or -1 when its tag or queue is past the array.
static __always_inline int slot_of(struct request *rq)
{
	int tag = rq->tag;
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	if (!hctx || tag < 0 || tag >= TAGS_PER_QUEUE)
		return -1;
	__u32 queue = hctx->queue_num;
	if (queue >= QUEUES)
		return -1;
	return queue * TAGS_PER_QUEUE + tag;
}

static __always_inline int watched(__u32 dev)
{
	for (int i = 0; i < MAX_TARGETS; i++) {
		if (i >= n_targets)
			return 0;
		if (target_devs[i] == dev)
			return 1;
	}
	return 0;
}

SEC("tp_btf/block_rq_issue")
int block_rq_issue(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct request *rq = (struct request *)ctx[0];
	struct gendisk *disk = rq->q->disk;
	if (!disk)
		return 0;
	__u32 dev = ((__u32)disk->major << 20) | (__u32)disk->first_minor;
	if (!watched(dev))
		return 0;
	__u32 bytes = rq->__data_len;
	if (!bytes)
		return 0;
	int slot = slot_of(rq);
	if (slot < 0) {
		count_lost(1);
		return 0;
	}
	__u32 key = slot;
	struct issued *v = bpf_map_lookup_elem(&in_flight, &key);
	if (!v)
		return 0;
	v->rq = (__u64)rq;
	v->issue_ns = now;
	v->driver_done_ns = 0;
	v->sector = rq->__sector;
	v->dev = dev;
	v->bytes = bytes;
	v->op = rq->cmd_flags & 0xff;
	return 0;
}

SEC("tp_btf/block_rq_complete")
int block_rq_complete(__u64 *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct request *rq = (struct request *)ctx[0];
	int slot = slot_of(rq);
	if (slot < 0)
		return 0;
	__u32 key = slot;
	struct issued *v = bpf_map_lookup_elem(&in_flight, &key);
	// Not this request's: one the probe did not watch, or issued before it attached.
	if (!v || v->rq != (__u64)rq)
		return 0;
	v->rq = 0;
	struct split_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost(0);
		return 0;
	}
	e->issue_ns = v->issue_ns;
	e->complete_ns = now;
	e->driver_done_ns = v->driver_done_ns;
	e->sector = v->sector;
	e->dev = v->dev;
	e->bytes = v->bytes;
	e->done_bytes = (__u32)ctx[2];
	e->op = v->op;
	// No wake-up: the reader drains on its own clock, so no I/O pays for a reader's wake-up.
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

// The NVMe driver's completion of a command (the nvme module's tracepoint, attached only where
// the module is loaded): a raw tracepoint, as a module's tracepoint has no vmlinux BTF, so the
// request is read with CO-RE probe reads.
struct bpf_raw_tracepoint_args_ {
	__u64 args[1];
};

SEC("raw_tracepoint/nvme_complete_rq")
int nvme_complete_rq(struct bpf_raw_tracepoint_args_ *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct request *rq = (struct request *)ctx->args[0];
	int tag = BPF_CORE_READ(rq, tag);
	struct blk_mq_hw_ctx *hctx = BPF_CORE_READ(rq, mq_hctx);
	if (!hctx || tag < 0 || tag >= TAGS_PER_QUEUE)
		return 0;
	__u32 queue = BPF_CORE_READ(hctx, queue_num);
	if (queue >= QUEUES)
		return 0;
	__u32 key = queue * TAGS_PER_QUEUE + tag;
	struct issued *v = bpf_map_lookup_elem(&in_flight, &key);
	if (v && v->rq == (__u64)rq)
		v->driver_done_ns = now;
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
