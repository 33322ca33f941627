// `pi-watchdog scan` over folders and over Pi's own session folders, on real files: a tree with
// Pi, Claude Code and junk files, a nested folder, links in and out, a FIFO; the project's
// sessions found as Pi names their folder; --all; --since; the summary; progress; exit codes.
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { main } from "../../../src/scan/cli.ts";
import { projectSessionDir } from "../../../src/scan/pi-sessions.ts";
import { tempDir } from "../../support/temp.ts";
import { runBin, writeSessionFile, writeText } from "../../support/session-files.ts";

/** A Pi session of `calls` tool calls; `loop` makes them the same call with the same result. */
function piSession(dir: string, name: string, options: { cwd?: string; calls?: number; loop?: boolean } = {}): string {
	mkdirSync(dir, { recursive: true });
	const lines: object[] = [
		{ type: "session", version: 3, id: name, timestamp: "2026-07-01T10:00:00.000Z", cwd: options.cwd ?? "/repo" },
	];
	const entry = (id: number, message: object) => ({
		type: "message",
		id: `e${id}`,
		parentId: id ? `e${id - 1}` : null,
		timestamp: "2026-07-01T10:00:00.000Z",
		message,
	});
	lines.push(entry(0, { role: "user", content: "check the build", timestamp: 1 }));
	for (let i = 0; i < (options.calls ?? 1); i++) {
		const command = options.loop ? "git status" : `ls dir${i}`;
		lines.push(
			entry(2 * i + 1, {
				role: "assistant",
				content: [{ type: "toolCall", id: `c${i}`, name: "bash", arguments: { command } }],
				stopReason: "toolUse",
			}),
		);
		lines.push(
			entry(2 * i + 2, {
				role: "toolResult",
				toolCallId: `c${i}`,
				toolName: "bash",
				content: [{ type: "text", text: options.loop ? "nothing to commit" : `file${i}` }],
				isError: false,
			}),
		);
	}
	return writeSessionFile(name, lines, dir);
}

function claudeLog(dir: string): string {
	mkdirSync(dir, { recursive: true });
	return writeSessionFile(
		"session.jsonl",
		[
			{ type: "user", uuid: "u0", sessionId: "s", cwd: "/repo", message: { role: "user", content: "read it" } },
			{
				type: "assistant",
				uuid: "a0",
				sessionId: "s",
				message: {
					id: "m0",
					role: "assistant",
					content: [{ type: "tool_use", id: "t0", name: "Read", input: { file_path: "/repo/a.ts" } }],
				},
			},
			{
				type: "user",
				uuid: "r0",
				sessionId: "s",
				message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t0", content: "export {}" }] },
			},
		],
		dir,
	);
}

/** The tree the folder tests walk, and what is outside it. */
function tree(): { root: string; looping: string; nested: string; claude: string } {
	const root = tempDir("pi-watchdog-tree-");
	const outside = tempDir("pi-watchdog-outside-");
	const looping = piSession(join(root, "pi"), "2026-07-01_loop.jsonl", { calls: 8, loop: true });
	const nested = piSession(join(root, "pi", "nested", "deeper"), "clean.jsonl", { calls: 2 });
	const claude = claudeLog(join(root, "claude", "proj"));
	writeText("junk.jsonl", '{"hello": "world"}\n', root);
	writeText("notes.md", "# Shopping\n\n- milk\n", root);
	writeText("notes.txt", "not a session name: never opened\n", root);
	piSession(outside, "elsewhere.jsonl", { calls: 8, loop: true });
	symlinkSync(join(outside, "elsewhere.jsonl"), join(root, "out.jsonl"));
	symlinkSync(outside, join(root, "outdir"));
	symlinkSync(nested, join(root, "again.jsonl")); // inside: the same file, scanned once
	execFileSync("mkfifo", [join(root, "pipe.jsonl")]);
	let deep = root;
	for (let i = 0; i < 13; i++) deep = join(deep, `d${i}`);
	piSession(deep, "too-deep.jsonl");
	return { root, looping, nested, claude };
}

describe("pi-watchdog scan DIR", () => {
	it("walks the tree: sessions of each format, the rest listed once at the end, a summary with the worst first", async () => {
		const { root, looping, nested, claude } = tree();
		const { code, stdout, stderr } = await runBin(["scan", root]);
		expect(code).toBe(0);
		const scanned = [...stdout.matchAll(/^(\/\S+)\n  format: (\S+),/gm)].map((m) => [m[1], m[2]]);
		expect(scanned.sort()).toEqual(
			[
				[claude, "claude-code"],
				[looping, "pi"],
				[nested, "pi"],
			].sort(),
		);
		expect(stderr).toContain(`${join(root, "pipe.jsonl")}: not a regular file; not read`);
		expect(stderr).toMatch(
			new RegExp(
				`${join(root, "out.jsonl")}: a symbolic link leading out of the folder \\(to .*elsewhere\\.jsonl\\); not followed`,
			),
		);
		expect(stderr).toMatch(/d11: more than 12 folders deep; not walked/);
		expect(stderr).toMatch(
			/2 file\(s\) not a recognised session format \(.*\):\n {2}\S*junk\.jsonl\n {2}\S*notes\.md\n/,
		);
		expect(stderr.match(/junk\.jsonl/g)).toHaveLength(1);
		expect(`${stdout}${stderr}`).not.toMatch(/notes\.txt|elsewhere\.jsonl\n|again\.jsonl/);
		expect(stdout).toMatch(
			/Summary: 3 session file\(s\) scanned, 5 not scanned \(listed on stderr\)\n  loops:  1 flagged\n  claims: 0 flagged/,
		);
		expect(stdout).toMatch(
			new RegExp(`Worst sessions first:\\n  \\d+ loop signal\\(s\\) covering 8 of 8 calls: ${looping}\\n$`),
		);
	});

	it("with --json prints one object per file on stdout and nothing else", async () => {
		const { root } = tree();
		const { code, stdout } = await runBin(["scan", "--json", root]);
		expect(code).toBe(0);
		const reports = stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
		expect(reports.map((r) => r.loop.flagged).sort()).toEqual([false, false, true]);
	});

	it("exits 2 only when nothing could be read", async () => {
		const junk = tempDir("pi-watchdog-junk-");
		writeText("junk.jsonl", "{}\n", junk);
		execFileSync("mkfifo", [join(junk, "pipe.jsonl")]);
		const bad = await runBin(["scan", junk]);
		expect(bad.code).toBe(2);
		expect(bad.stderr).toMatch(/pipe\.jsonl: not a regular file/);
		const empty = await runBin(["scan", tempDir("pi-watchdog-empty-")]);
		expect(empty.code).toBe(2);
		expect(empty.stderr).toMatch(/no session files found/);
		const fifo = await runBin(["scan", join(junk, "pipe.jsonl")]);
		expect(fifo.code).toBe(2);
		expect(fifo.stderr).toMatch(/pipe\.jsonl: cannot read the file \(not a regular file\)/);
	});

	it("keeps files modified since --since", async () => {
		const dir = tempDir("pi-watchdog-since-");
		const old = piSession(dir, "old.jsonl");
		const fresh = piSession(dir, "fresh.jsonl");
		const month = (Date.now() - 30 * 86_400_000) / 1000;
		utimesSync(old, month, month);
		const { code, stdout } = await runBin(["scan", "--since", "7d", dir]);
		expect(code).toBe(0);
		expect(stdout).toContain(fresh);
		expect(stdout).not.toContain(old);
		expect(stdout).toMatch(/Summary: 1 session file\(s\) scanned, 1 older than --since left out/);
		const none = await runBin(["scan", "--since=1h", old]);
		expect(none.code).toBe(2);
		expect(none.stderr).toMatch(/no session files found modified since the --since time/);
	});

	it("draws progress on stderr only when it is a terminal and there are many files", async () => {
		const dir = tempDir("pi-watchdog-many-");
		for (let i = 0; i < 20; i++) piSession(dir, `s${i}.jsonl`);
		const run = async (stderrIsTTY: boolean) => {
			let err = "";
			const code = await main(
				["scan", "--json", dir],
				() => {},
				(s) => (err += s),
				{ stderrIsTTY },
			);
			return { code, err };
		};
		const tty = await run(true);
		expect(tty.code).toBe(0);
		expect(tty.err).toContain("\rpi-watchdog scan: 20/20 files");
		expect((await run(false)).err).toBe("");
	});
});

describe("pi-watchdog scan without a path", () => {
	/** An agent folder holding sessions for `project` and for another project. */
	function agentWithSessions() {
		const agent = tempDir("pi-watchdog-agent-");
		const project = realpathSync(tempDir("pi-watchdog-project-"));
		const mine = piSession(projectSessionDir(project, agent), "2026-07-01_mine.jsonl", {
			cwd: project,
			calls: 8,
			loop: true,
		});
		const theirs = piSession(join(agent, "sessions", "--elsewhere--"), "2026-07-01_theirs.jsonl", {
			cwd: "/elsewhere",
		});
		return { agent, project, mine, theirs };
	}

	it("names the project's session folder as Pi does", () => {
		const agent = tempDir("pi-watchdog-agent-");
		const project = realpathSync(tempDir("pi-watchdog-project-"));
		const before = process.env.PI_CODING_AGENT_DIR;
		process.env.PI_CODING_AGENT_DIR = agent;
		try {
			expect(projectSessionDir(project, agent)).toBe(SessionManager.create(project).getSessionDir());
		} finally {
			if (before === undefined) delete process.env.PI_CODING_AGENT_DIR;
			else process.env.PI_CODING_AGENT_DIR = before;
		}
	});

	it("scans the current project's Pi sessions, and with --all every project's", async () => {
		const { agent, project, mine, theirs } = agentWithSessions();
		const env = { PI_CODING_AGENT_DIR: agent, PI_CODING_AGENT_SESSION_DIR: "" };
		const own = await runBin(["scan"], { cwd: project, env });
		expect(own.code).toBe(0);
		expect(own.stdout).toContain(mine);
		expect(own.stdout).not.toContain(theirs);
		expect(own.stdout).toMatch(/Summary: 1 session file\(s\) scanned\n  loops:  1 flagged/);
		const all = await runBin(["scan", "--all", "--json"], { cwd: project, env });
		expect(all.code).toBe(0);
		expect(
			all.stdout
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l).file)
				.sort(),
		).toEqual([mine, theirs].sort());
		const none = await runBin(["scan"], { cwd: realpathSync(tempDir("pi-watchdog-new-")), env });
		expect(none.code).toBe(2);
		expect(none.stderr).toMatch(/no session files found in .*sessions\/--.*pi-watchdog-new-/);
	});

	it("takes a shared session folder (PI_CODING_AGENT_SESSION_DIR) and keeps the sessions whose header names this project", async () => {
		const shared = tempDir("pi-watchdog-shared-");
		const project = realpathSync(tempDir("pi-watchdog-project-"));
		const mine = piSession(shared, "mine.jsonl", { cwd: project });
		const theirs = piSession(shared, "theirs.jsonl", { cwd: "/elsewhere" });
		const env = { PI_CODING_AGENT_DIR: tempDir("pi-watchdog-agent-"), PI_CODING_AGENT_SESSION_DIR: shared };
		const own = await runBin(["scan", "--json"], { cwd: project, env });
		expect(
			own.stdout
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l).file),
		).toEqual([mine]);
		const all = await runBin(["scan", "--all", "--json"], { cwd: project, env });
		expect(
			all.stdout
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l).file)
				.sort(),
		).toEqual([mine, theirs].sort());
		// The same folder named by `sessionDir` in the agent folder's settings.json.
		const agent = tempDir("pi-watchdog-agent-");
		writeText("settings.json", JSON.stringify({ sessionDir: shared }), agent);
		const fromSettings = await runBin(["scan", "--json"], {
			cwd: project,
			env: { PI_CODING_AGENT_DIR: agent, PI_CODING_AGENT_SESSION_DIR: "" },
		});
		expect(
			fromSettings.stdout
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l).file),
		).toEqual([mine]);
	});
});
