// The fake herdr's server: one Bun process per test process (herdr-host.ts starts it), answering
// every call of the bash clients on the test's PATH with the fake's own code (herdr.ts), calls
// running concurrently (an `agent wait` blocks for long; the others go on meanwhile).
//
// argv: the private directory (0700) to write the client into. The server listens on a random
// port of 127.0.0.1, makes a random token, and writes `herdr` (0700) there with both baked in;
// a call without the token gets no answer. It exits when its stdin ends: the test process that
// started it holds the other end, so however that process ends, the server goes with it.
import { chmodSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomHex, sameSecret } from "../../src/random";
import { runHerdr } from "./herdr.ts";
import { clientScript, encodeAnswer, parseRequest } from "./herdr-wire.ts";

/** More than a command line and an environment can hold (Linux: 2 MiB in all): not a request. */
const MAX_REQUEST = 4 << 20;

interface Conn {
  buf: Uint8Array;
  /** The request was read: later bytes are not part of it. */
  started: boolean;
  gone: boolean;
  /** Answer bytes not yet taken by the socket. */
  pending: Uint8Array | null;
}

const dir = process.argv[2];
if (!dir) throw new Error("usage: herdr-serve.ts <private dir>");
const token = randomHex(16);

function flush(socket: Bun.Socket<Conn>): void {
  const rest = socket.data.pending;
  if (!rest) return;
  const n = socket.write(rest);
  socket.data.pending = n < rest.length ? rest.subarray(n) : null;
  if (!socket.data.pending) socket.end();
}

async function answer(socket: Bun.Socket<Conn>, req: NonNullable<ReturnType<typeof parseRequest>>): Promise<void> {
  const a = await runHerdr({ argv: req.argv, env: req.env, cwd: req.cwd, pid: req.pid, binary: req.binary, gone: () => socket.data.gone });
  if (socket.data.gone) return;
  socket.data.pending = encodeAnswer(a);
  flush(socket);
}

const server = Bun.listen<Conn>({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open(socket) {
      socket.data = { buf: new Uint8Array(0), started: false, gone: false, pending: null };
    },
    data(socket, chunk) {
      const c = socket.data;
      if (c.started) return;
      const buf = new Uint8Array(c.buf.length + chunk.length);
      buf.set(c.buf);
      buf.set(chunk, c.buf.length);
      c.buf = buf;
      let req: ReturnType<typeof parseRequest>;
      try {
        if (buf.length > MAX_REQUEST) throw new Error("request too large");
        req = parseRequest(buf, (t) => sameSecret(t, token));
      } catch {
        // A stranger or garbage: no answer at all (the client says it got none and exits 70).
        c.started = true;
        socket.end();
        return;
      }
      if (!req) return;
      c.started = true;
      c.buf = new Uint8Array(0);
      void answer(socket, req);
    },
    drain: flush,
    close(socket) {
      socket.data.gone = true;
    },
    error(socket) {
      socket.data.gone = true;
    },
  },
});

// The client appears whole or not at all: the test process waits for it to exist.
const client = join(dir, "herdr");
const tmp = `${client}.tmp`;
writeFileSync(tmp, clientScript(server.port, token), { mode: 0o700 });
chmodSync(tmp, 0o700);
renameSync(tmp, client);

for await (const _ of Bun.stdin.stream()) {
  // Nothing is ever sent; the loop ends when the test process's end of the pipe closes.
}
process.exit(0);
