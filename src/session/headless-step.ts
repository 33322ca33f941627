// The session's part in a headless run (see src/headless/): its ledger hears every history line
// and each settle's findings; its end waits, reports and sets the exit code. Built here so the
// session only forwards.
import { Headless, type SettleSeen } from "../headless/index.ts";
import type { ResolvedSettings } from "../settings/index.ts";
import type { ChildPort } from "./child-port.ts";
import type { Ctx } from "./monitor.ts";
import type { WatchdogHost } from "./options.ts";
import type { SettleSink } from "./settle.ts";

export function sessionHeadless(
	host: WatchdogHost,
	settings: (ctx: Ctx) => ResolvedSettings,
	sink: { stalemated(): boolean },
	subtree: { openRuns(): string[] },
): Headless {
	return new Headless({
		flag: (name) => host.flag?.(name),
		settings: (ctx) => {
			const resolved = settings(ctx);
			return { enabled: resolved.enabled, strict: resolved.settings.headless.strict };
		},
		stalemated: () => sink.stalemated(),
		openRuns: () => subtree.openRuns(),
		stderr: (text) => {
			try {
				process.stderr.write(`${text}\n`);
			} catch {}
		},
	});
}

/** The sink as the settle pipeline calls it, telling `seen` what this settle handed over. */
export function watchedSink(sink: SettleSink, seen: SettleSeen): SettleSink {
	return {
		atSettle(ctx, findings, settings, countsForStalemate, question) {
			seen.findings = findings;
			seen.verdict = countsForStalemate;
			return sink.atSettle(ctx, findings, settings, countsForStalemate, question);
		},
	};
}

/** The port with each run's end (its verification) tracked: print mode waits for it before it exits. */
export function trackedPort(port: ChildPort, headless: Headless, deadlineMs: (ctx: Ctx) => number): ChildPort {
	const what = "the verification of stopped children";
	const ended: ChildPort["ended"] = (ctx, end, report) =>
		headless.track(port.ended(ctx, end, report), what, deadlineMs(ctx));
	return { ...port, ended };
}
