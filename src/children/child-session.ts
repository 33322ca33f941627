// One child agent as a real in-process Pi session: its own session file, the agent's tools and
// system prompt, our watchdog loaded into it, on the model runtime it is given (the parent's in
// the foreground, so providers registered by extensions work). Thin: everything here talks
// to Pi; what to launch and what the result means is decided elsewhere.
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, Model } from "@earendil-works/pi-ai";
import {
	type AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	type ExtensionFactory,
	type ExtensionUIContext,
	type ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { contentText } from "../util/index.ts";
import { DEFAULT_CHILD_TOOLS } from "./agent-file.ts";

export { DEFAULT_CHILD_TOOLS };

/** What of an agent file a child session needs. */
export interface ChildAgent {
	name: string;
	tools?: string[];
	systemPrompt: string;
	/** Extension paths the child loads besides ours (absolute, or relative to the agent file's folder). */
	extensions?: string[];
	subagentOnlyExtensions?: string[];
	/** The agent file's `maxDepth` (see lineage.ts). */
	maxDepth?: number;
}

export type ChildStatus = "done" | "failed" | "timed out" | "stopped";

export interface ChildSpec {
	agent: ChildAgent;
	task: string;
	/** Where the child works: the parent's tree or its worktree. */
	cwd: string;
	/** The parent's folder: settings and the session folder are the project's, not a worktree's. */
	projectCwd: string;
	projectTrusted: boolean;
	agentDir: string;
	model: Model<Api>;
	thinking: ThinkingLevel;
	timeoutMs: number;
	modelRuntime: ModelRuntime;
	/** Our watchdog for this child (`createWatchdogExtension({ role, parent })`). */
	watchdog: ExtensionFactory;
	/** Where the child's session file goes (the parent's session folder). */
	sessionDir?: string;
	parentSessionFile?: string;
}

export interface ChildProgress {
	tool?: string;
	toolCount: number;
	tokens: number;
	cost: number;
}

export interface ChildOutcome {
	status: ChildStatus;
	answer: string;
	error?: string;
	toolCalls: number;
	tokens: number;
	cost: number;
	sessionFile?: string;
	/** What the child's watchdog showed (its UI is not a person's: we keep the text for the result). */
	notices: string[];
}

/** Live controls of a running child (steer, interrupt, stop). */
export interface ChildControls {
	steer(message: string): Promise<void>;
	interrupt(): Promise<void>;
	stop(): Promise<void>;
}

export interface ChildHooks {
	signal?: AbortSignal;
	onProgress?(progress: ChildProgress): void;
	/** Called once the session exists, with its controls (for actions on runs). */
	onControls?(controls: ChildControls): void;
}

/** Runs the child to rest and returns what it did. Never throws: a failure is a `failed` outcome. */
export async function runChildSession(spec: ChildSpec, hooks: ChildHooks = {}): Promise<ChildOutcome> {
	const notices: string[] = [];
	let session: AgentSession | undefined;
	let ended: ChildStatus | undefined;
	const stopWith = (status: ChildStatus) => {
		ended ??= status;
		void session?.abort().catch(() => {});
	};
	const timer = setTimeout(() => stopWith("timed out"), spec.timeoutMs);
	timer.unref?.();
	const onAbort = () => stopWith("stopped");
	if (hooks.signal?.aborted) onAbort();
	hooks.signal?.addEventListener("abort", onAbort, { once: true });
	try {
		session = await openSession(spec, notices);
		if (ended) return outcome(session, ended, notices);
		const s = session;
		let interrupted = false;
		const steers = new Set<string>();
		hooks.onControls?.({
			steer: async (message) => {
				steers.add(message);
				await s.steer(message);
			},
			// Ends the current step only (below, the run goes on); a child at rest has no step to end.
			interrupt: async () => {
				if (!s.isStreaming) return;
				interrupted = true;
				await s.abort();
			},
			stop: async () => stopWith("stopped"),
		});
		let toolCount = 0;
		let tool: string | undefined;
		const unsubscribe = s.subscribe((event) => {
			if (event.type === "tool_execution_start") {
				toolCount++;
				tool = event.toolName;
			} else if (event.type !== "turn_end" && event.type !== "tool_execution_end") return;
			const stats = s.getSessionStats();
			hooks.onProgress?.({ tool, toolCount, tokens: stats.tokens.total, cost: stats.cost });
		});
		try {
			let next: string | undefined = spec.task;
			for (let first = true; next !== undefined && !ended; first = false) {
				interrupted = false;
				// What follows the task is text for the model as it is (a run still going takes it as a steer).
				await s.prompt(next, first ? {} : { expandPromptTemplates: false, streamingBehavior: "steer" });
				await s.waitForIdle();
				// An aborted run leaves Pi's agent idle: an interrupted child is given its next
				// instruction (the steers queued for it, else a continuation), so the run goes on.
				next = interrupted && !ended ? nextAfterInterrupt(s, steers) : undefined;
			}
		} finally {
			unsubscribe();
		}
		return outcome(s, ended ?? statusOfLastMessage(s), notices);
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return {
			...(session ? outcome(session, ended ?? "failed", notices) : emptyOutcome(ended ?? "failed", notices)),
			...(ended ? {} : { error: message }),
		};
	} finally {
		clearTimeout(timer);
		hooks.signal?.removeEventListener("abort", onAbort);
		if (session) await closeSession(session);
	}
}

async function openSession(spec: ChildSpec, notices: string[]): Promise<AgentSession> {
	const settingsManager = SettingsManager.create(spec.projectCwd, spec.agentDir, {
		projectTrusted: spec.projectTrusted,
	});
	const resourceLoader = new DefaultResourceLoader({
		cwd: spec.cwd,
		agentDir: spec.agentDir,
		settingsManager,
		// The user's own extensions (ours among them) are not rediscovered: the child gets ours as a child's.
		noExtensions: true,
		extensionFactories: [{ name: "pi-watchdog", factory: spec.watchdog }],
		additionalExtensionPaths: [...(spec.agent.extensions ?? []), ...(spec.agent.subagentOnlyExtensions ?? [])],
		// As text, never as a path to read: Pi would read a file whose path the body happens to be.
		appendSystemPromptOverride: (base) => (spec.agent.systemPrompt.trim() ? [...base, spec.agent.systemPrompt] : base),
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
	});
	await resourceLoader.reload();
	const loadErrors = resourceLoader.getExtensions().errors;
	if (loadErrors.length)
		throw new Error(
			`the agent's extensions failed to load: ${loadErrors.map((e) => `${e.path}: ${e.error}`).join("; ")}`,
		);
	// Beside the parent's session, or in the project's session folder (never one keyed by a worktree's path).
	const sessionDir = spec.sessionDir || SessionManager.create(spec.projectCwd).getSessionDir();
	const sessionManager = SessionManager.create(
		spec.cwd,
		sessionDir,
		spec.parentSessionFile ? { parentSession: spec.parentSessionFile } : undefined,
	);
	const { session } = await createAgentSession({
		cwd: spec.cwd,
		agentDir: spec.agentDir,
		modelRuntime: spec.modelRuntime,
		model: spec.model,
		thinkingLevel: spec.thinking,
		// The launcher settles the list (defaults, excludeTools, overrides); an empty one is no tools.
		tools: spec.agent.tools ?? DEFAULT_CHILD_TOOLS,
		resourceLoader,
		settingsManager,
		sessionManager,
	});
	await session.bindExtensions({
		mode: "rpc",
		uiContext: collectingUi(notices),
		onError: (e) => notices.push(`extension error: ${e.error}`),
	});
	return session;
}

/** Shutdown as Pi's own runtime does it: extensions hear `session_shutdown` (our LSP stops), then dispose. */
async function closeSession(session: AgentSession): Promise<void> {
	try {
		await Promise.race([
			session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" }),
			new Promise((r) => setTimeout(r, 5_000).unref?.()),
		]);
	} catch {
		// the child's extensions may fail on the way out; the session goes all the same
	}
	try {
		session.dispose();
	} catch {
		// already gone
	}
}

const INTERRUPTED = "[watchdog] Your parent interrupted your current step.";
const CARRY_ON =
	"Continue with your task from where you are (leave that step if it is no longer needed), " +
	"or, if the task is done, give your final result.";

/**
 * After an interrupt: the parent's steers that the aborted run took in but never answered, and
 * those still queued (taken off the queue), as its next instruction; else a continuation note.
 */
function nextAfterInterrupt(session: AgentSession, steers: Set<string>): string {
	const unanswered: string[] = [];
	for (const m of [...session.messages].reverse()) {
		if (m.role === "assistant" && (m as { stopReason?: string }).stopReason === "aborted") continue;
		const text = m.role === "user" ? contentText(m.content) : undefined;
		if (text === undefined || !steers.has(text)) break;
		unanswered.unshift(text);
	}
	const queued = session.clearQueue();
	const next = [...unanswered, ...queued.steering, ...queued.followUp].filter((t) => t.trim());
	if (!next.length) return `${INTERRUPTED} ${CARRY_ON}`;
	return `${INTERRUPTED} It asks you to do this next:\n\n${next.join("\n\n")}`;
}

function statusOfLastMessage(session: AgentSession): ChildStatus {
	const last = [...session.messages].reverse().find((m) => m.role === "assistant") as
		| { stopReason?: string }
		| undefined;
	if (last?.stopReason === "error") return "failed";
	if (last?.stopReason === "aborted") return "stopped";
	return "done";
}

function outcome(session: AgentSession, status: ChildStatus, notices: string[]): ChildOutcome {
	const stats = session.getSessionStats();
	const last = [...session.messages].reverse().find((m) => m.role === "assistant") as
		| { errorMessage?: string }
		| undefined;
	return {
		status,
		answer: session.getLastAssistantText() ?? "",
		...(status === "failed" && last?.errorMessage ? { error: last.errorMessage } : {}),
		toolCalls: stats.toolCalls,
		tokens: stats.tokens.total,
		cost: stats.cost,
		sessionFile: stats.sessionFile,
		notices,
	};
}

function emptyOutcome(status: ChildStatus, notices: string[]): ChildOutcome {
	return { status, answer: "", toolCalls: 0, tokens: 0, cost: 0, notices };
}

/** A child's UI: nobody is there; notices are kept for the result, every question is answered "no". */
function collectingUi(notices: string[]): ExtensionUIContext {
	const ui: Partial<ExtensionUIContext> = {
		notify: (message) => void notices.push(message),
		setStatus: () => undefined,
		confirm: async () => false,
		select: async () => undefined,
		input: async () => undefined,
		editor: async () => undefined,
	};
	return new Proxy(ui, {
		get: (target, prop) => (prop in target ? target[prop as keyof ExtensionUIContext] : () => undefined),
	}) as ExtensionUIContext;
}
