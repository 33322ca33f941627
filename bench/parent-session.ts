// The parent of the launch benchmarks: a Pi session in this process with our extension loaded
// from its file (as Pi loads it), on a model from the agent folder's models.json. Pi's package
// is imported here, after the bench has set PI_CODING_AGENT_DIR.
import { join } from "node:path";
import type { AgentSession } from "@earendil-works/pi-coding-agent";

export interface ParentSession {
	session: AgentSession;
	/** Extension errors so far (a launch is checked against them). */
	errors: unknown[];
	dispose(): Promise<void>;
}

export async function openParentSession(options: {
	agentDir: string;
	repo: string;
	extensionPath: string;
	/** The parent's model, a `local` one from models.json. */
	model: string;
	tools: string[];
}): Promise<ParentSession> {
	const { agentDir, repo } = options;
	const { createAgentSession, DefaultResourceLoader, ModelRegistry, ModelRuntime, SessionManager, SettingsManager } =
		await import("@earendil-works/pi-coding-agent");
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: join(agentDir, "models.json"),
		allowModelNetwork: false,
		refreshOnCreate: false,
	});
	await modelRuntime.refresh({ allowNetwork: false });
	const model = new ModelRegistry(modelRuntime).find("local", options.model);
	if (!model) throw new Error("the local provider from models.json is not known to the model runtime");
	const settingsManager = SettingsManager.create(repo, agentDir, { projectTrusted: true });
	const resourceLoader = new DefaultResourceLoader({
		cwd: repo,
		agentDir,
		settingsManager,
		noExtensions: true,
		additionalExtensionPaths: [options.extensionPath],
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
	});
	await resourceLoader.reload();
	const loadErrors = resourceLoader.getExtensions().errors;
	if (loadErrors.length) throw new Error(`extension failed to load: ${JSON.stringify(loadErrors)}`);
	const { session } = await createAgentSession({
		cwd: repo,
		agentDir,
		modelRuntime,
		model,
		thinkingLevel: "off",
		tools: options.tools,
		resourceLoader,
		settingsManager,
		sessionManager: SessionManager.inMemory(repo),
	});
	const errors: unknown[] = [];
	await session.bindExtensions({
		mode: "rpc",
		uiContext: new Proxy({}, { get: () => () => undefined }) as never,
		onError: (e) => errors.push(e),
	});
	return {
		session,
		errors,
		dispose: async () => {
			await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
			session.dispose();
		},
	};
}
