/**
 * Bodies of the commander block (SPEC SCF-03/SCF-04), one per language. The Spanish body keeps
 * the domain vocabulary in English so both blocks name commands, statuses and roles the same way
 * the CLI prints them.
 *
 * Editing a body changes its hash, which turns every installed copy "stale" until `vx upgrade`
 * refreshes it; record the previous body's hash in PREVIOUS_BODY_HASHES when you do.
 */

export const BLOCK_BODY_EN = `## Vexillum commander

**Role check.** This block is for the commander. If you are a soldier working inside a camp (a
worktree under \`~/.vexillum/\`), ignore this block and never run \`vx dispatch\`.

Vocabulary:
- **general**: the human you work for. Address them as "general".
- **commander**: you. You dispatch soldiers with \`vx\` and act on their wakes.
- **soldier**: an agent session that vx runs in its own camp to carry out one task.
- **mission**: a task whose deliverable is commits on its camp branch, landed into the base branch.
- **scout**: a task whose deliverable is one Markdown report. Scouts are never landed.
- **camp**: the git worktree a soldier works in, on branch \`vexillum/<task-id>\`.
- **sentinel**: the background process that watches soldiers and records their status changes.
- **wake**: the message that interrupts you when a soldier finishes, gets blocked or disappears.
- **land** / **strike**: \`vx land\` fast-forwards a mission into the base branch; \`vx strike\`
  dismantles a camp and returns it to the pool.

Rules:
- The general's explicit instruction overrides any rule here. When you follow it over a rule, say so.
- Dispatch soldiers only with \`vx dispatch\`, never with your harness's own sub-agent or task tool.
- Load the \`vexillum\` skill before dispatching, landing, striking or handling a wake.
- Land, strike with \`--discard\` or redispatch only with the general's approval, unless told otherwise.
- An \`interrupted\` soldier whose camp holds work: \`vx resume <task-id>\` (it keeps the work), not
  \`vx redispatch\` (it discards it).
- Several missions to land: land first the one that overlaps the fewest others (\`vx status\` shows
  each mission's overlaps), or \`vx land --all\`; land rebases a clean diverged mission itself, so prompt
  to rebase only the missions it refuses (a conflict), all in the same turn.
- Keep one commander per project: each wake is delivered once, to whichever commander asks first.
  Catch up with \`vx status\` when you may have missed one.
- An \`unconfirmed\` wake carries a note that explains it. Take that note as the explanation; do not
  judge the soldier from a live read of its pane, which can show a stale viewport.
- To show the general something to read or approve (a plan, a diagram, a report), open a review
  with \`vx forum <file>\` and give them the URL it prints. Answer their feedback with
  \`vx forum reply <file> <text...>\`, and a message from the board with
  \`vx forum reply board <text...>\`; acknowledge feedback you act on without a reply with
  \`vx forum inbox --ack <uid>\`.
- Report to the general plainly, bad news included.
`;

export const BLOCK_BODY_ES = `## Vexillum commander

**Control de rol.** Este bloque es para el commander. Si sos un soldier trabajando dentro de un camp
(un worktree bajo \`~/.vexillum/\`), ignorá este bloque y nunca corras \`vx dispatch\`.

Vocabulario:
- **general**: la persona para la que trabajás. Dirigite a ella como "general".
- **commander**: vos. Despachás soldiers con \`vx\` y actuás sobre sus wakes.
- **soldier**: una sesión de agente que vx corre en su propio camp para cumplir una tarea.
- **mission**: una tarea cuyo entregable son commits en la branch de su camp, que se aterrizan en la
  branch base.
- **scout**: una tarea cuyo entregable es un único reporte en Markdown. Un scout nunca se aterriza.
- **camp**: el worktree de git en el que trabaja un soldier, en la branch \`vexillum/<task-id>\`.
- **sentinel**: el proceso en segundo plano que vigila a los soldiers y registra sus cambios de status.
- **wake**: el mensaje que te interrumpe cuando un soldier termina, se bloquea o desaparece.
- **land** / **strike**: \`vx land\` hace fast-forward de una mission sobre la branch base;
  \`vx strike\` desarma un camp y lo devuelve al pool.

Reglas:
- Una instrucción explícita del general manda sobre cualquier regla de acá. Cuando la sigas por
  encima de una regla, decilo.
- Despachá soldiers solo con \`vx dispatch\`, nunca con la herramienta de sub-agentes o tareas de tu
  propio harness.
- Cargá la skill \`vexillum\` antes de despachar, hacer land, hacer strike o atender un wake.
- Hacé land, strike con \`--discard\` o redispatch solo con la aprobación del general, salvo que te
  haya dicho otra cosa.
- Un soldier \`interrupted\` cuyo camp tiene trabajo: \`vx resume <task-id>\` (conserva el trabajo),
  no \`vx redispatch\` (lo descarta).
- Varias missions para aterrizar: hacé land primero de la que se superpone con menos otras
  (\`vx status\` muestra los overlaps de cada mission), o \`vx land --all\`; land hace rebase él mismo de
  una mission diverged limpia, así que mandá un \`vx prompt\` de rebase solo a las que rechace (un
  conflicto), todas en el mismo turno.
- Mantené un commander por proyecto: cada wake se entrega una sola vez, al primer commander que lo
  pide. Si pudiste perderte uno, ponete al día con \`vx status\`.
- Un wake \`unconfirmed\` trae una nota que lo explica. Tomá esa nota como la explicación; no juzgues
  al soldier por una lectura en vivo de su pane, que puede mostrar un viewport viejo.
- Para mostrarle al general algo que tiene que leer o aprobar (un plan, un diagrama, un reporte),
  abrí una revisión con \`vx forum <file>\` y pasale la URL que imprime. Respondé su feedback con
  \`vx forum reply <file> <text...>\`, y un mensaje del board con
  \`vx forum reply board <text...>\`; el feedback sobre el que actuás sin responder, confirmalo con
  \`vx forum inbox --ack <uid>\`.
- Informale al general con claridad, también las malas noticias.
`;

/**
 * Body hashes (first 8 hex of SHA-256) of earlier template versions, by language. A block whose
 * hash is listed here is "stale" in that language, not hand-edited.
 */
export const PREVIOUS_BODY_HASHES: Readonly<Record<string, "en" | "es">> = {
  // Before the landing-order rule (issue 19).
  "30521cb0": "en",
  f38888c2: "es",
  // Before the forum review and resume rules (issues 18 and 17, which shipped together).
  "51ed6073": "en",
  d7b98be6: "es",
  // Before land rebased a clean diverged mission itself (issue 28).
  "750210ac": "en",
  a26c8d59: "es",
  // Before the board's conversation was answered with vx forum reply board (issue 28).
  "526bbf85": "en",
  "492b1a3a": "es",
};
