// The settings files as the user last accepted them. The agent can write the user's or the
// project's settings file with its own tools (write, edit, bash) and so blind its watchdog; a
// change that appears while the agent runs is therefore not taken as it is. During a run, a
// changed file shows its accepted version until the session has judged the change (at the next
// tool result, at the settle at the latest): one that lowers oversight stays held back until
// the user accepts it; any other is accepted. Between runs a changed file is the user's own
// edit and is accepted when it is read. Only a held file keeps showing its accepted version.
import { fileToken, isPlainObject } from "../util/index.ts";
import { type FileRead, SettingsFileCache } from "./files.ts";
import { forEachLeaf, getPath, type ResolvedSettings } from "./resolve.ts";
import type { WatchdogSettings } from "./defaults.ts";
import type { WatchdogMutation } from "./write.ts";

interface Version {
	read: FileRead;
	token: string;
}

/** A change held back: the file's content (by token), who made it, and why it lowers oversight. */
export interface HeldChange {
	path: string;
	token: string;
	by: string;
	lowered: string[];
}

export class WatchedFileCache extends SettingsFileCache {
	private readonly accepted = new Map<string, Version & { root: string }>();
	readonly held = new Map<string, HeldChange>();
	/** The one file shown as it is now, while its change is judged. */
	private peeking?: string;
	private ownWrites = 0;
	/** Whether an agent run is under way (its changes wait to be judged). */
	running = false;

	override read(path: string, root: string): Version {
		const current = super.read(path, root);
		const accepted = this.accepted.get(path);
		if (!accepted || current.token === accepted.token) {
			// First seen, unchanged, or put back as it was accepted (which ends a hold).
			this.held.delete(path);
			this.accepted.set(path, { ...current, root });
			return current;
		}
		if (path === this.peeking) return current;
		if (this.held.has(path) || this.running) return { read: accepted.read, token: accepted.token };
		// Between runs: the user's own edit.
		this.accepted.set(path, { ...current, root });
		return current;
	}

	/** Files that changed since they were accepted, other than with content already held. Costs one stat each. */
	changed(): string[] {
		const out: string[] = [];
		for (const [path, accepted] of this.accepted) {
			const token = fileToken(path);
			if (token !== accepted.token && token !== this.held.get(path)?.token) out.push(path);
		}
		return out;
	}

	/** The settings with `path` as accepted and as it is now (`resolve` reads through this cache). */
	judge(
		path: string,
		resolve: () => ResolvedSettings,
	): { before: ResolvedSettings; after: ResolvedSettings; token: string } {
		const before = resolve();
		this.peeking = path;
		try {
			const after = resolve();
			return { before, after, token: fileToken(path) };
		} finally {
			this.peeking = undefined;
		}
	}

	/** Takes the file as it is now. */
	accept(path: string): void {
		const accepted = this.accepted.get(path);
		this.held.delete(path);
		if (accepted) this.accepted.set(path, { ...super.read(path, accepted.root), root: accepted.root });
	}

	hold(change: HeldChange): void {
		this.held.set(change.path, change);
	}

	/**
	 * A change the user made or accepted through the watchdog itself (a command, a confirmed
	 * configure) was saved in `path`: the accepted version gets the same change, so it is not
	 * judged again, while anything else in the file still is.
	 */
	ownWrite(path: string, mutate: WatchdogMutation): void {
		const accepted = this.accepted.get(path);
		if (!accepted || accepted.read.state === "error") return;
		const doc =
			accepted.read.state === "ok" && isPlainObject(accepted.read.document)
				? structuredClone(accepted.read.document)
				: {};
		if (!isPlainObject(doc.subagents)) doc.subagents = {};
		const subagents = doc.subagents as Record<string, unknown>;
		if (!isPlainObject(subagents.watchdog)) subagents.watchdog = {};
		mutate(subagents.watchdog as Record<string, unknown>);
		this.accepted.set(path, {
			read: { state: "ok", document: doc },
			token: `own-write:${++this.ownWrites}`,
			root: accepted.root,
		});
	}
}

/** The keys whose effective value differs, with the new value (`undefined`: back to its default). */
export function settingsDiff(before: WatchdogSettings, after: WatchdogSettings): Array<[string, unknown]> {
	const keys = new Set<string>();
	forEachLeaf(before, "", (key) => keys.add(key));
	forEachLeaf(after, "", (key) => keys.add(key));
	const out: Array<[string, unknown]> = [];
	for (const key of keys) {
		const now = getPath(after, key);
		if (JSON.stringify(getPath(before, key)) !== JSON.stringify(now)) out.push([key, now]);
	}
	return out;
}
