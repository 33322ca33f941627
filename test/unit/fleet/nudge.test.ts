// --nudge over real files: policy off skips, handsoff flags without sending, a sign-off verdict is
// shown waiting, no reachable pane is `unreachable` (never resumed blind), the session that ran the
// pass is never nudged, and the ledger's cooldown holds across passes; the notify command hears each
// attention row once per state.
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Decider } from "../../../src/fleet/decide.ts";
import { readLedger } from "../../../src/fleet/ledger.ts";
import { fleetRun } from "../../../src/fleet/run.ts";
import { tempDir } from "../../support/temp.ts";

const MIN = 60_000;

function idleSession(agentDir: string, id: string, cwd: string): void {
	const dir = join(agentDir, "sessions", "--w--");
	mkdirSync(dir, { recursive: true });
	const lines = [
		{ type: "session", version: 3, id, timestamp: "2026-12-01T10:00:00Z", cwd },
		{
			type: "message",
			id: "a",
			parentId: null,
			message: { role: "user", content: [{ type: "text", text: "Fix it" }] },
		},
		{
			type: "message",
			id: "b",
			parentId: "a",
			message: {
				role: "assistant",
				content: [{ type: "text", text: "Let me run the tests now." }],
				stopReason: "stop",
			},
		},
	];
	const path = join(dir, `${id}.jsonl`);
	writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
	const t = (Date.now() - 10 * MIN) / 1000;
	utimesSync(path, t, t);
}

function options(agentDir: string, extra: Partial<Parameters<typeof fleetRun>[0]> = {}) {
	return {
		agentDir,
		claudeDir: false as const,
		env: { TMUX_TMPDIR: tempDir("fleet-no-tmux-"), PATH: process.env.PATH },
		times: { stallMs: 3 * MIN, dormantMs: 24 * 60 * MIN },
		nudge: true,
		limits: { cooldownMs: 10 * MIN, maxNudges: 3 },
		...extra,
	};
}

describe("fleet --nudge", () => {
	it("honours policy, the decider's sign-off and reachability", async () => {
		const agentDir = tempDir("fleet-nudge-");
		for (const id of ["s-off", "s-hands", "s-sign", "s-go"]) idleSession(agentDir, id, tempDir("fleet-cwd-"));
		mkdirSync(join(agentDir, "watchdog"), { recursive: true });
		writeFileSync(
			join(agentDir, "watchdog", "fleet-ledger.json"),
			JSON.stringify({ sessions: { "s-off": { policy: "off" }, "s-hands": { policy: "handsoff" } } }),
		);
		const asked: string[][] = [];
		const decider: Decider = async (candidates) => {
			asked.push(candidates.map((c) => c.id));
			return {
				verdicts: new Map(
					candidates.map((c) => [
						c.id,
						c.id === "s-sign"
							? { action: "SKIP" as const, reason: "wants to publish", signOff: true, by: "m" }
							: { action: "NUDGE" as const, message: "Run the tests now.", reason: "announced", by: "m" },
					]),
				),
			};
		};
		const { pass } = await fleetRun(options(agentDir, { decider }));
		const row = (id: string) => pass.sessions.find((s) => s.id === id);
		expect(asked).toEqual([["s-go", "s-hands", "s-sign"]]); // one call for the pass; policy off never asked about
		expect(row("s-off")?.delivery).toMatchObject({ outcome: "skipped", reason: "policy off" });
		expect(row("s-hands")?.delivery).toMatchObject({ outcome: "flagged" });
		expect(row("s-sign")).toMatchObject({ state: "waiting", delivery: { outcome: "skipped" } });
		expect(row("s-go")?.delivery).toMatchObject({ outcome: "unreachable" });
		const history = readFileSync(join(agentDir, "watchdog", "history.jsonl"), "utf8");
		expect(history).not.toContain("Let me run the tests now");
		expect(history).toContain('"source":"fleet"');
	});

	it("the template nudges without a model, and the cooldown holds across passes", async () => {
		const agentDir = tempDir("fleet-cool-");
		idleSession(agentDir, "s1", tempDir("fleet-cwd-"));
		// A ledger that says s1 was nudged a minute ago.
		mkdirSync(join(agentDir, "watchdog"), { recursive: true });
		writeFileSync(
			join(agentDir, "watchdog", "fleet-ledger.json"),
			JSON.stringify({ sessions: { s1: { lastNudgeAt: Date.now() - MIN, nudges: 1 } } }),
		);
		const first = await fleetRun(options(agentDir));
		expect(first.pass.sessions[0]?.delivery).toMatchObject({
			outcome: "skipped",
			reason: expect.stringContaining("cooldown"),
		});
		const later = await fleetRun(options(agentDir, { now: Date.now() + 20 * MIN }));
		const d = later.pass.sessions[0]?.delivery;
		expect(d?.outcome).toBe("unreachable");
		expect(d?.message).toContain("The task: Fix it");
		expect(d?.message).toContain("Next step:");
		expect(readLedger(agentDir).s1?.nudges).toBe(1); // not delivered: not counted
	});

	it("never nudges the session that ran the pass (its user is there), by its id or its file", async () => {
		const agentDir = tempDir("fleet-self-");
		for (const id of ["s-self", "s-file", "s-other"]) idleSession(agentDir, id, tempDir("fleet-cwd-"));
		const byId = await fleetRun(options(agentDir, { self: { id: "s-self" } }));
		const row = (id: string) => byId.pass.sessions.find((s) => s.id === id);
		expect(row("s-self")).toMatchObject({
			state: "idle",
			delivery: { outcome: "skipped", reason: "the session that ran this pass" },
		});
		expect(row("s-other")?.delivery?.outcome).toBe("unreachable"); // the others are nudged as ever
		const file = join(agentDir, "sessions", "--w--", "s-file.jsonl");
		const byFile = await fleetRun(options(agentDir, { self: { file }, now: Date.now() + 60 * MIN }));
		expect(byFile.pass.sessions.find((s) => s.id === "s-file")?.delivery?.reason).toBe(
			"the session that ran this pass",
		);
	});

	it("tells the notify command of each attention row once per state", async () => {
		const agentDir = tempDir("fleet-notify-");
		idleSession(agentDir, "s1", tempDir("fleet-cwd-"));
		const out = join(tempDir("fleet-notify-out-"), "lines.jsonl");
		const notify = `cat >> '${out}'`;
		await fleetRun(options(agentDir, { nudge: false, notify }));
		await fleetRun(options(agentDir, { nudge: false, notify }));
		const lines = readFileSync(out, "utf8").trim().split("\n");
		expect(lines).toHaveLength(1);
		expect(JSON.parse(lines[0] as string)).toMatchObject({ id: "s1", state: "idle" });
	});
});
