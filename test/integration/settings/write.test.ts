import { execFileSync, spawn } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { updateWatchdogSettings } from "../../../src/settings/write.ts";
import { SettingsStore } from "../../../src/settings/store.ts";
import { readJson, writeJson } from "../../support/settings-files.ts";
import { tempDir } from "../../support/temp.ts";

const PI_INDEX = pathToFileURL(
	resolve(import.meta.dirname, "../../../node_modules/@earendil-works/pi-coding-agent/dist/index.js"),
).href;

describe("writing watchdog settings", () => {
	it("changes only our keys and keeps every other key of the file", async () => {
		const file = join(tempDir(), "settings.json");
		const original = {
			defaultProvider: "anthropic",
			packages: ["npm:foo"],
			subagents: {
				defaultModel: "x/y",
				agentOverrides: { reviewer: { model: "a/b" } },
				watchdog: { enabled: false, lsp: { maxFiles: 3 } },
			},
		};
		writeJson(file, original);
		await updateWatchdogSettings(file, dirname(file), (w) => {
			w.enabled = true;
		});
		const after = readJson(file);
		expect(after).toEqual({
			...original,
			subagents: { ...original.subagents, watchdog: { enabled: true, lsp: { maxFiles: 3 } } },
		});
	});

	it("creates the file and folders when missing, and removes what it emptied", async () => {
		const file = join(tempDir(), "deep", "agent", "settings.json");
		await updateWatchdogSettings(file, dirname(file), (w) => {
			w.main = { model: "a/b", thinking: "high" };
		});
		expect(readJson(file)).toEqual({ subagents: { watchdog: { main: { model: "a/b", thinking: "high" } } } });
		await updateWatchdogSettings(file, dirname(file), (w) => {
			delete (w.main as Record<string, unknown>).model;
			delete (w.main as Record<string, unknown>).thinking;
		});
		expect(readJson(file)).toEqual({});
	});

	it("refuses to touch a malformed file and leaves it as it was", async () => {
		const file = join(tempDir(), "settings.json");
		writeFileSync(file, '{ "theme": "dark", ');
		await expect(updateWatchdogSettings(file, dirname(file), (w) => void (w.enabled = true))).rejects.toThrow(
			/not valid JSON.*line 1/,
		);
		expect(readFileSync(file, "utf8")).toBe('{ "theme": "dark", ');
		writeFileSync(file, '{ "subagents": "none" }');
		await expect(updateWatchdogSettings(file, dirname(file), (w) => void (w.enabled = true))).rejects.toThrow(
			/"subagents" .* is not an object/,
		);
	});

	it("writes through a symlinked settings file and keeps the link", async () => {
		const dir = tempDir();
		const real = join(dir, "dotfiles", "pi-settings.json");
		mkdirSync(join(dir, "dotfiles"));
		writeJson(real, { theme: "light" });
		const link = join(dir, "settings.json");
		symlinkSync(real, link);
		await updateWatchdogSettings(link, dirname(link), (w) => void (w.enabled = true));
		expect(lstatSync(link).isSymbolicLink()).toBe(true);
		expect(readJson(real)).toEqual({ theme: "light", subagents: { watchdog: { enabled: true } } });
	});

	it("refuses to write through a link that leads out of its folder, or into a FIFO", async () => {
		const dir = tempDir();
		const outside = join(tempDir(), "secret.json");
		writeJson(outside, { theme: "light" });
		const link = join(dir, "settings.json");
		symlinkSync(outside, link);
		await expect(updateWatchdogSettings(link, dir, (w) => void (w.enabled = true))).rejects.toThrow(/leads outside/);
		expect(readJson(outside)).toEqual({ theme: "light" });
		const fifoDir = tempDir();
		const fifo = join(fifoDir, "settings.json");
		execFileSync("mkfifo", [fifo]);
		await expect(updateWatchdogSettings(fifo, fifoDir, (w) => void (w.enabled = true))).rejects.toThrow(
			/a FIFO, not a regular file/,
		);
	});

	it("does not write an untrusted project's settings", async () => {
		const cwd = tempDir();
		const store = new SettingsStore({ agentDir: () => tempDir(), configDirName: ".pi" });
		await expect(store.write("project", { cwd, trusted: false }, (w) => void (w.enabled = true))).rejects.toThrow(
			/not trusted/,
		);
	});

	it("loses nothing when Pi writes the same file concurrently from another process", async () => {
		const agentDir = tempDir();
		const cwd = tempDir();
		const file = join(agentDir, "settings.json");
		writeJson(file, { theme: "start" });
		const rounds = 40;
		// Pi's own SettingsManager, in a second process, changing its keys as fast as it can.
		const script = `
			const { SettingsManager } = await import(${JSON.stringify(PI_INDEX)});
			const sm = SettingsManager.create(${JSON.stringify(cwd)}, ${JSON.stringify(agentDir)});
			for (let i = 0; i < ${rounds}; i++) {
				sm.setTheme("theme-" + i);
				sm.setLastChangelogVersion("1.0." + i);
				await sm.flush();
				await new Promise((r) => setTimeout(r, Math.random() * 4));
			}
			const errors = sm.drainErrors ? sm.drainErrors() : [];
			console.log(JSON.stringify({ errors: errors.map((e) => String(e.error)) }));
		`;
		const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let err = "";
		child.stdout.on("data", (d) => (out += d));
		child.stderr.on("data", (d) => (err += d));
		const piDone = new Promise<number>((res) => child.on("exit", (code) => res(code ?? -1)));

		// Our writes: each appends its number, so a lost update leaves a gap.
		for (let i = 0; i < rounds; i++) {
			await updateWatchdogSettings(file, dirname(file), (w) => {
				const rules = (w.rules ??= {}) as Record<string, any>;
				const roles = (rules.roleModels ??= {}) as Record<string, any>;
				roles.probe = { allow: [...(roles.probe?.allow ?? []), `p/${i}`] };
			});
			await new Promise((r) => setTimeout(r, Math.random() * 4));
		}
		expect(await piDone, err).toBe(0);
		expect(JSON.parse(out.trim().split("\n").at(-1) ?? "{}").errors ?? []).toEqual([]);
		const final = readJson(file);
		expect(final.theme).toBe(`theme-${rounds - 1}`);
		expect(final.lastChangelogVersion).toBe(`1.0.${rounds - 1}`);
		expect(final.subagents.watchdog.rules.roleModels.probe.allow).toEqual(
			Array.from({ length: rounds }, (_, i) => `p/${i}`),
		);
	});

	it("serialises concurrent writes of our own", async () => {
		const file = join(tempDir(), "settings.json");
		writeJson(file, {});
		await Promise.all(
			Array.from({ length: 20 }, (_, i) =>
				updateWatchdogSettings(file, dirname(file), (w) => {
					w.rotate = { models: [...(((w.rotate as any)?.models as string[]) ?? []), `m/${i}`] };
				}),
			),
		);
		expect(readJson(file).subagents.watchdog.rotate.models).toHaveLength(20);
	});
});
