/**
 * Which door an argv goes through (pure, so a test holds it): the Stop hook's drain fast path, a
 * tmux soldier's launcher, `vx demo`'s scripted soldier, a bare `vx sentinel` (it polls for days,
 * so it starts without the command table: sentinel/entry.ts), or `main` with everything.
 */
type Route = "drain" | "soldier-exec" | "demo-soldier" | "sentinel" | "main";

export function routeOf(argv: readonly string[]): Route {
  if (argv.length === 2 && argv[0] === "sentinel" && argv[1] === "drain") return "drain";
  if (argv[0] === "__soldier-exec") return "soldier-exec";
  if (argv[0] === "__demo-soldier") return "demo-soldier";
  if (argv.length === 1 && argv[0] === "sentinel") return "sentinel";
  return "main";
}
