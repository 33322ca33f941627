// pi-subagents' forms and keys, as pure functions: the frontmatter it accepts, agents in
// subfolders, which load errors block which launches, a project agent standing in for a user
// agent, the `subagents.*` overrides and the model scope.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAgentLoadError, loadAgents, parseAgentFile } from "../../../src/children/index.ts";
import { applyAgentOverrides, checkModelScope } from "../../../src/children/agent-policy.ts";
import { findAgents } from "../../../src/children/launcher.ts";
import { tempDir } from "../../support/temp.ts";

const write = (path: string, text: string) => (
	mkdirSync(dirname(path), { recursive: true }), writeFileSync(path, text), path
);
const agent = (name: string, extra = "") =>
	`---\nname: ${name}\ndescription: The ${name} agent.\n${extra}---\nYou are ${name}.\n`;

function layout() {
	const root = tempDir();
	const packageDir = join(root, "pkg");
	mkdirSync(join(packageDir, "agents"), { recursive: true });
	write(join(packageDir, "agents", "worker.md"), agent("worker", "tools: read, edit, write, bash\n"));
	return {
		packageDir,
		agentDir: join(root, "agent"),
		cwd: join(root, "proj"),
		configDirName: ".pi",
		projectTrusted: true,
	};
}

describe("frontmatter in pi-subagents' forms", () => {
	it("reads thinking false as off, a description with ': ', a bare model id, `tools:` empty as none, excludeTools", () => {
		const r = parseAgentFile(
			"---\nname: a\ndescription: Reviews code: finds bugs\nmodel: claude-haiku-4-5:high\nthinking: false\ntools:\nexcludeTools: bash, write\n---\nbody\n",
			"/x/a.md",
			"user",
		);
		if (isAgentLoadError(r)) expect.fail(r.message);
		expect(r).toMatchObject({
			description: "Reviews code: finds bugs",
			model: "claude-haiku-4-5:high",
			thinking: "off",
			tools: [],
			excludeTools: ["bash", "write"],
		});
	});

	it("still reports YAML it cannot read, with the names the file claims", () => {
		const r = parseAgentFile("---\nname: a\ndescription: [unclosed\n---\n", "/x/b.md", "user");
		if (!isAgentLoadError(r)) expect.fail("expected an error");
		expect(r).toMatchObject({ names: ["a", "b"], source: "user" });
	});
});

describe("which agent a launch gets", () => {
	it("finds agents in subfolders, skipping *.chain.md and hidden folders", () => {
		const l = layout();
		write(join(l.agentDir, "agents", "team", "deep", "critic.md"), agent("critic"));
		write(join(l.agentDir, "agents", "team", "x.chain.md"), agent("chain"));
		write(join(l.agentDir, "agents", ".git", "hidden.md"), agent("hidden"));
		const { agents, errors } = loadAgents(l);
		expect([...agents.keys()].sort()).toEqual(["critic", "worker"]);
		expect(errors).toEqual([]);
	});

	it("refuses a name a broken user file claims, but not a name only a broken lower file claims", () => {
		const l = layout();
		const broken = write(join(l.agentDir, "agents", "worker.md"), agent("worker", "thinking: extreme\n"));
		const loaded = loadAgents(l);
		expect(loaded.agents.get("worker")?.source).toBe("package");
		expect(() => findAgents(loaded, ["worker"])).toThrow(`${broken}:4: \`thinking\` must be one of`);
		// A working user file above a broken package file is used.
		write(join(l.packageDir, "agents", "scout.md"), "---\nname: scout\n---\n");
		write(join(l.agentDir, "agents", "scout.md"), agent("scout", "tools: read\n"));
		expect(findAgents(loadAgents(l), ["scout"])[0]).toMatchObject({ source: "user", tools: ["read"] });
	});

	it("refuses a package agent while the user's agents folder cannot be read whole", () => {
		const l = layout();
		const outside = tempDir();
		write(join(outside, "w.md"), agent("worker"));
		mkdirSync(join(l.agentDir, "agents"), { recursive: true });
		// agentDir is outside the home folder here, so it is its own root and the link leads out of it.
		symlinkSync(outside, join(l.agentDir, "agents", "team"));
		const loaded = loadAgents(l);
		expect(loaded.agents.get("worker")?.source).toBe("package");
		expect(() => findAgents(loaded, ["worker"])).toThrow(/team: leads outside/);
		// An agent of the project, above the folder that could not be read, is not held back.
		write(join(l.cwd, ".pi", "agents", "solo.md"), agent("solo"));
		expect(findAgents(loadAgents(l), ["solo"])[0].source).toBe("project");
	});

	it("lets a project agent narrow a user agent of its name (its rules over the user's), never widen it", () => {
		const l = layout();
		write(join(l.agentDir, "agents", "helper.md"), agent("helper", "tools: read, grep\npermission:\n  grep: allow\n"));
		const narrow = write(
			join(l.cwd, ".pi", "agents", "helper.md"),
			agent("helper", "tools: read\npermission:\n  read: ask\n"),
		);
		const found = findAgents(loadAgents(l), ["helper"])[0];
		expect(found).toMatchObject({
			source: "project",
			path: narrow,
			tools: ["read"],
			permissions: { read: "ask" },
			base: { source: "user", permissions: { grep: "allow" } },
		});
		write(narrow, agent("helper", "excludeTools: edit\n")); // the defaults: read, bash, write
		expect(() => findAgents(loadAgents(l), ["helper"])).toThrow(
			/asks for tools that one does not have \(bash, write\)/,
		);
		write(narrow, agent("helper", "tools: read\nextensions: ./x.ts\n"));
		expect(() => findAgents(loadAgents(l), ["helper"])).toThrow(/adds extensions/);
	});
});

describe("subagents.* overrides", () => {
	const worker = { name: "worker", source: "package" as const, tools: ["read", "edit", "write", "bash"] };

	it("disables, sets tools (a project only narrowing them), and refuses fields it does not carry out", () => {
		expect(applyAgentOverrides(worker, [{ source: "user", origin: "/u.json", disableBuiltins: true }])).toEqual({
			error: expect.stringMatching(/built-in agent and subagents\.disableBuiltins in \/u\.json is true/),
		});
		expect(
			applyAgentOverrides({ ...worker, source: "user" }, [
				{ source: "user", origin: "/u.json", disableBuiltins: true },
			]),
		).toEqual({ agent: { ...worker, source: "user" } });
		expect(
			applyAgentOverrides(worker, [
				{ source: "user", origin: "/u.json", agentOverrides: { worker: { disabled: true } } },
			]),
		).toEqual({ error: expect.stringMatching(/disabled by subagents\.agentOverrides\.worker\.disabled/) });
		expect(
			applyAgentOverrides(worker, [
				{ source: "user", origin: "/u.json", agentOverrides: { worker: { tools: "read, grep" } } },
			]),
		).toEqual({ agent: { ...worker, tools: ["read", "grep"] } });
		expect(
			applyAgentOverrides(worker, [
				{ source: "user", origin: "/u.json", agentOverrides: { worker: { tools: "inherit" } } },
			]),
		).toEqual({ agent: { name: "worker", source: "package" } });
		const project = (tools: unknown) =>
			applyAgentOverrides(worker, [
				{ source: "user", origin: "/u.json", agentOverrides: { worker: { tools: ["read", "edit"] } } },
				{ source: "project", origin: "/p.json", agentOverrides: { worker: { tools } } },
			]);
		expect(project(["read"])).toEqual({ agent: { ...worker, tools: ["read"] } });
		expect(project(["read", "bash"])).toEqual({
			error: expect.stringMatching(/\/p\.json adds tools the agent does not have \(bash\)/),
		});
		// A project cannot switch off what the user disabled.
		expect(
			applyAgentOverrides(worker, [
				{ source: "user", origin: "/u.json", disableBuiltins: true },
				{ source: "project", origin: "/p.json", disableBuiltins: false },
			]),
		).toHaveProperty("error");
		expect(
			applyAgentOverrides(worker, [
				{ source: "user", origin: "/u.json", agentOverrides: { worker: { model: "a/b", thinking: "high" } } },
			]),
		).toEqual({
			error: expect.stringMatching(
				/agentOverrides\.worker\.model in \/u\.json, .*agentOverrides\.worker\.thinking in \/u\.json: not supported/,
			),
		});
	});

	it("judges the model scope: globs without case, inherit, per-agent lists, strict or explicit blocks, else warns", () => {
		const parent = { provider: "anthropic", id: "claude-opus-4-8" };
		const scope = (modelScope: unknown, provider: string, id: string, explicit = false, role = "worker") =>
			checkModelScope([{ source: "user", origin: "/u.json", modelScope }], { role, provider, id, explicit }, parent);
		const s = {
			enforce: true,
			allow: ["inherit", "OpenAI/gpt-5-*"],
			agents: { worker: { allow: ["openai/gpt-5-mini"] } },
		};
		expect(scope(s, "openai", "gpt-5-mini").decision).toBe("allowed");
		expect(scope(s, "openai", "gpt-5-large")).toEqual({
			decision: "warned",
			reason: expect.stringMatching(
				/worker on openai\/gpt-5-large is outside subagents\.modelScope in \/u\.json \(agents\.worker\.allow: "openai\/gpt-5-mini"\)/,
			),
		});
		expect(scope(s, "openai", "gpt-5-large", true).decision).toBe("blocked");
		expect(scope({ ...s, strict: true }, "openai", "gpt-5-large").decision).toBe("blocked");
		expect(scope(s, "anthropic", "claude-opus-4-8", false, "scout").decision).toBe("allowed"); // inherit
		expect(scope(s, "google", "gemini", false, "scout").decision).toBe("warned");
		expect(scope({ enforce: false, allow: ["x/*"] }, "google", "gemini").decision).toBe("allowed");
		expect(scope({ enforce: true }, "google", "gemini")).toEqual({
			decision: "blocked",
			reason: expect.stringMatching(/enforce is true but no allow list/),
		});
		// The user's and the project's scopes both apply.
		const both = checkModelScope(
			[
				{ source: "user", origin: "/u.json", modelScope: { enforce: true, strict: true, allow: ["openai/*"] } },
				{ source: "project", origin: "/p.json", modelScope: { enforce: true, allow: ["*"] } },
			],
			{ role: "worker", provider: "google", id: "g", explicit: false },
			parent,
		);
		expect(both.decision).toBe("blocked");
	});
});
