import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProjectTrustStore } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { repositoryTrust } from "../../../src/host/trust.ts";
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
		expect(repositoryTrust(ctx(cwd, true), agentDir)).toMatchObject({ trusted: true, why: expect.stringMatching(/\/trust/) });
	});

	it("takes Pi's trust as a decision when Pi resolved it for the project's files", () => {
		const cwd = tempDir();
		mkdirSync(join(cwd, ".pi"));
		writeFileSync(join(cwd, ".pi", "settings.json"), "{}");
		expect(repositoryTrust(ctx(cwd, true), tempDir()).trusted).toBe(true);
		expect(repositoryTrust(ctx(cwd, false), tempDir()).trusted).toBe(false);
	});
});
