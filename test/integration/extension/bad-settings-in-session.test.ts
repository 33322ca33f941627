// Bad settings in a real Pi session: malformed JSON, wrong types and values, unknown keys and
// subcommands are reported once and turn the watchdog off at most, never the session.
import { join } from "node:path";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { bundleIsCurrent } from "../../../src/util/bundle-state.ts";
import { REPO_ROOT } from "../../support/pi-cli.ts";
import { noticeText as text, startSession } from "../../support/pi-session.ts";
import { wd } from "../../support/settings-files.ts";

describe("bad settings never break the session", () => {
	const cases: Array<[string, { userSettingsText?: string; userSettings?: Record<string, unknown> }, RegExp]> = [
		[
			"malformed JSON",
			{ userSettingsText: '{\n  "subagents": { "watchdog": { "enabled": true, }\n}' },
			/settings\.json: invalid JSON at line 2, column \d+/,
		],
		[
			"a wrong type",
			{ userSettings: wd({ enabled: "yes" }) },
			/subagents\.watchdog\.enabled: Invalid input: expected boolean/,
		],
		[
			"an out-of-range value",
			{ userSettings: wd({ enabled: true, cadence: { everyNTools: 2 } }) },
			/subagents\.watchdog\.cadence\.everyNTools: must be 0, false or null \(off\), or a whole number of tool results of at least 5/,
		],
		[
			"a bad model reference",
			{ userSettings: wd({ enabled: true, main: { model: "open ai/opus" } }) },
			/subagents\.watchdog\.main\.model: must be "inherit", a model reference/,
		],
		[
			"a bare model id Pi does not have",
			{ userSettings: wd({ enabled: true, main: { model: "opus" } }) },
			/subagents\.watchdog\.main\.model: model "opus" \(no provider given\) is not known to Pi/,
		],
		[
			"a non-object watchdog",
			{ userSettings: { subagents: { watchdog: [] } } },
			/"subagents\.watchdog" must be an object, not an array/,
		],
	];
	// Also through the package's entry: the prebuilt bundle must carry zod's English messages and load jsonc-parser
	// when a file does not parse.
	const entries: Array<[string, string | undefined]> = [
		["src/extension.ts", undefined],
		["index.ts", join(REPO_ROOT, "index.ts")],
	];
	for (const [name, input, pattern] of cases)
		for (const [entry, extensionPath] of entries)
			it(`reports ${name} once, turns the watchdog off, and the session keeps working (loaded from ${entry})`, async () => {
				const t = await startSession({ ...input, ...(extensionPath ? { extensionPath } : {}) });
				try {
					const warnings = t.notices.filter((n) => n.level === "warning");
					expect(warnings).toHaveLength(1);
					expect(warnings[0].message).toMatch(/Watchdog off for this session: 1 settings error/);
					expect(warnings[0].message).toMatch(pattern);
					const status = text(await t.command("/subagents-watchdog status --settings"));
					expect(status).toMatch(/Watchdog: off for this session: the settings have 1 error/);
					expect(status).toMatch(/Config errors:\n\s+- user \(/);
					expect(status).toMatch(pattern);
					// No second notice for the same errors.
					expect(t.notices.filter((n) => n.level === "warning")).toHaveLength(1);
					if (extensionPath)
						expect(text(await t.command("/subagents-watchdog status --all"))).toMatch(
							bundleIsCurrent(REPO_ROOT) ? /Code: prebuilt bundle/ : /Code: TypeScript sources/,
						);
					t.main.setResponses([fauxAssistantMessage("still here")]);
					await t.session.prompt("hello");
					expect(t.session.getLastAssistantText()).toBe("still here");
				} finally {
					await t.dispose();
				}
			});

	it("warns about an unknown key in status without turning the watchdog off", async () => {
		const t = await startSession({ userSettings: wd({ enabled: true, cadense: { everyNTools: 5 } }) });
		try {
			expect(t.notices.filter((n) => n.level === "warning")).toHaveLength(0);
			const status = text(await t.command("/subagents-watchdog status --settings"));
			expect(status).toMatch(/Watchdog: on/);
			expect(status).toMatch(/Warnings:\n\s+- user .*unknown key subagents\.watchdog\.cadense is ignored/);
		} finally {
			await t.dispose();
		}
	});

	it("refuses to save into a malformed settings file and says how to fix it", async () => {
		const t = await startSession({ userSettingsText: '{ "theme": "dark" ' });
		try {
			const out = await t.command("/subagents-watchdog on");
			expect(out[0].level).toBe("error");
			expect(out[0].message).toMatch(/not saved: .*settings\.json is not valid JSON .*fix the file first/);
		} finally {
			await t.dispose();
		}
	});

	it("rejects an unknown subcommand with the usage", async () => {
		const t = await startSession();
		try {
			const out = await t.command("/subagents-watchdog enable");
			expect(out[0].level).toBe("error");
			expect(out[0].message).toMatch(/unknown subcommand "enable"/);
		} finally {
			await t.dispose();
		}
	});
});
