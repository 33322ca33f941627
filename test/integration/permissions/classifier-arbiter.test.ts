// A classifier model as the permission arbiter (`permissions.model` naming one, Pi 1.6's
// `classify`), in a real in-process session with a child watchdog whose rule asks for write:
// an approve at or above `permissions.threshold` lets the call run; an approve below it, a
// deny, an error and a model Pi does not know all refuse it.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { createWatchdogExtension } from "../../../src/extension.ts";
import { layerPolicy } from "../../../src/permissions/index.ts";
import { decide, fauxClassifier } from "../../support/faux-classifier.ts";
import { makeGitRepo } from "../../support/git.ts";
import { startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";
import { toolUse } from "../review/review-helpers.ts";

const write = (path: string) => toolUse("write", { path, content: `${path}\n` });

async function session(model: string, classifier = fauxClassifier(), timeoutMs = 20_000) {
	const repo = makeGitRepo({ "a.txt": "a\n" });
	const extension = createWatchdogExtension({
		role: "worker",
		task: "Write the notes files",
		permissions: layerPolicy(undefined, { rules: { write: "ask" }, file: "/agents/worker.md" }),
	});
	const t = await startSession({
		cwd: repo,
		userSettings: wd({
			enabled: true,
			main: { model: "faux-reviewer/reviewer-model" },
			lsp: { enabled: false },
			permissions: { model, threshold: 0.8, timeoutMs },
		}),
		extension,
		nativeProviders: [classifier.provider],
	});
	const permissions = () =>
		readFileSync(join(t.agentDir, "watchdog", "history.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l))
			.filter((l) => l.kind === "permission");
	return { t, repo, classifier, permissions };
}

describe("a classifier as the permission arbiter", () => {
	it("approves at or above the threshold only, and a failed call denies", async () => {
		const { t, repo, classifier, permissions } = await session("faux-classifier/judge");
		classifier.setReplies([
			decide("approve", 0.93),
			decide("approve", 0.6),
			decide("deny", 0.1),
			() => ({ stopReason: "error", errorMessage: "503 from the service" }),
		]);
		t.main.setResponses([write("b.txt"), write("c.txt"), write("d.txt"), write("e.txt"), fauxAssistantMessage("done")]);
		t.reviewer.setResponses([fauxAssistantMessage("clean")]);
		try {
			await t.session.prompt("write the files");
			await t.session.waitForIdle();
			expect(["b.txt", "c.txt", "d.txt", "e.txt"].map((f) => existsSync(join(repo, f)))).toEqual([
				true,
				false,
				false,
				false,
			]);
			expect(permissions().map((l) => [l.decision, l.how, l.model, l.failure ?? ""])).toEqual([
				["approve", "arbiter", "faux-classifier/judge", ""],
				["deny", "arbiter", "faux-classifier/judge", ""],
				["deny", "arbiter", "faux-classifier/judge", ""],
				["deny", "failure", "faux-classifier/judge", "error"],
			]);
			expect(permissions()[1].reason).toContain("p(approve) 0.60, threshold 0.8");
			// The agent's words are the state it judges, never the question's instructions.
			expect(classifier.calls[0].state.argumentsPreview).toContain("b.txt");
			expect(JSON.stringify(classifier.calls[0].questions)).not.toContain("b.txt");
			expect(t.reviewer.state.callCount).toBeLessThanOrEqual(1); // the chat arbiter was never asked
		} finally {
			await t.dispose();
		}
	});

	it("denies every ask when permissions.model names a model Pi does not know", async () => {
		const { t, repo, permissions } = await session("nowhere/none");
		t.main.setResponses([write("b.txt"), fauxAssistantMessage("done")]);
		try {
			await t.session.prompt("write b.txt");
			await t.session.waitForIdle();
			expect(existsSync(join(repo, "b.txt"))).toBe(false);
			expect(permissions()).toEqual([
				expect.objectContaining({ decision: "deny", how: "failure", failure: "no-model" }),
			]);
		} finally {
			await t.dispose();
		}
	});

	it("denies at the deadline when the classifier does not answer", async () => {
		const { t, repo, classifier, permissions } = await session("faux-classifier/judge", fauxClassifier(), 1000);
		classifier.setReplies([() => new Promise(() => {})]);
		t.main.setResponses([write("b.txt"), fauxAssistantMessage("done")]);
		try {
			await t.session.prompt("write b.txt");
			await t.session.waitForIdle();
			expect(existsSync(join(repo, "b.txt"))).toBe(false);
			expect(permissions()).toEqual([expect.objectContaining({ decision: "deny", failure: "timeout" })]);
		} finally {
			await t.dispose();
		}
	});
});
