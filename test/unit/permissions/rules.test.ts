// Rule sets, layering and specificity, as pure functions; and that a child whose policy cannot
// ask or deny gets no gate at all.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	childPolicy,
	gates,
	layerPolicy,
	readGlobalRules,
	RuleMatcher,
	ruleSetProblems,
	type RuleSet,
	under,
} from "../../../src/permissions/index.ts";
import { describeRule } from "../../../src/permissions/rules.ts";
import { WatchdogSession } from "../../../src/session/index.ts";
import { tempDir } from "../../support/temp.ts";

const policy = (global?: RuleSet, agent?: RuleSet) =>
	layerPolicy(
		global ? { rules: global, file: "/g/config.json" } : undefined,
		agent ? { rules: agent, file: "/a/worker.md" } : undefined,
	);
const decide = (p: ReturnType<typeof policy>, tool: string) => new RuleMatcher(p).decide(tool).value;

describe("specificity", () => {
	it("an exact name beats any glob; more literal characters beat fewer; a tie goes to the stricter", () => {
		const p = policy({
			"*": "deny",
			"mcp__*": "ask",
			"mcp__github__*": "allow",
			mcp__github__delete_repo: "deny",
			"mcp__?ithub__*": "ask",
			"x*": "allow",
			"x?": "deny",
		});
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

	it("lets an agent's exact rule replace the global decision, while its globs only make it stricter", () => {
		const p = policy(
			{ write: "deny", edit: "ask", "mcp__*": "ask", read: "allow" },
			{ "*": "allow", write: "allow", "mcp__gh*": "allow", "re*": "deny" },
		);
		expect(decide(p, "write")).toBe("allow"); // exact: lifts the global deny
		expect(decide(p, "edit")).toBe("ask"); // `*: allow` lifts nothing
		expect(decide(p, "mcp__gh_issue")).toBe("ask"); // a narrower glob lifts nothing either
		expect(decide(p, "read")).toBe("deny"); // a glob may tighten
		expect(decide(p, "ls")).toBe("allow");
		expect(new RuleMatcher(p).decide("edit").rule).toMatchObject({ pattern: "edit", origin: "global" });
	});

	it("lets a project agent's rules only tighten, even one naming the tool exactly, over a user agent's and the global ones", () => {
		const p = layerPolicy(
			{ rules: { write: "deny", edit: "ask" }, file: "/g/config.json" },
			{ rules: { write: "allow" }, file: "/u/helper.md" },
			{ rules: { write: "deny", edit: "allow", ls: "ask", "*": "allow" }, file: "/p/.pi/agents/helper.md" },
		);
		const m = new RuleMatcher(p);
		expect(m.decide("write")).toMatchObject({ value: "deny", rule: { origin: "project" } }); // the user agent allowed it; the project tightens
		expect(m.decide("edit")).toMatchObject({ value: "ask", rule: { origin: "global" } }); // the project's allow lifts nothing
		expect(m.decide("ls").value).toBe("ask");
		expect(m.decide("grep").value).toBe("allow");
		expect(describeRule(m.decide("ls").rule)).toBe('"ls": "ask" (project agent file /p/.pi/agents/helper.md)');
		const loosening = layerPolicy({ rules: { write: "deny" }, file: "/g" }, undefined, {
			rules: { write: "allow" },
			file: "/p",
		});
		expect(new RuleMatcher(loosening).decide("write").value).toBe("deny");
		expect(gates(loosening)).toBe(true);
	});

	it("childPolicy puts a project agent's rules in the tightening layer and keeps the user agent's it stands in for", () => {
		const global = { ok: true as const, rules: { edit: "deny" as const }, file: "/g/config.json" };
		const r = childPolicy(global, {
			name: "helper",
			path: "/p/helper.md",
			source: "project",
			permissions: { edit: "allow", write: "ask" },
			base: { path: "/u/helper.md", permissions: { edit: "allow" } },
		});
		if (!r.ok || !r.policy) expect.fail("expected a policy");
		const m = new RuleMatcher(r.policy);
		// The user agent's exact allow lifts the global deny; the project's agreeing allow adds nothing.
		expect(m.decide("edit").value).toBe("allow");
		expect(r.policy.rules).toContainEqual({ pattern: "edit", value: "allow", origin: "agent", file: "/u/helper.md" });
		expect(m.decide("write")).toMatchObject({ value: "ask", rule: { origin: "project" } });
		const alone = childPolicy(global, {
			name: "helper",
			path: "/p/helper.md",
			source: "project",
			permissions: { edit: "allow" },
		});
		if (!alone.ok || !alone.policy) expect.fail("expected a policy");
		expect(new RuleMatcher(alone.policy).decide("edit").value).toBe("deny");
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
		for (const tool of ["bash", "contact_supervisor", "subagent_supervisor", "intercom"])
			expect(decide(p, tool)).toBe("allow");
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
		expect(
			new WatchdogSession(location, host, { role: "worker", permissions: policy({ write: "allow" }) }).permissionGated,
		).toBe(false);
		expect(new WatchdogSession(location, host, { role: "worker" }).permissionGated).toBe(false);
		expect(
			new WatchdogSession(location, host, { role: "worker", permissions: policy({ write: "ask" }) }).permissionGated,
		).toBe(true);
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
		expect(childPolicy(r, { name: "worker", path: "/w.md", permissions: { edit: "deny" } })).toMatchObject({
			ok: true,
			policy: {
				rules: [
					{ pattern: "edit", origin: "agent" },
					{ pattern: "write", origin: "global" },
				],
			},
		});
	});

	it("names the file and the problem for wrong types, and the launch is refused", () => {
		const r = readGlobalRules(withFile('{ "permissions": { "rules": { "write": 1 } } }'));
		expect(r.ok).toBe(false);
		expect(!r.ok && r.error).toMatch(/config\.json: permissions\.rules\.write: must be allow, ask or deny/);
		expect(childPolicy(r, { name: "worker", path: "/w.md" })).toMatchObject({
			ok: false,
			error: expect.stringMatching(/no child runs ungated.*nothing was launched/),
		});
		expect(readGlobalRules(withFile('{ "permissions": "deny" }'))).toMatchObject({
			ok: false,
			error: expect.stringMatching(/permissions: must be an object with `rules`/),
		});
		expect(readGlobalRules(withFile("[1]"))).toMatchObject({
			ok: false,
			error: expect.stringMatching(/must be a JSON object/),
		});
	});
});

describe("a nested child's policy", () => {
	const lead = policy(undefined, { edit: "deny", "mcp_*": "ask" });
	it("runs under the launching child's rules: its own cannot lift them, only tighten", () => {
		const tester = under(policy(undefined, { edit: "allow", read: "allow", write: "ask" }), lead) as ReturnType<
			typeof policy
		>;
		expect(decide(tester, "edit")).toBe("deny");
		expect(decide(tester, "mcp_x")).toBe("ask");
		expect(decide(tester, "write")).toBe("ask");
		expect(decide(tester, "read")).toBe("allow");
		expect(gates(tester)).toBe(true);
		// a grandchild with no rules of its own still gets the gate of the level above
		const bare = under(undefined, lead) as ReturnType<typeof policy>;
		expect(gates(bare)).toBe(true);
		expect(decide(bare, "edit")).toBe("deny");
		// nothing above that can ask or deny: the child's own policy as it was
		const own = policy(undefined, { write: "ask" });
		expect(under(own, policy({ write: "allow" }))).toBe(own);
	});
});
