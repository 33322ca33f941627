// Rule sets, layering and specificity, as pure functions; and that a child whose policy cannot
// ask or deny gets no gate at all.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { childPolicy, gates, layerPolicy, readGlobalRules, RuleMatcher, ruleSetProblems, type RuleSet } from "../../src/permissions/index.ts";
import { WatchdogSession } from "../../src/session/index.ts";
import { tempDir } from "../support/temp.ts";

const policy = (global?: RuleSet, agent?: RuleSet) => layerPolicy(global ? { rules: global, file: "/g/config.json" } : undefined, agent ? { rules: agent, file: "/a/worker.md" } : undefined);
const decide = (p: ReturnType<typeof policy>, tool: string) => new RuleMatcher(p).decide(tool).value;

describe("specificity", () => {
	it("an exact name beats any glob; more literal characters beat fewer; a tie goes to the stricter", () => {
		const p = policy({ "*": "deny", "mcp__*": "ask", "mcp__github__*": "allow", mcp__github__delete_repo: "deny", "mcp__?ithub__*": "ask", "x*": "allow", "x?": "deny" });
		expect(decide(p, "mcp__github__create_issue")).toBe("allow"); // 13 literal characters over 11 and 5
		expect(decide(p, "mcp__github__delete_repo")).toBe("deny"); // exact
		expect(decide(p, "mcp__slack__post")).toBe("ask");
		expect(decide(p, "write")).toBe("deny");
		expect(decide(p, "xy")).toBe("deny"); // "x*" and "x?" both have one literal: the stricter wins
	});

	it("is anchored and case-sensitive, and braces, extglobs and negation are not glob syntax", () => {
		const p = policy({ "mcp__*": "deny" });
		expect(decide(p, "xmcp__a")).toBe("allow");
		expect(decide(p, "MCP__a")).toBe("allow");
		expect(ruleSetProblems({ "{read,write}": "deny", "!(read)": "deny", "a/b": "deny", "": "deny" })).toHaveLength(4);
	});

	it("asks the agent's layer first: its rules override the global ones for every tool they match", () => {
		const p = policy({ write: "deny", "mcp__github__*": "ask", read: "ask" }, { "mcp__*": "deny", write: "allow" });
		expect(decide(p, "write")).toBe("allow");
		expect(decide(p, "mcp__github__x")).toBe("deny");
		expect(decide(p, "read")).toBe("ask");
		expect(decide(p, "ls")).toBe("allow");
	});

	it("never gates bash or the tools that reach the parent or the user, and refuses rules naming them", () => {
		const p = policy({ "*": "deny" });
		for (const tool of ["bash", "contact_supervisor", "subagent_supervisor", "intercom"]) expect(decide(p, tool)).toBe("allow");
		expect(ruleSetProblems({ bash: "ask" })[0]).toMatch(/command-level guard/);
		expect(ruleSetProblems({ contact_supervisor: "deny" })[0]).toMatch(/never gated/);
		expect(ruleSetProblems({ write: "sometimes" as never })[0]).toMatch(/must be allow, ask or deny; got "sometimes"/);
	});
});

describe("when there is a gate", () => {
	it("only when something can still ask or deny", () => {
		expect(gates(undefined)).toBe(false);
		expect(gates(policy({ write: "allow", "mcp__*": "allow" }))).toBe(false);
		expect(gates(policy({ write: "deny" }, { write: "allow" }))).toBe(false);
		// A wildcard never lifts a global rule, so the gate stays.
		expect(gates(policy({ write: "deny", edit: "ask" }, { "*": "allow" }))).toBe(true);
		expect(gates(policy({ write: "deny" }))).toBe(true);
		expect(gates(policy(undefined, { edit: "ask" }))).toBe(true);
	});

	it("a child session whose policy cannot ask or deny installs none", () => {
		const dir = tempDir("pi-watchdog-agent-");
		const location = { agentDir: () => dir, configDirName: ".pi" };
		const host = { appendEntry: () => {}, steer: () => {} };
		expect(new WatchdogSession(location, host, { role: "worker", permissions: policy({ write: "allow" }) }).permissionGated).toBe(false);
		expect(new WatchdogSession(location, host, { role: "worker" }).permissionGated).toBe(false);
		expect(new WatchdogSession(location, host, { role: "worker", permissions: policy({ write: "ask" }) }).permissionGated).toBe(true);
	});
});

describe("the global rules file", () => {
	const withFile = (text: string) => {
		const agentDir = tempDir("pi-watchdog-agent-");
		mkdirSync(join(agentDir, "extensions", "subagent"), { recursive: true });
		writeFileSync(join(agentDir, "extensions", "subagent", "config.json"), text);
		return agentDir;
	};

	it("is optional, keeps other keys alone, and gives no policy when nothing asks or denies", () => {
		expect(readGlobalRules(tempDir("pi-watchdog-agent-"))).toMatchObject({ ok: true });
		const r = readGlobalRules(withFile('{ "other": { "x": 1 }, "permissions": { "rules": { "write": "allow" } } }'));
		expect(r).toMatchObject({ ok: true, rules: { write: "allow" } });
		expect(childPolicy(r, { name: "worker", path: "/w.md" })).toEqual({ ok: true });
		expect(childPolicy(r, { name: "worker", path: "/w.md", permissions: { edit: "deny" } })).toMatchObject({ ok: true, policy: { rules: [{ pattern: "edit", origin: "agent" }, { pattern: "write", origin: "global" }] } });
	});

	it("names the file and the problem for wrong types, and the launch is refused", () => {
		const r = readGlobalRules(withFile('{ "permissions": { "rules": { "write": 1 } } }'));
		expect(r.ok).toBe(false);
		expect(!r.ok && r.error).toMatch(/config\.json: permissions\.rules\.write: must be allow, ask or deny/);
		expect(childPolicy(r, { name: "worker", path: "/w.md" })).toMatchObject({ ok: false, error: expect.stringMatching(/no child runs ungated.*nothing was launched/) });
		expect(readGlobalRules(withFile('{ "permissions": "deny" }'))).toMatchObject({ ok: false, error: expect.stringMatching(/permissions: must be an object with `rules`/) });
		expect(readGlobalRules(withFile("[1]"))).toMatchObject({ ok: false, error: expect.stringMatching(/must be a JSON object/) });
	});
});
