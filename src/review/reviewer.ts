// One review: the reviewer model, called through Pi's model registry with its credentials,
// in a bounded tool loop under a deadline and a cancel signal. Never throws; every failure
// comes back classified so the user can be told what went wrong.
import type { AssistantMessage, Message, Tool } from "@earendil-works/pi-ai";
import { type Registry, type ReviewerChoice, classifyFailure, type FailureKind } from "../models/index.ts";
import { askModel, usableModel } from "../model-call/index.ts";
import { dedupe, type Finding, makeFinding, type Question } from "../findings/index.ts";
import { ASK_TOOL, parseAskArgs } from "./ask-args.ts";
import { parseWarnArgs, WARN_PARAMS } from "./warn-args.ts";

/** A read-only tool the reviewer may call (read, grep, find, ls, watchdog_diff). */
export interface ReviewerToolLike {
	name: string;
	description: string;
	parameters: unknown;
	execute(args: unknown, signal: AbortSignal): Promise<{ text: string; isError: boolean }>;
}

export type { FailureKind };

export interface ReviewUsage {
	input: number;
	output: number;
	totalTokens: number;
	cost: number;
}

export interface ReviewOutcome {
	status: "clean" | "findings" | "failed" | "cancelled";
	findings: Finding[];
	failure?: { kind: FailureKind; message: string };
	/** Problems with the reviewer's own `watchdog_warn` and `watchdog_ask` calls. */
	malformed: string[];
	/** The reviewer's question (`watchdog_ask`): asking ended the review. */
	question?: Question;
	model: string;
	thinking: string;
	durationMs: number;
	usage: ReviewUsage;
	steps: number;
	stepLimitReached: boolean;
	/** Reviewer models that failed before this one was tried (`fallbackModels`), each with its failure. */
	fellBack?: Array<{ model: string; kind: FailureKind; message: string }>;
}

export interface ReviewRequest {
	registry: Registry;
	choice: ReviewerChoice;
	systemPrompt: string;
	input: string;
	tools: ReviewerToolLike[];
	timeoutMs: number;
	/** Aborted when the review must stop (new user input, shutdown). */
	cancel: AbortSignal;
	source: string;
	/** Offer `watchdog_ask` (clarification on, an eligible boundary, no question yet this prompt). */
	ask?: boolean;
	/**
	 * Tried in order when the reviewer fails before any tool work (no credentials, a limit, a
	 * provider error), within the same deadline; never after a tool ran or a finding was recorded.
	 */
	fallbacks?: ReviewerChoice[];
	maxSteps?: number;
	maxTokens?: number;
}

export const WARN_TOOL: Tool = {
	name: "watchdog_warn",
	description:
		"Record one finding about the run under review. Call once per distinct problem; " +
		"call nothing when the work is sound.",
	parameters: WARN_PARAMS as unknown as Tool["parameters"],
};

/** Failures a fallback model may answer: the model could not be used at all, for reasons of its own. */
const FALL_BACK_ON: ReadonlySet<FailureKind> = new Set(["unknown-model", "no-auth", "rate-limit", "quota", "provider"]);

export async function runReview(req: ReviewRequest): Promise<ReviewOutcome> {
	const started = Date.now();
	const usage: ReviewUsage = { input: 0, output: 0, totalTokens: 0, cost: 0 };
	// The deadline covers everything, resolving credentials (an OAuth refresh) and every fallback included.
	const timeout = AbortSignal.timeout(req.timeoutMs);
	const signal = AbortSignal.any([timeout, req.cancel]);
	const fellBack: NonNullable<ReviewOutcome["fellBack"]> = [];
	const choices = [req.choice, ...(req.fallbacks ?? [])];
	for (let i = 0; ; i++) {
		const outcome = await attempt(req, choices[i], { started, usage, timeout, signal });
		const failure = outcome.failure;
		const untouched = outcome.steps <= 1 && outcome.findings.length === 0 && !outcome.question;
		if (
			outcome.status !== "failed" ||
			!failure ||
			!FALL_BACK_ON.has(failure.kind) ||
			!untouched ||
			i + 1 >= choices.length ||
			signal.aborted
		) {
			return fellBack.length ? { ...outcome, fellBack } : outcome;
		}
		fellBack.push({ model: outcome.model, kind: failure.kind, message: failure.message });
	}
}

interface AttemptClock {
	started: number;
	usage: ReviewUsage;
	timeout: AbortSignal;
	signal: AbortSignal;
}

/** One reviewer model's try at the review. `steps` 0 or 1 on failure: no tool ran. */
async function attempt(req: ReviewRequest, choice: ReviewerChoice, clock: AttemptClock): Promise<ReviewOutcome> {
	const { started, usage, timeout, signal } = clock;
	const findings: Finding[] = [];
	const malformed: string[] = [];
	const ref = choice.provider && choice.id ? `${choice.provider}/${choice.id}` : "(none)";
	const outcome = (
		rest: Partial<ReviewOutcome> & Pick<ReviewOutcome, "status">,
		steps = 0,
		stepLimitReached = false,
	): ReviewOutcome => ({
		findings: dedupe(findings),
		malformed,
		model: ref,
		thinking: choice.thinking,
		durationMs: Date.now() - started,
		usage,
		steps,
		stepLimitReached,
		...rest,
	});

	const usable = await usableModel(req.registry, choice, signal);
	if (!usable)
		return req.cancel.aborted
			? outcome({ status: "cancelled" })
			: outcome({
					status: "failed",
					failure: {
						kind: "timeout",
						message: `resolving the reviewer's credentials took longer than ${req.timeoutMs} ms (agentEndTimeoutMs)`,
					},
				});
	if ("problem" in usable) {
		const message = usable.problem;
		return outcome({
			status: "failed",
			failure: { kind: /^Unknown model|^No reviewer model/.test(message) ? "unknown-model" : "no-auth", message },
		});
	}

	const tools: Tool[] = [
		...req.tools.map((t) => ({
			name: t.name,
			description: t.description,
			parameters: t.parameters as Tool["parameters"],
		})),
		WARN_TOOL,
		...(req.ask ? [ASK_TOOL] : []),
	];
	const messages: Message[] = [{ role: "user", content: req.input, timestamp: Date.now() }];
	const maxSteps = req.maxSteps ?? 10;
	const stopped = (): ReviewOutcome | undefined => {
		if (req.cancel.aborted) return outcome({ status: "cancelled" });
		if (timeout.aborted)
			return outcome({
				status: "failed",
				failure: {
					kind: "timeout",
					message: `the review did not finish within ${req.timeoutMs} ms (agentEndTimeoutMs)`,
				},
			});
		return undefined;
	};

	for (let step = 1; step <= maxSteps; step++) {
		let reply: AssistantMessage | undefined;
		try {
			reply = await askModel(
				req.registry,
				usable,
				{ systemPrompt: req.systemPrompt, messages, tools },
				{ signal, maxTokens: req.maxTokens ?? 4096 },
			);
			if (!reply) return stopped() ?? outcome({ status: "failed", failure: classifyFailure("aborted") }, step);
		} catch (error) {
			return (
				stopped() ??
				outcome({ status: "failed", failure: classifyFailure((error as Error).message ?? String(error)) }, step)
			);
		}
		usage.input += reply.usage?.input ?? 0;
		usage.output += reply.usage?.output ?? 0;
		usage.totalTokens += reply.usage?.totalTokens ?? 0;
		usage.cost += reply.usage?.cost?.total ?? 0;
		if (reply.stopReason === "aborted" || reply.stopReason === "error") {
			return (
				stopped() ??
				outcome({ status: "failed", failure: classifyFailure(reply.errorMessage ?? reply.stopReason) }, step)
			);
		}
		messages.push(reply);
		const calls = reply.content.filter((c) => c.type === "toolCall");
		if (calls.length === 0) return outcome({ status: findings.length ? "findings" : "clean" }, step);
		for (const call of calls) {
			let result: { text: string; isError: boolean };
			if (req.ask && call.name === ASK_TOOL.name) {
				const asked = askCall(call.arguments, findings.length > 0);
				// A question yields: the review ends here, and the session's continuation carries it.
				if ("question" in asked)
					return outcome({ status: findings.length ? "findings" : "clean", question: asked.question }, step);
				if (asked.malformed) malformed.push(asked.error);
				result = { text: asked.error, isError: true };
			} else if (call.name === WARN_TOOL.name) {
				const parsed = parseWarnArgs(call.arguments);
				if (parsed.ok) {
					findings.push(makeFinding(parsed.value, req.source));
					const ignored = parsed.ignoredKeys.length
						? ` Ignored the unknown field${parsed.ignoredKeys.length > 1 ? "s" : ""} ` +
							`${parsed.ignoredKeys.map((k) => JSON.stringify(k)).join(", ")}: ` +
							`watchdog_warn takes only summary, evidence, recommendedAction, importance, severity ` +
							`and category.`
						: "";
					result = { text: `Recorded.${ignored}`, isError: false };
				} else {
					malformed.push(parsed.error);
					result = {
						text: `Not recorded: ${parsed.error}. Call watchdog_warn again with valid arguments.`,
						isError: true,
					};
				}
			} else {
				const tool = req.tools.find((t) => t.name === call.name);
				result = tool
					? await tool.execute(call.arguments, signal)
					: { text: `There is no tool "${call.name}".`, isError: true };
			}
			messages.push({
				role: "toolResult",
				toolCallId: call.id,
				toolName: call.name,
				content: [{ type: "text", text: result.text }],
				isError: result.isError,
				timestamp: Date.now(),
			});
			const halt = stopped();
			if (halt) return { ...halt, steps: step };
		}
	}
	return outcome({ status: findings.length ? "findings" : "clean" }, maxSteps, true);
}

/** A `watchdog_ask` call: the question, or why it is refused (bad arguments, or a finding already recorded). */
function askCall(args: unknown, warned: boolean): { question: Question } | { error: string; malformed: boolean } {
	if (warned)
		return {
			error:
				"Not asked: this review already recorded a finding, which goes to the agent; " +
				"a question is for when you cannot judge at all.",
			malformed: false,
		};
	const parsed = parseAskArgs(args);
	return parsed.ok
		? { question: parsed.value }
		: { error: `Not asked: ${parsed.error}. Call watchdog_ask again with valid arguments.`, malformed: true };
}
