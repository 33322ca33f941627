// What users coming from pi-subagents set up, in real Pi sessions with real in-process children
// (faux models): none of it may leave a child quietly weaker than configured. A broken agent
// file blocks its name instead of falling back to the shipped agent; `tools:` left empty is no
// tools and `excludeTools` removes tools; an agent's wildcard never lifts a global deny; the
// `subagents.*` child policy keys are carried out; a launch-rule warning reaches the model
// whatever the threshold; `main.enabled: false` watches children only; a project agent cannot
// take a user's agent's name to gain tools.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { makeGitRepo } from "../../support/git.ts";
import { startSession, type TestSession } from "../../support/pi-session.ts";
import { launchOnce, subagentResult } from "./launch-once.ts";
import { wd, writeJson } from "../../support/settings-files.ts";
import { allText, type Ctx, text, toolUse } from "../review/review-helpers.ts";

/** The tools a child was given: Pi hands them to the provider as the system message's `toolsAdded`. */
const toolNames = (ctx: Ctx) =>
	(ctx.messages as Array<{ role: string; toolsAdded?: Array<{ name: string }> }>)
		.filter((m) => m.role === "system")
		.flatMap((m) => (m.toolsAdded ?? []).map((t) => t.name))
		.sort();

function writeFile(path: string, content: string): string {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, content);
	return path;
}
const userAgent = (t: TestSession, rel: string, content: string) => writeFile(join(t.agentDir, "agents", rel), content);

describe("a user agent file that fails to load", () => {
	it("blocks launches of its name with file:line and the problem, instead of running the shipped agent", async () => {
		const t = await startSession();
		try {
			const file = userAgent(
				t,
				"worker.md",
				"---\nname: worker\ndescription: my worker\ntools: read, grep\npermission:\n  write: never\n---\nYou work.\n",
			);
			const seen = await launchOnce(t, { agent: "worker", task: "edit things" });
			const result = subagentResult(t);
			expect(result?.isError).toBe(true);
			expect(text(result?.content)).toContain(`Not launched: agent "worker" cannot be used`);
			expect(text(result?.content)).toContain(
				`${file}:6: \`permission\`: the permission for tool "write" must be allow, ask or deny`,
			);
			expect(seen.childRequests).toBe(0);
			expect(t.main.state.callCount).toBe(2);
		} finally {
			await t.dispose();
		}
	});

	it("reads pi-subagents' forms: thinking false, a description with ': ', a file in a subfolder", async () => {
		const t = await startSession();
		try {
			userAgent(
				t,
				"team/worker.md",
				"---\nname: worker\ndescription: Worker: reads only\nthinking: false\ntools: read, grep\n---\nYou work.\n",
			);
			let tools: string[] = [];
			await launchOnce(t, { agent: "worker", task: "look" }, [
				(ctx) => ((tools = toolNames(ctx)), fauxAssistantMessage("child done")),
			]);
			expect(subagentResult(t)?.isError).toBeFalsy();
			// The user's worker (read, grep), not the shipped one (edit, write, bash ...).
			expect(tools).toEqual(["grep", "read"]);
		} finally {
			await t.dispose();
		}
	});
});

describe("tools", () => {
	it("`tools:` left empty gives the child no tools; excludeTools takes tools away", async () => {
		const t = await startSession();
		try {
			userAgent(t, "bare.md", "---\nname: bare\ndescription: no tools\ntools:\n---\nYou think.\n");
			userAgent(t, "nobash.md", "---\nname: nobash\ndescription: no bash\nexcludeTools: bash\n---\nYou edit.\n");
			let bare: string[] = ["unset"];
			await launchOnce(t, { agent: "bare", task: "think" }, [
				(ctx) => ((bare = toolNames(ctx)), fauxAssistantMessage("child done")),
			]);
			expect(bare).toEqual([]);
			let nobash: string[] = [];
			await launchOnce(t, { agent: "nobash", task: "edit" }, [
				(ctx) => ((nobash = toolNames(ctx)), fauxAssistantMessage("child done")),
			]);
			expect(nobash).toEqual(["edit", "read", "write"]);
		} finally {
			await t.dispose();
		}
	});
});

describe("permissions", () => {
	it("an agent's `*: allow` does not lift a global deny", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({ cwd: repo });
		try {
			writeJson(join(t.agentDir, "extensions", "subagent", "config.json"), {
				permissions: { rules: { write: "deny" } },
			});
			userAgent(
				t,
				"scribe.md",
				'---\nname: scribe\ndescription: writes\ntools: read, write\npermission:\n  "*": allow\n---\nYou write.\n',
			);
			let after = "";
			await launchOnce(t, { agent: "scribe", task: "write notes" }, [
				() => toolUse("write", { path: "notes.txt", content: "hi\n" }),
				(ctx) => ((after = allText(ctx)), fauxAssistantMessage("child done")),
			]);
			expect(existsSync(join(repo, "notes.txt"))).toBe(false);
			expect(after).toContain('Blocked by the permission rule "write": "deny" (global config');
		} finally {
			await t.dispose();
		}
	});
});

describe("pi-subagents' child policy keys", () => {
	it("disableBuiltins refuses a built-in; agentOverrides.<name>.tools sets the tools; an unsupported override field refuses", async () => {
		const t = await startSession({ userSettings: { subagents: { disableBuiltins: true } } });
		try {
			await launchOnce(t, { agent: "worker", task: "edit" });
			expect(subagentResult(t)?.isError).toBe(true);
			expect(text(subagentResult(t)?.content)).toMatch(
				/"worker" is a built-in agent and subagents\.disableBuiltins in .*settings\.json is true/,
			);
		} finally {
			await t.dispose();
		}
		const u = await startSession({
			userSettings: {
				subagents: { agentOverrides: { worker: { tools: ["read"] }, scout: { model: "faux/main-model" } } },
			},
		});
		try {
			let tools: string[] = [];
			await launchOnce(u, { agent: "worker", task: "look" }, [
				(ctx) => ((tools = toolNames(ctx)), fauxAssistantMessage("child done")),
			]);
			expect(tools).toEqual(["read"]);
			await launchOnce(u, { agent: "scout", task: "look" });
			expect(text(subagentResult(u)?.content)).toMatch(
				/subagents\.agentOverrides\.scout\.model in .*: not supported by pi-watchdog/,
			);
		} finally {
			await u.dispose();
		}
	});

	it("a strict modelScope blocks a child outside it before it starts", async () => {
		const t = await startSession({
			userSettings: { subagents: { modelScope: { enforce: true, strict: true, allow: ["anthropic/*"] } } },
		});
		try {
			const seen = await launchOnce(t, { agent: "scout", task: "look" });
			expect(subagentResult(t)?.isError).toBe(true);
			expect(text(subagentResult(t)?.content)).toMatch(
				/Not launched: the model scope does not allow this child[\s\S]*scout on faux\/main-model is outside subagents\.modelScope/,
			);
			expect(seen.childRequests).toBe(0);
		} finally {
			await t.dispose();
		}
	});
});

describe("launch-rule warnings", () => {
	it("reach the model even with severityThreshold blocker", async () => {
		const t = await startSession({
			userSettings: wd({
				severityThreshold: "blocker",
				rules: { action: "warn", roleModels: { scout: { deny: ["faux/*"] } } },
			}),
		});
		try {
			const seen = await launchOnce(t, { agent: "scout", task: "look" }, [() => fauxAssistantMessage("child done")]);
			expect(seen.after).toContain("Launch rule broken: scout on faux/main-model:off");
		} finally {
			await t.dispose();
		}
	});
});

describe("watching children only", () => {
	it("main.enabled false leaves the main session unreviewed; a role's own enabled turns its watchdog on", async () => {
		const repo = makeGitRepo({ "README.md": "hello\n" });
		const t = await startSession({
			cwd: repo,
			userSettings: wd({
				enabled: true,
				main: { enabled: false, model: "faux-reviewer/reviewer-model" },
				children: { overrides: { worker: { enabled: true } } },
			}),
		});
		try {
			t.reviewer.setResponses(Array.from({ length: 10 }, () => fauxAssistantMessage("Nothing to report.")));
			t.main.setResponses([toolUse("write", { path: "a.txt", content: "a\n" }), fauxAssistantMessage("Wrote a.")]);
			await t.session.prompt("write a.txt");
			await t.session.waitForIdle();
			expect(existsSync(join(repo, "a.txt"))).toBe(true);
			expect(t.reviewer.state.callCount).toBe(0);
			await launchOnce(t, { agent: "worker", task: "write b.txt" }, [
				() => toolUse("write", { path: "b.txt", content: "b\n" }),
				() => fauxAssistantMessage("child done"),
			]);
			expect(existsSync(join(repo, "b.txt"))).toBe(true);
			expect(t.reviewer.state.callCount).toBeGreaterThan(0);
		} finally {
			await t.dispose();
		}
	});
});

describe("a project agent with a user agent's name", () => {
	it("may narrow it but not widen it", async () => {
		// The project's agent is there when the user decides to trust the project.
		const repo = makeGitRepo({
			"README.md": "hello\n",
			".pi/agents/helper.md":
				"---\nname: helper\ndescription: project helper\ntools: read, grep, write, bash\n---\nYou write.\n",
		});
		const file = join(repo, ".pi", "agents", "helper.md");
		const t = await startSession({ cwd: repo, trusted: true });
		try {
			userAgent(t, "helper.md", "---\nname: helper\ndescription: reads\ntools: read, grep\n---\nYou read.\n");
			const seen = await launchOnce(t, { agent: "helper", task: "look" });
			expect(subagentResult(t)?.isError).toBe(true);
			expect(text(subagentResult(t)?.content)).toContain(
				`${file}: this project agent takes the name "helper" of the user agent`,
			);
			expect(seen.childRequests).toBe(0);
			writeFile(file, "---\nname: helper\ndescription: project helper\ntools: read\n---\nYou read the project way.\n");
			// Changed after the decision, it is held back until the user trusts it as it is now.
			await t.command("/subagents-watchdog trust");
			let tools: string[] = [];
			await launchOnce(t, { agent: "helper", task: "look" }, [
				(ctx) => ((tools = toolNames(ctx)), fauxAssistantMessage("child done")),
			]);
			expect(tools).toEqual(["read"]);
		} finally {
			await t.dispose();
		}
	});
});
