#!/usr/bin/python3
"""Drive many sessions, good and bad mixed, against one `rdmactl probe --server`.

    drive.py HOST PORT COUNT --good-every K --stall-every S --transport rdma|tcp
             -- GOOD-CLIENT-COMMAND...

Every session is one of (in turn, as --kinds lists them): garbage bytes, a HELLO of protocol
version 99, an absurd TEST_REQ (1 GiB x 64 QPs, over any --max-size), a
connect-and-close, half a frame header then close, an abandoned session
(HELLO, a valid small TEST_REQ, the server's TEST_ACK, then close: the
server has set up its QPs or sockets and must free them), and every K-th
session a good client (the command after --), every S-th a client that
connects and says nothing until the server's timeout closes it.

Bad sessions read the server's reply to the end, so the server is done
with one before the next arrives.  The server runs one test at a time and
says BUSY while the previous one is still tearing down; a good client or
an abandoned session that meets BUSY waits a moment and retries (counted).
Frames are built from lib/probe_proto.h: 8-byte header (type u16, rsvd
u16, length u32), big-endian payloads.

Prints one line per kind with its count, and the good clients' failures;
exits 1 when a good client failed or a session could not even connect.
"""
import argparse
import socket
import struct
import subprocess
import sys
import time

MAGIC = 0x52504231
VERSION = 1
HELLO, ERROR, TEST_REQ, TEST_ACK = 1, 2, 3, 4
ERR_BUSY = 2


def frame(mtype, payload):
    return struct.pack(">HHI", mtype, 0, len(payload)) + payload


def hello(version=VERSION):
    sw = b"soak-driver"
    return frame(HELLO, struct.pack(">IHHH", MAGIC, version, 0, len(sw)) + sw)


def test_req(transport, qps, size, iters):
    # transport u8, flags u8, qps u16, depth u32, size_min u64, size_max u64,
    # iters u64, duration_ms u32, lat_iters u32, seed u32
    return frame(TEST_REQ, struct.pack(">BBHIQQQIII", transport, 0, qps, 16,
                                       size, size, iters, 0, 0, 1))


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return buf


def recv_frame(s):
    mtype, _, length = struct.unpack(">HHI", recv_exact(s, 8))
    return mtype, recv_exact(s, length)


def drain(s):
    """Read until the server closes (or the socket timeout)."""
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass


class Driver:
    def __init__(self, a):
        self.a = a
        self.transport = 1 if a.transport == "tcp" else 0
        self.counts = {}
        self.busy_retries = 0
        self.good_failed = []
        self.good_slowest = 0.0

    def conn(self):
        s = socket.create_connection((self.a.host, self.a.port), timeout=self.a.sock_timeout)
        return s

    def count(self, kind):
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def send_and_drain(self, data):
        s = self.conn()
        try:
            s.sendall(data)
        except OSError:
            pass
        drain(s)
        s.close()

    def garbage(self):
        self.send_and_drain(b"GET / HTTP/1.0\r\n\r\n" + bytes(range(256)) * 4)

    def version(self):
        self.send_and_drain(hello(99))

    def absurd(self):
        self.send_and_drain(hello() + test_req(self.transport, 64, 1 << 30, 1))

    def close_at_once(self):
        self.conn().close()

    def half_header(self):
        s = self.conn()
        s.sendall(b"\x00\x01\x00")
        s.close()  # the server sees EOF mid-header

    def abandon(self):
        """Make the server set up a session, then vanish."""
        for _ in range(100):
            s = self.conn()
            try:
                s.sendall(hello())
                if recv_frame(s)[0] != HELLO:
                    raise ConnectionError("no HELLO")
                s.sendall(test_req(self.transport, 1, 4096, 10))
                mtype, payload = recv_frame(s)
            except (OSError, ConnectionError):
                s.close()
                return
            if mtype == ERROR and struct.unpack(">H", payload[:2])[0] == ERR_BUSY:
                drain(s)
                s.close()
                self.busy_retries += 1
                time.sleep(0.1)
                continue
            s.close()  # after TEST_ACK: the server's set-up is ours to leak
            return

    def stall(self):
        s = self.conn()
        drain(s)  # the server's timeout closes it
        s.close()

    def good(self, i):
        for _ in range(100):
            t0 = time.monotonic()
            p = subprocess.run(self.a.good, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=120)
            self.good_slowest = max(self.good_slowest, time.monotonic() - t0)
            if p.returncode and "busy" in p.stderr:
                self.busy_retries += 1
                time.sleep(0.2)
                continue
            if p.returncode:
                self.good_failed.append((i, p.returncode, p.stderr.strip()[-300:]))
            return
        self.good_failed.append((i, "busy", "the server stayed busy"))

    def run(self):
        kinds = {"garbage": self.garbage, "version": self.version,
                 "absurd": self.absurd, "close": self.close_at_once,
                 "half-header": self.half_header, "abandon": self.abandon}
        bad = [(k, kinds[k]) for k in self.a.kinds.split(",")]
        nbad = 0
        for i in range(1, self.a.count + 1):
            if self.a.good_every and i % self.a.good_every == 0:
                self.count("good")
                self.good(i)
            elif self.a.stall_every and i % self.a.stall_every == 0:
                self.count("stall")
                self.stall()
            else:
                kind, fn = bad[nbad % len(bad)]
                nbad += 1
                self.count(kind)
                try:
                    fn()
                except OSError as e:
                    self.count(kind + "-oserror")
                    print(f"session {i} ({kind}): {e}", file=sys.stderr)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("count", type=int)
    p.add_argument("--good-every", type=int, default=0)
    p.add_argument("--stall-every", type=int, default=0)
    p.add_argument("--transport", choices=["rdma", "tcp"], default="tcp")
    p.add_argument("--kinds", default="garbage,version,absurd,close,half-header,abandon",
                   help="the bad sessions, in turn (a kind may repeat)")
    p.add_argument("--sock-timeout", type=float, default=30)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = p.parse_args(argv[:cut])
    a.good = argv[cut + 1:]
    unknown = set(a.kinds.split(",")) - {"garbage", "version", "absurd", "close",
                                         "half-header", "abandon"}
    if unknown:
        p.error(f"unknown --kinds: {','.join(sorted(unknown))}")
    d = Driver(a)
    t0 = time.monotonic()
    d.run()
    print(f"sessions {a.count} in {time.monotonic() - t0:.1f} s; busy retries {d.busy_retries}")
    for k in sorted(d.counts):
        print(f"  {k:16} {d.counts[k]}")
    if d.counts.get("good"):
        print(f"slowest good client: {d.good_slowest:.1f} s")
    for i, rc, err in d.good_failed:
        print(f"good client at session {i} failed ({rc}): {err}")
    errors = sum(v for k, v in d.counts.items() if k.endswith("-oserror"))
    return 1 if d.good_failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
