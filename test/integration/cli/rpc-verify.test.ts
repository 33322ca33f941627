// Stopped-subtree verification through the real `pi` CLI in RPC mode against the scripted
// server: a background child (its detached runner) and a foreground child of one parent
// prompt are verified once both have stopped; a background stop seen twice (by `wait` and by
// its completion message) is reviewed once.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { tempDir } from "../../support/temp.ts";

const firstUser = (r: ChatRequest) => textOf(r.messages.find((m) => m.role === "user")?.content);
const toolResults = (r: ChatRequest) => r.messages.filter((m) => m.role === "tool");
const allText = (r: ChatRequest) => r.messages.map((m) => textOf(m.content)).join("\n");
const REPO = {
	"package.json": `${JSON.stringify({ name: "t", private: true, scripts: { test: "node -e \"console.log('1 passed')\"" } })}\n`,
};

const SETTINGS = {
	subagents: { watchdog: { enabled: true, main: { model: "local/reviewer" }, lsp: { enabled: false } } },
};

/** The background child's first step lasts until this file exists (30 s at most): the test says when it may go on. */
let bgGate = "";

function child(request: ChatRequest): Reply | undefined {
	const task = firstUser(request);
	const step = toolResults(request).length;
	if (task.startsWith("BG-CLAIM"))
		return [
			{
				toolCalls: [
					{ name: "bash", args: { command: `for i in $(seq 1 300); do [ -f '${bgGate}' ] && break; sleep 0.1; done` } },
				],
			},
			{ toolCalls: [{ name: "write", args: { path: "bg.txt", content: "bg\n" } }] },
			{ text: "Wrote bg.txt. All tests pass." },
		][step] as Reply;
	if (task.startsWith("FG-GOOD"))
		return [
			{ toolCalls: [{ name: "write", args: { path: "fg.txt", content: "fg\n" } }] },
			{ toolCalls: [{ name: "bash", args: { command: "npm test" } }] },
			{ text: "Wrote fg.txt; `npm test` passed." },
		][step] as Reply;
	return undefined;
}

describe("stopped-subtree verification through pi --mode rpc", () => {
	let cli: CliSession | undefined;
	afterEach(async () => {
		await cli?.stop().catch(() => {});
		cli = undefined;
	});
	const verifyRequests = (c: CliSession) =>
		c.server.requests.filter((r) => firstUser(r).startsWith("Verify the stopped children"));
	const entries = async (c: CliSession) => (await c.client.getEntries()).entries as any[];
	const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 40_000) => {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (await check()) return;
			await new Promise((r) => setTimeout(r, 150));
		}
		throw new Error(`timed out waiting for ${what}`);
	};

	it("verifies a background and a foreground child of one prompt once both have stopped, and tells the parent about the unproven claim", async () => {
		const parentAfter: string[] = [];
		bgGate = join(tempDir(), "fg-ended");
		const script = (request: ChatRequest): Reply => {
			const c = child(request);
			if (c) return c;
			if (firstUser(request).startsWith("Verify the stopped children")) return { text: "nothing to add" };
			if (request.model === "reviewer") return { text: "clean" };
			const step = toolResults(request).length;
			if (step === 0)
				return {
					toolCalls: [{ name: "subagent", args: { agent: "worker", task: "BG-CLAIM write bg.txt", async: true } }],
				};
			if (step === 1)
				return { toolCalls: [{ name: "subagent", args: { agent: "worker", task: "FG-GOOD write fg.txt" } }] };
			// the foreground launch has returned: only now may the background child end
			writeFileSync(bgGate, "");
			parentAfter.push(allText(request));
			return { text: "noted" };
		};
		cli = await startCli({
			script,
			cwd: makeGitRepo(REPO),
			userSettings: SETTINGS,
			args: ["--tools", "read,bash,edit,write,subagent"],
		});
		const c = cli;
		await c.run("Launch the two workers", 60_000);
		// the foreground child ended while the background one ran: no verification yet
		await until("the verification", async () =>
			(await entries(c)).some((e) => e.customType === "watchdog-verification"),
		);
		await until("the parent's answer to it", async () =>
			parentAfter.some((t) => t.includes("The watchdog verified the child agents")),
		);
		await new Promise((r) => setTimeout(r, 1500));
		const verifications = (await entries(c)).filter((e) => e.customType === "watchdog-verification");
		expect(verifications).toHaveLength(1);
		expect(verifications[0].data).toMatchObject({ outcome: "problems", via: "completion" });
		expect(verifications[0].data.children).toHaveLength(2);
		expect(verifications[0].data.verdicts.split(", ").sort()).toEqual(["worker genuine", "worker unproven"]);
		const told = parentAfter.find((t) => t.includes("The watchdog verified the child agents")) as string;
		expect(told).toMatch(/worker \(run \S+\): claim not backed by its own log: "All tests pass\."/);
		expect(told).toMatch(/background run/);
		expect(told).toMatch(
			/Re-run worker with this instruction \(its background run has ended, so steer no longer reaches it/,
		);
		expect(told).toMatch(/"async":true/);
		expect(verifyRequests(c)).toHaveLength(0);
	});

	it("reviews a background stop once when both `wait` and the completion message see it", async () => {
		bgGate = join(tempDir(), "open");
		writeFileSync(bgGate, "");
		const script = (request: ChatRequest): Reply => {
			const c = child(request);
			if (c) return c;
			if (request.model === "reviewer") return { text: "clean" };
			const step = toolResults(request).length;
			if (step === 0)
				return {
					toolCalls: [{ name: "subagent", args: { agent: "worker", task: "BG-CLAIM write bg.txt", async: true } }],
				};
			if (step === 1) {
				const id = /Run (\d{8}-\d{6}-[0-9a-f]{6})/.exec(allText(request))?.[1];
				return { toolCalls: [{ name: "subagent", args: { action: "wait", id, timeoutMs: 30_000 } }] };
			}
			return { text: "waited" };
		};
		cli = await startCli({
			script,
			cwd: makeGitRepo(REPO),
			userSettings: SETTINGS,
			args: ["--tools", "read,bash,edit,write,subagent"],
		});
		const c = cli;
		await c.run("Launch a worker and wait for it", 60_000);
		await until("the completion message", async () =>
			(await entries(c)).some((e) => e.customType === "watchdog-subagent"),
		);
		// Both sightings (the wait's and the completion's) have been handled once status counts the second.
		const status = async () => (await c.run("/subagents-watchdog status --all")).map((n) => n.message).join("\n");
		await until("the second sighting", async () => /1 stop\(s\) seen again/.test(await status()));
		const verifications = (await entries(c)).filter((e) => e.customType === "watchdog-verification");
		expect(verifications).toHaveLength(1);
		expect(["wait", "completion"]).toContain(verifications[0].data.via);
		expect(await status()).toMatch(/1 verification\(s\) this session, 1 stop\(s\) seen again and not reviewed/);
	});
});
