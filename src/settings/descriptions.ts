// What each key under `subagents.watchdog` means, in a sentence: the settings reference in
// docs/settings.md is generated from these, the schema and the defaults (`npm run docs`), and a
// test fails when a key of the schema has no line here.
export const SETTING_DESCRIPTIONS: Record<string, string> = {
	enabled: "master switch: off turns every watchdog off",
	"main.enabled":
		"the main session's own reviews; alone it also sets `enabled`, and `enabled: true` with " +
		"`main.enabled: false` watches child agents only",
	"main.model":
		"reviewer model `provider/id[:thinking]`, or `inherit` the session's model; a bare id (`claude-opus-4-8`) " +
		"is placed at the one provider Pi has it from, else it is an error naming the candidates (so for every model key)",
	"main.thinking": "reviewer thinking level (`false`: `off`); a model given without a level runs with thinking `off`",
	agentEndTimeoutMs: "deadline of one review",
	severityThreshold: "hide findings below it",
	stalemateRepeats:
		"identical warnings in a row before the stalemate stop (1: a boundary finding is shown to you and never " +
		"continues the run)",
	maxWarnings: "findings sent to the agent per user prompt (`null`: no cap); past it they are shown to you only",
	fallbackModels:
		"reviewer models tried in order when the reviewer fails before any tool work, within the same deadline; " +
		"you are told once",
	"scope.enabled": "give the reviewer the user's requests",
	"guidance.watchdogMd": "read `WATCHDOG.md` standing instructions",
	"cadence.everyNTools": "a cadence review every N tool results",
	"lsp.enabled": "LSP pre-pass on changed TypeScript/JavaScript files and their importers",
	"lsp.timeoutMs": "longest wait for the language server",
	"lsp.maxFiles": "files checked per review",
	"lsp.idleMs": "shut the warm language server down after this long idle",
	"lsp.serverMemoryMb":
		"heap limit of the language server's tsserver, in MB (0: Node's default); raise it for a project that needs " +
		"more (the bundled server's heap stays near 1.3 times its live data whatever the limit)",
	"lsp.maxDiagnostics": "pi-subagents' key: accepted, does nothing here (`lsp.maxFiles` bounds the pre-pass)",
	"loops.enabled": "deterministic loop detector",
	"loops.stopRun": "stop the run when a loop goes on after the warning",
	"loops.window": "the sliding window, in tool calls",
	"loops.repeats": "the same call with the same result this often in the window (a poll: this often in a row)",
	"loops.targetHits":
		"calls to one target (a file read, a command by its first two words, a search pattern) that brought nothing new",
	"loops.readOnlyTargetHits":
		"as `loops.targetHits`, for a read-only session (nothing marks a session read-only yet: no effect today)",
	"loops.dominantShare":
		"share of the calls since anything landed that one call may take before it counts as dominating",
	"loops.rereadFactor": "a file read this many times over (lines read / distinct lines)",
	"loops.cycleRepeats": "an A-B-A-B (or A-B-C) cycle of identical calls and results repeated this often",
	"loops.staleCalls": "calls in the window (reads aside: they have their own signals) that brought nothing new",
	"loops.checkRepeats":
		"runs of one check (tests, a build, a type check, a linter) with the same result while nothing landed",
	"loops.restateRepeats":
		"turns saying the same sentence (case, numbers and paths aside) while the calls in between brought nothing new",
	"loops.errorRepeats": "identical calls with an identical error answer that make a repeat (errors come back at once)",
	"loops.failRepeats": "failing runs of one command, however its error is worded, while nothing landed",
	"loops.sameAnswers": "the same text-only answer in this many turns in a row, with no tool call between",
	"loops.compactions": "context compactions or context-overflow errors with nothing landing between",
	"loops.maxWaitMs":
		"how long polls between waits that do not get shorter may wait on the same answer (also: at most " +
		"4 x `loops.repeats` polls), and sleeps in a row may add up to",
	clarification: "main-session activity reviews, forgotten-work reminders and one `watchdog_ask` question per prompt",
	"idle.main": "nudge unfinished stops in the main session",
	"idle.children": "nudge unfinished stops in children",
	"idle.policy":
		"the claims checker and unfinished stops: `off`, `keep`, or `handsoff` (shown to you, never sent to the " +
		"agent; so are child agents' findings, verifications and launch-rule warnings); reviews and loops are not affected",
	"idle.cooldownMs": "the least time between two nudges without progress",
	"idle.maxNudges": "nudges without progress before they stop",
	"idle.stallMs": "in the TUI, how long the main session waits without your input before its nudge goes out",
	"idle.model": "a model (`provider/id`) that writes each nudge's text; `inherit` keeps the template",
	"rotate.enabled": "switch the main session to the next healthy model after a usage limit",
	"rotate.models": "the models to switch to, in order: `provider/id[:thinking]`",
	"rotate.cooldownMs": "at most one rotation per this long; a model that hit a limit is not tried again within it",
	"children.enabled": "child watchdogs (a role's `children.overrides.<role>.enabled` wins for that role, either way)",
	"children.model": "child watchdog model",
	"children.thinking": "child watchdog thinking level",
	"children.cadence.everyNTools": "child cadence reviews (falls back to `cadence.everyNTools`)",
	"children.overrides.<role>.enabled": "this role's child watchdog on or off",
	"children.overrides.<role>.model": "this role's child watchdog model",
	"children.overrides.<role>.thinking": "this role's child watchdog thinking level",
	"children.overrides.<role>.cadence.everyNTools": "this role's cadence reviews",
	"children.concurrency": "children running at once in the whole tree, grandchildren too",
	"children.maxDepth":
		"how deep children may nest: at 2 the main session's children may launch their own, theirs may not",
	"children.timeoutMs": "a child's deadline unless the launch sets `timeoutMs`",
	"children.maxBackground":
		"background runs of this agent folder running at once; a background launch past it is refused",
	"children.watchdogTailTimeoutMs":
		"pi-subagents' key: accepted, does nothing here (a child's watchdog finishes inside the child's run)",
	"rules.action": "launch rules: `warn` (launch, and tell the model) or `block` (refuse the launch)",
	"rules.roleModels.<role>.allow": "globs (`*`, `?`) of `provider/id[:thinking]` the role may run on; only these",
	"rules.roleModels.<role>.deny": "globs the role may not run on; deny wins over allow",
	"rules.roleModels.<role>.note": "why, shown with every warning and block",
	"permissions.timeoutMs":
		"the permission arbiter's deadline; the rules live in `<agentDir>/extensions/subagent/config.json`",
	"permissions.model":
		"the permission arbiter's model: `inherit` (the watchdog's), a chat model, or a classifier `provider/id`",
	"permissions.threshold": "a classifier arbiter approves only at this p(approve) or above",
	"headless.strict":
		"print, JSON and RPC mode exit 3 when the run ends with an open blocker (also `--watchdog-strict`; docs/ci.md)",
	"history.maxBytes": "size of the history log before it becomes `history.1.jsonl`",
	"fleet.stallMs": "the fleet view: a stopped session quiet this long with its work unfinished is idle",
	"fleet.dormantMs": "the fleet view: a session quiet this long is dormant (listed, never judged or nudged)",
	"fleet.model": "the model that judges a fleet pass's idle sessions in one call; `inherit`: the watchdog's",
	"fleet.notify": "a command that gets each new attention row of the fleet view as one JSON line on stdin",
	"fleet.cooldownMs": "the least time between two fleet nudges of one session, across passes",
	"fleet.maxNudges": "fleet nudges of one session without progress before the fleet stops nudging it",
};

/** Defaults the reference cannot read from DEFAULT_SETTINGS, in words. */
export const DEFAULT_IN_WORDS: Record<string, string> = {
	"main.enabled": "as `enabled`",
	"children.overrides.<role>.enabled": "as `children.enabled`",
	"children.overrides.<role>.model": "as `children.model`",
	"children.overrides.<role>.thinking": "as `children.thinking`",
	"children.overrides.<role>.cadence.everyNTools": "as `children.cadence`",
};
