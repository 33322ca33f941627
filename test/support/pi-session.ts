// An in-process Pi session on the real runtime: pi-ai's faux provider stands in for the
// models (a main model and a separate reviewer model), our extension is loaded from its file
// path by Pi's own loader, and agentDir and cwd are temp folders.
import { join, resolve } from "node:path";
import { type FauxModelDefinition, type FauxProviderHandle, fauxProvider, type Provider } from "@earendil-works/pi-ai";
import {
	type AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	type ExtensionFactory,
	type ExtensionUIContext,
	ModelRegistry,
	ModelRuntime,
	ProjectTrustStore,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { projectSettingsPath, userSettingsPath, withLspOff, writeJson } from "./settings-files.ts";
import { tempDir } from "./temp.ts";

export const EXTENSION_PATH = resolve(import.meta.dirname, "../../src/extension.ts");

export interface Notice {
	message: string;
	level?: string;
}

/**
 * The text of every tool result a scripted model step is shown: a step calls `capture` with its context, and the
 * last message, when it is a tool result, is added to `results`.
 */
export function toolResultTexts(): {
	results: string[];
	capture: (context: { messages: Array<{ role: string; content: unknown }> }) => void;
} {
	const results: string[] = [];
	const capture = (context: { messages: Array<{ role: string; content: unknown }> }) => {
		const last = context.messages.at(-1);
		if (last?.role === "toolResult")
			results.push((last.content as Array<{ text?: string }>).map((c) => c.text ?? "").join(""));
	};
	return { results, capture };
}

/** What notices say, one message a line (as a command's output reads). */
export const noticeText = (notices: Array<{ message: string }>) => notices.map((n) => n.message).join("\n");

export interface SessionOptions {
	/** The user's `<agentDir>/settings.json` (merged over quiet test defaults). */
	userSettings?: Record<string, unknown>;
	/** `<cwd>/.pi/settings.json`, written as is (a string is written verbatim). */
	projectSettings?: Record<string, unknown> | string;
	/**
	 * Write userSettings as given, the LSP pre-pass at its default (on). Otherwise they get
	 * `lsp.enabled: false` unless they name `lsp`.
	 */
	lsp?: boolean;
	/** Raw text for the user settings file (for malformed-file tests). */
	userSettingsText?: string;
	trusted?: boolean;
	cwd?: string;
	agentDir?: string;
	/** More faux providers, e.g. to give the recommendation real model names. */
	extraProviders?: Array<{ provider: string; models: FauxModelDefinition[] }>;
	mainModel?: FauxModelDefinition;
	/** Tools the main model may call (extension tools must be named too). */
	tools?: string[];
	sessionManager?: SessionManager;
	/** The mode extensions see: "rpc" (default), or "tui" for a session where a person can be asked. */
	mode?: "rpc" | "tui";
	/** How the UI answers `confirm` dialogs: a fixed answer or a function (default: no). */
	confirm?: boolean | ((title: string, message: string) => boolean);
	/** How the UI answers `select` dialogs: the option to pick (default: none, as Escape). */
	select?: (title: string, options: string[]) => string | undefined;
	/** Load this factory instead of src/extension.ts by path (e.g. createWatchdogExtension with options). */
	extension?: ExtensionFactory;
	/** Load this file by path instead of src/extension.ts (the package's index.ts: the bundle when it is built). */
	extensionPath?: string;
	/** UI calls that behave otherwise than the recording UI's (e.g. one that throws). */
	ui?: Partial<ExtensionUIContext>;
	/** Providers registered on the runtime as they are (a classifier provider, …). */
	nativeProviders?: Provider[];
	/** Extensions loaded besides ours (Pi's `createCodemodeExtension()`, …). */
	moreExtensions?: ExtensionFactory[];
	/** Extension flag values, as Pi sets them from its command line (`--watchdog-report`). */
	flags?: Record<string, boolean | string>;
}

export interface Dialog {
	title: string;
	message: string;
}

export interface TestSession {
	session: AgentSession;
	main: FauxProviderHandle;
	reviewer: FauxProviderHandle;
	extra: FauxProviderHandle[];
	/** The same model registry the extension sees. */
	registry: ModelRegistry;
	cwd: string;
	agentDir: string;
	notices: Notice[];
	statuses: Map<string, string | undefined>;
	/** Every `confirm` dialog the extension opened, in order. */
	confirms: Dialog[];
	/** Every `select` dialog the extension opened, in order. */
	selects: Array<{ title: string; options: string[] }>;
	/** Runs a slash command and returns the notices it produced. */
	command(text: string): Promise<Notice[]>;
	dispose(): Promise<void>;
}

export const QUIET_PI_SETTINGS = { retry: { enabled: false }, compaction: { enabled: false } };

export async function startSession(options: SessionOptions = {}): Promise<TestSession> {
	const cwd = options.cwd ?? tempDir("pi-watchdog-cwd-");
	const agentDir = options.agentDir ?? tempDir("pi-watchdog-agent-");
	// The extension finds Pi's agent folder the way Pi does: through the environment.
	process.env.PI_CODING_AGENT_DIR = agentDir;
	process.env.PI_OFFLINE = "1";
	if (options.userSettingsText !== undefined) writeJson(userSettingsPath(agentDir), options.userSettingsText);
	else {
		const settings = { ...QUIET_PI_SETTINGS, ...options.userSettings };
		writeJson(userSettingsPath(agentDir), options.lsp ? settings : withLspOff(settings));
	}
	if (options.projectSettings !== undefined) writeJson(projectSettingsPath(cwd), options.projectSettings);

	const main = fauxProvider({ provider: "faux", models: [options.mainModel ?? { id: "main-model", reasoning: true }] });
	const reviewer = fauxProvider({ provider: "faux-reviewer", models: [{ id: "reviewer-model", reasoning: true }] });
	const extra = (options.extraProviders ?? []).map((p) => fauxProvider(p));
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: null,
		allowModelNetwork: false,
		refreshOnCreate: false,
	});
	for (const p of [main, reviewer, ...extra]) modelRuntime.registerNativeProvider(p.provider);
	for (const p of options.nativeProviders ?? []) modelRuntime.registerNativeProvider(p);
	await modelRuntime.refresh({ allowNetwork: false });

	const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted: options.trusted ?? true });
	// A trusted test project is one the user decided to trust, as with /trust.
	if (options.trusted !== false) new ProjectTrustStore(agentDir).set(cwd, true);
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		noExtensions: true,
		extensionFactories: [
			...(options.extension ? [{ name: "watchdog", factory: options.extension }] : []),
			...(options.moreExtensions ?? []).map((factory, i) => ({ name: `more-${i}`, factory })),
		],
		...(options.extension ? {} : { additionalExtensionPaths: [options.extensionPath ?? EXTENSION_PATH] }),
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await resourceLoader.reload();
	const loadErrors = resourceLoader.getExtensions().errors;
	if (loadErrors.length) throw new Error(`extension failed to load: ${JSON.stringify(loadErrors)}`);
	for (const [name, value] of Object.entries(options.flags ?? {}))
		resourceLoader.getExtensions().runtime.flagValues.set(name, value);

	const { session } = await createAgentSession({
		cwd,
		agentDir,
		modelRuntime,
		model: main.getModel(),
		thinkingLevel: "off",
		tools: options.tools ?? ["read", "write", "edit", "bash", "subagent"],
		resourceLoader,
		settingsManager,
		sessionManager: options.sessionManager ?? SessionManager.inMemory(cwd),
	});
	const notices: Notice[] = [];
	const statuses = new Map<string, string | undefined>();
	const confirms: Dialog[] = [];
	const answer = options.confirm ?? false;
	const confirm = (title: string, message: string) => (
		confirms.push({ title, message }), typeof answer === "function" ? answer(title, message) : answer
	);
	const selects: TestSession["selects"] = [];
	const select = async (title: string, choices: string[]) => (
		selects.push({ title, options: choices }), options.select?.(title, choices)
	);
	const errors: unknown[] = [];
	await session.bindExtensions({
		mode: options.mode ?? "rpc",
		uiContext: recordingUi(notices, statuses, confirm, { select, ...options.ui }),
		onError: (e) => errors.push(e),
	});
	if (errors.length) throw new Error(`extension error at start: ${JSON.stringify(errors)}`);

	return {
		session,
		main,
		reviewer,
		extra,
		registry: new ModelRegistry(modelRuntime),
		cwd,
		agentDir,
		notices,
		statuses,
		confirms,
		selects,
		async command(text) {
			const before = notices.length;
			await session.prompt(text);
			return notices.slice(before);
		},
		async dispose() {
			await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
			session.dispose();
		},
	};
}

/** A UI that records what the extension shows; `confirm` answers as told, every other dialog with "no". */
function recordingUi(
	notices: Notice[],
	statuses: Map<string, string | undefined>,
	confirm: (title: string, message: string) => boolean,
	overrides: Partial<ExtensionUIContext> = {},
): ExtensionUIContext {
	const ui: Partial<ExtensionUIContext> = {
		notify: (message, level) => void notices.push({ message, level }),
		setStatus: (key, text) => void statuses.set(key, text),
		select: async () => undefined,
		confirm: async (title, message) => confirm(title, message),
		input: async () => undefined,
		editor: async () => undefined,
		...overrides,
	};
	return new Proxy(ui, {
		get: (target, prop) => (prop in target ? target[prop as keyof ExtensionUIContext] : () => undefined),
	}) as ExtensionUIContext;
}
