// The harness later tests build on: temp git repositories and the scripted model server.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { git, makeGitRepo, writeFiles } from "../support/git.ts";
import { startScriptedServer } from "../support/openai-server.ts";
import { startSession } from "../support/pi-session.ts";

it("makes a real git repository with one commit and a clean tree", () => {
	const repo = makeGitRepo({ "src/a.ts": "export const a = 1;\n" });
	expect(existsSync(join(repo, ".git"))).toBe(true);
	expect(git(repo, "rev-list", "--count", "HEAD").trim()).toBe("1");
	expect(git(repo, "status", "--porcelain")).toBe("");
	writeFiles(repo, { "src/b.ts": "export const b = 2;\n" });
	expect(git(repo, "status", "--porcelain")).toContain("?? src/b.ts");
});

it("runs a session in a git repository with separate main and reviewer models", async () => {
	const repo = makeGitRepo();
	const t = await startSession({ cwd: repo });
	try {
		expect(t.cwd).toBe(repo);
		expect(t.main.getModel().provider).not.toBe(t.reviewer.getModel().provider);
		expect(t.registry.find("faux-reviewer", "reviewer-model")).toBeDefined();
	} finally {
		await t.dispose();
	}
});

it("serves scripted replies and records every request", async () => {
	const server = await startScriptedServer((req, i) =>
		i === 0 ? { toolCalls: [{ name: "read", args: { path: "x" } }] } : { status: 429, error: `slow down ${req.model}` },
	);
	try {
		const post = (body: unknown) =>
			fetch(`${server.baseUrl}/chat/completions`, {
				method: "POST",
				body: JSON.stringify(body),
				headers: { authorization: "Bearer k" },
			});
		const first = await (await post({ model: "m", messages: [{ role: "user", content: "hi" }] })).text();
		expect(first).toContain('"name":"read"');
		expect(first).toContain("[DONE]");
		const second = await post({ model: "m", messages: [] });
		expect(second.status).toBe(429);
		expect(await second.text()).toContain("slow down m");
		expect(server.requests.map((r) => r.authorization)).toEqual(["Bearer k", "Bearer k"]);
	} finally {
		await server.close();
	}
});
