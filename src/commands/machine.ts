/** `vx machine add|list|remove|doctor` (MCH-03..05): the words checked, then `machines/manage.ts`. */
import { defineVxCommand } from "../command";
import { renderReport } from "../doctor/report";
import { EXIT, UsageError } from "../errors";
import { addMachine, forgetMachine, machineChecks, machinesJson, machinesText } from "../machines/manage";
import { assertDestination, assertMachineName, loadMachines } from "../machines/registry";
import { stateRoot } from "../state/paths";
import { serveRelay } from "../machines/relay-serve";
import { printable } from "../printable";
import { positionals } from "./parse";

const SUBCOMMANDS = ["add", "list", "remove", "doctor", "relay"] as const;
type Sub = (typeof SUBCOMMANDS)[number];

/** The words a subcommand takes, all of them, else a usage error. */
function words(sub: Sub, rest: string[], names: readonly string[]): string[] {
  if (rest.length < names.length) throw new UsageError(`missing ${names[rest.length]} (vx machine ${sub} ${names.map((n) => `<${n}>`).join(" ")})`, "machine");
  if (rest.length > names.length) throw new UsageError(`unexpected argument "${rest[names.length]}"`, "machine");
  return rest;
}

export const machineCommand = defineVxCommand({
  name: "machine",
  summary: "The machines soldiers can run on, reached over your own ssh",
  usage: [
    "machine add <name> <ssh-destination> [--force]",
    "machine list [--json]",
    "machine remove <name>",
    "machine doctor <name>",
    "machine relay <self-id>   (run over ssh by the commander's sentinel)",
  ],
  args: {
    json: { type: "boolean", description: "Print the machines as one JSON object (list)" },
    force: { type: "boolean", description: "Install this vx on the machine even when it runs a newer one (add)" },
  },
  async run(args, deps) {
    const [sub, ...rest] = positionals(args);
    if (sub === undefined) throw new UsageError("missing machine subcommand (expected add, list, remove or doctor)", "machine");
    if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown machine subcommand "${sub}"`, "machine");
    if (args.json && sub !== "list") throw new UsageError(`--json goes with machine list, not machine ${sub}`, "machine");
    if (args.force && sub !== "add") throw new UsageError(`--force goes with machine add, not machine ${sub}`, "machine");
    switch (sub as Sub) {
      case "add": {
        const [name = "", destination = ""] = words("add", rest, ["name", "ssh-destination"]);
        const opts = { name: assertMachineName(name, "machine"), destination: assertDestination(destination, "machine"), force: Boolean(args.force) };
        deps.stdout.write(await addMachine(deps, opts));
        return EXIT.ok;
      }
      case "list": {
        words("list", rest, []);
        const doc = loadMachines(stateRoot(deps.env));
        deps.stdout.write(args.json ? machinesJson(doc) : machinesText(doc));
        return EXIT.ok;
      }
      case "remove": {
        const [name = ""] = words("remove", rest, ["name"]);
        deps.stdout.write(await forgetMachine(deps, assertMachineName(name, "machine")));
        return EXIT.ok;
      }
      case "relay": {
        const [selfId = ""] = words("relay", rest, ["self-id"]);
        if (!/^[0-9a-f]{16}$/.test(selfId)) throw new UsageError(`invalid self id "${printable(selfId)}": expected 16 lowercase hex characters`, "machine");
        return serveRelay(deps, selfId);
      }
      case "doctor": {
        const [name = ""] = words("doctor", rest, ["name"]);
        const { text, exit } = renderReport(await machineChecks(deps, assertMachineName(name, "machine")));
        deps.stdout.write(text);
        return exit;
      }
    }
  },
});
