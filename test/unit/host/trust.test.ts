import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProjectTrustStore } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { childSnapshot, repositoryTrust } from "../../../src/host/trust.ts";
import { tempDir } from "../../support/temp.ts";

const ctx = (cwd: string, trusted: boolean | "throws") => ({
	cwd,
	isProjectTrusted: () => {
		if (trusted === "throws") throw new Error("This extension ctx is stale");
		return trusted;
	},
});

describe("trust in the repository's own code", () => {
	it("needs Pi's trust and a decision behind it", () => {
		const cwd = tempDir();
		const agentDir = tempDir();
		expect(repositoryTrust(ctx(cwd, false), agentDir).trusted).toBe(false);
		expect(repositoryTrust(ctx(cwd, "throws"), agentDir).trusted).toBe(false);
		// Pi trusts a folder with no project files without asking: that is no decision.
		const auto = repositoryTrust(ctx(cwd, true), agentDir);
		expect(auto).toEqual({ trusted: false, why: expect.stringMatching(/no trust decision.*\/trust/) });
		new ProjectTrustStore(agentDir).set(cwd, true);
		expect(repositoryTrust(ctx(cwd, true), agentDir)).toMatchObject({
			trusted: true,
			why: expect.stringMatching(/\/trust/),
		});
	});

	it("takes Pi's trust as a decision when Pi resolved it for the project's files", () => {
		const cwd = tempDir();
		mkdirSync(join(cwd, ".pi"));
		writeFileSync(join(cwd, ".pi", "settings.json"), "{}");
		expect(repositoryTrust(ctx(cwd, true), tempDir()).trusted).toBe(true);
		expect(repositoryTrust(ctx(cwd, false), tempDir()).trusted).toBe(false);
	});
});

describe("a child's trust, judged for the folder it works in", () => {
	const files = {
		"/p/.pi/settings.json": { kind: "file" as const, hash: "s" },
		"/p/sub/.pi/WATCHDOG.md": { kind: "file" as const, hash: "w" },
	};
	const parent = { root: "/p/sub", decided: true, why: "you decided", takenAt: 0, files };
	const none = () => [];

	it("uses the parent's snapshot in its folder, and in a worktree for the same content at the same place", () => {
		expect(childSnapshot(parent, "/p/sub/deeper", undefined, tempDir(), none)).toBe(parent);
		const moved = childSnapshot(
			parent,
			"/runs/r/worktrees/1/sub",
			{ dir: "/runs/r/worktrees", top: "/p" },
			tempDir(),
			none,
		);
		expect(moved.root).toBe("/runs/r/worktrees/1/sub");
		expect(moved.files).toEqual({
			"/runs/r/worktrees/1/.pi/settings.json": { kind: "file", hash: "s" },
			"/runs/r/worktrees/1/sub/.pi/WATCHDOG.md": { kind: "file", hash: "w" },
		});
	});

	it("judges any other folder on its own: only a decision saved for it with /trust counts", () => {
		const agentDir = tempDir();
		const clone = tempDir();
		mkdirSync(join(clone, ".pi"));
		writeFileSync(join(clone, ".pi", "WATCHDOG.md"), "clone rule\n");
		const reads = (cwd: string) => [
			{ path: join(cwd, ".pi", "WATCHDOG.md"), root: cwd, maxBytes: 1024, overLimit: "refuse" as const },
		];
		const untrusted = childSnapshot(parent, clone, undefined, agentDir, reads);
		expect(untrusted).toMatchObject({
			root: clone,
			decided: false,
			why: expect.stringMatching(/outside the project .* not trusted with \/trust/),
		});
		new ProjectTrustStore(agentDir).set(clone, true);
		const trusted = childSnapshot(parent, clone, undefined, agentDir, reads);
		expect(trusted).toMatchObject({ decided: true, files: { [join(clone, ".pi", "WATCHDOG.md")]: { kind: "file" } } });
	});
});
