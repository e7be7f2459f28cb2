/** `vx sentinel drain` (AWT-02): check once, print one JSON line, exit 0. */
import { deliverDeps } from "../wakes/deliver";
import type { Deps } from "../deps";
import { EXIT, SilentExit, VxError, errorMessage } from "../errors";
import { collectWakes, finishClaims, putBackAll } from "../wakes/deliver";
import { drainLine, reasonText } from "../wakes/reason";
import { deliveryProject } from "./queue-context";

export async function drain(deps: Deps): Promise<number> {
  const project = await deliveryProject(deps);
  if (!project) {
    deps.stdout.write("{}\n");
    return EXIT.ok;
  }
  let collected: Awaited<ReturnType<typeof collectWakes>>;
  try {
    collected = await collectWakes(project.queue, deliverDeps(deps, project.root));
  } catch (err) {
    throw new VxError(`drain failed: ${errorMessage(err)}`);
  }
  const text = reasonText(collected.soldier, collected.forum);
  if (!text) {
    deps.stdout.write("{}\n");
    return EXIT.ok;
  }
  if (!deps.stdout.write(`${drainLine(text)}\n`)) {
    putBackAll(collected.claims, () => {});
    throw new SilentExit(EXIT.error);
  }
  finishClaims(collected.claims);
  return EXIT.ok;
}
