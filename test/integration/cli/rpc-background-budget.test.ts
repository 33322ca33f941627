// A background run's completion goes through the parent's findings sink, through the real
// `pi` CLI in RPC mode against the scripted server: once the parent's continuation budget for
// the prompt is spent, a completion that brings a child's high finding starts no turn; the
// notice and the finding are there for the user.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { type ChatRequest, type Reply, textOf } from "../../support/openai-server.ts";
import { type CliSession, startCli } from "../../support/pi-cli.ts";
import { wd } from "../../support/settings-files.ts";
import { firstUser, until } from "../../support/subagent-cli.ts";
import { tempDir } from "../../support/temp.ts";

const allText = (r: ChatRequest) => r.messages.map((m) => textOf(m.content)).join("\n");
const tools = (r: ChatRequest) => r.messages.filter((m) => m.role === "tool").length;
/** Six unrelated findings, one per parent review: none is the same finding as another (no stalemate). */
const PARENT_FINDINGS = [
	"alpha.txt misses its licence header",
	"Quarterly invoice totals overflow",
	"Timezone parsing ignores offsets",
	"Password hashing uses weak rounds",
	"Webhook retries never back off",
	"Sitemap generation skips drafts",
];
const CHILD_FINDING = "bg.txt was written without the required banner";

let cli: CliSession | undefined;
afterEach(async () => {
	await cli?.stop().catch(() => {});
	cli = undefined;
});

it("a background completion after the prompt's continuation budget is spent starts no turn", async () => {
	const gate = join(tempDir("pi-watchdog-gate-"), "open");
	let parentReviews = 0;
	const script = (request: ChatRequest): Reply => {
		const first = firstUser(request);
		const last = request.messages.at(-1);
		if (request.model === "reviewer") {
			if (last?.role === "tool") return { text: "Reported." };
			if (first.startsWith("Verify the stopped children")) return { text: "nothing to add" };
			if (allText(request).includes("PARENT-PROMPT")) {
				const summary = PARENT_FINDINGS[parentReviews++ % PARENT_FINDINGS.length];
				return {
					toolCalls: [
						{
							name: "watchdog_warn",
							args: {
								summary,
								evidence: `${summary} (review ${parentReviews})`,
								recommendedAction: "Look into it",
								importance: "high",
								severity: "concern",
								category: "other",
							},
						},
					],
				};
			}
			// the child's reviews: a high finding on its first, clean after
			if (allText(request).includes("Reported.")) return { text: "clean" };
			return {
				toolCalls: [
					{
						name: "watchdog_warn",
						args: {
							summary: CHILD_FINDING,
							evidence: "bg.txt has no banner line",
							recommendedAction: "Add the banner",
							importance: "high",
							severity: "concern",
							category: "other",
						},
					},
				],
			};
		}
		if (first.startsWith("BG-CHILD")) {
			// waits for the test to open the gate, writes, answers; continued by its watchdog, it acknowledges
			if (last?.role !== "tool" && tools(request) > 0) return { text: "Acknowledged." };
			return [
				{
					toolCalls: [
						{ name: "bash", args: { command: `for i in $(seq 1 600); do [ -f '${gate}' ] && break; sleep 0.1; done` } },
					],
				},
				{ toolCalls: [{ name: "write", args: { path: "bg.txt", content: "bg\n" } }] },
				{ text: "Wrote bg.txt." },
			][tools(request)] as Reply;
		}
		// the parent: launch in the background, then one edit per continuation, so every boundary review has a change
		const n = tools(request);
		if (n === 0)
			return {
				toolCalls: [{ name: "subagent", args: { agent: "worker", task: "BG-CHILD write bg.txt", async: true } }],
			};
		if (last?.role === "tool" && n > 1) return { text: `edited ${n - 1}` };
		return { toolCalls: [{ name: "write", args: { path: `f${n}.txt`, content: `${n}\n` } }] };
	};
	cli = await startCli({
		script,
		cwd: makeGitRepo({ "README.md": "hi\n" }),
		userSettings: wd({
			enabled: true,
			main: { model: "local/reviewer" },
			lsp: { enabled: false },
			children: { enabled: true },
		}),
		args: ["--tools", "read,bash,edit,write,subagent"],
	});
	const c = cli;
	await c.run("PARENT-PROMPT launch the worker and edit", 120_000);
	// five reviews continued the run; the sixth found the budget spent
	expect(parentReviews).toBe(6);
	const entries = async () => (await c.client.getEntries()).entries as any[];
	expect((await entries()).filter((e) => e.customType === "watchdog-finding")).toHaveLength(5);
	const parentRequests = () =>
		c.server.requests.filter((r) => r.model === "main" && !firstUser(r).startsWith("BG-CHILD")).length;
	const before = parentRequests();
	writeFileSync(gate, "");
	await until(
		"the completion message",
		async () => (await entries()).some((e) => e.customType === "watchdog-subagent"),
		60_000,
	);
	await until(
		"the child's finding for the user",
		async () =>
			(await entries()).some((e) => e.customType === "watchdog-note" && e.data?.finding?.summary === CHILD_FINDING),
		10_000,
	);
	await new Promise((r) => setTimeout(r, 2000));
	expect(parentRequests()).toBe(before);
	const all = await entries();
	const notice = all.find((e) => e.customType === "watchdog-subagent");
	expect(textOf(notice.content)).toMatch(/Background run \S+ ended \(done\)/);
	expect(textOf(notice.content)).not.toContain(CHILD_FINDING);
	const note = all.find((e) => e.customType === "watchdog-note" && e.data?.finding?.summary === CHILD_FINDING);
	expect(note.data.heldBack).toMatch(/already continued this prompt 5 times/);
	expect(all.filter((e) => e.customType === "watchdog-finding")).toHaveLength(5);
}, 180_000);
