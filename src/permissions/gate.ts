// The permission gate of one child: installed only when its policy can ask or deny. An allowed
// call costs one map lookup and returns at once; a denied one is blocked with the rule named;
// an asked one waits for the arbiter (askArbiter), whose every failure denies. Identical asks
// in the child's run reuse the arbiter's decision. Every step but a plain allow is a history
// line (audit.ts), which never holds the call's arguments.
import { createHash } from "node:crypto";
import type { Registry, ReviewerChoice } from "../models/index.ts";
import { clip, oneLine } from "../util/index.ts";
import { type ArbiterOutcome, askArbiter, type AskRequest } from "./arbiter.ts";
import type { DeniedAsk, UserAllowances } from "./allowances.ts";
import { permissionLine, type PermissionLine } from "./audit.ts";
import { previewArguments, redactText } from "./redact.ts";
import { describeRule, type PermissionPolicy, type PermissionRule, RuleMatcher } from "./rules.ts";

export type GateVerdict = { block: true; reason: string } | undefined;

/** A tool call as the gate sees it (Pi's `tool_call` event). */
export interface GateCall {
	toolName: string;
	input: unknown;
	toolCallId?: string;
}

/** What the gate reads of Pi's context: the model registry, the session model and the branch. */
export interface GateCtx {
	modelRegistry: Registry;
	sessionManager?: { getBranch(): ReadonlyArray<unknown> };
	/** The child's current run (aborted when it is stopped). */
	signal?: AbortSignal;
}

/** The child watchdog as the arbiter needs it, read at each ask. */
export interface ArbiterSettings {
	/** Whether the child watchdog is on (an arbiter that is off denies). */
	enabled: boolean;
	/** Why it is off, for the reason the child sees. */
	offReason?: string;
	choice: ReviewerChoice;
	timeoutMs: number;
	/** `permissions.model` names a classifier model: it arbitrates, approving at `threshold` or above. */
	classifier?: { ref: string; threshold: number };
}

export interface GateDeps {
	role: string;
	task: string;
	settings(ctx: GateCtx): ArbiterSettings;
	record(ctx: GateCtx, line: PermissionLine): void;
	/** The model call; askArbiter unless a test or bench says otherwise. */
	arbiter?(req: AskRequest): Promise<ArbiterOutcome>;
	/** The user's word over the arbiter (see allowances.ts); absent: a denial stays denied. */
	user?: GateUser;
}

/** Where the user can allow a denied ask once, and hear of it. */
export interface GateUser {
	book: UserAllowances;
	/** This child in the book: its run and label path, so one child's allowance is never another's. */
	child: string;
	/** How the user reads this child: "lead > tester". */
	who: string;
	/** Tells the user of a denial they may allow; absent where nobody can (print mode). */
	tell?(denied: DeniedAsk): void;
	/** The session waits on the arbiter (a text), or no longer (undefined). */
	waiting?(text: string | undefined): void;
}

const RECENT_CALLS = 5;
const REUSE_LIMIT = 200;

export class PermissionGate {
	private readonly matcher: RuleMatcher;
	private readonly deps: GateDeps;
	/** Decisions of the arbiter by call fingerprint (tool and arguments), for identical asks. */
	private readonly decided = new Map<string, { decision: "approve" | "deny"; reason: string; model: string }>();

	constructor(policy: PermissionPolicy, deps: GateDeps) {
		this.matcher = new RuleMatcher(policy);
		this.deps = deps;
	}

	/**
	 * Pi's `tool_call`: undefined lets the call run. Synchronous unless the call is asked about.
	 * Fails closed: a fault in the gate itself blocks the call (a hook that throws would let it run).
	 */
	check(ctx: GateCtx, call: GateCall): GateVerdict | Promise<GateVerdict> {
		try {
			const verdict = this.decide(ctx, call);
			return verdict instanceof Promise ? verdict.catch(faulted) : verdict;
		} catch (error) {
			return faulted(error);
		}
	}

	private decide(ctx: GateCtx, call: GateCall): GateVerdict | Promise<GateVerdict> {
		const decision = this.matcher.decide(call.toolName);
		if (decision.value === "allow") return undefined;
		const rule = decision.rule as PermissionRule;
		if (decision.value === "deny") {
			const reason =
				`Blocked by the permission rule ${describeRule(rule)}: ${call.toolName} may not ` +
				`run for the ${this.deps.role} role. Do not retry it; if the task needs it, say ` +
				`so in your answer to the parent.`;
			this.deps.record(
				ctx,
				permissionLine({
					tool: call.toolName,
					rule,
					decision: "deny",
					how: "rule",
					reason: "denied by rule",
					latencyMs: 0,
				}),
			);
			return { block: true, reason };
		}
		return this.ask(ctx, call, rule);
	}

	private async ask(ctx: GateCtx, call: GateCall, rule: PermissionRule): Promise<GateVerdict> {
		const started = Date.now();
		const key = fingerprint(call);
		const user = this.deps.user;
		// Allowed once by the user after a denial: this one identical call runs, and the allowance is spent.
		if (user?.book.take(`${user.child}\0${key}`)) {
			const line = { tool: call.toolName, rule, decision: "approve" as const, how: "user" as const, latencyMs: 0 };
			this.deps.record(ctx, permissionLine({ ...line, reason: "allowed once by the user after a denial" }));
			return undefined;
		}
		const earlier = this.decided.get(key);
		if (earlier) {
			this.deps.record(
				ctx,
				permissionLine({
					tool: call.toolName,
					rule,
					decision: earlier.decision,
					how: "reused",
					reason: earlier.reason,
					latencyMs: Date.now() - started,
					model: earlier.model,
				}),
			);
			return this.offer(call, key, verdictOf(call.toolName, rule, { kind: "decision", ...earlier }, true));
		}
		user?.waiting?.(`${user.who}: waiting on the permission arbiter for ${call.toolName}`);
		let outcome: ArbiterOutcome;
		try {
			outcome = await this.consult(ctx, call, rule);
		} finally {
			user?.waiting?.(undefined);
		}
		const latencyMs = Date.now() - started;
		if (outcome.kind === "decision") {
			if (this.decided.size >= REUSE_LIMIT) this.decided.clear();
			this.decided.set(key, { decision: outcome.decision, reason: outcome.reason, model: outcome.model });
			this.deps.record(
				ctx,
				permissionLine({
					tool: call.toolName,
					rule,
					decision: outcome.decision,
					how: "arbiter",
					reason: outcome.reason,
					latencyMs,
					model: outcome.model,
				}),
			);
		} else {
			this.deps.record(
				ctx,
				permissionLine({
					tool: call.toolName,
					rule,
					decision: "deny",
					how: "failure",
					reason: outcome.reason,
					latencyMs,
					failure: outcome.failure,
					...(outcome.model ? { model: outcome.model } : {}),
				}),
			);
		}
		return this.offer(call, key, verdictOf(call.toolName, rule, outcome, false));
	}

	/** A denied ask goes in the user's book: they may allow that exact call once. */
	private offer(call: GateCall, key: string, verdict: GateVerdict): GateVerdict {
		const user = this.deps.user;
		if (!verdict || !user?.tell) return verdict;
		const ask = { who: user.who, tool: call.toolName, reason: verdict.reason };
		const id = user.book.denied(`${user.child}\0${key}`, ask);
		user.tell({ ...ask, id, at: Date.now() });
		return {
			block: true,
			reason:
				`${verdict.reason} The user was shown this denial and may allow this exact call once; ` +
				"only an identical call would then run.",
		};
	}

	private async consult(ctx: GateCtx, call: GateCall, rule: PermissionRule): Promise<ArbiterOutcome> {
		let settings: ArbiterSettings;
		try {
			settings = this.deps.settings(ctx);
		} catch (error) {
			return {
				kind: "failure",
				failure: "error",
				reason:
					`the child watchdog's settings could not be read: ` +
					`${error instanceof Error ? error.message : String(error)}`,
			};
		}
		if (!settings.enabled)
			return {
				kind: "failure",
				failure: "watchdog-off",
				reason: `the child watchdog that arbitrates is off (${settings.offReason ?? "disabled"})`,
			};
		if (!settings.classifier && (!settings.choice.provider || !settings.choice.id))
			return {
				kind: "failure",
				failure: "no-model",
				reason: `the arbiter has no model: ${settings.choice.problem ?? "none configured"}`,
			};
		const request: AskRequest = {
			registry: ctx.modelRegistry,
			choice: settings.choice,
			timeoutMs: settings.timeoutMs,
			role: this.deps.role,
			task: this.deps.task,
			tool: call.toolName,
			preview: previewArguments(call.input),
			recent: recentCalls(ctx, call.toolCallId),
			rule: describeRule(rule),
			...(ctx.signal ? { cancel: ctx.signal } : {}),
			...(settings.classifier ? { classifier: settings.classifier } : {}),
		};
		try {
			return await (this.deps.arbiter ?? askArbiter)(request);
		} catch (error) {
			return {
				kind: "failure",
				failure: "error",
				reason: `the arbiter failed: ${error instanceof Error ? error.message : String(error)}`,
			};
		}
	}
}

function faulted(error: unknown): GateVerdict {
	return {
		block: true,
		reason:
			`Denied: the permission gate failed (${error instanceof Error ? error.message : String(error)}), ` +
			`so this call did not run.`,
	};
}

/** What the child is told: an approval lets the call run; anything else blocks it with the reason. */
function verdictOf(tool: string, rule: PermissionRule, outcome: ArbiterOutcome, reused: boolean): GateVerdict {
	if (outcome.kind === "decision" && outcome.decision === "approve") return undefined;
	const again = reused ? " (the same call was decided earlier in this run)" : "";
	if (outcome.kind === "decision")
		return {
			block: true,
			reason: `The permission arbiter denied this ${tool} call${again} (rule ${describeRule(rule)}): ${outcome.reason}`,
		};
	return {
		block: true,
		reason:
			`Denied: this ${tool} call needs approval (rule ${describeRule(rule)}) and none ` +
			`could be had: ${outcome.reason}. Do not retry it; if the task needs it, say ` +
			`so in your answer to the parent.`,
	};
}

/** Tool and arguments, hashed: identical asks share it. */
function fingerprint(call: GateCall): string {
	let args: string;
	try {
		args = stableJson(call.input);
	} catch {
		args = String(call.input);
	}
	return createHash("sha256").update(call.toolName).update("\0").update(args).digest("hex");
}

function stableJson(value: unknown): string {
	if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
	if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
	const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
}

/** The child's last few tool calls before this one, as "tool target" (names and targets only, redacted). */
export function recentCalls(ctx: GateCtx, currentId: string | undefined): string[] {
	let branch: ReadonlyArray<unknown>;
	try {
		branch = ctx.sessionManager?.getBranch() ?? [];
	} catch {
		return [];
	}
	const out: string[] = [];
	for (let i = branch.length - 1; i >= 0 && out.length < RECENT_CALLS; i--) {
		const entry = branch[i] as { type?: string; message?: { role?: string; content?: unknown } };
		if (entry?.type !== "message" || entry.message?.role !== "assistant" || !Array.isArray(entry.message.content))
			continue;
		const calls = (
			entry.message.content as Array<{ type?: string; id?: string; name?: unknown; arguments?: unknown }>
		).filter((c) => c?.type === "toolCall" && c.id !== currentId);
		for (let k = calls.length - 1; k >= 0 && out.length < RECENT_CALLS; k--)
			out.push(describeCall(calls[k].name, calls[k].arguments));
	}
	return out.reverse();
}

function describeCall(name: unknown, args: unknown): string {
	const tool = typeof name === "string" ? oneLine(name).slice(0, 64) : "?";
	const a = (args && typeof args === "object" ? args : {}) as Record<string, unknown>;
	const pick = ["path", "file_path", "pattern", "url", "query", "name"]
		.map((k) => a[k])
		.find((v) => typeof v === "string");
	// A command's first two words are its target; the rest may carry anything.
	const command = typeof a.command === "string" ? a.command.trim().split(/\s+/).slice(0, 2).join(" ") : undefined;
	const target = typeof pick === "string" ? pick : command;
	return target ? `${tool} ${clip(redactText(oneLine(target)), 120)}` : tool;
}
