/**
 * `vx init --yes` as a fixture's setup, run in-process: the same files and output as the compiled
 * binary's, without starting a 110 MB process for every test. Tests of init itself run the binary.
 */
import { main } from "../src/main";
import { type Sandbox, sandbox } from "./helpers";
import { realClock } from "../src/time";
import { testDeps } from "./deps";

/** Runs `vx init --yes [...args]` in `cwd`; throws with init's stderr when it fails. */
export async function initProject(cwd: string, env: Record<string, string>, args: readonly string[] = []): Promise<void> {
  const d = testDeps({ cwd, env, clock: realClock });
  const code = await main(["init", "--yes", ...args], d);
  if (code !== 0) throw new Error(`vx init failed (exit ${code}): ${d.text().stderr}`);
}

/** A sandbox (helpers.ts) whose project is initialized, `env` added to its environment first. */
export async function initializedSandbox(env: Record<string, string> = {}): Promise<Sandbox> {
  const s = sandbox();
  Object.assign(s.env, env);
  await initProject(s.project, s.env);
  return s;
}
