#!/usr/bin/env bun
/** Entry point: the only place the process exits. */
import { routeOf } from "./entry-route";
import { EXIT } from "./exit-codes";

// Exit explicitly: a finished command must not linger on an open stdin reader or timer.
// (No top-level await: the binary is compiled to bytecode, which needs a CommonJS entry.)
const argv = process.argv.slice(2);

async function run(): Promise<number> {
  const route = routeOf(argv);
  // The Stop hook runs drain on every turn: answer "nothing pending" without loading all of vx.
  if (route === "drain") {
    const { fastDrain } = await import("./fast-drain");
    if (await fastDrain(process.env, process.cwd())) return EXIT.ok;
  }
  if (route === "soldier-exec") {
    const { soldierExec } = await import("./backends/soldier-exec");
    return soldierExec(argv.slice(1));
  }
  if (route === "demo-soldier") {
    const { demoSoldier } = await import("./demo/soldier");
    return demoSoldier();
  }
  // The sentinel polls for days: it starts without the command table (sentinel/entry.ts).
  if (route === "sentinel") {
    const { sentinelEntry } = await import("./sentinel/entry");
    return sentinelEntry();
  }
  const { main } = await import("./main");
  return main(argv);
}

void run().then((code) => process.exit(code));
