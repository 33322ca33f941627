// What every part of a session's watchdog reads: which watchdog it is, its settings (the
// store, a child's view of its parent's, bare model ids placed against Pi's models), the trust
// they rest on, and the history log. The session (watchdog-session.ts) builds on this.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Policy } from "../evidence/index.ts";
import { DEFAULT_MAX_BYTES, type HistoryEventInput, HistoryLog } from "../findings/index.ts";
import { chooseReviewer, type ReviewerChoice, type SessionModelInfo, type Thinking } from "../models/index.ts";
import { childView, placeBareModels, type ProjectContext, type ResolvedSettings } from "../settings/index.ts";
import { type SettingsLayer, type SettingsLocation, SettingsStore } from "../settings/index.ts";
import { hostEnv } from "../host/index.ts";
import { UserAllowances } from "../permissions/index.ts";
import { isPlainObject } from "../util/index.ts";
import { type Lineage, readLineage, TOP, TreeSlots } from "./lineage.ts";
import { LiveWaits } from "./live-step.ts";
import type { Ctx, Entry, HistoryCtx, HistoryLine } from "./monitor.ts";
import type { WatchdogHost, WatchdogOptions } from "./options.ts";
import { SettingsChangeWatch } from "./settings-change-step.ts";
import { SettingsNotices } from "./settings-notice.ts";
import { noticeHeld, type TrustDeps, unstartedTrust } from "./trust-step.ts";

export const SESSION_SETTINGS_ENTRY = "watchdog-session-settings";

type OwnWrite = SettingsChangeWatch["files"]["ownWrite"];

export class SessionCore {
	readonly store: SettingsStore;
	readonly options: WatchdogOptions;
	/** Where this session sits in a tree of children (see lineage.ts). */
	readonly lineage: Lineage;
	/** Denied asks of the tree the user may allow once (`/subagents-watchdog allow <id>`). */
	readonly allowances: UserAllowances;
	/** Waits on the arbiter or the user in this session's tree, for its live entry (the fleet view). */
	readonly waits = new LiveWaits();
	/** Trust in the project's own files, bound to what was there at the decision (see trust-step.ts). */
	trust = unstartedTrust();
	protected readonly host: WatchdogHost;
	protected readonly location: SettingsLocation;
	/** The settings files as the user accepted them: an agent's change that lowers oversight waits for the user. */
	protected readonly settingsWatch: SettingsChangeWatch;
	/** Sees every history line as it is written (the headless run's ledger). */
	protected historyTap?: (line: Record<string, unknown>) => void;
	private readonly historyLog: HistoryLog;
	private historyMaxBytes = DEFAULT_MAX_BYTES;
	private readonly notices = new SettingsNotices();
	private modelRefs: string[] = [];
	private ownSlots?: TreeSlots;
	private slotLimit = 1;
	private placed?: { from: ResolvedSettings; registry: Ctx["modelRegistry"]; value: ResolvedSettings };

	constructor(location: SettingsLocation, host: WatchdogHost, options: WatchdogOptions) {
		this.location = location;
		this.host = host;
		this.options = options;
		this.lineage = options.lineage ?? (options.role === "main" ? lineageFromEnv() : TOP);
		this.allowances = options.allowances ?? new UserAllowances();
		this.settingsWatch = new SettingsChangeWatch({
			resolve: (ctx) => this.store.resolve(this.project(ctx)),
			sessionModel: (ctx) => this.sessionModel(ctx),
			record: (ctx, line) => this.recordHistory(ctx, line),
		});
		this.store = new SettingsStore(location, this.settingsWatch.files);
		this.historyLog = new HistoryLog({ agentDir: location.agentDir, maxBytes: () => this.historyMaxBytes });
	}

	/** One line in the history log (`<agentDir>/watchdog/history.jsonl`); a failed write is never Pi's problem. */
	recordHistory(ctx: HistoryCtx, event: HistoryLine): void {
		this.historyTap?.(event as Record<string, unknown>);
		try {
			const session = ctx.sessionManager?.getSessionId() ?? "unknown";
			const { role, runId, parentSettings, project } = this.options;
			const resolved = parentSettings?.() ?? this.store.resolve(this.project(ctx as Ctx));
			this.historyMaxBytes = resolved.settings.history.maxBytes;
			const path = this.lineage.path.length > 1 ? { path: this.lineage.path.join(" > ") } : {};
			const child = role !== "main" ? { role, ...(runId ? { run: runId } : {}), ...path } : {};
			this.historyLog.append({ ...event, ...child, session, cwd: project ?? ctx.cwd } as HistoryEventInput);
		} catch {
			// a stale context or an unwritable agent folder: the event is in the session all the same
		}
	}

	/**
	 * The tree's concurrency budget: the one the main session made (a child's), else this
	 * session's own, bounded by its `children.concurrency` as last given.
	 */
	treeSlots(concurrency: number): TreeSlots {
		if (this.options.slots) return this.options.slots;
		this.slotLimit = concurrency;
		this.ownSlots ??= new TreeSlots(() => this.slotLimit);
		return this.ownSlots;
	}

	/** Persists data in the session (never sent to the model). */
	persist(customType: string, data: unknown): void {
		this.host.appendEntry(customType, data);
	}

	project(ctx: Ctx): ProjectContext {
		return { cwd: ctx.cwd, trusted: this.trust.decided, trust: this.trust };
	}

	settings(ctx: Ctx): ResolvedSettings {
		const parent = this.options.parentSettings;
		if (parent) return noticeHeld(this.trust, ctx, childView(parent(), this.options.role));
		const from = this.store.resolve(this.project(ctx));
		// Bare model ids are placed against Pi's models; the store's memo keeps this to one lookup per change.
		const origin = (source: string) => {
			if (source === "user") return this.store.userPath();
			return source === "project" ? this.store.projectPath(ctx.cwd) : "session overrides";
		};
		const registry = ctx.modelRegistry;
		if (this.placed?.from !== from || this.placed.registry !== registry) {
			this.placed = { from, registry, value: placeBareModels(from, registry, origin) };
		}
		return noticeHeld(this.trust, ctx, this.placed.value);
	}

	/**
	 * The session's evidence policy (`idle.policy`, `/subagents-watchdog policy`): what the claims
	 * checker and the unfinished-stop nudges may do. Other features that must hold back under
	 * handsoff (flag, never act) read it here.
	 */
	policy(ctx: Ctx): Policy {
		return this.settings(ctx).settings.idle.policy;
	}

	/** Clarification is on for this session: the main session's watchdog, enabled, with `clarification: true`. */
	clarifying(ctx: Ctx): boolean {
		if (this.options.role !== "main") return false;
		const resolved = this.settings(ctx);
		return resolved.enabled && resolved.settings.clarification;
	}

	sessionModel(ctx: Ctx): SessionModelInfo {
		return {
			model: ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined,
			thinking: ctx.thinkingLevel as Thinking | undefined,
		};
	}

	reviewer(ctx: Ctx): ReviewerChoice {
		return chooseReviewer(this.settings(ctx).settings.main, this.sessionModel(ctx));
	}

	/** Restores this session's overrides from its entries (after /reload, resume, fork, new). */
	restoreSession(entries: readonly Entry[]): void {
		let layer: SettingsLayer = {};
		for (const entry of entries) {
			if (entry.type !== "custom" || entry.customType !== SESSION_SETTINGS_ENTRY) continue;
			const data = entry.data;
			if (isPlainObject(data) && isPlainObject(data.overrides)) layer = data.overrides as SettingsLayer;
		}
		this.store.replaceSessionOverrides(layer);
	}

	rememberModels(ctx: Ctx): void {
		try {
			this.modelRefs = ctx.modelRegistry.getAvailable().map((m) => `${m.provider}/${m.id}`);
		} catch {
			this.modelRefs = [];
		}
	}

	knownModelRefs(): readonly string[] {
		return this.modelRefs;
	}

	/** New settings errors and pi-subagents keys that do nothing here, once each (see settings-notice.ts). */
	settingsNotice(ctx: Ctx): string | undefined {
		return this.notices.next(this.settings(ctx), this.options.role);
	}

	/** `settings accept`: held settings changes take effect. Returns what to tell the user. */
	acceptSettings(ctx: ExtensionContext, path?: string): string {
		return this.settingsWatch.accept(ctx, path);
	}

	/** A settings file the watchdog itself writes: the change is the user's, never held back. */
	ownWrite(...write: Parameters<OwnWrite>): ReturnType<OwnWrite> {
		return this.settingsWatch.files.ownWrite(...write);
	}

	protected trustDeps(): TrustDeps {
		return {
			...(this.options.trust ? { given: this.options.trust } : {}),
			agentDir: () => this.store.agentDir(),
			configDirName: () => this.store.configDirName(),
			persist: (type, data) => this.host.appendEntry(type, data),
		};
	}
}

/** A main session started below a background child (a `pi` its bash ran) starts at that child's place. */
function lineageFromEnv(): Lineage {
	const raw = hostEnv("SUBAGENT_LINEAGE");
	if (!raw) return TOP;
	try {
		return readLineage(JSON.parse(raw));
	} catch {
		return TOP;
	}
}
