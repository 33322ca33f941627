// The live side of the fleet view (src/fleet/): a main session registers itself under
// <agentDir>/watchdog/live/ and reads its mailbox. A message found there goes through this
// session's sink like any finding (a wake when the agent is idle, a steer while it runs), and
// is acknowledged with what the sink did: delivered only when it went to the model.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	answerMail,
	type LiveEntry,
	type LiveRegistration,
	type LiveWait,
	liveRegistration,
	takeMail,
} from "../fleet/index.ts";
import { type Finding, makeFinding } from "../findings/index.ts";
import { clip, oneLine } from "../util/index.ts";
import type { Monitor } from "./monitor.ts";

/** How often the mailbox is looked at; cheap (one readdir), and a nudge has no hurry. */
const POLL_MS = 500;

export interface LiveDeps {
	agentDir: () => string;
	/** The sink's delivery; `idle`: nothing runs, the message starts a run. Returns what reached the model. */
	deliver(ctx: ExtensionContext, findings: Finding[], idle: boolean): { toModel: Finding[] } | undefined;
	policy(ctx: ExtensionContext): string;
	/** What this session (or a child under it) waits on now; the same object while the wait lasts. */
	waiting?(): LiveWait | undefined;
}

/**
 * Waits on the permission arbiter or the user, counted as ParentUser.waiting reports them (a
 * text begins one, undefined ends one). The entry names the wait that began it and since when.
 */
export class LiveWaits {
	private open = 0;
	private wait: LiveWait | undefined;

	report(text: string | undefined): void {
		this.open = Math.max(0, this.open + (text === undefined ? -1 : 1));
		if (!this.open) this.wait = undefined;
		else if (!this.wait && text !== undefined)
			this.wait = { what: clip(oneLine(text), 200), since: new Date().toISOString() };
	}

	current(): LiveWait | undefined {
		return this.wait;
	}

	/** `run` waits on the user (a dialog): reported as a wait while it lasts. */
	async on<T>(text: string, run: () => Promise<T>): Promise<T> {
		this.report(text);
		try {
			return await run();
		} finally {
			this.report(undefined);
		}
	}
}

export function liveMonitor(deps: LiveDeps): Monitor {
	let stop: (() => void) | undefined;
	let activityAt = Date.now();
	const touch = () => {
		activityAt = Date.now();
	};
	return {
		name: "live",
		start(ctx) {
			stop?.();
			stop = undefined;
			try {
				stop = register(deps, ctx, () => activityAt);
			} catch {
				// an unwritable agent folder: this session is simply not reachable by the fleet
			}
		},
		userPrompt: touch,
		input: touch,
		toolResult: () => {
			touch();
			return undefined;
		},
		assistantText: touch,
		shutdown: () => {
			stop?.();
			stop = undefined;
		},
	};
}

function register(deps: LiveDeps, ctx: ExtensionContext, activityAt: () => number): () => void {
	const agentDir = deps.agentDir();
	const sm = ctx.sessionManager;
	const file = sm.getSessionFile();
	// Registered at the first poll, not at session start: off the start-up path, and a run shorter than one poll
	// (`pi -p`) leaves nothing to clean up.
	let live: LiveRegistration | undefined;
	let last: Pick<LiveEntry, "busy" | "policy" | "activityAt" | "waiting"> | undefined;
	const timer = setInterval(() => {
		try {
			live ??= liveRegistration(agentDir, {
				sessionId: sm.getSessionId(),
				...(file ? { file } : {}),
				cwd: ctx.cwd,
				busy: false,
				policy: deps.policy(ctx),
			});
			const now = {
				busy: !ctx.isIdle(),
				policy: deps.policy(ctx),
				activityAt: activityAt(),
				waiting: deps.waiting?.(),
			};
			// Written only when something the fleet reads changed: a wait begun or ended is one write each.
			if (!last || last.busy !== now.busy || last.policy !== now.policy || last.waiting !== now.waiting)
				live.update(now);
			last = now;
			for (const message of takeMail(live.mailbox)) {
				answerMail(live.mailbox, message.id, deliverOne(deps, ctx, message.text, message.reason));
			}
		} catch {
			// a stale context (the session was replaced): shutdown removes the entry
		}
	}, POLL_MS);
	timer.unref?.();
	return () => {
		clearInterval(timer);
		live?.remove();
	};
}

function deliverOne(
	deps: LiveDeps,
	ctx: ExtensionContext,
	text: string,
	reason: string,
): { delivered: boolean; reason?: string } {
	if (deps.policy(ctx) === "off") return { delivered: false, reason: "this session's policy is off" };
	const finding = makeFinding(
		{
			summary: "The fleet watchdog found this session idle with its work unfinished",
			evidence: reason.slice(0, 600) || "stopped with the work unfinished",
			recommendedAction: text.slice(0, 4000),
			importance: "high",
			severity: "concern",
			category: "other",
		},
		"idle",
	);
	const plan = deps.deliver(ctx, [finding], ctx.isIdle());
	if (plan?.toModel.includes(finding)) return { delivered: true };
	return { delivered: false, reason: "the session's watchdog held it back (policy handsoff or its nudge budget)" };
}
