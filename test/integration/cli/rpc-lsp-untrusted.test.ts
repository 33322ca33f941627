// Through the real `pi` CLI in RPC mode: a repository that commits its own language server and
// TypeScript, opened without trusting it. The agent's edit is still checked (by the bundled
// server) and its type error reaches the agent; the repository's code never runs.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, textOf } from "../../support/openai-server.ts";
import { startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";
import { armFakeServer, fakeServerFiles, fakeTypeScriptFiles } from "../lsp/repository-code.ts";

const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, include: ["src"] });

/** The agent breaks src/a.ts; told of the type error, it says it will fix it. */
const script = (req: ChatRequest) => {
	if (req.model === "reviewer") return { text: "clean" };
	const last = req.messages.at(-1);
	if (last?.role === "tool") return { text: "done" };
	if (textOf(last?.content).includes("Type error")) return { text: "I will fix a.ts." };
	return { toolCalls: [{ name: "write", args: { path: "src/a.ts", content: 'export const a: number = "one";\n' } }] };
};

it("never runs an untrusted repository's own server or TypeScript, and the LSP finding still arrives", async () => {
	const marker = join(tempDir("pi-watchdog-marker-"), "ran");
	const repo = makeGitRepo({
		"tsconfig.json": TSCONFIG,
		"src/a.ts": "export const a: number = 1;\n",
		// A project file makes Pi ask about trust; RPC has no one to answer, so the project is untrusted.
		".pi/settings.json": "{}\n",
		...fakeServerFiles(marker),
		...fakeTypeScriptFiles(marker),
	});
	armFakeServer(repo);
	const cli = await startCli({
		cwd: repo,
		script,
		lsp: true,
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" } }),
	});
	try {
		await cli.run("change a", 60_000);
		const continuation = cli.server.requests.filter((r) => r.model === "main").at(-1);
		expect(textOf(continuation?.messages.at(-1)?.content)).toMatch(
			/Type error at src\/a\.ts:1:14: Type 'string' is not assignable to type 'number'/,
		);
		expect(await cli.client.getLastAssistantText()).toBe("I will fix a.ts.");
		const status = (await cli.run("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
		expect(status).toMatch(/project not trusted/);
		expect(status).toMatch(
			/server: .*\(version \d+\.\d+\.\d+, bundled: the project is not trusted, so its own node_modules\/\.bin server is not used\)/,
		);
		expect(status).toMatch(
			/TypeScript: \d+\.\d+\.\d+, bundled: the project is not trusted, so its own TypeScript is never loaded/,
		);
		expect(existsSync(marker)).toBe(false);
	} finally {
		await cli.stop();
	}
});

it("does not run a repository's own server when Pi trusts the project only because it has no project files", async () => {
	// No .pi folder: Pi calls the project trusted without asking anyone. Nobody decided to run its code.
	const marker = join(tempDir("pi-watchdog-marker-"), "ran");
	const repo = makeGitRepo({
		"tsconfig.json": TSCONFIG,
		"src/a.ts": "export const a: number = 1;\n",
		...fakeServerFiles(marker),
		...fakeTypeScriptFiles(marker),
	});
	armFakeServer(repo);
	const cli = await startCli({
		cwd: repo,
		script,
		lsp: true,
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" } }),
	});
	try {
		await cli.run("change a", 60_000);
		expect(await cli.client.getLastAssistantText()).toBe("I will fix a.ts.");
		expect(existsSync(marker)).toBe(false);
	} finally {
		await cli.stop();
	}
	// With --approve the user has decided: the repository's own server runs.
	writeFileSync(join(repo, "src/a.ts"), "export const a: number = 1;\n");
	const approved = await startCli({
		cwd: repo,
		script,
		lsp: true,
		userSettings: wd({ enabled: true, main: { model: "local/reviewer" } }),
		args: ["--approve"],
	});
	try {
		await approved.run("change a again", 60_000);
		expect(existsSync(marker)).toBe(true);
	} finally {
		await approved.stop();
	}
});
