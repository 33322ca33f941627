// Changing the reviewer model, thinking level or on/off switch for the main session, all
// children, or one child role, in the session, user or project scope. Shared by the
// `/subagents-watchdog` command and the `subagent` tool's `watchdog.configure` action: a plan
// first (what would change), then applying it, so an agent's request can be judged in between.
import { isThinking, parseModelRef, THINKING_LEVELS } from "../models/index.ts";
import {
	chooseReviewer,
	checkReviewer,
	recommendFor,
	type Registry,
	type SessionModelInfo,
	unknownModel,
} from "../models/index.ts";
import { getPath, howToTurnOn, setPath, type ResolvedSettings, type SourceName } from "./resolve.ts";
import type { ThinkingSetting } from "./schema.ts";
import type { ProjectContext, SettingsStore } from "./store.ts";
import type { WatchdogMutation } from "./write.ts";

export type ConfigureScope = "session" | "user" | "project";

export interface ConfigureRequest {
	scope: ConfigureScope;
	/** "main", "children", or a child role name. */
	target: string;
	/** provider/id[:thinking], "recommended" or "inherit". */
	model?: string;
	thinking?: string;
	enabled?: boolean;
	/** Save a model Pi does not know (yet); without it, an unknown model is refused with the closest known ones. */
	force?: boolean;
}

export interface ConfigureEnv {
	store: SettingsStore;
	project: ProjectContext;
	registry: Registry;
	session: SessionModelInfo;
	/** Told of every file saved (the session's file watch takes the change as accepted, not as the agent's). */
	saved?: (path: string, mutate: WatchdogMutation) => void;
}

const ROLE_NAME = /^[A-Za-z0-9_-]+$/;

/** The settings prefix a target's model, thinking and switch live under. */
export function targetPrefix(target: string): { prefix: string; enabledKey: string; label: string } {
	if (target === "main") return { prefix: "main", enabledKey: "enabled", label: "main watchdog" };
	if (target === "children") return { prefix: "children", enabledKey: "children.enabled", label: "child watchdogs" };
	if (!ROLE_NAME.test(target))
		throw new Error(`"${target}" is not a target: use main, children, or a child role name (letters, digits, - and _)`);
	const prefix = `children.overrides.${target}`;
	return { prefix, enabledKey: `${prefix}.enabled`, label: `${target} role` };
}

/** What a request would change, worked out (model "recommended" resolved) but not yet saved. */
export interface ConfigurePlan {
	/** Dotted key → value; `undefined` removes the key from the scope's layer. */
	changes: Map<string, unknown>;
	notes: string[];
	label: string;
}

/**
 * Checks a request and works out its changes without saving anything. Throws on bad input (an unknown model:
 * `UnknownModelError`).
 */
export async function planConfigure(env: ConfigureEnv, req: ConfigureRequest): Promise<ConfigurePlan> {
	const { prefix, enabledKey, label } = targetPrefix(req.target);
	if (req.model === undefined && req.thinking === undefined && req.enabled === undefined) {
		throw new Error("nothing to change: give model, thinking, or enabled");
	}
	if (req.thinking !== undefined && req.thinking !== "inherit" && !isThinking(req.thinking)) {
		throw new Error(`"${req.thinking}" is not a thinking level; use one of ${THINKING_LEVELS.join(", ")}`);
	}
	if (req.scope === "project" && !env.project.trusted) {
		throw new Error(
			"not saved: this project is not trusted, so its settings are neither read nor written; use scope user or session",
		);
	}
	const changes = new Map<string, unknown>(); // dotted key → value (undefined = remove)
	const notes: string[] = [];

	if (req.enabled !== undefined) changes.set(enabledKey, req.enabled);
	if (req.model !== undefined) {
		const model = req.model.trim();
		if (model === "inherit") {
			const keep = req.scope === "session" ? "inherit" : undefined;
			changes.set(`${prefix}.model`, keep);
			changes.set(`${prefix}.thinking`, req.thinking ?? keep);
		} else {
			let ref = model;
			if (model === "recommended") {
				const resolved = env.store.resolve(env.project);
				const pair = getPath(resolved.settings, prefix) as { model?: string; thinking?: ThinkingSetting } | undefined;
				const current = chooseReviewer(
					{ model: pair?.model ?? "inherit", thinking: pair?.thinking ?? "inherit" },
					env.session,
				);
				const rec = recommendFor(env.registry, env.session, current);
				if (!rec.ok) throw new Error(`no recommendation: ${rec.reason}`);
				ref = rec.ref;
				notes.push(`Recommended ${rec.ref}: ${rec.reason}.`);
			}
			const parsed = parseModelRef(ref);
			if (!parsed.ok) throw new Error(parsed.error);
			changes.set(`${prefix}.model`, `${parsed.ref.provider}/${parsed.ref.id}`);
			changes.set(`${prefix}.thinking`, req.thinking ?? parsed.ref.thinking ?? "off");
			// "recommended" names an available model, or keeps the configured one as it is.
			const unknown =
				model === "recommended"
					? undefined
					: unknownModel(env.registry, parsed.ref.provider, parsed.ref.id, req.thinking ?? parsed.ref.thinking);
			if (unknown && !req.force) throw unknown;
			const check = await checkReviewer(env.registry, {
				kind: "configured",
				provider: parsed.ref.provider,
				id: parsed.ref.id,
				thinking: parsed.ref.thinking ?? "off",
			});
			if (unknown)
				notes.push(`Saved as forced, but it will not run until Pi knows the model: ${check.lines.join(" ")}`);
			else if (!check.ok) notes.push(`Saved anyway, but it will not run yet: ${check.lines.join(" ")}`);
		}
	} else if (req.thinking !== undefined) {
		changes.set(`${prefix}.thinking`, req.thinking);
	}

	return { changes, notes, label };
}

/** What saving `changes` does to a file's `subagents.watchdog` object. */
export function watchdogMutation(changes: Map<string, unknown>): WatchdogMutation {
	return (watchdog) => {
		for (const [key, value] of changes) setPath(watchdog, key, value);
		// `main.enabled` is another name for `enabled`; drop it so the two cannot disagree.
		if (changes.has("enabled") && typeof watchdog.main === "object" && watchdog.main)
			delete (watchdog.main as Record<string, unknown>).enabled;
	};
}

/** Saves a planned change in its scope and says what was done. */
export async function applyConfigure(env: ConfigureEnv, req: ConfigureRequest, plan: ConfigurePlan): Promise<string> {
	const { changes, notes, label } = plan;
	let where: string;
	if (req.scope === "session") {
		for (const [key, value] of changes) env.store.setSessionValue(key, value);
		where = "for this session";
	} else {
		const mutate = watchdogMutation(changes);
		const path = await env.store.write(req.scope, env.project, mutate);
		env.saved?.(path, mutate);
		where = `in ${req.scope} settings (${path})`;
	}

	const after = env.store.resolve(env.project);
	const summary = [...changes]
		.map(([k, v]) => `${k} = ${v === undefined ? "(removed)" : JSON.stringify(v)}`)
		.join(", ");
	const lines = [
		`Set ${summary} (${label}) ${where}.`,
		...notes,
		...shadowNotes(after, [...changes.keys()], req.scope),
	];
	if (req.enabled === undefined && req.target === "main" && !after.settings.enabled)
		lines.push(`The watchdog is off, and saving a model does not turn it on: ${howToTurnOn(after)}.`);
	if (after.errors.length > 0)
		lines.push(`Settings have errors, so the watchdog stays off until they are fixed (see status).`);
	return lines.join("\n");
}

/**
 * The settings a change in `scope` is judged against: the layers up to that scope. A user-file
 * change also reaches sessions in other projects, where neither this project's file nor this
 * session's overrides apply; a project-file change reaches this project's other sessions.
 */
export function settingsAtScope(
	store: SettingsStore,
	project: ProjectContext,
	scope: ConfigureScope,
): ResolvedSettings {
	if (scope === "session") return store.resolve(project);
	return store.resolve(scope === "user" ? { cwd: project.cwd, trusted: false } : project, { withSession: false });
}

/** Says when a later source still overrides what was just written. */
function shadowNotes(resolved: ResolvedSettings, keys: string[], scope: ConfigureScope): string[] {
	const order: SourceName[] = ["default", "user", "project", "session"];
	const notes: string[] = [];
	for (const key of keys) {
		const source = resolved.sources[key];
		if (source && order.indexOf(source) > order.indexOf(scope)) {
			notes.push(
				`Note: ${source} ${source === "session" ? "overrides" : "settings"} set ${key} ` +
					`= ${JSON.stringify(getPath(resolved.settings, key))}, which still takes precedence here.`,
			);
		}
	}
	return notes;
}
