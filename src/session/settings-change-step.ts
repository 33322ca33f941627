// Changes to the watchdog's settings files that arrive through the agent's own tool calls
// (write, edit, bash, a child's work under `subagent`; see settings/file-watch.ts), judged at
// each tool result and at the settle at the latest. One that lowers oversight is held back:
// the watchdog keeps the settings as they were, and the user is told once which call made it
// and how to accept it (in the TUI also asked, the safe answer first). Any other change is
// applied and announced. A change that appears while the agent runs is taken as the agent's;
// the user's own edits between prompts are theirs and apply as they are.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { askToLower, present } from "../host/index.ts";
import { type HeldChange, loweredOversight, type ResolvedSettings } from "../settings/index.ts";
import { settingsDiff, WatchedFileCache } from "../settings/index.ts";
import type { StatusSection } from "../status/index.ts";
import type { SessionModelInfo } from "../models/index.ts";
import type { AgentCtx, HistoryCtx, HistoryLine } from "./monitor.ts";

export const ACCEPT_COMMAND = "/subagents-watchdog settings accept";
export const SETTINGS_CHANGE_KIND = "settings-file-change";

type UiCtx = AgentCtx & Partial<Pick<ExtensionContext, "sessionManager">>;

/** What judging a change needs of the session: the settings as the files say, the session's model, the history log. */
export interface SettingsChangeDeps {
	resolve(ctx: UiCtx): ResolvedSettings;
	sessionModel(ctx: UiCtx): SessionModelInfo;
	record(ctx: HistoryCtx, line: HistoryLine): void;
}

export class SettingsChangeWatch {
	readonly files = new WatchedFileCache();
	private readonly deps: SettingsChangeDeps;

	constructor(deps: SettingsChangeDeps) {
		this.deps = deps;
	}
	/** Tool results of the current run, so a call can be named by its number. */
	private calls = 0;

	/**
	 * A run starts (a continuation of the same run keeps counting). What changed since the last
	 * run is the user's own edit and is taken as it is; a held file still lowering oversight
	 * after their edit stays held (quietly: they were told).
	 */
	runStart(ctx: UiCtx): void {
		if (this.files.running) return;
		for (const path of this.files.changed()) {
			const held = this.files.held.get(path);
			if (!held) {
				this.files.accept(path);
				continue;
			}
			const { before, after, token } = this.files.judge(path, () => this.deps.resolve(ctx));
			const lowered = this.lowered(ctx, before, after);
			if (lowered.length) this.files.hold({ ...held, token, lowered });
			else this.files.accept(path);
		}
		this.files.running = true;
		this.calls = 0;
	}

	private lowered(ctx: UiCtx, before: ResolvedSettings, after: ResolvedSettings): string[] {
		const diff = settingsDiff(before.settings, after.settings);
		const lowered = loweredOversight(before.settings, diff, this.deps.sessionModel(ctx));
		const error = after.errors[0];
		if (!before.errors.length && error) {
			lowered.push(`makes the settings invalid (${error.origin}: ${error.message}), which turns the watchdog off`);
		}
		return lowered;
	}

	/** After each tool call: one stat per settings file, a judgement only when one changed. */
	toolResult(ctx: UiCtx, toolName: string): void {
		this.calls++;
		const who = `the agent's ${toolName} call #${this.calls} of this run`;
		if (this.files.running) this.check(ctx, who, { tool: toolName, call: this.calls });
	}

	/** The settle: whatever is left is judged, then the run is over. */
	settle(ctx: UiCtx): void {
		if (this.files.running) this.check(ctx, "a tool call of this run (noticed when the run ended)", {});
		this.files.running = false;
	}

	private check(ctx: UiCtx, who: string, call: { tool?: string; call?: number }): void {
		for (const path of this.files.changed()) {
			const { before, after, token } = this.files.judge(path, () => this.deps.resolve(ctx));
			const changes = settingsDiff(before.settings, after.settings);
			const lowered = this.lowered(ctx, before, after);
			const summary = changes.map(([k, v]) => `${k} = ${v === undefined ? "(default)" : JSON.stringify(v)}`).join(", ");
			const line = { kind: SETTINGS_CHANGE_KIND, path, ...call, change: summary };
			if (!lowered.length) {
				this.files.accept(path);
				if (!changes.length) continue; // nothing of ours changed (Pi's own keys, formatting)
				present(ctx, `${capital(who)} changed the watchdog settings in ${path}: ${summary}.`, "info");
				this.deps.record(ctx, { ...line, outcome: "applied", summary: `${who} changed ${path}: ${summary}` });
				continue;
			}
			this.files.hold({ path, token, by: who, lowered });
			const reasons = lowered.map((r) => `- ${r}`).join("\n");
			const text = [
				`Held back a change to ${path} made by ${who}: it lowers the watchdog's oversight:`,
				reasons,
				"This session's watchdog keeps its settings as they were " +
					"(the file is left as it is; other sessions read it as it is now).",
				`If you made or want this change: ${ACCEPT_COMMAND}`,
			];
			present(ctx, text.join("\n"), "warning");
			const heldBack = `${who} changed ${path}, held back: ${lowered.join("; ")}`;
			this.deps.record(ctx, { ...line, outcome: "held", lowered, summary: heldBack });
			if (ctx.mode === "tui" && ctx.hasUI) void this.ask(ctx, path, who, reasons).catch(() => {});
		}
	}

	/** In the TUI: the user picks; the first choice keeps the change held back. Never awaited by a hook. */
	private async ask(ctx: UiCtx, path: string, who: string, reasons: string): Promise<void> {
		const token = this.files.held.get(path)?.token;
		const until = "Until you accept it, the watchdog keeps its settings as they were.";
		const details = `It lowers the watchdog's oversight:\n${reasons}\n\n${until}`;
		const title = `Accept the change ${who} made to ${path}?`;
		const yes = await askToLower((t, choices) => ctx.ui.select(t, choices), title, details);
		if (yes && this.files.held.get(path)?.token === token) present(ctx, this.accept(ctx, path), "info");
	}

	/** `settings accept`: every held change (or the one to `path`) takes effect. Returns what to tell the user. */
	accept(ctx: UiCtx, path?: string): string {
		const held = this.held().filter((c) => path === undefined || c.path === path);
		if (!held.length) return "No settings change is held back.";
		for (const change of held) {
			this.files.accept(change.path);
			const summary = `you accepted the change ${change.by} made to ${change.path}`;
			this.deps.record(ctx, { kind: SETTINGS_CHANGE_KIND, path: change.path, outcome: "accepted", summary });
		}
		const accepted = held.map(
			(c) => `Accepted the change to ${c.path} (${c.by}); now in effect: ${c.lowered.join("; ")}.`,
		);
		return accepted.join("\n");
	}

	held(): HeldChange[] {
		return [...this.files.held.values()];
	}

	/** The short status: what each held change would do first (the line may be cut), then the file. */
	brief(): string[] {
		const head = `Settings change held back (${ACCEPT_COMMAND} takes it)`;
		return this.held().map((c) => `${head}: ${c.lowered.join("; ")} · ${c.path}`);
	}

	/** Status: each held change, and how to accept it. */
	section(): StatusSection[] {
		const held = this.held();
		if (!held.length) return [];
		const lines = held.map((c) => `${c.path}, changed by ${c.by}, held back: ${c.lowered.join("; ")}`);
		return [{ title: "Held settings changes", lines: [...lines, `Accept: ${ACCEPT_COMMAND}`] }];
	}
}

function capital(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}
