// Print mode must not end before the verification of a child that stopped: through the real
// `pi -p`, with the verifier's model answering slowly, the process exits only after that
// answer, stderr carries the verification's line, and the report holds it. (A verification
// still in flight when Pi shuts down is awaited by the headless step: test/unit/headless.)
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import {
	type ChatRequest,
	type Reply,
	type ScriptedServer,
	startScriptedServer,
	textOf,
} from "../../support/openai-server.ts";
import { REPO_ROOT, runPi, writeModelsJson } from "../../support/pi-cli.ts";
import { QUIET_PI_SETTINGS } from "../../support/pi-session.ts";
import { userSettingsPath, wd, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const EXTENSION = resolve(REPO_ROOT, "index.ts");
// Long enough that an exit which did not wait would come well before it.
const SLOW_MS = 2500;
const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);
const steps = (r: ChatRequest) => r.messages.filter((m) => m.role === "tool").length;

let server: ScriptedServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

it("does not exit before a stopped child's slow verification has answered, and reports it", async () => {
	let verifyAskedAt = 0;
	server = await startScriptedServer((request): Reply => {
		const task = firstUser(request);
		if (task.startsWith("Verify the stopped children")) {
			verifyAskedAt = Date.now();
			return { after: SLOW_MS, reply: { text: "No verdict to add." } };
		}
		// The child writes a file and claims the feature without running anything: only a model can judge that.
		if (task.startsWith("IMPL"))
			return [
				{ toolCalls: [{ name: "write", args: { path: "feature.txt", content: "feature\n" } }] },
				{ text: "Implemented the feature in feature.txt." },
			][steps(request)] as Reply;
		if (request.model === "reviewer") return { text: "clean" };
		if (steps(request) === 0)
			return { toolCalls: [{ name: "subagent", args: { agent: "worker", task: "IMPL the feature" } }] };
		return { text: "The worker is done." };
	});
	const agentDir = tempDir();
	writeModelsJson(agentDir, server.baseUrl, [{ id: "main" }, { id: "reviewer" }]);
	writeJson(userSettingsPath(agentDir), {
		defaultProvider: "local",
		defaultModel: "main",
		...QUIET_PI_SETTINGS,
		...wd({ enabled: true, lsp: { enabled: false }, main: { model: "local/reviewer" } }),
	});
	const repo = makeGitRepo({ "README.md": "a repo\n" });
	const report = join(tempDir(), "watchdog.json");
	const args = ["-p", "--no-session", "-e", EXTENSION, "--tools", "read,bash,edit,write,subagent"];
	const ran = await runPi([...args, "--watchdog-report", report, "Have a worker implement the feature"], {
		cwd: repo,
		agentDir,
		timeoutMs: 90_000,
	});
	const exitedAt = Date.now();
	expect(ran.stdout.trim()).toBe("The worker is done.");
	expect(verifyAskedAt).toBeGreaterThan(0);
	// It did not exit before the slow verification answered.
	expect(exitedAt - verifyAskedAt).toBeGreaterThanOrEqual(SLOW_MS - 200);
	expect(ran.stderr).toMatch(/Watchdog verified 1 stopped child \[\w+\]: worker unverified .*the model review gave no/);
	const json = JSON.parse(readFileSync(report, "utf8"));
	expect(json.children).toHaveLength(1);
	expect(json.children[0].children).toEqual([expect.objectContaining({ label: expect.stringMatching(/worker/) })]);
});
