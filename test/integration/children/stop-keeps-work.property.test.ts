// Property: whenever the user stops a parallel launch (the parent's tool call aborted, as Esc
// does) and whatever the children were doing then (waiting on their model, writing, landing),
// every byte a child wrote is in the user's tree or in a patch the result names, which exists
// and applies to the user's tree. A real in-process Pi session, real child sessions, real git;
// only the models' replies (and how long they take) are scripted.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { git, makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { type Ctx, text, toolUse } from "../review/review-helpers.ts";

const firstUserText = (ctx: Ctx) => text(ctx.messages.find((m) => m.role === "user")?.content);
const toolResults = (ctx: Ctx) => ctx.messages.filter((m) => m.role === "toolResult").length;
const FILES_PER_CHILD = 3;
const fileOf = (child: number, step: number) => `c${child}/step-${step}.txt`;
const contentOf = (child: number, step: number) => `child ${child} wrote step ${step}\n`;

/** Resolves after `ms`, or at once when `signal` aborts. */
function later(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve) => {
		const timer = setTimeout(resolve, ms);
		signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
	});
}

/** The paths whose `write` ran without error, from a child's session file. */
function writesDone(sessionFile: string | undefined): Set<string> {
	const done = new Set<string>();
	if (!sessionFile || !existsSync(sessionFile)) return done;
	const messages = readFileSync(sessionFile, "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l))
		.filter((e) => e.type === "message")
		.map((e) => e.message);
	const calls = new Map<string, string>();
	for (const m of messages)
		if (m.role === "assistant")
			for (const c of m.content ?? [])
				if (c.type === "toolCall" && c.name === "write") calls.set(c.id, c.arguments?.path);
	for (const m of messages)
		if (m.role === "toolResult" && m.toolName === "write" && !m.isError && calls.has(m.toolCallId))
			done.add(calls.get(m.toolCallId) as string);
	return done;
}

/** Starts a launch of two writers, stops it after `abortAfterMs`, checks the property; returns how many writes ran. */
async function stopOnce(abortAfterMs: number, delays: number[]): Promise<number> {
	let writes = 0;
	const repo = makeGitRepo({ "README.md": "hi\n" });
	const t = await startSession({ cwd: repo });
	let childRequests = 0;
	const script = async (ctx: Ctx, options?: { signal?: AbortSignal }) => {
		const first = firstUserText(ctx);
		const child = /CHILD-(\d)/.exec(first)?.[1];
		if (!child)
			return toolResults(ctx)
				? fauxAssistantMessage("Stopped or done.")
				: toolUse("subagent", { tasks: [1, 2].map((n) => ({ agent: "worker", task: `CHILD-${n} write your files` })) });
		childRequests++;
		const n = Number(child);
		const step = toolResults(ctx);
		await later(delays[(n - 1) * (FILES_PER_CHILD + 1) + step], options?.signal);
		return step < FILES_PER_CHILD
			? toolUse("write", { path: fileOf(n, step), content: contentOf(n, step) })
			: fauxAssistantMessage(`child ${n} done`);
	};
	t.main.setResponses(Array.from({ length: 20 }, () => script as never));
	try {
		const prompt = t.session.prompt("PARENT: run two writers").catch(() => {});
		// Below zero: that long after the prompt, maybe before any child starts; else that long after the first child's first request.
		if (abortAfterMs < 0) await later(-abortAfterMs);
		else {
			for (let i = 0; i < 200 && childRequests === 0; i++) await later(100);
			await later(abortAfterMs);
		}
		await t.session.abort();
		await prompt;
		const runs = join(t.agentDir, "watchdog", "runs");
		const ids = existsSync(runs) ? readdirSync(runs) : [];
		if (ids.length === 0) {
			expect(childRequests).toBe(0); // stopped before the launch began: no child ran
			return 0;
		}
		const resultFile = join(runs, ids[0], "result.json");
		for (let i = 0; i < 300 && !existsSync(resultFile); i++) await later(100);
		const results = JSON.parse(readFileSync(resultFile, "utf8")).results as Array<{
			label: string;
			sessionFile?: string;
			landed?: { status: string; patchPath?: string };
		}>;
		for (const [i, r] of results.entries()) {
			const n = i + 1;
			const patch = r.landed?.patchPath;
			if (r.landed?.status === "conflict") {
				expect(patch && existsSync(patch)).toBe(true);
				git(repo, "apply", "--check", patch as string);
			}
			const patchText = patch && existsSync(patch) ? readFileSync(patch, "utf8") : "";
			for (const path of writesDone(r.sessionFile)) {
				writes++;
				const step = Number(/step-(\d)/.exec(path)?.[1]);
				const inTree = existsSync(join(repo, path)) && readFileSync(join(repo, path), "utf8") === contentOf(n, step);
				expect(inTree || patchText.includes(`+${contentOf(n, step).trim()}`), `${r.label}: ${path}`).toBe(true);
			}
		}
		// Nothing is left behind: every worktree is gone once its change landed or was saved.
		expect(git(repo, "worktree", "list").trim().split("\n")).toHaveLength(1);
		return writes;
	} finally {
		await t.dispose();
	}
}

describe("stopping a parallel launch at any moment", () => {
	it("keeps every byte the children wrote, in the user's tree or in a named patch that applies", async () => {
		let writesSeen = 0;
		const delays = fc.array(fc.integer({ min: 0, max: 400 }), {
			minLength: 2 * (FILES_PER_CHILD + 1),
			maxLength: 2 * (FILES_PER_CHILD + 1),
		});
		await fc.assert(
			fc.asyncProperty(fc.integer({ min: -400, max: 1500 }), delays, async (abortAfterMs, d) => {
				writesSeen += await stopOnce(abortAfterMs, d);
			}),
			{ numRuns: 6 },
		);
		// The stops fell while children were writing, not only before they began.
		expect(writesSeen).toBeGreaterThan(0);
	}, 300_000);
});
