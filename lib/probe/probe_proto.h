/* SPDX-License-Identifier: MIT */
/*
 * The probe control protocol: what `rdmactl probe` client and server say to
 * each other over their TCP control connection.
 *
 * Framing.  Every message is one frame: an 8-byte header, then a payload.
 *
 *   0      2      4              8
 *   +------+------+--------------+--------------------+
 *   | type | rsvd |   length     | payload (length B) |
 *   +------+------+--------------+--------------------+
 *
 * All integers are big-endian.  rsvd is 0.  length is at most
 * PROBE_MAX_PAYLOAD; a longer frame is refused before any byte of its payload
 * is read.  Strings are a u16 length then that many bytes (no NUL inside).
 *
 * Session.  The client speaks first; every reply arrives within the
 * control timeout or the session ends.
 *
 *   client                          server
 *   HELLO         ->                          magic + version, first always
 *                 <-  HELLO | ERROR           ERROR(VERSION, BUSY, ...)
 *   (an end with a token sets HELLO flag AUTH and a fresh nonce; with a
 *    server's AUTH, the challenge-response of probe_auth.h:)
 *   AUTH_RESPONSE ->                          MAC over both nonces
 *                 <-  AUTH_PROOF | ERROR(AUTH)
 *   TEST_REQ      ->                          the workload
 *                 <-  TEST_ACK | ERROR        ERROR(TOO_BIG, BAD_REQUEST)
 *   EP_INFO       ->                          QPs, GID, rkey, address, MTU
 *                 <-  EP_INFO
 *   per size:
 *   START         ->
 *                 <-  READY
 *   (bandwidth: PROGRESS from a sender about once a second, DONE when its
 *    writes are complete; then each side sends RESULT and reads the peer's)
 *   (latency ping-pong on the data path)
 *   ROW           ->                          the client's finished row,
 *                                             so both ends print the same
 *   BYE           ->
 *
 * Either side may send ERROR at any point; it ends the session.  A request
 * other than TEST_REQ may follow HELLO: NODE_INFO_REQ, from
 * `rdmactl doctor --peer`, asks a running server about its node; the
 * server answers NODE_INFO (its JSON facts, node/nodeinfo.h) and the session
 * ends.
 *
 * Evolving.  PROBE_PROTO_VERSION changes whenever a message's layout
 * changes.  HELLO keeps its first fields forever and may grow at its end,
 * so a peer of another version still decodes it and both can say which
 * versions met.  All other messages must be exactly as long as their
 * layout; new messages take new type numbers.
 */
#ifndef RDMACTL_PROBE_PROTO_H
#define RDMACTL_PROBE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBE_DEFAULT_PORT	18600	/* not perftest's 18515: both can run */
#define PROBE_MAGIC		0x52504231u	/* "RPB1" */
#define PROBE_PROTO_VERSION	1
#define PROBE_HDR_LEN		8
#define PROBE_MAX_PAYLOAD	4096
#define PROBE_MAX_FRAME		(PROBE_HDR_LEN + PROBE_MAX_PAYLOAD)
#define PROBE_MAX_QPS		64
#define PROBE_MAX_STR		512
#define PROBE_MAX_DEPTH		8192
#define PROBE_MAX_ITERS		1000000000ull
#define PROBE_MAX_DURATION_MS	3600000u
#define PROBE_MAX_MSG_SIZE	(1ull << 31)	/* one verbs message at most; servers cap lower */
#define PROBE_NODE_INFO_MAX	4000	/* bytes of NODE_INFO text (node/nodeinfo.h) */
#define PROBE_NONCE_LEN		32
#define PROBE_MAC_LEN		32	/* HMAC-SHA256 */

enum probe_msg_type {
	PROBE_MSG_HELLO = 1,
	PROBE_MSG_ERROR = 2,
	PROBE_MSG_TEST_REQ = 3,
	PROBE_MSG_TEST_ACK = 4,
	PROBE_MSG_EP_INFO = 5,
	PROBE_MSG_START = 6,
	PROBE_MSG_READY = 7,
	PROBE_MSG_PROGRESS = 8,
	PROBE_MSG_DONE = 9,
	PROBE_MSG_RESULT = 10,
	PROBE_MSG_ROW = 11,
	PROBE_MSG_BYE = 12,
	PROBE_MSG_AUTH_RESPONSE = 13,	/* the client's MAC */
	PROBE_MSG_AUTH_PROOF = 14,	/* the server's MAC */
	/* 32..63: node queries, for `rdmactl doctor`. */
	PROBE_MSG_NODE_INFO_REQ = 32,
	PROBE_MSG_NODE_INFO = 33,
};

/* ERROR codes. */
enum probe_err {
	PROBE_ERR_VERSION = 1,	/* protocol versions differ */
	PROBE_ERR_BUSY = 2,	/* the server runs another session */
	PROBE_ERR_BAD_REQUEST = 3,
	PROBE_ERR_TOO_BIG = 4,	/* over the server's --max-size */
	PROBE_ERR_UNSUPPORTED = 5,
	PROBE_ERR_SETUP = 6,	/* device, QP or memory set-up failed */
	PROBE_ERR_RUN = 7,	/* the measurement failed */
	PROBE_ERR_TIMEOUT = 8,
	PROBE_ERR_AUTH = 9,	/* token missing or wrong */
};

enum probe_transport {
	PROBE_TRANSPORT_RDMA = 0,
	PROBE_TRANSPORT_TCP = 1,
};

enum probe_flags {
	PROBE_F_BIDIR = 1 << 0,
	PROBE_F_VERIFY = 1 << 1,
	PROBE_F_RDMA_CM = 1 << 2,
};

struct probe_hello {
	uint32_t magic;
	uint16_t version;	/* PROBE_PROTO_VERSION of the sender */
	uint16_t role;		/* 0 client, 1 server */
	char software[64];	/* "rdmactl 0.1.0" */
	uint16_t flags;		/* enum probe_hello_flags; absent (0) from older peers */
	uint8_t nonce[PROBE_NONCE_LEN];	/* sent only with PROBE_HELLO_AUTH */
};

enum probe_hello_flags {
	PROBE_HELLO_AUTH = 1 << 0,	/* this end holds a token; a nonce follows */
};

/* AUTH_RESPONSE and AUTH_PROOF. */
struct probe_auth {
	uint8_t mac[PROBE_MAC_LEN];
};

struct probe_error {
	uint16_t code;		/* enum probe_err */
	char msg[PROBE_MAX_STR + 1];
};

struct probe_test_req {
	uint8_t transport;	/* enum probe_transport */
	uint8_t flags;		/* enum probe_flags */
	uint16_t qps;		/* 1..PROBE_MAX_QPS */
	uint32_t depth;		/* outstanding writes per QP */
	uint64_t size_min;	/* bytes; sizes are powers of two from min to max */
	uint64_t size_max;	/* equal to size_min for one size */
	uint64_t iters;		/* per QP and size; 0 with duration_ms */
	uint32_t duration_ms;	/* per size; 0 with iters */
	uint32_t lat_iters;	/* ping-pong round trips per size */
	uint32_t seed;		/* of the --verify pattern */
};

struct probe_qp_info {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t addr;		/* start of this QP's receive region */
};

struct probe_ep_info {
	uint8_t transport;
	uint8_t gid_type;	/* enum gid_type of node/rdma.h */
	uint16_t mtu;		/* active MTU in bytes */
	uint32_t gid_index;
	uint8_t gid[16];
	uint16_t lid;
	uint16_t port_num;
	uint16_t data_port;	/* TCP transport: where data connections go */
	uint64_t buf_len;	/* bytes of each receive region */
	char dev[64];		/* "rxe0"; "" for TCP */
	char addr[64];		/* this end's IP address */
	uint16_t nqps;
	struct probe_qp_info qp[PROBE_MAX_QPS];
};

struct probe_start {
	uint64_t size;
};

struct probe_progress {
	uint64_t size;
	uint64_t bytes;
	uint64_t elapsed_us;
};

/* DONE: a sender's writes for this size are complete (TCP: bytes sent per stream). */
struct probe_done {
	uint64_t size;
	uint16_t n;
	uint64_t bytes[PROBE_MAX_QPS];
};

/* One side's measurement of one size. */
struct probe_result {
	uint64_t size;
	uint32_t status;	/* 0 or an errno of the failure */
	uint64_t msgs;		/* messages this side sent (all QPs) */
	uint64_t bytes;		/* bytes this side sent; TCP: received */
	uint64_t elapsed_ns;
	uint64_t peak_bps;	/* bits per second */
	uint64_t avg_bps;
	uint64_t lat_min_ns, lat_med_ns, lat_p99_ns;	/* 0 when not measured */
	uint64_t verify_errors;	/* wrong bytes found in this side's receive region */
	uint64_t verified;	/* bytes checked */
};

/* NODE_INFO: the server's node as JSON text (node/nodeinfo.h), a u16 length then the bytes. */
struct probe_node_info {
	char text[PROBE_NODE_INFO_MAX + 1];
};

struct probe_frame {
	uint16_t type;
	union {
		struct probe_hello hello;
		struct probe_error error;
		struct probe_test_req test;
		struct probe_ep_info ep;
		struct probe_start start;
		struct probe_progress progress;
		struct probe_done done;
		struct probe_result result;	/* RESULT and ROW */
		struct probe_node_info node_info;
		struct probe_auth auth;
	} u;
};

/*
 * Encode @f into @out (at least PROBE_MAX_FRAME bytes); the frame length
 * or -EINVAL (unknown type, string too long, count over its maximum).
 */
int probe_encode(const struct probe_frame *f, uint8_t *out, size_t cap);

/* Check a header; *@type and *@len (payload) or -EMSGSIZE / -EBADMSG. */
int probe_decode_header(const uint8_t *hdr, uint16_t *type, uint32_t *len);

/*
 * Decode a payload of @type: 0, -EBADMSG (truncated, trailing bytes, bad
 * string or count), -EPROTO (unknown type).
 */
int probe_decode(uint16_t type, const uint8_t *p, size_t len, struct probe_frame *f);

/*
 * Check a TEST_REQ against the protocol's and this server's limits; 0, or
 * -EINVAL / -EFBIG with *@why naming the bad field.
 */
int probe_test_check(const struct probe_test_req *t, uint64_t max_buf, const char **why);

/* "HELLO", "ERROR", ...; "unknown" for others. */
const char *probe_msg_name(uint16_t type);

#endif
