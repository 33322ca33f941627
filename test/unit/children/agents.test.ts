import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	type AgentDefinition,
	type AgentLoadError,
	formatAgentError,
	isAgentLoadError,
	loadAgents,
	PACKAGE_AGENTS_DIR,
	parseAgentFile,
} from "../../../src/children/index.ts";
import { PACKAGE_DIR } from "../../../src/util/index.ts";
import { tempDir } from "../../support/temp.ts";

const FULL = `---
name: auditor
description: Checks things.
model: anthropic/claude-opus-4-8:high
thinking: medium
tools:
  - read
  - grep
permission:
  bash: deny
  edit: ask
  read: allow
extensions: [./ext/a.ts, npm:some-ext]
subagentOnlyExtensions:
  - ./ext/child-only.ts
color: blue
---

You audit.

Second paragraph.
`;

function parsed(text: string, path = "/x/a.md"): AgentDefinition {
	const r = parseAgentFile(text, path, "user");
	if (isAgentLoadError(r)) expect.fail(formatAgentError(r));
	return r;
}

function failed(text: string, path = "/x/a.md"): AgentLoadError {
	const r = parseAgentFile(text, path, "user");
	if (!isAgentLoadError(r)) expect.fail(`expected an error, got the agent ${r.name}`);
	return r;
}

const agentText = (name: string, extra = "", body = `You are ${name}.`) =>
	`---\nname: ${name}\ndescription: The ${name} agent.\n${extra}---\n${body}\n`;

describe("parsing an agent file", () => {
	it("reads maxDepth (or pi-subagents' maxSubagentDepth) as a whole number, and refuses anything else", () => {
		expect(parsed(agentText("lead", "maxDepth: 1\n")).maxDepth).toBe(1);
		expect(parsed(agentText("lead", "maxSubagentDepth: 0\n")).maxDepth).toBe(0);
		expect(parsed(agentText("lead")).maxDepth).toBeUndefined();
		expect(failed(agentText("lead", "maxDepth: deep\n")).message).toMatch(
			/`maxDepth` must be a whole number from 0 to 8/,
		);
		expect(failed(agentText("lead", "maxDepth: 1\nmaxSubagentDepth: 1\n")).message).toMatch(/keep one/);
	});

	it("reads every field; unknown keys are ignored and the body is the system prompt", () => {
		expect(parsed(FULL)).toEqual({
			name: "auditor",
			description: "Checks things.",
			model: "anthropic/claude-opus-4-8:high",
			thinking: "medium",
			tools: ["read", "grep"],
			permissions: { bash: "deny", edit: "ask", read: "allow" },
			extensions: ["./ext/a.ts", "npm:some-ext"],
			subagentOnlyExtensions: ["./ext/child-only.ts"],
			systemPrompt: "You audit.\n\nSecond paragraph.",
			source: "user",
			path: "/x/a.md",
		});
	});

	it("defaults: model inherit, no tools list (Pi's defaults), no permissions; CRLF line ends work", () => {
		const a = parsed(agentText("plain").replace(/\n/g, "\r\n"));
		expect(a).toEqual({
			name: "plain",
			description: "The plain agent.",
			model: "inherit",
			systemPrompt: "You are plain.",
			source: "user",
			path: "/x/a.md",
		});
		expect("tools" in a || "thinking" in a || "permissions" in a).toBe(false);
	});

	it("accepts `permissions:` as well as `permission:`, tools as a comma-separated line, and thinking inherit", () => {
		const a = parsed(agentText("p", "tools: read, grep ,find,read\nthinking: inherit\npermissions:\n  bash: ask\n"));
		expect(a.tools).toEqual(["read", "grep", "find"]);
		expect(a.permissions).toEqual({ bash: "ask" });
		expect(a.thinking).toBe("inherit");
		expect(parsed(agentText("none", "tools: []\n")).tools).toEqual([]);
	});

	it("reports malformed YAML with the file's line", () => {
		const e = failed("---\nname: broken\ndescription: [unclosed\ntools: read\n---\nbody\n");
		expect(e.path).toBe("/x/a.md");
		expect(e.message).toMatch(/not valid YAML/);
		expect(e.line).toBeGreaterThanOrEqual(3);
		expect(e.line).toBeLessThanOrEqual(4);
		const dup = failed("---\nname: a\ndescription: d\nname: b\n---\n");
		expect(dup).toMatchObject({ line: 4, message: expect.stringMatching(/unique/) });
		expect(formatAgentError(dup)).toMatch(/^\/x\/a\.md:4: /);
	});

	it("reports a bad permission value naming the tool, at that tool's line", () => {
		const e = failed(agentText("p", "tools: read\npermission:\n  read: allow\n  bash: maybe\n"));
		expect(e).toMatchObject({
			line: 7,
			message: expect.stringMatching(/"bash" must be allow, ask or deny; got "maybe"/),
		});
		expect(failed(agentText("p", "permission: deny\n"))).toMatchObject({
			line: 4,
			message: expect.stringMatching(/mapping of tool name/),
		});
		expect(failed(agentText("p", "permission:\n  bash: ask\npermissions:\n  bash: deny\n"))).toMatchObject({
			line: 6,
			message: expect.stringMatching(/both `permission:` and `permissions:`/),
		});
	});

	it("reports a missing or bad name, a missing description, and bad fields at their lines", () => {
		expect(failed("---\ndescription: d\n---\nbody\n")).toMatchObject({
			line: 1,
			message: expect.stringMatching(/`name:` is missing/),
		});
		expect(failed("---\ndescription: d\nname: ../etc\n---\n")).toMatchObject({
			line: 3,
			message: expect.stringMatching(/`name` must be letters/),
		});
		expect(failed("---\nname: a b\ndescription: d\n---\n")).toMatchObject({ line: 2 });
		expect(failed("---\nname: a\n---\n")).toMatchObject({
			line: 1,
			message: expect.stringMatching(/`description:` is missing/),
		});
		expect(failed(agentText("a", "thinking: extreme\n"))).toMatchObject({
			line: 4,
			message: expect.stringMatching(/one of off, minimal.*or inherit; got "extreme"/),
		});
		expect(failed(agentText("a", "model: gpt 5\n"))).toMatchObject({
			line: 4,
			message: expect.stringMatching(/provider\/id/),
		});
		expect(failed(agentText("a", "model: 5\n"))).toMatchObject({ line: 4 });
		expect(failed(agentText("a", "tools:\n  - read\n  - 3\n"))).toMatchObject({
			line: 4,
			message: expect.stringMatching(/`tools` must hold names only/),
		});
		expect(failed(agentText("a", "tools: read grep\n"))).toMatchObject({
			line: 4,
			message: expect.stringMatching(/no spaces/),
		});
		expect(failed(agentText("a", "tools: {read: 1}\n"))).toMatchObject({
			line: 4,
			message: expect.stringMatching(/must be a list/),
		});
	});

	it("reports a file without frontmatter, or with unclosed frontmatter", () => {
		expect(failed("# Just markdown\n")).toMatchObject({
			line: 1,
			message: expect.stringMatching(/starts with a `---` line/),
		});
		expect(failed("---\nname: a\ndescription: d\n")).toMatchObject({
			line: 1,
			message: expect.stringMatching(/not closed/),
		});
		expect(failed("---\n- a\n- b\n---\n")).toMatchObject({
			line: 2,
			message: expect.stringMatching(/must be a mapping/),
		});
		expect(failed("---\nname: *nowhere\ndescription: d\n---\n").message).toMatch(/cannot be read|not valid YAML/);
	});
});

interface Layout {
	packageDir: string;
	agentDir: string;
	cwd: string;
}

function layout(): Layout {
	const packageDir = tempDir();
	const agentDir = tempDir();
	const cwd = tempDir();
	for (const dir of [join(packageDir, "agents"), join(agentDir, "agents"), join(cwd, ".pi", "agents")])
		mkdirSync(dir, { recursive: true });
	return { packageDir, agentDir, cwd };
}

const load = (l: Layout, projectTrusted = true) => loadAgents({ ...l, configDirName: ".pi", projectTrusted });

describe("loading the agents", () => {
	it("reads package, user and project folders in that order, a later one shadowing an earlier one by name", () => {
		const l = layout();
		writeFileSync(join(l.packageDir, "agents", "scout.md"), agentText("scout", "", "package scout"));
		writeFileSync(join(l.packageDir, "agents", "worker.md"), agentText("worker", "", "package worker"));
		writeFileSync(join(l.packageDir, "agents", "notes.txt"), "not an agent");
		writeFileSync(join(l.agentDir, "agents", "my-scout.md"), agentText("scout", "", "user scout"));
		writeFileSync(join(l.agentDir, "agents", "helper.md"), agentText("helper", "", "user helper"));
		writeFileSync(join(l.cwd, ".pi", "agents", "helper.md"), agentText("helper", "", "project helper"));
		const { agents, errors } = load(l);
		expect(errors).toEqual([]);
		expect([...agents.keys()].sort()).toEqual(["helper", "scout", "worker"]);
		expect(agents.get("scout")).toMatchObject({
			source: "user",
			systemPrompt: "user scout",
			path: join(l.agentDir, "agents", "my-scout.md"),
		});
		expect(agents.get("worker")).toMatchObject({ source: "package", systemPrompt: "package worker" });
		expect(agents.get("helper")).toMatchObject({ source: "project", systemPrompt: "project helper" });
	});

	it("ignores an untrusted project's agents entirely", () => {
		const l = layout();
		writeFileSync(join(l.agentDir, "agents", "helper.md"), agentText("helper", "", "user helper"));
		writeFileSync(join(l.cwd, ".pi", "agents", "helper.md"), agentText("helper", "", "project helper"));
		writeFileSync(join(l.cwd, ".pi", "agents", "evil.md"), agentText("evil"));
		writeFileSync(join(l.cwd, ".pi", "agents", "broken.md"), "no frontmatter");
		const { agents, errors } = load(l, false);
		expect(errors).toEqual([]);
		expect([...agents.keys()]).toEqual(["helper"]);
		expect(agents.get("helper")?.source).toBe("user");
	});

	it("reports a broken file with path and line and loads the rest; a missing folder is empty", () => {
		const l = layout();
		const bad = join(l.agentDir, "agents", "bad.md");
		writeFileSync(bad, agentText("bad", "permission:\n  bash: sometimes\n"));
		writeFileSync(join(l.agentDir, "agents", "good.md"), agentText("good"));
		const { agents, errors } = loadAgents({
			packageDir: tempDir(),
			agentDir: l.agentDir,
			cwd: join(l.cwd, "nowhere"),
			configDirName: ".pi",
			projectTrusted: true,
		});
		expect([...agents.keys()]).toEqual(["good"]);
		expect(errors).toEqual([
			{
				path: bad,
				line: 5,
				message: expect.stringMatching(/"bash" must be allow, ask or deny/),
				names: ["bad"],
				source: "user",
			},
		]);
	});

	it("reports two files of one name in the same folder and keeps the first by file name", () => {
		const l = layout();
		writeFileSync(join(l.agentDir, "agents", "a.md"), agentText("twin", "", "first"));
		writeFileSync(join(l.agentDir, "agents", "b.md"), agentText("twin", "", "second"));
		const { agents, errors } = load(l);
		expect(agents.get("twin")?.systemPrompt).toBe("first");
		expect(errors).toEqual([
			{
				path: join(l.agentDir, "agents", "b.md"),
				message: expect.stringMatching(/already used by .*a\.md/),
				names: ["twin"],
				source: "user",
			},
		]);
	});

	it("refuses a file that links out of the project, and a project agents folder that links out", () => {
		const l = layout();
		const outside = tempDir();
		writeFileSync(join(outside, "stolen.md"), agentText("stolen"));
		symlinkSync(join(outside, "stolen.md"), join(l.cwd, ".pi", "agents", "stolen.md"));
		writeFileSync(join(l.cwd, "docs.md"), agentText("inside"));
		symlinkSync(join(l.cwd, "docs.md"), join(l.cwd, ".pi", "agents", "inside.md"));
		const first = load(l);
		expect([...first.agents.keys()]).toEqual(["inside"]);
		expect(first.errors).toEqual([
			{
				path: join(l.cwd, ".pi", "agents", "stolen.md"),
				message: expect.stringMatching(/leads outside/),
				names: ["stolen"],
				source: "project",
			},
		]);

		const other = layout();
		const outsideDir = tempDir();
		writeFileSync(join(outsideDir, "x.md"), agentText("x"));
		mkdirSync(join(other.cwd, ".q"));
		symlinkSync(outsideDir, join(other.cwd, ".q", "agents"));
		const second = loadAgents({ ...other, configDirName: ".q", projectTrusted: true });
		expect(second.agents.size).toBe(0);
		expect(second.errors).toEqual([
			{
				path: join(other.cwd, ".q", "agents"),
				message: expect.stringMatching(/agents folder leads outside/),
				source: "project",
			},
		]);
	});

	it("refuses a FIFO named like an agent at once, without waiting for a writer", () => {
		const l = layout();
		const fifo = join(l.cwd, ".pi", "agents", "pipe.md");
		execFileSync("mkfifo", [fifo]);
		writeFileSync(join(l.cwd, ".pi", "agents", "real.md"), agentText("real"));
		const started = Date.now();
		const { agents, errors } = load(l);
		expect(Date.now() - started).toBeLessThan(1000);
		expect([...agents.keys()]).toEqual(["real"]);
		expect(errors).toEqual([
			{ path: fifo, message: expect.stringMatching(/a FIFO, not a regular file/), names: ["pipe"], source: "project" },
		]);
	});

	it("refuses an agent file over 256 KiB", () => {
		const l = layout();
		writeFileSync(join(l.agentDir, "agents", "huge.md"), agentText("huge", "", "x".repeat(300 * 1024)));
		const { agents, errors } = load(l);
		expect(agents.has("huge")).toBe(false);
		expect(errors[0]?.message).toMatch(/over the 262144-byte limit/);
	});

	it("re-reads a file that changed and not one that did not", () => {
		const l = layout();
		const path = join(l.agentDir, "agents", "a.md");
		writeFileSync(path, agentText("a", "", "one"));
		const first = load(l).agents.get("a");
		expect(first?.systemPrompt).toBe("one");
		expect(load(l).agents.get("a")).toBe(first); // the cached definition, not a new parse
		writeFileSync(path, agentText("a", "", "two, longer"));
		utimesSync(path, new Date(), new Date(Date.now() + 5000));
		expect(load(l).agents.get("a")?.systemPrompt).toBe("two, longer");
	});
});

describe("the shipped agents", () => {
	it("sit in the package's agents/ folder and load without errors", () => {
		expect(PACKAGE_AGENTS_DIR).toBe(join(PACKAGE_DIR, "agents"));
		expect(existsSync(join(PACKAGE_DIR, "package.json"))).toBe(true);
		const { agents, errors } = loadAgents({
			agentDir: tempDir(),
			cwd: tempDir(),
			configDirName: ".pi",
			projectTrusted: false,
		});
		expect(errors).toEqual([]);
		expect([...agents.keys()].sort()).toEqual(["reviewer", "scout", "worker"]);
		for (const agent of agents.values()) {
			expect(agent.source).toBe("package");
			expect(agent.model).toBe("inherit");
			expect(agent.systemPrompt.length).toBeGreaterThan(200);
		}
	});

	it("give scout and reviewer no editing tools, and worker the tools to edit and verify", () => {
		const { agents } = loadAgents({ agentDir: tempDir(), cwd: tempDir(), configDirName: ".pi", projectTrusted: false });
		expect(agents.get("scout")?.tools).toEqual(["read", "grep", "find", "ls"]);
		expect(agents.get("reviewer")?.tools).toEqual(["read", "grep", "find", "ls", "bash"]);
		expect(agents.get("worker")?.tools).toEqual(["read", "grep", "find", "ls", "edit", "write", "bash"]);
		for (const name of ["scout", "reviewer"])
			expect(agents.get(name)?.tools).not.toEqual(expect.arrayContaining(["edit"]));
		expect(readFileSync(join(PACKAGE_AGENTS_DIR, "worker.md"), "utf8")).toMatch(/exit status/);
	});
});

describe("docs/children.md", () => {
	it("shows an example agent file that parses as it says", () => {
		const readme = readFileSync(join(PACKAGE_DIR, "docs", "children.md"), "utf8");
		const example = readme.split("## Agent files")[1]?.split("```text\n")[1]?.split("\n```")[0];
		expect(example).toBeDefined();
		const agent = parsed(`${example}\n`);
		expect(agent).toMatchObject({
			name: "api-checker",
			tools: ["read", "grep", "find", "ls", "bash"],
			permissions: { edit: "ask", write: "deny" },
		});
	});
});
