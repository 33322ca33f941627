// Model rotation for the main session (a monitor): when a run ends on an account or usage limit,
// it picks the next configured model that resolves and has credentials, switches the session to
// it and hands back the resume note; otherwise it says why not. It remembers when it last
// switched (at most once per rotate.cooldownMs) and which models hit a limit, when (none is
// tried twice in one run, nor again within the cooldown); the memory is kept in the session's
// entries, so it survives /reload and resuming. The registry and Pi's setModel come in as `io`.
import { clip, oneLine, type StatusSection } from "../util/index.ts";
import { type LimitVerdict, limitOf } from "./limit.ts";
import {
	ago,
	type Candidate,
	candidates,
	notRotatedNotice,
	type RotateSettings,
	type RotationMemory,
	resumeNote,
	rotatedNotice,
	rotationBlocked,
	type Skip,
	skipsText,
} from "./plan.ts";

/** A session entry per rotation or refusal (never sent to the model). */
export const ROTATE_ENTRY = "watchdog-rotate";
/** The custom message that continues the run on the new model. */
export const RESUME_MESSAGE = "watchdog-resume";
const KEPT = 10;

export interface RotationRecord {
	at: number;
	outcome: "rotated" | "not rotated";
	from: string;
	to?: string;
	error: string;
	/** The limit it was (rotated), or why nothing switched. */
	reason: string;
	skipped: Skip[];
	/** A transient rate limit: the model is not counted as limited. */
	transient?: boolean;
}

export interface RotationIo {
	/** Whether the model resolves in Pi's registry and has credentials; why not, when not. */
	check(candidate: Candidate): Promise<{ ok: true } | { ok: false; reason: string }>;
	/** Switches the session to the model (Pi's setModel); why not, when Pi refused. */
	switchTo(candidate: Candidate): Promise<{ ok: true } | { ok: false; reason: string }>;
}

export interface SettleInput {
	settings: RotateSettings;
	/** The session's idle policy: handsoff flags and never rotates; off does nothing. */
	policy: string;
	/** The session's model as "provider/id". */
	current?: string;
	/** The run's last assistant message. */
	last: { role?: string; stopReason?: string; errorMessage?: string } | undefined;
	now: number;
	/** The user's latest request, for the resume note. */
	prompt?: string;
	/** Why the findings sink would not let the run continue, if so. */
	continuationBlocked?: string;
}

export type RotationResult =
	| { kind: "none" }
	| { kind: "rotated"; record: RotationRecord; note: string; notice: string }
	| { kind: "not rotated"; record: RotationRecord; notice?: string };

export class Rotation {
	private memory: RotationMemory = { limitedAt: {}, runStartedAt: 0 };
	private records: RotationRecord[] = [];

	/** After /reload, resume or a restart: the rotations recorded in the session. */
	restore(entries: ReadonlyArray<{ type: string; customType?: string; data?: unknown }>): void {
		this.records = [];
		// Limits recorded before now belong to earlier runs: only the cooldown keeps them out.
		this.memory = { limitedAt: {}, runStartedAt: Date.now() };
		for (const e of entries) {
			if (e.type !== "custom" || e.customType !== ROTATE_ENTRY || !isRecord(e.data)) continue;
			this.remember(e.data);
		}
	}

	/** A real user prompt starts a new run: models limited before it may be tried again (after the cooldown). */
	userPrompt(now: number): void {
		this.memory.runStartedAt = now;
	}

	/** The settle of a main-session run that ended on an error. Never throws on `io` failures. */
	async atSettle(io: RotationIo, input: SettleInput): Promise<RotationResult> {
		const limit = limitOf(input.last);
		if (!limit) return { kind: "none" };
		const from = input.current ?? "(no model)";
		if (limit.kind === "transient")
			return this.notRotated(input.now, from, limit, `not an account limit: ${limit.why}`, [], false);
		if (input.current) this.memory.limitedAt[input.current] = input.now;
		const blocked = rotationBlocked(input.settings, input.policy, this.memory, input.now, input.continuationBlocked);
		if (blocked) return this.notRotated(input.now, from, limit, blocked, [], input.policy !== "off");
		const { tryInOrder, skipped } = candidates(
			input.settings.models,
			input.current,
			this.memory,
			input.now,
			input.settings.cooldownMs,
		);
		for (const candidate of tryInOrder) {
			const checked = await safely(() => io.check(candidate));
			const switched = checked.ok ? await safely(() => io.switchTo(candidate)) : checked;
			if (!switched.ok) {
				skipped.push({ ref: candidate.ref, reason: switched.reason });
				continue;
			}
			this.memory.lastRotationAt = input.now;
			const record: RotationRecord = {
				at: input.now,
				outcome: "rotated",
				from,
				to: candidate.ref,
				error: limit.error,
				reason: limit.why,
				skipped,
			};
			this.keep(record);
			return {
				kind: "rotated",
				record,
				note: resumeNote({ from, to: candidate.ref, why: limit.why, error: limit.error, prompt: input.prompt }),
				notice: rotatedNotice(from, candidate.ref, limit.why, limit.error, skipped),
			};
		}
		return this.notRotated(input.now, from, limit, "no healthy model left in rotate.models", skipped, true);
	}

	private notRotated(
		at: number,
		from: string,
		limit: LimitVerdict,
		reason: string,
		skipped: Skip[],
		tell: boolean,
	): RotationResult {
		const record: RotationRecord = {
			at,
			outcome: "not rotated",
			from,
			error: limit.error,
			reason,
			skipped,
			...(limit.kind === "transient" ? { transient: true } : {}),
		};
		this.keep(record);
		return {
			kind: "not rotated",
			record,
			...(tell ? { notice: notRotatedNotice(from, limit.why, limit.error, reason, skipped) } : {}),
		};
	}

	private keep(record: RotationRecord): void {
		this.records = [...this.records, record].slice(-KEPT);
	}

	private remember(record: RotationRecord): void {
		this.keep(record);
		if (record.outcome === "rotated") {
			this.memory.lastRotationAt = record.at;
			this.memory.limitedAt[record.from] = record.at;
		} else if (!record.transient) this.memory.limitedAt[record.from] = record.at;
	}

	/** The newest records first (status, tests). */
	recent(): RotationRecord[] {
		return [...this.records].reverse();
	}

	section(settings: RotateSettings, policy: string, now = Date.now()): StatusSection {
		const lines = [settingsLine(settings, policy)];
		const cooling = this.memory.lastRotationAt !== undefined && now - this.memory.lastRotationAt < settings.cooldownMs;
		if (cooling)
			lines.push(
				`cooldown: the last rotation was ${ago(now - (this.memory.lastRotationAt ?? now))} ` +
					`ago; none before ${ago(settings.cooldownMs - (now - (this.memory.lastRotationAt ?? now)))} from now`,
			);
		const recent = this.recent().slice(0, 3);
		if (!recent.length) lines.push("no rotation this session");
		for (const r of recent) lines.push(recordLine(r));
		return { title: "Rotation", lines };
	}

	/** The line in the short status, or undefined when rotation is off and never happened. */
	brief(settings: RotateSettings): string | undefined {
		const last = this.recent()[0];
		if (!settings.enabled && !last) return undefined;
		return (
			`Rotation: ` +
			`${settings.enabled ? `on, ${settings.models.length} model(s)` : "off"}` +
			`${last ? `; last ${recordLine(last)}` : "; none this session"}`
		);
	}
}

function settingsLine(settings: RotateSettings, policy: string): string {
	if (!settings.enabled) return "off (rotate.enabled: false)";
	const list = settings.models.length ? settings.models.join(" → ") : "no models (rotate.models is empty)";
	const held =
		policy === "handsoff"
			? "; policy handsoff: flags, never rotates"
			: policy === "off"
				? "; policy off: never rotates"
				: "";
	return `on: ${list}; at most one rotation per ${ago(settings.cooldownMs)}${held}`;
}

function recordLine(r: RotationRecord): string {
	const when = new Date(r.at).toISOString().slice(11, 19);
	const head =
		r.outcome === "rotated" ? `${when} ${r.from} → ${r.to}` : `${when} not rotated from ${r.from} (${r.reason})`;
	return `${head}: ${clip(oneLine(r.error), 100)}${r.skipped.length ? ` [passed over ${skipsText(r.skipped)}]` : ""}`;
}

async function safely(
	fn: () => Promise<{ ok: true } | { ok: false; reason: string }>,
): Promise<{ ok: true } | { ok: false; reason: string }> {
	try {
		return await fn();
	} catch (error) {
		return { ok: false, reason: error instanceof Error ? error.message : String(error) };
	}
}

function isRecord(value: unknown): value is RotationRecord {
	const v = value as RotationRecord | undefined;
	return (
		typeof v === "object" &&
		v !== null &&
		typeof v.at === "number" &&
		(v.outcome === "rotated" || v.outcome === "not rotated") &&
		typeof v.from === "string" &&
		typeof v.error === "string" &&
		typeof v.reason === "string" &&
		Array.isArray(v.skipped)
	);
}
