// Settings written for pi-subagents (same `subagents.watchdog` key) in real Pi sessions with
// faux models: the values it accepts load here with their meaning instead of turning the whole
// watchdog off; its keys with a meaning here work; the rest are named once at start.
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { allText, type Ctx, toolUse, warn } from "../review/review-helpers.ts";
import { launchOnce, subagentResult } from "../children/launch-once.ts";

const statusOf = async (t: TestSession, level = "--all") =>
	(await t.command(`/subagents-watchdog status ${level}`)).map((n) => n.message).join("\n");
/** One write, one reviewed boundary; returns what the main model saw when the watchdog continued it. */
async function writeRun(t: TestSession): Promise<{ continuation?: string }> {
	const seen: { continuation?: string } = {};
	t.main.setResponses([
		toolUse("write", { path: "a.txt", content: "changed\n" }),
		fauxAssistantMessage("Done."),
		(ctx) => ((seen.continuation = allText(ctx as Ctx)), fauxAssistantMessage("Noted.")),
	]);
	await t.session.prompt("change a.txt");
	await t.session.waitForIdle();
	return seen;
}

let open: TestSession | undefined;
afterEach(async () => {
	await open?.dispose();
	open = undefined;
	delete process.env.PI_SUBAGENT_MAX_DEPTH;
});

describe("values pi-subagents accepts", () => {
	it("thinking false, cadence null, stalemateRepeats 1 and a bare model id keep the watchdog on and launches going", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const watchdog = {
			enabled: true,
			stalemateRepeats: 1,
			cadence: { everyNTools: null },
			main: { model: "reviewer-model", thinking: false },
			children: { thinking: false },
		};
		const t = (open = await startSession({ cwd: repo, userSettings: wd(watchdog) }));
		const status = await statusOf(t);
		expect(status).not.toMatch(/Config errors/);
		expect(status).toMatch(/^Watchdog: on/m);
		expect(status).toContain("Reviewer model: faux-reviewer/reviewer-model, thinking off");
		t.reviewer.setResponses([warn(), fauxAssistantMessage("Reported.")]);
		const seen = await writeRun(t);
		expect(t.reviewer.state.callCount).toBe(2);
		// stalemateRepeats 1: the first boundary review's finding is already a stalemate: shown, not pushed.
		expect(seen.continuation).toBeUndefined();
		expect(await statusOf(t, "")).toMatch(/blocker \(stalemate\).*greet\(\) drops the name/);
		// Settings that load are settings that let children launch.
		const launched = await launchOnce(t, { agent: "scout", task: "look" }, [() => fauxAssistantMessage("child done")]);
		expect(subagentResult(t)?.isError).toBeFalsy();
		expect(launched.childRequests).toBe(1);
	});

	it("a bare id two providers offer is an error naming both", async () => {
		const t = (open = await startSession({
			userSettings: wd({ enabled: true, main: { model: "reviewer-model" } }),
			extraProviders: [{ provider: "other-cloud", models: [{ id: "reviewer-model" }] }],
		}));
		const status = await statusOf(t);
		expect(status).toMatch(
			/subagents\.watchdog\.main\.model: model "reviewer-model" is offered by faux-reviewer, other-cloud; write provider\/reviewer-model/,
		);
		expect(t.notices.map((n) => n.message).join("\n")).toMatch(
			/Watchdog off for this session: 1 settings error.*offered by faux-reviewer, other-cloud/,
		);
	});
});

describe("keys with a meaning here", () => {
	it("maxWarnings caps the findings sent to the agent per prompt; the rest are shown to the user", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = (open = await startSession({
			cwd: repo,
			userSettings: wd({ enabled: true, maxWarnings: 1, main: { model: "faux-reviewer/reviewer-model" } }),
		}));
		t.reviewer.setResponses([
			warn(),
			warn({ summary: "The test for greet was deleted", evidence: "test/app.test.ts is gone", category: "test-gap" }),
			fauxAssistantMessage("Reported."),
		]);
		const seen = await writeRun(t);
		expect(seen.continuation).toContain("The new greet() drops the name argument");
		expect(seen.continuation).not.toContain("The test for greet was deleted");
		const status = await statusOf(t, "");
		expect(status).toMatch(/blocker \(held back\).*The test for greet was deleted/);
		expect(status).toMatch(/blocker \(sent to the agent\).*greet\(\) drops the name/);
	});

	it("fallbackModels: a reviewer that fails before any tool work hands the review to the next model", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = (open = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model:high" },
				fallbackModels: ["backup/backup-model"],
			}),
			extraProviders: [{ provider: "backup", models: [{ id: "backup-model" }] }],
		}));
		t.reviewer.setResponses([
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "429 Too Many Requests: rate limit reached" }),
		]);
		t.extra[0].setResponses([warn(), fauxAssistantMessage("Reported.")]);
		const seen = await writeRun(t);
		expect(t.extra[0].state.callCount).toBe(2);
		expect(seen.continuation).toContain("The new greet() drops the name argument");
		expect(t.notices.map((n) => n.message).join("\n")).toMatch(
			/faux-reviewer\/reviewer-model failed \(rate-limit\).*ran on the fallback backup\/backup-model/,
		);
		expect(await statusOf(t)).toMatch(/last review: .*backup\/backup-model \(thinking high\).*1 finding/);
	});

	it("fallbackModels are not used once the reviewer has done tool work", async () => {
		const repo = makeGitRepo({ "a.txt": "a\n" });
		const t = (open = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { model: "faux-reviewer/reviewer-model" },
				fallbackModels: ["backup/backup-model"],
			}),
			extraProviders: [{ provider: "backup", models: [{ id: "backup-model" }] }],
		}));
		t.reviewer.setResponses([
			toolUse("watchdog_diff", {}),
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 upstream overloaded" }),
		]);
		await writeRun(t);
		expect(t.extra[0].state.callCount).toBe(0);
		expect(await statusOf(t, "")).toMatch(/failed \(provider\)/);
	});
});

describe("keys with no meaning here", () => {
	it("are named once at start, listed in status, and leave the watchdog on", async () => {
		process.env.PI_SUBAGENT_MAX_DEPTH = "2";
		const settings = {
			subagents: {
				maxSubagentDepth: 2,
				watchdog: { enabled: true, children: { watchdogTailTimeoutMs: 90_000 }, lsp: { maxDiagnostics: 10 } },
			},
		};
		const t = (open = await startSession({ userSettings: settings }));
		const notices = t.notices.filter((n) => /pi-subagents settings? that do/.test(n.message));
		expect(notices).toHaveLength(1);
		for (const key of [
			"children.watchdogTailTimeoutMs",
			"lsp.maxDiagnostics",
			"subagents.maxSubagentDepth is not read here",
			"PI_SUBAGENT_MAX_DEPTH is not read here",
		]) {
			expect(notices[0].message).toContain(key);
		}
		const status = await statusOf(t);
		expect(status).toMatch(/^Watchdog: on/m);
		expect(status).toContain("Not supported here (pi-subagents settings)");
		expect(status).toContain("subagents.watchdog.lsp.maxDiagnostics is not supported");
		// Not announced again on the next command.
		await statusOf(t, "");
		expect(t.notices.filter((n) => /pi-subagents settings? that do/.test(n.message))).toHaveLength(1);
	});
});

describe("pi-subagents' README configuration, in the same shapes", () => {
	it("a full watchdog block loads with the documented meaning", async () => {
		const watchdog = {
			enabled: true,
			clarification: false,
			agentEndTimeoutMs: 45_000,
			severityThreshold: "concern",
			maxWarnings: null,
			stalemateRepeats: 4,
			guidance: { watchdogMd: true },
			scope: { enabled: true },
			cadence: { everyNTools: null },
			main: { enabled: true, model: "faux-reviewer/reviewer-model", thinking: "high" },
			children: {
				enabled: true,
				model: "reviewer-model",
				thinking: false,
				watchdogTailTimeoutMs: 60_000,
				cadence: { everyNTools: 12 },
				overrides: {
					scout: { enabled: false },
					worker: { model: "faux-reviewer/reviewer-model:medium", cadence: { everyNTools: null } },
				},
			},
			lsp: { enabled: true, timeoutMs: 4000, maxFiles: 15, maxDiagnostics: 40 },
			rules: { action: "block", roleModels: { oracle: { deny: ["*:off"], note: "oracle thinks before it answers" } } },
		};
		const t = (open = await startSession({
			userSettings: { subagents: { watchdog, modelScope: { enforce: true, allow: ["faux/*", "faux-reviewer/*"] } } },
		}));
		const status = await statusOf(t, "--settings");
		expect(status).not.toMatch(/Config errors/);
		expect(status).toMatch(/^Watchdog: on/m);
		expect(status).toContain("Reviewer model: faux-reviewer/reviewer-model, thinking high");
		const setting = (key: string) => new RegExp(`^\\s+${key.replaceAll(".", "\\.")}\\s+(\\S+)`, "m").exec(status)?.[1];
		// Placed at its one provider; false is off; null is off; a role's model keeps its level.
		expect(setting("children.model")).toBe('"faux-reviewer/reviewer-model"');
		expect(setting("children.thinking")).toBe('"off"');
		expect(setting("cadence.everyNTools")).toBe("0");
		expect(setting("children.overrides.worker.cadence.everyNTools")).toBe("0");
		expect(setting("children.overrides.worker.thinking")).toBe('"medium"');
		expect(setting("children.overrides.scout.enabled")).toBe("false");
		expect(setting("maxWarnings")).toBe("null");
		expect(setting("stalemateRepeats")).toBe("4");
		expect(setting("lsp.maxFiles")).toBe("15");
		expect(setting("rules.action")).toBe('"block"');
		// The two keys with no meaning here are named, not applied.
		expect(status).toContain("subagents.watchdog.children.watchdogTailTimeoutMs is not supported");
		expect(status).toContain("subagents.watchdog.lsp.maxDiagnostics is not supported");
		expect(status).not.toMatch(/^\s+lsp\.maxDiagnostics/m);
	});
});
