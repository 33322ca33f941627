// How `history` shows events: one line each for people (TUI, print and RPC alike: plain text),
// or one JSON object per line with --json. Pure.
import type { HistoryEvent } from "../findings/index.ts";
import { sourceOf } from "../findings/index.ts";
import { oneLine } from "../util/index.ts";

export interface HistoryListing {
	events: readonly HistoryEvent[];
	skipped: number;
	refused: readonly string[];
	json: boolean;
	/** What was asked, in words ("in this project (/repo) in the last 24h"). */
	described: string;
	limit: number;
}

export function formatHistory(listing: HistoryListing): string {
	if (listing.json) return listing.events.map((e) => JSON.stringify(e)).join("\n");
	const notes = [
		...(listing.skipped
			? [`(${listing.skipped} unreadable line${listing.skipped === 1 ? "" : "s"} in the log skipped)`]
			: []),
		...listing.refused.map((r) => `(${r})`),
	];
	if (listing.events.length === 0) return [`No watchdog history ${listing.described}.`, ...notes].join("\n");
	const n = listing.events.length;
	const more = n === listing.limit ? ` (the newest ${n}; --limit shows more)` : "";
	const header = `Watchdog history ${listing.described}: ${n} event${n === 1 ? "" : "s"}, newest first${more}`;
	const kindWidth = Math.max(...listing.events.map((e) => e.kind.length));
	const sourceWidth = Math.max(...listing.events.map((e) => sourceOf(e).length));
	const rows = listing.events.map(
		(e) =>
			`${localTime(e.at)}  ${e.kind.padEnd(kindWidth)}  ${sourceOf(e).padEnd(sourceWidth)} ` +
			` ${describeEvent(e)}${e.role ? ` (child ${e.path ?? e.role}, run ${e.run ?? "?"})` : ""}`,
	);
	return [header, ...rows, ...notes].join("\n");
}

/** What happened, after the time, kind and source. */
export function describeEvent(event: HistoryEvent): string {
	switch (event.kind) {
		case "review": {
			const parts = [event.trigger, modelWithThinking(event.model, event.thinking), event.outcome];
			parts.push(`${count(event.paths, "path")}${event.carriedOver ? ` (${event.carriedOver} carried over)` : ""}`);
			parts.push(seconds(event.durationMs));
			if (event.tokens) parts.push(`${Math.round(event.tokens).toLocaleString("en-US")} tokens`);
			parts.push(dollars(event.cost));
			if (event.failure) parts.push(`${event.failure.kind}: ${short(event.failure.message, 160)}`);
			return parts.join(" · ");
		}
		case "finding": {
			const head = [`${event.importance}/${event.severity}`, ...(event.category ? [event.category] : [])].join(" · ");
			return `${head} · ${short(event.summary, 200)} → ${event.fate}${event.child ? ` (from ${event.child})` : ""}`;
		}
		case "loop-resolved":
			return short(event.summary, 200);
		case "question":
			return (
				`asked: ${short(event.question, 200)} → ${event.outcome}` +
				`${event.reason ? ` (${short(event.reason, 120)})` : ""}`
			);
		case "failure":
			return `${event.what}: ${short(event.message, 240)}`;
		case "config-change":
			return `by ${event.by}, ${event.outcome}: ${short(event.change, 200)}`;
		case "launch-rule": {
			const started = event.decision === "blocked" || event.started ? "" : " (not started: another child was blocked)";
			return (
				`${event.decision}${started} · ${event.label} on ${event.model} · ${short(event.rule, 200)} ` +
				`· action ${event.action}${event.note ? ` · note: ${short(event.note, 160)}` : ""}`
			);
		}
		case "permission": {
			const how =
				event.how === "reused"
					? "reused an earlier decision"
					: event.how === "failure"
						? `arbiter failed (${event.failure ?? "error"})`
						: event.how === "rule"
							? "by rule"
							: event.how === "user"
								? "by the user, once"
								: `by the arbiter${event.model ? ` ${event.model}` : ""}`;
			return (
				`${event.tool} ${event.decision === "approve" ? "approved" : "denied"} ${how} ` +
				`· rule ${short(event.rule, 160)} · ${event.latencyMs} ms · ${short(event.reason, 200)}`
			);
		}
		case "rotate": {
			const head =
				event.outcome === "rotated"
					? `${event.from} → ${event.to ?? "?"} (${short(event.reason, 100)})`
					: `not rotated from ${event.from}: ${short(event.reason, 160)}`;
			return [
				head,
				`error: ${short(event.error, 160)}`,
				...(event.skipped ? [`passed over: ${short(event.skipped, 240)}`] : []),
			].join(" · ");
		}
		case "verification": {
			const parts = [
				count(event.children, "child", "children"),
				short(event.verdicts, 200),
				`[${String(event.fingerprint ?? "").slice(0, 12)}]`,
				`via ${event.via}`,
			];
			if (event.model) parts.push(`model ${event.model}`, dollars(event.cost ?? 0));
			return `${parts.join(" · ")} → ${event.outcome}`;
		}
		default: {
			// Later kinds, and kinds a newer version wrote.
			const e = event as { summary?: unknown; outcome?: unknown };
			const summary = typeof e.summary === "string" ? short(e.summary, 200) : short(JSON.stringify(event), 200);
			return typeof e.outcome === "string" ? `${summary} → ${e.outcome}` : summary;
		}
	}
}

/** "2025-06-01 14:03:12" in local time, which is what a person compares with their clock. */
export function localTime(iso: string): string {
	const d = new Date(iso);
	if (Number.isNaN(d.getTime())) return iso;
	const p = (n: number) => String(n).padStart(2, "0");
	return (
		`${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
		`${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
	);
}

function modelWithThinking(model: string, thinking: string): string {
	return thinking && thinking !== "off" ? `${model}:${thinking}` : model || "(no model)";
}

function seconds(ms: number): string {
	return `${(Math.max(0, ms || 0) / 1000).toFixed(1)} s`;
}

function dollars(cost: number): string {
	return `$${(cost || 0).toFixed(4)}`;
}

function count(n: number, what: string, many = `${what}s`): string {
	return `${n ?? 0} ${n === 1 ? what : many}`;
}

function short(text: unknown, max: number): string {
	const line = oneLine(String(text ?? ""));
	return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
