// Which entry an argv takes (cli.ts says why each exists); pure, so a test holds it.
type Route = "drain" | "soldier-exec" | "demo-soldier" | "sentinel" | "main";

export function routeOf(argv: readonly string[]): Route {
  if (argv.length === 2 && argv[0] === "sentinel" && argv[1] === "drain") return "drain";
  if (argv[0] === "__soldier-exec") return "soldier-exec";
  if (argv[0] === "__demo-soldier") return "demo-soldier";
  if (argv.length === 1 && argv[0] === "sentinel") return "sentinel";
  return "main";
}
