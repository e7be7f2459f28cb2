/**
 * The embedded `vexillum` skill (SPEC SCF-06), written for an AI commander. Every command, flag
 * and quoted message must match SPEC section 12 exactly: a commander copies them verbatim, and a
 * wrong flag costs a usage error at the worst moment. test/unit/skill.test.ts checks them.
 */

export const SKILL_MD = `---
name: vexillum
description: Command vexillum soldiers with the vx CLI. Load this skill before you dispatch a mission or scout, send a soldier a follow-up or an answer, land or strike a camp, or handle a wake ("A vexillum soldier's status changed" or "Forum feedback is waiting for you").
---

# Commanding soldiers with vx

You are the commander. The general (the human) gives you work; you turn it into tasks and dispatch
soldiers, each into its own camp: a git worktree on branch \`vexillum/<task-id>\`, forked from the
branch the project checkout is on (the base). The sentinel watches every soldier and wakes you when
one leaves \`running\`. vx does the plumbing; the judgment (what to dispatch, when to land, what to
answer) is yours and the general's.

Read the guide that fits before acting:
- \`sentinel.md\`: what a wake looks like, what each status means, what to do about it.
- \`landing.md\`: reviewing and landing a finished mission with \`vx land\`.
- \`striking.md\`: returning a camp to the pool with \`vx strike\`.

Run every \`vx\` command from the project checkout the soldier was dispatched from.

## Dispatch

\`\`\`
vx dispatch <prompt...> [--kind mission|scout] [--harness claude|codex|pi|opencode] [--backend herdr|tmux] [--model <m>] [--effort <e>]
\`\`\`

- \`--kind mission\`: the deliverable is commits on the camp branch, which you land later.
  \`--kind scout\`: the deliverable is one Markdown report, which you read; the camp is then struck,
  never landed. Use a scout for research, audits and questions whose answer is a document.
- The soldier sees only its prompt, not your conversation. Write a complete brief: the goal, where to
  work, constraints, how to verify (which tests to run), and for a mission that it must commit. vx
  appends its own instructions (report path, pauses, \`needs-decision:\`); do not repeat them.
- For \`--harness claude\`, \`--model\` is one of \`haiku\`, \`sonnet\`, \`opus\`, \`fable\` and \`--effort\`
  one of \`low\`, \`medium\`, \`high\`, \`xhigh\`, \`max\`. Omit them for the harness default. Defaults
  for harness and backend come from the project's \`.vexillum/config.json\`.
- The herdr backend needs you to run inside a herdr pane (\`HERDR_WORKSPACE_ID\` set).
- Parallel soldiers are fine; two missions editing the same files will conflict when you land them
  (\`vx status\` names the missions that overlap).

Output starts with \`task_id=<id> kind=<kind> camp_slot=<n> camp_branch=<branch>\` and
\`status=<status>\`; keep the task id. The usual next line is
\`still running past the quick-settle probe - the sentinel will record its final status\`:
end your turn or do other work, and the wake comes to you. Exit 1 after a \`task_id=\` line means
the task is \`failed\`; the reason is on stderr.

## Watch the troop

- \`vx status\`: one line per task, most recently updated first, with a \`question:\` line under
  blocked ones and a \`landing:\` line under missions with commits (\`landing.md\`). Landed, struck
  and failed tasks are left out (a closing line counts them); \`vx status --all\` lists them too, a
  landed mission shown \`landed\` with its commit.
- \`vx status --json\`: full task records (\`camp_path\`, \`camp_base\`, \`output\`, \`decision\`, ...).
- Do not poll in a loop. After dispatching, end your turn; the sentinel wakes you.

## Talk to a soldier

- Follow-up for a \`done\`, \`unconfirmed\` or \`shipped\` soldier whose camp still stands:
  \`vx prompt <task-id> <text...>\`. The task goes back to \`running\` and you get a new wake when it
  ends. Never type into a soldier's pane yourself.
- Answer a \`blocked\` soldier: \`vx decide <task-id> <answer...>\`. For a multiple-choice question give
  the option's number or its exact text. Clear a question raised by mistake:
  \`vx decide <task-id> --dismiss\`.
- Bring back an \`interrupted\` soldier (or an \`unconfirmed\` one whose pane is gone) where it
  stopped: \`vx resume <task-id> [<text...>]\`. It relaunches the same harness in the same camp with
  its own "continue" flag, so its conversation, commits and uncommitted changes are all kept. Prefer it
  whenever the camp holds work; after a reboot \`vx status\` names the tasks it can resume.
- Re-run an \`interrupted\` or \`failed\` soldier from its original prompt: \`vx redispatch <task-id>\`.
  It discards the old camp, commits included, so ask the general first.

## Rules of engagement

- Dispatch only with \`vx dispatch\`, never with your harness's own sub-agent or task tool.
- Never run \`vx dispatch\` inside a camp. If you are a soldier, this skill is not for you.
- Do not edit files in a camp yourself; send the soldier a \`vx prompt\`.
- Land, strike with \`--discard\` and redispatch only with the general's approval, unless told otherwise.
- Keep one commander per project: a wake goes to whichever commander asks first.
- A refusal names its fix; follow it. \`vx doctor\` reports what the environment is missing.
`;

export const SENTINEL_MD = `# Wakes and the sentinel

One sentinel per machine (started by \`vx dispatch\` when none runs) polls every soldier. When a
soldier leaves \`running\`, it records a wake for the commander that sent the latest instruction. You
receive it as Stop hook feedback in Claude Code (even while idle), as a follow-up message in Pi, or as
a queued prompt in OpenCode. A wake is delivered once, and only while it is still news: one whose task
was answered, prompted, landed or struck since is dropped.

## What a wake looks like

\`\`\`
A vexillum soldier's status changed:
- <kind> <task_id>: <old_status> -> <new_status>
Check on it (and report to the general, or land/strike as appropriate) before ending your turn.
\`\`\`

One \`- \` line per soldier. Under it, in this order and only when present:

\`\`\`
  project: <origin>
  report: <report_path>
  note: <note>
\`\`\`

- \`project:\` the soldier belongs to another project: run \`vx status\`, \`land\`, \`strike\`, \`prompt\`
  and \`decide\` for it from that directory.
- \`report:\` a scout's report file. Read it.
- \`note:\` vx's own explanation, starting \`[vexillum] \`. Believe it.

Forum feedback arrives in the same way:

\`\`\`
Forum feedback is waiting for you:
forum session <file>: <N> new messages (ended: <true|false>). Run vx forum inbox.
Read it, act on it, and acknowledge it with vx forum inbox --ack <uid> before ending your turn.
\`\`\`

Run \`vx forum inbox\` (or \`vx forum inbox --json\`), act on each message, then acknowledge each one
with \`vx forum inbox --ack <uid>\` (several uids may follow one \`--ack\`).

## The forum: reviews with the general

When the general should read or approve something before you go on (a plan, a diagram, a design,
a soldier's report, a page you built), show it in the forum instead of pasting it into the chat:

- \`vx forum <file>\` opens a review of a file in this project (HTML, Markdown, SVG, PNG/JPEG or
  text) and prints \`forum: <url>\`. Give the general that URL. The page reloads the file when you
  change it, so revise the same file rather than writing a new one.
- Their feedback wakes you like a soldier: \`forum session <file>: N new messages\`. Read it with
  \`vx forum inbox\`, act on it, then answer on the page with
  \`vx forum reply <file> <text...>\` (it also acknowledges that session's unread messages). Feedback
  you act on without answering: \`vx forum inbox --ack <uid>\`. Never end a turn with forum
  feedback unread.
- \`vx forum end <file>\` closes a review once it is settled; \`vx forum list\` shows the
  project's reviews. \`vx forum board\` prints the URL of the live board of every soldier, and the
  general can message you from there too (session \`general\`, file \`board\`). The board shows that
  box as a conversation: answer it there with \`vx forum reply board <text...>\` (the word \`board\`;
  a file named board is \`./board\`), which also acknowledges the board's unread messages.

## What to do for each status

**done**
- Mission: its branch has commits not in the base. Review them and report to the general; land with
  their approval (\`landing.md\`). Not finished after all? \`vx prompt <task-id> <text...>\`.
- Scout: read the file on the \`report:\` line, report its findings to the general, then
  \`vx strike <task-id>\` (\`striking.md\`).
- A note saying the pane \`was still changing\` or \`could not be read\` when it was marked means the
  final message in \`output\` may be cut off. The commits or the report are what count; ask for a
  summary with \`vx prompt\` if you need one.

**blocked**: the soldier needs a decision. \`vx status\` shows \`question: <question>\`
(\`vx status --json\` has \`decision.question\` and \`decision.options\`). If the general's instructions
already answer it, answer; otherwise ask the general. Then \`vx decide <task-id> <answer...>\`. If it
was marked blocked by mistake, \`vx decide <task-id> --dismiss\`. \`vx prompt\` refuses blocked tasks.

**unconfirmed**: the soldier went idle with no completion signal (no new commit for a mission, no
report for a scout) and no valid pause, or its pane still showed work in progress 30 minutes after its
turn went idle. The \`note:\` says which. Take the note as the explanation; do not judge from a live
read of the pane, which can show a stale viewport. Check the camp (its commits, its report path), tell
the general, then either \`vx prompt <task-id> <text...>\` to have it finish or report, land it if its
commits are complete, or strike it.

**interrupted**: vx lost the soldier's pane (closed, herdr or tmux restarted, or struck while
working, or the machine restarted). Whatever it did, committed or not, is still in its camp. When the
camp holds work, \`vx resume <task-id>\` is the way on: the same harness continues its own conversation
in the same camp, keeping every commit and uncommitted change. Otherwise the general chooses: land the
commits if they are complete, strike the camp, or \`vx redispatch <task-id>\`, which re-runs the
original prompt with the same kind, harness, model and effort in a fresh camp.
Redispatch is destructive: the old camp is reset and its branch deleted, commits included. Ask before running it.

**failed**: vx could not start or prompt the soldier, so it never got its prompt and there is nothing
to resume. Read the reason (\`output\` in \`vx status --json\`), run \`vx doctor\`, fix the cause, then
\`vx redispatch <task-id>\`: the same prompt, kind, harness, model and effort under the same id in a
fresh camp (\`--profile <name>\` for another harness). Or strike it with \`vx strike <task-id>\` and
dispatch again. A redispatch that fails again leaves it \`failed\`, its camp back in the pool.

## \`vx sentinel await\` versus \`vx wait\`

- \`vx sentinel await\` is what the Stop hook and the Pi extension run. It blocks until a wake for this
  project arrives, prints the reason text on stderr and exits 2. It listens for a day; then, in Claude
  Code, it wakes you once with a short note that it only re-arms the hook (nothing to do: end your turn
  without a reply), and elsewhere it exits 0 silently. It also exits 0 when there is nothing to deliver
  here. It consumes what it delivers, so never run it yourself.
- \`vx sentinel drain\` checks once: \`{"decision":"block","reason":"<reason text>"}\` when something is
  pending, else \`{}\`. It consumes what it prints too.
- \`vx wait <task-id> [--poll-interval <s>] [--max-wait <s>] [--log-file <path>] [--pane-tail-lines <n>]\`
  waits for one soldier and reports how it ended. It is read-only: it never consumes a wake and never
  touches the soldier. Use it where no hook wakes you (Codex, scripts), or as a background command in
  Claude Code, whose exit wakes you. Exit 0: \`done\` or \`shipped\`; exit 2: \`blocked\`, \`failed\`,
  \`interrupted\` or \`unconfirmed\`; exit 124: \`--max-wait\` reached (default 7200 seconds). The last
  line is \`VX_WAIT_DONE: task=<id> status=<s>\`, \`VX_WAIT_TERMINAL: task=<id> status=<s>\` or
  \`VX_WAIT_TIMEOUT: ...\`, preceded by \`VX_WAIT_QUESTION:\`, \`VX_WAIT_NOTE:\` or \`VX_WAIT_REPORT:\`
  lines and a pane tail when they apply.
- Missed a wake (another commander took it, or an idle Claude Code session outlived its await)?
  \`vx status\` shows everything that happened; \`vx doctor\` reports wakes nobody is listening for.
`;

export const LANDING_MD = `# Landing a mission

\`vx land <task-id>\` fast-forwards the project checkout's base branch to the mission's camp branch
(\`git merge --ff-only vexillum/<task-id>\`), prints \`landed: fast-forwarded <dir> to <branch>\`, records
the task \`done\` if it was \`running\`, \`blocked\` or \`unconfirmed\` and the landing commit, and then
strikes its camp. When the base moved on (another mission landed), it first rebases the branch onto the
base itself, in the camp, if that rebase is clean and the soldier idle; it never merges and never
resolves a conflict: a conflict goes back to the soldier, with the camp as it was.

## Before landing

1. Review the work from the project checkout:
   \`git log --oneline <base>..vexillum/<task-id>\` and \`git diff <base>...vexillum/<task-id>\`.
   Run the tests in the camp (\`camp_path\` in \`vx status --json\`) when the change warrants it.
2. Report to the general: what changed, what you verified, anything doubtful.
3. Land only with the general's approval, unless they told you otherwise (for example "land it when
   the tests pass").

## Refusals and what to do

- \`<branch> is not a fast-forward of <base> and rebasing it would conflict in <file>, <file> - have the soldier rebase <branch> onto <base>, then retry\`:
  the base moved and the branch conflicts with it. Have the soldier rebase:
  \`vx prompt <task-id> "Rebase vexillum/<task-id> onto <base>, resolve any conflicts, rerun the tests and commit."\`
  Wait for its wake, review again, then \`vx land <task-id>\`. Do not rebase or merge it yourself.
  \`vx prompt\` needs a \`done\`, \`unconfirmed\` or \`shipped\` task; answer a \`blocked\` one first.
- \`<branch> is not a fast-forward of <base> and task <id> is running (its soldier is working) - land rebases a branch only under an idle soldier; wait for its wake, then retry\`:
  nothing changed; land it after its wake.
- \`project checkout <dir> has uncommitted changes, refusing to land <branch>\`: the general's working
  tree is dirty. Tell the general; never stash, commit or discard their changes yourself.
- \`project checkout <dir> is on <current>, not <base> - check out <base>, then retry\`: switch branches
  only with the general's consent, then retry.
- \`task <id> is a scout - scouts report, they do not land; strike it once you have read its report\`.
- \`task <id> is shipped - landing a pull request is not supported yet\`.
- \`land refused: <reason>\`: read the reason and report it.

\`landed, but automatic strike failed: <reason> - retry with 'vx strike <id>'\` means the merge stands;
fix the reason and run \`vx strike <task-id>\`.

## Landing several missions

Once one mission lands, every other mission on that base has diverged. \`vx land\` rebases a clean
one itself at no cost; only a conflicting one needs a rebase round trip with its soldier. The quickest
way: \`vx land --all\` lands every mission whose soldier is idle, in the order that conflicts least, and
stops at the first that needs its soldier, naming it
(\`land stopped at task <id>: <its refusal>; not tried: <id>, <id>\`); \`vx land <id> <id>...\` does the
same for the missions you name. Land only what the general approved. To do it by hand:

1. Read the forecast in \`vx status\`. Under each mission with commits its base lacks:
   \`    landing: <fast-forwards <base>|diverged from <base>>; <merges cleanly|would conflict|merge unknown>; <n> file[s] changed; <no overlap|overlaps <id>, <id>...>\`
   (\`vx status --json\`: the \`landing\` array, with the \`files\` and the \`conflicts\`).
2. Land first the mission that overlaps the fewest others (among equals, one that fast-forwards).
   A mission with \`no overlap\` rarely conflicts whatever lands before it; missions that overlap
   each other are likely to conflict on rebase, so land those one at a time, last.
3. After a landing, \`vx land\` names the missions it left behind:
   \`vx: now diverged from <base>: <id>, <id>; vx land rebases a clean one itself, prompt only those it refuses (vx prompt <id> "rebase on <base>")\`.
   Land the clean ones (\`vx land\` rebases them itself). Prompt every one it refuses to rebase in that
   same turn, one \`vx prompt\` each (the text above, naming the conflicting files), then end your turn.
   Review and land each one as its wake comes, the next least-overlapping first.
`;

export const STRIKING_MD = `# Striking a camp

\`vx strike <task-id> [--force] [--discard]\` dismantles a soldier's camp: it clears the lease (the
worktree stays for reuse), closes the soldier's pane, deletes the branch when it is landed, and
returns the camp to the pool. Success prints \`struck: camp returned to the pool, herdr pane closed.\`
or \`struck: camp returned to the pool, tmux session closed.\`

## When

- Mission: \`vx land\` strikes for you. Strike by hand after a failed automatic strike, or to abandon a
  mission (which needs \`--discard\` and the general's approval).
- Scout: after you have read its report and told the general. A scout needs its report: a struck
  scout cannot write it any more.
- Failed task: to free its camp before dispatching again.

After a strike the soldier is gone: \`vx prompt\` answers
\`task <id>'s camp was already struck, its soldier is gone - dispatch a new one instead\`. Striking a
\`pending\`, \`running\` or \`blocked\` soldier closes its pane and marks it \`interrupted\`; never strike
a working soldier without the general's approval.

## Refusals and what to do

- \`strike refused: <branch> is not landed in <base> - land it first, or strike with --discard (only with the general's approval)\`:
  land it (\`landing.md\`), or ask the general whether to throw the work away.
- \`strike refused: camp of task <id> has uncommitted changes\`: ask the soldier to commit with
  \`vx prompt <task-id> <text...>\`, or discard with approval.
- \`strike refused: scout task <id> has no report at <path>\`: ask the scout to write it with
  \`vx prompt <task-id> <text...>\`. \`--force\` skips this check and nothing else; use it only when the
  general accepts striking without a report.
- \`strike refused: task <id>'s camp is not leased (already struck)\`: nothing left to do.

## \`--discard\`

\`vx strike <task-id> --discard\` strikes even when the work is unlanded or uncommitted: it resets the
worktree and prints every discarded commit (hash and subject) and every uncommitted change. Use it
only with the general's explicit approval, after showing them what will be lost
(\`git log --oneline <base>..vexillum/<task-id>\` and \`git -C <camp_path> status --short\`).
`;
