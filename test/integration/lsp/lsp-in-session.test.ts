// The LSP pre-pass inside a real Pi session: its findings reach the agent without a model
// call, the reviewer gets the diagnostics too, the session's end leaves no process, and an
// untrusted project's own server and TypeScript never run.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { expect, it, vi } from "vitest";
import { textOf as text } from "../../support/openai-server.ts";
import { groupMembers } from "../../../src/lsp/process-tree.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";
import { armFakeServer, FAKE_SERVER, fakeServerFiles, fakeTypeScriptFiles } from "./repository-code.ts";

const TSCONFIG = JSON.stringify({
	compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler" },
	include: ["src"],
});
type Ctx = { messages: Array<{ role: string; content: unknown }> };

it("sends a new type error to the agent even when the model review fails, and leaves no process at session end", async () => {
	const repo = makeGitRepo({
		"tsconfig.json": TSCONFIG,
		"src/total.ts": "export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);\n",
		"src/use.ts": 'import { total } from "./total";\nexport const t: number = total([1, 2]);\n',
	});
	// The reviewer model does not exist: only the LSP can speak, and it needs no model.
	const t = await startSession({
		cwd: repo,
		lsp: true,
		userSettings: wd({ enabled: true, main: { model: "nosuch/model" } }),
	});
	let continuation = "";
	t.main.setResponses([
		fauxAssistantMessage(
			[
				fauxToolCall("write", {
					path: "src/total.ts",
					content: "export const total = (xs: number[]): string => String(xs.length);\n",
				}),
			],
			{ stopReason: "toolUse" },
		),
		fauxAssistantMessage("Changed total."),
		(ctx) => (
			(continuation = (ctx as Ctx).messages.map((m) => text(m.content)).join("\n")),
			fauxAssistantMessage("I will fix use.ts.")
		),
	]);
	try {
		await t.session.prompt("make total return a string");
		await t.session.waitForIdle();
		expect(continuation).toMatch(/Type error at src\/use\.ts:2:14: Type 'string' is not assignable to type 'number'/);
		expect(t.notices.some((n) => /review failed \(unknown-model\)/.test(n.message))).toBe(true);
		const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
		expect(status).toMatch(/LSP:\n\s+state: warm \(pid \d+/);
		expect(status).toMatch(
			/server: .*typescript-language-server\/lib\/cli\.mjs \(version \d+\.\d+\.\d+, bundled: the project is trusted but has no node_modules\/\.bin server of its own\)/,
		);
		expect(status).toMatch(
			/TypeScript: \d+\.\d+\.\d+, bundled: the project is trusted but has no TypeScript of its own/,
		);
		// The failed review's paths stay pending, so the continuation's settle checks them again: nothing new then.
		expect(status).toMatch(/last check: 1 error\(s\), 0 warning\(s\) in 2 file\(s\); \d new, \d+ ms/);
		expect(status).toMatch(/Pending: 1 path\(s\), review failed \(unknown-model\): src\/total\.ts/);
		const pid = Number(/pid (\d+)/.exec(status)?.[1]);
		expect(groupMembers(pid).length).toBeGreaterThan(0);
		await t.dispose();
		expect(groupMembers(pid)).toEqual([]);
	} finally {
		await t.dispose().catch(() => {});
	}
});

it("hands the diagnostics to the reviewer", async () => {
	const repo = makeGitRepo({ "tsconfig.json": TSCONFIG, "src/a.ts": "export const a: number = 1;\n" });
	const t = await startSession({
		cwd: repo,
		lsp: true,
		userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" } }),
	});
	let input = "";
	t.main.setResponses([
		fauxAssistantMessage([fauxToolCall("write", { path: "src/a.ts", content: 'export const a: number = "1";\n' })], {
			stopReason: "toolUse",
		}),
		fauxAssistantMessage("done"),
		fauxAssistantMessage("fixing"),
	]);
	t.reviewer.setResponses([
		(ctx) => (
			(input = text((ctx as Ctx).messages.find((m) => m.role === "user")?.content)), fauxAssistantMessage("clean")
		),
	]);
	try {
		await t.session.prompt("change a");
		await t.session.waitForIdle();
		// The signals may sit inside a data frame (a <<<DATA …>>> line first).
		expect(input).toMatch(
			/## Deterministic signals\n(?:<<<DATA [^\n]*\n)?LSP \(typescript-language-server\), 1 file\(s\) checked:\nerror src\/a\.ts:1:14 TS2322: Type 'string' is not assignable to type 'number'\./,
		);
	} finally {
		await t.dispose();
	}
});

it("runs the bundled server, never the repository's, in a session whose project is not trusted", async () => {
	const marker = join(tempDir("pi-watchdog-marker-"), "ran");
	const repo = makeGitRepo({
		"tsconfig.json": TSCONFIG,
		"src/a.ts": "export const a: number = 1;\n",
		...fakeServerFiles(marker),
		...fakeTypeScriptFiles(marker),
	});
	armFakeServer(repo);
	const t = await startSession({
		cwd: repo,
		lsp: true,
		trusted: false,
		userSettings: wd({ enabled: true, main: { model: "nosuch/model" } }),
	});
	let continuation = "";
	t.main.setResponses([
		fauxAssistantMessage([fauxToolCall("write", { path: "src/a.ts", content: 'export const a: number = "1";\n' })], {
			stopReason: "toolUse",
		}),
		fauxAssistantMessage("done"),
		(ctx) => (
			(continuation = (ctx as Ctx).messages.map((m) => text(m.content)).join("\n")), fauxAssistantMessage("fixing")
		),
	]);
	try {
		await t.session.prompt("change a");
		await t.session.waitForIdle();
		expect(continuation).toMatch(/Type error at src\/a\.ts:1:14/);
		const status = (await t.command("/subagents-watchdog status --settings")).map((n) => n.message).join("\n");
		expect(status).toMatch(
			/server: .*\(version \d+\.\d+\.\d+, bundled: the project is not trusted, so its own node_modules\/\.bin server is not used\)/,
		);
		expect(status).toMatch(
			/TypeScript: \d+\.\d+\.\d+, bundled: the project is not trusted, so its own TypeScript is never loaded/,
		);
		expect(existsSync(marker)).toBe(false);
	} finally {
		await t.dispose();
	}
});

it("never reports a type check that did not run as clean: the footer and a finding for the user say it was skipped", async () => {
	// A trusted project's own server that dies at once: the check cannot run, and is retried once.
	const repo = makeGitRepo({
		"tsconfig.json": TSCONFIG,
		"src/a.ts": "export const a: number = 1;\n",
		[FAKE_SERVER]: "#!/bin/sh\nexit 3\n",
	});
	armFakeServer(repo);
	const t = await startSession({
		cwd: repo,
		lsp: true,
		userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" } }),
	});
	let reviewerInput = "";
	t.main.setResponses([
		fauxAssistantMessage([fauxToolCall("write", { path: "src/a.ts", content: 'export const a: number = "1";\n' })], {
			stopReason: "toolUse",
		}),
		fauxAssistantMessage("done"),
	]);
	t.reviewer.setResponses([
		(ctx) => (
			(reviewerInput = (ctx as Ctx).messages.map((m) => text(m.content)).join("\n")),
			fauxAssistantMessage("Looks fine.")
		),
	]);
	try {
		await t.session.prompt("change a");
		await t.session.waitForIdle();
		expect(t.statuses.get("watchdog")).toMatch(/^watchdog: .*type check skipped: /);
		expect(t.statuses.get("watchdog")).not.toMatch(/clean/);
		expect(reviewerInput).toMatch(/The type check did not run \(/);
		const status = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
		expect(status).toMatch(/\(shown to you\) \[lsp\] Type check skipped: /);
	} finally {
		await t.dispose();
	}
});

it("starts the language server at session start in a TypeScript project, and says in status when it stops", async () => {
	const repo = makeGitRepo({ "tsconfig.json": TSCONFIG, "src/a.ts": "export const a: number = 1;\n" });
	const t = await startSession({
		cwd: repo,
		lsp: true,
		userSettings: wd({ enabled: true, main: { model: "faux-reviewer/reviewer-model" }, lsp: { idleMs: 90_000 } }),
	});
	try {
		// Warm before any run; the start is in the background, so look until it is (bounded by the test's timeout).
		await vi.waitFor(
			async () => {
				const brief = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
				expect(brief).toMatch(/LSP: warm \(stops after 90 s idle\), bundled server /);
			},
			{ timeout: 45_000, interval: 250 },
		);
		const brief = (await t.command("/subagents-watchdog status")).map((n) => n.message).join("\n");
		expect(brief).toMatch(/LSP: warm \(stops after 90 s idle\), bundled server /);
		const all = (await t.command("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
		expect(all).toContain("stops after 90 s without a check (lsp.idleMs)");
	} finally {
		await t.dispose();
	}
});
